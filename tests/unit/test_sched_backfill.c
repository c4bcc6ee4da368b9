/*
 * Partition tiers and backfill on hand-built clusters: a short job starts
 * ahead of a blocked big job, one that would delay it does not; estimated
 * start times; bf_max_job_user; a pass cut into slices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/backfill.h"

#define NOW 1000

static struct sched_node nodes[2];
static const size_t both[] = {0, 1};
static const size_t n0[] = {0}, n1[] = {1};
static struct sched_part part;
static struct sched_running running[2];

static void two_nodes(uint32_t alloc0, time_t end0, uint32_t alloc1,
                      time_t end1)
{
    for (size_t i = 0; i < 2; i++)
        nodes[i] = (struct sched_node){
            .name = i ? "n1" : "n0", .cpus = 8, .mem_mib = 1000, .up = true};
    nodes[0].cpus_alloc = alloc0;
    nodes[1].cpus_alloc = alloc1;
    running[0] = (struct sched_running){
        .nodes = n0, .nnodes = 1, .cpus_per_node = alloc0, .end_time = end0};
    running[1] = (struct sched_running){
        .nodes = n1, .nnodes = 1, .cpus_per_node = alloc1, .end_time = end1};
    part = (struct sched_part){
        .name = "all", .start_jobs = true, .nodes = both, .nnodes = 2};
}

static struct sched_job job(uint64_t id, uint32_t prio, uint32_t nn,
                            uint32_t cpus, int64_t limit, uint32_t user)
{
    return (struct sched_job){.id = id,
                              .nodes = nn,
                              .cpus_per_node = cpus,
                              .priority = prio,
                              .submit_time = (time_t)id,
                              .time_limit_s = limit,
                              .user = user};
}

static struct sched_bf conf(void)
{
    return (struct sched_bf){.running = running,
                             .nrunning = 2,
                             .window_s = 86400,
                             .resolution_s = 10,
                             .max_job_test = 10};
}

static const struct sched_decision *of(const struct sched_result *r, size_t job)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].job == job)
            return &r->decisions[i];
    fail_msg("no decision for job %zu", job);
    return NULL;
}

/*
 * n0: 4 of 8 CPUs busy until 1100; n1: all busy until 2000.  Big (8 CPUs,
 * 500 s) waits for n0 at 1100.  Short (4 CPUs, 60 s) ends at 1060 and
 * backfills; TooLong (4 CPUs, 200 s) would run into Big's reservation, so
 * it waits, and its estimate is after Big: 1600.
 */
static void test_short_backfills_long_does_not(void **state)
{
    struct sched_job jobs[3] = {job(1, 100, 1, 8, 500, 1),
                                job(2, 50, 1, 4, 60, 2),
                                job(3, 40, 1, 4, 200, 3)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_bf bf = conf();
    struct sched_bf_stats st;
    struct sched_result r;

    (void)state;
    /* strict order first: nothing passes the blocked big job */
    two_nodes(4, 1100, 8, 2000);
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(r.started, 0);
    assert_int_equal(of(&r, 0)->reason, SCHED_REASON_RESOURCES);
    assert_int_equal(of(&r, 1)->reason, SCHED_REASON_PRIORITY);
    assert_int_equal(of(&r, 2)->reason, SCHED_REASON_PRIORITY);
    sched_result_clear(&r);

    two_nodes(4, 1100, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_int_equal(r.started, 1);
    assert_int_equal(of(&r, 0)->nnodes, 0);
    assert_int_equal(of(&r, 0)->start_est, 1100);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 1)->nodes[0], 0);
    assert_true(of(&r, 1)->backfilled);
    assert_int_equal(of(&r, 1)->start_est, NOW);
    assert_int_equal(of(&r, 2)->nnodes, 0);
    assert_int_equal(of(&r, 2)->reason, SCHED_REASON_PRIORITY);
    assert_int_equal(of(&r, 2)->start_est, 1600);
    assert_int_equal(nodes[0].cpus_alloc, 8);
    assert_int_equal(st.examined, 3);
    assert_int_equal(st.reserved, 2);
    assert_int_equal(st.started, 1);
    assert_true(st.done);
    sched_result_clear(&r);
}

/*
 * The same cluster with QOS MinPrioThreshold 200 on every job: none gets
 * a reservation (no estimate), yet Short, below the threshold, starts
 * because it fits now; TooLong, alone, starts on n0's free half as no
 * reservation stands in its way.  At a threshold of 40, Big and TooLong
 * reserve again as in the test above.
 */
static void test_min_prio_threshold(void **state)
{
    struct sched_job jobs[3] = {job(1, 100, 1, 8, 500, 1),
                                job(2, 50, 1, 4, 60, 2),
                                job(3, 40, 1, 4, 200, 3)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_bf bf = conf();
    struct sched_bf_stats st;
    struct sched_result r;

    (void)state;
    for (size_t i = 0; i < 3; i++)
        jobs[i].min_prio_reserve = 200;
    two_nodes(4, 1100, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_int_equal(of(&r, 0)->nnodes, 0);
    assert_int_equal(of(&r, 0)->start_est, 0);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 2)->nnodes, 0); /* n0 full with Short */
    assert_int_equal(of(&r, 2)->start_est, 0);
    assert_int_equal(st.reserved, 0);
    sched_result_clear(&r);

    /* Big and TooLong: Big reserves nothing, so TooLong, which would
     * delay Big's reservation at 1100, starts now */
    jobs[1] = jobs[2];
    c.njobs = 2;
    two_nodes(4, 1100, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_int_equal(of(&r, 0)->nnodes, 0);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_true(of(&r, 1)->backfilled);
    sched_result_clear(&r);

    /* at the threshold Big reserves, and TooLong waits after it */
    jobs[1] = job(2, 50, 1, 4, 60, 2);
    c.njobs = 3;
    for (size_t i = 0; i < 3; i++)
        jobs[i].min_prio_reserve = 40;
    two_nodes(4, 1100, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_int_equal(of(&r, 0)->start_est, 1100);
    assert_int_equal(of(&r, 2)->start_est, 1600);
    assert_int_equal(st.reserved, 2);
    sched_result_clear(&r);
}

/* End times are rounded up to bf_resolution; a job with no time limit
 * never backfills in front of a reservation. */
static void test_resolution_and_unlimited(void **state)
{
    struct sched_job jobs[2] = {job(1, 100, 1, 8, 500, 1),
                                job(2, 50, 1, 4, 0, 2)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 2};
    struct sched_bf bf = conf();
    struct sched_result r;

    (void)state;
    two_nodes(4, 1101, 8, 0); /* n1's job has no limit: never ends */
    bf.resolution_s = 60;     /* 1101 - 1000 = 101 s -> 120 s */
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), 0);
    assert_int_equal(of(&r, 0)->start_est, 1120);
    assert_int_equal(of(&r, 1)->nnodes, 0);
    assert_int_equal(of(&r, 1)->start_est, 1620);
    sched_result_clear(&r);
}

/* The window bounds reservations: nothing is free within it. */
static void test_window(void **state)
{
    struct sched_job jobs[1] = {job(1, 100, 1, 8, 500, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 1};
    struct sched_bf bf = conf();
    struct sched_result r;

    (void)state;
    two_nodes(4, 5000, 8, 6000);
    bf.window_s = 3000;
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), 0);
    assert_int_equal(of(&r, 0)->start_est, 0);
    sched_result_clear(&r);
    bf.window_s = 4000;
    two_nodes(4, 5000, 8, 6000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), 0);
    assert_int_equal(of(&r, 0)->start_est, 5000);
    sched_result_clear(&r);
}

/*
 * n0 free, n1 busy until 2000; Big wants both nodes, so it is reserved at
 * 2000 and n0 is free until then.  Two short jobs of one user fit there;
 * bf_max_job_user=1 lets one through.
 */
static void test_max_job_user(void **state)
{
    struct sched_job jobs[3] = {job(1, 100, 2, 8, 500, 1),
                                job(2, 50, 1, 4, 60, 7),
                                job(3, 40, 1, 4, 60, 7)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_bf bf = conf();
    struct sched_result r;

    (void)state;
    two_nodes(0, 0, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), 0);
    assert_int_equal(of(&r, 0)->start_est, 2000);
    assert_int_equal(r.started, 2);
    sched_result_clear(&r);

    two_nodes(0, 0, 8, 2000);
    bf.max_job_user = 1;
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), 0);
    assert_int_equal(r.started, 1);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 2)->nnodes, 0);
    sched_result_clear(&r);
}

/* One job examined per slice; each slice resumes after the last. */
static void test_slices_resume(void **state)
{
    struct sched_job jobs[3] = {job(1, 100, 2, 8, 500, 1),
                                job(2, 50, 1, 4, 60, 7),
                                job(3, 40, 1, 4, 60, 8)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_bf bf = conf();
    struct sched_bf_stats st;
    struct sched_result r;

    (void)state;
    bf.max_examine = 1;
    bf.max_job_test = 1;
    two_nodes(0, 0, 8, 2000);
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_false(st.done);
    assert_int_equal(st.next.id, 1);
    assert_int_equal(r.started, 0);
    assert_int_equal(of(&r, 0)->start_est, 2000);
    sched_result_clear(&r);

    bf.resume = st.next; /* the big job is reserved again, then job 2 */
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_false(st.done);
    assert_int_equal(st.next.id, 2);
    assert_int_equal(r.started, 1);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 0)->start_est, 2000);
    sched_result_clear(&r);

    bf.resume = st.next; /* job 2 now runs: only job 3 is left to test */
    jobs[1].held_user = true;
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, &st), 0);
    assert_true(st.done);
    assert_int_equal(st.examined, 1);
    assert_int_equal(of(&r, 2)->nnodes, 1);
    assert_int_equal(nodes[0].cpus_alloc, 8);
    sched_result_clear(&r);
}

/* A higher PriorityTier goes first whatever the priorities. */
static void test_tier_first(void **state)
{
    struct sched_job jobs[2] = {job(1, 1000, 1, 8, 60, 1),
                                job(2, 1, 1, 8, 60, 2)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 1,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 2};
    struct sched_result r;

    (void)state;
    two_nodes(0, 0, 0, 0);
    part.nnodes = 1;
    jobs[1].tier = 2;
    jobs[0].tier = 1;
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(r.decisions[0].job, 1);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 0)->reason, SCHED_REASON_RESOURCES);
    sched_result_clear(&r);
    /* same tier: priority decides */
    two_nodes(0, 0, 0, 0);
    part.nnodes = 1;
    jobs[1].tier = 1;
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(of(&r, 0)->nnodes, 1);
    sched_result_clear(&r);
}

static void test_bad_running_node(void **state)
{
    static const size_t bad[] = {5};
    struct sched_job jobs[1] = {job(1, 100, 1, 8, 500, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 2,
                              .parts = &part,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 1};
    struct sched_bf bf = conf();
    struct sched_result r;

    (void)state;
    two_nodes(8, 1100, 8, 2000);
    running[0].nodes = bad;
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &r, NULL), -1);
}

static void test_params_parse(void **state)
{
    struct sched_bf bf = {.max_job_user = 9};
    struct err e;

    (void)state;
    assert_int_equal(sched_bf_params_parse("", &bf, &e), 0);
    assert_int_equal(bf.window_s, 86400);
    assert_int_equal(bf.resolution_s, 60);
    assert_int_equal(bf.max_job_test, 500);
    assert_int_equal(bf.max_job_user, 0);
    assert_false(bf.cont);
    assert_int_equal(sched_bf_params_parse(
                         "default_queue_depth=100,bf_window=2880,"
                         "bf_resolution=300,bf_continue,bf_max_job_test=50,"
                         "bf_max_job_user=4,bf_yield_interval=500000",
                         &bf, &e),
                     0);
    assert_int_equal(bf.window_s, 2880 * 60);
    assert_int_equal(bf.resolution_s, 300);
    assert_int_equal(bf.max_job_test, 50);
    assert_int_equal(bf.max_job_user, 4);
    assert_true(bf.cont);
    assert_int_equal(bf.yield_interval_us, 500000);
    assert_int_equal(sched_bf_params_parse("bf_window=0", &bf, &e), -1);
    assert_non_null(strstr(e.text, "bf_window=0"));
    assert_int_equal(bf.window_s, 2880 * 60); /* unchanged */
    assert_int_equal(sched_bf_params_parse("bf_max_job_test=x", &bf, &e), -1);
    assert_int_equal(sched_bf_params_parse("bf_window=", &bf, &e), -1);
    assert_int_equal(
        sched_bf_params_parse("bf_window=1,bf_resolution=120", &bf, &e), -1);
    assert_non_null(strstr(e.text, "longer than bf_window"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_backfills_long_does_not),
        cmocka_unit_test(test_min_prio_threshold),
        cmocka_unit_test(test_resolution_and_unlimited),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_max_job_user),
        cmocka_unit_test(test_slices_resume),
        cmocka_unit_test(test_tier_first),
        cmocka_unit_test(test_bad_running_node),
        cmocka_unit_test(test_params_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
