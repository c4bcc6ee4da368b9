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
    [SCHED_REASON_RESERVATION] = "Reservation",
    [SCHED_REASON_RESV_DELETED] = "ReservationDeleted",
};

const char *sched_reason_name(enum sched_reason r)
{
    if ((unsigned)r >= SCHED_REASON_COUNT)
        return "Unknown";
    return reason_names[r];
}

/*
 * The pass's order as a compact array of keys sorted in place: tier and
 * priority (both descending) packed into one word, then submit time and
 * id ascending, then the job's index (so that equal keys keep their
 * input order, as a stable sort would).  Comparing keys touches no job:
 * the sort stays in cache.  The key also carries what the pass needs to
 * pass over a job without reading it (its gate and partition), because
 * jobs read in priority order are read from all over memory.
 */
#define KEY_PART_BIG UINT16_MAX /* partition index too big for the key */

struct order_key {
    uint64_t hi;  /* ~tier << 32 | ~priority */
    uint64_t mid; /* submit time, biased so that unsigned order is signed */
    uint64_t id;
    uint32_t idx;
    uint16_t part;   /* or KEY_PART_BIG: read the job's */
    uint8_t gate;    /* enum sched_reason from gate() */
    uint8_t charges; /* it charges counters */
};

_Static_assert(sizeof(struct order_key) == SCHED_ORDER_KEY_BYTES,
               "SCHED_ORDER_KEY_BYTES");

static inline bool key_less(const struct order_key *x,
                            const struct order_key *y)
{
    if (x->hi != y->hi)
        return x->hi < y->hi;
    if (x->mid != y->mid)
        return x->mid < y->mid;
    if (x->id != y->id)
        return x->id < y->id;
    return x->idx < y->idx;
}

static void insertion_sort(struct order_key *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct order_key k = a[i];
        size_t j = i;
        while (j > 0 && key_less(&k, &a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = k;
    }
}

/* Bottom-up merge sort: runs of 16 by insertion, then merges between a
 * and tmp; returns the array that holds the result. */
static struct order_key *keys_sort(struct order_key *a, struct order_key *tmp,
                                   size_t n)
{
    const size_t run = 16;

    for (size_t i = 0; i < n; i += run)
        insertion_sort(a + i, n - i < run ? n - i : run);
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = key_less(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        struct order_key *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
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
    if (j->resv_gate != SCHED_REASON_NONE)
        return j->resv_gate;
    if (!p->start_jobs)
        return p->inactive ? SCHED_REASON_PART_INACTIVE
                           : SCHED_REASON_PART_DOWN;
    return SCHED_REASON_NONE;
}

/* The jobs of c in the pass's order (caller frees *block). */
static const struct order_key *job_order(const struct sched_cluster *c,
                                         time_t now, struct order_key **block)
{
    struct order_key *k = xcalloc(2 * (c->njobs ? c->njobs : 1), sizeof(*k));

    for (size_t i = 0; i < c->njobs; i++) {
        const struct sched_job *j = &c->jobs[i];
        k[i] = (struct order_key){
            .hi = (uint64_t)(UINT32_MAX - j->tier) << 32 |
                  (UINT32_MAX - j->priority),
            .mid = (uint64_t)(int64_t)j->submit_time ^ (UINT64_C(1) << 63),
            .id = j->id,
            .idx = (uint32_t)i,
            .part = j->part < KEY_PART_BIG ? (uint16_t)j->part : KEY_PART_BIG,
            .gate = (uint8_t)gate(c, j, now),
            .charges = j->ncharges > 0};
    }
    *block = k;
    return keys_sort(k, k + c->njobs, c->njobs);
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
    if (c->njobs > UINT32_MAX)
        return -1;
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

/* One job in the pass's order: start it or say why it waits. */
static void decide_one(struct sched_cluster *c, const struct order_key *o,
                       bool *blocked, struct sched_result *out,
                       struct sched_decision *d)
{
    const struct sched_job *j = &c->jobs[o->idx];
    size_t part = o->part != KEY_PART_BIG ? o->part : j->part;

    d->job = o->idx;
    d->reason = (enum sched_reason)o->gate;
    if (d->reason != SCHED_REASON_NONE)
        return;
    if (o->charges) {
        const struct sched_counter *full = full_counter(c, j);
        if (full != NULL) {
            d->reason = SCHED_REASON_LIMIT;
            d->limit = full->reason != NULL ? full->reason : "Limit";
            return;
        }
    }
    if (blocked[part]) { /* j itself is not read: see struct order_key */
        d->reason = SCHED_REASON_PRIORITY;
        return;
    }
    if (select_place(c, j, d) == 0) {
        charge(c, j);
        out->started++;
        return;
    }
    d->reason = why_waiting(c, j);
    /* Only a job that could start once others end holds the line. */
    if (d->reason == SCHED_REASON_RESOURCES)
        blocked[part] = true;
}

int sched_pass(struct sched_cluster *c, time_t now, struct sched_result *out)
{
    struct order_key *block;
    const struct order_key *order;
    bool *blocked;

    memset(out, 0, sizeof(*out));
    if (check_indices(c) < 0) {
        errno = EINVAL;
        return -1;
    }
    order = job_order(c, now, &block);
    blocked = xcalloc(c->nparts, sizeof(*blocked));
    out->decisions = xcalloc(c->njobs, sizeof(*out->decisions));
    out->n = c->njobs;
    for (size_t k = 0; k < c->njobs; k++)
        decide_one(c, &order[k], blocked, out, &out->decisions[k]);
    free(blocked);
    free(block);
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
