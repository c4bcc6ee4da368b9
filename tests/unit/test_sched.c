/*
 * The FIFO scheduler core as a pure function on hand-built clusters.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"

/* Four 16-CPU, 64000 MiB nodes; partition 0 = all, 1 = node 3 only. */
static struct sched_node nodes[4];
static const size_t all_nodes[] = {0, 1, 2, 3};
static const size_t last_node[] = {3};
static struct sched_part parts[2];

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        nodes[i] = (struct sched_node){
            .name = "n", .cpus = 16, .mem_mib = 64000, .up = true};
    }
    parts[0] = (struct sched_part){"all", true, false, all_nodes, 4};
    parts[1] = (struct sched_part){"one", true, false, last_node, 1};
    return 0;
}

static struct sched_job job(uint64_t id, size_t part, uint32_t cpus)
{
    return (struct sched_job){.id = id,
                              .part = part,
                              .nodes = 1,
                              .cpus_per_node = cpus,
                              .mem_per_node_mib = 100,
                              .submit_time = (time_t)id};
}

static const struct sched_decision *decision_for(const struct sched_result *r,
                                                 size_t job)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].job == job)
            return &r->decisions[i];
    return NULL;
}

static void test_fifo_fills_nodes(void **state)
{
    struct sched_job jobs[5];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 5,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    for (size_t i = 0; i < 5; i++)
        jobs[i] = job(i + 1, 0, 16);
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 4);
    for (size_t i = 0; i < 4; i++) {
        const struct sched_decision *d = decision_for(&r, i);
        assert_int_equal(d->nnodes, 1);
        assert_int_equal(d->nodes[0], i);
        assert_int_equal(nodes[i].cpus_alloc, 16);
    }
    assert_int_equal(decision_for(&r, 4)->reason, SCHED_REASON_RESOURCES);
    sched_result_clear(&r);
}

static void test_blocked_job_holds_partition(void **state)
{
    struct sched_job jobs[3];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 3,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    nodes[3].cpus_alloc = 10;
    jobs[0] = job(1, 1, 8); /* cannot fit on node 3 now */
    jobs[1] = job(2, 1, 2); /* would fit, but waits behind job 1 */
    jobs[2] = job(3, 0, 2); /* other partition: starts */
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(decision_for(&r, 0)->reason, SCHED_REASON_RESOURCES);
    assert_int_equal(decision_for(&r, 1)->reason, SCHED_REASON_PRIORITY);
    assert_int_equal(decision_for(&r, 2)->nnodes, 1);
    assert_int_equal(r.started, 1);
    sched_result_clear(&r);
}

static void test_order_priority_then_submit(void **state)
{
    struct sched_job jobs[3];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 3,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    jobs[0] = job(1, 1, 16);
    jobs[1] = job(2, 1, 16);
    jobs[2] = job(3, 1, 16);
    jobs[2].priority = 5;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.decisions[0].job, 2);
    assert_int_equal(r.decisions[0].nnodes, 1);
    assert_int_equal(r.decisions[1].job, 0);
    assert_int_equal(r.decisions[1].reason, SCHED_REASON_RESOURCES);
    assert_int_equal(r.decisions[2].reason, SCHED_REASON_PRIORITY);
    sched_result_clear(&r);
}

static void test_reasons(void **state)
{
    struct sched_job jobs[6];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 6,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    jobs[0] = job(1, 0, 1);
    jobs[0].held_user = true;
    jobs[1] = job(2, 0, 1);
    jobs[1].begin_time = 500;
    jobs[2] = job(3, 0, 64); /* bigger than any node: does not block */
    jobs[3] = job(4, 1, 1);
    jobs[3].nodes = 2; /* partition has one node */
    jobs[4] = job(5, 0, 1);
    jobs[4].held_admin = true;
    jobs[5] = job(6, 0, 1);
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(decision_for(&r, 0)->reason, SCHED_REASON_HELD_USER);
    assert_int_equal(decision_for(&r, 1)->reason, SCHED_REASON_BEGIN_TIME);
    assert_int_equal(decision_for(&r, 2)->reason, SCHED_REASON_NEVER_FITS);
    assert_int_equal(decision_for(&r, 3)->reason, SCHED_REASON_PART_NODE_LIMIT);
    assert_int_equal(decision_for(&r, 4)->reason, SCHED_REASON_HELD_ADMIN);
    assert_int_equal(decision_for(&r, 5)->nnodes, 1);
    assert_string_equal(sched_reason_name(SCHED_REASON_HELD_USER),
                        "JobHeldUser");
    sched_result_clear(&r);
}

static void test_down_nodes_and_partitions(void **state)
{
    struct sched_job jobs[2];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 2,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    nodes[3].up = false;
    parts[0].start_jobs = false;
    jobs[0] = job(1, 1, 1);
    jobs[1] = job(2, 0, 1);
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(decision_for(&r, 0)->reason, SCHED_REASON_NODE_DOWN);
    assert_int_equal(decision_for(&r, 1)->reason, SCHED_REASON_PART_DOWN);
    assert_int_equal(r.started, 0);
    sched_result_clear(&r);
}

static void test_multi_node_and_filter(void **state)
{
    struct sched_job jobs[1];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 1,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;
    bool allowed[4] = {false, true, false, true};

    (void)state;
    jobs[0] = job(1, 0, 4);
    jobs[0].nodes = 2;
    jobs[0].node_allowed = allowed;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.decisions[0].nnodes, 2);
    assert_int_equal(r.decisions[0].nodes[0], 1);
    assert_int_equal(r.decisions[0].nodes[1], 3);
    assert_int_equal(nodes[0].cpus_alloc, 0);
    assert_int_equal(nodes[1].cpus_alloc, 4);
    sched_result_clear(&r);
}

static void test_bad_index(void **state)
{
    struct sched_job jobs[1];
    struct sched_cluster c = {nodes,          4,    parts, 2, jobs, 1,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    jobs[0] = job(1, 7, 1);
    assert_int_equal(sched_pass(&c, 100, &r), -1);
}

/* One job alone in a pass over the cluster; whether it started. */
static bool starts(struct sched_job j)
{
    struct sched_cluster c = {nodes,          4,    parts, 2, &j, 1,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;
    bool ok;

    assert_int_equal(sched_pass(&c, 100, &r), 0);
    ok = r.started == 1;
    sched_result_clear(&r);
    return ok;
}

/* ExclusiveUser: a job of such a partition takes no node another user
 * runs on and keeps its node to its user; others share as before. */
static void test_exclusive_user(void **state)
{
    struct sched_job a = job(1, 1, 4), b = job(2, 1, 4), pair[2];
    struct sched_cluster c = {nodes,          4,    parts, 2, pair, 2,
                              SCHED_FIT_BEST, NULL, 0};
    struct sched_result r;

    (void)state;
    /* node 3 (partition "one") runs a job of uid 500 */
    nodes[3].cpus_alloc = 4;
    nodes[3].users = 1;
    nodes[3].user = 500;
    a.user = 600;
    a.exclusive_user = true;
    assert_false(starts(a));
    a.exclusive_user = false; /* an ordinary job shares the node */
    assert_true(starts(a));
    assert_int_equal(nodes[3].users, 2);
    nodes[3].users = 1; /* back to uid 500 alone */
    nodes[3].cpus_alloc = 4;
    b.user = 500;
    b.exclusive_user = true; /* the same user may join */
    assert_true(starts(b));
    assert_true(nodes[3].user_exclusive);
    a.exclusive_user = false; /* and now nobody else may */
    assert_false(starts(a));

    /* two users' exclusive jobs on empty nodes never share one, although
     * best fit would pack them together */
    nodes[3] = nodes[0];
    pair[0] = job(3, 0, 4);
    pair[1] = job(4, 0, 4);
    pair[0].user = 1;
    pair[1].user = 2;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 2);
    assert_int_equal(decision_for(&r, 0)->nodes[0],
                     decision_for(&r, 1)->nodes[0]);
    sched_result_clear(&r);
    setup(NULL);
    pair[0].exclusive_user = pair[1].exclusive_user = true;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 2);
    assert_int_not_equal(decision_for(&r, 0)->nodes[0],
                         decision_for(&r, 1)->nodes[0]);
    sched_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fifo_fills_nodes, setup),
        cmocka_unit_test_setup(test_blocked_job_holds_partition, setup),
        cmocka_unit_test_setup(test_order_priority_then_submit, setup),
        cmocka_unit_test_setup(test_reasons, setup),
        cmocka_unit_test_setup(test_down_nodes_and_partitions, setup),
        cmocka_unit_test_setup(test_multi_node_and_filter, setup),
        cmocka_unit_test_setup(test_bad_index, setup),
        cmocka_unit_test_setup(test_exclusive_user, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
