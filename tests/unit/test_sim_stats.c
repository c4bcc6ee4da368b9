/*
 * The simulator's statistics (median, nearest-rank p95, max, mean) and
 * its clock (events in time order, ties in the order scheduled, never
 * back in time), table-driven.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim/clock.h"
#include "sim/stats.h"

static void test_summary(void **state)
{
    static const struct {
        double v[24];
        size_t n;
        double median, p95, max, mean;
    } cases[] = {
        {{0}, 0, 0, 0, 0, 0},
        {{7}, 1, 7, 7, 7, 7},
        {{3, 1, 2}, 3, 2, 3, 3, 2},
        /* an even count: the mean of the middle two */
        {{4, 1, 3, 2}, 4, 2.5, 4, 4, 2.5},
        /* 20 values 1..20: p95 is the 19th (ceil(0.95 * 20)) */
        {{20, 19, 18, 17, 16, 15, 14, 13, 12, 11,
          10, 9,  8,  7,  6,  5,  4,  3,  2,  1},
         20,
         10.5,
         19,
         20,
         10.5},
        /* 21 values: p95 is the 20th (ceil(19.95)) */
        {{1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,
          12, 13, 14, 15, 16, 17, 18, 19, 20, 1000},
         21,
         11,
         20,
         1000,
         (210.0 + 1000) / 21},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3600},
         20,
         0,
         0,
         3600,
         180},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double v[24];
        struct sim_summary s;
        memcpy(v, cases[i].v, sizeof(v));
        s = sim_summarise(v, cases[i].n);
        if (s.n != cases[i].n || s.median != cases[i].median ||
            s.p95 != cases[i].p95 || s.max != cases[i].max ||
            fabs(s.mean - cases[i].mean) > 1e-9)
            fail_msg("case %zu: median %g p95 %g max %g mean %g", i, s.median,
                     s.p95, s.max, s.mean);
        for (size_t k = 1; k < cases[i].n; k++)
            assert_true(v[k - 1] <= v[k]); /* sorted in place */
    }
    {
        double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assert_true(sim_rank(v, 10, 0.5) == 5);
        assert_true(sim_rank(v, 10, 0.95) == 10);
        assert_true(sim_rank(v, 10, 0.01) == 1);
        assert_true(sim_rank(v, 10, 1) == 10);
    }
}

static void test_clock(void **state)
{
    static const struct {
        time_t t;
        int kind;
    } in[] = {{50, 1}, {10, 2}, {50, 3}, {30, 4}, {10, 5}, {5, 6}};
    static const int want[] = {6, 7, 2, 5, 8, 4, 1, 3};
    struct sim_clock c;
    struct sim_event ev;
    size_t k = 0;

    (void)state;
    sim_clock_init(&c, 8);
    assert_int_equal(sim_clock_next_time(&c), -1);
    assert_int_equal(sim_clock_pop(&c, &ev), -1);
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        sim_clock_at(&c, in[i].t, in[i].kind, i, 0);
    /* kind 6, for 5, before the clock's 8, is due at 8: before kind 7,
     * scheduled at 8 after it */
    sim_clock_at(&c, 8, 7, 0, 0);
    assert_int_equal(sim_clock_next_time(&c), 8);
    while (sim_clock_pop(&c, &ev) == 0) {
        if (k == 3) /* at 10, an event for 1: due now, before 30 */
            sim_clock_at(&c, 1, 8, 0, 0);
        assert_true(k < sizeof(want) / sizeof(want[0]));
        if (ev.kind != want[k])
            fail_msg("event %zu: kind %d, want %d", k, ev.kind, want[k]);
        assert_true(c.now >= ev.t);
        k++;
    }
    assert_int_equal(k, 8);
    assert_int_equal(c.now, 50);
    sim_clock_free(&c);

    /* many events: still in order */
    sim_clock_init(&c, 0);
    for (int i = 0; i < 5000; i++)
        sim_clock_at(&c, (time_t)((i * 7919) % 1000), i, 0, 0);
    time_t last = 0;
    int seen = 0;
    while (sim_clock_pop(&c, &ev) == 0) {
        assert_true(ev.t >= last);
        last = ev.t;
        seen++;
    }
    assert_int_equal(seen, 5000);
    sim_clock_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_clock),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
