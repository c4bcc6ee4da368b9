/*
 * The directory of a local cluster (sluice up / sluice down): its files,
 * the daemons it started (pid files, checked against /proc so that a
 * recycled pid is never taken for ours) and how they are started.
 */
#ifndef SLUICE_CLI_LOCAL_H
#define SLUICE_CLI_LOCAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"

#define LOCAL_DIR_DEFAULT "./sluice-local"
#define LOCAL_CTLD_NAME "sluicectld" /* pid and log name of the controller */

/* Paths under the directory; all absolute and owned by the struct. */
struct local_dir {
    char *dir;   /* DIR */
    char *conf;  /* DIR/sluice.conf */
    char *gres;  /* DIR/gres.conf */
    char *key;   /* DIR/sluice.key */
    char *jwt;   /* DIR/jwt_hs256.key: auth/jwt for the REST API */
    char *state; /* DIR/state */
    char *spool; /* DIR/spool */
    char *log;   /* DIR/log */
    char *pids;  /* DIR/pids */
};

/* local_dir_init: fill d for dir (made absolute); create the directories
 * when create is set.  -1 with e. */
int local_dir_init(struct local_dir *d, const char *dir, bool create,
                   struct err *e);
void local_dir_clear(struct local_dir *d);

/*
 * local_dir_check: whether DIR can be trusted by whoever runs `sluice up`
 * on it (root included): DIR, its state, spool, log and pids directories
 * and everything in them, and sluice.conf, gres.conf, cgroup.conf and
 * sluice.key,
 * belong to the caller and are writable by nobody else, and none is a
 * symbolic link.  A job's script in the spool belongs to the job's user
 * and is the exception.  -1 with e naming the first offending path.
 */
int local_dir_check(const struct local_dir *d, struct err *e);

/* local_pid_file / local_log_file: DIR/pids/NAME.pid, DIR/log/NAME.log;
 * caller frees. */
char *local_pid_file(const struct local_dir *d, const char *name);
char *local_log_file(const struct local_dir *d, const char *name);

/*
 * local_running: the pid of daemon name (LOCAL_CTLD_NAME or a node name)
 * when its pid file names a live process whose command line is that
 * daemon started on d->conf (and with -N name for a node); else 0.
 */
pid_t local_running(const struct local_dir *d, const char *name);

/*
 * local_gone: daemon name, started or found by `sluice up`, has exited:
 * its pid file names no process, a zombie, or a process whose command
 * line is another program's.  A process with no command line to read is
 * not gone: it is in the middle of its exec (the new image's arguments
 * are not set up yet), as a daemon just started can be on a busy machine.
 */
bool local_gone(const struct local_dir *d, const char *name);

/*
 * local_exiting: the pid in daemon name's pid file when that process was
 * killed (SIGKILL pending) or is exiting (the kernel's PF_EXITING) and is
 * not a zombie yet, with its state letter in *st; else 0.  Such a process
 * may hold its pid file's lock for a while yet: one stuck in the kernel
 * (a v1 freezer, a wait on a lock) keeps its command line until it
 * leaves, one further in its exit shows none but keeps its files.
 */
#define LOCAL_PF_EXITING 0x4UL
pid_t local_exiting(const struct local_dir *d, const char *name, char *st);

/*
 * local_spawn: start argv (argv[0] a path) detached (double fork, setsid,
 * stdin /dev/null, stdout and stderr appended to DIR/log/NAME.out, cwd
 * DIR) and record its pid in DIR/pids/NAME.pid.  Returns the pid, or -1
 * with e when it could not be started (exec failed: e says why).
 */
pid_t local_spawn(const struct local_dir *d, const char *name,
                  char *const argv[], struct err *e);

/* local_tail: the last n lines of path to stderr, each indented. */
void local_tail(const char *path, int n);

#endif
