/*
 * The scheduling pass as the controller runs it: model in, decisions out,
 * decisions applied (RUNNING + JOB_LAUNCH, or the reason a job waits).
 */
#include "ctld/sched/sched_drv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/ctld.h"
#include "ctld/core/loop.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/sched/preempt_drv.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/reason.h"
#include "ctld/sched/sched_stats.h"
#include "sched/backfill.h"
#include "sched/sched.h"

/* Passes shorter than this never wait: the fast lane stays fast. */
#define SCHED_DRV_CHEAP_US 5000
/* A backfill slice's time budget unless bf_yield_interval says less. */
#define SCHED_DRV_SLICE_US 20000

struct sched_drv {
    struct ctld *c;
    struct sched_part *parts; /* from the configuration, built once */
    bool wanted;
    int64_t last_end_us;
    int64_t last_dur_us;
    struct event *defer_ev;
    uint64_t passes;
    struct reason *why;
    bool backfill;                /* SchedulerType=sched/backfill */
    struct sched_bf bf;           /* SchedulerParameters */
    bool bf_more;                 /* a backfill cycle is under way */
    struct sched_bf_cycle *cycle; /* kept across slices */
    int64_t slice_budget_us;
    struct sched_sample sample; /* of the last pass */
    struct sched_stats st;
    struct preempt_drv *preempt;
    bool unpaced; /* sched_drv_unpaced */
};

static void defer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sched_drv *s = arg;

    (void)fd;
    (void)what;
    loop_kick(s->c->loop);
}

/* SchedulerParameters: bad bf_* values are logged and the defaults kept
 * (check-config reports them too). */
static void bf_setup(struct sched_drv *s, const struct conf *conf)
{
    struct err e;

    if (sched_bf_params_parse(conf->scheduler_parameters, &s->bf, &e) < 0) {
        log_warnx("SchedulerParameters: %s; backfill defaults used", e.text);
        sched_bf_params_parse("", &s->bf, &e);
    }
    s->slice_budget_us = SCHED_DRV_SLICE_US;
    if (strstr(conf->scheduler_parameters, "bf_yield_interval") != NULL &&
        s->bf.yield_interval_us < s->slice_budget_us)
        s->slice_budget_us = s->bf.yield_interval_us;
}

struct sched_drv *sched_drv_create(struct ctld *c)
{
    struct sched_drv *s = xcalloc(1, sizeof(*s));
    const struct conf *conf = c->conf;

    s->c = c;
    s->parts = xcalloc(conf->n_parts ? conf->n_parts : 1, sizeof(*s->parts));
    s->defer_ev = evtimer_new(c->base, defer_cb, s);
    s->why = reason_create(c);
    s->backfill = conf->scheduler_type == CONF_SCHED_BACKFILL;
    bf_setup(s, conf);
    s->cycle = sched_bf_cycle_create();
    sched_stats_init(&s->st, time(NULL));
    s->preempt = preempt_drv_create(c);
    return s;
}

void sched_drv_destroy(struct sched_drv *s)
{
    if (s == NULL)
        return;
    if (s->defer_ev)
        event_free(s->defer_ev);
    free(s->parts);
    reason_destroy(s->why);
    preempt_drv_destroy(s->preempt);
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

/* The partitions as they are now (scontrol update may change them). */
static const struct sched_part *model_parts(struct sched_drv *s)
{
    const struct conf *conf = s->c->conf;

    for (size_t i = 0; i < conf->n_parts; i++) {
        const struct part *p = parts_get(s->c->parts, i);
        s->parts[i] = (struct sched_part){
            .name = conf->parts[i].name,
            /* DRAIN takes no new submissions but still starts its queue */
            .start_jobs =
                p->state == CONF_PART_UP || p->state == CONF_PART_DRAIN,
            .inactive = p->state == CONF_PART_INACTIVE,
            .nodes = p->node_idx,
            .nnodes = p->n_nodes,
        };
    }
    return s->parts;
}

/* The model of the nodes; *used gets the GPU bitmaps (one block for all
 * nodes; the caller frees both). */
static struct sched_node *model_nodes(struct ctld *c, uint64_t **used)
{
    size_t n = nodes_count(c->nodes), words = 0, off = 0;
    struct sched_node *out = xcalloc(n ? n : 1, sizeof(*out));

    for (size_t i = 0; i < n; i++)
        words += SCHED_GPU_WORDS(nodes_get(c->nodes, i)->gpus.n);
    *used = xcalloc(words ? words : 1, sizeof(**used));
    for (size_t i = 0; i < n; i++) {
        const struct node *nd = nodes_get(c->nodes, i);
        uint64_t *w = *used + off;
        for (size_t p = 0; p < nd->gpus.n; p++)
            if (nodes_gpu_used(nd, nd->gpus.v[p].index))
                w[p / 64] |= UINT64_C(1) << (p % 64);
        off += SCHED_GPU_WORDS(nd->gpus.n);
        bool excl = false;
        for (size_t u = 0; u < nd->n_users; u++)
            excl |= nd->users[u].exclusive > 0;
        out[i] = (struct sched_node){
            .users = nd->n_users > 1 ? 2 : (uint32_t)nd->n_users,
            .user_exclusive = excl,
            .user = nd->n_users > 0 ? nd->users[0].uid : 0,
            .name = nd->cf->name,
            .cpus = nd->cf->cpus,
            .cpus_alloc = nd->cpus_alloc,
            .mem_mib = nd->cf->mem_mib,
            .mem_alloc_mib = nd->mem_alloc_mib,
            .up = node_usable(nd),
            .drain = nd->admin == NODE_ADMIN_DRAIN,
            .ngpus = (uint32_t)nd->gpus.n,
            .gpus = nd->gpus.model,
            .gpu_used = w,
        };
    }
    return out;
}

/* The MinPrioThreshold of j's QOS (0: none). */
static uint64_t min_prio_reserve(const struct ctld *c, const struct job *j)
{
    const struct acct_qos *q = j->qos ? acct_qos_find(c->acct, j->qos) : NULL;

    if (q == NULL || q->limits.min_prio_threshold == LIMITS_UNSET)
        return 0;
    return q->limits.min_prio_threshold;
}

static struct sched_job model_job(const struct ctld *c, const struct job *j)
{
    return (struct sched_job){
        .id = j->id,
        .part = j->part,
        .nodes = j->nodes,
        .cpus_per_node = j->cpus_per_node,
        .mem_per_node_mib = job_mem_per_node(j),
        .priority = j->priority,
        .submit_time = j->submit_time,
        .begin_time = j->begin_time,
        .held_user = j->held_user,
        .held_admin = j->held_admin,
        .node_allowed = j->node_allowed,
        .gpus_per_node = j->gpus_per_node,
        .gpu_type = j->gpu_type,
        .time_limit_s =
            j->time_limit_s == TIMEFMT_INFINITE ? 0 : j->time_limit_s,
        .user = j->user_id,
        .exclusive_user = c->conf->parts[j->part].exclusive_user,
        .min_prio_reserve = min_prio_reserve(c, j),
    };
}

/* The registered GPU indices of a decision's GPU positions (caller
 * frees; NULL without GPUs). */
static uint32_t *decision_gpus(struct ctld *c, const struct job *j,
                               const struct sched_decision *d)
{
    uint32_t g = j->gpus_per_node, *out;

    if (d->gpus == NULL || g == 0)
        return NULL;
    out = xcalloc(d->nnodes * g, sizeof(*out));
    for (size_t k = 0; k < d->nnodes; k++) {
        const struct node *nd = nodes_get(c->nodes, d->nodes[k]);
        for (uint32_t i = 0; i < g; i++)
            out[k * g + i] = nd->gpus.v[d->gpus[k * g + i]].index;
    }
    return out;
}

/* ---- the pass --------------------------------------------------------- */

/* Returns whether an array started tasks and has more pending: those
 * beyond the ones offered wait for another pass. */
static bool apply(struct sched_drv *s, const struct sched_model *m,
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
                jlimits_hold(s->c->limits, j, d->job, d->limit);
            else
                reason_set(s->why, j, d->reason);
            continue;
        }
        more = more || (m->task[d->job] >= 0 && j->array_pending->count > 1);
        if (m->task[d->job] >= 0 &&
            (j = jobarray_split(s->c->jobs, j, (uint32_t)m->task[d->job],
                                &e)) == NULL) {
            log_warnx("array task not split off: %s", e.text);
            continue;
        }
        gpus = decision_gpus(s->c, j, d);
        if (jobs_start_gpus(s->c->jobs, j, d->nodes, d->nnodes, gpus, now, &e) <
            0)
            log_warnx("job=%" PRIu64 " start not saved: %s", j->id, e.text);
        free(gpus);
        nodecmd_launch(s->c->nodecmd, j);
    }
    return more;
}

/* Running jobs as backfill's profile sees them (caller frees). */
static struct sched_running *model_running(struct ctld *c, size_t *n)
{
    size_t cap = 16;
    struct sched_running *out = xcalloc(cap, sizeof(*out));

    *n = 0;
    for (struct job *j = jobs_first(c->jobs); j != NULL; j = j->next) {
        bool susp = j->state == JOB_SUSPENDED;
        if (!job_on_node(j->state) || j->n_alloc == 0)
            continue;
        if (*n == cap) {
            cap *= 2;
            out = xrealloc(out, cap * sizeof(*out));
        }
        out[(*n)++] = (struct sched_running){
            .nodes = j->alloc,
            .nnodes = j->n_alloc,
            /* suspended: memory and GPUs held, until resumed */
            .cpus_per_node = susp ? 0 : j->cpus_per_node,
            .mem_per_node_mib = job_mem_per_node(j),
            .gpus_per_node = j->gpus_per_node,
            .end_time = j->time_limit_s == TIMEFMT_INFINITE || susp
                            ? 0
                            : j->start_time + j->suspended_s + j->time_limit_s,
        };
    }
    return out;
}

/* A pending job (or one task of a pending array) in the model. */
static struct sched_job model_entry(void *arg, const struct job *j)
{
    const struct sched_drv *s = arg;
    struct sched_job sj = model_job(s->c, j);

    sj.tier = s->c->conf->parts[j->part].priority_tier;
    return sj;
}

/* The limit engine's charges of the model's jobs, then those of array
 * throttles and singletons (sched_model_merge). */
static void charge_model(struct ctld *c, struct sched_model *m,
                         struct sched_cluster *cl)
{
    size_t *first = xcalloc(m->n, sizeof(*first));
    size_t *ncharge = xcalloc(m->n, sizeof(*ncharge));

    jlimits_pass_begin(c->limits);
    for (size_t i = 0; i < m->n; i++)
        jlimits_pass_job(c->limits, m->pend[i], &first[i], &ncharge[i]);
    jlimits_pass_finish(c->limits, cl, m->sj, first, ncharge);
    sched_model_merge(m, cl);
    free(ncharge);
    free(first);
}

static int64_t clock_cb(void *arg)
{
    (void)arg;
    return clock_mono_us();
}

/* The main pass, and the backfill cycle begun over it unless the cycle
 * under way may go on (resume). */
static int main_pass(struct sched_drv *s, struct sched_cluster *cl,
                     const struct sched_bf *bf, bool resume, time_t now,
                     struct sched_result *r)
{
    if (sched_pass(cl, now, r) < 0)
        return -1;
    for (size_t k = 0; k < r->n; k++)
        if (r->decisions[k].nnodes > 0)
            r->decisions[k].start_est = now;
    if (resume)
        return 0;
    if (sched_bf_cycle_begin(s->cycle, cl, bf, now, r) < 0) {
        sched_result_clear(r);
        return -1;
    }
    return 0;
}

/*
 * Run the core on cl: the main pass alone, or with backfill one slice of
 * the cycle.  A cycle under way goes on where it stopped when nothing
 * that its profile was built from changed (sched_bf_cycle_valid) and,
 * after an event, only with bf_continue; a slice without an event skips
 * the main pass (*ran_main false: r holds only the slice's decisions).
 */
static int decide(struct sched_drv *s, struct sched_cluster *cl, bool cont,
                  bool event, time_t now, struct sched_result *r,
                  struct sched_bf_stats *st, bool *ran_main)
{
    struct sched_bf bf = s->bf;
    struct sched_result bfr;
    bool resume;
    int rc = -1;

    memset(st, 0, sizeof(*st));
    st->done = true;
    *ran_main = true;
    if (!s->backfill)
        return sched_pass(cl, now, r);
    bf.running = model_running(s->c, &bf.nrunning);
    bf.clock_us = s->unpaced ? NULL : clock_cb;
    bf.yield_interval_us = s->slice_budget_us;
    bf.max_examine = 0;
    resume = cont && sched_bf_cycle_valid(s->cycle, cl, &bf, now);
    *ran_main = !resume || event;
    if (!*ran_main)
        memset(r, 0, sizeof(*r));
    else if (main_pass(s, cl, &bf, resume, now, r) < 0)
        goto out;
    if (resume && *ran_main && r->started > 0) {
        resume = false; /* the main pass changed the profile */
        if (sched_bf_cycle_begin(s->cycle, cl, &bf, now, r) < 0) {
            sched_result_clear(r);
            goto out;
        }
    }
    if (sched_bf_slice(s->cycle, cl, &bf, now, &bfr, st) < 0) {
        sched_result_clear(r);
        goto out;
    }
    st->restarted = !resume;
    if (*ran_main)
        sched_bf_merge(r, &bfr, cl->njobs);
    else
        *r = bfr;
    rc = 0;
out:
    free((void *)bf.running);
    return rc;
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

/* The resume scheduler: suspended jobs whose CPUs are free again (what
 * preemptors hold for themselves counted as taken) resume before any
 * pending job is placed. */
static void resume_due(struct sched_drv *s)
{
    struct ctld *c = s->c;
    size_t n = nodes_count(c->nodes);
    uint64_t *used = NULL;
    struct sched_node *nodes;

    if (!jobs_any_resumable(c->jobs))
        return;
    nodes = model_nodes(c, &used);
    preempt_drv_reserve(s->preempt, nodes, n);
    jobs_resume_due(c->jobs, nodes, n);
    free(nodes);
    free(used);
}

/* One pass; cont: the backfill cycle under way may go on; event: an
 * event asked for the pass (else it is the next slice of a cycle). */
static void pass(struct sched_drv *s, time_t now, bool cont, bool event)
{
    struct ctld *c = s->c;
    struct sched_model m;
    struct sched_result r;
    struct sched_bf_stats st = {.done = true};
    struct sched_cluster cl;
    uint64_t *used = NULL;
    bool ran_main = true;

    prio_drv_sync(c->prio, now);
    sched_model_collect(c->jobs, &m, model_entry, s);
    resume_due(s);
    if (m.n > 0) {
        cl = (struct sched_cluster){.nodes = model_nodes(c, &used),
                                    .nnodes = nodes_count(c->nodes),
                                    .parts = model_parts(s),
                                    .nparts = c->conf->n_parts,
                                    .jobs = m.sj,
                                    .njobs = m.n};
        charge_model(c, &m, &cl);
        preempt_drv_hold(s->preempt, &cl, m.sj, m.task, m.n);
        reason_begin(s->why);
        if (decide(s, &cl, cont, event, now, &r, &st, &ran_main) == 0) {
            if (apply(s, &m, &r, now))
                loop_want_pass(c->loop);
            if (ran_main) /* a slice alone leaves preemption to the pass */
                preempt_drv_run(s->preempt, &cl, m.pend, m.task, &r, now);
            sample_fill(s, &r, &st);
            if (r.started > 0)
                log_debug("sched pass=%" PRIu64 " pending=%zu started=%zu",
                          s->passes, m.n, r.started);
            sched_result_clear(&r);
        } else {
            log_warn("sched pass=%" PRIu64 " refused the model", s->passes);
            sched_bf_cycle_reset(s->cycle);
        }
        free(cl.nodes);
        free(used);
        jlimits_pass_end(c->limits);
    } else {
        sched_bf_cycle_reset(s->cycle);
    }
    s->sample.queue = m.n;
    s->sample.cycle_done = st.done;
    s->sample.cont = !st.restarted;
    sched_model_free(&m);
    s->bf_more = !st.done;
}

void sched_drv_run(struct sched_drv *s, time_t now)
{
    int64_t start = clock_mono_us(), wait_us, dur;
    bool cont, event;

    if (!s->wanted && !s->bf_more)
        return;
    wait_us = s->last_end_us + 4 * s->last_dur_us - start;
    if (!s->unpaced && s->last_dur_us > SCHED_DRV_CHEAP_US && wait_us > 0 &&
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
    pass(s, now, cont, event);
    s->last_end_us = clock_mono_us();
    dur = s->last_end_us - start;
    s->last_dur_us = dur;
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
    struct ctld *c = s->c;
    struct sched_job sj = model_job(c, j);
    uint64_t *used;
    struct sched_cluster cl = {.nodes = model_nodes(c, &used),
                               .nnodes = nodes_count(c->nodes),
                               .parts = model_parts(s),
                               .nparts = c->conf->n_parts,
                               .jobs = &sj,
                               .njobs = 1};
    struct sched_result r;
    json_t *o = json_pack("{s:i, s:b, s:s}", "job_id", 0, "would_start", 0,
                          "partition", c->conf->parts[j->part].name);

    if (sched_pass(&cl, time(NULL), &r) == 0 && r.n == 1) {
        const struct sched_decision *d = &r.decisions[0];
        json_object_set_new(o, "reason",
                            json_string(sched_reason_name(d->reason)));
        if (d->nnodes > 0) {
            struct job tmp = *j;
            char *nl;
            tmp.alloc = d->nodes;
            tmp.n_alloc = d->nnodes;
            nl = job_alloc_list(&tmp, c->conf);
            json_object_set_new(o, "would_start", json_true());
            json_object_set_new(o, "node_list", json_string(nl));
            free(nl);
        }
        sched_result_clear(&r);
    }
    free(cl.nodes);
    free(used);
    return o;
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

/* ---- the model, for what-if passes (explain_sim.c) ---------------------- */

const struct sched_part *sched_drv_model_parts(struct sched_drv *s)
{
    return model_parts(s);
}

struct sched_node *sched_drv_model_nodes(struct sched_drv *s, uint64_t **used)
{
    return model_nodes(s->c, used);
}

struct sched_job sched_drv_model_job(struct sched_drv *s, const struct job *j)
{
    return model_job(s->c, j);
}

void sched_drv_model_hold(struct sched_drv *s, struct sched_cluster *cl,
                          struct sched_job *sj, size_t n)
{
    preempt_drv_hold(s->preempt, cl, sj, NULL, n);
}

json_t *sched_drv_victims(struct sched_drv *s, uint64_t job)
{
    return preempt_drv_victims(s->preempt, job);
}
