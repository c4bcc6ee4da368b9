/*
 * Allocation jobs (salloc, srun without a job; docs/protocol.md,
 * "Allocations"): no batch script sends their JOB_END, so the controller
 * ends them itself.  An allocation being killed (JOB_COMPLETE, its srun's
 * step 0 ended, scancel, its time limit, a preemption) gets JOB_KILL on
 * every node and ends once none of its steps runs any more (their nodes
 * reported, or went down), or at its kill deadline, whichever comes
 * first: its resources are not given to another job while its tasks
 * still run.
 */
#ifndef SLUICE_CTLD_JOBALLOC_H
#define SLUICE_CTLD_JOBALLOC_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/err.h"
#include "ctld/job/job.h"

struct jobs;

/* An allocation being killed ends at the latest this long after the
 * SIGKILL of its tasks was due (a node that never reports). */
#define JOBALLOC_END_SLACK_S 10

/*
 * joballoc_settle: j, an allocation being killed, ends now (its state by
 * j->kill; COMPLETED or FAILED by j->exit_code and j->exit_signal for
 * JOB_KILL_COMPLETE) when none of its steps runs or its kill deadline
 * passed.  Anything else is left as it is.  -1 with e on a database
 * error.
 */
int joballoc_settle(struct jobs *js, struct job *j, time_t now, struct err *e);

/*
 * joballoc_complete: JOB_COMPLETE of j by uid with exit_code: 0..255 as
 * a wait-style exit code, -1..-64 as killed by that signal.  j ends
 * COMPLETED (0) or FAILED once its steps are gone (JOB_KILL to its
 * nodes); a pending j is cancelled.  Idempotent: a job already final or
 * being killed is left as it is (0).  -1 with EPERM ("Access/permission
 * denied"), EINVAL (not an allocation, bad exit code).
 */
int joballoc_complete(struct jobs *js, struct job *j, uid_t uid, int exit_code,
                      struct err *e);

/*
 * joballoc_step0_ended: step 0 of j, an srun allocation, ended in state
 * st (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY)
 * with exit_code and signal (reason: the step's, or NULL): j ends with
 * it unless it is already being killed (then its own state wins).
 */
void joballoc_step0_ended(struct jobs *js, struct job *j, enum job_state st,
                          int exit_code, int signal, const char *reason);

#endif
