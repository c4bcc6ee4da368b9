/*
 * One scheduling pass of the simulator, as ctld/sched/sched_drv.c runs
 * it on the model ctld/sched/model.c builds: suspended jobs resumed where
 * their CPUs are free, the pending jobs with their limit counters and
 * priorities, the nodes with what preemptors hold, the running jobs for
 * backfill's profile; the core's pass (sched/bf_step.c), its decisions
 * applied, then preemption for the jobs left waiting for resources.
 */
#include "sim/sim_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The nodes as they are, into the model (bitmaps copied). */
static void model_nodes(struct sim *s)
{
    memcpy(s->mused, s->used, s->nwords * sizeof(*s->used));
    for (size_t i = 0; i < s->conf->n_nodes; i++) {
        s->mnodes[i] = s->nodes[i];
        s->mnodes[i].gpu_used = s->mused + (s->nodes[i].gpu_used - s->used);
    }
}

static struct sched_job model_job(const struct sim *s, const struct sjob *j)
{
    const struct sim_job_in *in = j->in;
    const struct sim_qos *q = j->qos != SIZE_MAX ? &s->acct->qos[j->qos] : 0;

    return (struct sched_job){
        .id = j->id,
        .part = j->part,
        .nodes = in->nodes,
        .cpus_per_node = in->cpus_per_node,
        .mem_per_node_mib = in->mem_per_node_mib,
        .priority = j->priority,
        .submit_time = in->submit,
        .gpus_per_node = in->gpus_per_node,
        .gpu_type = in->gpu_type,
        .time_limit_s = j->limit_s,
        .user = j->uid,
        .exclusive_user = s->conf->parts[j->part].exclusive_user,
        .min_prio_reserve =
            q != NULL && q->lim.min_prio_threshold != LIMITS_UNSET
                ? q->lim.min_prio_threshold
                : 0,
        .tier = j->tier,
    };
}

/* The running (and suspended) jobs as backfill's profile sees them. */
static struct sched_running *model_running(const struct sim *s)
{
    struct sched_running *r = xcalloc(s->nrun ? s->nrun : 1, sizeof(*r));

    for (size_t i = 0; i < s->nrun; i++) {
        const struct sjob *j = &s->jobs[s->run[i]];
        bool susp = j->st == SJ_SUSPENDED;
        r[i] = (struct sched_running){
            .nodes = j->alloc,
            .nnodes = j->nalloc,
            /* suspended: memory and GPUs held, until resumed */
            .cpus_per_node = susp ? 0 : j->in->cpus_per_node,
            .mem_per_node_mib = j->in->mem_per_node_mib,
            .gpus_per_node = j->gpus_per_node,
            .end_time =
                j->limit_s <= 0 || susp ? 0 : j->start + j->susp_s + j->limit_s,
        };
    }
    return r;
}

/* The limit counters of the pass and each job's charges (jlimits.c). */
static struct limits_pass *model_limits(struct sim *s, struct sched_cluster *cl,
                                        struct sched_job *sj,
                                        const size_t *pend, size_t n)
{
    struct limits_pass *lp;
    size_t *first, *cnt;
    const struct sched_charge *ch;

    if (!s->enforce)
        return NULL;
    lp = limits_pass_create(s->lusage);
    first = xcalloc(n ? n : 1, sizeof(*first));
    cnt = xcalloc(n ? n : 1, sizeof(*cnt));
    for (size_t i = 0; i < n; i++) {
        struct limits_job v;
        sim_limits_view(s, &s->jobs[pend[i]], &v);
        limits_pass_job(lp, &v, &first[i], &cnt[i]);
    }
    ch = limits_pass_charges(lp);
    cl->counters = limits_pass_counters(lp, &cl->ncounters);
    for (size_t i = 0; i < n; i++) {
        sj[i].charges = cnt[i] > 0 ? ch + first[i] : NULL;
        sj[i].ncharges = cnt[i];
    }
    free(first);
    free(cnt);
    return lp;
}

/* The decisions: starts, and the reasons of those that wait.  A job that
 * can never run on this configuration (its partition's nodes never big or
 * many enough, the partition or its nodes down: no state of a simulation
 * changes that) is parked: left out of later passes, which could only
 * refuse it again. */
static void apply(struct sim *s, const size_t *pend,
                  const struct sched_result *r, time_t now)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct sched_decision *d = &r->decisions[i];
        size_t k = pend[d->job];
        struct sjob *j = &s->jobs[k];
        if (d->nnodes > 0) {
            sim_start_job(s, k, d, now);
            continue;
        }
        j->reason = d->reason == SCHED_REASON_LIMIT && d->limit != NULL
                        ? d->limit
                    : d->reason == SCHED_REASON_NEVER_FITS
                        ? "Resources (no node of its partition is big enough)"
                        : sched_reason_name(d->reason);
        if (d->reason == SCHED_REASON_NEVER_FITS ||
            d->reason == SCHED_REASON_PART_NODE_LIMIT ||
            d->reason == SCHED_REASON_PART_DOWN ||
            d->reason == SCHED_REASON_PART_INACTIVE ||
            d->reason == SCHED_REASON_NODE_DOWN) {
            j->parked = true;
            sim_pend_del(s, k);
        }
    }
}

/* Run the core: the main pass alone, or with backfill the controller's
 * step over a whole cycle (an unpaced controller: every event restarts
 * the cycle, and a slice is bounded by nothing but the queue). */
static int decide(struct sim *s, struct sched_cluster *cl,
                  struct sched_running *run, time_t now, struct sched_result *r)
{
    struct sched_bf bf = s->bf;
    struct sched_bf_stats st;
    bool ran_main;

    if (!s->backfill)
        return sched_pass(cl, now, r);
    bf.running = run;
    bf.nrunning = s->nrun;
    bf.clock_us = NULL;
    bf.max_examine = 0;
    return sched_bf_step(s->cycle, cl, &bf, false, true, now, r, &st,
                         &ran_main);
}

void sim_pass(struct sim *s, time_t now)
{
    struct sched_cluster cl;
    struct sched_job *sj;
    struct sched_running *run = NULL;
    struct limits_pass *lp;
    struct sched_result r;
    size_t n, *pend;

    sim_resume_due(s, now);
    if (s->npend == 0)
        return;
    n = s->npend;
    pend = xcalloc(n, sizeof(*pend));
    memcpy(pend, s->pend, n * sizeof(*pend));
    sj = xcalloc(n, sizeof(*sj));
    for (size_t i = 0; i < n; i++)
        sj[i] = model_job(s, &s->jobs[pend[i]]);
    model_nodes(s);
    cl = (struct sched_cluster){.nodes = s->mnodes,
                                .nnodes = s->conf->n_nodes,
                                .parts = s->parts,
                                .nparts = s->nparts,
                                .jobs = sj,
                                .njobs = n};
    lp = model_limits(s, &cl, sj, pend, n);
    sim_holds_apply(s, &cl, sj, n);
    if (s->backfill)
        run = model_running(s);
    if (decide(s, &cl, run, now, &r) == 0) {
        apply(s, pend, &r, now);
        sim_preempt_run(s, &cl, pend, &r, now);
        sched_result_clear(&r);
    }
    limits_pass_destroy(lp);
    free(run);
    free(sj);
    free(pend);
}
