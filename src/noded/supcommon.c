/*
 * Shared by the job and step supervisors: descriptors, report lines,
 * notes to sluiced, and the child's change to the user.
 */
#include "noded/supcommon.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/utf8.h"

void sup_tell(int fd, int code, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "%d ", code);

    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    utf8_fix(buf); /* a long path may be cut inside a character */
    (void)!write(fd, buf, strlen(buf));
}

void sup_report(const char *fmt, ...)
{
    char buf[700];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    buf[strcspn(buf, "\n")] = '\0';
    utf8_fix(buf);
    strcat(buf, "\n");
    (void)!write(SUP_REPORT_FD, buf, strlen(buf));
}

void sup_reset_signals(void)
{
    sigset_t none;

    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

int sup_become_user(uid_t uid, gid_t gid, const struct ucache_user *u, int fd)
{
    if (geteuid() != 0) {
        if (geteuid() == uid)
            return 0;
        sup_tell(fd, EPERM, "cannot run a job of uid %u as uid %u",
                 (unsigned)uid, (unsigned)geteuid());
        return -1;
    }
    /* the groups sluiced resolved: no NSS modules loaded in this process */
    if (setgroups(u->n_groups, u->groups) < 0 || setgid(gid) < 0 ||
        setuid(uid) < 0) {
        sup_tell(fd, errno, "cannot become user %s (uid %u, gid %u): %s",
                 u->name, (unsigned)uid, (unsigned)gid, strerror(errno));
        return -1;
    }
    if (uid != 0 && setuid(0) == 0) {
        sup_tell(fd, EPERM, "dropping privileges to uid %u did not hold",
                 (unsigned)uid);
        return -1;
    }
    /* Until execve this process is a copy of sluiced's memory, now
     * running as the user: not dumpable, so the user cannot ptrace it
     * whatever fs.suid_dumpable says (the change of uid just set the flag
     * from it).  execve sets it again. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
        sup_tell(fd, errno, "cannot make the process undumpable: %s",
                 strerror(errno));
        return -1;
    }
    return 0;
}

void sup_read_all(int fd, char *buf, size_t len)
{
    size_t used = 0;
    ssize_t n;

    while (used + 1 < len) {
        n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    buf[used] = '\0';
}

void sup_notify(const char *path, const char *line)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int fd;

    if (path == NULL || strlen(path) >= sizeof(sun.sun_path))
        return;
    strcpy(sun.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
        (void)!write(fd, line, strlen(line));
    close(fd);
}

void sup_setup_fds(int report_fd, int lock_fd)
{
    int r = fcntl(report_fd, F_DUPFD_CLOEXEC, SUP_LOCK_FD + 1);
    int l = fcntl(lock_fd, F_DUPFD_CLOEXEC, SUP_LOCK_FD + 1);
    int null;

    dup2(r, SUP_REPORT_FD);
    dup2(l, SUP_LOCK_FD);
    fcntl(SUP_REPORT_FD, F_SETFD, FD_CLOEXEC);
    fcntl(SUP_LOCK_FD, F_SETFD, FD_CLOEXEC);
    null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        for (int fd = 0; fd < 3; fd++)
            if (fd != null)
                dup2(null, fd);
    }
    close_range(SUP_LOCK_FD + 1, ~0U, 0);
}
