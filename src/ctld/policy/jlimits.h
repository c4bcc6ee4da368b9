/*
 * The controller's side of the limit engine (sched/limits.h): the usage
 * of every job kept up to date on its transitions, the submit-time
 * verdict and the counters of a scheduling pass.  Which limit sets apply
 * to a job (its QOS and associations) comes from the accounting model
 * through a chain function (jlimits_set_chain); without one, or when
 * AccountingStorageEnforce has no "limits", nothing is enforced, as in
 * Slurm.  docs/limits.md.
 */
#ifndef SLUICE_CTLD_JLIMITS_H
#define SLUICE_CTLD_JLIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "ctld/job/job.h"
#include "sched/limits.h"

struct jlimits;

/*
 * The levels of j's chain into lv (LIMITS_LEVEL_MAX of them), most
 * binding first (limits_chain), and whether a QOS of the job has
 * DenyOnLimit.  Returns the number of levels (0: none apply); -1 with e
 * when the job's QOS or association cannot be found.  What lv points to
 * must stay valid until the accounting model next changes.
 */
typedef int (*jlimits_chain_fn)(void *arg, const struct job *j,
                                struct limits_level *lv, bool *deny,
                                struct err *e);

/* jlimits_create: enforce is AccountingStorageEnforce (NULL: none);
 * limits are enforced when it names "limits" (or "safe", which implies
 * it), QOS levels only when it also names "qos".  jlimits_destroy accepts
 * NULL; every job's charge must be gone first. */
struct jlimits *jlimits_create(const char *enforce);
void jlimits_destroy(struct jlimits *l);
void jlimits_set_chain(struct jlimits *l, jlimits_chain_fn fn, void *arg);
/* jlimits_enforced: limits are checked at all. */
bool jlimits_enforced(const struct jlimits *l);

/*
 * jlimits_submit_check: may j (resolved, not yet in the table) be
 * submitted?  -1 with EDQUOT and e "QOSMaxSubmitJobPerUserLimit: zhangsan
 * has 3/3 jobs in dev_qos", or -1 with the chain function's error.  A job
 * without a time limit gets the MaxWall that applies, as in Slurm.
 */
int jlimits_submit_check(struct jlimits *l, struct job *j, struct err *e);

/* Transitions (jobs.c): j entered the table pending (submitted, or
 * recovered in any unfinished state), started, went back to pending,
 * ended.  Each is O(levels). */
void jlimits_job_added(struct jlimits *l, struct job *j);
void jlimits_job_started(struct jlimits *l, struct job *j);
void jlimits_job_stopped(struct jlimits *l, struct job *j);
void jlimits_job_ended(struct jlimits *l, struct job *j);

/*
 * A pass: jlimits_pass_begin, then jlimits_pass_job for each pending job
 * in the order of the model's jobs (fills *first and *n: that job's
 * charges), then jlimits_pass_finish sets c->counters and the jobs'
 * charges (jobs[i].charges from first[i]), and jlimits_pass_end frees
 * them after the pass.
 */
void jlimits_pass_begin(struct jlimits *l);
void jlimits_pass_job(struct jlimits *l, const struct job *j, size_t *first,
                      size_t *n);
void jlimits_pass_finish(struct jlimits *l, struct sched_cluster *c,
                         struct sched_job *jobs, const size_t *first,
                         const size_t *n);
void jlimits_pass_end(struct jlimits *l);

/*
 * jlimits_hold: j, jobs[i] of the pass, waits for the limit named reason
 * (the decision's, static): its reason, and as the long form (scontrol
 * show job, state_description) who the limit counts and the numbers:
 * "QOSMaxJobsPerUserLimit; user zhangsan in dev_qos has 1/1 jobs
 * running".  Between jlimits_pass_finish and jlimits_pass_end.
 */
void jlimits_hold(struct jlimits *l, struct job *j, size_t i,
                  const char *reason);

#endif
