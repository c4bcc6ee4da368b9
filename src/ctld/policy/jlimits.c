/*
 * The controller's side of the limit engine: a job's view (its TRES, time
 * limit and chain of limit sets) handed to sched/limits, its charge kept
 * with it from submission to end, and the counters of each pass.
 */
#include "ctld/policy/jlimits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

struct jlimits {
    bool enforce;     /* AccountingStorageEnforce has limits (or safe) */
    bool enforce_qos; /* ... and qos */
    jlimits_chain_fn chain;
    void *chain_arg;
    struct limits_usage *usage;
    struct limits_pass *pass;
    /* between jlimits_pass_finish and _end: the pass's model */
    const struct sched_cluster *cl;
    const struct sched_job *jobs;
};

struct jlimits *jlimits_create(const char *enforce)
{
    struct jlimits *l = xcalloc(1, sizeof(*l));

    limits_enforce_parse(enforce, &l->enforce, &l->enforce_qos);
    l->usage = limits_usage_create();
    return l;
}

void jlimits_destroy(struct jlimits *l)
{
    if (l == NULL)
        return;
    limits_pass_destroy(l->pass);
    limits_usage_destroy(l->usage);
    free(l);
}

void jlimits_set_chain(struct jlimits *l, jlimits_chain_fn fn, void *arg)
{
    l->chain = fn;
    l->chain_arg = arg;
}

bool jlimits_enforced(const struct jlimits *l)
{
    return l->enforce && l->chain != NULL;
}

/* j as the engine sees it; lv receives the chain.  -1 with e when the
 * chain cannot be built. */
static int view(struct jlimits *l, const struct job *j, struct limits_level *lv,
                struct limits_job *out, struct err *e)
{
    struct limits_level all[LIMITS_LEVEL_MAX];
    bool deny = false;
    int n = l->chain(l->chain_arg, j, all, &deny, e);
    size_t k;

    if (n < 0)
        return -1;
    /* without "qos" in AccountingStorageEnforce, QOS limits are not
     * enforced; the associations' are */
    k = limits_levels_enforced(all, (size_t)n, l->enforce_qos, lv);
    memset(out, 0, sizeof(*out));
    out->user = j->user_name;
    out->account = j->account != NULL ? j->account : "";
    out->tres[LIMITS_TRES_CPU] = (uint64_t)j->cpus_per_node * j->nodes;
    out->tres[LIMITS_TRES_MEM] = job_mem_per_node(j) * j->nodes;
    out->tres[LIMITS_TRES_NODE] = j->nodes;
    out->tres[LIMITS_TRES_BILLING] = out->tres[LIMITS_TRES_CPU];
    out->tres[LIMITS_TRES_GPU] = (uint64_t)j->gpus_per_node * j->nodes;
    out->wall_s = j->time_limit_s == TIMEFMT_INFINITE
                      ? LIMITS_UNSET
                      : (uint64_t)j->time_limit_s;
    out->deny_on_limit = deny && l->enforce_qos;
    out->levels = lv;
    out->nlevels = k;
    return 0;
}

int jlimits_submit_check(struct jlimits *l, struct job *j, struct err *e)
{
    struct limits_level lv[LIMITS_LEVEL_MAX];
    struct limits_job v;
    const char *reason;
    uint64_t wall;

    if (!jlimits_enforced(l))
        return 0;
    if (view(l, j, lv, &v, e) < 0)
        return -1;
    wall = limits_max_wall(&v);
    if (j->time_limit_s == TIMEFMT_INFINITE && wall != LIMITS_UNSET) {
        j->time_limit_s = (int64_t)wall;
        v.wall_s = wall;
    }
    return limits_check_submit(l->usage, &v, &reason, e);
}

void jlimits_job_added(struct jlimits *l, struct job *j)
{
    struct limits_level lv[LIMITS_LEVEL_MAX];
    struct limits_job v;
    struct err e;

    if (!jlimits_enforced(l) || j->lim_charge != NULL)
        return;
    if (view(l, j, lv, &v, &e) < 0) {
        log_warnx("job=%" PRIu64 " not counted for limits: %s", j->id, e.text);
        return;
    }
    j->lim_charge = limits_charge_create(l->usage, &v);
    if (job_on_node(j->state))
        jlimits_job_started(l, j);
}

void jlimits_job_started(struct jlimits *l, struct job *j)
{
    (void)l;
    if (j->lim_charge != NULL)
        limits_charge_start(j->lim_charge);
}

void jlimits_job_stopped(struct jlimits *l, struct job *j)
{
    (void)l;
    if (j->lim_charge != NULL)
        limits_charge_stop(j->lim_charge);
}

void jlimits_job_ended(struct jlimits *l, struct job *j)
{
    (void)l;
    limits_charge_destroy(j->lim_charge);
    j->lim_charge = NULL;
}

void jlimits_pass_begin(struct jlimits *l)
{
    l->cl = NULL;
    l->jobs = NULL;
    limits_pass_destroy(l->pass);
    l->pass = jlimits_enforced(l) ? limits_pass_create(l->usage) : NULL;
}

void jlimits_pass_job(struct jlimits *l, const struct job *j, size_t *first,
                      size_t *n)
{
    struct limits_level lv[LIMITS_LEVEL_MAX];
    struct limits_job v;
    struct err e;

    *first = 0;
    *n = 0;
    if (l->pass == NULL)
        return;
    if (view(l, j, lv, &v, &e) < 0) {
        log_debug("job=%" PRIu64 " no limits this pass: %s", j->id, e.text);
        return;
    }
    limits_pass_job(l->pass, &v, first, n);
}

void jlimits_pass_finish(struct jlimits *l, struct sched_cluster *c,
                         struct sched_job *jobs, const size_t *first,
                         const size_t *n)
{
    const struct sched_charge *ch;

    if (l->pass == NULL)
        return;
    ch = limits_pass_charges(l->pass);
    c->counters = limits_pass_counters(l->pass, &c->ncounters);
    l->cl = c;
    l->jobs = jobs;
    for (size_t i = 0; i < c->njobs; i++) {
        jobs[i].charges = n[i] > 0 ? ch + first[i] : NULL;
        jobs[i].ncharges = n[i];
    }
}

void jlimits_hold(struct jlimits *l, struct job *j, size_t i,
                  const char *reason)
{
    char what[256], *detail;

    job_set_reason(j, reason);
    if (l->pass == NULL || l->jobs == NULL || i >= l->cl->njobs)
        return;
    /* the full counter of that reason among the job's charges */
    for (size_t k = 0; k < l->jobs[i].ncharges; k++) {
        const struct sched_charge *ch = &l->jobs[i].charges[k];
        const struct sched_counter *c = &l->cl->counters[ch->counter];
        if (c->reason != reason || c->used + ch->amount <= c->capacity)
            continue;
        limits_pass_describe(l->pass, ch->counter, what, sizeof(what));
        if (what[0] == '\0')
            return;
        detail = xasprintf("%s; %s", reason, what);
        job_set_reason_detail(j, detail);
        free(detail);
        return;
    }
}

void jlimits_pass_end(struct jlimits *l)
{
    limits_pass_destroy(l->pass);
    l->pass = NULL;
    l->cl = NULL;
    l->jobs = NULL;
}
