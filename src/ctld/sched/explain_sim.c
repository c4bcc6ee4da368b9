/*
 * What-if passes for sluice explain (see explain_sim.h): the model of the
 * real pass built once, each run on a copy of it with one change.
 */
#include "ctld/sched/explain_sim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/sched/sched_drv.h"
#include "sched/backfill.h"

/* The longest time limit tried by explain_sim_shorter_time, in minutes,
 * when the job has none (a year). */
#define SIM_MAX_MINUTES (366 * 24 * 60)

struct explain_sim {
    struct ctld *c;
    time_t now;
    uint32_t div;  /* the test time divisor (ctld.h), at least 1 */
    size_t target; /* index of the explained job in jobs (its first entry,
                      for an array: its first task offered) */
    size_t njobs;
    struct sched_model m;   /* as the real pass collects it (jobarray.h) */
    struct job **pend;      /* m.pend */
    struct sched_job *jobs; /* m.sj */
    struct sched_job *work; /* a run's copy */
    size_t *first, *ncharge;
    struct sched_cluster base; /* with the limit pass's own counters */
    struct sched_counter *cwork;
    struct sched_running *running;
    size_t nrunning;
    struct sched_bf bf;
    bool backfill;
    bool limits_open;
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

/* A limit of secs real seconds in the model's seconds (0: none). */
static int64_t model_limit(const struct explain_sim *x, int64_t secs)
{
    if (secs == TIMEFMT_INFINITE || secs <= 0)
        return 0;
    return (secs + x->div - 1) / x->div;
}

static struct sched_job model_job(struct explain_sim *x, const struct job *j)
{
    struct sched_job sj = sched_drv_model_job(x->c->sched, j);

    /* as the real pass (sched_drv.c) sets them */
    sj.tier = x->c->conf->parts[j->part].priority_tier;
    sj.time_limit_s = model_limit(x, j->time_limit_s);
    return sj;
}

static bool holds_resources(const struct job *j)
{
    return j->n_alloc > 0 && j->state != JOB_PENDING &&
           !job_state_final(j->state);
}

static void add_running(struct explain_sim *x)
{
    size_t cap = 0, n = 0;

    for (struct job *j = jobs_first(x->c->jobs); j != NULL; j = j->next)
        cap += holds_resources(j);
    x->running = xcalloc(cap ? cap : 1, sizeof(*x->running));
    for (struct job *j = jobs_first(x->c->jobs); j != NULL && n < cap;
         j = j->next) {
        int64_t lim;
        if (!holds_resources(j))
            continue;
        lim = model_limit(x, j->time_limit_s);
        x->running[n++] = (struct sched_running){
            .nodes = j->alloc,
            .nnodes = j->n_alloc,
            .cpus_per_node = j->cpus_per_node,
            .mem_per_node_mib = job_mem_per_node(j),
            .gpus_per_node = j->gpus_per_node,
            .end_time = lim > 0 ? j->start_time + (time_t)lim : 0,
        };
    }
    x->nrunning = n;
}

static void set_backfill(struct explain_sim *x)
{
    const struct conf *conf = x->c->conf;
    struct err e;

    x->backfill = conf->scheduler_type == CONF_SCHED_BACKFILL;
    memset(&x->bf, 0, sizeof(x->bf));
    if (sched_bf_params_parse(conf->scheduler_parameters, &x->bf, &e) < 0)
        sched_bf_params_parse("", &x->bf, &e); /* check-config says why */
    x->bf.max_examine = 0;
    x->bf.running = x->running;
    x->bf.nrunning = x->nrunning;
}

static struct sched_job model_entry(void *arg, const struct job *j)
{
    return model_job(arg, j);
}

/* Add j to the model as the real pass leaves it out (over its partition's
 * limits, or waiting on a dependency): what-ifs still ask about it. */
static void append(struct sched_model *m, struct job *j, struct sched_job sj)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->pend = xreallocarray(m->pend, m->cap, sizeof(*m->pend));
        m->task = xreallocarray(m->task, m->cap, sizeof(*m->task));
        m->sj = xreallocarray(m->sj, m->cap, sizeof(*m->sj));
        m->chg = xreallocarray(m->chg, 2 * m->cap, sizeof(*m->chg));
        m->nmine = xreallocarray(m->nmine, m->cap, sizeof(*m->nmine));
    }
    m->pend[m->n] = j;
    m->task[m->n] = -1;
    m->sj[m->n] = sj;
    m->nmine[m->n] = 0;
    m->n++;
}

/* The pending jobs (and array tasks) as the real pass collects them, with
 * the same counters (limits, array throttles, singletons), and j. */
static void collect(struct explain_sim *x, struct job *target)
{
    struct sched_model *m = &x->m;

    sched_model_collect(x->c->jobs, m, model_entry, x);
    x->target = SIZE_MAX;
    for (size_t i = 0; i < m->n && x->target == SIZE_MAX; i++)
        if (m->pend[i] == target)
            x->target = i;
    if (x->target == SIZE_MAX && target->state == JOB_PENDING) {
        x->target = m->n;
        append(m, target, model_job(x, target));
    }
    x->njobs = m->n;
    x->pend = m->pend;
    x->jobs = m->sj;
    x->work = xcalloc(m->n ? m->n : 1, sizeof(*x->work));
    x->first = xcalloc(m->n ? m->n : 1, sizeof(*x->first));
    x->ncharge = xcalloc(m->n ? m->n : 1, sizeof(*x->ncharge));
    jlimits_pass_begin(x->c->limits);
    x->limits_open = true;
    for (size_t i = 0; i < m->n; i++)
        jlimits_pass_job(x->c->limits, m->pend[i], &x->first[i],
                         &x->ncharge[i]);
}

struct explain_sim *explain_sim_create(struct ctld *c, struct job *j,
                                       time_t now)
{
    struct explain_sim *x = xcalloc(1, sizeof(*x));

    x->c = c;
    x->now = now;
    x->start_ms = clock_mono_ms();
    /* the real pass models limits in real seconds, the test divisor
     * aside; so do these */
    x->div = 1;
    collect(x, j);
    add_running(x);
    set_backfill(x);
    x->base = (struct sched_cluster){
        .nnodes = nodes_count(c->nodes),
        .nparts = c->conf->n_parts,
        .jobs = x->jobs,
        .njobs = x->njobs,
    };
    jlimits_pass_finish(c->limits, &x->base, x->jobs, x->first, x->ncharge);
    sched_model_merge(&x->m, &x->base);
    x->cwork =
        xcalloc(x->base.ncounters ? x->base.ncounters : 1, sizeof(*x->cwork));
    return x;
}

void explain_sim_destroy(struct explain_sim *x)
{
    if (x == NULL)
        return;
    if (x->limits_open)
        jlimits_pass_end(x->c->limits);
    free(x->ahead);
    free(x->cwork);
    free(x->running);
    free(x->ncharge);
    free(x->first);
    free(x->work);
    sched_model_free(&x->m);
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
        sj->time_limit_s = model_limit(x, t->time_limit_s);
    if (t->part >= 0 && (size_t)t->part < x->c->conf->n_parts) {
        sj->part = (size_t)t->part;
        sj->tier = x->c->conf->parts[t->part].priority_tier;
        sj->exclusive_user = x->c->conf->parts[t->part].exclusive_user;
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
    if (t->node_up >= 0 && (size_t)t->node_up < x->base.nnodes) {
        nodes[t->node_up].up = true;
        nodes[t->node_up].drain = false;
    }
}

/* One pass on a fresh model; *r is the caller's to clear. */
static int run_pass(struct explain_sim *x, const struct explain_sim_tweak *t,
                    struct sched_result *r)
{
    uint64_t *used = NULL;
    struct sched_cluster cl = x->base;
    int rc;

    if (x->runs++ > 0 &&
        clock_mono_ms() - x->start_ms > EXPLAIN_SIM_BUDGET_MS) {
        x->cut = true;
        errno = ETIME;
        return -1;
    }
    cl.nodes = sched_drv_model_nodes(x->c->sched, &used);
    cl.parts = sched_drv_model_parts(x->c->sched);
    memcpy(x->work, x->jobs, x->njobs * sizeof(*x->work));
    if (cl.ncounters > 0)
        memcpy(x->cwork, x->base.counters, cl.ncounters * sizeof(*x->cwork));
    cl.counters = cl.ncounters > 0 ? x->cwork : NULL;
    cl.jobs = x->work;
    sched_drv_model_hold(x->c->sched, &cl, x->work, x->njobs);
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
