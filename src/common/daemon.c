/*
 * Daemon plumbing for sluicectld and sluiced: the pid file, locked for as
 * long as the daemon lives so that a second one on the same directory
 * refuses to start, and the double fork into the background.
 */
#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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
