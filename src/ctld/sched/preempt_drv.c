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
#include "sched/select.h"
#include "sched/sched.h"

/* What one victim held on one node of its preemptor's placement. */
struct held {
    uint64_t victim;
    uint32_t restarts; /* the victim's restart_count: this run */
    size_t node;
    uint32_t cpus;
    uint64_t mem_mib;
    uint32_t *gpus; /* positions */
    uint32_t ngpus;
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
    struct preempt_drv_src src; /* borrowed contexts */
    struct sched_preempt_params params;
    bool suspend_gpu_jobs; /* PreemptParameters: suspend GPU jobs too */
    /* PreemptParameters=exempt_until_checkpoint_max: how long a job of
     * an ExemptUntilCheckpoint QOS without a checkpoint stays exempt
     * (-1: the default, PREEMPT_CKPT_EXEMPT_FACTOR x its exempt time) */
    int64_t ckpt_exempt_max_s;
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

int preempt_ckpt_exempt_max(const char *params, int64_t *out, struct err *e)
{
    static const char key[] = "exempt_until_checkpoint_max=";
    const char *v = params;
    char buf[64];
    size_t len;

    *out = -1;
    while (v != NULL && *v != '\0' && strncasecmp(v, key, sizeof(key) - 1))
        v = (v = strchr(v, ',')) ? v + 1 : NULL;
    if (v == NULL || *v == '\0')
        return 0;
    v += sizeof(key) - 1;
    len = strcspn(v, ",");
    snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
    if (len == 0 || len >= sizeof(buf) || timefmt_parse(buf, out, e) < 0) {
        *out = -1;
        errno = EINVAL;
        return err_set(e,
                       "PreemptParameters=exempt_until_checkpoint_max=%.32s: "
                       "expected a time (e.g. 1:00:00) or INFINITE",
                       buf);
    }
    return 0;
}

struct preempt_drv *preempt_drv_create(const struct preempt_drv_src *src)
{
    struct preempt_drv *p = xcalloc(1, sizeof(*p));
    struct err e;

    p->src = *src;
    p->exempt_ev = evtimer_new(src->base, exempt_cb, p);
    if (sched_preempt_params_parse(src->conf->preempt_parameters, &p->params,
                                   &e) < 0) {
        log_warnx("%s; using the defaults", e.text);
        sched_preempt_params_parse("", &p->params, &e);
    }
    if (persist_hold_load(src->persist, hold_restore, p, &e) < 0)
        log_warnx("preemption holds not restored: %s", e.text);
    p->suspend_gpu_jobs =
        conf_preempt_param(src->conf->preempt_parameters, "suspend_gpu_jobs");
    if (preempt_ckpt_exempt_max(src->conf->preempt_parameters,
                                &p->ckpt_exempt_max_s, &e) < 0) {
        log_warnx("%s; using the default", e.text);
        p->ckpt_exempt_max_s = -1;
    }
    return p;
}

static void hold_free(struct hold *h)
{
    for (size_t i = 0; i < h->nres; i++)
        free(h->res[i].gpus);
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

static void mark_used(struct sched_node *n, const struct held *r)
{
    n->cpus_alloc += r->cpus;
    n->mem_alloc_mib += r->mem_mib;
    for (uint32_t g = 0; g < r->ngpus; g++)
        if (r->gpus[g] < n->ngpus)
            n->gpu_used[r->gpus[g] / 64] |= UINT64_C(1) << (r->gpus[g] % 64);
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
            if (h->res[i].node < cl->nnodes && !victim_alive(p, &h->res[i]))
                mark_used(&cl->nodes[h->res[i].node], &h->res[i]);
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
            size_t nd = h->res[i].node;
            bool seen = false;
            for (size_t k = 0; k < i; k++)
                seen = seen || h->res[k].node == nd;
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
        const struct held *r = &h->res[i];
        json_t *g = json_array();
        for (uint32_t k = 0; k < r->ngpus; k++)
            json_array_append_new(g, json_integer(r->gpus[k]));
        json_array_append_new(res,
                              json_pack("{s:I,s:I,s:s,s:I,s:I,s:o}", "victim",
                                        (json_int_t)r->victim, "restarts",
                                        (json_int_t)r->restarts, "node",
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
                       .node = (size_t)(cn - p->src.conf->nodes),
                       .cpus = (uint32_t)cpus,
                       .mem_mib = (uint64_t)mem,
                       .ngpus = (uint32_t)json_array_size(g)};
    r->gpus = r->ngpus ? xcalloc(r->ngpus, sizeof(*r->gpus)) : NULL;
    for (uint32_t k = 0; k < r->ngpus; k++) {
        json_t *x = json_array_get(g, k);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return -1;
        r->gpus[k] = (uint32_t)json_integer_value(x);
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

/* ---- policy ----------------------------------------------------------- */

static const struct acct_qos *qos_of(const struct preempt_drv *p,
                                     const struct job *j)
{
    return j->qos != NULL ? acct_qos_find(p->src.acct, j->qos) : NULL;
}

/* The victim's PreemptMode: its QOS's, else its partition's (which is
 * the global one unless the partition sets its own). */
static enum conf_preempt_mode victim_mode(const struct preempt_drv *p,
                                          const struct job *v)
{
    const struct acct_qos *q = qos_of(p, v);

    if (q != NULL)
        switch (q->preempt_mode) {
        case ACCT_PREEMPT_OFF:
            return CONF_PREEMPT_MODE_OFF;
        case ACCT_PREEMPT_CANCEL:
            return CONF_PREEMPT_MODE_CANCEL;
        case ACCT_PREEMPT_REQUEUE:
            return CONF_PREEMPT_MODE_REQUEUE;
        case ACCT_PREEMPT_SUSPEND:
            return CONF_PREEMPT_MODE_SUSPEND;
        case ACCT_PREEMPT_CLUSTER:
            break;
        }
    return p->src.conf->parts[v->part].preempt_mode.mode;
}

static uint32_t tier_of(const struct preempt_drv *p, const struct job *j)
{
    return parts_get(p->src.parts, j->part)->priority_tier;
}

/* What preemption does to v: CANCEL, REQUEUE or SUSPEND (OFF: nothing).
 * A SUSPEND victim holding GPUs is requeued (cancelled when it may not
 * be requeued) unless PreemptParameters=suspend_gpu_jobs: suspended, it
 * would keep its GPUs. */
static enum conf_preempt_mode victim_action(const struct preempt_drv *p,
                                            const struct job *v)
{
    enum conf_preempt_mode m = victim_mode(p, v);

    if (m == CONF_PREEMPT_MODE_SUSPEND && v->gpu_alloc != NULL &&
        !p->suspend_gpu_jobs)
        m = CONF_PREEMPT_MODE_REQUEUE;
    if (m == CONF_PREEMPT_MODE_REQUEUE && !v->requeue)
        m = CONF_PREEMPT_MODE_CANCEL;
    return m;
}

/* PreemptType: may pj preempt v at all? */
static bool may_preempt(const struct preempt_drv *p, const struct job *pj,
                        const struct job *v)
{
    enum conf_preempt_mode m = victim_mode(p, v);
    const struct acct_qos *q;

    if (m == CONF_PREEMPT_MODE_OFF)
        return false;
    switch (p->src.conf->preempt_type) {
    case CONF_PREEMPT_PARTITION_PRIO:
        return tier_of(p, v) < tier_of(p, pj);
    case CONF_PREEMPT_QOS:
        if ((q = qos_of(p, pj)) == NULL || v->qos == NULL)
            return false;
        for (size_t i = 0; i < q->n_preempt; i++)
            if (strcmp(q->preempt[i], v->qos) == 0)
                return true;
        return false;
    case CONF_PREEMPT_NONE:
        break;
    }
    return false;
}

/* When v may be preempted: PreemptExemptTime of its QOS, else the
 * global one; with ExemptUntilCheckpoint not before its first
 * checkpoint, but no longer than exempt_until_checkpoint_max (so that a
 * job that never checkpoints does not hold its resources for ever). */
time_t preempt_drv_exempt_until(const struct preempt_drv *p,
                                const struct job *v)
{
    const struct acct_qos *q = qos_of(p, v);
    int64_t s = p->src.conf->preempt_exempt_time_s, cap;

    if (q != NULL && q->preempt_exempt_time_s != ACCT_TIME_UNSET)
        s = q->preempt_exempt_time_s;
    if (q != NULL && (q->flags & ACCT_QOS_EXEMPT_UNTIL_CHECKPOINT) &&
        v->last_checkpoint == 0) {
        cap = p->ckpt_exempt_max_s;
        if (cap < 0)
            cap = s <= 0 ? PREEMPT_CKPT_EXEMPT_MIN_S
                  : s >= INT64_MAX / PREEMPT_CKPT_EXEMPT_FACTOR
                      ? TIMEFMT_INFINITE
                      : s * PREEMPT_CKPT_EXEMPT_FACTOR;
        if (cap >= JOBS_TIME_LIMIT_MAX_S)
            return (time_t)INT64_MAX;
        return v->start_time + (time_t)cap;
    }
    return s > 0 ? v->start_time + (time_t)s : 0;
}

/* GraceTime: the victim's QOS's, else its partition's. */
static uint32_t grace_of(const struct preempt_drv *p, const struct job *v)
{
    const struct acct_qos *q = qos_of(p, v);

    if (q != NULL && q->grace_time_s > 0)
        return (uint32_t)q->grace_time_s;
    return p->src.conf->parts[v->part].grace_time_s;
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
    for (struct job *j = jobs_first(p->src.jobs); j && vs->n < cap;
         j = j->next) {
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
            .tier = tier_of(p, j),
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
    const struct sched_victim *v = &vs->v[x];

    for (size_t k = 0; k < v->nnodes; k++) {
        bool on = false;
        for (size_t i = 0; i < plan->nnodes; i++)
            on |= plan->nodes[i] == v->nodes[k];
        if (!on)
            continue;
        h->res = xreallocarray(h->res, h->nres + 1, sizeof(*h->res));
        struct held *r = &h->res[h->nres++];
        /* a suspended victim frees its CPUs only */
        *r = (struct held){.victim = v->id,
                           .restarts = vs->j[x]->restart_count,
                           .node = v->nodes[k],
                           .cpus = v->cpus_per_node,
                           .mem_mib = v->suspend ? 0 : v->mem_per_node_mib,
                           .ngpus = v->suspend ? 0 : v->gpus_per_node};
        if (r->ngpus > 0) {
            r->gpus = xcalloc(r->ngpus, sizeof(*r->gpus));
            memcpy(r->gpus, v->gpus + k * r->ngpus,
                   r->ngpus * sizeof(*r->gpus));
        }
    }
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

/* The plan as the model will be once it is carried out: the victims'
 * resources free, then what sj takes on the plan's nodes used, so that a
 * later preemptor of this pass (the next task of an array) neither counts
 * on the same resources nor leaves a victim's surplus unused. */
static void claim(struct sched_cluster *cl, const struct sched_job *sj,
                  const struct victims *vs,
                  const struct sched_preempt_plan *plan)
{
    for (size_t i = 0; i < plan->nvictims; i++) {
        const struct sched_victim *v = &vs->v[plan->victims[i]];
        for (size_t k = 0; k < v->nnodes; k++) {
            struct sched_node *n = &cl->nodes[v->nodes[k]];
            n->cpus_alloc -= n->cpus_alloc < v->cpus_per_node
                                 ? n->cpus_alloc
                                 : v->cpus_per_node;
            n->mem_alloc_mib -= n->mem_alloc_mib < v->mem_per_node_mib
                                    ? n->mem_alloc_mib
                                    : v->mem_per_node_mib;
            for (uint32_t g = 0; g < v->gpus_per_node; g++) {
                uint32_t pos = v->gpus[k * v->gpus_per_node + g];
                if (pos < n->ngpus)
                    n->gpu_used[pos / 64] &= ~(UINT64_C(1) << (pos % 64));
            }
        }
    }
    for (size_t k = 0; k < plan->nnodes; k++) {
        struct sched_node *n = &cl->nodes[plan->nodes[k]];
        uint32_t got = 0;
        n->cpus_alloc += sj->cpus_per_node;
        n->mem_alloc_mib += sj->mem_per_node_mib;
        for (uint32_t pos = 0; got < sj->gpus_per_node && pos < n->ngpus;
             pos++) {
            uint64_t bit = UINT64_C(1) << (pos % 64);
            if ((n->gpu_used[pos / 64] & bit) ||
                !select_gpu_type_ok(n, pos, sj->gpu_type))
                continue;
            n->gpu_used[pos / 64] |= bit;
            got++;
        }
    }
}

/* Asks for a pass at the earliest time when one of the victims this job
 * may preempt stops being exempt (a time later than now; "until a
 * checkpoint" is left out: the checkpoint itself asks for a pass). */
static void exempt_wake(struct preempt_drv *p, const struct victims *vs,
                        time_t now)
{
    time_t next = 0;

    for (size_t k = 0; k < vs->n; k++) {
        time_t t = vs->v[k].exempt_until;
        if (vs->v[k].may && t > now && t != (time_t)INT64_MAX &&
            (next == 0 || t < next))
            next = t;
    }
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
    for (struct job *s = jobs_first(p->src.jobs); s != NULL; s = s->next) {
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
            if (p->suspend_gpu_jobs)
                gpus_held_reason(p, pj);
            continue;
        }
        int rc = sched_preempt_find(cl, &cl->jobs[d->job], vs.v, vs.n, now,
                                    &p->params, &plan);
        if (rc < 0)
            log_warn("job=%" PRIu64 " preempt: the model was refused", pj->id);
        if (rc == 1 && plan.nvictims > 0) {
            act(p, pj, t, &vs, &plan, now);
            claim(cl, &cl->jobs[d->job], &vs, &plan);
        } else
            exempt_wake(p, &vs, now);
        if (rc != 1 && p->suspend_gpu_jobs)
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
