/*
 * Becoming a daemon, shared by sluicectld and sluiced: a locked pid file
 * (one daemon per state or spool directory), detaching from the terminal,
 * standard streams on /dev/null.
 */
#ifndef SLUICE_COMMON_DAEMON_H
#define SLUICE_COMMON_DAEMON_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/log.h"

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

/*
 * daemon_cpu_priority: give this daemon's autogroup (sched(7), "The
 * autogroup feature") the CPU weight of nice, so that the daemon is not
 * starved by the jobs it runs, each of which is a session, and so an
 * autogroup, of its own at nice 0 (SluiceDaemonNice, docs/configuration.md).
 * Applied only when the daemon's session is its own: it leads it, or its
 * leader has exited (daemon_detach, `sluice up`); a daemon run from a
 * shell shares the shell's.  Returns 1 when applied, 0 when not possible
 * here (not our session, no autogroups in this kernel, autogroups turned
 * off: why in e), -1 with e when the kernel refused (EPERM: a negative
 * nice needs root or CAP_SYS_NICE).  ag_path: the autogroup file (NULL:
 * /proc/self/autogroup), enabled_path: the switch (NULL:
 * /proc/sys/kernel/sched_autogroup_enabled); tests pass files of their
 * own.
 */
int daemon_cpu_priority(int nice, const char *ag_path, const char *enabled_path,
                        struct err *e);

/* daemon_cpu_priority_log: daemon_cpu_priority with the real files, its
 * outcome logged in one line (info; a refusal other than EPERM warns).
 * at_start: nice 0 is left alone (a new session's autogroup is at 0);
 * later (a reconfigure) 0 is written too. */
void daemon_cpu_priority_log(int nice, bool at_start);

/* daemon_log_level: the log level of SlurmctldDebug / SlurmdDebug's value
 * (quiet, fatal: errors only; error: errors and warnings; info, verbose:
 * info; debug..debug5: debug); verbose (-v on the command line) makes it
 * debug whatever the value. */
enum log_level daemon_log_level(enum conf_debug level, bool verbose);

#endif
