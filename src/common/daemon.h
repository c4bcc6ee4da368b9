/*
 * Becoming a daemon, shared by sluicectld and sluiced: a locked pid file
 * (one daemon per state or spool directory), detaching from the terminal,
 * standard streams on /dev/null.
 */
#ifndef SLUICE_COMMON_DAEMON_H
#define SLUICE_COMMON_DAEMON_H

#include "common/err.h"

/*
 * daemon_pidfile_lock: open and lock path (flock, close-on-exec; the lock
 * lives as long as the descriptor, across fork).  Returns the descriptor,
 * or -1 with e: "another sluiced (pid 123) is running with
 * /var/spool/sluice/d/sluiced.pid" (errno EEXIST; prog names the daemon)
 * or why it cannot be opened.
 */
int daemon_pidfile_lock(const char *path, const char *prog, struct err *e);

/* daemon_pidfile_write: our pid into the locked file fd. */
int daemon_pidfile_write(int fd, struct err *e);

/* daemon_detach: fork into the background (setsid, a second fork, cwd /,
 * stdin/stdout/stderr on /dev/null).  Returns in the daemon only. */
int daemon_detach(struct err *e);

/* daemon_null_stdio: stdin, stdout and stderr on /dev/null; -1 with e
 * when /dev/null cannot be opened (nothing changed). */
int daemon_null_stdio(struct err *e);

#endif
