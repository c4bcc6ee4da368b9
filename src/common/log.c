/*
 * Log lines with a timestamp, the program name and the level.  Each event
 * is one line: control characters in the text (a job name carrying a
 * newline or a terminal escape) are written escaped (utf8_escape).
 */
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/fsmode.h"

#include "common/utf8.h"
#include "common/xalloc.h"

static const char *log_name = "sluice";
static enum log_level log_level = LOG_LEVEL_INFO;
static FILE *log_fp;
static bool log_journal; /* stderr is the journal: "<N>" prefixes */

FILE *log_open_private(const char *path, struct err *e)
{
    int fd = fsmode_open_private(path, O_APPEND, e);
    FILE *fp;

    if (fd < 0)
        return NULL;
    if ((fp = fdopen(fd, "a")) == NULL) {
        err_set(e, "%s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    setvbuf(fp, NULL, _IOLBF, 0);
    return fp;
}

void log_init(const char *name, enum log_level level, FILE *fp)
{
    log_name = name;
    log_level = level;
    log_fp = fp;
}

bool log_detect_journal(void)
{
    const char *v = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    char end;

    log_journal = v != NULL &&
                  sscanf(v, "%llu:%llu%c", &dev, &ino, &end) == 2 &&
                  fstat(STDERR_FILENO, &st) == 0 &&
                  (unsigned long long)st.st_dev == dev &&
                  (unsigned long long)st.st_ino == ino;
    return log_journal;
}

void log_set_level(enum log_level level)
{
    log_level = level;
}

enum log_level log_get_level(void)
{
    return log_level;
}

/* The syslog priority of a tag (sd-daemon(3)'s SD_ERR, SD_WARNING, ...). */
static int log_priority(const char *tag)
{
    switch (tag[0]) {
    case 'f':
        return 2; /* fatal: LOG_CRIT */
    case 'w':
        return 4;
    case 'i':
        return 6;
    case 'd':
        return 7;
    default:
        return 3;
    }
}

static void log_vwrite(const char *tag, int errnum, const char *fmt, va_list ap)
{
    FILE *fp = log_fp ? log_fp : stderr;
    struct timeval tv;
    struct tm tm;
    char stamp[32], small[1024], *text = small;
    va_list aq;
    int n;

    if (log_journal && fp == stderr) {
        fprintf(fp, "<%d>%s: ", log_priority(tag), tag);
    } else {
        gettimeofday(&tv, NULL);
        localtime_r(&tv.tv_sec, &tm);
        strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
        fprintf(fp, "%s.%03ld %s %s: ", stamp, (long)(tv.tv_usec / 1000),
                log_name, tag);
    }
    va_copy(aq, ap);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n >= (int)sizeof(small)) {
        text = xmalloc((size_t)n + 1);
        vsnprintf(text, (size_t)n + 1, fmt, aq);
    }
    va_end(aq);
    if (n >= 0 && utf8_needs_escape(text)) {
        char *esc = utf8_escape(text);
        fputs(esc, fp);
        free(esc);
    } else if (n >= 0) {
        fputs(text, fp);
    }
    if (text != small)
        free(text);
    if (errnum != 0)
        fprintf(fp, ": %s", strerror(errnum));
    fputc('\n', fp);
    fflush(fp);
}

#define LOG_BODY(level, tag, errnum)                                           \
    do {                                                                       \
        va_list ap;                                                            \
        if (log_level < (level))                                               \
            return;                                                            \
        va_start(ap, fmt);                                                     \
        log_vwrite(tag, errnum, fmt, ap);                                      \
        va_end(ap);                                                            \
    } while (0)

void log_debug(const char *fmt, ...)
{
    LOG_BODY(LOG_LEVEL_DEBUG, "debug", 0);
}

void log_info(const char *fmt, ...)
{
    LOG_BODY(LOG_LEVEL_INFO, "info", 0);
}

void log_warn(const char *fmt, ...)
{
    int saved = errno;
    LOG_BODY(LOG_LEVEL_WARN, "warn", saved);
}

void log_warnx(const char *fmt, ...)
{
    LOG_BODY(LOG_LEVEL_WARN, "warn", 0);
}

void fatal(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    va_start(ap, fmt);
    log_vwrite("fatal", saved, fmt, ap);
    va_end(ap);
    exit(1);
}

void fatalx(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vwrite("fatal", 0, fmt, ap);
    va_end(ap);
    exit(1);
}
