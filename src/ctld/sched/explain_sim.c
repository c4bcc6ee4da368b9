/*
 * What-if passes for sluice explain (see explain_sim.h): the model of the
 * real pass (model.h) built once, each run on a copy of it with one
 * change.
 */
#include "ctld/sched/explain_sim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/queue/jobs.h"
#include "ctld/sched/model.h"
#include "sched/backfill.h"

/* The longest time limit tried by explain_sim_shorter_time, in minutes,
 * when the job has none (a year). */
#define SIM_MAX_MINUTES (366 * 24 * 60)

struct explain_sim {
    const struct conf *conf;
    int64_t (*clock_ms)(void);
    time_t now;
    size_t target; /* index of the explained job in jobs (its first entry,
                      for an array: its first task offered) */
    size_t njobs;
    struct pass_model m;    /* as the real pass builds it (model.h) */
    struct job **pend;      /* m.pend */
    struct sched_job *jobs; /* m.jobs */
    struct sched_job *work; /* a run's copy */
    struct sched_counter *cwork;
    struct sched_bf bf;
    bool backfill;
    struct explain_sim_ahead *ahead;
    size_t nahead;
    int64_t start_ms; /* for EXPLAIN_SIM_BUDGET_MS */
    size_t runs;
    bool cut;
};

struct explain_sim_tweak explain_sim_tweak_none(void)
{
    return (struct explain_sim_tweak){-1, -1, false, -1};
}

void explain_sim_out_clear(struct explain_sim_out *o)
{
    free(o->nodes);
    memset(o, 0, sizeof(*o));
}

struct explain_sim *explain_sim_create(struct model *md,
                                       const struct conf *conf, struct job *j,
                                       time_t now, int64_t (*clock_ms)(void))
{
    struct explain_sim *x = xcalloc(1, sizeof(*x));

    x->conf = conf;
    x->clock_ms = clock_ms;
    x->now = now;
    x->start_ms = clock_ms();
    pass_model_build(md, &x->m, PASS_MODEL_WHAT_IF, j, now);
    x->target = x->m.extra;
    x->njobs = x->m.n;
    x->pend = x->m.pend;
    x->jobs = x->m.jobs;
    x->work = xcalloc(x->njobs ? x->njobs : 1, sizeof(*x->work));
    x->cwork =
        xcalloc(x->m.cl.ncounters ? x->m.cl.ncounters : 1, sizeof(*x->cwork));
    x->backfill = model_backfill(md);
    x->bf = *model_bf(md);
    x->bf.max_examine = 0;
    x->bf.running = x->m.running;
    x->bf.nrunning = x->m.nrunning;
    return x;
}

void explain_sim_destroy(struct explain_sim *x)
{
    if (x == NULL)
        return;
    free(x->ahead);
    free(x->cwork);
    free(x->work);
    pass_model_free(&x->m);
    free(x);
}

bool explain_sim_cut(const struct explain_sim *x)
{
    return x->cut;
}

bool explain_sim_backfill(const struct explain_sim *x)
{
    return x->backfill;
}

/* t on one entry of the explained job. */
static void tweak_job(struct explain_sim *x, const struct explain_sim_tweak *t,
                      struct sched_job *sj)
{
    if (t->time_limit_s > 0)
        sj->time_limit_s =
            t->time_limit_s == TIMEFMT_INFINITE ? 0 : t->time_limit_s;
    if (t->part >= 0 && (size_t)t->part < x->conf->n_parts) {
        sj->part = (size_t)t->part;
        sj->tier = x->conf->parts[t->part].priority_tier;
        sj->exclusive_user = x->conf->parts[t->part].exclusive_user;
    }
    if (t->no_charges) {
        sj->charges = NULL;
        sj->ncharges = 0;
    }
}

/* t on every entry of the explained job (an array offers several). */
static void apply_tweak(struct explain_sim *x,
                        const struct explain_sim_tweak *t,
                        struct sched_node *nodes)
{
    for (size_t i = x->target; i < x->njobs; i++)
        if (x->pend[i] == x->pend[x->target])
            tweak_job(x, t, &x->work[i]);
    if (t->node_up >= 0 && (size_t)t->node_up < x->m.cl.nnodes) {
        nodes[t->node_up].up = true;
        nodes[t->node_up].drain = false;
    }
}

/* One pass on a fresh model; *r is the caller's to clear. */
static int run_pass(struct explain_sim *x, const struct explain_sim_tweak *t,
                    struct sched_result *r)
{
    uint64_t *used = NULL;
    struct sched_cluster cl = x->m.cl;
    int rc;

    if (x->runs++ > 0 && x->clock_ms() - x->start_ms > EXPLAIN_SIM_BUDGET_MS) {
        x->cut = true;
        errno = ETIME;
        return -1;
    }
    cl.nodes = pass_model_nodes(&x->m, &used);
    memcpy(x->work, x->jobs, x->njobs * sizeof(*x->work));
    if (cl.ncounters > 0)
        memcpy(x->cwork, x->m.cl.counters, cl.ncounters * sizeof(*x->cwork));
    cl.counters = cl.ncounters > 0 ? x->cwork : NULL;
    cl.jobs = x->work;
    apply_tweak(x, t, cl.nodes);
    rc = x->backfill ? sched_backfill_pass(&cl, &x->bf, x->now, r, NULL)
                     : sched_pass(&cl, x->now, r);
    if (rc < 0)
        log_warn("explain: the scheduler core refused the model");
    free(cl.nodes);
    free(used);
    return rc;
}

int explain_sim_run(struct explain_sim *x, const struct explain_sim_tweak *t,
                    struct explain_sim_out *o)
{
    struct sched_result r;

    memset(o, 0, sizeof(*o));
    if (x->target == SIZE_MAX || run_pass(x, t, &r) < 0)
        return -1;
    for (size_t k = 0; k < r.n; k++) {
        const struct sched_decision *d = &r.decisions[k];
        /* the first of its entries the pass decided on */
        if (x->pend[d->job] != x->pend[x->target])
            continue;
        o->reason = d->nnodes > 0 ? SCHED_REASON_NONE : d->reason;
        o->limit = d->limit;
        o->start_est = d->start_est;
        o->nnodes = d->nnodes;
        if (d->nnodes > 0) {
            o->nodes = xcalloc(d->nnodes, sizeof(*o->nodes));
            memcpy(o->nodes, d->nodes, d->nnodes * sizeof(*o->nodes));
        }
        break;
    }
    sched_result_clear(&r);
    return 0;
}

static bool in_line(const struct sched_decision *d)
{
    return d->nnodes > 0 || d->reason == SCHED_REASON_PRIORITY ||
           d->reason == SCHED_REASON_RESOURCES ||
           d->reason == SCHED_REASON_NODE_DOWN;
}

const struct explain_sim_ahead *explain_sim_queue(struct explain_sim *x,
                                                  size_t *n)
{
    struct explain_sim_tweak none = explain_sim_tweak_none();
    struct sched_result r;

    *n = 0;
    if (x->ahead != NULL || x->target == SIZE_MAX) {
        *n = x->nahead;
        return x->ahead;
    }
    if (run_pass(x, &none, &r) < 0)
        return NULL;
    x->ahead = xcalloc(r.n ? r.n : 1, sizeof(*x->ahead));
    for (size_t k = 0;
         k < r.n && x->pend[r.decisions[k].job] != x->pend[x->target]; k++) {
        const struct sched_decision *d = &r.decisions[k];
        if (x->jobs[d->job].part != x->jobs[x->target].part || !in_line(d) ||
            (x->nahead > 0 && x->ahead[x->nahead - 1].job == x->pend[d->job]))
            continue; /* the tasks of one array count once */
        x->ahead[x->nahead++] = (struct explain_sim_ahead){
            x->pend[d->job], d->nnodes > 0 ? SCHED_REASON_NONE : d->reason};
    }
    sched_result_clear(&r);
    *n = x->nahead;
    return x->ahead;
}

/* Would the job start now with a limit of min minutes? */
static bool starts_with(struct explain_sim *x, int64_t min)
{
    struct explain_sim_tweak t = explain_sim_tweak_none();
    struct explain_sim_out o;
    bool yes;

    t.time_limit_s = min * 60;
    if (explain_sim_run(x, &t, &o) < 0)
        return false;
    yes = o.reason == SCHED_REASON_NONE;
    explain_sim_out_clear(&o);
    return yes;
}

int64_t explain_sim_shorter_time(struct explain_sim *x)
{
    int64_t lim, lo = 1, hi;

    if (!x->backfill || x->target == SIZE_MAX)
        return 0;
    lim = x->pend[x->target]->time_limit_s;
    hi = lim == TIMEFMT_INFINITE || lim <= 0 ? SIM_MAX_MINUTES : (lim - 1) / 60;
    if (hi < 1 || !starts_with(x, 1))
        return 0;
    if (starts_with(x, hi))
        return hi * 60;
    /* invariant: lo starts, hi does not */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (starts_with(x, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo * 60;
}
