/*
 * Victim choice: node by node, the cheapest set of eligible victims whose
 * release covers what the job lacks there (CPUs, memory, GPUs of its
 * type), by an exact search over the candidates of the lowest rank level
 * that can cover it (a greedy pass with pruning beyond
 * SCHED_PREEMPT_EXACT_MAX candidates, or with strict_order); then the
 * cheapest node, or for a job of several nodes the cheapest combination
 * of nodes by the threshold argument written above choose().
 */
#include "sched/preempt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/select.h"

/* What a set of victims costs, compared field by field. */
struct cost {
    uint32_t tier; /* the highest rank in the set: tier ... */
    int64_t rank;  /* ... then priority (or -start with youngest_first) */
    size_t count;
    uint64_t gpu_s, cpu_s;
};

/* A victim as one node sees it. */
struct cand {
    size_t v; /* index into the victim array */
    uint32_t tier;
    int64_t rank;
    uint64_t cpus, mem_mib, gpus; /* what it frees on this node */
    uint64_t lost;
    bool lost_gpu;
};

/* What the job lacks on one node. */
struct need {
    uint64_t cpus, mem_mib, gpus;
};

static int cost_cmp(const struct cost *a, const struct cost *b)
{
    if (a->tier != b->tier)
        return a->tier < b->tier ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->count != b->count)
        return a->count < b->count ? -1 : 1;
    if (a->gpu_s != b->gpu_s)
        return a->gpu_s < b->gpu_s ? -1 : 1;
    if (a->cpu_s != b->cpu_s)
        return a->cpu_s < b->cpu_s ? -1 : 1;
    return 0;
}

static void cost_add(struct cost *c, const struct cand *x)
{
    if (c->count == 0 || x->tier > c->tier ||
        (x->tier == c->tier && x->rank > c->rank)) {
        c->tier = x->tier;
        c->rank = x->rank;
    }
    c->count++;
    if (x->lost_gpu)
        c->gpu_s += x->lost;
    else
        c->cpu_s += x->lost;
}

uint64_t sched_preempt_lost(const struct sched_victim *v, time_t now, bool *gpu)
{
    time_t from = v->start_time;
    uint64_t secs, units;

    if (v->last_checkpoint > from)
        from = v->last_checkpoint;
    secs = now > from ? (uint64_t)(now - from) : 0;
    *gpu = v->gpus_per_node > 0;
    units = (uint64_t)(*gpu ? v->gpus_per_node : v->cpus_per_node) * v->nnodes;
    return units * secs;
}

time_t sched_preempt_next_exempt(const struct sched_victim *v, size_t n,
                                 time_t now)
{
    time_t next = 0;

    for (size_t k = 0; k < n; k++) {
        time_t t = v[k].exempt_until;
        if (v[k].may && t > now && t != (time_t)INT64_MAX &&
            (next == 0 || t < next))
            next = t;
    }
    return next;
}

bool sched_preempt_eligible(const struct sched_victim *v, time_t now,
                            const struct sched_preempt_params *p)
{
    if (!v->may)
        return false;
    if (v->exempt_until == 0 || now >= v->exempt_until)
        return true;
    return p->min_exempt_priority > 0 && v->priority < p->min_exempt_priority;
}

static int cand_order(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->lost_gpu != y->lost_gpu)
        return x->lost_gpu ? 1 : -1;
    if (x->lost != y->lost)
        return x->lost < y->lost ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static bool covers(const struct need *n, uint64_t cpus, uint64_t mem,
                   uint64_t gpus)
{
    return cpus >= n->cpus && mem >= n->mem_mib && gpus >= n->gpus;
}

/* ---- one node: the candidates and what the job lacks ------------------ */

static uint64_t lack(uint64_t want, uint64_t total, uint64_t used)
{
    uint64_t free_now = total > used ? total - used : 0;

    return want > free_now ? want - free_now : 0;
}

/* The candidates on node idx into out (*m of them); false when a victim
 * names a GPU position out of range. */
static bool node_cands(const struct sched_cluster *c, size_t idx,
                       const struct sched_job *j, const struct sched_victim *v,
                       size_t nv, time_t now,
                       const struct sched_preempt_params *p, struct cand *out,
                       size_t *m)
{
    const struct sched_node *n = &c->nodes[idx];

    *m = 0;
    for (size_t i = 0; i < nv; i++) {
        struct cand *x = &out[*m];
        size_t at = v[i].nnodes;
        for (size_t k = 0; k < v[i].nnodes; k++)
            if (v[i].nodes[k] == idx)
                at = k;
        if (at == v[i].nnodes || !sched_preempt_eligible(&v[i], now, p))
            continue;
        *x = (struct cand){.v = i,
                           .tier = v[i].tier,
                           .rank = p->youngest_first ? -(int64_t)v[i].start_time
                                                     : v[i].priority,
                           .cpus = v[i].cpus_per_node,
                           .mem_mib = v[i].suspend ? 0 : v[i].mem_per_node_mib};
        for (uint32_t g = 0;
             g < v[i].gpus_per_node && v[i].gpus && !v[i].suspend; g++) {
            uint32_t pos = v[i].gpus[at * v[i].gpus_per_node + g];
            if (pos >= n->ngpus)
                return false;
            x->gpus += select_gpu_type_ok(n, pos, j->gpu_type);
        }
        x->lost = sched_preempt_lost(&v[i], now, &x->lost_gpu);
        if (v[i].suspend)
            x->lost = 0; /* it resumes where it stopped */
        (*m)++;
    }
    qsort(out, *m, sizeof(*out), cand_order);
    return true;
}

/* ---- one node: the search --------------------------------------------- */

/* Work lost only (count, GPU-seconds, CPU-seconds): the rank is settled
 * by the caller's choice of candidates. */
static int work_cmp(const struct cost *a, const struct cost *b)
{
    struct cost x = *a, y = *b;

    x.tier = y.tier = 0;
    x.rank = y.rank = 0;
    return cost_cmp(&x, &y);
}

struct search {
    const struct cand *cs;
    size_t m;
    const struct need *need;
    size_t k; /* set size being tried */
    size_t *cur, *best;
    bool found;
    struct cost best_cost;
};

static void dfs(struct search *s, size_t from, size_t depth, uint64_t cpus,
                uint64_t mem, uint64_t gpus)
{
    if (depth == s->k) {
        struct cost c = {0};
        if (!covers(s->need, cpus, mem, gpus))
            return;
        for (size_t i = 0; i < s->k; i++)
            cost_add(&c, &s->cs[s->cur[i]]);
        if (!s->found || work_cmp(&c, &s->best_cost) < 0) {
            s->found = true;
            s->best_cost = c;
            memcpy(s->best, s->cur, s->k * sizeof(*s->cur));
        }
        return;
    }
    for (size_t i = from; i + (s->k - depth) <= s->m; i++) {
        const struct cand *x = &s->cs[i];
        s->cur[depth] = i;
        dfs(s, i + 1, depth + 1, cpus + x->cpus, mem + x->mem_mib,
            gpus + x->gpus);
    }
}

/* Exact: the smallest covering set of cs[0..m), cheapest in lost work. */
static bool exact(const struct cand *cs, size_t m, const struct need *nd,
                  size_t *set, size_t *n)
{
    struct search s = {.cs = cs, .m = m, .need = nd};

    s.cur = xcalloc(m ? m : 1, sizeof(*s.cur));
    s.best = set;
    for (s.k = 1; s.k <= m && !s.found; s.k++)
        dfs(&s, 0, 0, 0, 0, 0);
    free(s.cur);
    *n = s.found ? s.k - 1 : 0;
    return s.found;
}

/* Greedy: in rank order until covered, then spare those not needed,
 * highest rank first, rounds times. */
static bool greedy(const struct cand *cs, size_t m, const struct need *nd,
                   uint32_t rounds, size_t *set, size_t *n)
{
    uint64_t cpus = 0, mem = 0, gpus = 0;
    size_t k = 0;

    while (k < m && !covers(nd, cpus, mem, gpus)) {
        cpus += cs[k].cpus;
        mem += cs[k].mem_mib;
        gpus += cs[k].gpus;
        set[k] = k;
        k++;
    }
    if (!covers(nd, cpus, mem, gpus))
        return false;
    for (uint32_t r = 0; r < (rounds ? rounds : 1); r++) {
        for (size_t i = k; i-- > 0;) {
            const struct cand *x = &cs[set[i]];
            if (!covers(nd, cpus - x->cpus, mem - x->mem_mib, gpus - x->gpus))
                continue;
            cpus -= x->cpus;
            mem -= x->mem_mib;
            gpus -= x->gpus;
            memmove(&set[i], &set[i + 1], (k - i - 1) * sizeof(*set));
            k--;
        }
    }
    *n = k;
    return true;
}

static int level_cmp(uint32_t at, int64_t ar, uint32_t bt, int64_t br)
{
    if (at != bt)
        return at < bt ? -1 : 1;
    return ar < br ? -1 : ar > br;
}

/* A usable node: what the job lacks there now, and its candidates in
 * rank order. */
struct nodectx {
    size_t node;
    struct need nd;
    struct cand *cs;
    size_t m;
};

/* What x lacks once the victims marked in killed (may be NULL) are gone. */
static struct need need_after(const struct nodectx *x, const bool *killed)
{
    struct need nd = x->nd;

    for (size_t i = 0; i < x->m && killed != NULL; i++) {
        const struct cand *c = &x->cs[i];
        if (!killed[c->v])
            continue;
        nd.cpus -= nd.cpus < c->cpus ? nd.cpus : c->cpus;
        nd.mem_mib -= nd.mem_mib < c->mem_mib ? nd.mem_mib : c->mem_mib;
        nd.gpus -= nd.gpus < c->gpus ? nd.gpus : c->gpus;
    }
    return nd;
}

struct node_pick {
    size_t pos; /* index into the usable nodes (partition order) */
    bool ok;
    bool bare;     /* fits with no victim */
    uint32_t tier; /* the rank level the search needed (!bare) */
    int64_t rank;
    struct cost cost;
    size_t *set; /* victim indices (owned) */
    size_t n;
};

/* What a search on one node may use: candidates not in skip (by victim
 * index; NULL: all), and with cap, none ranked above it. */
struct scope {
    const bool *skip;
    const struct cand *cap;
};

/*
 * The cheapest victims on x for nd into pk: without a cap, among the
 * candidates of the lowest rank level whose candidates together cover nd
 * (and below it); with one, among all candidates up to the cap, fewest
 * victims and least lost work first.
 */
static void node_search(const struct nodectx *x, size_t pos,
                        const struct need *nd, const struct scope *sc,
                        const struct sched_preempt_params *p,
                        struct node_pick *pk)
{
    struct cand *f = xcalloc(x->m ? x->m : 1, sizeof(*f));
    const struct cand *cap = sc->cap;
    size_t m = 0, lvl = 0, *set;
    uint64_t cpus = 0, mem = 0, gpus = 0;

    for (size_t i = 0; i < x->m; i++) {
        const struct cand *c = &x->cs[i];
        if ((sc->skip == NULL || !sc->skip[c->v]) &&
            (cap == NULL ||
             level_cmp(c->tier, c->rank, cap->tier, cap->rank) <= 0))
            f[m++] = *c;
    }
    memset(pk, 0, sizeof(*pk));
    pk->pos = pos;
    set = pk->set = xcalloc(m ? m : 1, sizeof(*set));
    while (!covers(nd, cpus, mem, gpus) && lvl < m) {
        size_t e = lvl;
        while (e < m && (cap != NULL || (f[e].tier == f[lvl].tier &&
                                         f[e].rank == f[lvl].rank))) {
            cpus += f[e].cpus;
            mem += f[e].mem_mib;
            gpus += f[e].gpus;
            e++;
        }
        lvl = cap != NULL ? m : e;
    }
    if (covers(nd, cpus, mem, gpus)) {
        if (lvl == 0)
            pk->ok = pk->bare = true;
        else if (p->strict_order || lvl > SCHED_PREEMPT_EXACT_MAX)
            pk->ok = greedy(f, lvl, nd, p->reorder_count, set, &pk->n);
        else
            pk->ok = exact(f, lvl, nd, set, &pk->n);
    }
    for (size_t i = 0; i < pk->n; i++) {
        cost_add(&pk->cost, &f[set[i]]);
        set[i] = f[set[i]].v;
    }
    if (pk->ok && !pk->bare) {
        pk->tier = f[lvl - 1].tier;
        pk->rank = f[lvl - 1].rank;
    }
    free(f);
}

/* ---- nodes ------------------------------------------------------------ */

static bool node_usable(const struct sched_cluster *c,
                        const struct sched_job *j, size_t idx)
{
    const struct sched_node *n = &c->nodes[idx];

    return n->up && !n->drain &&
           (j->node_allowed == NULL || j->node_allowed[idx]) &&
           select_fits_ever(n, j);
}

/* What j lacks on n as the model has it now. */
static struct need node_need(const struct sched_node *n,
                             const struct sched_job *j)
{
    uint32_t gfree = select_gpus_free(n, j->gpu_type);

    return (struct need){
        .cpus = lack(j->cpus_per_node, n->cpus, n->cpus_alloc),
        .mem_mib = lack(j->mem_per_node_mib, n->mem_mib, n->mem_alloc_mib),
        .gpus = j->gpus_per_node > gfree ? j->gpus_per_node - gfree : 0,
    };
}

static bool check_victims(const struct sched_cluster *c,
                          const struct sched_victim *v, size_t nv)
{
    for (size_t i = 0; i < nv; i++) {
        if (v[i].gpus_per_node > 0 && v[i].gpus == NULL)
            return false;
        for (size_t k = 0; k < v[i].nnodes; k++)
            if (v[i].nodes[k] >= c->nnodes)
                return false;
    }
    return true;
}

/*
 * A job of N nodes.  Victims running on one usable node only
 * ("local") free nothing elsewhere, so for a fixed set S of the victims
 * that span several usable nodes, the rest of the choice splits into one
 * independent choice per node:
 *
 *  - The first key is the rank level of the most important victim.  Let
 *    L(k) be the lowest level at which node k can be cleared (with S
 *    gone; "bare" when it fits already) and T* the N-th smallest L(k).
 *    No plan reaches N nodes below T* (a node cleared below T* has
 *    L(k) < T*, and there are fewer than N such nodes), and one reaches
 *    them at T*, so with S the best first key is T = max(T*, rank of S).
 *  - At that T every node with L(k) <= T can be cleared using only local
 *    victims ranked <= T, and no plan with first key T uses others.  The
 *    remaining keys (count, GPU-seconds, CPU-seconds) of a plan are S's
 *    plus the sum over its nodes of their local sets (disjoint, one node
 *    each).  Each node's cheapest local set at T (the exact search,
 *    fewest victims then least lost work) is independent of the others,
 *    and lexicographic order on vectors is kept by addition
 *    (a < b implies a + c < b + c), so the N nodes with the smallest
 *    vectors give the smallest sum: exchanging any chosen node for one
 *    with a smaller vector never makes the sum larger.
 *
 * Minimising over every S (up to PREEMPT_MULTI_EXACT spanning victims;
 * usually there are none and S is empty) gives the optimum.  With more
 * spanning victims, or a job of one node, spanning victims are simply
 * candidates of each node they run on (exact for one node).  choose()
 * does this.
 */
#define PREEMPT_MULTI_EXACT 8

struct ctx {
    const struct sched_job *j;
    const struct sched_victim *v;
    size_t nv;
    time_t now;
    const struct sched_preempt_params *p;
    struct nodectx *nx; /* usable nodes, partition order */
    size_t nn;
    bool *multi; /* per victim: a candidate on two usable nodes or more */
};

/* A whole choice: its victims (by victim index), nodes and cost. */
struct choice {
    bool ok;
    bool *victims;
    size_t *nodes; /* j->nodes of them, node indices */
    struct cost cost;
};

static void cost_victim(const struct ctx *x, struct cost *c, size_t i)
{
    const struct sched_victim *v = &x->v[i];
    struct cand k = {.tier = v->tier,
                     .rank = x->p->youngest_first ? -(int64_t)v->start_time
                                                  : v->priority};

    k.lost = sched_preempt_lost(v, x->now, &k.lost_gpu);
    cost_add(c, &k);
}

static int pick_level_order(const void *a, const void *b)
{
    const struct node_pick *const *x = a, *const *y = b;

    if ((*x)->bare != (*y)->bare)
        return (*x)->bare ? -1 : 1;
    return level_cmp((*x)->tier, (*x)->rank, (*y)->tier, (*y)->rank);
}

static int pick_work_order(const void *a, const void *b)
{
    const struct node_pick *x = a, *y = b;
    int r;

    if (x->ok != y->ok)
        return x->ok ? -1 : 1;
    if ((r = work_cmp(&x->cost, &y->cost)) != 0)
        return r;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The level T of the comment above into *cap: 1, or 0 when N nodes fit
 * bare and S is empty (no victim needed), -1 when no N nodes can. */
static int threshold(const struct ctx *x, struct node_pick *pk,
                     const struct cost *s_cost, struct cand *cap)
{
    struct node_pick **ok = xcalloc(x->nn ? x->nn : 1, sizeof(*ok));
    const struct node_pick *t;
    size_t nok = 0;
    int rc = -1;

    for (size_t k = 0; k < x->nn; k++)
        if (pk[k].ok)
            ok[nok++] = &pk[k];
    if (nok < x->j->nodes)
        goto out;
    qsort(ok, nok, sizeof(*ok), pick_level_order);
    t = ok[x->j->nodes - 1];
    rc = 1;
    if (s_cost->count > 0 && (t->bare || level_cmp(s_cost->tier, s_cost->rank,
                                                   t->tier, t->rank) > 0)) {
        cap->tier = s_cost->tier;
        cap->rank = s_cost->rank;
    } else if (t->bare) {
        rc = 0;
    } else {
        cap->tier = t->tier;
        cap->rank = t->rank;
    }
out:
    free(ok);
    return rc;
}

/* The best choice with the spanning victims in killed gone (multi_local:
 * spanning victims are plain candidates instead). */
static void choose_with(const struct ctx *x, const bool *killed,
                        bool multi_local, struct choice *ch)
{
    struct node_pick *pk = xcalloc(x->nn ? x->nn : 1, sizeof(*pk));
    bool *skip = xcalloc(x->nv ? x->nv : 1, sizeof(*skip));
    struct cost s_cost = {0};
    struct cand cap = {0};
    struct scope sc = {.skip = skip};
    int rc;

    for (size_t i = 0; i < x->nv; i++) {
        skip[i] = killed[i] || (!multi_local && x->multi[i]);
        if (killed[i])
            cost_victim(x, &s_cost, i);
    }
    for (size_t k = 0; k < x->nn; k++) {
        struct need nd = need_after(&x->nx[k], killed);
        node_search(&x->nx[k], k, &nd, &sc, x->p, &pk[k]);
    }
    rc = threshold(x, pk, &s_cost, &cap);
    ch->ok = rc >= 0;
    sc.cap = &cap;
    for (size_t k = 0; ch->ok && k < x->nn; k++) {
        struct need nd = need_after(&x->nx[k], killed);
        if (!pk[k].ok || pk[k].bare ||
            (pk[k].tier == cap.tier && pk[k].rank == cap.rank))
            continue;
        free(pk[k].set);
        if (rc == 0) { /* bare nodes only */
            memset(&pk[k], 0, sizeof(pk[k]));
            pk[k].pos = k;
            continue;
        }
        /* below the cap (it may now use more), or above it (it fails) */
        node_search(&x->nx[k], k, &nd, &sc, x->p, &pk[k]);
    }
    if (ch->ok) {
        qsort(pk, x->nn, sizeof(*pk), pick_work_order);
        memset(ch->victims, 0, x->nv * sizeof(*ch->victims));
        for (size_t i = 0; i < x->nv; i++)
            ch->victims[i] = killed[i];
        for (size_t k = 0; k < x->j->nodes; k++) {
            ch->nodes[k] = x->nx[pk[k].pos].node;
            for (size_t i = 0; i < pk[k].n; i++)
                ch->victims[pk[k].set[i]] = true;
        }
        memset(&ch->cost, 0, sizeof(ch->cost));
        for (size_t i = 0; i < x->nv; i++)
            if (ch->victims[i])
                cost_victim(x, &ch->cost, i);
    }
    for (size_t k = 0; k < x->nn; k++)
        free(pk[k].set);
    free(pk);
    free(skip);
}

static void ctx_free(struct ctx *x)
{
    for (size_t k = 0; k < x->nn; k++)
        free(x->nx[k].cs);
    free(x->nx);
    free(x->multi);
}

/* The usable nodes of j's partition and their candidates into x; -1 when
 * the model is inconsistent. */
static int ctx_build(const struct sched_cluster *c, struct ctx *x)
{
    const struct sched_job *j = x->j;
    const struct sched_part *part = &c->parts[j->part];
    size_t *seen = xcalloc(x->nv ? x->nv : 1, sizeof(*seen));
    struct cand *scratch = xcalloc(x->nv ? x->nv : 1, sizeof(*scratch));
    int rc = 0;

    x->nx = xcalloc(part->nnodes ? part->nnodes : 1, sizeof(*x->nx));
    x->multi = xcalloc(x->nv ? x->nv : 1, sizeof(*x->multi));
    for (size_t i = 0; i < part->nnodes && rc == 0; i++) {
        size_t idx = part->nodes[i];
        struct nodectx *n = &x->nx[x->nn];
        if (idx >= c->nnodes) {
            rc = -1;
            break;
        }
        if (!node_usable(c, j, idx))
            continue;
        n->node = idx;
        n->nd = node_need(&c->nodes[idx], j);
        x->nn++;
        if (!node_cands(c, idx, j, x->v, x->nv, x->now, x->p, scratch, &n->m))
            rc = -1;
        /* only this node's candidates are kept: a few per node, not nv */
        n->cs = xcalloc(n->m ? n->m : 1, sizeof(*n->cs));
        memcpy(n->cs, scratch, n->m * sizeof(*n->cs));
        for (size_t k = 0; k < n->m; k++)
            if (++seen[n->cs[k].v] >= 2)
                x->multi[n->cs[k].v] = true;
    }
    free(seen);
    free(scratch);
    return rc;
}

static void choice_init(struct choice *ch, const struct ctx *x)
{
    memset(ch, 0, sizeof(*ch));
    ch->victims = xcalloc(x->nv ? x->nv : 1, sizeof(*ch->victims));
    ch->nodes = xcalloc(x->j->nodes, sizeof(*ch->nodes));
}

static void choice_free(struct choice *ch)
{
    free(ch->victims);
    free(ch->nodes);
}

/* The best choice over every set of spanning victims (see above). */
static void choose(const struct ctx *x, struct choice *best)
{
    size_t *span = xcalloc(x->nv ? x->nv : 1, sizeof(*span)), ns = 0;
    bool *killed = xcalloc(x->nv ? x->nv : 1, sizeof(*killed));
    struct choice ch;

    for (size_t i = 0; i < x->nv; i++)
        if (x->multi[i])
            span[ns++] = i;
    if (x->j->nodes == 1 || ns == 0 || ns > PREEMPT_MULTI_EXACT) {
        choose_with(x, killed, true, best);
        goto out;
    }
    choice_init(&ch, x);
    for (unsigned mask = 0; mask < 1u << ns; mask++) {
        for (size_t b = 0; b < ns; b++)
            killed[span[b]] = mask >> b & 1;
        choose_with(x, killed, false, &ch);
        if (ch.ok && (!best->ok || cost_cmp(&ch.cost, &best->cost) < 0)) {
            struct choice t = *best;
            *best = ch;
            ch = t;
        }
    }
    choice_free(&ch);
out:
    free(span);
    free(killed);
}

static void make_plan(const struct ctx *x, const struct choice *ch,
                      struct sched_preempt_plan *plan)
{
    plan->nodes = xcalloc(x->j->nodes, sizeof(*plan->nodes));
    plan->victims = xcalloc(x->nv ? x->nv : 1, sizeof(*plan->victims));
    memcpy(plan->nodes, ch->nodes, x->j->nodes * sizeof(*plan->nodes));
    plan->nnodes = x->j->nodes;
    for (size_t i = 0; i < x->nv; i++) {
        bool gpu;
        uint64_t lost;
        if (!ch->victims[i])
            continue;
        lost = sched_preempt_lost(&x->v[i], x->now, &gpu);
        plan->victims[plan->nvictims++] = i;
        *(gpu ? &plan->lost_gpu_s : &plan->lost_cpu_s) += lost;
    }
}

int sched_preempt_find(const struct sched_cluster *c, const struct sched_job *j,
                       const struct sched_victim *v, size_t nv, time_t now,
                       const struct sched_preempt_params *p,
                       struct sched_preempt_plan *plan)
{
    struct ctx x = {.j = j, .v = v, .nv = nv, .now = now, .p = p};
    struct choice best;
    int rc = 0;

    memset(plan, 0, sizeof(*plan));
    if (j->part >= c->nparts || j->nodes == 0 || !check_victims(c, v, nv)) {
        errno = EINVAL;
        return -1;
    }
    if (ctx_build(c, &x) < 0) {
        ctx_free(&x);
        errno = EINVAL;
        return -1;
    }
    choice_init(&best, &x);
    if (x.nn >= j->nodes)
        choose(&x, &best);
    if (best.ok) {
        make_plan(&x, &best, plan);
        rc = 1;
    }
    choice_free(&best);
    ctx_free(&x);
    return rc;
}

void sched_preempt_plan_clear(struct sched_preempt_plan *plan)
{
    if (plan == NULL)
        return;
    free(plan->victims);
    free(plan->nodes);
    memset(plan, 0, sizeof(*plan));
}

/* ---- PreemptParameters ------------------------------------------------ */

static int parse_u32(const char *v, size_t len, uint32_t *out)
{
    char buf[16], *end;
    unsigned long x;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, v, len);
    buf[len] = '\0';
    errno = 0;
    x = strtoul(buf, &end, 10);
    if (*end != '\0' || errno != 0 || x > UINT32_MAX || buf[0] == '-')
        return -1;
    *out = (uint32_t)x;
    return 0;
}

int sched_preempt_params_parse(const char *s, struct sched_preempt_params *p,
                               struct err *e)
{
    struct sched_preempt_params t = {.reorder_count = 1};
    const char *k = s ? s : "";

    while (*k != '\0') {
        size_t len = strcspn(k, ","), klen = strcspn(k, "=,");
        const char *val = k + klen + 1;
        size_t vlen = klen < len ? len - klen - 1 : 0;
        uint32_t *num = NULL;
#define KEY(name) (klen == strlen(name) && strncmp(k, name, klen) == 0)
        if (KEY("youngest_first"))
            t.youngest_first = true;
        else if (KEY("strict_order"))
            t.strict_order = true;
        else if (KEY("reorder_count"))
            num = &t.reorder_count;
        else if (KEY("min_exempt_priority"))
            num = &t.min_exempt_priority;
#undef KEY
        if (num != NULL && parse_u32(val, vlen, num) < 0) {
            errno = EINVAL;
            return err_set(e,
                           "PreemptParameters: %.*s: expected a number "
                           "0..4294967295",
                           (int)len, k);
        }
        k += len + (k[len] == ',');
    }
    *p = t;
    return 0;
}
