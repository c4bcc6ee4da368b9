/*
 * Scheduler statistics for `sluice diag` / sdiag (SCHED_DIAG in
 * docs/protocol.md): passes and their durations, jobs started per pass,
 * backfill cycles (a cycle is the slices from the top of the queue to its
 * end), the depth they reached, and the queue length; GET /metrics
 * reads them too, with the durations of passes and cycles in buckets.
 */
#ifndef SLUICE_CTLD_SCHED_STATS_H
#define SLUICE_CTLD_SCHED_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "ctld/core/stats.h"

/* What one pass did (sched_drv.c fills it). */
struct sched_sample {
    size_t queue;      /* pending jobs it looked at */
    size_t started;    /* of them, started (main pass and backfill) */
    size_t backfilled; /* started by backfill */
    bool backfill;     /* a backfill slice followed the main pass */
    bool cont;         /* it continued a cycle */
    bool cycle_done;   /* the slice reached the end of the queue */
    size_t examined;   /* jobs backfill examined in this slice */
    size_t reserved;   /* reservations its cycle has made so far */
    size_t slice_jobs; /* jobs the slice examined (slices are bounded by
                          time, bf_yield_interval) */
    int64_t dur_us;
    time_t now;
};

struct sched_stats {
    time_t since;
    uint64_t passes, passes_with_start;
    int64_t total_us, max_us, last_us;
    uint64_t started, backfilled;
    size_t last_queue, last_started;
    time_t last_pass;
    /* backfill */
    uint64_t slices, cycles;
    int64_t cycle_us, cycle_last_us, cycle_max_us, cycle_total_us;
    size_t depth, depth_last, depth_max, reserved_last, slice_jobs;
    time_t cycle_last_end;
    /* for /metrics: every pass's duration, every whole cycle's */
    struct stats_hist pass_hist, cycle_hist;
};

void sched_stats_init(struct sched_stats *st, time_t now);
void sched_stats_add(struct sched_stats *st, const struct sched_sample *x);
/* sched_stats_json: the SCHED_DIAG reply's "scheduler" object (new
 * reference). */
json_t *sched_stats_json(const struct sched_stats *st, time_t now);

#endif
