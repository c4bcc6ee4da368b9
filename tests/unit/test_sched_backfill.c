/*
 * Partition tiers and backfill on hand-built clusters: a short job starts
 * ahead of a blocked big job, one that would delay it does not; estimated
 * start times; bf_max_job_user; a cycle cut into slices that resume
 * (bf_continue), restart when the profile goes stale and honour
 * bf_yield_interval.
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

/*
 * A fixed scenario for sliced cycles: four 8-CPU nodes, busy in part
 * until 1100, 1500, 2000 and never; twelve jobs of 1-2 nodes, 2-8 CPUs
 * and 60-3000 s, of four users.  Some start in the main pass, some
 * backfill, the rest are reserved.
 */
static struct sched_node four[4];
static const size_t all4[] = {0, 1, 2, 3};
static const size_t r0[] = {0}, r1[] = {1}, r2[] = {2}, r3[] = {3};
static struct sched_running run4[4];
static struct sched_part part4;

static void four_nodes(void)
{
    static const uint32_t alloc[4] = {6, 8, 4, 8};
    static const time_t end[4] = {1100, 1500, 2000, 0};
    static const size_t *on[4] = {r0, r1, r2, r3};

    for (size_t i = 0; i < 4; i++) {
        four[i] = (struct sched_node){.name = "n",
                                      .cpus = 8,
                                      .mem_mib = 1000,
                                      .up = true,
                                      .cpus_alloc = alloc[i]};
        run4[i] = (struct sched_running){.nodes = on[i],
                                         .nnodes = 1,
                                         .cpus_per_node = alloc[i],
                                         .end_time = end[i]};
    }
    part4 = (struct sched_part){
        .name = "all", .start_jobs = true, .nodes = all4, .nnodes = 4};
}

#define NJOBS12 12
static void twelve(struct sched_job *jobs)
{
    static const uint32_t nn[NJOBS12] = {2, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1};
    static const uint32_t cpus[NJOBS12] = {8, 2, 8, 4, 4, 2, 6, 2, 8, 2, 4, 2};
    static const int64_t lim[NJOBS12] = {600, 60,  3000, 90,  300, 1000,
                                         60,  400, 120,  200, 50,  3000};

    for (size_t i = 0; i < NJOBS12; i++)
        jobs[i] = job(i + 1, 1000 - (uint32_t)i * 10, nn[i], cpus[i], lim[i],
                      (uint32_t)i % 4);
}

static struct sched_bf conf4(void)
{
    struct sched_bf bf = conf();

    bf.running = run4;
    bf.nrunning = 4;
    bf.max_job_test = 4;
    return bf;
}

/* A cycle in slices of one job decides as one unsliced cycle does. */
static void test_slices_same_as_whole(void **state)
{
    struct sched_job jobs[NJOBS12];
    struct sched_cluster c = {.nodes = four,
                              .nnodes = 4,
                              .parts = &part4,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = NJOBS12};
    struct sched_bf bf = conf4();
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    struct sched_result whole, r, sl;
    struct sched_bf_stats st;
    size_t slices = 0, bf_started = 0, reserved = 0;

    (void)state;
    twelve(jobs);
    four_nodes();
    assert_int_equal(sched_backfill_pass(&c, &bf, NOW, &whole, &st), 0);
    assert_true(st.done);
    assert_true(st.started > 0 && st.reserved > 0); /* the scenario bites */

    four_nodes();
    bf.max_examine = 1;
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(sched_bf_cycle_begin(cy, &c, &bf, NOW, &r), 0);
    do {
        assert_true(sched_bf_cycle_valid(cy, &c, &bf, NOW));
        assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), 0);
        assert_true(st.examined <= 1);
        bf_started += st.started;
        reserved += st.reserved;
        sched_bf_merge(&r, &sl, c.njobs);
        slices++;
    } while (!st.done);
    assert_false(sched_bf_cycle_busy(cy));
    assert_true(slices >= 6);
    assert_int_equal(r.started, whole.started);
    assert_int_equal(st.cycle_reserved, reserved);
    for (size_t k = 0; k < NJOBS12; k++) {
        const struct sched_decision *x = of(&whole, k), *y = of(&r, k);
        assert_int_equal(x->nnodes, y->nnodes);
        for (size_t i = 0; i < x->nnodes; i++)
            assert_int_equal(x->nodes[i], y->nodes[i]);
        assert_int_equal(x->start_est, y->start_est);
        assert_int_equal(x->backfilled, y->backfilled);
        assert_int_equal(x->reason, y->reason);
    }
    assert_true(bf_started > 0);
    sched_result_clear(&whole);
    sched_result_clear(&r);
    sched_bf_cycle_destroy(cy);
}

/* Between slices: unchanged, the cycle goes on; a job that ends, a node
 * that goes down, or a reserved job that goes away makes it stale. */
static void test_event_restarts(void **state)
{
    struct sched_job jobs[NJOBS12];
    struct sched_cluster c = {.nodes = four,
                              .nnodes = 4,
                              .parts = &part4,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = NJOBS12};
    struct sched_bf bf = conf4();
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    struct sched_result r, sl;
    struct sched_bf_stats st;

    (void)state;
    twelve(jobs);
    four_nodes();
    bf.max_examine = 2;
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW)); /* none begun */
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(sched_bf_cycle_begin(cy, &c, &bf, NOW, &r), 0);
    assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), 0);
    assert_false(st.done);
    assert_true(st.reserved > 0);
    sched_result_clear(&sl);
    assert_true(sched_bf_cycle_valid(cy, &c, &bf, NOW + 5));
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW - 1));

    /* the job on n1 ends: n1's CPUs come free, its entry goes */
    four[1].cpus_alloc = 0;
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW));
    four[1].cpus_alloc = 8;
    bf.nrunning = 3; /* the running job on n3 (listed last) is gone */
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW));
    bf.nrunning = 4;
    four[2].up = false;
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW));
    four[2].up = true;
    assert_true(sched_bf_cycle_valid(cy, &c, &bf, NOW));

    /* the first job (2 nodes, reserved) is cancelled */
    c.jobs = jobs + 1;
    c.njobs = NJOBS12 - 1;
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW));
    c.jobs = jobs;
    c.njobs = NJOBS12;

    /* restart: a new cycle from a new main pass goes to the end */
    sched_result_clear(&r);
    four_nodes();
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(sched_bf_cycle_begin(cy, &c, &bf, NOW, &r), 0);
    assert_true(sched_bf_cycle_busy(cy));
    bf.max_examine = 0;
    assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), 0);
    assert_true(st.done);
    assert_int_equal(st.cycle_examined, st.examined);
    assert_false(sched_bf_cycle_valid(cy, &c, &bf, NOW)); /* finished */
    sched_result_clear(&sl);
    assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), -1);
    sched_result_clear(&r);
    sched_bf_cycle_destroy(cy);
}

/* A clock that advances 100 us at every reading. */
static int64_t fake_clock(void *arg)
{
    int64_t *t = arg;

    *t += 100;
    return *t;
}

/* bf_yield_interval=250 with that clock: the slice reads it once at its
 * start and once before each further job, so it yields after 3 jobs. */
static void test_yield_interval(void **state)
{
    struct sched_job jobs[NJOBS12];
    struct sched_cluster c = {.nodes = four,
                              .nnodes = 4,
                              .parts = &part4,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = NJOBS12};
    struct sched_bf bf = conf4();
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    struct sched_result r, sl;
    struct sched_bf_stats st;
    int64_t t = 0;
    size_t total = 0, slices = 0;

    (void)state;
    twelve(jobs);
    four_nodes();
    bf.clock_us = fake_clock;
    bf.clock_arg = &t;
    bf.yield_interval_us = 250;
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(sched_bf_cycle_begin(cy, &c, &bf, NOW, &r), 0);
    do {
        assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), 0);
        if (!st.done)
            assert_int_equal(st.examined, 3);
        assert_true(st.examined <= 3);
        total += st.examined;
        slices++;
        sched_result_clear(&sl);
    } while (!st.done);
    assert_int_equal(total, st.cycle_examined);
    assert_int_equal(slices, (total + 2) / 3);
    /* a larger budget: one slice takes the whole queue */
    four_nodes();
    sched_result_clear(&r);
    bf.yield_interval_us = 1000000;
    assert_int_equal(sched_pass(&c, NOW, &r), 0);
    assert_int_equal(sched_bf_cycle_begin(cy, &c, &bf, NOW, &r), 0);
    assert_int_equal(sched_bf_slice(cy, &c, &bf, NOW, &sl, &st), 0);
    assert_true(st.done);
    assert_int_equal(st.examined, total);
    sched_result_clear(&sl);
    sched_result_clear(&r);
    sched_bf_cycle_destroy(cy);
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
        cmocka_unit_test(test_slices_same_as_whole),
        cmocka_unit_test(test_event_restarts),
        cmocka_unit_test(test_yield_interval),
        cmocka_unit_test(test_tier_first),
        cmocka_unit_test(test_bad_running_node),
        cmocka_unit_test(test_params_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
