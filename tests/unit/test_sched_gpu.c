/*
 * GPUs in the scheduler core: indices unique per node, types, NVLink
 * links, best fit against first fit, fragmentation, multi-node jobs and
 * the reasons of jobs that wait for GPUs.  Each case is a small cluster,
 * a queue, and where each job lands (node and GPU positions).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"
#include "sched/select.h"

#define MAXN 4
#define MAXJ 8
#define MAXG 16

struct node_spec {
    uint32_t ngpus;
    const char *types; /* "a100,a100,h200,h200", or NULL: untyped */
    uint64_t used;     /* positions allocated before the pass */
    const char *links; /* "0-1,2-3": pairs linked both ways, or NULL */
    uint32_t cpus_alloc;
    bool down;
};

struct job_spec {
    uint32_t gpus;
    const char *type;
    uint32_t nodes;
};

struct expect {
    int node;      /* -1: waits */
    uint64_t gpus; /* positions on that node (bitmask) */
    enum sched_reason reason;
};

struct gpu_case {
    const char *what;
    enum sched_fit fit;
    size_t nn;
    struct node_spec n[MAXN];
    size_t nj;
    struct job_spec j[MAXJ];
    struct expect want[MAXJ];
};

#define WAITS(r)                                                               \
    {                                                                          \
        -1, 0, r                                                               \
    }
#define AT(node, gpus)                                                         \
    {                                                                          \
        node, gpus, SCHED_REASON_NONE                                          \
    }

static const struct gpu_case cases[] = {
    {"best fit takes the fullest node",
     SCHED_FIT_BEST,
     3,
     {{4, NULL, 0x0, NULL, 0, false},
      {4, NULL, 0x7, NULL, 0, false},
      {4, NULL, 0x3, NULL, 0, false}},
     2,
     {{1, NULL, 1}, {2, NULL, 1}},
     {AT(1, 0x8), AT(2, 0xc)}},
    {"first fit takes the first node",
     SCHED_FIT_FIRST,
     3,
     {{4, NULL, 0x0, NULL, 0, false},
      {4, NULL, 0x7, NULL, 0, false},
      {4, NULL, 0x3, NULL, 0, false}},
     2,
     {{1, NULL, 1}, {2, NULL, 1}},
     {AT(0, 0x1), AT(0, 0x6)}},
    {"best fit keeps a whole node for the 8-GPU job",
     SCHED_FIT_BEST,
     2,
     {{8, NULL, 0x00, NULL, 0, false}, {8, NULL, 0x0f, NULL, 0, false}},
     5,
     {{1, NULL, 1}, {1, NULL, 1}, {1, NULL, 1}, {1, NULL, 1}, {8, NULL, 1}},
     {AT(1, 0x10), AT(1, 0x20), AT(1, 0x40), AT(1, 0x80), AT(0, 0xff)}},
    {"first fit fragments: the 8-GPU job waits with 8 free",
     SCHED_FIT_FIRST,
     2,
     {{8, NULL, 0x00, NULL, 0, false}, {8, NULL, 0x0f, NULL, 0, false}},
     5,
     {{1, NULL, 1}, {1, NULL, 1}, {1, NULL, 1}, {1, NULL, 1}, {8, NULL, 1}},
     {AT(0, 0x1), AT(0, 0x2), AT(0, 0x4), AT(0, 0x8),
      WAITS(SCHED_REASON_RESOURCES)}},
    {"ties go to CPUs left, then partition order",
     SCHED_FIT_BEST,
     3,
     {{2, NULL, 0, NULL, 4, false},
      {2, NULL, 0, NULL, 12, false},
      {2, NULL, 0, NULL, 12, false}},
     1,
     {{1, NULL, 1}},
     {AT(1, 0x1)}},
    {"typed requests land on their type only",
     SCHED_FIT_BEST,
     2,
     {{4, "a100,a100,a100,a100", 0, NULL, 0, false},
      {4, "h200,h200,h200,h200", 0, NULL, 0, false}},
     4,
     {{2, "h200", 1}, {4, "a100", 1}, {3, "h200", 1}, {1, NULL, 1}},
     {AT(1, 0x3), AT(0, 0xf), WAITS(SCHED_REASON_RESOURCES),
      WAITS(SCHED_REASON_PRIORITY)}},
    {"a typed request on a node of two types",
     SCHED_FIT_BEST,
     1,
     {{4, "a100,a100,h200,h200", 0x4, NULL, 0, false}},
     2,
     {{1, "h200", 1}, {2, "a100", 1}},
     {AT(0, 0x8), AT(0, 0x3)}},
    {"a type no node has never fits and does not block",
     SCHED_FIT_BEST,
     1,
     {{4, "a100,a100,a100,a100", 0, NULL, 0, false}},
     2,
     {{1, "v100", 1}, {1, "a100", 1}},
     {WAITS(SCHED_REASON_NEVER_FITS), AT(0, 0x1)}},
    {"linked pairs: two GPUs come from one intact pair",
     SCHED_FIT_BEST,
     1,
     {{8, NULL, 0x05, "0-1,2-3,4-5,6-7", 0, false}},
     1,
     {{2, NULL, 1}},
     {AT(0, 0x30)}},
    {"linked pairs: one GPU comes from a broken pair",
     SCHED_FIT_BEST,
     1,
     {{8, NULL, 0x04, "0-1,2-3,4-5,6-7", 0, false}},
     1,
     {{1, NULL, 1}},
     {AT(0, 0x08)}},
    {"NVLink island of four for a four-GPU job",
     SCHED_FIT_BEST,
     1,
     {{8, NULL, 0x01, "0-1,0-2,0-3,1-2,1-3,2-3,4-5,4-6,4-7,5-6,5-7,6-7,3-4", 0,
       false}},
     1,
     {{4, NULL, 1}},
     {AT(0, 0xf0)}},
    {"without links, the lowest free positions",
     SCHED_FIT_BEST,
     1,
     {{8, NULL, 0x05, NULL, 0, false}},
     1,
     {{3, NULL, 1}},
     {AT(0, 0x1a)}},
    {"more GPUs than any node: never fits",
     SCHED_FIT_BEST,
     2,
     {{4, NULL, 0, NULL, 0, false}, {4, NULL, 0, NULL, 0, false}},
     1,
     {{5, NULL, 1}},
     {WAITS(SCHED_REASON_NEVER_FITS)}},
    {"the only GPU node is down",
     SCHED_FIT_BEST,
     2,
     {{0, NULL, 0, NULL, 0, false}, {4, NULL, 0, NULL, 0, true}},
     2,
     {{1, NULL, 1}, {0, NULL, 1}},
     {WAITS(SCHED_REASON_NODE_DOWN), AT(0, 0)}},
};

/* The model of one case; storage for bitmaps and links in st. */
struct model {
    struct sched_node nodes[MAXN];
    struct sched_gpu gpus[MAXN][MAXG];
    char types[MAXN][MAXG][16];
    uint64_t links[MAXN][MAXG];
    uint64_t used[MAXN];
    size_t idx[MAXN];
    struct sched_part part;
    struct sched_job jobs[MAXJ];
};

static void add_links(struct model *m, size_t i, const char *spec)
{
    const char *p = spec;

    while (p != NULL && *p != '\0') {
        unsigned a, b;
        if (sscanf(p, "%u-%u", &a, &b) != 2)
            fail_msg("bad links \"%s\"", spec);
        m->links[i][a] |= UINT64_C(1) << b;
        m->links[i][b] |= UINT64_C(1) << a;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
}

static void build_node(struct model *m, size_t i, const struct node_spec *s)
{
    const char *t = s->types;

    for (uint32_t g = 0; g < s->ngpus; g++) {
        size_t len = t ? strcspn(t, ",") : 0;
        snprintf(m->types[i][g], sizeof(m->types[i][g]), "%.*s", (int)len,
                 t ? t : "");
        m->gpus[i][g].type = m->types[i][g];
        t = t && t[len] == ',' ? t + len + 1 : t;
    }
    add_links(m, i, s->links);
    for (uint32_t g = 0; s->links && g < s->ngpus; g++)
        m->gpus[i][g].links = &m->links[i][g];
    m->used[i] = s->used;
    m->idx[i] = i;
    m->nodes[i] = (struct sched_node){
        .name = "n",
        .cpus = 16,
        .cpus_alloc = s->cpus_alloc,
        .mem_mib = 64000,
        .up = !s->down,
        .ngpus = s->ngpus,
        .gpus = s->types || s->links ? m->gpus[i] : NULL,
        .gpu_used = &m->used[i],
    };
}

static void build(struct model *m, const struct gpu_case *k)
{
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < k->nn; i++)
        build_node(m, i, &k->n[i]);
    m->part = (struct sched_part){"p", true, false, m->idx, k->nn};
    for (size_t i = 0; i < k->nj; i++)
        m->jobs[i] = (struct sched_job){.id = i + 1,
                                        .nodes = k->j[i].nodes,
                                        .cpus_per_node = 1,
                                        .submit_time = (time_t)i,
                                        .gpus_per_node = k->j[i].gpus,
                                        .gpu_type = k->j[i].type};
}

static const struct sched_decision *decision_for(const struct sched_result *r,
                                                 size_t job)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].job == job)
            return &r->decisions[i];
    return NULL;
}

static void check_job(const struct gpu_case *k, size_t i,
                      const struct sched_decision *d)
{
    const struct expect *w = &k->want[i];
    uint64_t got = 0;

    if (w->node < 0) {
        if (d->nnodes != 0 || d->reason != w->reason)
            fail_msg("%s: job %zu: nodes %zu reason %s, want wait %s", k->what,
                     i, d->nnodes, sched_reason_name(d->reason),
                     sched_reason_name(w->reason));
        return;
    }
    if (d->nnodes != 1 || (int)d->nodes[0] != w->node)
        fail_msg("%s: job %zu: on %d (%zu nodes, %s), want node %d", k->what, i,
                 d->nnodes ? (int)d->nodes[0] : -1, d->nnodes,
                 sched_reason_name(d->reason), w->node);
    for (uint32_t g = 0; g < k->j[i].gpus; g++)
        got |= UINT64_C(1) << d->gpus[g];
    if (got != w->gpus)
        fail_msg("%s: job %zu: GPUs 0x%llx, want 0x%llx", k->what, i,
                 (unsigned long long)got, (unsigned long long)w->gpus);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct gpu_case *k = &cases[c];
        struct model m;
        struct sched_cluster cl;
        struct sched_result r;
        uint64_t before[MAXN];

        build(&m, k);
        memcpy(before, m.used, sizeof(before));
        cl = (struct sched_cluster){m.nodes, k->nn,  &m.part, 1, m.jobs,
                                    k->nj,   k->fit, NULL,    0};
        assert_int_equal(sched_pass(&cl, 100, &r), 0);
        for (size_t i = 0; i < k->nj; i++)
            check_job(k, i, decision_for(&r, i));
        /* what was given out is marked, and nothing twice */
        for (size_t i = 0; i < r.n; i++) {
            const struct sched_decision *d = &r.decisions[i];
            uint32_t g = k->j[d->job].gpus;
            for (size_t n = 0; n < d->nnodes; n++)
                for (uint32_t x = 0; x < g; x++) {
                    uint64_t b = UINT64_C(1) << d->gpus[n * g + x];
                    assert_true(m.used[d->nodes[n]] & b);
                    assert_false(before[d->nodes[n]] & b);
                    before[d->nodes[n]] |= b;
                }
        }
        sched_result_clear(&r);
    }
}

/* 16 one-GPU jobs on 4 nodes of 4: every (node, index) once; the 17th
 * waits; after one ends, the 17th gets exactly the freed GPU. */
static void test_sixteen_unique(void **state)
{
    static const struct gpu_case k = {"16",
                                      SCHED_FIT_BEST,
                                      4,
                                      {{4, NULL, 0, NULL, 0, false},
                                       {4, NULL, 0, NULL, 0, false},
                                       {4, NULL, 0, NULL, 0, false},
                                       {4, NULL, 0, NULL, 0, false}},
                                      0,
                                      {{0}},
                                      {{0}}};
    struct model m;
    struct sched_job jobs[17];
    struct sched_cluster cl;
    struct sched_result r;
    bool seen[4][4] = {{false}};

    (void)state;
    for (int fit = 0; fit < 2; fit++) {
        build(&m, &k);
        memset(seen, 0, sizeof(seen));
        for (size_t i = 0; i < 17; i++)
            jobs[i] = (struct sched_job){.id = i + 1,
                                         .nodes = 1,
                                         .cpus_per_node = 1,
                                         .submit_time = (time_t)i,
                                         .gpus_per_node = 1};
        cl = (struct sched_cluster){
            m.nodes, 4, &m.part, 1, jobs, 17, (enum sched_fit)fit, NULL, 0};
        assert_int_equal(sched_pass(&cl, 100, &r), 0);
        assert_int_equal(r.started, 16);
        for (size_t i = 0; i < 16; i++) {
            const struct sched_decision *d = decision_for(&r, i);
            assert_false(seen[d->nodes[0]][d->gpus[0]]);
            seen[d->nodes[0]][d->gpus[0]] = true;
        }
        assert_int_equal(decision_for(&r, 16)->reason, SCHED_REASON_RESOURCES);
        /* job 5 ends: its GPU is free for the next pass */
        const struct sched_decision *ended = decision_for(&r, 5);
        size_t node = ended->nodes[0];
        uint32_t gpu = ended->gpus[0];
        m.used[node] &= ~(UINT64_C(1) << gpu);
        m.nodes[node].cpus_alloc--;
        sched_result_clear(&r);
        cl.jobs = &jobs[16];
        cl.njobs = 1;
        assert_int_equal(sched_pass(&cl, 101, &r), 0);
        assert_int_equal(r.decisions[0].nodes[0], node);
        assert_int_equal(r.decisions[0].gpus[0], gpu);
        sched_result_clear(&r);
    }
}

/* A job on two nodes gets GPUs on each, listed node by node. */
static void test_multi_node(void **state)
{
    static const struct gpu_case k = {"multi",
                                      SCHED_FIT_BEST,
                                      3,
                                      {{4, NULL, 0x1, NULL, 0, false},
                                       {4, NULL, 0x0, NULL, 0, false},
                                       {4, NULL, 0x3, NULL, 0, false}},
                                      0,
                                      {{0}},
                                      {{0}}};
    struct model m;
    struct sched_job j = {
        .id = 1, .nodes = 2, .cpus_per_node = 1, .gpus_per_node = 2};
    struct sched_cluster cl;
    struct sched_result r;

    (void)state;
    build(&m, &k);
    cl = (struct sched_cluster){m.nodes,        3,    &m.part, 1, &j, 1,
                                SCHED_FIT_BEST, NULL, 0};
    assert_int_equal(sched_pass(&cl, 100, &r), 0);
    assert_int_equal(r.decisions[0].nnodes, 2);
    /* node 2 (2 free, none left), then node 0 (3 free, 1 left) */
    assert_int_equal(r.decisions[0].nodes[0], 2);
    assert_int_equal(r.decisions[0].nodes[1], 0);
    assert_int_equal(r.decisions[0].gpus[0], 2);
    assert_int_equal(r.decisions[0].gpus[1], 3);
    assert_int_equal(r.decisions[0].gpus[2], 1);
    assert_int_equal(r.decisions[0].gpus[3], 2);
    assert_int_equal(m.used[0], 0x7);
    assert_int_equal(m.used[2], 0xf);
    sched_result_clear(&r);
}

/* Bitmaps wider than a word: the 65th GPU and beyond. */
static void test_wide_node(void **state)
{
    struct sched_gpu gpus[100];
    uint64_t used[SCHED_GPU_WORDS(100)] = {~UINT64_C(0), 0x3};
    char a[] = "a", b[] = "b";
    struct sched_node n = {.name = "wide",
                           .cpus = 128,
                           .mem_mib = 1,
                           .up = true,
                           .ngpus = 100,
                           .gpus = gpus,
                           .gpu_used = used};
    uint32_t out[4];

    (void)state;
    for (int i = 0; i < 100; i++)
        gpus[i] = (struct sched_gpu){i % 2 ? b : a, NULL};
    assert_int_equal(select_gpus_free(&n, NULL), 34);
    assert_int_equal(select_gpus_free(&n, "b"), 17);
    assert_int_equal(select_gpus_total(&n, "a"), 50);
    assert_int_equal(select_gpus(&n, "b", 4, out), 0);
    assert_int_equal(out[0], 67);
    assert_int_equal(out[3], 73);
    assert_int_equal(select_gpus(&n, "a", 18, (uint32_t[18]){0}), -1);
}

static void test_model_checked(void **state)
{
    struct sched_node n = {.name = "n", .cpus = 1, .up = true, .ngpus = 2};
    size_t idx = 0;
    struct sched_part p = {"p", true, false, &idx, 1};
    struct sched_cluster cl = {&n, 1, &p, 1, NULL, 0, SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    /* GPUs without a bitmap to mark them in */
    assert_int_equal(sched_pass(&cl, 1, &r), -1);
    n.ngpus = SCHED_GPU_MAX + 1;
    n.gpu_used = (uint64_t[1]){0};
    assert_int_equal(sched_pass(&cl, 1, &r), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_sixteen_unique),
        cmocka_unit_test(test_multi_node),
        cmocka_unit_test(test_wide_node),
        cmocka_unit_test(test_model_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
