/*
 * Priorities, fair-share usage and limit chains in the simulator, as
 * ctld/sched/prio_drv.c, prio_usage.c and ctld/policy/jlimits.c,
 * jchain.c keep them: a job's priority computed when it is submitted or
 * requeued and every PriorityCalcPeriod; usage charged when a job ends
 * and every period, decayed, reset; the fair-share tree recomputed every
 * period.
 */
#include "sim/sim_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The fair-share tree of the associations (prio_tree_build). */
static void tree_refresh(struct sim *s)
{
    const struct sim_acct *a = s->acct;

    s->fs = xreallocarray(s->fs, a->nassoc ? a->nassoc : 1, sizeof(*s->fs));
    s->usage =
        xrealloc(s->usage, (a->nassoc ? a->nassoc : 1) * sizeof(*s->usage));
    for (size_t i = 0; i < a->nassoc; i++) {
        const struct sim_assoc *as = &a->assoc[i];
        s->fs[i] = (struct fs_assoc){
            .name = as->user ? as->user : as->account,
            .parent = as->parent == SIM_NO_PARENT ? FS_NO_PARENT : as->parent,
            .is_user = as->user != NULL,
            .shares_raw = sim_acct_shares(a, i),
            .usage_raw = as->user ? s->usage[i] : 0,
        };
    }
    if (a->nassoc > 0 && fs_compute(s->fs, a->nassoc, s->ps.fair_tree) < 0)
        for (size_t i = 0; i < a->nassoc; i++)
            s->fs[i].factor = 0;
}

int sim_prio_init(struct sim *s, struct err *e)
{
    if (prio_setup_init(&s->ps, s->conf, e) < 0)
        return -1;
    s->ps.norm.max_qos_prio = sim_acct_max_qos_prio(s->acct);
    s->usage =
        xcalloc(s->acct->nassoc ? s->acct->nassoc : 1, sizeof(*s->usage));
    if (s->ps.reset == FS_RESET_NOW)
        s->ps.reset = FS_RESET_NONE; /* a new run has no usage to reset */
    tree_refresh(s);
    return 0;
}

void sim_prio_free(struct sim *s)
{
    prio_setup_free(&s->ps);
    free(s->fs);
    free(s->usage);
}

static struct prio_setup_req req_of(const struct sjob *j, uint32_t nodes)
{
    return (struct prio_setup_req){
        .part = j->part,
        .nodes = nodes,
        .cpus_per_node = j->in->cpus_per_node,
        .mem_per_node_mib = j->in->mem_per_node_mib,
        .gpus_per_node = j->in->gpus_per_node,
        .time_limit_s = j->limit_s,
    };
}

void sim_prio_job(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];
    struct prio_setup_req r = req_of(j, j->in->nodes);
    struct prio_job pj;

    prio_setup_job(&s->ps, &r, &pj);
    pj.age_s = prio_accrue_age_s(&j->acc, now);
    pj.since_submit_s = now > j->in->submit ? now - j->in->submit : 0;
    pj.qos_prio = j->qos != SIZE_MAX ? s->acct->qos[j->qos].priority : 0;
    pj.fairshare = s->fs[j->assoc].factor;
    j->priority = prio_compute(&s->ps.pc, &s->ps.norm, &pj, NULL);
}

/* Usage of k's allocation from `from` to `to` onto its association. */
static void charge(struct sim *s, size_t k, time_t from, time_t to)
{
    struct sjob *j = &s->jobs[k];
    struct prio_setup_req r = req_of(j, (uint32_t)j->nalloc);
    double f = j->qos != SIZE_MAX ? s->acct->qos[j->qos].usage_factor : 1.0;

    s->usage[j->assoc] += prio_setup_charge(&s->ps, &r, f, from, to);
}

void sim_prio_ended(struct sim *s, size_t k, time_t end)
{
    struct sjob *j = &s->jobs[k];

    charge(s, k, j->start > s->last_calc ? j->start : s->last_calc, end);
}

void sim_prio_refresh(struct sim *s, time_t now)
{
    if (now > s->last_calc) {
        for (size_t i = 0; i < s->acct->nassoc; i++)
            s->usage[i] = fs_decay(s->usage[i], (double)(now - s->last_calc),
                                   s->ps.half_life_s);
        for (size_t r = 0; r < s->nrun; r++) {
            struct sjob *j = &s->jobs[s->run[r]];
            if (j->st == SJ_RUNNING)
                charge(s, s->run[r],
                       j->start > s->last_calc ? j->start : s->last_calc, now);
        }
        s->last_calc = now;
    }
    if (s->ps.reset != FS_RESET_NONE) {
        if (s->next_reset != 0 && now >= s->next_reset)
            memset(s->usage, 0, s->acct->nassoc * sizeof(*s->usage));
        if (s->next_reset == 0 || now >= s->next_reset)
            s->next_reset = fs_reset_next(s->ps.reset, now);
    }
    tree_refresh(s);
    /* the jobs a pass can start: a parked job's priority is never read
     * (the pass leaves it out), and a walk over every job of a month's
     * trace every period was most of a light replay's time */
    for (size_t i = 0; i < s->npend; i++)
        sim_prio_job(s, s->pend[i], now);
}

/* ---- limits ------------------------------------------------------------------ */

static const struct limits_level *qos_level(struct sim *s, size_t q)
{
    struct sim_qos *sq = &s->acct->qos[q];

    sq->level = (struct limits_level){
        .kind = LIMITS_QOS, .name = sq->name, .key = NULL, .lim = &sq->lim};
    return &sq->level;
}

void sim_limits_chain(struct sim *s, struct sjob *j)
{
    struct limits_level assocs[LIMITS_LEVEL_MAX], all[LIMITS_LEVEL_MAX];
    const struct limits_level *pq = NULL, *jq = NULL;
    const char *pqn = s->conf->parts[j->part].qos;
    size_t na = 0, q;
    bool over = false;
    int n;

    if (pqn[0] != '\0' && (q = sim_acct_qos(s->acct, pqn)) != SIZE_MAX)
        pq = qos_level(s, q);
    if (j->qos != SIZE_MAX) {
        jq = qos_level(s, j->qos);
        over = s->acct->qos[j->qos].flags & SIM_QOS_OVER_PART_QOS;
        j->deny = s->acct->qos[j->qos].flags & SIM_QOS_DENY_ON_LIMIT;
    }
    if (pq != NULL && (s->acct->qos[q].flags & SIM_QOS_DENY_ON_LIMIT))
        j->deny = true;
    for (size_t as = j->assoc; as != SIM_NO_PARENT && na < LIMITS_LEVEL_MAX - 2;
         as = s->acct->assoc[as].parent) {
        const struct sim_assoc *a = &s->acct->assoc[as];
        assocs[na++] = (struct limits_level){.kind = LIMITS_ASSOC,
                                             .name = a->account,
                                             .key = a->key,
                                             .lim = &a->lim};
    }
    n = limits_chain(all, pq, jq, over, assocs, na);
    j->nlv = n > 0
                 ? limits_levels_enforced(all, (size_t)n, s->enforce_qos, j->lv)
                 : 0;
}

void sim_limits_view(const struct sim *s, const struct sjob *j,
                     struct limits_job *v)
{
    const struct sim_job_in *in = j->in;

    memset(v, 0, sizeof(*v));
    v->user = in->user;
    v->account = s->acct->assoc[j->assoc].account;
    v->tres[LIMITS_TRES_CPU] = (uint64_t)in->cpus_per_node * in->nodes;
    v->tres[LIMITS_TRES_MEM] = in->mem_per_node_mib * in->nodes;
    v->tres[LIMITS_TRES_NODE] = in->nodes;
    v->tres[LIMITS_TRES_BILLING] = v->tres[LIMITS_TRES_CPU];
    v->tres[LIMITS_TRES_GPU] = (uint64_t)in->gpus_per_node * in->nodes;
    v->wall_s = j->limit_s > 0 ? (uint64_t)j->limit_s : LIMITS_UNSET;
    v->deny_on_limit = j->deny && s->enforce_qos;
    v->levels = j->lv;
    v->nlevels = j->nlv;
}
