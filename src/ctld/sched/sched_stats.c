/*
 * Scheduler statistics: running sums over passes and backfill cycles.
 */
#include "ctld/sched/sched_stats.h"

#include <string.h>

void sched_stats_init(struct sched_stats *st, time_t now)
{
    memset(st, 0, sizeof(*st));
    st->since = now;
}

static void cycle_add(struct sched_stats *st, const struct sched_sample *x)
{
    if (!x->cont) { /* a new cycle starts with this slice */
        st->cycle_us = 0;
        st->depth = 0;
    }
    st->slices++;
    st->cycle_us += x->dur_us;
    st->depth += x->examined;
    st->slice_jobs = x->slice_jobs;
    if (!x->cycle_done)
        return;
    st->cycles++;
    st->cycle_last_us = st->cycle_us;
    st->cycle_total_us += st->cycle_us;
    stats_hist_add(&st->cycle_hist, st->cycle_us);
    if (st->cycle_us > st->cycle_max_us)
        st->cycle_max_us = st->cycle_us;
    st->depth_last = st->depth;
    if (st->depth > st->depth_max)
        st->depth_max = st->depth;
    st->reserved_last = x->reserved;
    st->cycle_last_end = x->now;
}

void sched_stats_add(struct sched_stats *st, const struct sched_sample *x)
{
    st->passes++;
    st->total_us += x->dur_us;
    st->last_us = x->dur_us;
    stats_hist_add(&st->pass_hist, x->dur_us);
    if (x->dur_us > st->max_us)
        st->max_us = x->dur_us;
    st->started += x->started;
    st->backfilled += x->backfilled;
    st->last_queue = x->queue;
    st->last_started = x->started;
    st->last_pass = x->now;
    if (x->started > 0)
        st->passes_with_start++;
    if (x->backfill)
        cycle_add(st, x);
}

json_t *sched_stats_json(const struct sched_stats *st, time_t now)
{
    double mean = st->passes ? (double)st->total_us / (double)st->passes : 0;
    double per = st->passes ? (double)st->started / (double)st->passes : 0;
    double cmean =
        st->cycles ? (double)st->cycle_total_us / (double)st->cycles : 0;

    return json_pack(
        "{s:I, s:I, s:{s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I},"
        " s:{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
        "now", (json_int_t)now, "since", (json_int_t)st->since, "main",
        "passes", (json_int_t)st->passes, "passes_with_start",
        (json_int_t)st->passes_with_start, "mean_us", mean, "max_us",
        (json_int_t)st->max_us, "last_us", (json_int_t)st->last_us,
        "jobs_started", (json_int_t)st->started, "last_started",
        (json_int_t)st->last_started, "started_per_pass", per, "queue_length",
        (json_int_t)st->last_queue, "last_pass_time", (json_int_t)st->last_pass,
        "total_us", (json_int_t)st->total_us, "backfill", "slices",
        (json_int_t)st->slices, "cycles", (json_int_t)st->cycles,
        "last_cycle_us", (json_int_t)st->cycle_last_us, "max_cycle_us",
        (json_int_t)st->cycle_max_us, "mean_cycle_us", cmean, "last_depth",
        (json_int_t)st->depth_last, "max_depth", (json_int_t)st->depth_max,
        "current_depth", (json_int_t)st->depth, "last_reserved",
        (json_int_t)st->reserved_last, "jobs_backfilled",
        (json_int_t)st->backfilled, "slice_jobs", (json_int_t)st->slice_jobs,
        "last_cycle_time", (json_int_t)st->cycle_last_end);
}
