/*
 * The pass model (model.h): the controller's tables turned into a
 * struct sched_cluster, once for the real pass and the what-if passes
 * alike, with the counters of array throttles (%N, reason
 * JobArrayTaskLimit) and singleton dependencies (one running job per name
 * and user, reason Dependency).
 */
#include "ctld/sched/model.h"

#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/jobopts.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/cluster/resv.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/sched/preempt_drv.h"
#include "sched/features.h"

struct model {
    struct model_src src;
    struct sched_part *parts; /* rebuilt by each build */
    bool backfill;
    struct sched_bf bf;
};

struct model *model_create(const struct model_src *src)
{
    struct model *md = xcalloc(1, sizeof(*md));
    const struct conf *conf = src->conf;
    struct err e;

    md->src = *src;
    md->parts = xcalloc(conf->n_parts ? conf->n_parts : 1, sizeof(*md->parts));
    md->backfill = conf->scheduler_type == CONF_SCHED_BACKFILL;
    if (sched_bf_params_parse(conf->scheduler_parameters, &md->bf, &e) < 0) {
        log_warnx("SchedulerParameters: %s; backfill defaults used", e.text);
        sched_bf_params_parse("", &md->bf, &e);
    }
    return md;
}

void model_destroy(struct model *md)
{
    if (md == NULL)
        return;
    free(md->parts);
    free(md);
}

bool model_backfill(const struct model *md)
{
    return md->backfill;
}

const struct sched_bf *model_bf(const struct model *md)
{
    return &md->bf;
}

int64_t model_slice_us(const struct model *md, int64_t max_us)
{
    if (strstr(md->src.conf->scheduler_parameters, "bf_yield_interval") !=
            NULL &&
        md->bf.yield_interval_us < max_us)
        return md->bf.yield_interval_us;
    return max_us;
}

/* ---- nodes, partitions, one job -------------------------------------- */

/* The partitions as they are now (scontrol update may change them). */
static struct sched_part *model_parts(struct model *md)
{
    const struct conf *conf = md->src.conf;

    for (size_t i = 0; i < conf->n_parts; i++) {
        const struct part *p = parts_get(md->src.parts, i);
        md->parts[i] = (struct sched_part){
            .name = conf->parts[i].name,
            /* DRAIN takes no new submissions but still starts its queue */
            .start_jobs =
                p->state == CONF_PART_UP || p->state == CONF_PART_DRAIN,
            .inactive = p->state == CONF_PART_INACTIVE,
            .nodes = p->node_idx,
            .nnodes = p->n_nodes,
        };
    }
    return md->parts;
}

/* The model of the nodes; *used gets the GPU bitmaps (one block for all
 * nodes; the caller frees both). */
static struct sched_node *model_nodes(const struct model *md, uint64_t **used)
{
    struct nodes *ns = md->src.nodes;
    size_t n = nodes_count(ns), words = 0, off = 0;
    struct sched_node *out = xcalloc(n ? n : 1, sizeof(*out));

    for (size_t i = 0; i < n; i++)
        words += SCHED_GPU_WORDS(nodes_get(ns, i)->gpus.n);
    *used = xcalloc(words ? words : 1, sizeof(**used));
    for (size_t i = 0; i < n; i++) {
        const struct node *nd = nodes_get(ns, i);
        uint64_t *w = *used + off;
        for (size_t p = 0; p < nd->gpus.n; p++)
            if (nodes_gpu_used(nd, nd->gpus.v[p].index))
                w[p / 64] |= UINT64_C(1) << (p % 64);
        off += SCHED_GPU_WORDS(nd->gpus.n);
        bool excl = false, whole = false;
        for (size_t u = 0; u < nd->n_users; u++) {
            excl |= nd->users[u].exclusive > 0;
            whole |= nd->users[u].whole > 0;
        }
        out[i] = (struct sched_node){
            .users = nd->n_users > 1 ? 2 : (uint32_t)nd->n_users,
            .user_exclusive = excl,
            .whole = whole,
            .features = nd->cf->features,
            .weight = nd->cf->weight,
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

struct sched_node *pass_model_nodes(const struct pass_model *pm,
                                    uint64_t **used)
{
    size_t n = pm->cl.nnodes, words = 0, off = 0;
    struct sched_node *out = xcalloc(n ? n : 1, sizeof(*out));

    for (size_t i = 0; i < n; i++)
        words += SCHED_GPU_WORDS(pm->cl.nodes[i].ngpus);
    *used = xcalloc(words ? words : 1, sizeof(**used));
    for (size_t i = 0; i < n; i++) {
        size_t k = SCHED_GPU_WORDS(pm->cl.nodes[i].ngpus);
        out[i] = pm->cl.nodes[i];
        out[i].gpu_used = *used + off;
        if (k > 0)
            memcpy(out[i].gpu_used, pm->cl.nodes[i].gpu_used,
                   k * sizeof(**used));
        off += k;
    }
    return out;
}

/* The MinPrioThreshold of j's QOS (0: none). */
static uint64_t min_prio_reserve(const struct model *md, const struct job *j)
{
    const struct acct_qos *q =
        j->qos ? acct_qos_find(md->src.acct, j->qos) : NULL;

    if (q == NULL || q->limits.min_prio_threshold == LIMITS_UNSET)
        return 0;
    return q->limits.min_prio_threshold;
}

/* The nodes j may use: -w/-x and its per-node needs (jobopts.h),
 * worked out once and kept with the job. */
static void node_use(const struct conf *conf, const struct job *cj)
{
    struct job *j = (struct job *)cj; /* node_use is a cache of the job's */

    if (j->opt.node_ok == NULL || j->opt.node_use != NULL)
        return;
    j->opt.node_use = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(bool));
    for (size_t i = 0; i < conf->n_nodes; i++)
        j->opt.node_use[i] = j->opt.node_ok[i] &&
                             (j->node_allowed == NULL || j->node_allowed[i]);
}

static struct sched_job model_job(const struct model *md, const struct job *j)
{
    const struct conf_part *cp = &md->src.conf->parts[j->part];

    node_use(md->src.conf, j);
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
        .node_allowed = j->opt.node_use ? j->opt.node_use : j->node_allowed,
        .gpus_per_node = j->gpus_per_node,
        .gpu_type = j->gpu_type,
        .time_limit_s =
            j->time_limit_s == TIMEFMT_INFINITE ? 0 : j->time_limit_s,
        .user = j->user_id,
        .exclusive_user = cp->exclusive_user ||
                          j->opt.exclusive == JOB_EXCL_USER ||
                          j->opt.exclusive == JOB_EXCL_MCS,
        .exclusive_node = j->opt.exclusive == JOB_EXCL_NODE,
        .constraint = features_for_set(j->opt.feat) ? j->opt.feat : NULL,
        .time_min_s = j->opt.time_min_s,
        .min_prio_reserve = min_prio_reserve(md, j),
        .tier = cp->priority_tier,
    };
}

/* ---- pending jobs and their counters ----------------------------------- */

/* Room for cap entries (the arrays grow, never shrink). */
static void grow(struct pass_model *pm, size_t cap)
{
    pm->cap = cap;
    pm->pend = xreallocarray(pm->pend, pm->cap, sizeof(*pm->pend));
    pm->task = xreallocarray(pm->task, pm->cap, sizeof(*pm->task));
    pm->jobs = xreallocarray(pm->jobs, pm->cap, sizeof(*pm->jobs));
    pm->chg = xreallocarray(pm->chg, 2 * pm->cap, sizeof(*pm->chg));
    pm->nmine = xreallocarray(pm->nmine, pm->cap, sizeof(*pm->nmine));
}

/* The reservations' rule (resvs_job_mask) on entry sj of j: a gate, or
 * a node mask of the pass's own, with the nodes j could use in it. */
static void resv_apply(struct pass_model *pm, struct sched_job *sj,
                       const struct job *j)
{
    struct resvs *rs = pm->md->src.resv;
    size_t n = nodes_count(pm->md->src.nodes);
    bool *mask, plain = j->reservation == NULL && j->node_allowed == NULL;
    int64_t limit = j->time_limit_s == TIMEFMT_INFINITE ? 0 : j->time_limit_s;

    if (resvs_count(rs) == 0 && j->reservation == NULL)
        return;
    for (size_t k = 0; plain && k < pm->nresv_cache; k++) {
        if (pm->resv_lim[k] == limit) {
            sj->node_allowed = pm->resv_mask[k];
            return;
        }
    }
    if (plain && pm->nresv_cache < PASS_MODEL_RESV_CACHE) {
        pm->resv_lim[pm->nresv_cache] = limit;
        pm->resv_mask[pm->nresv_cache++] = NULL; /* until masked below */
    }
    /* one more entry: a MAINT reservation took nodes away (resv_reason) */
    mask = xcalloc(n + 1, sizeof(*mask));
    switch (
        resvs_job_mask(rs, j->reservation, limit, pm->now, mask, n, &mask[n])) {
    case RESV_WAIT:
        sj->resv_gate = SCHED_REASON_RESERVATION;
        break;
    case RESV_DELETED:
        sj->resv_gate = SCHED_REASON_RESV_DELETED;
        break;
    case RESV_MASKED:
        /* sj->node_allowed: -w/-x and the job's per-node needs */
        for (size_t i = 0; sj->node_allowed != NULL && i < n; i++)
            mask[i] = mask[i] && sj->node_allowed[i];
        if (pm->nmasks == pm->capmasks) {
            pm->capmasks = pm->capmasks ? 2 * pm->capmasks : 16;
            pm->masks =
                xreallocarray(pm->masks, pm->capmasks, sizeof(*pm->masks));
        }
        pm->masks[pm->nmasks++] = mask;
        sj->node_allowed = mask;
        if (plain && pm->nresv_cache > 0 &&
            pm->resv_lim[pm->nresv_cache - 1] == limit)
            pm->resv_mask[pm->nresv_cache - 1] = mask;
        return;
    case RESV_FREE:
        break;
    }
    free(mask);
}

static void push(struct pass_model *pm, struct job *j, int64_t task)
{
    if (pm->n == pm->cap)
        grow(pm, pm->cap ? 2 * pm->cap : 256);
    pm->pend[pm->n] = j;
    pm->task[pm->n] = task;
    pm->jobs[pm->n] = model_job(pm->md, j);
    resv_apply(pm, &pm->jobs[pm->n], j);
    pm->nmine[pm->n] = 0;
    pm->n++;
}

static size_t new_counter(struct pass_model *pm, uint64_t cap,
                          const char *reason)
{
    pm->ctr = xreallocarray(pm->ctr, pm->nctr + 1, sizeof(*pm->ctr));
    pm->ctr[pm->nctr] = (struct sched_counter){cap, 0, reason};
    return pm->nctr++;
}

/* Charges wait in chg (indices into pm->ctr) for merge(). */
static void add_charge(struct pass_model *pm, size_t entry, size_t counter)
{
    pm->chg[2 * entry + pm->nmine[entry]] =
        (struct sched_charge){.counter = counter, .amount = 1};
    pm->nmine[entry]++;
}

/* Singleton counters: one per (name, user) among the pending jobs. */
struct singles {
    const struct job **key;
    size_t *ctr;
    size_t n;
};

static size_t single_counter(struct pass_model *pm, struct singles *s,
                             const struct job *j)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->key[i]->user_id == j->user_id &&
            strcmp(s->key[i]->name, j->name) == 0)
            return s->ctr[i];
    s->key = xreallocarray(s->key, s->n + 1, sizeof(*s->key));
    s->ctr = xreallocarray(s->ctr, s->n + 1, sizeof(*s->ctr));
    s->key[s->n] = j;
    s->ctr[s->n] = new_counter(pm, 1, "Dependency");
    return s->ctr[s->n++];
}

/* The throttle counter of j's array (j a pending record or a task split
 * off it), made on first use and remembered in the array's record; -1
 * when the array has no throttle (or its record is gone). */
static int64_t throttle_counter(struct pass_model *pm, struct job *j)
{
    struct jobs *js = pm->md->src.jobs;
    struct job *a = j->array_job_id ? jobs_find(js, j->array_job_id) : NULL;

    if (j->array_throttle == 0 || a == NULL)
        return -1;
    if (a->sched_slot == 0) {
        a->sched_slot =
            new_counter(pm, j->array_throttle, "JobArrayTaskLimit") + 1;
        pm->slotted =
            xreallocarray(pm->slotted, pm->nslotted + 1, sizeof(*pm->slotted));
        pm->slotted[pm->nslotted++] = a;
    }
    return (int64_t)a->sched_slot - 1;
}

/* j's entries: itself, or each task of a pending array offered. */
static void offer(struct pass_model *pm, struct singles *s, struct job *j)
{
    bool single = depend_has(&j->dep, DEP_SINGLETON);
    size_t single_ctr = single ? single_counter(pm, s, j) : 0;
    int64_t thr = throttle_counter(pm, j);
    int64_t tasks[JOBARRAY_OFFER_MAX];
    size_t nt = 1;

    if (j->array_pending != NULL)
        nt = jobarray_offer(j, tasks);
    else
        tasks[0] = -1;
    for (size_t k = 0; k < nt; k++) {
        push(pm, j, tasks[k]);
        if (thr >= 0)
            add_charge(pm, pm->n - 1, (size_t)thr);
        if (single)
            add_charge(pm, pm->n - 1, single_ctr);
    }
}

/* What running jobs already use of the counters. */
static void count_running(struct pass_model *pm, const struct singles *s)
{
    struct jobs *js = pm->md->src.jobs;

    for (struct job *j = jobs_first_active(js); j != NULL; j = j->anext) {
        struct job *a;
        if (!job_on_node(j->state))
            continue;
        if (j->array_job_id != 0 &&
            (a = jobs_find(js, j->array_job_id)) != NULL && a->sched_slot)
            pm->ctr[a->sched_slot - 1].used++;
        for (size_t i = 0; i < s->n; i++)
            if (s->key[i]->user_id == j->user_id &&
                strcmp(s->key[i]->name, j->name) == 0)
                pm->ctr[s->ctr[i]].used++;
    }
}

/* The pending jobs the pass offers, with their counters, and also. */
static void collect(struct pass_model *pm, struct job *also)
{
    struct jobs *js = pm->md->src.jobs;
    struct singles s = {0};

    /* sized once: doubling a 100k-job model copies megabytes per pass */
    if (jobs_active(js) > 0)
        grow(pm, jobs_active(js));
    for (struct job *j = jobs_first_active(js); j != NULL; j = j->anext) {
        if (j->state != JOB_PENDING || j->part_time_limit ||
            j->part_node_limit || j->dep_state != DEP_MET || j->fenced)
            continue;
        offer(pm, &s, j);
    }
    if (pm->nctr > 0)
        count_running(pm, &s);
    for (size_t i = 0; i < pm->nslotted; i++)
        pm->slotted[i]->sched_slot = 0;
    free(s.key);
    free(s.ctr);
    pm->extra = SIZE_MAX;
    for (size_t i = 0; also != NULL && i < pm->n; i++)
        if (pm->pend[i] == also) {
            pm->extra = i;
            break;
        }
    if (also != NULL && pm->extra == SIZE_MAX && also->state == JOB_PENDING) {
        pm->extra = pm->n;
        push(pm, also, -1);
    }
}

/* The limit engine's counters first, then the model's own; each job's
 * charges likewise (the merged arrays belong to pm). */
static void merge(struct pass_model *pm)
{
    struct sched_cluster *c = &pm->cl;
    size_t nl = c->counters != NULL ? c->ncounters : 0, total = 0, off = 0;

    if (pm->nctr == 0)
        return;
    pm->all_ctr = xcalloc(nl + pm->nctr, sizeof(*pm->all_ctr));
    if (nl > 0)
        memcpy(pm->all_ctr, c->counters, nl * sizeof(*pm->all_ctr));
    memcpy(pm->all_ctr + nl, pm->ctr, pm->nctr * sizeof(*pm->ctr));
    for (size_t i = 0; i < pm->n; i++)
        total += pm->jobs[i].ncharges + pm->nmine[i];
    pm->all_chg = xcalloc(total ? total : 1, sizeof(*pm->all_chg));
    for (size_t i = 0; i < pm->n; i++) {
        struct sched_job *sj = &pm->jobs[i];
        size_t n = sj->ncharges;
        if (n > 0)
            memcpy(pm->all_chg + off, sj->charges, n * sizeof(*pm->all_chg));
        for (size_t k = 0; k < pm->nmine[i]; k++) {
            pm->all_chg[off + n + k] = pm->chg[2 * i + k];
            pm->all_chg[off + n + k].counter += nl;
        }
        sj->charges = pm->all_chg + off;
        sj->ncharges = n + pm->nmine[i];
        off += sj->ncharges;
    }
    c->counters = pm->all_ctr;
    c->ncounters = nl + pm->nctr;
}

/* The limit engine's charges of the model's jobs, then those of array
 * throttles and singletons. */
static void charge(struct pass_model *pm)
{
    struct jlimits *l = pm->md->src.limits;
    size_t *first = xcalloc(pm->n, sizeof(*first));
    size_t *ncharge = xcalloc(pm->n, sizeof(*ncharge));

    for (size_t i = 0; i < pm->n; i++) {
        pm->jobs[i].charges = NULL;
        pm->jobs[i].ncharges = 0;
    }
    jlimits_pass_begin(l);
    pm->limits_open = true;
    for (size_t i = 0; i < pm->n; i++)
        jlimits_pass_job(l, pm->pend[i], &first[i], &ncharge[i]);
    jlimits_pass_finish(l, &pm->cl, pm->jobs, first, ncharge);
    merge(pm);
    free(ncharge);
    free(first);
}

/* ---- suspended and running jobs ----------------------------------------- */

/*
 * The resume scheduler: suspended jobs whose CPUs are free again (what
 * preemptors hold for themselves counted as taken) resume before any
 * pending job is placed.  PASS_MODEL_RUN resumes them; PASS_MODEL_WHAT_IF
 * returns those that would (a new array, *n of them; NULL when none).
 */
static struct job **resume(struct model *md, enum pass_model_mode mode,
                           size_t *n)
{
    struct jobs *js = md->src.jobs;
    size_t nn = nodes_count(md->src.nodes);
    struct job **would = NULL;
    uint64_t *used = NULL;
    struct sched_node *nodes;

    *n = 0;
    if (!jobs_any_resumable(js))
        return NULL;
    nodes = model_nodes(md, &used);
    preempt_drv_reserve(md->src.preempt, nodes, nn);
    *n = jobs_resume_due(js, nodes, nn,
                         mode == PASS_MODEL_WHAT_IF ? &would : NULL);
    free(nodes);
    free(used);
    return would;
}

static bool listed(struct job *const *v, size_t n, const struct job *j)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == j)
            return true;
    return false;
}

/* Running jobs as backfill's profile sees them; those in resumed (n) as
 * the real pass would have resumed them at now. */
static void model_running(struct pass_model *pm, struct job *const *resumed,
                          size_t n, time_t now)
{
    size_t cap = 16;

    pm->running = xcalloc(cap, sizeof(*pm->running));
    pm->nrunning = 0;
    for (struct job *j = jobs_first_active(pm->md->src.jobs); j != NULL;
         j = j->anext) {
        bool back = n > 0 && listed(resumed, n, j);
        bool susp = j->state == JOB_SUSPENDED && !back;
        int64_t susp_s = back ? job_suspended_s(j, now) : j->suspended_s;
        if (!job_on_node(j->state) || j->n_alloc == 0)
            continue;
        if (pm->nrunning == cap) {
            cap *= 2;
            pm->running = xrealloc(pm->running, cap * sizeof(*pm->running));
        }
        pm->running[pm->nrunning++] = (struct sched_running){
            .nodes = j->alloc,
            .nnodes = j->n_alloc,
            /* suspended: memory and GPUs held, until resumed */
            .cpus_per_node = susp ? 0 : j->cpus_per_node,
            .mem_per_node_mib = job_mem_per_node(j),
            .gpus_per_node = j->gpus_per_node,
            .end_time = j->time_limit_s == TIMEFMT_INFINITE || susp
                            ? 0
                            : j->start_time + susp_s + j->time_limit_s,
        };
    }
}

/* ---- the model ----------------------------------------------------------- */

void pass_model_build(struct model *md, struct pass_model *pm,
                      enum pass_model_mode mode, struct job *also, time_t now)
{
    struct job **resumed;
    size_t nres;

    memset(pm, 0, sizeof(*pm));
    pm->md = md;
    pm->now = now;
    collect(pm, also);
    resumed = resume(md, mode, &nres);
    if (pm->n > 0) {
        pm->cl.nodes = model_nodes(md, &pm->used);
        pm->cl.nnodes = nodes_count(md->src.nodes);
        /* what-if: the CPUs of the jobs the real pass would resume */
        for (size_t k = 0; resumed != NULL && k < nres; k++)
            for (size_t i = 0; i < resumed[k]->n_alloc; i++)
                pm->cl.nodes[resumed[k]->alloc[i]].cpus_alloc +=
                    resumed[k]->cpus_per_node;
        pm->cl.parts = model_parts(md);
        pm->cl.nparts = md->src.conf->n_parts;
        pm->cl.jobs = pm->jobs;
        pm->cl.njobs = pm->n;
        charge(pm);
        preempt_drv_hold(md->src.preempt, &pm->cl, pm->jobs, pm->task, pm->n);
        if (md->backfill)
            model_running(pm, resumed, resumed ? nres : 0, now);
    }
    free(resumed);
}

void pass_model_one(struct model *md, struct pass_model *pm,
                    const struct job *j)
{
    memset(pm, 0, sizeof(*pm));
    pm->md = md;
    pm->extra = SIZE_MAX;
    grow(pm, 1);
    pm->cl = (struct sched_cluster){.nodes = model_nodes(md, &pm->used),
                                    .nnodes = nodes_count(md->src.nodes),
                                    .parts = model_parts(md),
                                    .nparts = md->src.conf->n_parts,
                                    .jobs = pm->jobs,
                                    .njobs = 1};
    pm->now = time(NULL);
    pm->jobs[0] = model_job(md, j);
    resv_apply(pm, &pm->jobs[0], j);
    pm->jobs[0].tier = 0; /* alone: no order to keep */
    pm->pend[0] = NULL;
    pm->task[0] = -1;
    pm->n = 1;
}

const char *pass_model_resv_reason(const struct pass_model *pm, size_t entry)
{
    const struct job *j = pm->pend[entry];
    const bool *mask = pm->jobs[entry].node_allowed;

    if (j == NULL || mask == NULL || mask == j->node_allowed ||
        mask == j->opt.node_use || j->reservation != NULL)
        return NULL;
    return mask[nodes_count(pm->md->src.nodes)]
               ? "ReqNodeNotAvail, Reserved for maintenance"
               : NULL;
}

void pass_model_free(struct pass_model *pm)
{
    if (pm->limits_open)
        jlimits_pass_end(pm->md->src.limits);
    free(pm->cl.nodes);
    free(pm->used);
    free(pm->running);
    free(pm->slotted);
    free(pm->nmine);
    free(pm->all_ctr);
    free(pm->all_chg);
    free(pm->pend);
    free(pm->task);
    free(pm->jobs);
    free(pm->ctr);
    free(pm->chg);
    for (size_t i = 0; i < pm->nmasks; i++)
        free(pm->masks[i]);
    free(pm->masks);
    memset(pm, 0, sizeof(*pm));
}
