/*
 * Becoming a daemon: a locked pid file (one sluiced per spool), detaching
 * from the terminal, the log file.
 */
#ifndef SLUICE_NODED_DAEMON_H
#define SLUICE_NODED_DAEMON_H

#include "common/err.h"

/*
 * daemon_pidfile_lock: open and lock path (flock, close-on-exec).  Returns
 * the descriptor, or -1 with e: "another sluiced (pid 123) is running with
 * /var/spool/sluice/d/sluiced.pid" (errno EEXIST) or why it cannot be
 * opened.
 */
int daemon_pidfile_lock(const char *path, struct err *e);

/* daemon_pidfile_write: our pid into the locked file fd. */
int daemon_pidfile_write(int fd, struct err *e);

/* daemon_detach: fork into the background (setsid, a second fork, cwd /,
 * stdin/stdout/stderr on /dev/null).  Returns in the daemon only. */
int daemon_detach(struct err *e);

#endif
