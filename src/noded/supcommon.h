/*
 * What a job's supervisor (supervisor.c) and a step's (stepd.c) do alike:
 * their descriptors, the report line to sluiced, the note on sluiced's
 * socket, and the steps of a child process turning into the user before
 * its execve.
 */
#ifndef SLUICE_NODED_SUPCOMMON_H
#define SLUICE_NODED_SUPCOMMON_H

#include <stddef.h>
#include <sys/types.h>

#include "noded/ucache.h"

/* Where setup_fds puts the report pipe and the directory's lock. */
#define SUP_REPORT_FD 3
#define SUP_LOCK_FD 4

/* sup_setup_fds: the report pipe on SUP_REPORT_FD, the lock on
 * SUP_LOCK_FD (both close-on-exec), /dev/null on 0-2, nothing else. */
void sup_setup_fds(int report_fd, int lock_fd);

/* sup_reset_signals: every signal to its default, none blocked. */
void sup_reset_signals(void);

/* sup_report: one line to sluiced on SUP_REPORT_FD (newline added). */
void sup_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* sup_tell: "CODE text" to fd: how a child tells why it did not exec. */
void sup_tell(int fd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sup_read_all: what a child told on fd until EOF, NUL-terminated; ""
 * when it exec'd. */
void sup_read_all(int fd, char *buf, size_t len);

/*
 * sup_become_user: setgroups with u's resolved groups, setgid(gid),
 * setuid(uid), checked to hold (root cannot be regained), then not
 * dumpable until the execve (this process is a copy of sluiced's
 * memory).  A non-root sluiced runs only its own uid.  -1 after telling
 * fd why.
 */
int sup_become_user(uid_t uid, gid_t gid, const struct ucache_user *u, int fd);

/* sup_notify: line to sluiced's unix socket at path (best effort: the
 * rescan finds every end too). */
void sup_notify(const char *path, const char *line);

#endif
