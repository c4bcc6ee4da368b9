/*
 * Job dependencies in the controller: a pending job's --dependency is
 * checked at submit (every job it names must exist), indexed by the jobs
 * it waits on, and judged again only when one of those changes state (or
 * an after+minutes comes due), never by scanning the queue.  The verdict
 * is kept in the job (dep_state): the scheduling pass offers only jobs
 * whose dependencies are met.
 */
#ifndef SLUICE_CTLD_JOBDEP_H
#define SLUICE_CTLD_JOBDEP_H

#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "ctld/job/job.h"

struct jobs;
struct jobdep;

struct jobdep *jobdep_create(void);
void jobdep_destroy(struct jobdep *d); /* accepts NULL */

/*
 * jobdep_set: parse text into j->dep (NULL or "": none), checking that
 * every job it names is known ("Job dependency problem: ...").  -1 with
 * EINVAL and e, j untouched.  Does not index or judge: see jobdep_track.
 */
int jobdep_set(struct jobs *js, struct job *j, const char *text, struct err *e);

/* jobdep_track: index j (which has its id) under the jobs it names and
 * judge it now. */
void jobdep_track(struct jobs *js, struct job *j, time_t now);

/* jobdep_judge: work out j's dep_state again, set its reason and
 * eligible time, cancel it when it can never run and kill_invalid_dep. */
void jobdep_judge(struct jobs *js, struct job *j, time_t now);

/* jobdep_changed: t started or ended (or lost pending tasks): judge the
 * jobs that wait on it or on its array. */
void jobdep_changed(struct jobs *js, const struct job *t, time_t now);

/* jobdep_kill_default: SchedulerParameters has kill_invalid_depend. */
bool jobdep_kill_default(const char *sched_params);

#endif
