/*
 * The scheduler core's counters: run-time limits decided inside the pass,
 * so that two jobs cannot both take a limit's last unit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/sched.h"

/* Two 16-CPU nodes in one partition. */
static struct sched_node nodes[2];
static const size_t all_nodes[] = {0, 1};
static struct sched_part parts[1];

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++)
        nodes[i] = (struct sched_node){
            .name = "n", .cpus = 16, .mem_mib = 64000, .up = true};
    parts[0] = (struct sched_part){"all", true, false, all_nodes, 2};
    return 0;
}

static struct sched_job job(uint64_t id, uint32_t cpus,
                            const struct sched_charge *ch, size_t nch)
{
    return (struct sched_job){.id = id,
                              .part = 0,
                              .nodes = 1,
                              .cpus_per_node = cpus,
                              .mem_per_node_mib = 100,
                              .submit_time = (time_t)id,
                              .charges = ch,
                              .ncharges = nch};
}

static const struct sched_decision *decision_for(const struct sched_result *r,
                                                 size_t job)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].job == job)
            return &r->decisions[i];
    return NULL;
}

static struct sched_cluster cluster(struct sched_job *jobs, size_t njobs,
                                    struct sched_counter *cn, size_t ncn)
{
    return (struct sched_cluster){.nodes = nodes,
                                  .nnodes = 2,
                                  .parts = parts,
                                  .nparts = 1,
                                  .jobs = jobs,
                                  .njobs = njobs,
                                  .counters = cn,
                                  .ncounters = ncn};
}

/* MaxJobs=1: of two jobs in one pass only the first starts. */
static void test_last_unit_taken_once(void **state)
{
    struct sched_counter cn[] = {{1, 0, "QOSMaxJobsPerUserLimit"}};
    const struct sched_charge ch[] = {{0, 1}};
    struct sched_job jobs[] = {job(1, 1, ch, 1), job(2, 1, ch, 1)};
    struct sched_cluster c = cluster(jobs, 2, cn, 1);
    struct sched_result r;

    (void)state;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 1);
    assert_int_equal(decision_for(&r, 0)->nnodes, 1);
    assert_null(decision_for(&r, 0)->limit);
    assert_int_equal(decision_for(&r, 1)->reason, SCHED_REASON_LIMIT);
    assert_string_equal(decision_for(&r, 1)->limit, "QOSMaxJobsPerUserLimit");
    assert_int_equal(cn[0].used, 1);
    sched_result_clear(&r);
}

/* A job held by a limit does not hold back the jobs behind it. */
static void test_limited_job_does_not_block(void **state)
{
    struct sched_counter cn[] = {{1, 1, "AssocMaxJobsLimit"}};
    const struct sched_charge ch[] = {{0, 1}};
    struct sched_job jobs[] = {job(1, 1, ch, 1), job(2, 1, NULL, 0)};
    struct sched_cluster c = cluster(jobs, 2, cn, 1);
    struct sched_result r;

    (void)state;
    jobs[0].priority = 10;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.decisions[0].job, 0);
    assert_int_equal(r.decisions[0].reason, SCHED_REASON_LIMIT);
    assert_string_equal(r.decisions[0].limit, "AssocMaxJobsLimit");
    assert_int_equal(r.decisions[1].nnodes, 1);
    assert_int_equal(cn[0].used, 1);
    sched_result_clear(&r);
}

/* Amounts: GrpTRES=gres/gpu=2 lets two 1-GPU jobs in, not a third, and
 * never a 3-GPU job. */
static void test_amounts(void **state)
{
    struct sched_counter cn[] = {{2, 0, "QOSGrpGRES"}};
    const struct sched_charge one[] = {{0, 1}};
    const struct sched_charge three[] = {{0, 3}};
    struct sched_job jobs[] = {job(1, 1, three, 1), job(2, 1, one, 1),
                               job(3, 1, one, 1), job(4, 1, one, 1)};
    struct sched_cluster c = cluster(jobs, 4, cn, 1);
    struct sched_result r;

    (void)state;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 2);
    assert_string_equal(decision_for(&r, 0)->limit, "QOSGrpGRES");
    assert_int_equal(decision_for(&r, 1)->nnodes, 1);
    assert_int_equal(decision_for(&r, 2)->nnodes, 1);
    assert_string_equal(decision_for(&r, 3)->limit, "QOSGrpGRES");
    assert_int_equal(cn[0].used, 2);
    sched_result_clear(&r);
}

/* Several counters: the first full one names the reason; none is charged
 * unless the job starts. */
static void test_first_full_counter_named(void **state)
{
    struct sched_counter cn[] = {{5, 0, "QOSGrpJobsLimit"},
                                 {4, 4, "QOSGrpCpuLimit"},
                                 {0, 0, "AssocMaxJobsLimit"}};
    const struct sched_charge ch[] = {{0, 1}, {1, 2}, {2, 1}};
    struct sched_job jobs[] = {job(1, 2, ch, 3)};
    struct sched_cluster c = cluster(jobs, 1, cn, 3);
    struct sched_result r;

    (void)state;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_string_equal(r.decisions[0].limit, "QOSGrpCpuLimit");
    assert_int_equal(cn[0].used, 0);
    sched_result_clear(&r);
}

/* A limit lowered below what is in use; an unlimited counter; a job that
 * fails on resources charges nothing. */
static void test_edges(void **state)
{
    struct sched_counter cn[] = {{1, 3, "QOSMaxJobsPerAccountLimit"},
                                 {UINT64_MAX, UINT64_MAX - 1, "x"},
                                 {10, 0, "QOSGrpCpuLimit"}};
    const struct sched_charge over[] = {{0, 0}};
    const struct sched_charge unl[] = {{1, 1}};
    const struct sched_charge big[] = {{2, 1}};
    struct sched_job jobs[] = {job(1, 1, over, 1), job(2, 1, unl, 1),
                               job(3, 64, big, 1)};
    struct sched_cluster c = cluster(jobs, 3, cn, 3);
    struct sched_result r;

    (void)state;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_string_equal(decision_for(&r, 0)->limit,
                        "QOSMaxJobsPerAccountLimit");
    assert_int_equal(decision_for(&r, 1)->nnodes, 1);
    assert_int_equal(cn[1].used, UINT64_MAX);
    assert_int_equal(decision_for(&r, 2)->reason, SCHED_REASON_NEVER_FITS);
    assert_int_equal(cn[2].used, 0);
    sched_result_clear(&r);
}

/* Held and begin-time jobs keep their own reasons before any limit. */
static void test_gates_before_limits(void **state)
{
    struct sched_counter cn[] = {{0, 0, "QOSGrpJobsLimit"}};
    const struct sched_charge ch[] = {{0, 1}};
    struct sched_job jobs[] = {job(1, 1, ch, 1)};
    struct sched_cluster c = cluster(jobs, 1, cn, 1);
    struct sched_result r;

    (void)state;
    jobs[0].held_user = true;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.decisions[0].reason, SCHED_REASON_HELD_USER);
    assert_null(r.decisions[0].limit);
    sched_result_clear(&r);
}

static void test_bad_counter_index(void **state)
{
    struct sched_counter cn[] = {{1, 0, "QOSGrpJobsLimit"}};
    const struct sched_charge ch[] = {{1, 1}};
    struct sched_job jobs[] = {job(1, 1, ch, 1)};
    struct sched_cluster c = cluster(jobs, 1, cn, 1);
    struct sched_result r;

    (void)state;
    assert_int_equal(sched_pass(&c, 100, &r), -1);
    jobs[0].charges = NULL;
    assert_int_equal(sched_pass(&c, 100, &r), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_last_unit_taken_once, setup),
        cmocka_unit_test_setup(test_limited_job_does_not_block, setup),
        cmocka_unit_test_setup(test_amounts, setup),
        cmocka_unit_test_setup(test_first_full_counter_named, setup),
        cmocka_unit_test_setup(test_edges, setup),
        cmocka_unit_test_setup(test_gates_before_limits, setup),
        cmocka_unit_test_setup(test_bad_counter_index, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
