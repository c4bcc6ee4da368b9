/*
 * Node and GPU selection for the scheduler core: does a job fit a node
 * (now, or ever), which nodes it gets (best fit or first fit), and which
 * GPUs on each (of its type, linked to each other where links are known).
 * Pure functions on the model of sched.h; used by sched.c and its tests.
 */
#ifndef SLUICE_SCHED_SELECT_H
#define SLUICE_SCHED_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/sched.h"

/* select_gpu_type_ok: GPU p of n serves a request for type (NULL/"": any). */
bool select_gpu_type_ok(const struct sched_node *n, uint32_t p,
                        const char *type);

/* select_gpus_total: GPUs of n that serve type, allocated or not. */
uint32_t select_gpus_total(const struct sched_node *n, const char *type);
/* select_gpus_free: GPUs of n that serve type and are not allocated. */
uint32_t select_gpus_free(const struct sched_node *n, const char *type);

/* select_fits_now: n is up, not draining, and has j's CPUs, memory and
 * GPUs free. */
bool select_fits_now(const struct sched_node *n, const struct sched_job *j);
/* select_fits_ever: n is big enough for j when empty (state aside). */
bool select_fits_ever(const struct sched_node *n, const struct sched_job *j);

/*
 * select_place: choose j->nodes nodes of j's partition that fit now (by
 * c->fit) and the GPUs on each, charge them to c->nodes and fill d->nodes,
 * d->nnodes and d->gpus (owned by d).  -1 (d untouched) when they cannot
 * be found.
 */
int select_place(struct sched_cluster *c, const struct sched_job *j,
                 struct sched_decision *d);

/*
 * select_gpus: choose k free GPUs of type on n into out (ascending
 * positions).  Without links: the lowest positions.  With links: the set
 * with the most links among its members, grown greedily from each
 * candidate; ties go to the set that leaves the other free GPUs the most
 * links (a single GPU is taken from an already broken-up group).  -1 when
 * fewer than k are free.  Does not mark them used.
 */
int select_gpus(const struct sched_node *n, const char *type, uint32_t k,
                uint32_t *out);

#endif
