/*
 * File and directory modes where they matter for secrecy and trust: a
 * directory a daemon or `sluice up` keeps its state in must belong to the
 * user running it and be writable by nobody else, and files it creates
 * get their mode from an explicit chmod, not from the umask.
 */
#ifndef SLUICE_COMMON_FSMODE_H
#define SLUICE_COMMON_FSMODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/err.h"

/*
 * fsmode_check: path itself (a symbolic link is not followed) belongs to
 * the effective user and is not writable by its group or others.  On
 * failure e names the path and the fix, e.g. "/tmp/q/state is writable by
 * group or others (mode 0777): run chmod go-w /tmp/q/state" (errno EPERM;
 * ELOOP for a symbolic link, EACCES for another owner).  dir: it must
 * also be a directory (ENOTDIR), else a regular file.
 */
int fsmode_check(const char *path, bool dir, struct err *e);

/* fsmode_check_stat: the same judgement of st, what lstat said of path
 * (for a walk that has it already). */
int fsmode_check_stat(const char *path, const struct stat *st, bool dir,
                      struct err *e);

/*
 * fsmode_mkdir: mkdir -p path.  Directories it creates above path get
 * 0755, path itself mode; each by an explicit chmod, whatever the umask.
 * An existing path is left as it is but must pass fsmode_check.
 */
int fsmode_mkdir(const char *path, mode_t mode, struct err *e);

/*
 * fsmode_open_private: open path for writing (flags: O_APPEND or O_TRUNC,
 * or neither) with mode 0600, refusing a symbolic link (O_NOFOLLOW) and
 * anything but a regular file of the effective user; an existing file is
 * chmod'ed to 0600.  Returns the descriptor (close-on-exec) or -1 with e.
 */
int fsmode_open_private(const char *path, int flags, struct err *e);

/*
 * fsmode_create_excl: create path, which must not exist (O_EXCL,
 * O_NOFOLLOW), with mode (by fchmod), for writing.  A leftover at path is
 * removed first when it is not a directory.  Returns the descriptor
 * (close-on-exec) or -1 with errno (no text: callers name what failed).
 */
int fsmode_create_excl(const char *path, mode_t mode);

/*
 * fsmode_read_secret: the whole of path, a key file (auth/key's, the jwt
 * key), into buf (max bytes; the buffer must hold max + 1), refusing
 * anything but a regular file of the effective user that nobody else may
 * read or write.  what names the file's use in e: "auth/key: /etc/k must
 * be mode 0600 (is 0644)", "... must be owned by uid 0 (is 1000)", "...
 * is larger than 65536 bytes".  0 with *len, or -1 with errno and e.
 */
int fsmode_read_secret(const char *path, const char *what, uint8_t *buf,
                       size_t max, size_t *len, struct err *e);

#endif
