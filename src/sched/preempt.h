/*
 * Victim choice for preemption, in the pure core: for a pending job that
 * cannot start, the cheapest set of running jobs whose resources, once
 * released, let it start on one placement.  The caller says which running
 * jobs this job may preempt (PreemptType) and when each becomes fair game
 * (PreemptExemptTime); the core picks.  The cost function is in
 * docs/preemption.md.  No I/O, no clock reads.
 */
#ifndef SLUICE_SCHED_PREEMPT_H
#define SLUICE_SCHED_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "sched/sched.h"

/* A running job, as a possible victim.  Its resources are allocated in
 * the cluster model (cpus_alloc, mem_alloc_mib, gpu_used). */
struct sched_victim {
    uint64_t id;
    const size_t *nodes; /* indices into sched_cluster.nodes */
    size_t nnodes;
    uint32_t cpus_per_node;
    uint64_t mem_per_node_mib;
    uint32_t gpus_per_node;
    const uint32_t *gpus; /* GPU positions, gpus_per_node per node in nodes
                             order; NULL without GPUs */
    uint32_t tier;        /* PriorityTier of its partition */
    uint32_t priority;
    time_t start_time;
    time_t exempt_until;    /* not preemptible before; 0: no exemption */
    time_t last_checkpoint; /* 0: none reported */
    bool may;               /* the caller's relation: the pending job may
                               preempt it (type, mode not OFF, not dying) */
    bool suspend;           /* PreemptMode=SUSPEND: it is suspended, not
                               killed, so it frees only its CPUs (memory
                               and GPUs stay held) and loses no work */
};

/* PreemptParameters that change the choice. */
struct sched_preempt_params {
    bool youngest_first;          /* rank by start time, not priority */
    bool strict_order;            /* take victims strictly in rank order */
    uint32_t reorder_count;       /* greedy fallback: pruning rounds (1) */
    uint32_t min_exempt_priority; /* below it, no exempt time (0: none) */
};

/*
 * sched_preempt_params_parse: the keys above from PreemptParameters
 * ("youngest_first,reorder_count=3"; other keys are left alone) over the
 * defaults it sets first.  -1 with EINVAL and e naming the key when a
 * value is not a number; p is then unchanged.
 */
int sched_preempt_params_parse(const char *s, struct sched_preempt_params *p,
                               struct err *e);

/* The choice: victims to preempt and where the job will then run. */
struct sched_preempt_plan {
    size_t *victims; /* indices into the victim array (owned) */
    size_t nvictims;
    size_t *nodes; /* the placement, job->nodes node indices (owned) */
    size_t nnodes;
    uint64_t lost_gpu_s; /* work lost: GPU-seconds of GPU victims */
    uint64_t lost_cpu_s; /* and CPU-seconds of victims without GPUs */
};

/*
 * sched_preempt_lost: the work v loses if killed at now: GPU-seconds (its
 * GPUs times the time since its last checkpoint, or its start), or
 * CPU-seconds for a job without GPUs; *gpu says which.
 */
uint64_t sched_preempt_lost(const struct sched_victim *v, time_t now,
                            bool *gpu);

/*
 * sched_preempt_next_exempt: the earliest time after now at which one of
 * the n victims marked `may` stops being exempt (a pass then may find it
 * eligible); 0 when none will ("until a checkpoint", INT64_MAX, is left
 * out: the checkpoint itself asks for a pass).
 */
time_t sched_preempt_next_exempt(const struct sched_victim *v, size_t n,
                                 time_t now);

/* sched_preempt_eligible: v may be chosen at now under p. */
bool sched_preempt_eligible(const struct sched_victim *v, time_t now,
                            const struct sched_preempt_params *p);

/*
 * sched_preempt_find: the cheapest set of eligible victims among v (nv)
 * whose release lets job j start on c (its partition, node filter, and
 * the nodes as the model has them now), and the nodes it would get.
 * Returns 1 and fills plan (free with sched_preempt_plan_clear), 0 when
 * no such set exists (plan zeroed), -1 with EINVAL when a victim names a
 * node or GPU out of range.  c is not changed.
 */
int sched_preempt_find(const struct sched_cluster *c, const struct sched_job *j,
                       const struct sched_victim *v, size_t nv, time_t now,
                       const struct sched_preempt_params *p,
                       struct sched_preempt_plan *plan);
void sched_preempt_plan_clear(struct sched_preempt_plan *plan);

/* Candidate count per node up to which the search is exact. */
#define SCHED_PREEMPT_EXACT_MAX 20

#endif
