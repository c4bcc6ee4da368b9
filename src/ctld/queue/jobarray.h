/*
 * Job arrays in the controller.  A pending array is one record (the
 * array's first job id) holding the ids of its tasks not yet started; a
 * task is split off into a job of its own when it is about to start, or
 * when it alone is held, cancelled or released — as Slurm does.
 */
#ifndef SLUICE_CTLD_JOBARRAY_H
#define SLUICE_CTLD_JOBARRAY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "ctld/job/job.h"

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

/*
 * jobarray_offer: the tasks of pending array j (j->array_pending set)
 * offered to one pass, in order: those whose dependencies are met, at
 * most JOBARRAY_OFFER_MAX and at most its throttle (%N).  Into tasks
 * (room for JOBARRAY_OFFER_MAX); how many.
 */
size_t jobarray_offer(const struct job *j, int64_t *tasks);

#endif
