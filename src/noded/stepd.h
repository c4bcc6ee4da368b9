/*
 * The step supervisor (the analogue of slurmstepd): a process of its own
 * session, one per step and node, that connects to srun and proves the
 * step's key (stepio.h) before anything runs, starts the node's tasks as
 * the user (one process group, the step's cgroup), relays their stdin,
 * stdout and stderr and srun's signals, enforces the step's time limit,
 * samples their usage, and at the end writes the step's status to the
 * spool and tells sluiced.  It outlives sluiced.
 */
#ifndef SLUICE_NODED_STEPD_H
#define SLUICE_NODED_STEPD_H

#include "noded/steplaunch.h"

struct stepd_args {
    const struct step_launch *step;
    const char *dir; /* the step's spool directory, written */
    const struct step_launch_ctx *ctx;
    int lock_fd; /* dir locked until supervisor.pid is written */
};

/*
 * stepd_main: run as the supervisor in a freshly forked process; never
 * returns.  report_fd gets one line: "ok PID PGID START_TIME" once every
 * task of the node was executed (a task whose execve failed counts: it
 * ends with Slurm's exit code, errno, and srun is told why), or "error
 * ERRNO TEXT" (srun unreachable or not proving the key, the user, the
 * working directory, the cgroup; the directory is then removed).
 *
 * The spool directory then holds supervisor.pid, leader and pgid (the
 * tasks' process group, led by task 0), tasks ("PID ..." of the node's
 * tasks in order), ctl (a unix socket: "signal N" or "kill REASON
 * WAIT_S" from sluiced), usage (the latest USAGE, every usage period) and
 * at the end status: {"tasks": [{"task", "exit_code", "signal"}],
 * "exit_code", "signal", "start_time", "end_time", "oom", "reason",
 * "usage"}.
 */
void stepd_main(const struct stepd_args *a, int report_fd)
    __attribute__((noreturn));

/* The line of a kill to srun: "*** STEP 12.0 ON node01 CANCELLED AT
 * 2026-12-02T11:00:00 DUE TO TIME LIMIT ***" (reason "timeout"; "preempted":
 * DUE TO PREEMPTION; others: nothing after the time).  t in local time. */
void stepd_kill_message(uint32_t job_id, uint32_t step_id, const char *node,
                        const char *reason, int64_t t, char *buf, size_t len);

#endif
