/*
 * The pass model: the controller's state as the pure scheduler core
 * (src/sched) sees it — nodes, partitions, pending jobs with their limit
 * counters, running and suspended jobs, what preemption holds — built by
 * one function for the real pass (sched_drv.c) and for the what-if
 * passes of sluice explain (explain_sim.c), so that both decide alike.
 */
#ifndef SLUICE_CTLD_SCHED_MODEL_H
#define SLUICE_CTLD_SCHED_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/conf.h"
#include "sched/backfill.h"
#include "sched/sched.h"

struct acct;
struct job;
struct jobs;
struct jlimits;
struct nodes;
struct parts;
struct preempt_drv;
struct model;

/* What a model is built from: the controller's tables, borrowed. */
struct model_src {
    const struct conf *conf;
    struct jobs *jobs;
    struct nodes *nodes;
    struct parts *parts;
    struct acct *acct;           /* QOS MinPrioThreshold */
    struct jlimits *limits;      /* the limit engine's counters */
    struct preempt_drv *preempt; /* holds kept for preemptors */
    struct resvs *resv;          /* reservations; may be NULL */
};

/* model_create: never NULL; SchedulerParameters parsed here, once (bad
 * bf_* values are logged and the defaults kept; check-config reports
 * them too).  model_destroy accepts NULL. */
struct model *model_create(const struct model_src *src);
void model_destroy(struct model *md);

/* model_backfill: SchedulerType=sched/backfill. */
bool model_backfill(const struct model *md);
/* model_bf: SchedulerParameters as parsed (running jobs unset). */
const struct sched_bf *model_bf(const struct model *md);
/* model_slice_us: a backfill slice's time budget: max_us unless
 * bf_yield_interval says less. */
int64_t model_slice_us(const struct model *md, int64_t max_us);

/* What pass_model_build does to suspended jobs whose CPUs are free. */
enum pass_model_mode {
    PASS_MODEL_RUN,     /* the real pass: resume them (jobsusp.h) */
    PASS_MODEL_WHAT_IF, /* change nothing: model them as resumed */
};

/* Distinct time limits whose reservation masks a pass shares. */
#define PASS_MODEL_RESV_CACHE 16

/* One pass's model.  The fields above the line are the caller's to read
 * (and the core's to change, as a pass does); cl.parts stays valid until
 * the next build on the same model. */
struct pass_model {
    struct sched_cluster cl;       /* nodes, partitions, jobs, counters */
    struct sched_job *jobs;        /* cl.jobs, writable */
    struct job **pend;             /* per entry of cl.jobs: its job (for an
                                array task: the array's pending record) */
    int64_t *task;                 /* per entry: the array task, -1 for none */
    size_t n;                      /* entries (cl.njobs) */
    struct sched_running *running; /* for backfill's profile */
    size_t nrunning;
    size_t extra; /* pass_model_build's also: its first entry, or
                     SIZE_MAX */
    /* ---- model.c's own ---- */
    struct model *md;
    uint64_t *used; /* the nodes' GPU bitmaps */
    size_t cap;
    struct sched_counter *ctr; /* array throttles and singletons */
    size_t nctr;
    struct sched_charge *chg; /* two per entry, nmine[i] used */
    size_t *nmine;
    struct job **slotted; /* array records whose sched_slot is set */
    size_t nslotted;
    struct sched_counter *all_ctr; /* with the limit engine's */
    struct sched_charge *all_chg;
    bool limits_open; /* a limit pass begun (jlimits.h) */
    time_t now;       /* the pass's time, for the reservations */
    bool **masks;     /* node_allowed masks made for reservations (owned) */
    size_t nmasks, capmasks;
    /* the masks of jobs in no reservation and without -w/-x, by time
     * limit (NULL: no reservation in the way), shared by such jobs */
    int64_t resv_lim[PASS_MODEL_RESV_CACHE];
    bool *resv_mask[PASS_MODEL_RESV_CACHE];
    size_t nresv_cache;
};

/*
 * pass_model_build: pm as the pass at now sees the controller: every
 * pending job whose dependencies are met (or one entry per task offered
 * of a pending array), with the counters of limits, array throttles and
 * singletons; suspended jobs whose CPUs are free resumed first (mode);
 * then, when a job is pending, the nodes with what preemptors hold and
 * the partitions; with backfill, the running jobs.  also (may be NULL):
 * a pending job added at the end when the pass leaves it out (over its
 * partition's limits, or waiting on a dependency), for what-ifs.  The
 * limit pass stays open until pass_model_free (in one loop iteration).
 */
void pass_model_build(struct model *md, struct pass_model *pm,
                      enum pass_model_mode mode, struct job *also, time_t now);

/* pass_model_one: pm with j alone on the nodes as they are (no limits,
 * no holds), for --test-only. */
void pass_model_one(struct model *md, struct pass_model *pm,
                    const struct job *j);

/* pass_model_nodes: a copy of pm's nodes, and in *used a copy of their
 * GPU bitmaps (the caller frees both), for a what-if pass that changes
 * them. */
struct sched_node *pass_model_nodes(const struct pass_model *pm,
                                    uint64_t **used);

/* pass_model_resv_reason: Slurm's "ReqNodeNotAvail, Reserved for
 * maintenance" when a MAINT reservation kept nodes from entry (not in a
 * reservation itself), for a job that waits for resources; else NULL. */
const char *pass_model_resv_reason(const struct pass_model *pm, size_t entry);

/* pass_model_free: ends the limit pass; pm may be freed twice. */
void pass_model_free(struct pass_model *pm);

#endif
