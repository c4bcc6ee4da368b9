/*
 * A job's run lost with a node: requeued (JobRequeue, --requeue) or ended
 * NODE_FAIL, and, for a requeued job, the fence that keeps it from
 * starting again while its old run may still be alive: the node that ran
 * its batch script must first confirm that nothing of that run is left
 * (docs/operations.md).  Two copies of one job never run at once, even
 * when the lost node was only cut off and its jobs ran on meanwhile.
 */
#ifndef SLUICE_CTLD_JOBFENCE_H
#define SLUICE_CTLD_JOBFENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "common/err.h"

struct job;
struct jobs;

/*
 * jobfence_lost: j's run is lost with node idx (DOWN, or idx registered
 * without it: gone, the node itself vouches that nothing of it is left).
 * Its other nodes are sent JOB_KILL (reason "node_down").  A batch job
 * that may be requeued (j->requeue, and not being cancelled, timed out
 * or preempted for good) waits again as PENDING (jobs_requeue_run, the
 * event naming the node: sacct -D shows the run NODE_FAIL) behind a fence
 * on its batch host, unless gone and idx is that host; any other job
 * ends NODE_FAIL with reason why.  -1 with e when it cannot be saved.
 */
int jobfence_lost(struct jobs *js, struct job *j, size_t idx, const char *why,
                  bool gone, time_t now, struct err *e);

/* jobfence_lift: the fence of j is gone (why: for the log); j may start
 * again, the next pass looks at it.  Nothing when j is not fenced. */
void jobfence_lift(struct jobs *js, struct job *j, const char *why);

/* jobfence_on_node: the jobs fenced on node idx, as a new array the
 * caller frees (NULL when none); *n is its length. */
struct job **jobfence_on_node(struct jobs *js, size_t idx, size_t *n);

/* jobfence_lift_node: jobfence_lift for every job fenced on node idx. */
void jobfence_lift_node(struct jobs *js, size_t idx, const char *why);

#endif
