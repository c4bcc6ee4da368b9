/*
 * Backfill's availability timeline (internal to src/sched): per node a
 * step function of free CPUs, memory and GPUs over time, built from
 * running jobs' ends and the reservations made so far.  Used by
 * backfill.c; kept across the slices of a backfill cycle.
 */
#ifndef SLUICE_SCHED_BF_PROFILE_H
#define SLUICE_SCHED_BF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sched/sched.h"

#define BF_FOREVER ((time_t)(INT64_MAX / 4))

struct bf_step {
    time_t t;
    int64_t cpus, mem, gpus;
};

struct bf_node {
    struct bf_step *s; /* by time; s[0] is the profile's start */
    size_t n, cap;
    bool usable;
};

/* What a job needs on each node, for how long (BF_FOREVER: no limit). */
struct bf_need {
    int64_t cpus, mem, gpus;
    time_t dur;
};

struct bf_profile {
    struct bf_node *node; /* nnodes of them (owned) */
    size_t nnodes;
    time_t now;
    int64_t resolution_s;
};

/* bf_profile_init: an empty profile of nnodes nodes starting at now;
 * bf_profile_free releases what init and the others allocated. */
void bf_profile_init(struct bf_profile *p, size_t nnodes, time_t now,
                     int64_t resolution_s);
void bf_profile_free(struct bf_profile *p);

/* An end time rounded up to the resolution; 0 (no limit): BF_FOREVER. */
time_t bf_profile_round_end(const struct bf_profile *p, time_t end);

/* Record that a job's share of node i comes back at end (rounded); call
 * before bf_profile_finish.  Ends at BF_FOREVER are never released. */
void bf_profile_release(struct bf_profile *p, size_t i, time_t end,
                        int64_t cpus, int64_t mem, int64_t gpus);

/* Turn the releases into steps, from what nodes[i] has free now. */
void bf_profile_finish(struct bf_profile *p, const struct sched_node *nodes);

/* Whether w fits n from t for its whole duration. */
bool bf_profile_fits(const struct bf_node *n, time_t t,
                     const struct bf_need *w);

/* The earliest time, from or a step time after it and <= horizon, from
 * which w fits n; -1 if none.  Linear in n's steps. */
time_t bf_profile_earliest(const struct bf_node *n, const struct bf_need *w,
                           time_t from, time_t horizon);

/* Take w from n from t for its duration. */
void bf_profile_take(struct bf_node *n, time_t t, const struct bf_need *w);

#endif
