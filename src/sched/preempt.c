/*
 * Victim choice: node by node, the cheapest set of eligible victims whose
 * release covers what the job lacks there (CPUs, memory, GPUs of its
 * type), by an exact search over the candidates of the lowest rank level
 * that can cover it (a greedy pass with pruning beyond
 * SCHED_PREEMPT_EXACT_MAX candidates, or with strict_order); then the
 * cheapest node, or the cheapest job->nodes nodes.
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

struct node_pick {
    size_t node;
    bool ok;
    struct cost cost;
    size_t *set; /* victim indices */
    size_t n;
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
        if (!s->found || cost_cmp(&c, &s->best_cost) < 0) {
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

/* The cheapest victims on node idx into pk. */
static bool pick_node(const struct sched_cluster *c, size_t idx,
                      const struct sched_job *j, const struct sched_victim *v,
                      size_t nv, time_t now,
                      const struct sched_preempt_params *p,
                      struct node_pick *pk)
{
    const struct sched_node *n = &c->nodes[idx];
    struct need nd = {
        .cpus = lack(j->cpus_per_node, n->cpus, n->cpus_alloc),
        .mem_mib = lack(j->mem_per_node_mib, n->mem_mib, n->mem_alloc_mib),
        .gpus = j->gpus_per_node > select_gpus_free(n, j->gpu_type)
                    ? j->gpus_per_node - select_gpus_free(n, j->gpu_type)
                    : 0,
    };
    struct cand *cs = xcalloc(nv ? nv : 1, sizeof(*cs));
    size_t m, lvl = 0, *set;
    uint64_t cpus = 0, mem = 0, gpus = 0;
    bool valid = node_cands(c, idx, j, v, nv, now, p, cs, &m);

    memset(pk, 0, sizeof(*pk));
    pk->node = idx;
    set = pk->set = xcalloc(m ? m : 1, sizeof(*set));
    /* the lowest rank level whose candidates, all together, cover it */
    while (valid && !covers(&nd, cpus, mem, gpus) && lvl < m) {
        size_t e = lvl;
        while (e < m && cs[e].tier == cs[lvl].tier &&
               cs[e].rank == cs[lvl].rank) {
            cpus += cs[e].cpus;
            mem += cs[e].mem_mib;
            gpus += cs[e].gpus;
            e++;
        }
        lvl = e;
    }
    if (valid && covers(&nd, cpus, mem, gpus)) {
        if (lvl == 0)
            pk->ok = true; /* fits without victims */
        else if (p->strict_order || lvl > SCHED_PREEMPT_EXACT_MAX)
            pk->ok = greedy(cs, lvl, &nd, p->reorder_count, set, &pk->n);
        else
            pk->ok = exact(cs, lvl, &nd, set, &pk->n);
    }
    for (size_t i = 0; i < pk->n; i++) {
        cost_add(&pk->cost, &cs[set[i]]);
        set[i] = cs[set[i]].v;
    }
    free(cs);
    return valid;
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

static int pick_order(const void *a, const void *b)
{
    const struct node_pick *x = a, *y = b;
    int r;

    if (x->ok != y->ok)
        return x->ok ? -1 : 1;
    if ((r = cost_cmp(&x->cost, &y->cost)) != 0)
        return r;
    return x->node < y->node ? -1 : x->node > y->node;
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

/* The union of the first j->nodes picks into plan. */
static void make_plan(const struct sched_job *j, const struct node_pick *pk,
                      const struct sched_victim *v, size_t nv, time_t now,
                      struct sched_preempt_plan *plan)
{
    bool *in = xcalloc(nv ? nv : 1, sizeof(*in));

    plan->nodes = xcalloc(j->nodes, sizeof(*plan->nodes));
    plan->victims = xcalloc(nv ? nv : 1, sizeof(*plan->victims));
    for (size_t k = 0; k < j->nodes; k++) {
        plan->nodes[plan->nnodes++] = pk[k].node;
        for (size_t i = 0; i < pk[k].n; i++) {
            size_t x = pk[k].set[i];
            bool gpu;
            uint64_t lost = sched_preempt_lost(&v[x], now, &gpu);
            if (in[x])
                continue;
            in[x] = true;
            plan->victims[plan->nvictims++] = x;
            *(gpu ? &plan->lost_gpu_s : &plan->lost_cpu_s) += lost;
        }
    }
    free(in);
}

int sched_preempt_find(const struct sched_cluster *c, const struct sched_job *j,
                       const struct sched_victim *v, size_t nv, time_t now,
                       const struct sched_preempt_params *p,
                       struct sched_preempt_plan *plan)
{
    const struct sched_part *part;
    struct node_pick *pk;
    size_t np = 0, ok = 0;
    int rc = 0;

    memset(plan, 0, sizeof(*plan));
    if (j->part >= c->nparts || j->nodes == 0 || !check_victims(c, v, nv)) {
        errno = EINVAL;
        return -1;
    }
    part = &c->parts[j->part];
    pk = xcalloc(part->nnodes ? part->nnodes : 1, sizeof(*pk));
    for (size_t i = 0; i < part->nnodes; i++) {
        size_t idx = part->nodes[i];
        if (idx >= c->nnodes) {
            rc = -1;
            break;
        }
        if (!node_usable(c, j, idx))
            continue;
        if (!pick_node(c, idx, j, v, nv, now, p, &pk[np++])) {
            rc = -1;
            break;
        }
        ok += pk[np - 1].ok;
    }
    if (rc == 0 && ok >= j->nodes) {
        qsort(pk, np, sizeof(*pk), pick_order);
        make_plan(j, pk, v, nv, now, plan);
        rc = 1;
    }
    for (size_t i = 0; i < np; i++)
        free(pk[i].set);
    free(pk);
    if (rc < 0)
        errno = EINVAL;
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
