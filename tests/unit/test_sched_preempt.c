/*
 * Victim choice (src/sched/preempt.c): minimal victim sets on hand-made
 * layouts (fragmented GPUs across nodes, mixed tiers, exempt and
 * checkpointed jobs, PreemptParameters), and a comparison with a brute
 * force over every subset of victims on a few hundred small random
 * clusters (seeded).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "sched/preempt.h"
#include "sched/select.h"

#define MAXN 4
#define MAXV 10
#define NOW 100000

/* A small cluster: nodes of 8 CPUs, 1000 MiB and ngpus GPUs, and running
 * jobs placed on them by hand (positions) or at random. */
struct tc {
    struct sched_node nodes[MAXN];
    uint64_t used[MAXN];
    size_t pnodes[MAXN];
    struct sched_part part;
    struct sched_cluster c;
    struct sched_victim v[MAXV];
    size_t vnodes[MAXV][2];
    uint32_t vgpus[MAXV][8];
    size_t nv;
    struct sched_preempt_params p;
};

static void tc_init(struct tc *t, size_t nn, uint32_t ngpus)
{
    memset(t, 0, sizeof(*t));
    for (size_t i = 0; i < nn; i++) {
        t->nodes[i] = (struct sched_node){.name = "n",
                                          .cpus = 8,
                                          .mem_mib = 1000,
                                          .up = true,
                                          .ngpus = ngpus,
                                          .gpu_used = &t->used[i]};
        t->pnodes[i] = i;
    }
    t->part = (struct sched_part){
        .name = "p", .start_jobs = true, .nodes = t->pnodes, .nnodes = nn};
    t->c = (struct sched_cluster){
        .nodes = t->nodes, .nnodes = nn, .parts = &t->part, .nparts = 1};
    t->p.reorder_count = 1;
}

/* A victim on node (and node2 unless -1) with the GPU positions in mask
 * (the same on both), cpus CPUs; its allocation is charged. */
static struct sched_victim *tc_run(struct tc *t, int node, int node2,
                                   uint64_t mask, uint32_t cpus, uint32_t prio,
                                   time_t start)
{
    struct sched_victim *v = &t->v[t->nv];
    uint32_t g = 0;

    for (uint32_t p = 0; p < 8; p++)
        if (mask >> p & 1)
            t->vgpus[t->nv][g++] = p;
    for (uint32_t k = 0; k < g; k++)
        t->vgpus[t->nv][g + k] = t->vgpus[t->nv][k];
    t->vnodes[t->nv][0] = (size_t)node;
    t->vnodes[t->nv][1] = (size_t)node2;
    *v = (struct sched_victim){.id = 100 + t->nv,
                               .nodes = t->vnodes[t->nv],
                               .nnodes = node2 < 0 ? 1 : 2,
                               .cpus_per_node = cpus,
                               .mem_per_node_mib = 10,
                               .gpus_per_node = g,
                               .gpus = g ? t->vgpus[t->nv] : NULL,
                               .priority = prio,
                               .start_time = start,
                               .may = true};
    for (size_t k = 0; k < v->nnodes; k++) {
        struct sched_node *n = &t->nodes[v->nodes[k]];
        n->cpus_alloc += cpus;
        n->mem_alloc_mib += 10;
        t->used[v->nodes[k]] |= mask;
    }
    t->nv++;
    return v;
}

static struct sched_job job(uint32_t gpus, uint32_t cpus)
{
    return (struct sched_job){.id = 1,
                              .nodes = 1,
                              .cpus_per_node = cpus,
                              .mem_per_node_mib = 10,
                              .gpus_per_node = gpus,
                              .priority = 1000};
}

/* The victims chosen, as a bitmask of victim indices; -1: none found. */
static long tc_find(struct tc *t, const struct sched_job *j, size_t *node)
{
    struct sched_preempt_plan plan;
    long mask = 0;
    int rc = sched_preempt_find(&t->c, j, t->v, t->nv, NOW, &t->p, &plan);

    assert_true(rc >= 0);
    if (rc == 0)
        return -1;
    for (size_t i = 0; i < plan.nvictims; i++)
        mask |= 1L << plan.victims[i];
    if (node != NULL)
        *node = plan.nodes[0];
    sched_preempt_plan_clear(&plan);
    return mask;
}

static void test_one_gpu_not_whole_node(void **state)
{
    struct tc t;
    struct sched_job j = job(1, 1);
    size_t node;

    (void)state;
    tc_init(&t, 2, 4);
    tc_run(&t, 0, -1, 0xf, 2, 10, NOW - 100); /* 0: the whole node */
    tc_run(&t, 1, -1, 0x1, 1, 10, NOW - 100); /* 1..4: one GPU each */
    tc_run(&t, 1, -1, 0x2, 1, 10, NOW - 100);
    tc_run(&t, 1, -1, 0x4, 1, 10, NOW - 50);
    tc_run(&t, 1, -1, 0x8, 1, 10, NOW - 100);
    assert_int_equal(tc_find(&t, &j, &node), 1L << 3);
    assert_int_equal(node, 1);
}

static void test_fragmented_gpus(void **state)
{
    struct tc t;
    struct sched_job j = job(2, 1);
    size_t node;

    (void)state;
    /* node 0: three 1-GPU jobs (one not preemptible) and one GPU free
     * (one victim frees enough); node 1: two 2-GPU jobs.  One victim
     * either way: the least lost work. */
    tc_init(&t, 2, 4);
    tc_run(&t, 0, -1, 0x1, 1, 10, NOW - 100); /* 100 GPU-s */
    tc_run(&t, 0, -1, 0x2, 1, 10, NOW - 90);  /* 90 */
    tc_run(&t, 0, -1, 0x4, 1, 10, NOW - 10)->may = false;
    tc_run(&t, 1, -1, 0x3, 1, 10, NOW - 40); /* 80 */
    tc_run(&t, 1, -1, 0xc, 1, 10, NOW - 60); /* 120 */
    assert_int_equal(tc_find(&t, &j, &node), 1L << 3);
    assert_int_equal(node, 1);
    /* without that one, the cheaper single GPU on node 0 */
    t.v[3].may = false;
    assert_int_equal(tc_find(&t, &j, &node), 1L << 1);
    assert_int_equal(node, 0);
    /* a job wanting 4 GPUs: both jobs of node 1, not three of node 0 */
    j = job(4, 1);
    t.v[3].may = true;
    t.v[2].may = true;
    assert_int_equal(tc_find(&t, &j, &node), 1L << 3 | 1L << 4);
    assert_int_equal(node, 1);
}

static void test_lowest_priority_first(void **state)
{
    struct tc t;
    struct sched_job j = job(2, 1);

    (void)state;
    /* priority beats the number of victims and lost work; tier beats
     * priority */
    tc_init(&t, 1, 4);
    tc_run(&t, 0, -1, 0x3, 1, 50, NOW - 10);
    tc_run(&t, 0, -1, 0x4, 1, 20, NOW - 1000);
    tc_run(&t, 0, -1, 0x8, 1, 20, NOW - 1000);
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1 | 1L << 2);
    t.v[0].tier = 0;
    t.v[1].tier = t.v[2].tier = 1;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 0);
}

static void test_exempt(void **state)
{
    struct tc t;
    struct sched_job j = job(1, 1);

    (void)state;
    tc_init(&t, 1, 2);
    tc_run(&t, 0, -1, 0x1, 1, 10, NOW - 10)->exempt_until = NOW + 290;
    tc_run(&t, 0, -1, 0x2, 1, 10, NOW - 400)->exempt_until = NOW - 100;
    /* the exempt one would lose less, but may not be taken */
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1);
    t.v[1].exempt_until = NOW + 1;
    assert_int_equal(tc_find(&t, &j, NULL), -1);
    /* at its exempt time it is fair game */
    t.v[1].exempt_until = NOW;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1);
    /* min_exempt_priority: below it, exemption does not hold */
    t.v[1].exempt_until = NOW + 1;
    t.p.min_exempt_priority = 11;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 0);
}

/* When a pass may next find a victim eligible: the earliest exempt end
 * after now among the victims the job may take. */
static void test_next_exempt(void **state)
{
    static const struct {
        time_t until[3];
        bool may[3];
        time_t want;
    } cases[] = {
        {{NOW + 30, NOW + 10, NOW + 20}, {true, true, true}, NOW + 10},
        /* one it may not take does not count */
        {{NOW + 30, NOW + 10, NOW + 20}, {true, false, true}, NOW + 20},
        /* over already, or now: not later */
        {{NOW - 5, NOW, NOW + 7}, {true, true, true}, NOW + 7},
        /* "until a checkpoint" asks for no timer */
        {{INT64_MAX, 0, NOW}, {true, true, true}, 0},
        {{NOW + 1, NOW + 2, NOW + 3}, {false, false, false}, 0},
    };
    struct sched_victim v[3];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(v, 0, sizeof(v));
        for (size_t k = 0; k < 3; k++) {
            v[k].exempt_until = cases[i].until[k];
            v[k].may = cases[i].may[k];
        }
        assert_int_equal(sched_preempt_next_exempt(v, 3, NOW), cases[i].want);
    }
    assert_int_equal(sched_preempt_next_exempt(v, 0, NOW), 0);
}

static void test_checkpointed(void **state)
{
    struct tc t;
    struct sched_job j = job(1, 1);

    (void)state;
    /* equal jobs; the one that checkpointed 30 s ago loses less than the
     * one that ran 600 s without */
    tc_init(&t, 1, 2);
    tc_run(&t, 0, -1, 0x1, 1, 10, NOW - 600);
    tc_run(&t, 0, -1, 0x2, 1, 10, NOW - 600)->last_checkpoint = NOW - 30;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1);
    t.v[1].last_checkpoint = 0;
    t.v[0].last_checkpoint = NOW - 5;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 0);
}

static void test_cpu_jobs_and_multi_node(void **state)
{
    struct tc t;
    struct sched_job j = job(0, 6);

    (void)state;
    /* CPU-only: CPU-seconds since start; a two-node victim frees both */
    tc_init(&t, 2, 0);
    tc_run(&t, 0, -1, 0, 4, 10, NOW - 100); /* 400 CPU-s */
    tc_run(&t, 0, 1, 0, 4, 10, NOW - 30);   /* 240 */
    tc_run(&t, 1, -1, 0, 2, 10, NOW - 10);  /* 20 */
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1);
    /* two nodes of 6 CPUs: node 0 needs both of its jobs gone */
    j.nodes = 2;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 0 | 1L << 1);
    /* no victims needed: an empty plan */
    j = job(0, 2);
    assert_int_equal(tc_find(&t, &j, NULL), 0);
}

static void test_params(void **state)
{
    struct tc t;
    struct sched_job j = job(1, 1);
    struct sched_preempt_params p = {0};
    struct err e;

    (void)state;
    tc_init(&t, 1, 2);
    tc_run(&t, 0, -1, 0x1, 1, 10, NOW - 10);
    tc_run(&t, 0, -1, 0x2, 1, 20, NOW - 5);
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 0);
    t.p.youngest_first = true;
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 1);

    assert_int_equal(
        sched_preempt_params_parse("send_user_signal,youngest_first,"
                                   "reorder_count=3,min_exempt_priority=7",
                                   &p, &e),
        0);
    assert_true(p.youngest_first);
    assert_false(p.strict_order);
    assert_int_equal(p.reorder_count, 3);
    assert_int_equal(p.min_exempt_priority, 7);
    assert_int_equal(sched_preempt_params_parse("", &p, &e), 0);
    assert_int_equal(p.reorder_count, 1);
    assert_int_equal(sched_preempt_params_parse("strict_order", &p, &e), 0);
    assert_true(p.strict_order);
    assert_int_equal(sched_preempt_params_parse("reorder_count=x", &p, &e), -1);
    assert_non_null(strstr(e.text, "reorder_count=x"));
    assert_true(p.strict_order); /* unchanged */
}

static void test_bad_model(void **state)
{
    struct tc t;
    struct sched_job j = job(1, 1);
    struct sched_preempt_plan plan;

    (void)state;
    tc_init(&t, 1, 2);
    tc_run(&t, 0, -1, 0x3, 1, 10, NOW - 10);
    t.vnodes[0][0] = 7;
    assert_int_equal(sched_preempt_find(&t.c, &j, t.v, t.nv, NOW, &t.p, &plan),
                     -1);
    t.vnodes[0][0] = 0;
    t.vgpus[0][1] = 9;
    assert_int_equal(sched_preempt_find(&t.c, &j, t.v, t.nv, NOW, &t.p, &plan),
                     -1);
}

/* ---- brute force ------------------------------------------------------ */

struct bcost {
    uint32_t tier;
    int64_t rank;
    size_t count;
    uint64_t gpu_s, cpu_s;
};

static int bcost_cmp(const struct bcost *a, const struct bcost *b)
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

static struct bcost set_cost(const struct tc *t, unsigned mask)
{
    struct bcost c = {0};

    for (size_t i = 0; i < t->nv; i++) {
        const struct sched_victim *v = &t->v[i];
        bool gpu;
        uint64_t lost;
        if (!(mask >> i & 1))
            continue;
        lost = sched_preempt_lost(v, NOW, &gpu);
        if (c.count == 0 || v->tier > c.tier ||
            (v->tier == c.tier && v->priority > c.rank)) {
            c.tier = v->tier;
            c.rank = v->priority;
        }
        c.count++;
        *(gpu ? &c.gpu_s : &c.cpu_s) += lost;
    }
    return c;
}

/* The nodes j fits on (all of them: node < 0; else that one) once the
 * victims in mask are gone. */
static size_t fits_without(const struct tc *t, const struct sched_job *j,
                           unsigned mask, int node)
{
    struct sched_node n[MAXN];
    uint64_t used[MAXN];

    for (size_t i = 0; i < t->c.nnodes; i++) {
        n[i] = t->nodes[i];
        used[i] = t->used[i];
        n[i].gpu_used = &used[i];
    }
    for (size_t i = 0; i < t->nv; i++) {
        const struct sched_victim *v = &t->v[i];
        if (!(mask >> i & 1))
            continue;
        for (size_t k = 0; k < v->nnodes; k++) {
            size_t x = v->nodes[k];
            n[x].cpus_alloc -= v->cpus_per_node;
            n[x].mem_alloc_mib -= v->mem_per_node_mib;
            for (uint32_t g = 0; g < v->gpus_per_node; g++)
                used[x] &= ~(1ULL << v->gpus[k * v->gpus_per_node + g]);
        }
    }
    size_t fit = 0;
    for (size_t i = 0; i < t->c.nnodes; i++)
        if ((node < 0 || (size_t)node == i) && select_fits_now(&n[i], j))
            fit++;
    return fit;
}

/* A random cluster: 1-3 nodes of 4 GPUs, up to 8 running jobs. */
static void random_case(struct tc *t, struct sched_job *j)
{
    size_t nn = 1 + (size_t)(rand() % 3);
    int tries = 8 + rand() % 8;

    tc_init(t, nn, 4);
    while (tries-- > 0 && t->nv < 8) {
        int node = rand() % (int)nn;
        uint32_t cpus = 1 + (uint32_t)(rand() % 3), k = (uint32_t)(rand() % 3);
        uint64_t free_gpus = ~t->used[node] & 0xf, mask = 0;
        for (uint32_t p = 0; p < 4 && k > 0; p++)
            if (free_gpus >> p & 1) {
                mask |= 1ULL << p;
                k--;
            }
        if (k > 0 || t->nodes[node].cpus_alloc + cpus > 8)
            continue;
        struct sched_victim *v =
            tc_run(t, node, -1, mask, cpus, 1 + (uint32_t)(rand() % 3),
                   NOW - 1 - rand() % 500);
        v->tier = (uint32_t)(rand() % 4 == 0);
        v->may = rand() % 6 != 0;
        if (rand() % 4 == 0)
            v->exempt_until = NOW + 1 - rand() % 3;
        if (rand() % 3 == 0)
            v->last_checkpoint = NOW - rand() % 300;
    }
    *j = job((uint32_t)(rand() % 4), 1 + (uint32_t)(rand() % 8));
}

/* The cheapest cost over every subset of victims that lets j start, and
 * whether find's plan costs the same and frees its nodes; returns whether
 * the plan has victims (-1: no plan). */
static int check_case(struct tc *t, const struct sched_job *j, int round)
{
    struct sched_preempt_plan plan;
    struct bcost best = {0};
    bool found = false;
    unsigned mine = 0;
    int with;

    for (unsigned m = 0; m < 1u << t->nv; m++) {
        bool ok = true;
        for (size_t i = 0; i < t->nv; i++)
            if (m >> i & 1 && !sched_preempt_eligible(&t->v[i], NOW, &t->p))
                ok = false;
        if (!ok || fits_without(t, j, m, -1) < j->nodes)
            continue;
        struct bcost c = set_cost(t, m);
        if (!found || bcost_cmp(&c, &best) < 0)
            best = c;
        found = true;
    }
    int rc = sched_preempt_find(&t->c, j, t->v, t->nv, NOW, &t->p, &plan);
    assert_int_equal(rc, found ? 1 : 0);
    if (!found)
        return -1;
    for (size_t i = 0; i < plan.nvictims; i++)
        mine |= 1u << plan.victims[i];
    struct bcost c = set_cost(t, mine);
    if (bcost_cmp(&c, &best) != 0)
        fail_msg("round %d (%u nodes): cost (%u,%lld,%zu,%llu,%llu) want "
                 "(%u,%lld,%zu,%llu,%llu)",
                 round, j->nodes, c.tier, (long long)c.rank, c.count,
                 (unsigned long long)c.gpu_s, (unsigned long long)c.cpu_s,
                 best.tier, (long long)best.rank, best.count,
                 (unsigned long long)best.gpu_s,
                 (unsigned long long)best.cpu_s);
    assert_int_equal(plan.nnodes, j->nodes);
    for (size_t k = 0; k < plan.nnodes; k++) {
        assert_int_equal(fits_without(t, j, mine, (int)plan.nodes[k]), 1);
        for (size_t q = 0; q < k; q++)
            assert_true(plan.nodes[q] != plan.nodes[k]);
    }
    with = plan.nvictims > 0;
    sched_preempt_plan_clear(&plan);
    return with;
}

static void test_brute_force(void **state)
{
    size_t with_victims = 0;

    (void)state;
    srand(7);
    for (int round = 0; round < 400; round++) {
        struct tc t;
        struct sched_job j;

        random_case(&t, &j);
        with_victims += check_case(&t, &j, round) == 1;
    }
    /* the cases are not trivial: most need victims */
    assert_true(with_victims > 150);
}

/* The example of docs/preemption.md: 2 nodes wanted; node 0 is cleared
 * by three victims of tier 1, nodes 1 and 2 by one of tier 2 each.  The
 * two cheapest nodes one by one (0, then 1) touch tier 2 anyway and kill
 * four; nodes 1 and 2 touch tier 2 and kill two. */
static void test_multi_node_threshold(void **state)
{
    struct tc t;
    struct sched_job j = job(4, 1);
    struct sched_preempt_plan plan;

    (void)state;
    j.nodes = 2;
    tc_init(&t, 3, 4);
    tc_run(&t, 0, -1, 0x1, 1, 10, NOW - 100)->tier = 1;
    tc_run(&t, 0, -1, 0x2, 1, 10, NOW - 100)->tier = 1;
    tc_run(&t, 0, -1, 0xc, 1, 10, NOW - 100)->tier = 1;
    tc_run(&t, 1, -1, 0xf, 1, 10, NOW - 100)->tier = 2;
    tc_run(&t, 2, -1, 0xf, 1, 10, NOW - 100)->tier = 2;
    assert_int_equal(sched_preempt_find(&t.c, &j, t.v, t.nv, NOW, &t.p, &plan),
                     1);
    assert_int_equal(plan.nvictims, 2);
    assert_int_equal(plan.victims[0], 3);
    assert_int_equal(plan.victims[1], 4);
    assert_int_equal(plan.nnodes, 2);
    assert_int_equal(plan.nodes[0] + plan.nodes[1], 3);
    sched_preempt_plan_clear(&plan);
    /* with node 2 excluded (-x), node 0's three it must be */
    bool allowed[3] = {true, true, false};
    j.node_allowed = allowed;
    assert_int_equal(tc_find(&t, &j, NULL), 0x7 | 1L << 3);
    /* a victim on nodes 1 and 2 at once is one victim, not two */
    j.node_allowed = NULL;
    tc_init(&t, 3, 4);
    tc_run(&t, 0, -1, 0x3, 1, 10, NOW - 10);
    tc_run(&t, 0, -1, 0xc, 1, 10, NOW - 10);
    tc_run(&t, 1, 2, 0xf, 1, 10, NOW - 100);
    assert_int_equal(tc_find(&t, &j, NULL), 1L << 2);
}

/* A random cluster of 2-4 nodes with some two-node victims, and a job of
 * one to three nodes. */
static void random_multi_case(struct tc *t, struct sched_job *j)
{
    size_t nn = 2 + (size_t)(rand() % 3);
    int tries = 6 + rand() % 8;

    tc_init(t, nn, 4);
    while (tries-- > 0 && t->nv < 9) {
        int node = rand() % (int)nn, node2 = -1;
        uint32_t cpus = 1 + (uint32_t)(rand() % 3), k = (uint32_t)(rand() % 3);
        uint64_t free_gpus, mask = 0;
        if (rand() % 3 == 0)
            node2 = (node + 1 + rand() % ((int)nn - 1)) % (int)nn;
        free_gpus = ~t->used[node] & 0xf;
        if (node2 >= 0)
            free_gpus &= ~t->used[node2];
        for (uint32_t p = 0; p < 4 && k > 0; p++)
            if (free_gpus >> p & 1) {
                mask |= 1ULL << p;
                k--;
            }
        if (k > 0 || t->nodes[node].cpus_alloc + cpus > 8 ||
            (node2 >= 0 && t->nodes[node2].cpus_alloc + cpus > 8))
            continue;
        struct sched_victim *v =
            tc_run(t, node, node2, mask, cpus, 1 + (uint32_t)(rand() % 3),
                   NOW - 1 - rand() % 500);
        v->tier = (uint32_t)(rand() % 3);
        v->may = rand() % 7 != 0;
        if (rand() % 5 == 0)
            v->exempt_until = NOW + 1 - rand() % 3;
        if (rand() % 3 == 0)
            v->last_checkpoint = NOW - rand() % 300;
    }
    *j = job((uint32_t)(rand() % 5), 1 + (uint32_t)(rand() % 8));
    j->nodes = 1 + (uint32_t)(rand() % (nn < 3 ? nn : 3));
}

static void test_brute_force_multi_node(void **state)
{
    size_t with_victims = 0, multi = 0;

    (void)state;
    srand(11);
    for (int round = 0; round < 400; round++) {
        struct tc t;
        struct sched_job j;

        random_multi_case(&t, &j);
        int with = check_case(&t, &j, round);
        with_victims += with == 1;
        multi += with == 1 && j.nodes > 1;
    }
    assert_true(with_victims > 150);
    assert_true(multi > 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_gpu_not_whole_node),
        cmocka_unit_test(test_fragmented_gpus),
        cmocka_unit_test(test_lowest_priority_first),
        cmocka_unit_test(test_exempt),
        cmocka_unit_test(test_next_exempt),
        cmocka_unit_test(test_checkpointed),
        cmocka_unit_test(test_cpu_jobs_and_multi_node),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_bad_model),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_multi_node_threshold),
        cmocka_unit_test(test_brute_force_multi_node),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
