/*
 * What-if passes for `sluice explain`: the scheduling pass the controller
 * would run now (the same model, limit counters and backfill), run again
 * with one thing about the explained job or the cluster changed — a
 * shorter time limit, another partition, no limit charges, a drained node
 * resumed — to say what would let the job start sooner.  Nothing is
 * applied: every run works on a fresh copy of the model.
 */
#ifndef SLUICE_CTLD_EXPLAIN_SIM_H
#define SLUICE_CTLD_EXPLAIN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sched/sched.h"

struct conf;
struct job;
struct model;
struct explain_sim;

/* One change to the model; explain_sim_tweak_none() changes nothing. */
struct explain_sim_tweak {
    int64_t time_limit_s; /* real seconds; -1: the job's own */
    long part;            /* another partition (conf index); -1: its own */
    bool no_charges;      /* the job charges no limit counter */
    long node_up;         /* this node (index) up and not drained; -1 */
};

struct explain_sim_tweak explain_sim_tweak_none(void);

/* What the pass decided for the explained job. */
struct explain_sim_out {
    enum sched_reason reason; /* SCHED_REASON_NONE: it starts */
    const char *limit;        /* SCHED_REASON_LIMIT: which (static) */
    time_t start_est;         /* now, a reservation's start, or 0 */
    size_t *nodes;            /* where it would start (owned), or NULL */
    size_t nnodes;
};

void explain_sim_out_clear(struct explain_sim_out *o);

/* A job ahead of the explained one in its partition's queue. */
struct explain_sim_ahead {
    struct job *job;
    enum sched_reason reason; /* as this pass decided */
};

/*
 * explain_sim_create: the model of every pending job (j among them even
 * when the real pass leaves it out, as it does for PartitionTimeLimit),
 * with the limit engine's counters for this moment, built from md (the
 * controller's, model.h) on conf.  clock_ms: a monotonic clock in
 * milliseconds, for EXPLAIN_SIM_BUDGET_MS.  Must be destroyed before
 * control returns to the event loop (the limit pass stays open).
 */
struct explain_sim *explain_sim_create(struct model *md,
                                       const struct conf *conf, struct job *j,
                                       time_t now, int64_t (*clock_ms)(void));
/* explain_sim_destroy: accepts NULL. */
void explain_sim_destroy(struct explain_sim *x);

/* What-if passes stop once this much time has gone into one explain, so
 * that a long queue cannot hold the controller's loop: the first pass
 * always runs, later ones fail with ETIME. */
#define EXPLAIN_SIM_BUDGET_MS 300

/* explain_sim_run: the pass with t applied; o filled (clear it).  -1 when
 * the core refused the model (logged), or with ETIME past the budget. */
int explain_sim_run(struct explain_sim *x, const struct explain_sim_tweak *t,
                    struct explain_sim_out *o);

/*
 * explain_sim_queue: the pending jobs of j's partition that the unchanged
 * pass considers before j and that start or wait for Priority, Resources
 * or nodes (held, future and limit-bound jobs do not stand in line), in
 * scheduling order.  *n gets their number; the array is owned by x.
 */
const struct explain_sim_ahead *explain_sim_queue(struct explain_sim *x,
                                                  size_t *n);

/*
 * explain_sim_shorter_time: the longest time limit, in whole minutes
 * (returned in seconds) and shorter than j's own, with which j would
 * start now (by backfill, before the next reservation); 0 when none
 * would, or when backfill is off.
 */
int64_t explain_sim_shorter_time(struct explain_sim *x);

/* explain_sim_cut: a run was refused for the budget. */
bool explain_sim_cut(const struct explain_sim *x);

/* explain_sim_backfill: whether passes run backfill (sched/backfill). */
bool explain_sim_backfill(const struct explain_sim *x);

#endif
