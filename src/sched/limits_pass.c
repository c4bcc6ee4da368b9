/*
 * The run-time side of the limit engine: for one scheduling pass, the
 * counters (sched.h) of every run-time limit a pending job is under, with
 * what running jobs hold now, and each job's charges against them.  Jobs
 * that share a limit share its counter, so the pass cannot start two jobs
 * into its last unit.  docs/limits.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/limits_int.h"

/* Who a counter stands for, for people: pre a mid b ("user " "li" " in "
 * "dev_qos"; pre and mid static, a and b borrowed for the pass; pre NULL:
 * nobody), counting jobs (tres -1) or a TRES. */
struct lim_desc {
    const char *pre, *a, *mid, *b;
    int tres;
};

struct limits_pass {
    struct limits_usage *u;
    uint64_t gen; /* entries' slot[] are this pass's when pass_gen == gen */
    struct sched_counter *counters;
    struct lim_desc *descs; /* one per counter */
    size_t ncounters, capcounters;
    struct sched_charge *charges;
    size_t ncharges, capcharges;
};

struct limits_pass *limits_pass_create(struct limits_usage *u)
{
    struct limits_pass *p = xcalloc(1, sizeof(*p));

    p->u = u;
    p->gen = lim_next_pass(u);
    return p;
}

void limits_pass_destroy(struct limits_pass *p)
{
    if (p == NULL)
        return;
    free(p->counters);
    free(p->descs);
    free(p->charges);
    free(p);
}

static size_t new_counter(struct limits_pass *p, uint64_t capacity,
                          uint64_t used, const char *reason,
                          const struct lim_desc *d)
{
    if (p->ncounters == p->capcounters) {
        p->capcounters = p->capcounters ? 2 * p->capcounters : 64;
        p->counters =
            xreallocarray(p->counters, p->capcounters, sizeof(*p->counters));
        p->descs = xreallocarray(p->descs, p->capcounters, sizeof(*p->descs));
    }
    p->counters[p->ncounters] = (struct sched_counter){capacity, used, reason};
    p->descs[p->ncounters] = *d;
    return p->ncounters++;
}

static void add_charge(struct limits_pass *p, size_t counter, uint64_t amount)
{
    if (p->ncharges == p->capcharges) {
        p->capcharges = p->capcharges ? 2 * p->capcharges : 256;
        p->charges =
            xreallocarray(p->charges, p->capcharges, sizeof(*p->charges));
    }
    p->charges[p->ncharges++] = (struct sched_charge){counter, amount};
}

/* Charge amount to slot s of entry e, its counter made on first use in
 * this pass with capacity max and what e holds now. */
static void charge(struct limits_pass *p, struct lim_entry *e, size_t s,
                   uint64_t max, uint64_t amount, const char *reason,
                   const struct lim_desc *d)
{
    if (e->pass_gen != p->gen) {
        e->pass_gen = p->gen;
        for (size_t k = 0; k < SLOT_COUNT; k++)
            e->slot[k] = SIZE_MAX;
    }
    if (e->slot[s] == SIZE_MAX) {
        uint64_t used = s < SLOT_TRES0 ? e->running : e->tres[s - SLOT_TRES0];
        e->slot[s] = new_counter(p, max, used, reason, d);
    }
    add_charge(p, e->slot[s], amount);
}

/* A per-job limit j can never meet: a counter without capacity. */
static void never(struct limits_pass *p, const char *reason)
{
    size_t k;

    for (k = 0; k < p->ncounters; k++)
        if (p->counters[k].capacity == 0 && p->counters[k].reason == reason)
            break;
    if (k == p->ncounters)
        k = new_counter(p, 0, 0, reason,
                        &(struct lim_desc){NULL, NULL, NULL, NULL, -1});
    add_charge(p, k, 1);
}

/* The entry a level's limit w counts against. */
static struct lim_entry *entry(struct limits_pass *p,
                               const struct limits_job *j, size_t i,
                               enum lim_what w)
{
    const struct limits_level *l = &j->levels[i];
    int ua = lim_user_assoc(j);

    if (l->kind == LIMITS_ASSOC) {
        /* Max* limits count the user's own association */
        if (w != W_GRP_JOBS && w != W_GRP_TRES && ua >= 0)
            l = &j->levels[ua];
        return lim_get(p->u, ENT_ASSOC, lim_assoc_key(l), NULL);
    }
    if (w == W_MAX_JOBS_PU || w == W_TRES_PU)
        return lim_get(p->u, ENT_QOS_USER, l->name, j->user);
    if (w == W_MAX_JOBS_PA)
        return lim_get(p->u, ENT_QOS_ACCT, l->name, j->account);
    return lim_get(p->u, ENT_QOS, l->name, NULL);
}

/* Who limit w of level i counts, as entry() chose it. */
static struct lim_desc describe(const struct limits_job *j, size_t i,
                                enum lim_what w, bool jobs, int t)
{
    const struct limits_level *l = &j->levels[i];
    int ua = lim_user_assoc(j);
    int tres = jobs ? -1 : t;

    if (l->kind == LIMITS_ASSOC) {
        if (w != W_GRP_JOBS && w != W_GRP_TRES && ua >= 0)
            return (struct lim_desc){"user ", j->user, " in account ",
                                     j->levels[ua].name, tres};
        return (struct lim_desc){"account ", l->name, NULL, NULL, tres};
    }
    if (w == W_MAX_JOBS_PU || w == W_TRES_PU)
        return (struct lim_desc){"user ", j->user, " in ", l->name, tres};
    if (w == W_MAX_JOBS_PA)
        return (struct lim_desc){"account ", j->account, " in ", l->name, tres};
    return (struct lim_desc){"", l->name, NULL, NULL, tres};
}

static void charge_limit(struct limits_pass *p, const struct limits_job *j,
                         size_t i, enum lim_what w, int t)
{
    const struct limits_level *l = &j->levels[i];
    uint64_t max = lim_level_value(l, w, t);
    bool jobs = w == W_MAX_JOBS_PU || w == W_MAX_JOBS_PA || w == W_GRP_JOBS;
    size_t s = jobs ? (w == W_GRP_JOBS ? SLOT_JOBS_GRP : SLOT_JOBS_MAX)
                    : SLOT_TRES0 + (size_t)t;
    struct lim_desc d = describe(j, i, w, jobs, t);

    charge(p, entry(p, j, i, w), s, max, jobs ? 1 : j->tres[t],
           lim_reason(l->kind, w, t), &d);
}

static void pass_tres(struct limits_pass *p, const struct limits_job *j, int t)
{
    int i;

    if (j->tres[t] == 0)
        return;
    if ((i = lim_decide(j, W_TRES_PJ, t)) >= 0 &&
        j->tres[t] > lim_level_value(&j->levels[i], W_TRES_PJ, t))
        never(p, lim_reason(j->levels[i].kind, W_TRES_PJ, t));
    if ((i = lim_decide(j, W_TRES_PU, t)) >= 0)
        charge_limit(p, j, (size_t)i, W_TRES_PU, t);
    for (size_t l = 0; l < j->nlevels; l++)
        if (lim_grp_applies(j, l, W_GRP_TRES, t))
            charge_limit(p, j, l, W_GRP_TRES, t);
}

void limits_pass_job(struct limits_pass *p, const struct limits_job *j,
                     size_t *first, size_t *n)
{
    int i;

    *first = p->ncharges;
    if (j->nlevels <= LIMITS_LEVEL_MAX) {
        if ((i = lim_decide(j, W_MAX_WALL, 0)) >= 0 &&
            (j->wall_s == LIMITS_UNSET ||
             j->wall_s > j->levels[i].lim->max_wall_s))
            never(p, lim_reason(j->levels[i].kind, W_MAX_WALL, 0));
        if ((i = lim_decide(j, W_MAX_JOBS_PU, 0)) >= 0)
            charge_limit(p, j, (size_t)i, W_MAX_JOBS_PU, 0);
        if ((i = lim_decide(j, W_MAX_JOBS_PA, 0)) >= 0)
            charge_limit(p, j, (size_t)i, W_MAX_JOBS_PA, 0);
        for (size_t l = 0; l < j->nlevels; l++)
            if (lim_grp_applies(j, l, W_GRP_JOBS, 0))
                charge_limit(p, j, l, W_GRP_JOBS, 0);
        for (int t = 0; t < LIMITS_TRES_COUNT; t++)
            pass_tres(p, j, t);
    }
    *n = p->ncharges - *first;
}

const struct sched_charge *limits_pass_charges(const struct limits_pass *p)
{
    return p->charges;
}

struct sched_counter *limits_pass_counters(struct limits_pass *p, size_t *n)
{
    *n = p->ncounters;
    return p->counters;
}

void limits_pass_describe(const struct limits_pass *p, size_t k, char *buf,
                          size_t len)
{
    const struct lim_desc *d;
    const struct sched_counter *c;
    char who[160];

    if (len > 0)
        buf[0] = '\0';
    if (k >= p->ncounters || p->descs[k].pre == NULL)
        return;
    d = &p->descs[k];
    c = &p->counters[k];
    snprintf(who, sizeof(who), "%s%s%s%s", d->pre, d->a ? d->a : "",
             d->mid ? d->mid : "", d->b ? d->b : "");
    if (d->tres < 0)
        snprintf(buf, len, "%s has %" PRIu64 "/%" PRIu64 " jobs running", who,
                 c->used, c->capacity);
    else
        snprintf(buf, len, "%s has %s=%" PRIu64 "/%" PRIu64 " in use", who,
                 limits_tres_name((enum limits_tres)d->tres), c->used,
                 c->capacity);
}
