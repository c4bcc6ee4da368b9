/*
 * A job's output tail (jobout.h).  The file is first opened with O_PATH,
 * which opens nothing for reading: no device is ever opened (a tape
 * rewinds on open), whatever the user named with -o or made a directory
 * of the path point to.  Only once the descriptor's file is known to be a
 * regular file of the job's user is it opened for reading, through
 * /proc/self/fd, so that the file checked is the file read.
 */
#include "ctld/web/jobout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/utf8.h"
#include "common/xalloc.h"

/* The descriptor of path, checked; -1 with e. */
static int open_checked(const char *path, uid_t uid, struct stat *st,
                        struct err *e)
{
    int pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd, saved;
    char proc[64];

    if (pfd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return err_set(e,
                           "%s: no such file on the controller's host (the "
                           "job has not written it yet, or its node keeps it "
                           "on a disk the controller does not see)",
                           path);
        return err_set(e, "%s: %s", path,
                       errno == ELOOP ? "is a symbolic link (not followed)"
                                      : strerror(errno));
    }
    if (fstat(pfd, st) < 0)
        goto sys_error;
    if (S_ISLNK(st->st_mode)) {
        errno = ELOOP;
        err_set(e, "%s: is a symbolic link (not followed)", path);
        goto error;
    }
    if (!S_ISREG(st->st_mode)) {
        errno = EINVAL;
        err_set(e, "%s: is not a regular file", path);
        goto error;
    }
    if (st->st_uid != uid) {
        errno = EPERM;
        err_set(e, "%s: belongs to uid %u, not to the job's user (uid %u)",
                path, (unsigned)st->st_uid, (unsigned)uid);
        goto error;
    }
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        goto sys_error;
    close(pfd);
    return fd;
sys_error:
    err_set(e, "%s: cannot be read by the controller (uid %u): %s", path,
            (unsigned)geteuid(), strerror(errno));
error:
    saved = errno;
    close(pfd);
    errno = saved;
    return -1;
}

/* buf (len bytes, then room for a NUL) as UTF-8 text: the pieces of a
 * character cut by the window's start dropped, NULs as '?'.  Returns the
 * text's length. */
static size_t as_text(char *buf, size_t len, int cut_start)
{
    size_t skip = 0;

    while (cut_start && skip < len && skip < 3 &&
           ((unsigned char)buf[skip] & 0xc0) == 0x80)
        skip++;
    memmove(buf, buf + skip, len - skip);
    len -= skip;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            buf[i] = '?';
    buf[len] = '\0';
    utf8_fix(buf);
    return strlen(buf);
}

int jobout_read(const char *path, uid_t uid, size_t max_bytes,
                struct jobout_tail *t, struct err *e)
{
    struct stat st;
    int fd = open_checked(path, uid, &st, e), saved;
    uint64_t size, off;
    size_t want, got = 0;
    char *buf;

    memset(t, 0, sizeof(*t));
    if (fd < 0)
        return -1;
    if (max_bytes > JOBOUT_MAX_BYTES)
        max_bytes = JOBOUT_MAX_BYTES;
    size = (uint64_t)st.st_size;
    off = size > max_bytes ? size - max_bytes : 0;
    want = (size_t)(size - off);
    buf = xmalloc(want + 1);
    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            saved = errno;
            err_set(e, "%s: read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0) /* truncated meanwhile */
            break;
        got += (size_t)n;
    }
    close(fd);
    t->len = as_text(buf, got, off > 0);
    t->text = buf;
    t->size = size;
    t->offset = off;
    return 0;
}

void jobout_clear(struct jobout_tail *t)
{
    if (t == NULL)
        return;
    free(t->text);
    memset(t, 0, sizeof(*t));
}
