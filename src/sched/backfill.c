/*
 * Backfill cycles over the availability profile (bf_profile.c).  A job may
 * start now only if its whole time limit fits the profile, which already
 * holds every reservation: so it delays none.  The cycle keeps the
 * profile, its queue and its tables between slices; a fingerprint of the
 * nodes and running jobs tells when they went stale.
 */
#include "sched/backfill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/bf_profile.h"
#include "sched/select.h"

/* Distinct start times tried for a multi-node reservation. */
#define BF_MAX_CANDIDATES 64

/* A job of the cycle's queue: its id, where it was in c->jobs, and why
 * the main pass left it waiting. */
struct bf_cand {
    uint64_t id;
    size_t idx;
    enum sched_reason reason;
};

/* A job's shape, for "the same shape already failed to start now". */
struct bf_shape {
    size_t part;
    uint32_t nodes, cpus, gpus;
    uint64_t mem;
    int64_t limit;
    bool used;
};

/* Shapes whose earliest starts are kept. */
#define BF_WHEN_CACHE 32

/* The earliest start of a shape on each node of its partition. */
struct bf_when {
    struct bf_shape shape; /* shape.used: the entry holds one */
    time_t now;            /* computed from */
    uint64_t stamp;        /* up to date with changes up to this epoch */
    time_t *when;          /* per partition node; -1: not in the window */
    size_t cap;
};

/* Open-addressing table of uint64 keys (0: empty) with a value each. */
struct bf_map {
    uint64_t *key;
    size_t *val;
    size_t cap, n;
};

struct sched_bf_cycle {
    bool busy;
    time_t begin;
    struct bf_profile prof;
    struct bf_cand *q;
    size_t nq, pos;
    struct bf_cand *resv; /* the jobs holding a reservation */
    size_t nresv, resv_cap;
    struct bf_map users; /* uid + 1 -> jobs examined */
    struct bf_shape *shape;
    size_t shape_cap, nshape;
    struct bf_map ids; /* id + 1 -> index in c->jobs, per slice */
    bool ids_built;
    /* what the next slice must find: the nodes, and the running jobs as
     * at the cycle's begin (fp_base) or with its own starts (fp_run) */
    uint64_t fp_nodes, fp_base, fp_run;
    bool *mask;   /* per node, for select_place; all false */
    time_t *when; /* per partition node: earliest start */
    size_t *pick;
    size_t nodes_cap, part_cap;
    size_t examined, reserved; /* the cycle so far */
    /* Earliest starts per shape, kept between jobs of that shape: only
     * nodes whose profile changed since (stamp > the entry's) are
     * recomputed.  Reservations at 10,000 nodes read 10,000 profiles
     * otherwise. */
    uint64_t epoch;  /* profile changes so far */
    uint64_t *stamp; /* per node: the epoch of its last change */
    struct bf_when wc[BF_WHEN_CACHE];
    size_t wc_next; /* the entry to reuse when all are taken */
};

/* ---- small hash tables ------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

static void map_clear(struct bf_map *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof(*m));
}

static size_t *map_slot(struct bf_map *m, uint64_t key, bool add);

static void map_grow(struct bf_map *m)
{
    struct bf_map old = *m;

    m->cap = old.cap ? 2 * old.cap : 64;
    m->key = xcalloc(m->cap, sizeof(*m->key));
    m->val = xcalloc(m->cap, sizeof(*m->val));
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.key[i] != 0)
            *map_slot(m, old.key[i], true) = old.val[i];
    free(old.key);
    free(old.val);
}

/* The value of key (!= 0); with add, a new key gets a zero value.
 * NULL when absent and !add. */
static size_t *map_slot(struct bf_map *m, uint64_t key, bool add)
{
    size_t i;

    if (add && 2 * (m->n + 1) > m->cap)
        map_grow(m);
    if (m->cap == 0)
        return NULL;
    i = mix(key) & (m->cap - 1);
    while (m->key[i] != 0 && m->key[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (m->key[i] == 0) {
        if (!add)
            return NULL;
        m->key[i] = key;
        m->val[i] = 0;
        m->n++;
    }
    return &m->val[i];
}

static struct bf_shape shape_of(const struct sched_job *j)
{
    return (struct bf_shape){j->part,
                             j->nodes,
                             j->cpus_per_node,
                             j->gpus_per_node,
                             j->mem_per_node_mib,
                             j->time_limit_s,
                             true};
}

static bool shape_eq(const struct bf_shape *x, const struct bf_shape *y)
{
    return x->part == y->part && x->nodes == y->nodes && x->cpus == y->cpus &&
           x->mem == y->mem && x->gpus == y->gpus && x->limit == y->limit;
}

static uint64_t shape_hash(const struct bf_shape *s)
{
    return mix(((uint64_t)s->part << 40) ^ ((uint64_t)s->nodes << 32) ^
               s->cpus ^ mix(s->mem) ^ ((uint64_t)s->gpus << 20) ^
               mix((uint64_t)s->limit));
}

static bool plain(const struct sched_job *j)
{
    return j->node_allowed == NULL && j->ncharges == 0 && !j->exclusive_node &&
           j->constraint == NULL && j->time_min_s == 0 &&
           (j->gpu_type == NULL || j->gpu_type[0] == '\0');
}

static void shape_insert(struct sched_bf_cycle *cy, const struct bf_shape *s);

static void shape_grow(struct sched_bf_cycle *cy)
{
    struct bf_shape *old = cy->shape;
    size_t oldcap = cy->shape_cap;

    cy->shape_cap = oldcap ? 2 * oldcap : 64;
    cy->shape = xcalloc(cy->shape_cap, sizeof(*cy->shape));
    cy->nshape = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            shape_insert(cy, &old[i]);
    free(old);
}

static void shape_insert(struct sched_bf_cycle *cy, const struct bf_shape *s)
{
    size_t i;

    if (2 * (cy->nshape + 1) > cy->shape_cap)
        shape_grow(cy);
    i = shape_hash(s) & (cy->shape_cap - 1);
    while (cy->shape[i].used && !shape_eq(&cy->shape[i], s))
        i = (i + 1) & (cy->shape_cap - 1);
    if (!cy->shape[i].used)
        cy->nshape++;
    cy->shape[i] = *s;
}

/* Has a job of j's shape already failed to start now in this cycle? */
static bool shape_failed(const struct sched_bf_cycle *cy,
                         const struct sched_job *j)
{
    struct bf_shape s = shape_of(j);
    size_t i;

    if (!plain(j) || cy->shape_cap == 0)
        return false;
    i = shape_hash(&s) & (cy->shape_cap - 1);
    while (cy->shape[i].used) {
        if (shape_eq(&cy->shape[i], &s))
            return true;
        i = (i + 1) & (cy->shape_cap - 1);
    }
    return false;
}

/* ---- the fingerprint of the profile's inputs ---------------------------- */

static uint64_t fp_node(const struct sched_node *n)
{
    uint64_t h = mix(n->cpus_alloc ^ ((uint64_t)n->cpus << 32));

    h = mix(h ^ n->mem_alloc_mib) ^ mix(n->mem_mib + 1);
    h = mix(h ^ ((uint64_t)n->up << 1 | n->drain) ^ (uint64_t)n->ngpus << 8 ^
            (uint64_t)n->users << 24 ^ (uint64_t)n->user_exclusive << 28 ^
            (uint64_t)n->user << 32);
    for (size_t w = 0; n->gpu_used != NULL && w < SCHED_GPU_WORDS(n->ngpus);
         w++)
        h = mix(h ^ n->gpu_used[w]);
    return h;
}

static uint64_t fp_nodes(const struct sched_cluster *c)
{
    uint64_t h = mix(c->nnodes + 1);

    for (size_t i = 0; i < c->nnodes; i++)
        h = mix(h + fp_node(&c->nodes[i]));
    /* the partitions' node lists too: the cache of earliest starts is
     * by partition position */
    for (size_t p = 0; p < c->nparts; p++) {
        h = mix(h ^ (c->parts[p].nnodes << 1 | c->parts[p].start_jobs));
        for (size_t k = 0; k < c->parts[p].nnodes; k++)
            h = mix(h + c->parts[p].nodes[k]);
    }
    return h;
}

/* One running job; the set is hashed by sum, so order does not matter. */
static uint64_t fp_item(const size_t *nodes, size_t nnodes, uint32_t cpus,
                        uint64_t mem, uint32_t gpus, time_t end)
{
    uint64_t h = mix((uint64_t)end) ^ mix(cpus + ((uint64_t)gpus << 32));

    h = mix(h ^ mix(mem + 1));
    for (size_t k = 0; k < nnodes; k++)
        h += mix(nodes[k] + 0x9e3779b97f4a7c15ULL);
    return mix(h);
}

static uint64_t fp_running(const struct sched_bf *bf)
{
    uint64_t h = 0;

    for (size_t r = 0; r < bf->nrunning; r++) {
        const struct sched_running *x = &bf->running[r];
        h += fp_item(x->nodes, x->nnodes, x->cpus_per_node, x->mem_per_node_mib,
                     x->gpus_per_node, x->end_time);
    }
    return h;
}

/* The running entry a job started at now will have. */
static uint64_t fp_started(const struct sched_job *j,
                           const struct sched_decision *d, time_t now)
{
    return fp_item(d->nodes, d->nnodes, j->cpus_per_node, j->mem_per_node_mib,
                   j->gpus_per_node,
                   j->time_limit_s > 0 ? now + j->time_limit_s : 0);
}

/* ---- the cycle -------------------------------------------------------- */

struct sched_bf_cycle *sched_bf_cycle_create(void)
{
    return xcalloc(1, sizeof(struct sched_bf_cycle));
}

void sched_bf_cycle_reset(struct sched_bf_cycle *cy)
{
    bf_profile_free(&cy->prof);
    free(cy->q);
    cy->q = NULL;
    cy->nq = cy->pos = 0;
    cy->nresv = 0;
    map_clear(&cy->users);
    free(cy->shape);
    cy->shape = NULL;
    cy->shape_cap = cy->nshape = 0;
    cy->examined = cy->reserved = 0;
    free(cy->stamp);
    cy->stamp = NULL;
    cy->epoch = 0;
    for (size_t k = 0; k < BF_WHEN_CACHE; k++)
        cy->wc[k].shape.used = false;
    cy->busy = false;
}

void sched_bf_cycle_destroy(struct sched_bf_cycle *cy)
{
    int saved = errno;

    if (cy == NULL)
        return;
    sched_bf_cycle_reset(cy);
    free(cy->resv);
    map_clear(&cy->ids);
    free(cy->mask);
    free(cy->when);
    free(cy->pick);
    for (size_t k = 0; k < BF_WHEN_CACHE; k++)
        free(cy->wc[k].when);
    free(cy);
    errno = saved;
}

size_t sched_bf_cycle_bytes(const struct sched_bf_cycle *cy)
{
    size_t b = sizeof(*cy) + cy->nq * sizeof(*cy->q) +
               cy->resv_cap * sizeof(*cy->resv) +
               cy->users.cap * (sizeof(uint64_t) + sizeof(size_t)) +
               cy->ids.cap * (sizeof(uint64_t) + sizeof(size_t)) +
               cy->shape_cap * sizeof(*cy->shape) +
               cy->nodes_cap * sizeof(*cy->mask) +
               cy->part_cap * (sizeof(*cy->when) + sizeof(*cy->pick));

    for (size_t k = 0; k < BF_WHEN_CACHE; k++)
        b += cy->wc[k].cap * sizeof(*cy->wc[k].when);
    if (cy->stamp != NULL)
        b += cy->prof.nnodes * sizeof(*cy->stamp);
    for (size_t i = 0; cy->prof.node != NULL && i < cy->prof.nnodes; i++)
        b += sizeof(cy->prof.node[i]) +
             cy->prof.node[i].cap * sizeof(*cy->prof.node[i].s);
    return b;
}

bool sched_bf_cycle_busy(const struct sched_bf_cycle *cy)
{
    return cy->busy;
}

/* The map from ids to indices in c->jobs; an id seen twice maps to
 * SIZE_MAX (ambiguous: array tasks share their record's id). */
static void ids_build(struct sched_bf_cycle *cy, const struct sched_cluster *c)
{
    map_clear(&cy->ids);
    for (size_t i = 0; i < c->njobs; i++) {
        size_t *v = map_slot(&cy->ids, c->jobs[i].id + 1, true);
        *v = *v == 0 ? i + 1 : SIZE_MAX;
    }
    cy->ids_built = true;
}

/* Where the job with this id is in c->jobs now; SIZE_MAX when gone. */
static size_t find_job(struct sched_bf_cycle *cy, const struct sched_cluster *c,
                       uint64_t id, size_t hint)
{
    size_t *v;

    if (hint < c->njobs && c->jobs[hint].id == id &&
        (hint == 0 || c->jobs[hint - 1].id != id) &&
        (hint + 1 == c->njobs || c->jobs[hint + 1].id != id))
        return hint;
    if (!cy->ids_built)
        ids_build(cy, c);
    v = map_slot(&cy->ids, id + 1, false);
    return v == NULL || *v == SIZE_MAX ? SIZE_MAX : *v - 1;
}

bool sched_bf_cycle_valid(struct sched_bf_cycle *cy,
                          const struct sched_cluster *c,
                          const struct sched_bf *bf, time_t now)
{
    if (!cy->busy || now < cy->begin || c->nnodes != cy->prof.nnodes)
        return false;
    if (fp_nodes(c) != cy->fp_nodes)
        return false;
    uint64_t run = fp_running(bf);
    if (run != cy->fp_run && run != cy->fp_base)
        return false;
    cy->ids_built = false;
    for (size_t k = 0; k < cy->nresv; k++)
        if (find_job(cy, c, cy->resv[k].id, cy->resv[k].idx) == SIZE_MAX)
            return false;
    return true;
}

static void scratch(struct sched_bf_cycle *cy, const struct sched_cluster *c)
{
    size_t maxpart = 1;

    for (size_t i = 0; i < c->nparts; i++)
        if (c->parts[i].nnodes > maxpart)
            maxpart = c->parts[i].nnodes;
    if (c->nnodes + 1 > cy->nodes_cap) {
        free(cy->mask);
        cy->nodes_cap = c->nnodes + 1;
        cy->mask = xcalloc(cy->nodes_cap, sizeof(*cy->mask));
    }
    if (maxpart > cy->part_cap) {
        cy->part_cap = maxpart;
        cy->when = xreallocarray(cy->when, maxpart, sizeof(*cy->when));
        cy->pick = xreallocarray(cy->pick, maxpart, sizeof(*cy->pick));
    }
}

static int profile_build(struct sched_bf_cycle *cy,
                         const struct sched_cluster *c,
                         const struct sched_bf *bf,
                         const struct sched_result *main)
{
    struct bf_profile *p = &cy->prof;

    for (size_t r = 0; r < bf->nrunning; r++) {
        const struct sched_running *x = &bf->running[r];
        time_t end = bf_profile_round_end(p, x->end_time);
        for (size_t k = 0; k < x->nnodes; k++) {
            if (x->nodes[k] >= c->nnodes)
                return -1;
            bf_profile_release(p, x->nodes[k], end, x->cpus_per_node,
                               (int64_t)x->mem_per_node_mib, x->gpus_per_node);
        }
    }
    for (size_t k = 0; k < main->n; k++) {
        const struct sched_decision *d = &main->decisions[k];
        const struct sched_job *j = &c->jobs[d->job];
        time_t end = j->time_limit_s > 0
                         ? bf_profile_round_end(p, cy->begin + j->time_limit_s)
                         : BF_FOREVER;
        for (size_t i = 0; i < d->nnodes; i++)
            bf_profile_release(p, d->nodes[i], end, j->cpus_per_node,
                               (int64_t)j->mem_per_node_mib, j->gpus_per_node);
        if (d->nnodes > 0)
            cy->fp_run += fp_started(j, d, cy->begin);
    }
    bf_profile_finish(p, c->nodes);
    return 0;
}

int sched_bf_cycle_begin(struct sched_bf_cycle *cy,
                         const struct sched_cluster *c,
                         const struct sched_bf *bf, time_t now,
                         const struct sched_result *main)
{
    sched_bf_cycle_reset(cy);
    cy->begin = now;
    cy->fp_base = cy->fp_run = fp_running(bf);
    bf_profile_init(&cy->prof, c->nnodes, now, bf->resolution_s);
    if (profile_build(cy, c, bf, main) < 0) {
        sched_bf_cycle_reset(cy);
        errno = EINVAL;
        return -1;
    }
    cy->q = xcalloc(main->n ? main->n : 1, sizeof(*cy->q));
    for (size_t k = 0; k < main->n; k++) {
        const struct sched_decision *d = &main->decisions[k];
        if (d->nnodes == 0 && (d->reason == SCHED_REASON_PRIORITY ||
                               d->reason == SCHED_REASON_RESOURCES))
            cy->q[cy->nq++] =
                (struct bf_cand){c->jobs[d->job].id, d->job, d->reason};
    }
    scratch(cy, c);
    cy->stamp = xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*cy->stamp));
    cy->fp_nodes = fp_nodes(c);
    cy->busy = true;
    return 0;
}

/* ---- decisions -------------------------------------------------------- */

static struct bf_need need_of(const struct sched_job *j)
{
    return (struct bf_need){j->cpus_per_node, (int64_t)j->mem_per_node_mib,
                            j->gpus_per_node,
                            j->time_limit_s > 0 ? j->time_limit_s : BF_FOREVER};
}

static bool allowed(const struct sched_job *j, size_t i)
{
    return j->node_allowed == NULL || j->node_allowed[i];
}

/* Take w from node i from t, and note that its profile changed. */
static void take(struct sched_bf_cycle *cy, size_t i, time_t t,
                 const struct bf_need *w)
{
    bf_profile_take(&cy->prof.node[i], t, w);
    cy->stamp[i] = ++cy->epoch;
}

/* The cache entry for j's shape at now, or a free one (shape.used false);
 * NULL when j is not plain (a node filter: its starts are its own). */
static struct bf_when *when_entry(struct sched_bf_cycle *cy,
                                  const struct sched_job *j, time_t now)
{
    struct bf_shape s = shape_of(j);
    struct bf_when *e;

    if (j->node_allowed != NULL)
        return NULL;
    for (size_t k = 0; k < BF_WHEN_CACHE; k++)
        if (cy->wc[k].shape.used && cy->wc[k].now == now &&
            shape_eq(&cy->wc[k].shape, &s))
            return &cy->wc[k];
    e = &cy->wc[cy->wc_next++ % BF_WHEN_CACHE];
    e->shape.used = false;
    return e;
}

/* Where a job could start: per partition node, and a summary. */
struct bf_starts {
    const time_t *when; /* per partition position; -1: not in the window */
    time_t best;        /* the earliest of them; -1: none */
    size_t now_ok;      /* nodes where it could start now */
};

/*
 * The earliest start within the window of j on each node of its
 * partition, by partition position: from the shape's cache entry, brought
 * up to date, or computed into cy->when.
 */
static struct bf_starts earliest_all(struct sched_bf_cycle *cy,
                                     const struct sched_cluster *c,
                                     const struct sched_bf *bf, time_t now,
                                     const struct sched_job *j)
{
    struct bf_starts out = {NULL, -1, 0};
    const struct sched_part *p = &c->parts[j->part];
    struct bf_need w = need_of(j);
    struct bf_when *e = when_entry(cy, j, now);
    time_t horizon = now + bf->window_s, *when = cy->when;
    bool all = true;

    if (e != NULL) {
        if (e->cap < p->nnodes) {
            e->cap = p->nnodes;
            e->when = xreallocarray(e->when, e->cap, sizeof(*e->when));
        }
        all = !e->shape.used;
        when = e->when;
    }
    for (size_t k = 0; k < p->nnodes; k++) {
        size_t i = p->nodes[k];
        if (all || cy->stamp[i] > e->stamp)
            when[k] = allowed(j, i) ? bf_profile_earliest(&cy->prof.node[i], &w,
                                                          now, horizon)
                                    : -1;
        if (when[k] >= 0 && (out.best < 0 || when[k] < out.best))
            out.best = when[k];
        out.now_ok += when[k] == now;
    }
    if (e != NULL) {
        e->shape = shape_of(j);
        e->now = now;
        e->stamp = cy->epoch;
    }
    out.when = when;
    return out;
}

/* Start j now on nodes whose profile holds it for its whole limit (its
 * earliest start there is now). */
static bool start_now(struct sched_bf_cycle *cy, struct sched_cluster *c,
                      const struct bf_starts *at, const struct sched_job *j,
                      time_t now, struct sched_decision *d)
{
    const struct sched_part *p = &c->parts[j->part];
    struct bf_need w = need_of(j);
    struct sched_job tmp = *j;
    size_t ok = 0;
    int rc;

    if (at->now_ok < j->nodes)
        return false;
    for (size_t k = 0; k < p->nnodes; k++)
        if (at->when[k] == now) {
            cy->mask[p->nodes[k]] = true;
            ok++;
        }
    tmp.node_allowed = cy->mask;
    rc = ok >= j->nodes ? select_place(c, &tmp, d) : -1;
    for (size_t k = 0; ok > 0 && k < p->nnodes; k++)
        cy->mask[p->nodes[k]] = false;
    if (rc < 0)
        return false;
    for (size_t k = 0; k < d->nnodes; k++)
        take(cy, d->nodes[k], now, &w);
    return true;
}

/* Reserve the earliest time within the window when j fits; 0 if none.
 * Nodes are taken in partition order among those free then. */
static time_t reserve(struct sched_bf_cycle *cy, const struct sched_cluster *c,
                      const struct bf_starts *at, const struct sched_job *j)
{
    const struct sched_part *p = &c->parts[j->part];
    const time_t *when = at->when;
    struct bf_need w = need_of(j);
    time_t best = at->best;
    size_t got = 0, tried = 0;

    while (best >= 0 && tried++ < BF_MAX_CANDIDATES) {
        time_t next = -1;
        got = 0;
        for (size_t k = 0; k < p->nnodes && got < j->nodes; k++) {
            if (when[k] < 0)
                continue;
            if (when[k] > best) {
                if (next < 0 || when[k] < next)
                    next = when[k];
            } else if (when[k] == best ||
                       bf_profile_fits(&cy->prof.node[p->nodes[k]], best, &w)) {
                cy->pick[got++] = p->nodes[k];
            }
        }
        if (got >= j->nodes)
            break;
        best = next;
    }
    if (best < 0 || got < j->nodes)
        return 0;
    for (size_t k = 0; k < got; k++)
        take(cy, cy->pick[k], best, &w);
    return best;
}

static void resv_push(struct sched_bf_cycle *cy, uint64_t id, size_t idx)
{
    if (cy->nresv == cy->resv_cap) {
        cy->resv_cap = cy->resv_cap ? 2 * cy->resv_cap : 64;
        cy->resv = xreallocarray(cy->resv, cy->resv_cap, sizeof(*cy->resv));
    }
    cy->resv[cy->nresv++] = (struct bf_cand){id, idx, SCHED_REASON_NONE};
}

/*
 * --time-min: the longest limit from j's time_min_s up to its limit, in
 * whole minutes, with which it fits now (the nodes' profiles are
 * monotone in the limit: a shorter run fits wherever a longer one does);
 * 0 when even time_min_s does not.
 */
static int64_t shortened_limit(struct sched_bf_cycle *cy,
                               const struct sched_cluster *c,
                               const struct sched_bf *bf, time_t now,
                               const struct sched_job *j)
{
    struct sched_job tmp = *j;
    int64_t lo = j->time_min_s, hi = j->time_limit_s - 60, best = 0;

    if (j->time_min_s <= 0 || j->time_limit_s <= j->time_min_s)
        return 0;
    tmp.time_limit_s = lo;
    if (earliest_all(cy, c, bf, now, &tmp).now_ok < j->nodes)
        return 0;
    best = lo;
    while (lo + 60 <= hi) {
        int64_t mid = lo + ((hi - lo) / 120) * 60;
        if (mid <= lo)
            mid = lo + 60;
        tmp.time_limit_s = mid;
        if (earliest_all(cy, c, bf, now, &tmp).now_ok >= j->nodes) {
            best = lo = mid;
        } else {
            hi = mid - 60;
        }
    }
    if (hi > best && hi >= j->time_min_s) {
        tmp.time_limit_s = hi;
        if (earliest_all(cy, c, bf, now, &tmp).now_ok >= j->nodes)
            best = hi;
    }
    return best;
}

/* Start j now with its limit cut to what fits (--time-min). */
static bool start_shortened(struct sched_bf_cycle *cy, struct sched_cluster *c,
                            const struct sched_bf *bf, time_t now,
                            const struct sched_job *j, struct sched_decision *d)
{
    struct sched_job tmp = *j;
    struct bf_starts at;

    tmp.time_limit_s = shortened_limit(cy, c, bf, now, j);
    if (tmp.time_limit_s <= 0)
        return false;
    at = earliest_all(cy, c, bf, now, &tmp);
    if (!start_now(cy, c, &at, &tmp, now, d))
        return false;
    d->time_limit_s = tmp.time_limit_s;
    cy->fp_run += fp_started(&tmp, d, now);
    return true;
}

/* One waiting job: start it now, reserve for it, or neither. */
static void consider(struct sched_bf_cycle *cy, struct sched_cluster *c,
                     const struct sched_bf *bf, time_t now,
                     const struct sched_job *j, struct sched_decision *d,
                     struct sched_result *out, struct sched_bf_stats *st)
{
    bool may_reserve = cy->reserved < bf->max_job_test;
    struct bf_starts at;
    time_t t;

    if (!may_reserve && shape_failed(cy, j))
        return;
    at = earliest_all(cy, c, bf, now, j);
    if (sched_counters_room(c, j) && (start_now(cy, c, &at, j, now, d) ||
                                      start_shortened(cy, c, bf, now, j, d))) {
        sched_counters_charge(c, j);
        d->reason = SCHED_REASON_NONE;
        d->start_est = now;
        d->backfilled = true;
        if (d->time_limit_s == 0)
            cy->fp_run += fp_started(j, d, now);
        out->started++;
        st->started++;
        return;
    }
    if (j->time_min_s > 0) /* the shortened tries may reuse its entry */
        at = earliest_all(cy, c, bf, now, j);
    if (!may_reserve) {
        if (plain(j)) {
            struct bf_shape s = shape_of(j);
            shape_insert(cy, &s);
        }
        return;
    }
    if (j->priority < j->min_prio_reserve) /* QOS MinPrioThreshold */
        return;
    t = reserve(cy, c, &at, j);
    if (t > 0) {
        d->start_est = t;
        cy->reserved++;
        st->reserved++;
        resv_push(cy, j->id, (size_t)(j - c->jobs));
    }
}

/* Still a job backfill may start (not held, begun, partition up). */
static bool eligible(const struct sched_cluster *c, const struct sched_job *j,
                     time_t now)
{
    return !j->held_user && !j->held_admin && j->begin_time <= now &&
           j->resv_gate == SCHED_REASON_NONE && j->part < c->nparts &&
           c->parts[j->part].start_jobs;
}

static struct sched_decision *push(struct sched_result *out, size_t *cap,
                                   size_t job, enum sched_reason reason)
{
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        out->decisions =
            xreallocarray(out->decisions, *cap, sizeof(*out->decisions));
    }
    out->decisions[out->n] =
        (struct sched_decision){.job = job, .reason = reason};
    return &out->decisions[out->n++];
}

/* Whether the slice has used its jobs or its time. */
static bool slice_over(const struct sched_bf *bf,
                       const struct sched_bf_stats *st, int64_t t0)
{
    if (st->examined == 0)
        return false;
    if (bf->max_examine > 0 && st->examined >= bf->max_examine)
        return true;
    return bf->clock_us != NULL &&
           bf->clock_us(bf->clock_arg) - t0 >= bf->yield_interval_us;
}

int sched_bf_slice(struct sched_bf_cycle *cy, struct sched_cluster *c,
                   const struct sched_bf *bf, time_t now,
                   struct sched_result *out, struct sched_bf_stats *st)
{
    int64_t t0 = bf->clock_us ? bf->clock_us(bf->clock_arg) : 0;
    size_t cap = 0;

    memset(out, 0, sizeof(*out));
    memset(st, 0, sizeof(*st));
    if (!cy->busy || c->nnodes != cy->prof.nnodes) {
        errno = EINVAL;
        return -1;
    }
    cy->ids_built = false;
    scratch(cy, c);
    while (cy->pos < cy->nq && !slice_over(bf, st, t0)) {
        const struct bf_cand *q = &cy->q[cy->pos++];
        size_t idx = find_job(cy, c, q->id, q->idx);
        const struct sched_job *j;
        if (idx == SIZE_MAX || !eligible(c, (j = &c->jobs[idx]), now))
            continue;
        if (bf->max_job_user > 0 &&
            ++*map_slot(&cy->users, (uint64_t)j->user + 1, true) >
                bf->max_job_user)
            continue;
        st->examined++;
        cy->examined++;
        consider(cy, c, bf, now, j, push(out, &cap, idx, q->reason), out, st);
    }
    st->done = cy->pos == cy->nq;
    st->cycle_examined = cy->examined;
    st->cycle_reserved = cy->reserved;
    cy->busy = !st->done;
    cy->fp_nodes = fp_nodes(c);
    return 0;
}

void sched_bf_merge(struct sched_result *out, struct sched_result *bfr,
                    size_t njobs)
{
    size_t *slot = xcalloc(njobs ? njobs : 1, sizeof(*slot));

    for (size_t k = 0; k < out->n; k++)
        slot[out->decisions[k].job] = k;
    for (size_t k = 0; k < bfr->n; k++) {
        struct sched_decision *d = &out->decisions[slot[bfr->decisions[k].job]];
        free(d->nodes);
        free(d->gpus);
        *d = bfr->decisions[k];
    }
    out->started += bfr->started;
    free(bfr->decisions);
    memset(bfr, 0, sizeof(*bfr));
    free(slot);
}
