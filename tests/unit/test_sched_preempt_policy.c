/*
 * The preemption policy (src/sched/preempt_policy.c): PreemptType, the
 * victim's PreemptMode and action, exempt and grace times, table-driven;
 * and a plan carried out on the model (held resources, claim).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/timefmt.h"
#include "sched/preempt_policy.h"

static char *prod_list[] = {"dev_qos", "backtest_qos"};

static const struct sched_preempt_qos prod_qos = {
    .name = "prod_qos",
    .exempt_time_s = -1,
    .preempt = prod_list,
    .npreempt = 2,
};
static const struct sched_preempt_qos off_qos = {
    .name = "off_qos",
    .mode_set = true,
    .mode = CONF_PREEMPT_MODE_OFF,
    .exempt_time_s = -1,
};
static const struct sched_preempt_qos susp_qos = {
    .name = "dev_qos",
    .mode_set = true,
    .mode = CONF_PREEMPT_MODE_SUSPEND,
    .exempt_time_s = 60,
    .grace_time_s = 30,
};
static const struct sched_preempt_qos ckpt_qos = {
    .name = "ckpt_qos",
    .exempt_time_s = 600,
    .exempt_until_checkpoint = true,
};

static struct sched_preempt_job job(uint32_t tier, const char *qname,
                                    const struct sched_preempt_qos *q)
{
    return (struct sched_preempt_job){.tier = tier,
                                      .qos_name = qname,
                                      .qos = q,
                                      .part_mode = CONF_PREEMPT_MODE_REQUEUE,
                                      .part_grace_s = 5,
                                      .requeue = true,
                                      .start_time = 1000};
}

static void test_may(void **state)
{
    struct sched_preempt_conf pp = {.type = CONF_PREEMPT_PARTITION_PRIO};
    struct sched_preempt_conf pq = {.type = CONF_PREEMPT_QOS};
    struct sched_preempt_conf pn = {.type = CONF_PREEMPT_NONE};
    const struct {
        const struct sched_preempt_conf *pc;
        struct sched_preempt_job pj, v;
        bool may;
    } cases[] = {
        /* partition_prio: a lower tier only */
        {&pp, job(100, NULL, NULL), job(10, NULL, NULL), true},
        {&pp, job(10, NULL, NULL), job(10, NULL, NULL), false},
        {&pp, job(10, NULL, NULL), job(100, NULL, NULL), false},
        /* a victim whose QOS says PreemptMode=OFF: never */
        {&pp, job(100, NULL, NULL), job(10, "off_qos", &off_qos), false},
        /* qos: the victim's QOS in the preemptor's Preempt list, tiers
         * aside */
        {&pq, job(1, "prod_qos", &prod_qos), job(100, "dev_qos", &susp_qos),
         true},
        {&pq, job(1, "prod_qos", &prod_qos), job(1, "off_qos", &off_qos),
         false},
        {&pq, job(1, "prod_qos", &prod_qos), job(1, "ckpt_qos", &ckpt_qos),
         false},
        /* a QOS name not found in the model still matches by name */
        {&pq, job(1, "prod_qos", &prod_qos), job(1, "backtest_qos", NULL),
         true},
        {&pq, job(1, "dev_qos", NULL), job(1, "dev_qos", &susp_qos), false},
        {&pq, job(1, "prod_qos", &prod_qos), job(1, NULL, NULL), false},
        {&pn, job(100, NULL, NULL), job(10, NULL, NULL), false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (sched_preempt_may(cases[i].pc, &cases[i].pj, &cases[i].v) !=
            cases[i].may)
            fail_msg("case %zu: want %d", i, cases[i].may);
}

static void test_action(void **state)
{
    struct sched_preempt_conf pc = {.type = CONF_PREEMPT_PARTITION_PRIO};
    struct sched_preempt_conf pcs = pc;
    struct sched_preempt_job v;
    const struct {
        const struct sched_preempt_qos *q;
        enum conf_preempt_mode part;
        bool gpus, requeue, suspend_gpu_jobs;
        enum conf_preempt_mode want;
    } cases[] = {
        {NULL, CONF_PREEMPT_MODE_REQUEUE, false, true, false,
         CONF_PREEMPT_MODE_REQUEUE},
        /* --no-requeue: cancelled instead */
        {NULL, CONF_PREEMPT_MODE_REQUEUE, false, false, false,
         CONF_PREEMPT_MODE_CANCEL},
        {NULL, CONF_PREEMPT_MODE_CANCEL, true, true, false,
         CONF_PREEMPT_MODE_CANCEL},
        /* the QOS's mode wins over the partition's */
        {&susp_qos, CONF_PREEMPT_MODE_REQUEUE, false, true, false,
         CONF_PREEMPT_MODE_SUSPEND},
        /* a suspended GPU job would keep its GPUs: requeued ... */
        {&susp_qos, CONF_PREEMPT_MODE_REQUEUE, true, true, false,
         CONF_PREEMPT_MODE_REQUEUE},
        /* ... or cancelled when it may not be requeued ... */
        {&susp_qos, CONF_PREEMPT_MODE_REQUEUE, true, false, false,
         CONF_PREEMPT_MODE_CANCEL},
        /* ... unless suspend_gpu_jobs */
        {&susp_qos, CONF_PREEMPT_MODE_REQUEUE, true, true, true,
         CONF_PREEMPT_MODE_SUSPEND},
        {&off_qos, CONF_PREEMPT_MODE_REQUEUE, false, true, false,
         CONF_PREEMPT_MODE_OFF},
        /* a QOS with PreemptMode=cluster: the partition's */
        {&prod_qos, CONF_PREEMPT_MODE_CANCEL, false, true, false,
         CONF_PREEMPT_MODE_CANCEL},
    };

    (void)state;
    pcs.suspend_gpu_jobs = true;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        v = job(1, cases[i].q ? cases[i].q->name : NULL, cases[i].q);
        v.part_mode = cases[i].part;
        v.gpus = cases[i].gpus;
        v.requeue = cases[i].requeue;
        if (sched_preempt_action(cases[i].suspend_gpu_jobs ? &pcs : &pc, &v) !=
            cases[i].want)
            fail_msg("case %zu: want %d", i, cases[i].want);
    }
}

static void test_exempt_and_grace(void **state)
{
    struct sched_preempt_conf pc = {.exempt_time_s = 300,
                                    .ckpt_exempt_max_s = -1};
    struct sched_preempt_conf capped = pc, forever = pc, none = pc;
    const struct {
        const struct sched_preempt_conf *pc;
        const struct sched_preempt_qos *q;
        time_t ckpt;
        time_t want_exempt;
        uint32_t want_grace;
    } cases[] = {
        /* the cluster's PreemptExemptTime from the start (1000) */
        {&pc, NULL, 0, 1300, 5},
        {&none, NULL, 0, 0, 5},
        /* the QOS's own exempt and grace times */
        {&pc, &susp_qos, 0, 1060, 30},
        /* ExemptUntilCheckpoint without a checkpoint: 4 x 600 s ... */
        {&pc, &ckpt_qos, 0, 1000 + 2400, 5},
        /* ... or exempt_until_checkpoint_max ... */
        {&capped, &ckpt_qos, 0, 1000 + 900, 5},
        {&forever, &ckpt_qos, 0, (time_t)INT64_MAX, 5},
        /* ... and after a checkpoint its exempt time */
        {&pc, &ckpt_qos, 1200, 1600, 5},
    };
    struct sched_preempt_job v;

    (void)state;
    none.exempt_time_s = 0;
    capped.ckpt_exempt_max_s = 900;
    forever.ckpt_exempt_max_s = TIMEFMT_INFINITE;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        v = job(1, cases[i].q ? cases[i].q->name : NULL, cases[i].q);
        v.last_checkpoint = cases[i].ckpt;
        if (sched_preempt_exempt_until(cases[i].pc, &v) != cases[i].want_exempt)
            fail_msg("case %zu: exempt until %lld, want %lld", i,
                     (long long)sched_preempt_exempt_until(cases[i].pc, &v),
                     (long long)cases[i].want_exempt);
        assert_int_equal(sched_preempt_grace_s(&v), cases[i].want_grace);
    }
}

static void test_conf_init(void **state)
{
    struct conf conf = {.preempt_type = CONF_PREEMPT_QOS,
                        .preempt_exempt_time_s = 60,
                        .preempt_parameters = "suspend_gpu_jobs,"
                                              "exempt_until_checkpoint_max="
                                              "1:00:00"};
    struct sched_preempt_conf pc;
    struct err e;

    (void)state;
    assert_int_equal(sched_preempt_conf_init(&pc, &conf, &e), 0);
    assert_int_equal(pc.type, CONF_PREEMPT_QOS);
    assert_int_equal(pc.exempt_time_s, 60);
    assert_true(pc.suspend_gpu_jobs);
    assert_int_equal(pc.ckpt_exempt_max_s, 3600);
    conf.preempt_parameters = "exempt_until_checkpoint_max=soon";
    assert_int_equal(sched_preempt_conf_init(&pc, &conf, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "exempt_until_checkpoint_max"));
    assert_int_equal(pc.ckpt_exempt_max_s, -1);
    assert_false(pc.suspend_gpu_jobs);
}

/* Two nodes of 4 GPUs; a victim on both holding GPUs 1,2 of each; a plan
 * on node 1 only. */
static void test_held_and_claim(void **state)
{
    uint64_t used[2] = {0x6, 0x6};
    struct sched_node nodes[2] = {
        {.name = "a",
         .cpus = 8,
         .cpus_alloc = 2,
         .mem_mib = 100,
         .mem_alloc_mib = 10,
         .up = true,
         .ngpus = 4,
         .gpu_used = &used[0]},
        {.name = "b",
         .cpus = 8,
         .cpus_alloc = 2,
         .mem_mib = 100,
         .mem_alloc_mib = 10,
         .up = true,
         .ngpus = 4,
         .gpu_used = &used[1]},
    };
    struct sched_cluster c = {.nodes = nodes, .nnodes = 2};
    size_t vn[2] = {0, 1}, pn[1] = {1}, pv[1] = {0};
    uint32_t vg[4] = {1, 2, 1, 2};
    struct sched_victim v = {.id = 7,
                             .nodes = vn,
                             .nnodes = 2,
                             .cpus_per_node = 2,
                             .mem_per_node_mib = 10,
                             .gpus_per_node = 2,
                             .gpus = vg};
    struct sched_preempt_plan plan = {
        .victims = pv, .nvictims = 1, .nodes = pn, .nnodes = 1};
    struct sched_job j = {.id = 9,
                          .nodes = 1,
                          .cpus_per_node = 1,
                          .mem_per_node_mib = 5,
                          .gpus_per_node = 3};
    struct sched_held *h = NULL;
    size_t n = 0;

    (void)state;
    sched_preempt_held(&v, &plan, &h, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h[0].node, 1);
    assert_int_equal(h[0].cpus, 2);
    assert_int_equal(h[0].mem_mib, 10);
    assert_int_equal(h[0].ngpus, 2);
    assert_int_equal(h[0].gpus[0], 1);
    assert_int_equal(h[0].gpus[1], 2);

    /* claimed: the victim's share gone from both nodes, the job's 3 GPUs
     * (the lowest free positions) on node 1 */
    sched_preempt_claim(&c, &j, &v, &plan);
    assert_int_equal(nodes[0].cpus_alloc, 0);
    assert_int_equal(used[0], 0);
    assert_int_equal(nodes[1].cpus_alloc, 1);
    assert_int_equal(nodes[1].mem_alloc_mib, 5);
    assert_int_equal(used[1], 0x7);

    /* a dead victim's resources marked used again for its preemptor */
    used[1] = 0;
    nodes[1].cpus_alloc = 0;
    nodes[1].mem_alloc_mib = 0;
    sched_held_mark(&nodes[1], &h[0]);
    assert_int_equal(nodes[1].cpus_alloc, 2);
    assert_int_equal(nodes[1].mem_alloc_mib, 10);
    assert_int_equal(used[1], 0x6);

    /* a suspended victim frees its CPUs only */
    v.suspend = true;
    sched_preempt_held(&v, &plan, &h, &n);
    assert_int_equal(n, 2);
    assert_int_equal(h[1].cpus, 2);
    assert_int_equal(h[1].mem_mib, 0);
    assert_int_equal(h[1].ngpus, 0);
    assert_null(h[1].gpus);
    for (size_t i = 0; i < n; i++)
        sched_held_clear(&h[i]);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_may),
        cmocka_unit_test(test_action),
        cmocka_unit_test(test_exempt_and_grace),
        cmocka_unit_test(test_conf_init),
        cmocka_unit_test(test_held_and_claim),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
