/*
 * Victim choice with PreemptMode=SUSPEND (src/sched/preempt.c): a victim
 * that is suspended rather than killed frees its CPUs only — its memory
 * and GPUs stay held — and loses no work, so among equals it goes first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/preempt.h"

#define NOW 100000

/* One node of 8 CPUs, 1000 MiB and 2 GPUs, and up to 2 running jobs. */
struct one {
    struct sched_node node;
    uint64_t used;
    size_t pnode;
    struct sched_part part;
    struct sched_cluster c;
    struct sched_victim v[2];
    uint32_t gpus[2][2];
    size_t nv;
    struct sched_preempt_params p;
};

static const size_t node0 = 0;

static void one_init(struct one *t)
{
    memset(t, 0, sizeof(*t));
    t->node = (struct sched_node){.name = "n1",
                                  .cpus = 8,
                                  .mem_mib = 1000,
                                  .up = true,
                                  .ngpus = 2,
                                  .gpu_used = &t->used};
    t->part = (struct sched_part){
        .name = "p", .start_jobs = true, .nodes = &t->pnode, .nnodes = 1};
    t->c = (struct sched_cluster){
        .nodes = &t->node, .nnodes = 1, .parts = &t->part, .nparts = 1};
    t->p.reorder_count = 1;
}

/* A running job of cpus, mem and ngpus (the first free positions),
 * charged to the node; suspend: PreemptMode=SUSPEND. */
static void one_run(struct one *t, uint32_t cpus, uint64_t mem, uint32_t ngpus,
                    bool suspend)
{
    struct sched_victim *v = &t->v[t->nv];

    for (uint32_t g = 0, p = 0; g < ngpus; p++)
        if (!(t->used >> p & 1)) {
            t->gpus[t->nv][g++] = p;
            t->used |= UINT64_C(1) << p;
        }
    t->node.cpus_alloc += cpus;
    t->node.mem_alloc_mib += mem;
    *v = (struct sched_victim){.id = 10 + t->nv,
                               .nodes = &node0,
                               .nnodes = 1,
                               .cpus_per_node = cpus,
                               .mem_per_node_mib = mem,
                               .gpus_per_node = ngpus,
                               .gpus = ngpus ? t->gpus[t->nv] : NULL,
                               .tier = 1,
                               .priority = 10,
                               .start_time = NOW - 600,
                               .may = true,
                               .suspend = suspend};
    t->nv++;
}

/* The victims chosen as a bitmask; -1: no set lets j start. */
static long find(struct one *t, uint32_t cpus, uint64_t mem, uint32_t gpus)
{
    struct sched_job j = {.id = 1,
                          .nodes = 1,
                          .cpus_per_node = cpus,
                          .mem_per_node_mib = mem,
                          .gpus_per_node = gpus,
                          .priority = 1000,
                          .tier = 2};
    struct sched_preempt_plan plan;
    long mask = 0;
    int rc = sched_preempt_find(&t->c, &j, t->v, t->nv, NOW, &t->p, &plan);

    assert_true(rc >= 0);
    if (rc == 0)
        return -1;
    for (size_t i = 0; i < plan.nvictims; i++)
        mask |= 1L << plan.victims[i];
    sched_preempt_plan_clear(&plan);
    return mask;
}

static void test_suspend_frees_cpus_only(void **state)
{
    static const struct {
        bool suspend;
        uint32_t cpus;
        uint64_t mem;
        uint32_t gpus;
        long want;
    } cases[] = {
        {true, 4, 10, 0, 1},   /* CPUs: freed by the suspension */
        {true, 1, 10, 1, -1},  /* a GPU: the suspended job keeps them */
        {true, 1, 500, 0, -1}, /* memory: kept too */
        {false, 1, 10, 1, 1},  /* killed (requeue), it frees its GPUs */
        {false, 1, 500, 0, 1}, /* and its memory */
        {true, 9, 10, 0, -1},  /* more CPUs than the node has: never */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct one t;
        one_init(&t);
        one_run(&t, 8, 900, 2, cases[i].suspend);
        long got = find(&t, cases[i].cpus, cases[i].mem, cases[i].gpus);
        if (got != cases[i].want)
            print_message("case %zu: got %ld\n", i, got);
        assert_int_equal(got, cases[i].want);
    }
}

/* Two equal CPU victims, one to be requeued and one to be suspended: the
 * suspension loses no work, so it is chosen. */
static void test_suspend_preferred(void **state)
{
    struct one t;

    (void)state;
    one_init(&t);
    one_run(&t, 4, 10, 0, false);
    one_run(&t, 4, 10, 0, true);
    assert_int_equal(find(&t, 4, 10, 0), 2);
    t.v[1].suspend = false;
    t.v[0].suspend = true;
    assert_int_equal(find(&t, 4, 10, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suspend_frees_cpus_only),
        cmocka_unit_test(test_suspend_preferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
