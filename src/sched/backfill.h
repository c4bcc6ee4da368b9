/*
 * Backfill (SchedulerType=sched/backfill) after the main pass: a time
 * profile of free CPUs, memory and GPUs per node, built from running jobs'
 * end times (start + time limit) at bf_resolution; reservations for the
 * highest-priority jobs that cannot start (bf_max_job_test of them, within
 * bf_window); and lower jobs started now only where they do not delay any
 * reservation.  A pass can be cut into slices (max_examine jobs each) that
 * resume after the last job examined, so that the controller stays
 * responsive; each slice re-makes the top reservations first.  Pure.
 */
#ifndef SLUICE_SCHED_BACKFILL_H
#define SLUICE_SCHED_BACKFILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "sched/sched.h"

/* A running job, as the profile sees it. */
struct sched_running {
    const size_t *nodes; /* indices into sched_cluster.nodes */
    size_t nnodes;
    uint32_t cpus_per_node;
    uint64_t mem_per_node_mib;
    uint32_t gpus_per_node;
    time_t end_time; /* start + time limit; 0: no limit (never ends) */
};

/* Where a sliced pass stopped: the key of the last job examined. */
struct sched_bf_cursor {
    bool valid;
    uint32_t tier;
    uint32_t priority;
    time_t submit_time;
    uint64_t id;
};

struct sched_bf {
    const struct sched_running *running; /* NULL, or nrunning */
    size_t nrunning;
    int64_t window_s;      /* bf_window: how far ahead to reserve */
    int64_t resolution_s;  /* bf_resolution: end times rounded up to it */
    uint32_t max_job_test; /* bf_max_job_test: reservations made */
    uint32_t max_job_user; /* bf_max_job_user: jobs examined per user; 0
                              unlimited */
    size_t max_examine;    /* jobs examined in this slice; 0: all */
    struct sched_bf_cursor resume; /* valid: continue after this job */
    bool cont;                     /* bf_continue: slices resume */
    int64_t yield_interval_us;     /* bf_yield_interval: a slice's budget */
};

/* What a backfill slice did. */
struct sched_bf_stats {
    size_t examined;             /* jobs looked at (after the main pass) */
    size_t started;              /* of those, started now */
    size_t reserved;             /* reservations made */
    bool done;                   /* reached the end of the queue */
    struct sched_bf_cursor next; /* !done: resume here */
};

/* Defaults as in Slurm: one day, 60 s, 500 jobs. */
#define SCHED_BF_WINDOW_S 86400
#define SCHED_BF_RESOLUTION_S 60
#define SCHED_BF_MAX_JOB_TEST 500

/*
 * sched_bf_params_parse: the backfill keys of SchedulerParameters
 * ("bf_window=2880,bf_continue,..."; others are left alone) into bf, over
 * the defaults it sets first: bf_window (minutes, as in Slurm),
 * bf_resolution (seconds), bf_max_job_test, bf_max_job_user,
 * bf_continue, bf_yield_interval (microseconds, default 2 s).  -1 with
 * EINVAL and e naming the key when a value is not a number in range or
 * bf_resolution exceeds bf_window; bf is then unchanged.
 */
int sched_bf_params_parse(const char *params, struct sched_bf *bf,
                          struct err *e);

/*
 * sched_backfill_pass: the main pass (sched_pass), then backfill over the
 * jobs it left waiting for Priority or Resources.  Jobs started by either
 * are charged to c->nodes; decisions of backfilled jobs have backfilled
 * set, reserved ones a start_est.  st (may be NULL) gets the slice's
 * statistics.  Returns 0; -1 with EINVAL when c is malformed (as
 * sched_pass) or a running job names a node out of range.
 */
int sched_backfill_pass(struct sched_cluster *c, const struct sched_bf *bf,
                        time_t now, struct sched_result *out,
                        struct sched_bf_stats *st);

#endif
