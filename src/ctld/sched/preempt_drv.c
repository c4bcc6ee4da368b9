/*
 * Preemption in the controller: who may preempt whom, the victims'
 * model for the core, acting on its choice, and the holds that keep the
 * victims' resources for their preemptor (preempt_drv.h).
 */
#include "ctld/sched/preempt_drv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "common/arrayspec.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/core/persist.h"
#include "ctld/core/stats.h"
#include "sched/preempt.h"
#include "sched/preempt_policy.h"
#include "sched/sched.h"

/* What one victim held on one node of its preemptor's placement. */
struct held {
    uint64_t victim;
    uint32_t restarts; /* the victim's restart_count: this run */
    struct sched_held r;
};

/* A preemptor waiting for its victims to release their resources. */
struct hold {
    uint64_t job;
    int64_t task; /* of the array job: the task it holds for; -1: none */
    struct held *res;
    size_t nres;
    struct hold *next;
};

struct preempt_drv {
    struct preempt_drv_src src;   /* borrowed contexts */
    struct sched_preempt_conf pc; /* PreemptType, PreemptParameters ... */
    struct hold *holds;
    /* a pass when the next victim's exemption ends, for a waiting job */
    struct event *exempt_ev;
    time_t exempt_at; /* when exempt_ev fires; 0: not armed */
};

/* The running jobs as victims, for one pass. */
struct victims {
    struct sched_victim *v;
    struct job **j;
    uint32_t **gpus; /* positions, owned */
    size_t n;
};

static void exempt_cb(evutil_socket_t fd, short what, void *arg)
{
    struct preempt_drv *p = arg;

    (void)fd;
    (void)what;
    p->exempt_at = 0;
    loop_want_pass(p->src.loop);
}

/* The holds' rows in the database (below). */
static int hold_restore(void *arg, uint64_t id, int64_t task, const char *text);
static void hold_store(struct preempt_drv *p, const struct hold *h, bool keep);

struct preempt_drv *preempt_drv_create(const struct preempt_drv_src *src)
{
    struct preempt_drv *p = xcalloc(1, sizeof(*p));
    struct err e;

    p->src = *src;
    p->exempt_ev = evtimer_new(src->base, exempt_cb, p);
    if (sched_preempt_conf_init(&p->pc, src->conf, &e) < 0)
        log_warnx("%s; using the default", e.text);
    if (persist_hold_load(src->persist, hold_restore, p, &e) < 0)
        log_warnx("preemption holds not restored: %s", e.text);
    return p;
}

static void hold_free(struct hold *h)
{
    for (size_t i = 0; i < h->nres; i++)
        sched_held_clear(&h->res[i].r);
    free(h->res);
    free(h);
}

void preempt_drv_destroy(struct preempt_drv *p)
{
    if (p == NULL)
        return;
    while (p->holds != NULL) {
        struct hold *h = p->holds;
        p->holds = h->next;
        hold_free(h);
    }
    if (p->exempt_ev != NULL)
        event_free(p->exempt_ev);
    free(p);
}

/* ---- holds ------------------------------------------------------------ */

static bool victim_alive(struct preempt_drv *p, const struct held *r)
{
    struct job *v = jobs_find(p->src.jobs, r->victim);

    return v != NULL &&
           (v->state == JOB_RUNNING || v->state == JOB_COMPLETING) &&
           v->restart_count == r->restarts && v->n_alloc > 0;
}

static bool hold_waiting(struct preempt_drv *p, const struct hold *h)
{
    for (size_t i = 0; i < h->nres; i++)
        if (victim_alive(p, &h->res[i]))
            return true;
    return false;
}

/* h's job (or task) still waits to start. */
static bool hold_pending(struct preempt_drv *p, const struct hold *h)
{
    struct job *j = jobs_find(p->src.jobs, h->job);

    if (j == NULL || j->state != JOB_PENDING)
        return false;
    if (h->task < 0)
        return true;
    if (j->array_pending != NULL)
        return arrayset_has(j->array_pending, (uint32_t)h->task);
    return j->array_task_id == h->task;
}

void preempt_drv_hold(struct preempt_drv *p, struct sched_cluster *cl,
                      struct sched_job *sj, const int64_t *task, size_t n)
{
    for (struct hold *h = p->holds; h != NULL; h = h->next) {
        if (!hold_waiting(p, h)) {
            /* all released: its job goes first (the fast lane) */
            for (size_t k = 0; k < n; k++)
                if (sj[k].id == h->job && (task ? task[k] : -1) == h->task)
                    sj[k].tier = UINT32_MAX;
            continue;
        }
        for (size_t i = 0; i < h->nres; i++)
            if (h->res[i].r.node < cl->nnodes && !victim_alive(p, &h->res[i]))
                sched_held_mark(&cl->nodes[h->res[i].r.node], &h->res[i].r);
    }
}

bool preempt_drv_due(struct preempt_drv *p)
{
    for (const struct hold *h = p->holds; h != NULL; h = h->next)
        if (!hold_waiting(p, h) && hold_pending(p, h))
            return true;
    return false;
}

void preempt_drv_reserve(struct preempt_drv *p, struct sched_node *nodes,
                         size_t n)
{
    for (struct hold *h = p->holds; h != NULL; h = h->next) {
        struct job *j = jobs_find(p->src.jobs, h->job);
        if (j == NULL || j->state != JOB_PENDING)
            continue;
        /* the preemptor's CPUs on each node it took victims on: CPUs
         * are all a resume needs */
        for (size_t i = 0; i < h->nres; i++) {
            size_t nd = h->res[i].r.node;
            bool seen = false;
            for (size_t k = 0; k < i; k++)
                seen = seen || h->res[k].r.node == nd;
            if (nd < n && !seen)
                nodes[nd].cpus_alloc += j->cpus_per_node;
        }
    }
}

/* Drop the holds of jobs that started or left, and of those whose
 * victims are all gone while they still cannot start. */
static void holds_settle(struct preempt_drv *p)
{
    struct hold **hp = &p->holds;

    while (*hp != NULL) {
        struct hold *h = *hp;
        bool pending = hold_pending(p, h);
        if (pending && hold_waiting(p, h)) {
            hp = &h->next;
            continue;
        }
        if (pending)
            log_info("job=%" PRIu64 " task=%" PRId64 " preemption hold "
                     "released: the victims are gone and it still cannot "
                     "start",
                     h->job, h->task);
        *hp = h->next;
        hold_store(p, h, false);
        hold_free(h);
    }
}

/* Some task of array job id holds victims (or waits on them). */
static bool array_has_hold(const struct preempt_drv *p, uint64_t id)
{
    for (const struct hold *h = p->holds; h != NULL; h = h->next)
        if (h->job == id && h->task >= 0)
            return true;
    return false;
}

static bool has_hold(const struct preempt_drv *p, uint64_t id, int64_t task)
{
    for (const struct hold *h = p->holds; h != NULL; h = h->next)
        if (h->job == id && h->task == task)
            return true;
    return false;
}

/* ---- holds in the database ------------------------------------------- */

/* h as its preempt_holds record: {"res": [{"victim", "restarts", "node"
 * (NodeName), "cpus", "mem_mib", "gpus" (positions)}]}. */
static char *hold_encode(const struct preempt_drv *p, const struct hold *h)
{
    json_t *res = json_array(), *o;
    char *text;

    for (size_t i = 0; i < h->nres; i++) {
        const struct held *hr = &h->res[i];
        const struct sched_held *r = &hr->r;
        json_t *g = json_array();
        for (uint32_t k = 0; k < r->ngpus; k++)
            json_array_append_new(g, json_integer(r->gpus[k]));
        json_array_append_new(res,
                              json_pack("{s:I,s:I,s:s,s:I,s:I,s:o}", "victim",
                                        (json_int_t)hr->victim, "restarts",
                                        (json_int_t)hr->restarts, "node",
                                        p->src.conf->nodes[r->node].name,
                                        "cpus", (json_int_t)r->cpus, "mem_mib",
                                        (json_int_t)r->mem_mib, "gpus", g));
    }
    o = json_pack("{s:o}", "res", res);
    text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return text;
}

/* Save or drop h's row in the loop iteration's transaction. */
static void hold_store(struct preempt_drv *p, const struct hold *h, bool keep)
{
    struct err e;
    char *text = NULL;
    int rc = loop_write(p->src.loop, &e);

    if (rc == 0 && keep) {
        text = hold_encode(p, h);
        rc = persist_hold_save(p->src.persist, h->job, h->task, text, &e);
    } else if (rc == 0) {
        rc = persist_hold_delete(p->src.persist, h->job, h->task, &e);
    }
    if (rc < 0)
        log_warnx("job=%" PRIu64 " preemption hold not %s: %s", h->job,
                  keep ? "saved" : "dropped", e.text);
    free(text);
}

static int held_decode(const struct preempt_drv *p, json_t *o, struct held *r)
{
    json_int_t victim, restarts, cpus, mem;
    const char *node;
    json_t *g;
    const struct conf_node *cn;

    if (json_unpack(o, "{s:I,s:I,s:s,s:I,s:I,s:o}", "victim", &victim,
                    "restarts", &restarts, "node", &node, "cpus", &cpus,
                    "mem_mib", &mem, "gpus", &g) < 0 ||
        !json_is_array(g) || victim <= 0 || restarts < 0 || cpus < 0 ||
        mem < 0 || json_array_size(g) > 4096 ||
        (cn = conf_node_find(p->src.conf, node)) == NULL)
        return -1;
    *r = (struct held){.victim = (uint64_t)victim,
                       .restarts = (uint32_t)restarts,
                       .r = {.node = (size_t)(cn - p->src.conf->nodes),
                             .cpus = (uint32_t)cpus,
                             .mem_mib = (uint64_t)mem,
                             .ngpus = (uint32_t)json_array_size(g)}};
    r->r.gpus = r->r.ngpus ? xcalloc(r->r.ngpus, sizeof(*r->r.gpus)) : NULL;
    for (uint32_t k = 0; k < r->r.ngpus; k++) {
        json_t *x = json_array_get(g, k);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return -1;
        r->r.gpus[k] = (uint32_t)json_integer_value(x);
    }
    return 0;
}

/* One row of preempt_holds back into p->holds; a row of a job that no
 * longer waits, or a bad one, is dropped (logged). */
static int hold_restore(void *arg, uint64_t id, int64_t task, const char *text)
{
    struct preempt_drv *p = arg;
    struct hold *h = xcalloc(1, sizeof(*h));
    json_t *o = json_loads(text ? text : "", 0, NULL), *res;
    const char *why = NULL;

    h->job = id;
    h->task = task;
    res = json_object_get(o, "res");
    if (!json_is_array(res) || json_array_size(res) > 65536)
        why = "a bad record";
    for (size_t i = 0; why == NULL && i < json_array_size(res); i++) {
        h->res = xreallocarray(h->res, h->nres + 1, sizeof(*h->res));
        memset(&h->res[h->nres], 0, sizeof(*h->res));
        if (held_decode(p, json_array_get(res, i), &h->res[h->nres++]) < 0)
            why = "a bad record";
    }
    if (why == NULL && !hold_pending(p, h))
        why = "the job no longer waits";
    json_decref(o);
    if (why == NULL) {
        /* kept even when its victims are gone already: then it goes
         * first in the next pass, as it would have without the restart */
        log_info("job=%" PRIu64 " preemption hold restored: %zu resources", id,
                 h->nres);
        h->next = p->holds;
        p->holds = h;
        return 0;
    }
    log_info("job=%" PRIu64 " preemption hold in the database dropped: %s", id,
             why);
    hold_store(p, h, false);
    hold_free(h);
    return 0;
}

/* ---- policy (sched/preempt_policy.h) ------------------------------------ */

static const struct acct_qos *qos_of(const struct preempt_drv *p,
                                     const struct job *j)
{
    return j->qos != NULL ? acct_qos_find(p->src.acct, j->qos) : NULL;
}

/* A QOS's preemption fields as the policy reads them. */
static void policy_qos(const struct acct_qos *q, struct sched_preempt_qos *out)
{
    static const enum conf_preempt_mode modes[] = {
        [ACCT_PREEMPT_OFF] = CONF_PREEMPT_MODE_OFF,
        [ACCT_PREEMPT_CANCEL] = CONF_PREEMPT_MODE_CANCEL,
        [ACCT_PREEMPT_REQUEUE] = CONF_PREEMPT_MODE_REQUEUE,
        [ACCT_PREEMPT_SUSPEND] = CONF_PREEMPT_MODE_SUSPEND,
    };

    *out = (struct sched_preempt_qos){
        .name = q->name,
        .mode_set = q->preempt_mode != ACCT_PREEMPT_CLUSTER,
        .mode = modes[q->preempt_mode],
        .exempt_time_s = q->preempt_exempt_time_s == ACCT_TIME_UNSET
                             ? -1
                             : q->preempt_exempt_time_s,
        .grace_time_s = q->grace_time_s,
        .exempt_until_checkpoint =
            (q->flags & ACCT_QOS_EXEMPT_UNTIL_CHECKPOINT) != 0,
        .preempt = q->preempt,
        .npreempt = q->n_preempt,
    };
}

/* j as the policy sees it; q receives its QOS's fields (out->qos points
 * to it when j's QOS exists). */
static void policy_job(const struct preempt_drv *p, const struct job *j,
                       struct sched_preempt_qos *q,
                       struct sched_preempt_job *out)
{
    const struct acct_qos *aq = qos_of(p, j);
    const struct conf_part *cp = &p->src.conf->parts[j->part];

    if (aq != NULL)
        policy_qos(aq, q);
    *out = (struct sched_preempt_job){
        .tier = parts_get(p->src.parts, j->part)->priority_tier,
        .qos_name = j->qos,
        .qos = aq != NULL ? q : NULL,
        .part_mode = cp->preempt_mode.mode,
        .part_grace_s = cp->grace_time_s,
        .requeue = j->requeue,
        .gpus = j->gpu_alloc != NULL,
        .start_time = j->start_time,
        .last_checkpoint = j->last_checkpoint,
    };
}

/* What preemption does to v (sched_preempt_action). */
static enum conf_preempt_mode victim_action(const struct preempt_drv *p,
                                            const struct job *v)
{
    struct sched_preempt_qos q;
    struct sched_preempt_job pv;

    policy_job(p, v, &q, &pv);
    return sched_preempt_action(&p->pc, &pv);
}

/* PreemptType: may pj preempt v at all? */
static bool may_preempt(const struct preempt_drv *p, const struct job *pj,
                        const struct job *v)
{
    struct sched_preempt_qos q1, q2;
    struct sched_preempt_job a, b;

    policy_job(p, pj, &q1, &a);
    policy_job(p, v, &q2, &b);
    return sched_preempt_may(&p->pc, &a, &b);
}

time_t preempt_drv_exempt_until(const struct preempt_drv *p,
                                const struct job *v)
{
    struct sched_preempt_qos q;
    struct sched_preempt_job pv;

    policy_job(p, v, &q, &pv);
    return sched_preempt_exempt_until(&p->pc, &pv);
}

/* GraceTime: the victim's QOS's, else its partition's. */
static uint32_t grace_of(const struct preempt_drv *p, const struct job *v)
{
    struct sched_preempt_qos q;
    struct sched_preempt_job pv;

    policy_job(p, v, &q, &pv);
    return sched_preempt_grace_s(&pv);
}

/* ---- the victims' model ----------------------------------------------- */

/* The position of GPU index idx on node n (n->gpus.n when unknown). */
static uint32_t gpu_pos(const struct node *n, uint32_t idx)
{
    for (size_t p = 0; p < n->gpus.n; p++)
        if (n->gpus.v[p].index == idx)
            return (uint32_t)p;
    return (uint32_t)n->gpus.n;
}

static void victims_build(struct preempt_drv *p, struct victims *vs, time_t now)
{
    size_t cap = jobs_active(p->src.jobs);

    memset(vs, 0, sizeof(*vs));
    vs->v = xcalloc(cap ? cap : 1, sizeof(*vs->v));
    vs->j = xcalloc(cap ? cap : 1, sizeof(*vs->j));
    vs->gpus = xcalloc(cap ? cap : 1, sizeof(*vs->gpus));
    for (struct job *j = jobs_first_active(p->src.jobs); j && vs->n < cap;
         j = j->anext) {
        uint32_t g = j->gpu_alloc ? j->gpus_per_node : 0;
        time_t until;
        if (j->state != JOB_RUNNING || j->kill != JOB_KILL_NONE ||
            j->n_alloc == 0)
            continue;
        /* a job whose node has not confirmed its launch yet is exempt
         * for now: looked at again in a second (exempt_wake) */
        until = preempt_drv_exempt_until(p, j);
        if (!j->launched && until < now + 1)
            until = now + 1;
        uint32_t *pos = g ? xcalloc(j->n_alloc * g, sizeof(*pos)) : NULL;
        for (size_t k = 0; k < j->n_alloc && g; k++) {
            const struct node *n = nodes_get(p->src.nodes, j->alloc[k]);
            for (uint32_t i = 0; i < g; i++)
                pos[k * g + i] = gpu_pos(n, j->gpu_alloc[k * g + i]);
        }
        vs->gpus[vs->n] = pos;
        vs->j[vs->n] = j;
        vs->v[vs->n++] = (struct sched_victim){
            .id = j->id,
            .nodes = j->alloc,
            .nnodes = j->n_alloc,
            .cpus_per_node = j->cpus_per_node,
            .mem_per_node_mib = job_mem_per_node(j),
            .gpus_per_node = g,
            .gpus = pos,
            .tier = parts_get(p->src.parts, j->part)->priority_tier,
            .priority = j->priority,
            .start_time = j->start_time,
            .exempt_until = until,
            .last_checkpoint = j->last_checkpoint,
            .suspend = victim_action(p, j) == CONF_PREEMPT_MODE_SUSPEND,
        };
    }
}

static void victims_free(struct victims *vs)
{
    for (size_t i = 0; i < vs->n; i++)
        free(vs->gpus[i]);
    free(vs->gpus);
    free(vs->j);
    free(vs->v);
}

/* ---- acting ----------------------------------------------------------- */

/* Remember what victim x holds on the plan's nodes for the preemptor. */
static void hold_add(struct hold *h, const struct victims *vs, size_t x,
                     const struct sched_preempt_plan *plan)
{
    struct sched_held *got = NULL;
    size_t n = 0;

    sched_preempt_held(&vs->v[x], plan, &got, &n);
    h->res = xreallocarray(h->res, h->nres + n + 1, sizeof(*h->res));
    for (size_t i = 0; i < n; i++)
        h->res[h->nres++] = (struct held){.victim = vs->v[x].id,
                                          .restarts = vs->j[x]->restart_count,
                                          .r = got[i]};
    free(got);
}

/* Count victim x's preemption for /metrics, once it is done (suspended,
 * or being killed to be requeued or to end), with the work it loses:
 * none when suspended, as it resumes where it stopped. */
static void count(struct preempt_drv *p, const struct victims *vs, size_t x,
                  bool suspended, time_t now)
{
    const struct job *v = vs->j[x];
    bool gpu = false;
    uint64_t lost = 0;

    if (!suspended)
        lost = sched_preempt_lost(&vs->v[x], now, &gpu);
    stats_preempt(p->src.stats, v->part, v->qos,
                  suspended                     ? "suspend"
                  : v->kill == JOB_KILL_REQUEUE ? "requeue"
                                                : "cancel",
                  gpu ? lost : 0, gpu ? 0 : lost);
}

static void act(struct preempt_drv *p, struct job *pj, int64_t task,
                struct victims *vs, const struct sched_preempt_plan *plan,
                time_t now)
{
    struct hold *h = xcalloc(1, sizeof(*h));
    char list[256] = "";
    size_t len = 0;
    struct err e;

    h->job = pj->id;
    h->task = task;
    for (size_t i = 0; i < plan->nvictims; i++) {
        size_t x = plan->victims[i];
        struct job *v = vs->j[x];
        enum conf_preempt_mode m = victim_action(p, v);
        hold_add(h, vs, x, plan);
        vs->v[x].may = false;
        if (len < sizeof(list))
            len += (size_t)snprintf(list + len, sizeof(list) - len,
                                    "%s%" PRIu64, i ? "," : "", v->id);
        if (m == CONF_PREEMPT_MODE_SUSPEND) {
            if (jobs_preempt_suspend(p->src.jobs, v, pj->id, &e) < 0)
                log_warnx("job=%" PRIu64 " preempt: %s", v->id, e.text);
            else
                count(p, vs, x, true, now);
            continue;
        }
        /* --signal: the job's own notice first, as Slurm sends it at the
         * start of the grace time */
        if (v->warn_signal != 0 && jobs_warn(p->src.jobs, v, &e) < 0)
            log_warnx("job=%" PRIu64 " preemption notice: %s", v->id, e.text);
        if (jobs_preempt(p->src.jobs, v, pj->id, m == CONF_PREEMPT_MODE_REQUEUE,
                         grace_of(p, v), &e) < 0)
            log_warnx("job=%" PRIu64 " preempt: %s", v->id, e.text);
        else
            count(p, vs, x, false, now);
    }
    char tk[32] = "";
    if (task >= 0)
        snprintf(tk, sizeof(tk), " task=%" PRId64, task);
    log_info("job=%" PRIu64 "%s preempts jobs=%s node=%s lost_gpu_s=%" PRIu64
             " lost_cpu_s=%" PRIu64,
             pj->id, tk, list, p->src.conf->nodes[plan->nodes[0]].name,
             plan->lost_gpu_s, plan->lost_cpu_s);
    char detail[300];
    snprintf(detail, sizeof(detail), "waiting for preempted jobs %s", list);
    job_set_reason_detail(pj, detail);
    h->next = p->holds;
    p->holds = h;
    hold_store(p, h, true);
}

/* Asks for a pass at the earliest time when one of the victims this job
 * may preempt stops being exempt (a time later than now; "until a
 * checkpoint" is left out: the checkpoint itself asks for a pass). */
static void exempt_wake(struct preempt_drv *p, const struct victims *vs,
                        time_t now)
{
    time_t next = sched_preempt_next_exempt(vs->v, vs->n, now);

    if (next == 0 || (p->exempt_at != 0 && p->exempt_at <= next))
        return;
    struct timeval tv = {next - now, 0};
    p->exempt_at = next;
    evtimer_add(p->exempt_ev, &tv);
}

/* pj waits for GPUs that a suspended job of its partition's nodes keeps
 * (PreemptParameters=suspend_gpu_jobs): its reason says so. */
static void gpus_held_reason(struct preempt_drv *p, struct job *pj)
{
    const struct conf_part *cp = &p->src.conf->parts[pj->part];

    if (pj->gpus_per_node == 0)
        return;
    for (struct job *s = jobs_first_active(p->src.jobs); s != NULL;
         s = s->anext) {
        if (s->state != JOB_SUSPENDED || s->gpu_alloc == NULL)
            continue;
        for (size_t k = 0; k < cp->n_nodes; k++) {
            if (cp->node_idx[k] != s->alloc[0])
                continue;
            job_set_reason_text(pj,
                                "Resources (GPUs held by suspended job "
                                "%" PRIu64 ")",
                                s->id);
            job_set_reason_detail(pj, "Resources: the GPUs it needs are "
                                      "held by a suspended job, which keeps "
                                      "them (PreemptParameters="
                                      "suspend_gpu_jobs)");
            return;
        }
    }
}

void preempt_drv_run(struct preempt_drv *p, struct sched_cluster *cl,
                     struct job **pend, const int64_t *task,
                     const struct sched_result *r, time_t now)
{
    struct victims vs;
    bool built = false;

    holds_settle(p);
    if (p->src.conf->preempt_type == CONF_PREEMPT_NONE)
        return;
    for (size_t i = 0; i < r->n; i++) {
        const struct sched_decision *d = &r->decisions[i];
        struct job *pj = pend[d->job];
        struct sched_preempt_plan plan;
        int64_t t = task ? task[d->job] : -1;
        /* the tasks behind an array's first preemptor preempt as well,
         * in the same pass: each for itself */
        bool sibling = d->reason == SCHED_REASON_PRIORITY && t >= 0 &&
                       array_has_hold(p, pj->id);
        if (d->nnodes > 0 ||
            (d->reason != SCHED_REASON_RESOURCES && !sibling) ||
            has_hold(p, pj->id, t))
            continue;
        if (!built) {
            victims_build(p, &vs, now);
            built = true;
        }
        size_t cand = 0;
        for (size_t k = 0; k < vs.n; k++) {
            vs.v[k].may =
                vs.j[k]->kill == JOB_KILL_NONE && may_preempt(p, pj, vs.j[k]);
            cand += vs.v[k].may;
        }
        if (cand == 0) {
            if (p->pc.suspend_gpu_jobs)
                gpus_held_reason(p, pj);
            continue;
        }
        int rc = sched_preempt_find(cl, &cl->jobs[d->job], vs.v, vs.n, now,
                                    &p->pc.params, &plan);
        if (rc < 0)
            log_warn("job=%" PRIu64 " preempt: the model was refused", pj->id);
        if (rc == 1 && plan.nvictims > 0) {
            act(p, pj, t, &vs, &plan, now);
            sched_preempt_claim(cl, &cl->jobs[d->job], vs.v, &plan);
        } else
            exempt_wake(p, &vs, now);
        if (rc != 1 && p->pc.suspend_gpu_jobs)
            gpus_held_reason(p, pj);
        sched_preempt_plan_clear(&plan);
    }
    if (built)
        victims_free(&vs);
}

json_t *preempt_drv_victims(struct preempt_drv *p, uint64_t job)
{
    json_t *a = json_array();

    for (const struct hold *h = p->holds; h != NULL; h = h->next) {
        if (h->job != job)
            continue;
        for (size_t i = 0; i < h->nres; i++) {
            bool seen = false;
            for (size_t k = 0; k < i; k++)
                seen = seen || h->res[k].victim == h->res[i].victim;
            if (!seen && victim_alive(p, &h->res[i]))
                json_array_append_new(
                    a, json_integer((json_int_t)h->res[i].victim));
        }
    }
    return a;
}
