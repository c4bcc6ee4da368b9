/*
 * The per-job supervisor: a process of its own session that starts the
 * job (own process group, the user's ids, its working directory, its
 * output files, its environment, the script executed by its #! line),
 * waits for it, writes the job's status to the spool and tells sluiced.
 * It outlives sluiced, so a restart of the node daemon loses no job.
 */
#ifndef SLUICE_NODED_SUPERVISOR_H
#define SLUICE_NODED_SUPERVISOR_H

#include "noded/cgroup.h"
#include "noded/jobenv.h"
#include "noded/launch.h"
#include "noded/ucache.h"

struct supervisor_args {
    const struct launch *launch;
    const char *jobdir;    /* the job's spool directory, already written */
    const char *node;      /* NodeName */
    const char *notify;    /* sluiced's unix socket (best effort) */
    const char *conf_path; /* SLURM_CONF for the job; NULL: not set */
    const struct jobenv_gpus *gpus; /* NULL: GPUs named by index */
    const struct cgroup *cg;        /* NULL or version NONE: no cgroup */
    const struct cgroup_job_spec *cgs;
    const struct ucache_user *user; /* name, home, supplementary groups */
    const char *boot_id; /* the machine's, for supervisor.pid; "": none */
    int lock_fd;       /* jobdir locked (spool_lock) until the pid is written */
    int launch_nice;   /* the autogroup's nice until the job's exec; 0: none */
    struct auth *auth; /* the parent's, destroyed first thing in the child */
};

/*
 * supervisor_main: run as the supervisor in a freshly forked process;
 * never returns.  With a cgroup, the job's cgroup is made before the job
 * starts, the job enters it before its exec, and once the script ended
 * every process left in it is killed, the OOM killer's verdict recorded
 * in the status and the cgroup removed.  report_fd gets one line: "ok PID
 * PGID START_TIME T_SUP T_PID T_CGROUP T_EXEC" (stage stamps, launch.h)
 * once the script was executed, or "error ERRNO TEXT" (the job's spool
 * directory is then removed).  Every other inherited descriptor is
 * closed first.
 */
void supervisor_main(const struct supervisor_args *a, int report_fd)
    __attribute__((noreturn));

#endif
