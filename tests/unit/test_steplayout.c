/*
 * srun's task layout (src/sched/steplayout.c) against Slurm's documented
 * results: each case is a job's nodes (with what running steps hold), a
 * step request, and where the tasks go (ids per node, CPUs and GPUs held)
 * or the error and its message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/steplayout.h"

#define MAXN 4
#define MAXG 8

/* One node of the job: its GPUs are indices 0..gpus-1 and gpu_busy has a
 * bit set for each one a running step holds. */
struct tnode {
    const char *name;
    uint32_t cpus, cpus_free, gpus, gpu_busy;
    uint64_t mem_mib;
};

struct tcase {
    const char *what;
    struct tnode nodes[MAXN];
    struct sl_req req;
    int errnum;       /* 0: success */
    const char *want; /* the layout (see show) or the message */
    const char *warning;
};

/* Jobs: two nodes of 4 CPUs; three of 2 CPUs (the srun man page's
 * example); three of 4; one with 8 CPUs and 4 GPUs. */
#define TWO_X4                                                                 \
    {                                                                          \
        {"node01", 4, 4, 0, 0, 0},                                             \
        {                                                                      \
            "node02", 4, 4, 0, 0, 0                                            \
        }                                                                      \
    }
#define THREE_X2                                                               \
    {                                                                          \
        {"node01", 2, 2, 0, 0, 0}, {"node02", 2, 2, 0, 0, 0},                  \
        {                                                                      \
            "node03", 2, 2, 0, 0, 0                                            \
        }                                                                      \
    }
#define THREE_X4                                                               \
    {                                                                          \
        {"node01", 4, 4, 0, 0, 0}, {"node02", 4, 4, 0, 0, 0},                  \
        {                                                                      \
            "node03", 4, 4, 0, 0, 0                                            \
        }                                                                      \
    }
#define GPU4                                                                   \
    {                                                                          \
        {                                                                      \
            "node01", 8, 8, 4, 0, 0                                            \
        }                                                                      \
    }

static const struct tcase cases[] = {
    /* counts and ids */
    {"nothing asked: one task per node",
     TWO_X4,
     {0},
     0,
     "node01[0] c4; node02[1] c4",
     NULL},
    {"5 tasks over 2 nodes, block",
     TWO_X4,
     {.ntasks = 5},
     0,
     "node01[0,1,2] c4; node02[3,4] c4",
     NULL},
    {"5 tasks over 2 nodes, cyclic",
     TWO_X4,
     {.ntasks = 5, .dist = SL_DIST_CYCLIC},
     0,
     "node01[0,2,4] c4; node02[1,3] c4",
     NULL},
    {"man page: 3 nodes x 2 CPUs, 4 tasks block",
     THREE_X2,
     {.ntasks = 4},
     0,
     "node01[0,1] c2; node02[2] c2; node03[3] c2",
     NULL},
    {"man page: 3 nodes x 2 CPUs, 4 tasks cyclic",
     THREE_X2,
     {.ntasks = 4, .dist = SL_DIST_CYCLIC},
     0,
     "node01[0,3] c2; node02[1] c2; node03[2] c2",
     NULL},
    {"nodes of different sizes fill by their CPUs",
     {{"node01", 4, 4, 0, 0, 0}, {"node02", 2, 2, 0, 0, 0}},
     {.ntasks = 6},
     0,
     "node01[0,1,2,3] c4; node02[4,5] c2",
     NULL},
    /* node counts */
    {"-n 1 in a 2-node job",
     TWO_X4,
     {.ntasks = 1},
     0,
     "node01[0] c4",
     "can't run 1 processes on 2 nodes, setting nnodes to 1"},
    {"-N 2 -n 1",
     TWO_X4,
     {.ntasks = 1, .nodes_min = 2, .nodes_max = 2},
     0,
     "node01[0] c4",
     "can't run 1 processes on 2 nodes, setting nnodes to 1"},
    {"-N 3 in a 2-node job",
     TWO_X4,
     {.nodes_min = 3, .nodes_max = 3},
     EINVAL,
     "Only allocated 2 nodes asked for 3",
     NULL},
    {"-N 1 -n 3",
     TWO_X4,
     {.ntasks = 3, .nodes_min = 1, .nodes_max = 1},
     0,
     "node01[0,1,2] c4",
     NULL},
    {"-N 1-3 takes the minimum",
     THREE_X4,
     {.nodes_min = 1, .nodes_max = 3},
     0,
     "node01[0] c4",
     NULL},
    /* --ntasks-per-node */
    {"-n 8 -N 2 --ntasks-per-node=4",
     TWO_X4,
     {.ntasks = 8, .nodes_min = 2, .nodes_max = 2, .ntasks_per_node = 4},
     0,
     "node01[0,1,2,3] c4; node02[4,5,6,7] c4",
     NULL},
    {"--ntasks-per-node=4 -n 9 -N 2",
     THREE_X4,
     {.ntasks = 9, .nodes_min = 2, .nodes_max = 2, .ntasks_per_node = 4},
     EINVAL,
     "--ntasks-per-node=4 with -n 9 and -N 2 needs 3 nodes",
     NULL},
    {"--ntasks-per-node=4 -n 9 -N 2-3 grows to 3 nodes",
     THREE_X4,
     {.ntasks = 9, .nodes_min = 2, .nodes_max = 3, .ntasks_per_node = 4},
     0,
     "node01[0,1,2] c4; node02[3,4,5] c4; node03[6,7,8] c4",
     NULL},
    {"--ntasks-per-node=4 -n 8 without -N packs on 2 nodes",
     THREE_X4,
     {.ntasks = 8, .ntasks_per_node = 4},
     0,
     "node01[0,1,2,3] c4; node02[4,5,6,7] c4",
     NULL},
    {"--ntasks-per-node=4 -n 9 without -N in a 2-node job",
     TWO_X4,
     {.ntasks = 9, .ntasks_per_node = 4},
     EINVAL,
     "--ntasks-per-node=4 with -n 9 needs 3 nodes but the step may use 2",
     NULL},
    {"--ntasks-per-node=2 -N 2 without -n",
     THREE_X4,
     {.nodes_min = 2, .nodes_max = 2, .ntasks_per_node = 2},
     0,
     "node01[0,1] c4; node02[2,3] c4",
     NULL},
    {"--ntasks-per-node=3 -n 5 -N 2 caps and spreads",
     TWO_X4,
     {.ntasks = 5, .nodes_min = 2, .nodes_max = 2, .ntasks_per_node = 3},
     0,
     "node01[0,1,2] c4; node02[3,4] c4",
     NULL},
    /* CPUs per task */
    {"-c 2 -n 4",
     TWO_X4,
     {.ntasks = 4, .cpus_per_task = 2},
     0,
     "node01[0,1] c4; node02[2,3] c4",
     NULL},
    {"-c 2 -n 8 is over the job's CPUs",
     TWO_X4,
     {.ntasks = 8, .cpus_per_task = 2},
     EINVAL,
     "More processors requested than permitted",
     NULL},
    {"-c 2 -n 3 -N 1 is over one node's CPUs",
     TWO_X4,
     {.ntasks = 3, .cpus_per_task = 2, .nodes_min = 1, .nodes_max = 1},
     EINVAL,
     "More processors requested than permitted",
     NULL},
    {"-c 4 where a node has 2 CPUs",
     {{"node01", 8, 8, 0, 0, 0}, {"node02", 2, 2, 0, 0, 0}},
     {.ntasks = 2, .cpus_per_task = 4},
     EINVAL,
     "More processors requested than permitted: node02 has 2 CPUs, fewer "
     "than -c 4",
     NULL},
    /* -w and -x */
    {"-w node02", TWO_X4, {.nodelist = "node02"}, 0, "node02[0] c4", NULL},
    {"-w a node outside the job",
     TWO_X4,
     {.nodelist = "node[02,09]"},
     EINVAL,
     "node09 is not in the job's allocation (node[01-02])",
     NULL},
    {"-w a bad expression",
     TWO_X4,
     {.nodelist = "node[01"},
     EINVAL,
     "--nodelist: bad hostlist \"node[01\": unterminated '['",
     NULL},
    {"-x node01", TWO_X4, {.exclude = "node01"}, 0, "node02[0] c4", NULL},
    {"-x a node outside the job changes nothing",
     TWO_X4,
     {.exclude = "node07"},
     0,
     "node01[0] c4; node02[1] c4",
     NULL},
    {"-x every node",
     TWO_X4,
     {.exclude = "node[01-02]"},
     EINVAL,
     "Requested node configuration is not available: --exclude leaves none "
     "of the job's nodes",
     NULL},
    {"-w and -x name the same node",
     TWO_X4,
     {.nodelist = "node01", .exclude = "node01"},
     EINVAL,
     "node01 is both in --nodelist and in --exclude",
     NULL},
    {"-N 2 -w node03 adds the first other node",
     THREE_X4,
     {.nodes_min = 2, .nodes_max = 2, .nodelist = "node03"},
     0,
     "node01[0] c4; node03[1] c4",
     NULL},
    {"-N 1 -w two nodes",
     THREE_X4,
     {.nodes_min = 1, .nodes_max = 1, .nodelist = "node[01-02]"},
     EINVAL,
     "Requested node configuration is not available: --nodelist names 2 "
     "nodes but -N allows at most 1",
     NULL},
    {"-N 3 -x node01 in a 3-node job",
     THREE_X4,
     {.nodes_min = 3, .nodes_max = 3, .exclude = "node01"},
     EINVAL,
     "Requested node configuration is not available: -N 3 but --exclude "
     "leaves 2 of the job's nodes",
     NULL},
    /* holding CPUs: default (all of the job's CPUs), --exact, --overlap */
    {"default holds every CPU of the node",
     TWO_X4,
     {.ntasks = 1, .nodes_min = 1, .nodes_max = 1},
     0,
     "node01[0] c4",
     NULL},
    {"--exact holds tasks x cpus per task",
     TWO_X4,
     {.ntasks = 1,
      .nodes_min = 1,
      .nodes_max = 1,
      .exact = true,
      .cpus_per_task = 2},
     0,
     "node01[0] c2",
     NULL},
    {"--overlap holds none",
     TWO_X4,
     {.ntasks = 2, .overlap = true},
     0,
     "node01[0] c0; node02[1] c0",
     NULL},
    {"default -N 1 passes a node another step uses",
     {{"node01", 4, 1, 0, 0, 0}, {"node02", 4, 4, 0, 0, 0}},
     {.ntasks = 1, .nodes_min = 1, .nodes_max = 1},
     0,
     "node02[0] c4",
     NULL},
    {"default needs every CPU free: busy",
     {{"node01", 4, 3, 0, 0, 0}, {"node02", 4, 2, 0, 0, 0}},
     {.ntasks = 1, .nodes_min = 1, .nodes_max = 1},
     EAGAIN,
     "Requested nodes are busy",
     NULL},
    {"--exact fits in what is free",
     {{"node01", 4, 2, 0, 0, 0}, {"node02", 4, 4, 0, 0, 0}},
     {.ntasks = 2, .nodes_min = 1, .nodes_max = 1, .exact = true},
     0,
     "node01[0,1] c2",
     NULL},
    {"--exact -N 1 passes a node without room",
     {{"node01", 4, 1, 0, 0, 0}, {"node02", 4, 4, 0, 0, 0}},
     {.ntasks = 2, .nodes_min = 1, .nodes_max = 1, .exact = true},
     0,
     "node02[0,1] c2",
     NULL},
    {"--exact busy on every node",
     {{"node01", 4, 1, 0, 0, 0}, {"node02", 4, 1, 0, 0, 0}},
     {.ntasks = 4, .exact = true},
     EAGAIN,
     "Requested nodes are busy",
     NULL},
    {"--overlap runs on busy nodes",
     {{"node01", 4, 0, 0, 0, 0}, {"node02", 4, 0, 0, 0, 0}},
     {.ntasks = 2, .overlap = true},
     0,
     "node01[0] c0; node02[1] c0",
     NULL},
    {"never fits wins over busy",
     {{"node01", 4, 0, 0, 0, 0}, {"node02", 4, 0, 0, 0, 0}},
     {.ntasks = 12},
     EINVAL,
     "More processors requested than permitted",
     NULL},
    {"-N 2 of 3 passes the busy node",
     {{"node01", 4, 4, 0, 0, 0},
      {"node02", 4, 0, 0, 0, 0},
      {"node03", 4, 4, 0, 0, 0}},
     {.nodes_min = 2, .nodes_max = 2},
     0,
     "node01[0] c4; node03[1] c4",
     NULL},
    /* GPUs */
    {"no GPU request sees all of the job's GPUs, holds none",
     GPU4,
     {.ntasks = 2},
     0,
     "node01[0,1] c8 g0,1,2,3",
     NULL},
    {"--gpus-per-task=1 -n 4: a GPU each",
     GPU4,
     {.ntasks = 4, .gpus_per_task = 1},
     0,
     "node01[0,1,2,3] c8 g0,1,2,3 held",
     NULL},
    {"--gpus-per-task=2 -n 2 takes the lowest free",
     GPU4,
     {.ntasks = 2, .gpus_per_task = 2},
     0,
     "node01[0,1] c8 g0,1,2,3 held",
     NULL},
    {"--gpus-per-task=5 -n 4 can never fit",
     GPU4,
     {.ntasks = 4, .gpus_per_task = 5},
     EINVAL,
     "the step asks for 5 GPUs per task (20 on node01) but the job has 4 "
     "GPUs there",
     NULL},
    {"--gpus-per-node=6 can never fit",
     GPU4,
     {.gpus_per_node = 6},
     EINVAL,
     "the step asks for 6 GPUs per node but the job has 4 GPUs on node01",
     NULL},
    {"--gpus-per-node=2 with GPUs 0 and 1 held",
     {{"node01", 8, 8, 4, 0x3, 0}},
     {.gpus_per_node = 2, .exact = true},
     0,
     "node01[0] c1 g2,3 held",
     NULL},
    {"--gpus-per-task=1 -n 2 with 3 GPUs held: busy",
     {{"node01", 8, 8, 4, 0xb, 0}},
     {.ntasks = 2, .gpus_per_task = 1, .exact = true},
     EAGAIN,
     "Requested nodes are busy",
     NULL},
    {"--overlap sees held GPUs and holds none",
     {{"node01", 8, 0, 4, 0xf, 0}},
     {.ntasks = 2, .gpus_per_task = 1, .overlap = true},
     0,
     "node01[0,1] c0 g0,1",
     NULL},
    /* memory */
    {"--mem over the job's memory",
     {{"node01", 4, 4, 0, 0, 4000}, {"node02", 4, 4, 0, 0, 4000}},
     {.mem_mib = 8000},
     EINVAL,
     "Memory required by task is not available: the step asks for 8000 MiB "
     "per node but the job has 4000 MiB on node01",
     NULL},
    {"--mem within the job's memory",
     {{"node01", 4, 4, 0, 0, 4000}, {"node02", 4, 4, 0, 0, 4000}},
     {.mem_mib = 2000},
     0,
     "node01[0] c4; node02[1] c4",
     NULL},
};

static const uint32_t gpu_ids[MAXG] = {0, 1, 2, 3, 4, 5, 6, 7};

/* show: "node01[0,1] c4 g0,1 held; node02[2] c4". */
static void show(const struct sl_layout *l, const struct sl_node *nodes,
                 char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < l->n_nodes; k++) {
        const struct sl_node_out *o = &l->nodes[k];
        at += (size_t)snprintf(buf + at, len - at, "%s%s[", k ? "; " : "",
                               nodes[o->node].name);
        for (uint32_t t = 0; t < o->ntasks; t++)
            at += (size_t)snprintf(buf + at, len - at, "%s%u", t ? "," : "",
                                   o->tasks[t]);
        at += (size_t)snprintf(buf + at, len - at, "] c%u", o->cpus);
        for (uint32_t g = 0; g < o->n_gpus; g++)
            at += (size_t)snprintf(buf + at, len - at, "%s%u", g ? "," : " g",
                                   o->gpus[g]);
        if (o->gpus_held)
            at += (size_t)snprintf(buf + at, len - at, " held");
    }
}

/* run_case: lay c out; the layout shown or the error message in buf. */
static int run_case(const struct tcase *c, struct sl_layout *l, char *buf,
                    size_t len)
{
    struct sl_node nodes[MAXN];
    bool free_gpus[MAXN][MAXG];
    size_t n = 0;
    struct err e = {""};
    int rc;

    for (; n < MAXN && c->nodes[n].name != NULL; n++) {
        const struct tnode *t = &c->nodes[n];
        for (uint32_t g = 0; g < MAXG; g++)
            free_gpus[n][g] = (t->gpu_busy & (1u << g)) == 0;
        nodes[n] =
            (struct sl_node){.name = t->name,
                             .cpus = t->cpus,
                             .cpus_free = t->cpus_free,
                             .n_gpus = t->gpus,
                             .gpus = t->gpus ? gpu_ids : NULL,
                             .gpu_free = t->gpu_busy ? free_gpus[n] : NULL,
                             .mem_mib = t->mem_mib};
    }
    errno = 0;
    rc = steplayout_plan(nodes, n, &c->req, l, &e);
    if (rc == 0)
        show(l, nodes, buf, len);
    else
        snprintf(buf, len, "%s", e.text);
    return rc;
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct tcase *c = &cases[i];
        struct sl_layout l;
        char got[512];
        int rc = run_case(c, &l, got, sizeof(got));
        int errnum = rc == 0 ? 0 : errno;

        if (errnum != c->errnum || strcmp(got, c->want) != 0)
            fail_msg("%s: got errno %d \"%s\", want %d \"%s\"", c->what, errnum,
                     got, c->errnum, c->want);
        if (rc == 0 && (c->warning == NULL) != (l.warning == NULL))
            fail_msg("%s: warning \"%s\"", c->what,
                     l.warning ? l.warning : "(none)");
        if (rc == 0 && c->warning != NULL)
            assert_string_equal(l.warning, c->warning);
        if (rc != 0)
            assert_int_equal(l.n_nodes, 0);
        steplayout_clear(&l);
    }
}

/* With --gpus-per-task the header gives local task L gpus[L * gpt ...]:
 * the totals and the per-task share say so. */
static void test_gpus_per_task_fields(void **state)
{
    const struct tcase c = {"", GPU4, {.ntasks = 2, .gpus_per_task = 2},
                            0,  "",   NULL};
    struct sl_layout l;
    char got[256];

    (void)state;
    assert_int_equal(run_case(&c, &l, got, sizeof(got)), 0);
    assert_int_equal(l.ntasks, 2);
    assert_int_equal(l.gpus_per_task, 2);
    assert_int_equal(l.cpus_per_task, 1);
    assert_int_equal(l.nodes[0].n_gpus, 4);
    steplayout_clear(&l);
    steplayout_clear(NULL);
}

/* check_layout: the invariants of any layout of r over nodes: every task
 * placed once, ascending on its node, block consecutive; CPUs within the
 * job's; what is held was free; GPUs distinct, the job's, free if held. */
static void check_layout(const struct sl_layout *l, const struct sl_node *nodes,
                         const struct sl_req *r)
{
    uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
    bool seen[64] = {false};
    uint32_t placed = 0;

    assert_true(l->n_nodes > 0 && l->ntasks <= 64);
    for (size_t k = 0; k < l->n_nodes; k++) {
        const struct sl_node_out *o = &l->nodes[k];
        const struct sl_node *nd = &nodes[o->node];
        assert_true(o->ntasks > 0 && o->ntasks * cpt <= nd->cpus);
        assert_true(k == 0 || o->node > l->nodes[k - 1].node);
        for (uint32_t t = 0; t < o->ntasks; t++) {
            assert_true(o->tasks[t] < l->ntasks && !seen[o->tasks[t]]);
            seen[o->tasks[t]] = true;
            assert_true(t == 0 || o->tasks[t] > o->tasks[t - 1]);
            if (r->dist == SL_DIST_BLOCK)
                assert_int_equal(o->tasks[t], placed + t);
        }
        placed += o->ntasks;
        if (r->overlap)
            assert_int_equal(o->cpus, 0);
        else
            assert_true(o->cpus <= nd->cpus_free);
        for (uint32_t g = 0; g < o->n_gpus; g++) {
            uint32_t id = o->gpus[g];
            assert_true(id < nd->n_gpus);
            assert_true(g == 0 || id > o->gpus[g - 1]);
            if (o->gpus_held)
                assert_true(nd->gpu_free == NULL || nd->gpu_free[id]);
        }
    }
    assert_int_equal(placed, l->ntasks);
}

/* Random jobs and requests: a layout keeps the invariants; a busy answer
 * turns into a layout once nothing else runs, and a never-fits answer
 * stays one. */
static void test_random(void **state)
{
    static const char *names[MAXN] = {"node01", "node02", "node03", "node04"};
    bool free_gpus[MAXN][MAXG], all_free[MAXN][MAXG];
    unsigned seed = 14;

    (void)state;
    memset(all_free, 1, sizeof(all_free));
    for (int iter = 0; iter < 20000; iter++) {
        struct sl_node nodes[MAXN], idle[MAXN];
        size_t n = 1 + (size_t)(rand_r(&seed) % MAXN);
        struct sl_req r = {0};
        struct sl_layout l, l2;
        struct err e = {""};
        int rc, err;

        for (size_t i = 0; i < n; i++) {
            uint32_t cpus = 1 + (uint32_t)(rand_r(&seed) % 8);
            uint32_t gpus = (uint32_t)(rand_r(&seed) % 5);
            for (uint32_t g = 0; g < MAXG; g++)
                free_gpus[i][g] = rand_r(&seed) % 3 != 0;
            nodes[i] = (struct sl_node){
                .name = names[i],
                .cpus = cpus,
                .cpus_free = (uint32_t)(rand_r(&seed) % (cpus + 1)),
                .n_gpus = gpus,
                .gpus = gpus ? gpu_ids : NULL,
                .gpu_free = free_gpus[i],
                .mem_mib = 1000};
            idle[i] = nodes[i];
            idle[i].cpus_free = cpus;
            idle[i].gpu_free = all_free[i];
        }
        r.ntasks = (uint32_t)(rand_r(&seed) % 10);
        r.nodes_min = (uint32_t)(rand_r(&seed) % 4);
        r.nodes_max = rand_r(&seed) % 2 ? r.nodes_min : 0;
        r.ntasks_per_node = (uint32_t)(rand_r(&seed) % 4);
        r.cpus_per_task = (uint32_t)(rand_r(&seed) % 3);
        r.gpus_per_task = rand_r(&seed) % 3 == 0 ? 1 : 0;
        r.gpus_per_node = rand_r(&seed) % 4 == 0 ? 2 : 0;
        r.mem_mib = rand_r(&seed) % 8 == 0 ? 2000 : 0;
        r.exclude = rand_r(&seed) % 6 == 0 ? "node02" : NULL;
        r.nodelist = rand_r(&seed) % 6 == 0 ? "node01" : NULL;
        r.dist = rand_r(&seed) % 2 ? SL_DIST_CYCLIC : SL_DIST_BLOCK;
        r.exact = rand_r(&seed) % 2;
        r.overlap = rand_r(&seed) % 4 == 0;
        rc = steplayout_plan(nodes, n, &r, &l, &e);
        err = errno;
        if (rc == 0) {
            check_layout(&l, nodes, &r);
            steplayout_clear(&l);
            continue;
        }
        if (err != EINVAL && err != EAGAIN)
            fail_msg("iteration %d: errno %d \"%s\"", iter, err, e.text);
        assert_true(e.text[0] != '\0');
        rc = steplayout_plan(idle, n, &r, &l2, &e);
        if ((err == EAGAIN) != (rc == 0))
            fail_msg("iteration %d: %s when busy, then \"%s\" when idle", iter,
                     err == EAGAIN ? "busy" : "never", e.text);
        if (rc == 0)
            check_layout(&l2, idle, &r);
        steplayout_clear(&l2);
    }
}

static void test_counts(void **state)
{
    static const struct {
        uint32_t counts[6];
        size_t n;
        const char *want;
    } cases_c[] = {
        {{0}, 0, ""},
        {{1}, 1, "1"},
        {{4, 4}, 2, "4(x2)"},
        {{4, 4, 3}, 3, "4(x2),3"},
        {{2, 1, 1, 2}, 4, "2,1(x2),2"},
        {{3, 2, 3, 3, 3, 1}, 6, "3,2,3(x3),1"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases_c) / sizeof(cases_c[0]); i++) {
        char *s = steplayout_counts(cases_c[i].counts, cases_c[i].n);
        assert_string_equal(s, cases_c[i].want);
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_gpus_per_task_fields),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
