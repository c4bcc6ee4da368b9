/*
 * Job arrays in the controller.  A pending array is one record (the
 * array's first job id) holding the ids of its tasks not yet started; a
 * task is split off into a job of its own when it is about to start, or
 * when it alone is held, cancelled or released — as Slurm does.  Also
 * the pass's model of pending jobs with the counters arrays (%N) and
 * singleton dependencies charge.
 */
#ifndef SLUICE_CTLD_JOBARRAY_H
#define SLUICE_CTLD_JOBARRAY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "ctld/job/job.h"
#include "sched/sched.h"

struct jobs;

/* Tasks of one array offered to one pass at most (the rest wait for the
 * next pass, which a start asks for). */
#define JOBARRAY_OFFER_MAX 256

/*
 * jobarray_parse: spec's "array" ("0-9%3"; absent or null: none) into j
 * for MaxArraySize max_size.  -1 with EINVAL and e.
 */
int jobarray_parse(json_t *spec, uint32_t max_size, struct job *j,
                   struct err *e);

/*
 * jobarray_split: task t of pending array m as a job of its own: a new
 * job id (saved, owned by the table), or m itself when t is its last
 * pending task.  NULL with e on a database error.
 */
struct job *jobarray_split(struct jobs *js, struct job *m, uint32_t t,
                           struct err *e);

/* jobarray_find_task: the job of task t of array a already split off,
 * or NULL. */
struct job *jobarray_find_task(struct jobs *js, uint64_t a, int64_t t);

/* The pass's pending jobs, one entry per job, or per task offered of a
 * pending array, with the counters they charge. */
struct sched_model {
    struct job **pend; /* the job (for a task: its array's record) */
    int64_t *task;     /* the task offered, -1 for a plain job */
    struct sched_job *sj;
    size_t n, cap;
    struct sched_counter *ctr;
    size_t nctr;
    struct sched_charge *chg; /* two per entry, nmine[i] used */
    size_t *nmine;
    struct job **slotted; /* array records whose sched_slot is set */
    size_t nslotted;
    struct sched_counter *all_ctr; /* after sched_model_merge */
    struct sched_charge *all_chg;
};

/* sched_model_collect: fill m from js (model(arg, job) turns a job into
 * its sched_job); jobs whose dependencies are not met are left out. */
void sched_model_collect(struct jobs *js, struct sched_model *m,
                         struct sched_job (*model)(void *, const struct job *),
                         void *arg);
/* sched_model_merge: append m's counters to those c already has (the
 * limit engine's) and each job's charges to its own; the merged arrays
 * belong to m.  c->jobs must be m->sj. */
void sched_model_merge(struct sched_model *m, struct sched_cluster *c);
void sched_model_free(struct sched_model *m);

#endif
