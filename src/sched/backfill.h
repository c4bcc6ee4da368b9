/*
 * Backfill (SchedulerType=sched/backfill) after the main pass: a time
 * profile of free CPUs, memory and GPUs per node, built from running jobs'
 * end times (start + time limit) at bf_resolution; reservations for the
 * highest-priority jobs that cannot start (bf_max_job_test of them, within
 * bf_window); and lower jobs started now only where they do not delay any
 * reservation.  A cycle can be cut into slices (bounded by jobs examined
 * and by bf_yield_interval) that resume where the last one stopped, with
 * the profile and the reservations kept in a struct sched_bf_cycle
 * (bf_continue), so that the controller stays responsive.  Pure: the
 * time budget is read through a clock the caller supplies.
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

struct sched_bf {
    const struct sched_running *running; /* NULL, or nrunning */
    size_t nrunning;
    int64_t window_s;          /* bf_window: how far ahead to reserve */
    int64_t resolution_s;      /* bf_resolution: end times rounded up to it */
    uint32_t max_job_test;     /* bf_max_job_test: reservations made */
    uint32_t max_job_user;     /* bf_max_job_user: jobs examined per user; 0
                              unlimited */
    size_t max_examine;        /* jobs examined per slice; 0: no bound */
    bool cont;                 /* bf_continue: an event does not restart */
    int64_t yield_interval_us; /* bf_yield_interval: a slice's budget */
    /* The clock a slice's budget is measured by (microseconds, any
     * origin); NULL: slices are bounded by max_examine only. */
    int64_t (*clock_us)(void *arg);
    void *clock_arg;
};

/* What a backfill slice did. */
struct sched_bf_stats {
    size_t examined;       /* jobs looked at in this slice */
    size_t started;        /* of those, started now */
    size_t reserved;       /* reservations made in this slice */
    bool done;             /* the cycle reached the end of its queue */
    bool restarted;        /* the slice began a new cycle */
    size_t cycle_examined; /* the cycle so far */
    size_t cycle_reserved;
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
 * sched_backfill_pass: the main pass (sched_pass), then a whole backfill
 * cycle, unsliced, over the jobs it left waiting for Priority or
 * Resources.  Jobs started by either are charged to c->nodes; decisions of
 * backfilled jobs have backfilled set, reserved ones a start_est.  st (may
 * be NULL) gets the cycle's statistics.  Returns 0; -1 with EINVAL when c
 * is malformed (as sched_pass) or a running job names a node out of
 * range.
 */
int sched_backfill_pass(struct sched_cluster *c, const struct sched_bf *bf,
                        time_t now, struct sched_result *out,
                        struct sched_bf_stats *st);

struct sched_bf_cycle;

/*
 * sched_bf_step: one pass with backfill on c at now, as the controller
 * runs it: the main pass (sched_pass; its starts get start_est now) and a
 * backfill cycle begun over it, unless the cycle under way may go on
 * (cont, and sched_bf_cycle_valid); then one slice of the cycle within
 * bf's bounds (bf->running: the running jobs).  event: an event asked for
 * the pass: a resumed cycle still gets the main pass first, and begins
 * anew when that started a job; without one a resumed cycle's slice runs
 * alone (*ran_main false: out holds only the slice's decisions).  st gets
 * the slice's statistics, restarted set when the cycle began anew.
 * Returns 0; -1 with EINVAL when c is malformed or a running job names a
 * node out of range (out is then empty).
 */
int sched_bf_step(struct sched_bf_cycle *cy, struct sched_cluster *c,
                  const struct sched_bf *bf, bool cont, bool event, time_t now,
                  struct sched_result *out, struct sched_bf_stats *st,
                  bool *ran_main);

/*
 * A backfill cycle that lives across slices: the profile with its
 * reservations, the queue of jobs still to examine (by id, in the main
 * pass's order), the per-user and failed-shape tables, and a fingerprint
 * of the nodes and running jobs the profile was built from.
 * sched_bf_cycle_destroy accepts NULL.
 */
struct sched_bf_cycle;
struct sched_bf_cycle *sched_bf_cycle_create(void);
void sched_bf_cycle_destroy(struct sched_bf_cycle *cy);

/* The memory the cycle holds now, in bytes (for benchmarks, sdiag). */
size_t sched_bf_cycle_bytes(const struct sched_bf_cycle *cy);

/* A cycle is under way (begun, not finished, not reset). */
bool sched_bf_cycle_busy(const struct sched_bf_cycle *cy);
/* Forget the cycle under way: the next one begins afresh. */
void sched_bf_cycle_reset(struct sched_bf_cycle *cy);

/*
 * sched_bf_cycle_valid: the cycle under way can continue on c at now:
 * the nodes (allocations, state) are what the cycle left them, bf->running
 * is as at the cycle's begin or that plus the jobs the cycle (its main
 * pass and its slices) started, every job holding a reservation is
 * still pending in c, and now is not before the cycle's start.  Anything
 * else — a job ended or started outside backfill, a node changed, a
 * reserved job went away — means the profile is stale.  False when no
 * cycle is under way.
 */
bool sched_bf_cycle_valid(struct sched_bf_cycle *cy,
                          const struct sched_cluster *c,
                          const struct sched_bf *bf, time_t now);

/*
 * sched_bf_cycle_begin: begin a new cycle from main, the result of
 * sched_pass on c at now (c as the pass left it): the profile from
 * bf->running and the jobs main started, and the queue of jobs main left
 * waiting for Priority or Resources.  Returns 0; -1 with EINVAL when a
 * running job names a node out of range (the cycle is then reset).
 */
int sched_bf_cycle_begin(struct sched_bf_cycle *cy,
                         const struct sched_cluster *c,
                         const struct sched_bf *bf, time_t now,
                         const struct sched_result *main);

/*
 * sched_bf_slice: examine the next jobs of the cycle on c at now, at most
 * bf->max_examine of them (0: no bound) and, with bf->clock_us, until
 * bf->yield_interval_us have passed since the slice began (checked after
 * each job, so a slice examines at least one).  Each job examined is
 * started now if it fits for its whole time limit without delaying a
 * reservation (charged to c->nodes and c->counters), else reserved if
 * fewer than bf->max_job_test are.  Jobs of the queue no longer in c
 * (looked up by id; ids that occur twice in c are skipped) or no longer
 * eligible (held, begin time, partition down) are passed over.  out gets
 * one decision per job examined (d->job indexes c->jobs; owned by the
 * caller, free with sched_result_clear).  Returns 0; -1 with EINVAL when
 * no cycle is under way.
 */
int sched_bf_slice(struct sched_bf_cycle *cy, struct sched_cluster *c,
                   const struct sched_bf *bf, time_t now,
                   struct sched_result *out, struct sched_bf_stats *st);

/*
 * sched_bf_merge: move the decisions of a slice (bfr) into out, the main
 * pass's result over the same njobs jobs, in place of those jobs'
 * decisions there, and add its starts to out->started.  bfr is left
 * empty.
 */
void sched_bf_merge(struct sched_result *out, struct sched_result *bfr,
                    size_t njobs);

#endif
