/*
 * Preemption in the simulator, as ctld/sched/preempt_drv.c does it: for
 * each job a pass left waiting for resources, the running jobs it may
 * preempt (sched/preempt_policy.h) go to the victim choice
 * (sched/preempt.h); the chosen ones are suspended, or signalled and
 * killed (at once, or after their GraceTime with --use-grace) to be
 * requeued or cancelled; until they are gone their resources are held
 * for the preemptor, which then goes first.  The resume scheduler
 * (ctld/queue/jobsusp.c) runs before each pass.
 */
#include "sim/sim_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void sim_preempt_view(const struct sim *s, const struct sjob *j,
                      struct sched_preempt_job *out)
{
    const struct sim_qos *q = j->qos != SIZE_MAX ? &s->acct->qos[j->qos] : 0;
    const struct conf_part *cp = &s->conf->parts[j->part];

    *out = (struct sched_preempt_job){
        .tier = j->tier,
        .qos_name = q != NULL ? q->name : NULL,
        .qos = q != NULL ? &q->pq : NULL,
        .part_mode = cp->preempt_mode.mode,
        .part_grace_s = cp->grace_time_s,
        .requeue = !j->in->no_requeue && s->conf->job_requeue,
        .gpus = j->gpus_per_node > 0,
        .start_time = j->start,
    };
}

/* ---- holds ------------------------------------------------------------------ */

static bool alive(const struct sim *s, const struct sim_held_res *r)
{
    const struct sjob *v = &s->jobs[r->victim];

    /* a suspended victim has let go of what its preemptor needs */
    return v->st == SJ_RUNNING && v->gen == r->gen;
}

static bool waiting(const struct sim *s, const struct sim_hold *h)
{
    for (size_t i = 0; i < h->nres; i++)
        if (alive(s, &h->res[i]))
            return true;
    return false;
}

static void hold_free(struct sim_hold *h)
{
    for (size_t i = 0; i < h->nres; i++)
        sched_held_clear(&h->res[i].r);
    free(h->res);
}

void sim_holds_free(struct sim *s)
{
    for (size_t i = 0; i < s->nholds; i++)
        hold_free(&s->holds[i]);
    free(s->holds);
    s->holds = NULL;
    s->nholds = 0;
}

void sim_holds_apply(struct sim *s, struct sched_cluster *cl,
                     struct sched_job *sj, size_t n)
{
    for (size_t h = 0; h < s->nholds; h++) {
        struct sim_hold *hd = &s->holds[h];
        if (!waiting(s, hd)) {
            /* all released: its job goes first (the fast lane) */
            for (size_t k = 0; k < n; k++)
                if (sj[k].id == s->jobs[hd->job].id)
                    sj[k].tier = UINT32_MAX;
            continue;
        }
        for (size_t i = 0; i < hd->nres; i++)
            if (hd->res[i].r.node < cl->nnodes && !alive(s, &hd->res[i]))
                sched_held_mark(&cl->nodes[hd->res[i].r.node], &hd->res[i].r);
    }
}

/* Drop the holds of jobs that started or left, and of those whose
 * victims are all gone while they still cannot start. */
static void holds_settle(struct sim *s)
{
    size_t k = 0;

    for (size_t h = 0; h < s->nholds; h++) {
        struct sim_hold *hd = &s->holds[h];
        if (s->jobs[hd->job].st == SJ_PENDING && waiting(s, hd))
            s->holds[k++] = *hd;
        else
            hold_free(hd);
    }
    s->nholds = k;
}

static bool has_hold(const struct sim *s, size_t job)
{
    for (size_t h = 0; h < s->nholds; h++)
        if (s->holds[h].job == job)
            return true;
    return false;
}

/* ---- victims ----------------------------------------------------------------- */

struct victims {
    struct sched_victim *v;
    size_t *job;                  /* index into s->jobs */
    struct sched_preempt_job *pv; /* the policy's view of each */
    size_t n;
};

static void victims_build(struct sim *s, struct victims *vs, time_t now)
{
    vs->v = xcalloc(s->nrun ? s->nrun : 1, sizeof(*vs->v));
    vs->job = xcalloc(s->nrun ? s->nrun : 1, sizeof(*vs->job));
    vs->pv = xcalloc(s->nrun ? s->nrun : 1, sizeof(*vs->pv));
    vs->n = 0;
    for (size_t r = 0; r < s->nrun; r++) {
        const struct sjob *j = &s->jobs[s->run[r]];
        struct sched_preempt_job pv;
        time_t until;
        if (j->st != SJ_RUNNING || j->killing)
            continue;
        sim_preempt_view(s, j, &pv);
        until = sched_preempt_exempt_until(&s->pc, &pv);
        /* started in this second: its node has not confirmed the launch
         * yet, so the controller looks at it again in a second */
        if (j->start == now && until < now + 1)
            until = now + 1;
        vs->job[vs->n] = s->run[r];
        vs->pv[vs->n] = pv;
        vs->v[vs->n++] = (struct sched_victim){
            .id = j->id,
            .nodes = j->alloc,
            .nnodes = j->nalloc,
            .cpus_per_node = j->in->cpus_per_node,
            .mem_per_node_mib = j->in->mem_per_node_mib,
            .gpus_per_node = j->gpus_per_node,
            .gpus = j->gpus,
            .tier = j->tier,
            .priority = j->priority,
            .start_time = j->start,
            .exempt_until = until,
            .suspend =
                sched_preempt_action(&s->pc, &pv) == CONF_PREEMPT_MODE_SUSPEND,
        };
    }
}

/* Suspend victim k at now: its CPUs are free, its memory and GPUs stay. */
static void suspend(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];
    int64_t ran = now - j->start - j->susp_s;

    for (size_t i = 0; i < j->nalloc; i++) {
        struct sched_node *n = &s->nodes[j->alloc[i]];
        n->cpus_alloc -= n->cpus_alloc < j->in->cpus_per_node
                             ? n->cpus_alloc
                             : j->in->cpus_per_node;
    }
    j->left_s = j->in->run_s - (ran > 0 ? ran : 0);
    j->st = SJ_SUSPENDED;
    j->susp_at = now;
    j->gen++; /* its END event is void; a new one comes with the resume */
}

static void record(struct sim *s, size_t victim, size_t by,
                   const struct sched_victim *v, enum conf_preempt_mode m,
                   time_t now)
{
    struct sim_job_out *o = &s->out->jobs[victim];
    struct sim_preemption p = {.t = now, .victim = victim, .by = by, .mode = m};
    bool gpu = false;
    uint64_t lost = 0;

    if (m != CONF_PREEMPT_MODE_SUSPEND)
        lost = sched_preempt_lost(v, now, &gpu);
    p.lost_gpu_s = gpu ? lost : 0;
    p.lost_cpu_s = gpu ? 0 : lost;
    o->preempted++;
    o->lost_gpu_s += p.lost_gpu_s;
    o->lost_cpu_s += p.lost_cpu_s;
    s->out->pre =
        xreallocarray(s->out->pre, s->out->npre + 1, sizeof(*s->out->pre));
    s->out->pre[s->out->npre++] = p;
}

static void act(struct sim *s, size_t pj, struct victims *vs,
                const struct sched_preempt_plan *plan, time_t now)
{
    struct sim_hold h = {.job = pj};

    for (size_t i = 0; i < plan->nvictims; i++) {
        size_t x = plan->victims[i], k = vs->job[x];
        struct sjob *v = &s->jobs[k];
        struct sched_preempt_job pv;
        struct sched_held *got = NULL;
        size_t ng = 0;
        enum conf_preempt_mode m;

        sim_preempt_view(s, v, &pv);
        m = sched_preempt_action(&s->pc, &pv);
        sched_preempt_held(&vs->v[x], plan, &got, &ng);
        h.res = xreallocarray(h.res, h.nres + ng + 1, sizeof(*h.res));
        for (size_t g = 0; g < ng; g++)
            h.res[h.nres++] =
                (struct sim_held_res){.victim = k, .gen = v->gen, .r = got[g]};
        free(got);
        vs->v[x].may = false;
        record(s, k, pj, &vs->v[x], m, now);
        if (m == CONF_PREEMPT_MODE_SUSPEND) {
            suspend(s, k, now);
            continue;
        }
        v->killing = true;
        v->kill_mode = m;
        sim_push(
            s, now + (s->o->use_grace ? (time_t)sched_preempt_grace_s(&pv) : 0),
            SIM_EV_KILL, k, v->gen);
    }
    s->holds = xreallocarray(s->holds, s->nholds + 1, sizeof(*s->holds));
    s->holds[s->nholds++] = h;
}

/* A pass when the earliest exemption of a victim pj may take ends. */
static void exempt_wake(struct sim *s, const struct victims *vs, time_t now)
{
    time_t next = sched_preempt_next_exempt(vs->v, vs->n, now);

    if (next == 0 || (s->wake_at != 0 && s->wake_at <= next))
        return;
    s->wake_at = next;
    sim_push(s, next, SIM_EV_WAKE, 0, 0);
}

void sim_preempt_run(struct sim *s, struct sched_cluster *cl,
                     const size_t *pend, const struct sched_result *r,
                     time_t now)
{
    struct victims vs = {0};
    bool built = false;

    holds_settle(s);
    if (s->pc.type == CONF_PREEMPT_NONE)
        return;
    for (size_t i = 0; i < r->n; i++) {
        const struct sched_decision *d = &r->decisions[i];
        size_t pj = pend[d->job];
        struct sched_preempt_job ppj;
        struct sched_preempt_plan plan;
        size_t cand = 0;
        int rc;
        if (d->nnodes > 0 || d->reason != SCHED_REASON_RESOURCES ||
            has_hold(s, pj))
            continue;
        if (!built) {
            victims_build(s, &vs, now);
            built = true;
        }
        sim_preempt_view(s, &s->jobs[pj], &ppj);
        for (size_t k = 0; k < vs.n; k++) {
            const struct sjob *v = &s->jobs[vs.job[k]];
            /* a victim's view stays what it was when the pass began:
             * nothing a pass does changes it */
            vs.v[k].may = v->st == SJ_RUNNING && !v->killing &&
                          sched_preempt_may(&s->pc, &ppj, &vs.pv[k]);
            cand += vs.v[k].may;
        }
        if (cand == 0)
            continue;
        rc = sched_preempt_find(cl, &cl->jobs[d->job], vs.v, vs.n, now,
                                &s->pc.params, &plan);
        if (rc == 1 && plan.nvictims > 0) {
            act(s, pj, &vs, &plan, now);
            sched_preempt_claim(cl, &cl->jobs[d->job], vs.v, &plan);
        } else {
            exempt_wake(s, &vs, now);
        }
        sched_preempt_plan_clear(&plan);
    }
    free(vs.v);
    free(vs.job);
    free(vs.pv);
}

/* ---- the resume scheduler ------------------------------------------------------ */

static const struct sim *order_sim;

static int resume_order(const void *a, const void *b)
{
    const struct sjob *x = &order_sim->jobs[*(const size_t *)a];
    const struct sjob *y = &order_sim->jobs[*(const size_t *)b];

    if (x->tier != y->tier)
        return x->tier > y->tier ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->susp_at != y->susp_at)
        return x->susp_at < y->susp_at ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void sim_resume_due(struct sim *s, time_t now)
{
    size_t *list = NULL, n = 0;

    for (size_t r = 0; r < s->nrun; r++)
        if (s->jobs[s->run[r]].st == SJ_SUSPENDED) {
            list = xreallocarray(list, n + 1, sizeof(*list));
            list[n++] = s->run[r];
        }
    if (n == 0)
        return;
    /* what pending preemptors will take counts as used (preempt_drv.c's
     * reserve): their CPUs on each node they took victims on */
    uint32_t *extra =
        xcalloc(s->conf->n_nodes ? s->conf->n_nodes : 1, sizeof(*extra));
    for (size_t h = 0; h < s->nholds; h++) {
        const struct sim_hold *hd = &s->holds[h];
        if (s->jobs[hd->job].st != SJ_PENDING)
            continue;
        for (size_t i = 0; i < hd->nres; i++) {
            bool seen = false;
            for (size_t k = 0; k < i; k++)
                seen = seen || hd->res[k].r.node == hd->res[i].r.node;
            if (!seen)
                extra[hd->res[i].r.node] += s->jobs[hd->job].in->cpus_per_node;
        }
    }
    order_sim = s;
    qsort(list, n, sizeof(*list), resume_order);
    for (size_t i = 0; i < n; i++) {
        struct sjob *j = &s->jobs[list[i]];
        bool fits = true;
        for (size_t a = 0; a < j->nalloc && fits; a++) {
            const struct sched_node *nd = &s->nodes[j->alloc[a]];
            fits = nd->cpus_alloc + extra[j->alloc[a]] + j->in->cpus_per_node <=
                   nd->cpus;
        }
        if (!fits)
            continue;
        for (size_t a = 0; a < j->nalloc; a++)
            s->nodes[j->alloc[a]].cpus_alloc += j->in->cpus_per_node;
        int64_t done = j->in->run_s - j->left_s, dur = j->left_s;
        if (j->limit_s > 0 && j->limit_s - done < dur)
            dur = j->limit_s - done > 0 ? j->limit_s - done : 0;
        j->susp_s += now - j->susp_at;
        j->st = SJ_RUNNING;
        sim_push(s, now + dur, SIM_EV_END, list[i], j->gen);
    }
    free(extra);
    free(list);
}
