/*
 * Where a job goes: the nodes of its partition that fit it now, the
 * tightest of them (best fit) or the first (the baseline), and on each the
 * GPUs of its type, linked to each other where the node knows its links.
 */
#include "sched/select.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "sched/features.h"

/* Seeds tried when growing a linked GPU set (bounds the work on nodes
 * with very many GPUs). */
#define SELECT_MAX_SEEDS 64

static bool bit(const uint64_t *w, uint32_t p)
{
    return w != NULL && ((w[p / 64] >> (p % 64)) & 1) != 0;
}

static void set_bit(uint64_t *w, uint32_t p)
{
    w[p / 64] |= UINT64_C(1) << (p % 64);
}

static bool any_type(const char *type)
{
    return type == NULL || type[0] == '\0';
}

bool select_gpu_type_ok(const struct sched_node *n, uint32_t p,
                        const char *type)
{
    const char *t;

    if (any_type(type))
        return true;
    if (n->gpus == NULL)
        return false;
    t = n->gpus[p].type;
    return t != NULL && strcmp(t, type) == 0;
}

uint32_t select_gpus_total(const struct sched_node *n, const char *type)
{
    uint32_t k = 0;

    if (any_type(type))
        return n->ngpus;
    for (uint32_t p = 0; p < n->ngpus; p++)
        k += select_gpu_type_ok(n, p, type);
    return k;
}

uint32_t select_gpus_free(const struct sched_node *n, const char *type)
{
    uint32_t k = 0;

    if (any_type(type) && n->gpu_used != NULL) {
        size_t words = SCHED_GPU_WORDS(n->ngpus);
        uint32_t used = 0;
        for (size_t i = 0; i < words; i++) {
            uint64_t w = n->gpu_used[i];
            if (i == words - 1 && n->ngpus % 64 != 0)
                w &= (UINT64_C(1) << (n->ngpus % 64)) - 1;
            used += (uint32_t)__builtin_popcountll(w);
        }
        return n->ngpus - used;
    }
    for (uint32_t p = 0; p < n->ngpus; p++)
        k += !bit(n->gpu_used, p) && select_gpu_type_ok(n, p, type);
    return k;
}

/* ExclusiveUser: j may share n with the users running there. */
static bool users_allow(const struct sched_node *n, const struct sched_job *j)
{
    if (n->users == 0 || (n->users == 1 && n->user == j->user))
        return true;
    return !n->user_exclusive && !j->exclusive_user;
}

/* --exclusive: a whole-node job needs an empty node, and nothing joins
 * one. */
static bool whole_ok(const struct sched_node *n, const struct sched_job *j)
{
    if (n->whole)
        return false;
    return !j->exclusive_node ||
           (n->users == 0 && n->cpus_alloc == 0 && n->mem_alloc_mib == 0 &&
            select_gpus_free(n, NULL) == n->ngpus);
}

bool select_fits_now(const struct sched_node *n, const struct sched_job *j)
{
    return n->up && !n->drain && users_allow(n, j) && whole_ok(n, j) &&
           n->cpus >= n->cpus_alloc &&
           n->cpus - n->cpus_alloc >= j->cpus_per_node &&
           n->mem_mib >= n->mem_alloc_mib &&
           n->mem_mib - n->mem_alloc_mib >= j->mem_per_node_mib &&
           (j->gpus_per_node == 0 ||
            select_gpus_free(n, j->gpu_type) >= j->gpus_per_node);
}

bool select_fits_ever(const struct sched_node *n, const struct sched_job *j)
{
    return n->cpus >= j->cpus_per_node && n->mem_mib >= j->mem_per_node_mib &&
           (j->gpus_per_node == 0 ||
            select_gpus_total(n, j->gpu_type) >= j->gpus_per_node);
}

/* ---- GPUs on one node ------------------------------------------------- */

static bool linked(const struct sched_node *n, uint32_t a, uint32_t b)
{
    return bit(n->gpus[a].links, b) || bit(n->gpus[b].links, a);
}

static bool has_links(const struct sched_node *n, const uint32_t *cand,
                      uint32_t m)
{
    if (n->gpus == NULL)
        return false;
    for (uint32_t i = 0; i < m; i++)
        if (n->gpus[cand[i]].links != NULL)
            return true;
    return false;
}

/* The set grown from seed: members into set (k of them, candidate
 * numbers); returns its links inside (*cut: links to other candidates). */
static uint32_t grow(const struct sched_node *n, const uint32_t *cand,
                     uint32_t m, uint32_t seed, uint32_t k, uint32_t *conn,
                     bool *in, uint32_t *set, uint32_t *cut)
{
    uint32_t pairs = 0;

    memset(conn, 0, m * sizeof(*conn));
    memset(in, 0, m * sizeof(*in));
    for (uint32_t got = 0, next = seed; got < k; got++) {
        in[next] = true;
        set[got] = next;
        pairs += conn[next];
        for (uint32_t i = 0; i < m; i++)
            conn[i] += !in[i] && linked(n, cand[i], cand[next]);
        if (got + 1 == k)
            break;
        next = m;
        for (uint32_t i = 0; i < m; i++)
            if (!in[i] && (next == m || conn[i] > conn[next]))
                next = i;
    }
    *cut = 0;
    for (uint32_t i = 0; i < m; i++)
        *cut += in[i] ? 0 : conn[i];
    return pairs;
}

/* The best linked set of k among the m candidates into out. */
static void pick_linked(const struct sched_node *n, const uint32_t *cand,
                        uint32_t m, uint32_t k, uint32_t *out)
{
    uint32_t *conn = xcalloc(m, sizeof(*conn));
    uint32_t *set = xcalloc(k, sizeof(*set));
    bool *in = xcalloc(m, sizeof(*in));
    uint32_t best_pairs = 0, best_cut = 0;
    bool have = false;

    for (uint32_t s = 0; s < m && s < SELECT_MAX_SEEDS; s++) {
        uint32_t cut, pairs = grow(n, cand, m, s, k, conn, in, set, &cut);
        if (have &&
            (pairs < best_pairs || (pairs == best_pairs && cut >= best_cut)))
            continue;
        have = true;
        best_pairs = pairs;
        best_cut = cut;
        for (uint32_t i = 0; i < k; i++)
            out[i] = cand[set[i]];
    }
    free(in);
    free(set);
    free(conn);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

int select_gpus(const struct sched_node *n, const char *type, uint32_t k,
                uint32_t *out)
{
    uint32_t *cand, m = 0;

    if (k == 0)
        return 0;
    cand = xcalloc(n->ngpus ? n->ngpus : 1, sizeof(*cand));
    for (uint32_t p = 0; p < n->ngpus; p++)
        if (!bit(n->gpu_used, p) && select_gpu_type_ok(n, p, type))
            cand[m++] = p;
    if (m < k) {
        free(cand);
        return -1;
    }
    if (k == m || !has_links(n, cand, m))
        memcpy(out, cand, k * sizeof(*out));
    else
        pick_linked(n, cand, m, k, out);
    qsort(out, k, sizeof(*out), cmp_u32);
    free(cand);
    return 0;
}

/* ---- nodes ------------------------------------------------------------ */

static uint32_t weight(const struct sched_node *n)
{
    return n->weight ? n->weight : 1;
}

/* Best fit order: the lower Weight, then fewer free GPUs left, then
 * fewer free CPUs left. */
static bool tighter(const struct sched_node *a, const struct sched_node *b)
{
    uint32_t ga = select_gpus_free(a, NULL), gb = select_gpus_free(b, NULL);

    if (weight(a) != weight(b))
        return weight(a) < weight(b);

    if (ga != gb)
        return ga < gb;
    return a->cpus - a->cpus_alloc < b->cpus - b->cpus_alloc;
}

static bool node_fits(const struct sched_cluster *c, const struct sched_job *j,
                      size_t idx)
{
    return (j->node_allowed == NULL || j->node_allowed[idx]) &&
           select_fits_now(&c->nodes[idx], j);
}

/* With a constraint of counts or [..]: the fitting nodes, tightest first
 * (by c->fit), and features_pick chooses the set. */
static bool choose_constrained(const struct sched_cluster *c,
                               const struct sched_job *j, size_t *out)
{
    const struct sched_part *p = &c->parts[j->part];
    size_t *cand = xcalloc(p->nnodes ? p->nnodes : 1, sizeof(*cand));
    const char **feats = xcalloc(p->nnodes ? p->nnodes : 1, sizeof(*feats));
    size_t *pick = xcalloc(j->nodes, sizeof(*pick)), m = 0;
    bool ok;

    for (size_t i = 0; i < p->nnodes; i++)
        if (node_fits(c, j, p->nodes[i]))
            cand[m++] = p->nodes[i];
    /* insertion sort, stable: partition order among equals */
    for (size_t i = 1; i < m && c->fit != SCHED_FIT_FIRST; i++)
        for (size_t k = i;
             k > 0 && tighter(&c->nodes[cand[k]], &c->nodes[cand[k - 1]]);
             k--) {
            size_t t = cand[k];
            cand[k] = cand[k - 1];
            cand[k - 1] = t;
        }
    for (size_t i = 0; i < m; i++)
        feats[i] = c->nodes[cand[i]].features;
    ok = features_pick(j->constraint, feats, m, j->nodes, pick);
    for (size_t i = 0; ok && i < j->nodes; i++)
        out[i] = cand[pick[i]];
    free(pick);
    free(feats);
    free(cand);
    return ok;
}

/* Choose j->nodes of the partition's fitting nodes into out (node
 * indices); false when there are not enough. */
static bool choose_nodes(const struct sched_cluster *c,
                         const struct sched_job *j, size_t *out)
{
    const struct sched_part *p = &c->parts[j->part];
    bool *fit;
    size_t nfit = 0, got = 0;

    if (j->constraint != NULL)
        return choose_constrained(c, j, out);
    fit = xcalloc(p->nnodes ? p->nnodes : 1, sizeof(*fit));
    for (size_t i = 0; i < p->nnodes; i++) {
        size_t idx = p->nodes[i];
        if (c->fit == SCHED_FIT_FIRST && got == j->nodes)
            break;
        fit[i] = node_fits(c, j, idx);
        nfit += fit[i];
        if (fit[i] && c->fit == SCHED_FIT_FIRST && got < j->nodes)
            out[got++] = idx;
    }
    while (c->fit != SCHED_FIT_FIRST && nfit >= j->nodes && got < j->nodes) {
        size_t best = p->nnodes;
        for (size_t i = 0; i < p->nnodes; i++)
            if (fit[i] &&
                (best == p->nnodes ||
                 tighter(&c->nodes[p->nodes[i]], &c->nodes[p->nodes[best]])))
                best = i;
        fit[best] = false;
        out[got++] = p->nodes[best];
    }
    free(fit);
    return got == j->nodes;
}

int select_place(struct sched_cluster *c, const struct sched_job *j,
                 struct sched_decision *d)
{
    size_t *nodes = xcalloc(j->nodes, sizeof(*nodes));
    uint32_t gpn = j->gpus_per_node, *gpus = NULL;

    if (!choose_nodes(c, j, nodes)) {
        free(nodes);
        return -1;
    }
    if (gpn > 0) {
        /* a whole-node job: gpn is what each of its nodes has (the
         * driver asks for the smallest of the partition's) */
        gpus = xcalloc((size_t)j->nodes * gpn, sizeof(*gpus));
        for (size_t i = 0; i < j->nodes; i++) {
            /* select_fits_now said they are free */
            int rc = select_gpus(&c->nodes[nodes[i]], j->gpu_type, gpn,
                                 gpus + i * gpn);
            ASSERT(rc == 0);
        }
    }
    for (size_t i = 0; i < j->nodes; i++) {
        struct sched_node *n = &c->nodes[nodes[i]];
        n->cpus_alloc += j->exclusive_node ? n->cpus : j->cpus_per_node;
        n->mem_alloc_mib +=
            j->exclusive_node ? n->mem_mib : j->mem_per_node_mib;
        n->whole |= j->exclusive_node;
        if (n->users == 0)
            n->user = j->user;
        if (n->users == 0 || n->user != j->user)
            n->users = n->users == 0 ? 1 : 2;
        n->user_exclusive |= j->exclusive_user;
        for (uint32_t g = 0; g < gpn; g++)
            set_bit(n->gpu_used, gpus[i * gpn + g]);
    }
    d->nodes = nodes;
    d->nnodes = j->nodes;
    d->gpus = gpus;
    return 0;
}
