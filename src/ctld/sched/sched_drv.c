/*
 * The scheduling pass as the controller runs it: model in, decisions out,
 * decisions applied (RUNNING + JOB_LAUNCH, or the reason a job waits).
 */
#include "ctld/sched/sched_drv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/sched/model.h"
#include "ctld/sched/preempt_drv.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/reason.h"
#include "ctld/sched/sched_stats.h"
#include "sched/backfill.h"
#include "sched/sched.h"

/* Passes that took less CPU than this never wait: the fast lane stays
 * fast. */
#define SCHED_DRV_CHEAP_US 5000
/* A backfill slice's time budget unless bf_yield_interval says less. */
#define SCHED_DRV_SLICE_US 20000

struct sched_drv {
    struct sched_drv_src src; /* borrowed contexts */
    bool wanted;
    int64_t last_end_us;
    int64_t last_cpu_us; /* the last pass's CPU time (sched_drv_pace_us) */
    struct event *defer_ev;
    uint64_t passes;
    struct reason *why;
    struct model *model;          /* what a pass is built from */
    bool backfill;                /* SchedulerType=sched/backfill */
    struct sched_bf bf;           /* SchedulerParameters (model_bf) */
    bool bf_more;                 /* a backfill cycle is under way */
    struct sched_bf_cycle *cycle; /* kept across slices */
    int64_t slice_budget_us;
    struct sched_sample sample; /* of the last pass */
    struct sched_stats st;
    struct preempt_drv *preempt; /* src.preempt */
    bool unpaced;                /* sched_drv_unpaced */
};

static void defer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sched_drv *s = arg;

    (void)fd;
    (void)what;
    loop_kick(s->src.loop);
}

struct sched_drv *sched_drv_create(const struct sched_drv_src *src)
{
    struct sched_drv *s = xcalloc(1, sizeof(*s));

    s->src = *src;
    s->model = src->model;
    s->preempt = src->preempt;
    s->defer_ev = evtimer_new(src->base, defer_cb, s);
    s->why = reason_create(src->parts, src->nodes);
    s->backfill = model_backfill(s->model);
    s->bf = *model_bf(s->model);
    s->slice_budget_us = model_slice_us(s->model, SCHED_DRV_SLICE_US);
    s->cycle = sched_bf_cycle_create();
    sched_stats_init(&s->st, time(NULL));
    return s;
}

void sched_drv_destroy(struct sched_drv *s)
{
    if (s == NULL)
        return;
    if (s->defer_ev)
        event_free(s->defer_ev);
    reason_destroy(s->why);
    sched_bf_cycle_destroy(s->cycle);
    free(s);
}

void sched_drv_want(struct sched_drv *s)
{
    s->wanted = true;
}

bool sched_drv_wanted(const struct sched_drv *s)
{
    return s->wanted;
}

/* The registered GPU indices of a decision's GPU positions (caller
 * frees; NULL without GPUs). */
static uint32_t *decision_gpus(struct nodes *nodes, const struct job *j,
                               const struct sched_decision *d)
{
    uint32_t g = j->gpus_per_node, *out;

    if (d->gpus == NULL || g == 0)
        return NULL;
    out = xcalloc(d->nnodes * g, sizeof(*out));
    for (size_t k = 0; k < d->nnodes; k++) {
        const struct node *nd = nodes_get(nodes, d->nodes[k]);
        for (uint32_t i = 0; i < g; i++)
            out[k * g + i] = nd->gpus.v[d->gpus[k * g + i]].index;
    }
    return out;
}

/* --exclusive: j gets every GPU of its nodes (as many as the one with
 * the fewest has), not only those it asked for; *gpus is replaced by the
 * registered indices of all of them (caller frees). */
static void whole_gpus(struct nodes *nodes, struct job *j,
                       const struct sched_decision *d, uint32_t **gpus)
{
    uint32_t g = UINT32_MAX, *out;

    if (j->opt.exclusive != JOB_EXCL_NODE || d->nnodes == 0)
        return;
    for (size_t k = 0; k < d->nnodes; k++) {
        uint32_t n = (uint32_t)nodes_get(nodes, d->nodes[k])->gpus.n;
        g = n < g ? n : g;
    }
    if (g == 0 || g <= j->gpus_per_node)
        return;
    out = xcalloc(d->nnodes * g, sizeof(*out));
    for (size_t k = 0; k < d->nnodes; k++) {
        const struct node *nd = nodes_get(nodes, d->nodes[k]);
        for (uint32_t i = 0; i < g; i++)
            out[k * g + i] = nd->gpus.v[i].index;
    }
    log_info("job=%" PRIu64 " exclusive: all %u GPUs of each node (asked %u)",
             j->id, g, j->gpus_per_node);
    j->gpus_per_node = g;
    free(*gpus);
    *gpus = out;
}

/* Start j on nodes (gpus: registered indices, NULL: none) and launch it:
 * JOB_LAUNCH to its batch host, or nothing for an allocation, whose
 * steps come from srun. */
static void start_job(struct sched_drv *s, struct job *j, const size_t *nodes,
                      size_t nnodes, const uint32_t *gpus, time_t now)
{
    struct err e;

    if (jobs_start_gpus(s->src.jobs, j, nodes, nnodes, gpus, now, &e) < 0)
        log_warnx("job=%" PRIu64 " start not saved: %s", j->id, e.text);
    if (j->alloc_kind == JOB_ALLOC_NONE)
        nodecmd_launch(s->src.nodecmd, j);
}

/* ---- the pass --------------------------------------------------------- */

/* Returns whether an array started tasks and has more pending: those
 * beyond the ones offered wait for another pass. */
static bool apply(struct sched_drv *s, const struct pass_model *m,
                  const struct sched_result *r, time_t now)
{
    bool more = false;
    struct err e;

    for (size_t i = 0; i < r->n; i++) {
        const struct sched_decision *d = &r->decisions[i];
        struct job *j = m->pend[d->job];
        uint32_t *gpus;
        if (d->nnodes == 0) {
            if (d->start_est > 0)
                j->start_est = d->start_est;
            else if (d->reason != SCHED_REASON_PRIORITY &&
                     d->reason != SCHED_REASON_RESOURCES)
                j->start_est = 0; /* held, limited...: no estimate */
            if (d->reason == SCHED_REASON_LIMIT)
                jlimits_hold(s->src.limits, j, d->job, d->limit);
            else
                reason_set(s->why, j, d->reason);
            if ((d->reason == SCHED_REASON_RESOURCES ||
                 d->reason == SCHED_REASON_NEVER_FITS) &&
                pass_model_resv_reason(m, d->job) != NULL)
                job_set_reason_text(j, "%s", pass_model_resv_reason(m, d->job));
            continue;
        }
        more = more || (m->task[d->job] >= 0 && j->array_pending->count > 1);
        if (m->task[d->job] >= 0 &&
            (j = jobarray_split(s->src.jobs, j, (uint32_t)m->task[d->job],
                                &e)) == NULL) {
            log_warnx("array task not split off: %s", e.text);
            continue;
        }
        if (d->time_limit_s > 0) {
            log_info("job=%" PRIu64 " time limit cut to %" PRId64
                     "s by backfill (--time-min)",
                     j->id, d->time_limit_s);
            j->time_limit_s = d->time_limit_s;
        }
        gpus = decision_gpus(s->src.nodes, j, d);
        whole_gpus(s->src.nodes, j, d, &gpus);
        start_job(s, j, d->nodes, d->nnodes, gpus, now);
        free(gpus);
    }
    return more;
}

static int64_t clock_cb(void *arg)
{
    (void)arg;
    return clock_mono_us();
}

/*
 * Run the core on cl: the main pass alone, or with backfill one slice of
 * the cycle (sched_bf_step).  A cycle under way goes on where it stopped
 * when nothing that its profile was built from changed and, after an
 * event, only with bf_continue; a slice without an event skips the main
 * pass (*ran_main false: r holds only the slice's decisions).
 */
static int decide(struct sched_drv *s, struct pass_model *m, bool cont,
                  bool event, time_t now, struct sched_result *r,
                  struct sched_bf_stats *st, bool *ran_main)
{
    struct sched_bf bf = s->bf;

    memset(st, 0, sizeof(*st));
    st->done = true;
    *ran_main = true;
    if (!s->backfill)
        return sched_pass(&m->cl, now, r);
    bf.running = m->running;
    bf.nrunning = m->nrunning;
    bf.clock_us = s->unpaced ? NULL : clock_cb;
    bf.yield_interval_us = s->slice_budget_us;
    bf.max_examine = 0;
    return sched_bf_step(s->cycle, &m->cl, &bf, cont, event, now, r, st,
                         ran_main);
}

static void sample_fill(struct sched_drv *s, const struct sched_result *r,
                        const struct sched_bf_stats *st)
{
    s->sample.started = r->started;
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].backfilled)
            s->sample.backfilled++;
    s->sample.examined = st->examined;
    s->sample.reserved = st->cycle_reserved;
    s->sample.slice_jobs = st->examined;
}

/* One pass; cont: the backfill cycle under way may go on; event: an
 * event asked for the pass (else it is the next slice of a cycle). */
static void pass(struct sched_drv *s, time_t now, bool cont, bool event)
{
    struct pass_model m;
    struct sched_result r;
    struct sched_bf_stats st = {.done = true};
    bool ran_main = true;

    prio_drv_sync(s->src.prio, now);
    pass_model_build(s->model, &m, PASS_MODEL_RUN, NULL, now);
    if (m.n > 0) {
        reason_begin(s->why);
        if (decide(s, &m, cont, event, now, &r, &st, &ran_main) == 0) {
            if (apply(s, &m, &r, now))
                loop_want_pass(s->src.loop);
            if (ran_main) /* a slice alone leaves preemption to the pass */
                preempt_drv_run(s->preempt, &m.cl, m.pend, m.task, &r, now);
            sample_fill(s, &r, &st);
            if (r.started > 0)
                log_debug("sched pass=%" PRIu64 " pending=%zu started=%zu",
                          s->passes, m.n, r.started);
            sched_result_clear(&r);
        } else {
            log_warn("sched pass=%" PRIu64 " refused the model", s->passes);
            sched_bf_cycle_reset(s->cycle);
        }
    } else {
        sched_bf_cycle_reset(s->cycle);
    }
    s->sample.queue = m.n;
    s->sample.cycle_done = st.done;
    s->sample.cont = !st.restarted;
    pass_model_free(&m);
    s->bf_more = !st.done;
}

int64_t sched_drv_pace_us(int64_t last_end_us, int64_t last_cpu_us,
                          int64_t now_us)
{
    int64_t wait_us = last_end_us + 4 * last_cpu_us - now_us;

    return last_cpu_us > SCHED_DRV_CHEAP_US && wait_us > 0 ? wait_us : 0;
}

void sched_drv_run(struct sched_drv *s, time_t now)
{
    int64_t start = clock_mono_us(), cpu0, wait_us, dur;
    bool cont, event;

    if (!s->wanted && !s->bf_more)
        return;
    wait_us = sched_drv_pace_us(s->last_end_us, s->last_cpu_us, start);
    if (!s->unpaced && wait_us > 0 &&
        !(s->wanted && preempt_drv_due(s->preempt))) {
        struct timeval tv = {wait_us / 1000000, wait_us % 1000000};
        if (!evtimer_pending(s->defer_ev, NULL))
            evtimer_add(s->defer_ev, &tv);
        return;
    }
    /* An event restarts the backfill cycle unless bf_continue; either
     * way a cycle whose profile went stale restarts (decide). */
    event = s->wanted;
    cont = s->bf_more && (!event || s->bf.cont);
    s->wanted = false;
    s->passes++;
    s->sample = (struct sched_sample){.backfill = s->backfill, .now = now};
    cpu0 = clock_thread_cpu_us();
    pass(s, now, cont, event);
    s->last_cpu_us = clock_thread_cpu_us() - cpu0;
    s->last_end_us = clock_mono_us();
    dur = s->last_end_us - start;
    s->sample.dur_us = dur;
    sched_stats_add(&s->st, &s->sample);
    if (s->bf_more && !evtimer_pending(s->defer_ev, NULL)) {
        /* the next slice after this iteration's I/O */
        struct timeval tv = {0, 0};
        evtimer_add(s->defer_ev, &tv);
    }
}

void sched_drv_unpaced(struct sched_drv *s)
{
    s->unpaced = true;
}

json_t *sched_drv_test(struct sched_drv *s, const struct job *j)
{
    const struct conf *conf = s->src.conf;
    struct pass_model m;
    struct sched_result r;
    json_t *o = json_pack("{s:i, s:b, s:s}", "job_id", 0, "would_start", 0,
                          "partition", conf->parts[j->part].name);

    pass_model_one(s->model, &m, j);
    if (sched_pass(&m.cl, time(NULL), &r) == 0 && r.n == 1) {
        const struct sched_decision *d = &r.decisions[0];
        json_object_set_new(o, "reason",
                            json_string(sched_reason_name(d->reason)));
        if (d->nnodes > 0) {
            struct job tmp = *j;
            char *nl;
            tmp.alloc = d->nodes;
            tmp.n_alloc = d->nnodes;
            nl = job_alloc_list(&tmp, conf);
            json_object_set_new(o, "would_start", json_true());
            json_object_set_new(o, "node_list", json_string(nl));
            free(nl);
        }
        sched_result_clear(&r);
    }
    pass_model_free(&m);
    return o;
}

/* Why an immediate job cannot start now, before any placement: held,
 * a BeginTime to come, a dependency, over its partition's limits. */
static const char *immediate_blocker(const struct job *j, time_t now)
{
    if (j->held_admin)
        return "JobHeldAdmin";
    if (j->held_user)
        return "JobHeldUser";
    if (j->begin_time > now)
        return "BeginTime";
    if (j->dep.n > 0)
        return "Dependency";
    if (j->part_time_limit)
        return "PartitionTimeLimit";
    if (j->part_node_limit)
        return "PartitionNodeLimit";
    return NULL;
}

/* The text of a decision that j waits: nodes busy, or the reason. */
static int not_now(const struct sched_decision *d, struct err *e)
{
    errno = EAGAIN;
    if (d == NULL || d->reason == SCHED_REASON_RESOURCES ||
        d->reason == SCHED_REASON_PRIORITY)
        return err_set(e, "Unable to allocate resources: Requested nodes are "
                          "busy");
    return err_set(e, "Unable to allocate resources: %s",
                   d->limit ? d->limit : sched_reason_name(d->reason));
}

int sched_drv_place(struct sched_drv *s, struct job *j, time_t now,
                    struct sched_drv_place *pl, struct err *e)
{
    const char *block = immediate_blocker(j, now);
    const struct sched_decision *d = NULL;
    struct pass_model m;
    struct sched_result r = {0};
    struct sched_job tmp;
    int rc = -1;

    memset(pl, 0, sizeof(*pl));
    if (block != NULL) {
        errno = EAGAIN;
        return err_set(e, "Unable to allocate resources: %s", block);
    }
    /* the model of a pass (limits, holds for preemptors, suspended jobs
     * about to resume), with j alone in it, first in line */
    pass_model_build(s->model, &m, PASS_MODEL_WHAT_IF, j, now);
    if (m.extra == SIZE_MAX) {
        pass_model_free(&m);
        return not_now(NULL, e);
    }
    tmp = m.jobs[m.extra];
    m.jobs[m.extra] = m.jobs[0];
    m.jobs[0] = tmp;
    m.jobs[0].tier = UINT32_MAX;
    m.cl.njobs = 1;
    if (sched_pass(&m.cl, now, &r) == 0 && r.n == 1)
        d = &r.decisions[0];
    if (d != NULL && d->nnodes > 0) {
        pl->nnodes = d->nnodes;
        pl->nodes = xcalloc(d->nnodes, sizeof(*pl->nodes));
        memcpy(pl->nodes, d->nodes, d->nnodes * sizeof(*pl->nodes));
        pl->gpus = decision_gpus(s->src.nodes, j, d);
        rc = 0;
    } else {
        not_now(d, e);
    }
    sched_result_clear(&r);
    pass_model_free(&m);
    return rc;
}

void sched_drv_place_clear(struct sched_drv_place *pl)
{
    free(pl->nodes);
    free(pl->gpus);
    memset(pl, 0, sizeof(*pl));
}

void sched_drv_start(struct sched_drv *s, struct job *j,
                     const struct sched_drv_place *pl, time_t now)
{
    start_job(s, j, pl->nodes, pl->nnodes, pl->gpus, now);
}

const struct sched_stats *sched_drv_stats(const struct sched_drv *s)
{
    return &s->st;
}

json_t *sched_drv_diag(struct sched_drv *s, time_t now)
{
    json_t *o = sched_stats_json(&s->st, now);
    char buf[32];

    json_object_set_new(
        o, "scheduler_type",
        json_string(s->backfill ? "sched/backfill" : "sched/builtin"));
    json_object_set_new(o, "pending",
                        json_integer((json_int_t)s->st.last_queue));
    snprintf(buf, sizeof(buf), "%s", s->bf_more ? "running" : "idle");
    json_object_set_new(o, "backfill_state", json_string(buf));
    json_object_set_new(o, "slice_budget_us", json_integer(s->slice_budget_us));
    json_object_set_new(o, "bf_window_s", json_integer(s->bf.window_s));
    json_object_set_new(o, "bf_max_job_test", json_integer(s->bf.max_job_test));
    json_object_set_new(o, "bf_continue", json_boolean(s->bf.cont));
    return o;
}
