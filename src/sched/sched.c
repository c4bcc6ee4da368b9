/*
 * The main pass: jobs in order of partition tier, priority, submit time
 * and id, each on
 * nodes of its partition with enough free CPUs, memory and GPUs, chosen by
 * select.c (best fit, GPUs linked where possible).  A job
 * that cannot start blocks the jobs behind it in the same partition, as
 * Slurm's sched/builtin does, so that big jobs are not starved by small
 * ones; backfill will relax this later.
 */
#include "sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/select.h"

static const char *const reason_names[SCHED_REASON_COUNT] = {
    [SCHED_REASON_NONE] = "None",
    [SCHED_REASON_PRIORITY] = "Priority",
    [SCHED_REASON_RESOURCES] = "Resources",
    [SCHED_REASON_HELD_USER] = "JobHeldUser",
    [SCHED_REASON_HELD_ADMIN] = "JobHeldAdmin",
    [SCHED_REASON_BEGIN_TIME] = "BeginTime",
    [SCHED_REASON_PART_DOWN] = "PartitionDown",
    [SCHED_REASON_PART_INACTIVE] = "PartitionInactive",
    [SCHED_REASON_NODE_DOWN] = "NodeDown",
    [SCHED_REASON_PART_NODE_LIMIT] = "PartitionNodeLimit",
    [SCHED_REASON_NEVER_FITS] = "Resources",
    /* the decision's limit carries the real name */
    [SCHED_REASON_LIMIT] = "Limit",
};

const char *sched_reason_name(enum sched_reason r)
{
    if ((unsigned)r >= SCHED_REASON_COUNT)
        return "Unknown";
    return reason_names[r];
}

static int job_order(const void *a, const void *b, void *arg)
{
    const struct sched_job *jobs = arg;
    const struct sched_job *x = &jobs[*(const size_t *)a];
    const struct sched_job *y = &jobs[*(const size_t *)b];

    if (x->tier != y->tier)
        return x->tier > y->tier ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit_time != y->submit_time)
        return x->submit_time < y->submit_time ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return 0;
}

static bool node_allowed(const struct sched_job *j, size_t idx)
{
    return j->node_allowed == NULL || j->node_allowed[idx];
}

/* Why j, not startable, waits: the most specific reason that holds. */
static enum sched_reason why_waiting(const struct sched_cluster *c,
                                     const struct sched_job *j)
{
    const struct sched_part *p = &c->parts[j->part];
    size_t fit_ever = 0, fit_up = 0;

    for (size_t i = 0; i < p->nnodes; i++) {
        const struct sched_node *n = &c->nodes[p->nodes[i]];
        if (!node_allowed(j, p->nodes[i]) || !select_fits_ever(n, j))
            continue;
        fit_ever++;
        if (n->up && !n->drain)
            fit_up++;
    }
    if (p->nnodes < j->nodes)
        return SCHED_REASON_PART_NODE_LIMIT;
    if (fit_ever < j->nodes)
        return SCHED_REASON_NEVER_FITS;
    if (fit_up < j->nodes)
        return SCHED_REASON_NODE_DOWN;
    return SCHED_REASON_RESOURCES;
}

static int check_indices(const struct sched_cluster *c)
{
    for (size_t i = 0; i < c->njobs; i++) {
        const struct sched_job *j = &c->jobs[i];
        if (j->part >= c->nparts || j->nodes == 0)
            return -1;
        if (j->ncharges > 0 && j->charges == NULL)
            return -1;
        for (size_t k = 0; k < j->ncharges; k++)
            if (j->charges[k].counter >= c->ncounters)
                return -1;
    }
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].ngpus > SCHED_GPU_MAX ||
            (c->nodes[i].ngpus > 0 && c->nodes[i].gpu_used == NULL))
            return -1;
    for (size_t i = 0; i < c->nparts; i++)
        for (size_t k = 0; k < c->parts[i].nnodes; k++)
            if (c->parts[i].nodes[k] >= c->nnodes)
                return -1;
    return 0;
}

static enum sched_reason gate(const struct sched_cluster *c,
                              const struct sched_job *j, time_t now)
{
    const struct sched_part *p = &c->parts[j->part];

    if (j->held_admin)
        return SCHED_REASON_HELD_ADMIN;
    if (j->held_user)
        return SCHED_REASON_HELD_USER;
    if (j->begin_time > now)
        return SCHED_REASON_BEGIN_TIME;
    if (!p->start_jobs)
        return p->inactive ? SCHED_REASON_PART_INACTIVE
                           : SCHED_REASON_PART_DOWN;
    return SCHED_REASON_NONE;
}

/* The first counter j charges that has no room for it, or NULL. */
static const struct sched_counter *full_counter(const struct sched_cluster *c,
                                                const struct sched_job *j)
{
    for (size_t k = 0; k < j->ncharges; k++) {
        const struct sched_counter *n = &c->counters[j->charges[k].counter];
        if (n->used > n->capacity ||
            j->charges[k].amount > n->capacity - n->used)
            return n;
    }
    return NULL;
}

static void charge(struct sched_cluster *c, const struct sched_job *j)
{
    for (size_t k = 0; k < j->ncharges; k++)
        c->counters[j->charges[k].counter].used += j->charges[k].amount;
}

int sched_pass(struct sched_cluster *c, time_t now, struct sched_result *out)
{
    size_t *order;
    bool *blocked;

    memset(out, 0, sizeof(*out));
    if (check_indices(c) < 0) {
        errno = EINVAL;
        return -1;
    }
    order = xcalloc(c->njobs, sizeof(*order));
    for (size_t i = 0; i < c->njobs; i++)
        order[i] = i;
    qsort_r(order, c->njobs, sizeof(*order), job_order, (void *)c->jobs);

    blocked = xcalloc(c->nparts, sizeof(*blocked));
    out->decisions = xcalloc(c->njobs, sizeof(*out->decisions));
    out->n = c->njobs;
    for (size_t k = 0; k < c->njobs; k++) {
        const struct sched_job *j = &c->jobs[order[k]];
        struct sched_decision *d = &out->decisions[k];

        d->job = order[k];
        d->reason = gate(c, j, now);
        if (d->reason != SCHED_REASON_NONE)
            continue;
        const struct sched_counter *full = full_counter(c, j);
        if (full != NULL) {
            d->reason = SCHED_REASON_LIMIT;
            d->limit = full->reason != NULL ? full->reason : "Limit";
            continue;
        }
        if (blocked[j->part]) {
            d->reason = SCHED_REASON_PRIORITY;
            continue;
        }
        if (select_place(c, j, d) == 0) {
            charge(c, j);
            out->started++;
            continue;
        }
        d->reason = why_waiting(c, j);
        /* Only a job that could start once others end holds the line. */
        if (d->reason == SCHED_REASON_RESOURCES)
            blocked[j->part] = true;
    }
    free(blocked);
    free(order);
    return 0;
}

void sched_result_clear(struct sched_result *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->decisions[i].nodes);
        free(r->decisions[i].gpus);
    }
    free(r->decisions);
    memset(r, 0, sizeof(*r));
}

bool sched_counters_room(const struct sched_cluster *c,
                         const struct sched_job *j)
{
    return full_counter(c, j) == NULL;
}

void sched_counters_charge(struct sched_cluster *c, const struct sched_job *j)
{
    charge(c, j);
}
