/*
 * Daemon plumbing for sluicectld and sluiced: the pid file, locked for as
 * long as the daemon lives so that a second one on the same directory
 * refuses to start, the double fork into the background, and the CPU
 * weight of the daemon's autogroup.
 */
#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"

int daemon_pidfile_lock(const char *path, const char *prog, struct err *e)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    char buf[32] = "";
    struct stat st;
    ssize_t n;

    if (fd < 0)
        return err_set(e, "cannot open %s: %s", path, strerror(errno));
    /* never truncate and write someone else's file (a link, or a file
     * another user left in our directory) */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        fchmod(fd, 0600) < 0) {
        err_set(e, "%s is not a regular file of uid %u: remove it", path,
                (unsigned)geteuid());
        close(fd);
        errno = EPERM;
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    if (errno != EWOULDBLOCK) {
        err_set(e, "cannot lock %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    n = pread(fd, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    close(fd);
    errno = EEXIST;
    return err_set(e, "another %s (pid %s) is running with %s", prog,
                   buf[0] ? buf : "?", path);
}

int daemon_pidfile_write(int fd, struct err *e)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

    if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
        return err_set(e, "cannot write the pid file: %s", strerror(errno));
    return 0;
}

int daemon_detach(struct err *e)
{
    pid_t pid = fork();

    if (pid < 0)
        return err_set(e, "fork: %s", strerror(errno));
    if (pid > 0)
        _exit(0);
    setsid();
    pid = fork();
    if (pid < 0)
        return err_set(e, "fork: %s", strerror(errno));
    if (pid > 0)
        _exit(0);
    if (chdir("/") < 0)
        return err_set(e, "chdir /: %s", strerror(errno));
    return daemon_null_stdio(e);
}

int daemon_null_stdio(struct err *e)
{
    int null = open("/dev/null", O_RDWR);

    if (null < 0)
        return err_set(e, "/dev/null: %s", strerror(errno));
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO)
        close(null);
    return 0;
}

/* Whether this process's session is its own: it leads it, or the leader
 * (daemon_detach's first child) has exited. */
static bool own_session(void)
{
    pid_t sid = getsid(0);

    return sid == getpid() || (sid > 0 && kill(sid, 0) < 0 && errno == ESRCH);
}

int daemon_cpu_priority(int nice, const char *ag_path, const char *enabled_path,
                        struct err *e)
{
    const char *ag = ag_path ? ag_path : "/proc/self/autogroup";
    const char *en = enabled_path ? enabled_path
                                  : "/proc/sys/kernel/sched_autogroup_enabled";
    char buf[16] = "";
    FILE *fp;
    int fd, n;

    err_clear(e);
    if (!own_session()) {
        err_set(e, "this process shares its session (a shell's), whose "
                   "other processes it would raise too");
        return 0;
    }
    if ((fp = fopen(en, "re")) != NULL) {
        if (fgets(buf, sizeof(buf), fp) != NULL && buf[0] == '0') {
            fclose(fp);
            err_set(e, "autogroups are turned off here "
                       "(kernel.sched_autogroup_enabled=0)");
            return 0;
        }
        fclose(fp);
    }
    if ((fd = open(ag, O_WRONLY | O_CLOEXEC)) < 0) {
        int saved = errno;
        err_set(e, "this kernel has no autogroups (%s: %s)", ag,
                strerror(saved));
        return 0;
    }
    n = snprintf(buf, sizeof(buf), "%d", nice);
    if (write(fd, buf, (size_t)n) != n) {
        int saved = errno;
        close(fd);
        errno = saved;
        return err_set(e, "cannot set the autogroup's nice to %d: %s%s", nice,
                       strerror(saved),
                       saved == EPERM || saved == EACCES
                           ? " (a negative nice needs root or CAP_SYS_NICE)"
                           : "");
    }
    close(fd);
    return 1;
}

void daemon_cpu_priority_log(int nice, bool at_start)
{
    struct err e;
    int rc;

    if (nice == 0 && at_start)
        return; /* a new session's autogroup is at 0 already */
    rc = daemon_cpu_priority(nice, NULL, NULL, &e);
    if (rc > 0)
        log_info("SluiceDaemonNice=%d: this daemon's autogroup runs at nice "
                 "%d, its jobs' at 0",
                 nice, nice);
    else if (rc < 0 && errno != EPERM && errno != EACCES)
        log_warnx("SluiceDaemonNice=%d not applied: %s", nice, e.text);
    else
        log_info("SluiceDaemonNice=%d not applied: %s", nice, e.text);
}

enum log_level daemon_log_level(enum conf_debug level, bool verbose)
{
    if (verbose)
        return LOG_LEVEL_DEBUG;
    switch (level) {
    case CONF_DEBUG_QUIET:
    case CONF_DEBUG_FATAL:
        return LOG_LEVEL_ERROR;
    case CONF_DEBUG_ERROR:
        return LOG_LEVEL_WARN;
    case CONF_DEBUG_INFO:
    case CONF_DEBUG_VERBOSE:
        return LOG_LEVEL_INFO;
    case CONF_DEBUG_DEBUG:
    case CONF_DEBUG_DEBUG2:
    case CONF_DEBUG_DEBUG3:
    case CONF_DEBUG_DEBUG4:
    case CONF_DEBUG_DEBUG5:
        break;
    }
    return LOG_LEVEL_DEBUG;
}
