/*
 * Multifactor priority and fair-share, against values computed by hand
 * (the arithmetic is in the comments).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/fairshare.h"
#include "sched/prio.h"

#define EPS 1e-9

static void assert_near(double got, double want)
{
    if (fabs(got - want) > EPS)
        fail_msg("got %.12f, want %.12f", got, want);
}

/* age 1000, fairshare 2000, jobsize 500, partition 1000, qos 3000,
 * TRES cpu 100 and gres/gpu 400; 4 nodes, 64 CPUs, PriorityJobFactor max
 * 100, QOS priority max 1000, PriorityMaxAge 7 days. */
static struct prio_conf conf(void)
{
    struct prio_conf c = {.multifactor = true, .max_age_s = 7 * 86400};

    c.weight[PRIO_AGE] = 1000;
    c.weight[PRIO_FAIRSHARE] = 2000;
    c.weight[PRIO_JOBSIZE] = 500;
    c.weight[PRIO_PARTITION] = 1000;
    c.weight[PRIO_QOS] = 3000;
    c.weight_tres[LIMITS_TRES_CPU] = 100;
    c.weight_tres[LIMITS_TRES_GPU] = 400;
    return c;
}

static const struct prio_norm norm = {4, 64, 100, 1000};

static struct prio_job job(int64_t age, double fs, uint32_t nodes,
                           uint32_t cpus, uint32_t part, uint32_t qos,
                           uint64_t gpus, int32_t nice)
{
    struct prio_job j = {.age_s = age,
                         .since_submit_s = age + 1000,
                         .fairshare = fs,
                         .nodes = nodes,
                         .cpus = cpus,
                         .part_factor = part,
                         .qos_prio = qos,
                         .nice = nice};

    j.tres[LIMITS_TRES_CPU] = cpus;
    j.tres[LIMITS_TRES_GPU] = gpus;
    j.part_tres[LIMITS_TRES_CPU] = 64;
    j.part_tres[LIMITS_TRES_GPU] = 16;
    return j;
}

static void test_factor_table(void **state)
{
    static const struct {
        struct prio_job j;
        double norm[PRIO_NFACTORS];
        double weighted[PRIO_NFACTORS];
        uint32_t total;
    } rows[] = {
        /* half of max age; js (1/4 + 16/64)/2; tres 16/64*100 + 2/16*400 */
        {.j = {.age_s = 302400,
               .fairshare = 0.25,
               .nodes = 1,
               .cpus = 16,
               .part_factor = 50,
               .qos_prio = 500},
         .norm = {0.5, 0.25, 0.25, 0.5, 0.5, 0.375},
         .weighted = {500, 500, 125, 500, 1500, 75},
         .total = 3200},
        /* everything at 1, nice 100 */
        {.j = {.age_s = 1000000,
               .fairshare = 1,
               .nodes = 4,
               .cpus = 64,
               .part_factor = 100,
               .qos_prio = 1000,
               .nice = 100},
         .norm = {1, 1, 1, 1, 1, 2},
         .weighted = {1000, 2000, 500, 1000, 3000, 500},
         .total = 7900},
        /* js (2/4 + 8/64)/2 = 0.3125; nice -50 adds; 618.75 truncates */
        {.j = {.age_s = 0,
               .fairshare = 0,
               .nodes = 2,
               .cpus = 8,
               .part_factor = 10,
               .qos_prio = 100,
               .nice = -50},
         .norm = {0, 0, 0.3125, 0.1, 0.1, 0.125},
         .weighted = {0, 0, 156.25, 100, 300, 12.5},
         .total = 618},
    };
    struct prio_conf c = conf();

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct prio_job j = rows[i].j;
        struct prio_result r;
        uint64_t gpus[] = {2, 16, 0};
        j.tres[LIMITS_TRES_CPU] = j.cpus;
        j.tres[LIMITS_TRES_GPU] = gpus[i];
        j.part_tres[LIMITS_TRES_CPU] = 64;
        j.part_tres[LIMITS_TRES_GPU] = 16;
        assert_int_equal(prio_compute(&c, &norm, &j, &r), rows[i].total);
        assert_int_equal(r.priority, rows[i].total);
        for (int f = 0; f < PRIO_NFACTORS; f++) {
            assert_near(r.norm[f], rows[i].norm[f]);
            assert_near(r.weighted[f], rows[i].weighted[f]);
        }
    }
}

/* Nice at the ends of its range: the total stays in [1, UINT32_MAX - 1]
 * and r.nice reports what was subtracted. */
static void test_nice_bounds(void **state)
{
    struct prio_conf c = conf();
    /* age 0.5 (500), fs 0.25 (500), js (1/4 + 16/64)/2 (125), part 0.5
     * (500), qos 0.5 (1500), tres 16/64*100 + 2/16*400 (75): 3200 */
    struct prio_job j = job(302400, 0.25, 1, 16, 50, 500, 2, 0);
    struct prio_result r;

    (void)state;
    assert_int_equal(prio_compute(&c, &norm, &j, NULL), 3200);
    j.nice = 3199;
    assert_int_equal(prio_compute(&c, &norm, &j, NULL), 1);
    j.nice = 3000;
    assert_int_equal(prio_compute(&c, &norm, &j, &r), 200);
    assert_int_equal(r.nice, 3000);
    j.nice = PRIO_NICE_MAX;
    assert_int_equal(prio_compute(&c, &norm, &j, NULL), 1);
    j.nice = -PRIO_NICE_MAX;
    assert_int_equal(prio_compute(&c, &norm, &j, NULL), 3200u + 2147483645u);
    c.multifactor = false; /* priority/basic ignores nice */
    assert_int_equal(prio_compute(&c, &norm, &j, NULL), 1);
}

static void test_job_size_variants(void **state)
{
    struct prio_conf c = conf();
    struct prio_job j = job(0, 0, 2, 8, 0, 0, 0, 0);

    (void)state;
    c.favor_small = true; /* ((4-2)/4 + (64-8)/64) / 2 */
    assert_near(prio_job_size(&c, &norm, &j), 0.6875);
    c.favor_small = false;
    c.flags = PRIO_F_SMALL_RELATIVE_TO_TIME;
    j.time_limit_s = 30 * 60; /* max(2*64/4, 8) = 32 CPUs / 30 min / 64 */
    assert_near(prio_job_size(&c, &norm, &j), 32.0 / 30 / 64);
    c.favor_small = true;
    assert_near(prio_job_size(&c, &norm, &j), 1 - 32.0 / 30 / 64);
    j.time_limit_s = 0; /* unknown limit: one minute, clamped to 1 */
    assert_near(prio_job_size(&c, &norm, &j), 0.5);
}

static void test_flags_change_arithmetic(void **state)
{
    struct prio_conf c = conf();
    struct prio_job j = job(100, 0, 1, 16, 50, 500, 2, 0);
    struct prio_result r;
    unsigned flags;
    struct err e;

    (void)state;
    assert_int_equal(prio_flags_parse("no_normal_qos,ACCRUE_ALWAYS,"
                                      "FAIR_TREE",
                                      &flags, &e),
                     0);
    assert_int_equal(flags, PRIO_F_NO_NORMAL_QOS | PRIO_F_ACCRUE_ALWAYS);
    c.flags = flags;
    prio_compute(&c, &norm, &j, &r);
    assert_near(r.norm[PRIO_QOS], 500); /* raw QOS priority */
    assert_near(r.weighted[PRIO_QOS], 1500000);
    assert_near(r.norm[PRIO_AGE], 1100.0 / 604800); /* since submit */
    c.flags = PRIO_F_NO_NORMAL_PART | PRIO_F_NO_NORMAL_TRES;
    prio_compute(&c, &norm, &j, &r);
    assert_near(r.norm[PRIO_PARTITION], 50);
    assert_near(r.tres_weighted[LIMITS_TRES_CPU], 1600);
    assert_near(r.tres_weighted[LIMITS_TRES_GPU], 800);
    assert_int_equal(prio_flags_parse("FAIR_TREE,BOGUS", &flags, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "BOGUS"));
    assert_int_equal(prio_flags_parse("NO_NORMAL_ALL", &flags, &e), 0);
    assert_true(flags & PRIO_F_NO_NORMAL_TRES);
}

static void test_basic_is_fifo(void **state)
{
    struct prio_conf c = conf();
    struct prio_job a = job(100000, 1, 4, 64, 100, 1000, 16, 0);
    struct prio_job b = job(0, 0, 1, 1, 1, 1, 0, 0);

    (void)state;
    c.multifactor = false;
    assert_int_equal(prio_compute(&c, &norm, &a, NULL), 1);
    assert_int_equal(prio_compute(&c, &norm, &b, NULL), 1);
}

static void test_accrual_skips_held_time(void **state)
{
    struct prio_accrual a = {0};

    (void)state;
    prio_accrue_set(&a, true, 100);  /* eligible */
    prio_accrue_set(&a, false, 160); /* held: 60 s accrued */
    assert_int_equal(prio_accrue_age_s(&a, 190), 60);
    prio_accrue_set(&a, true, 200); /* released */
    assert_int_equal(prio_accrue_age_s(&a, 230), 90);
    prio_accrue_set(&a, false, 230); /* requeued: keeps its age */
    prio_accrue_set(&a, true, 500);
    assert_int_equal(prio_accrue_age_s(&a, 510), 100);
}

static void test_tres_weights_parse(void **state)
{
    double w[LIMITS_TRES_COUNT];
    struct err e;

    (void)state;
    assert_int_equal(
        prio_tres_weights_parse("CPU=1000,Mem=0.25G,GRES/gpu=3000", w, &e), 0);
    assert_near(w[LIMITS_TRES_CPU], 1000);
    assert_near(w[LIMITS_TRES_MEM], 0.25 / 1024);
    assert_near(w[LIMITS_TRES_GPU], 3000);
    assert_near(w[LIMITS_TRES_NODE], 0);
    assert_int_equal(prio_tres_weights_parse("CPU=x", w, &e), -1);
    assert_non_null(strstr(e.text, "CPU=x"));
    assert_int_equal(prio_tres_weights_parse("license/foo=1", w, &e), -1);
    assert_int_equal(prio_tres_weights_parse("", w, &e), 0);
}

/* ---- fair-share ------------------------------------------------------- */

#define ASSOC(n, p, u, s, use)                                                 \
    {                                                                          \
        .name = (n), .parent = (p), .is_user = (u), .shares_raw = (s),         \
        .usage_raw = (use)                                                     \
    }

/*
 * root; A (60 shares) and B (40); a1, a2 under A (1 share each, usage 30
 * and 10); b1 (1 share, no usage) and b2 (3 shares, usage 60) under B.
 */
static void tree(struct fs_assoc a[7])
{
    const struct fs_assoc in[7] = {
        ASSOC("root", FS_NO_PARENT, false, 1, 0),
        ASSOC("A", 0, false, 60, 0),
        ASSOC("B", 0, false, 40, 0),
        ASSOC("a1", 1, true, 1, 30),
        ASSOC("a2", 1, true, 1, 10),
        ASSOC("b1", 2, true, 1, 0),
        ASSOC("b2", 2, true, 3, 60),
    };
    memcpy(a, in, sizeof(in));
}

static void test_classic(void **state)
{
    struct fs_assoc a[7];

    (void)state;
    tree(a);
    assert_int_equal(fs_compute(a, 7, false), 0);
    assert_near(a[0].usage_tree, 100);
    assert_near(a[1].usage_tree, 40);
    /* shares: A .6, a1 .6 * 1/2 = .3, b1 .4 * 1/4 = .1, b2 .4 * 3/4 */
    assert_near(a[1].shares_norm, 0.6);
    assert_near(a[3].shares_norm, 0.3);
    assert_near(a[5].shares_norm, 0.1);
    assert_near(a[6].shares_norm, 0.3);
    /* effective usage: a1 .3 + (.4 - .3)/2; b1 0 + (.6 - 0)/4 */
    assert_near(a[3].usage_eff, 0.35);
    assert_near(a[4].usage_eff, 0.25);
    assert_near(a[5].usage_eff, 0.15);
    assert_near(a[6].usage_eff, 0.6);
    assert_near(a[3].factor, exp2(-0.35 / 0.3));
    assert_near(a[4].factor, exp2(-0.25 / 0.3));
    assert_near(a[5].factor, exp2(-1.5));
    assert_near(a[6].factor, 0.25);
}

static void test_fair_tree(void **state)
{
    struct fs_assoc a[7];

    (void)state;
    tree(a);
    assert_int_equal(fs_compute(a, 7, true), 0);
    /* level fs: A .6/.4 = 1.5 beats B .4/.6; a2 .5/.25 = 2 > a1 .5/.75 */
    assert_near(a[1].level_fs, 1.5);
    assert_near(a[2].level_fs, 0.4 / 0.6);
    assert_near(a[3].level_fs, 0.5 / 0.75);
    assert_near(a[4].level_fs, 2);
    assert_true(isinf(a[5].level_fs));
    /* ranks 4..1 over 4 users: a2, a1, then b1 (no usage), b2 */
    assert_near(a[4].factor, 1.0);
    assert_near(a[3].factor, 0.75);
    assert_near(a[5].factor, 0.5);
    assert_near(a[6].factor, 0.25);
}

/* Tied accounts X and Y are ranked as one level: their users interleave. */
static void test_fair_tree_ties_merge(void **state)
{
    struct fs_assoc a[6] = {
        ASSOC("root", FS_NO_PARENT, false, 1, 0),
        ASSOC("X", 0, false, 1, 0),
        ASSOC("Y", 0, false, 1, 0),
        ASSOC("x1", 1, true, 1, 10), /* .5 / 1 = .5 */
        ASSOC("x2", 1, true, 1, 0),  /* infinite */
        ASSOC("y1", 2, true, 1, 10), /* 1 / 1 = 1 */
    };

    (void)state;
    assert_int_equal(fs_compute(a, 6, true), 0);
    assert_near(a[1].level_fs, a[2].level_fs);
    assert_near(a[4].factor, 1.0);
    assert_near(a[5].factor, 2.0 / 3);
    assert_near(a[3].factor, 1.0 / 3);
}

static void test_malformed_tree(void **state)
{
    struct fs_assoc two_roots[2] = {ASSOC("r", FS_NO_PARENT, false, 1, 0),
                                    ASSOC("s", FS_NO_PARENT, false, 1, 0)};
    struct fs_assoc cycle[3] = {ASSOC("r", FS_NO_PARENT, false, 1, 0),
                                ASSOC("a", 2, false, 1, 0),
                                ASSOC("b", 1, false, 1, 0)};
    struct fs_assoc under_user[3] = {ASSOC("r", FS_NO_PARENT, false, 1, 0),
                                     ASSOC("u", 0, true, 1, 0),
                                     ASSOC("v", 1, true, 1, 0)};

    (void)state;
    assert_int_equal(fs_compute(two_roots, 2, true), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(fs_compute(cycle, 3, true), -1);
    assert_int_equal(fs_compute(under_user, 3, false), -1);
}

static void test_decay_exact(void **state)
{
    const int64_t week = 7 * 86400;

    (void)state;
    assert_near(fs_decay(1000, week, week), 500);
    assert_near(fs_decay(1000, week / 2.0, week), 1000 / sqrt(2));
    assert_near(fs_decay(1000, 3 * week, week), 125);
    /* decaying in steps is decaying once */
    assert_near(fs_decay(fs_decay(1234.5, 300, week), 4500, week),
                fs_decay(1234.5, 4800, week));
    assert_near(fs_decay(1000, week, 0), 1000); /* no half-life: no decay */
}

static void test_billing(void **state)
{
    uint64_t tres[LIMITS_TRES_COUNT] = {0};
    double w[LIMITS_TRES_COUNT] = {0};

    (void)state;
    tres[LIMITS_TRES_CPU] = 8;
    tres[LIMITS_TRES_MEM] = 16000;
    tres[LIMITS_TRES_GPU] = 2;
    assert_near(fs_billing(tres, w, false), 8); /* no weights: CPUs */
    w[LIMITS_TRES_CPU] = 1;
    w[LIMITS_TRES_MEM] = 0.25 / 1024;
    w[LIMITS_TRES_GPU] = 10;
    assert_near(fs_billing(tres, w, false), 8 + 3.90625 + 20);
    assert_near(fs_billing(tres, w, true), 20);
}

static void test_reset_boundaries(void **state)
{
    const time_t wed_noon = 1704888000; /* 2024-01-10 12:00 UTC */

    (void)state;
    assert_int_equal(fs_reset_next(FS_RESET_NONE, wed_noon), 0);
    assert_int_equal(fs_reset_next(FS_RESET_DAILY, wed_noon), 1704931200);
    assert_int_equal(fs_reset_next(FS_RESET_WEEKLY, wed_noon), 1705190400);
    assert_int_equal(fs_reset_next(FS_RESET_MONTHLY, wed_noon), 1706745600);
    assert_int_equal(fs_reset_next(FS_RESET_QUARTERLY, wed_noon), 1711929600);
    assert_int_equal(fs_reset_next(FS_RESET_YEARLY, wed_noon), 1735689600);
    /* a boundary itself: the next one */
    assert_int_equal(fs_reset_next(FS_RESET_DAILY, 1704931200),
                     1704931200 + 86400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor_table),
        cmocka_unit_test(test_nice_bounds),
        cmocka_unit_test(test_job_size_variants),
        cmocka_unit_test(test_flags_change_arithmetic),
        cmocka_unit_test(test_basic_is_fifo),
        cmocka_unit_test(test_accrual_skips_held_time),
        cmocka_unit_test(test_tres_weights_parse),
        cmocka_unit_test(test_classic),
        cmocka_unit_test(test_fair_tree),
        cmocka_unit_test(test_fair_tree_ties_merge),
        cmocka_unit_test(test_malformed_tree),
        cmocka_unit_test(test_decay_exact),
        cmocka_unit_test(test_billing),
        cmocka_unit_test(test_reset_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
