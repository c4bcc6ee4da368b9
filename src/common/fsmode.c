/*
 * Ownership and mode checks for the directories and files the daemons and
 * `sluice up` trust, and creation with explicit modes (fsmode.h).
 */
#include "common/fsmode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

int fsmode_check_stat(const char *path, const struct stat *st, bool dir,
                      struct err *e)
{
    uid_t me = geteuid();

    if (S_ISLNK(st->st_mode)) {
        errno = ELOOP;
        return err_set(e, "%s is a symbolic link: remove it", path);
    }
    if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
        errno = dir ? ENOTDIR : EINVAL;
        return err_set(e, "%s is not a %s", path,
                       dir ? "directory" : "regular file");
    }
    if (st->st_uid != me) {
        errno = EACCES;
        return err_set(e,
                       "%s belongs to uid %u, not to uid %u running this: "
                       "remove it, or chown it if it is yours",
                       path, (unsigned)st->st_uid, (unsigned)me);
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        errno = EPERM;
        return err_set(e,
                       "%s is writable by group or others (mode %04o): run "
                       "chmod go-w %s",
                       path, (unsigned)(st->st_mode & 07777), path);
    }
    return 0;
}

int fsmode_check(const char *path, bool dir, struct err *e)
{
    struct stat st;

    if (lstat(path, &st) < 0)
        return err_set(e, "%s: %s", path, strerror(errno));
    return fsmode_check_stat(path, &st, dir, e);
}

/* Create one directory with mode; 1 created, 0 it was there, -1 failed. */
static int mkdir_one(const char *path, mode_t mode, struct err *e)
{
    if (mkdir(path, 0700) < 0) {
        if (errno == EEXIST)
            return 0;
        return err_set(e, "cannot create %s: %s", path, strerror(errno));
    }
    if (chmod(path, mode) < 0)
        return err_set(e, "cannot chmod %s: %s", path, strerror(errno));
    return 1;
}

int fsmode_mkdir(const char *path, mode_t mode, struct err *e)
{
    char *p = xstrdup(path);
    int rc = 0;

    for (char *s = p + 1; *s != '\0' && rc >= 0; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        rc = mkdir_one(p, 0755, e);
        *s = '/';
    }
    if (rc >= 0 && (rc = mkdir_one(p, mode, e)) == 0)
        rc = fsmode_check(p, true, e);
    free(p);
    return rc < 0 ? -1 : 0;
}

int fsmode_open_private(const char *path, int flags, struct err *e)
{
    struct stat st;
    int saved, fd = open(path,
                         O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                             (flags & (O_APPEND | O_TRUNC)),
                         0600);

    if (fd < 0)
        return err_set(e, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) < 0) {
        err_set(e, "cannot open %s: %s", path, strerror(errno));
        goto error;
    }
    /* a plain file of ours: its mode is fixed just below */
    st.st_mode &= ~(mode_t)(S_IWGRP | S_IWOTH);
    if (fsmode_check_stat(path, &st, false, e) < 0)
        goto error;
    if (fchmod(fd, 0600) < 0) {
        err_set(e, "cannot chmod %s: %s", path, strerror(errno));
        goto error;
    }
    return fd;
error:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int fsmode_create_excl(const char *path, mode_t mode)
{
    int fd, saved;

    if (unlink(path) < 0 && errno != ENOENT)
        return -1;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              mode & 0700);
    if (fd < 0)
        return -1;
    if (fchmod(fd, mode) < 0) {
        saved = errno;
        close(fd);
        unlink(path);
        errno = saved;
        return -1;
    }
    return fd;
}

int fsmode_read_secret(const char *path, const char *what, uint8_t *buf,
                       size_t max, size_t *len, struct err *e)
{
    struct stat st;
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0)
        return err_set(e, "%s: %s: %s", what, path, strerror(errno));
    if (fstat(fd, &st) < 0) {
        err_set(e, "%s: %s: %s", what, path, strerror(errno));
        goto error;
    }
    errno = EPERM;
    if (!S_ISREG(st.st_mode)) {
        err_set(e, "%s: %s is not a regular file", what, path);
        goto error;
    }
    if ((st.st_mode & 077) != 0) {
        err_set(e, "%s: %s must be mode 0600 (is %04o)", what, path,
                (unsigned)(st.st_mode & 07777));
        goto error;
    }
    if (st.st_uid != geteuid()) {
        err_set(e, "%s: %s must be owned by uid %u (is %u)", what, path,
                (unsigned)geteuid(), (unsigned)st.st_uid);
        goto error;
    }
    while (n <= max) {
        ssize_t r = read(fd, buf + n, max + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err_set(e, "%s: %s: %s", what, path, strerror(errno));
            goto error;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > max) {
        errno = EINVAL;
        return err_set(e, "%s: %s is larger than %zu bytes", what, path, max);
    }
    *len = n;
    return 0;
error:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}
