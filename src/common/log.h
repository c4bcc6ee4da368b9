/*
 * Logging, OpenBSD style: log_warn appends strerror(errno), log_warnx does
 * not; fatal/fatalx exit.  One line per event, key=value where it helps:
 * "job=42 state=running node=node01 gpus=0,1".
 */
#ifndef SLUICE_LOG_H
#define SLUICE_LOG_H

#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"

enum log_level {
    LOG_LEVEL_ERROR = 0,
    LOG_LEVEL_WARN,
    LOG_LEVEL_INFO,
    LOG_LEVEL_DEBUG,
};

/* log_open_private: path opened for appending, line-buffered, mode 0600
 * (logs name users, paths and failures); a symbolic link or a file of
 * another user is refused (fsmode_open_private).  NULL with e. */
FILE *log_open_private(const char *path, struct err *e);
/* log_init: name is the program's; lines go to fp (stderr when NULL). */
void log_init(const char *name, enum log_level level, FILE *fp);
void log_set_level(enum log_level level);
/*
 * log_detect_journal: whether stderr is systemd's journal ($JOURNAL_STREAM
 * names its device and inode, as systemd sets it for a service).  If so,
 * lines written to stderr start with their syslog priority ("<4>warn:
 * ...") instead of a timestamp and the program name: the journal records
 * the time, the program and, from the prefix, the level (journalctl -p).
 */
bool log_detect_journal(void);
enum log_level log_get_level(void);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* Internal invariants, checked in every build. */
#define ASSERT(cond)                                                           \
    do {                                                                       \
        if (!(cond))                                                           \
            fatalx("assertion failed: %s (%s:%d)", #cond, __FILE__, __LINE__); \
    } while (0)

#endif
