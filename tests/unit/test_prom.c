/*
 * Unit tests for common/prom (Prometheus's text format 0.0.4) and the
 * controller's fixed-bucket histograms (ctld/core/stats): HELP and TYPE
 * lines, label values escaped, numbers, cumulative buckets with _sum and
 * _count, and where a duration lands.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/prom.h"
#include "ctld/core/stats.h"

/* The buffer's text (caller frees) and the buffer emptied. */
static char *drain(struct evbuffer *b)
{
    size_t n = evbuffer_get_length(b);
    char *s = malloc(n + 1);

    assert_non_null(s);
    evbuffer_remove(b, s, n);
    s[n] = '\0';
    return s;
}

static void test_head(void **state)
{
    struct evbuffer *b = evbuffer_new();
    char *s;

    (void)state;
    prom_head(b, "sluice_x_total", PROM_COUNTER, "a \\ b\nc \"q\"");
    prom_head(b, "sluice_y", PROM_GAUGE, "y");
    prom_head(b, "sluice_z_seconds", PROM_HISTOGRAM, "z");
    s = drain(b);
    /* HELP escapes backslash and newline only: quotes stay */
    assert_string_equal(s, "# HELP sluice_x_total a \\\\ b\\nc \"q\"\n"
                           "# TYPE sluice_x_total counter\n"
                           "# HELP sluice_y y\n"
                           "# TYPE sluice_y gauge\n"
                           "# HELP sluice_z_seconds z\n"
                           "# TYPE sluice_z_seconds histogram\n");
    free(s);
    evbuffer_free(b);
}

static void test_labels(void **state)
{
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"prod", "prod"},
        {"a\"b", "a\\\"b"},
        {"back\\slash", "back\\\\slash"},
        {"two\nlines", "two\\nlines"},
        {"", ""},
        {"caf\xc3\xa9", "caf\xc3\xa9"}, /* UTF-8 kept */
        {"bad\xff\xfe.", "bad?"
                         "?."},    /* not UTF-8: "?" each */
        {"cut\xc3", "cut?"},       /* a character cut short */
        {"\\\"\n", "\\\\\\\"\\n"}, /* all three in a row */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct evbuffer *b = evbuffer_new();
        char want[128], *s;
        prom_sample(b, "m", 1, "k", cases[i].value, NULL);
        s = drain(b);
        snprintf(want, sizeof(want), "m{k=\"%s\"} 1\n", cases[i].want);
        assert_string_equal(s, want);
        free(s);
        evbuffer_free(b);
    }
}

static void test_samples(void **state)
{
    struct evbuffer *b = evbuffer_new();
    char *s;

    (void)state;
    prom_sample(b, "plain", 3, NULL);
    prom_sample(b, "two", 0, "partition", "dev", "state", "idle", NULL);
    prom_sample(b, "nolabel", 7, "k", NULL, NULL);
    s = drain(b);
    assert_string_equal(s, "plain 3\n"
                           "two{partition=\"dev\",state=\"idle\"} 0\n"
                           "nolabel{k=\"\"} 7\n");
    free(s);
    evbuffer_free(b);
}

static void test_numbers(void **state)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "0"},
        {-3, "-3"},
        {67108864000.0, "67108864000"},
        {9007199254740991.0, "9007199254740991"},
        {0.5, "0.5"},
        {0.0005, "0.0005"},
        {1e-05, "1e-05"},
        {0.1 + 0.2, "0.30000000000000004"}, /* 15 digits would not do */
        {1e300, "1e+300"},
        {INFINITY, "+Inf"},
        {-INFINITY, "-Inf"},
        {NAN, "NaN"},
    };
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        prom_number(cases[i].v, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].want);
        if (isfinite(cases[i].v))
            assert_true(strtod(buf, NULL) == cases[i].v);
    }
}

static void test_hist(void **state)
{
    static const double le[] = {0.001, 0.01, 0.1};
    static const uint64_t bucket[] = {2, 0, 5};
    struct prom_hist h = {
        .n = 3, .le = le, .bucket = bucket, .count = 9, .sum = 1.25};
    struct evbuffer *b = evbuffer_new();
    char *s;

    (void)state;
    prom_hist(b, "d_seconds", &h, "type", "SUBMIT", NULL);
    s = drain(b);
    /* cumulative, +Inf is the count (2 above the last bound), le last */
    assert_string_equal(s, "d_seconds_bucket{type=\"SUBMIT\",le=\"0.001\"} 2\n"
                           "d_seconds_bucket{type=\"SUBMIT\",le=\"0.01\"} 2\n"
                           "d_seconds_bucket{type=\"SUBMIT\",le=\"0.1\"} 7\n"
                           "d_seconds_bucket{type=\"SUBMIT\",le=\"+Inf\"} 9\n"
                           "d_seconds_sum{type=\"SUBMIT\"} 1.25\n"
                           "d_seconds_count{type=\"SUBMIT\"} 9\n");
    free(s);
    prom_hist(b, "e", &h, NULL);
    s = drain(b);
    assert_string_equal(s, "e_bucket{le=\"0.001\"} 2\n"
                           "e_bucket{le=\"0.01\"} 2\n"
                           "e_bucket{le=\"0.1\"} 7\n"
                           "e_bucket{le=\"+Inf\"} 9\n"
                           "e_sum 1.25\n"
                           "e_count 9\n");
    free(s);
    evbuffer_free(b);
}

/* Where a duration lands: the first bound at or above it. */
static void test_stats_hist(void **state)
{
    static const struct {
        int64_t us;
        int bucket; /* -1: above every bound */
    } cases[] = {
        {-5, 0},       {0, 0},         {50, 0},        {51, 1},
        {100, 1},      {999, 4},       {1000, 4},      {1001, 5},
        {9999999, 16}, {10000000, 16}, {10000001, -1}, {INT64_C(1) << 40, -1},
    };
    struct stats_hist h = {0};
    int64_t sum = 0;
    uint64_t in = 0;

    (void)state;
    for (size_t i = 1; i < STATS_NBUCKETS; i++)
        assert_true(stats_le_us[i - 1] < stats_le_us[i]);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct stats_hist one = {0};
        stats_hist_add(&one, cases[i].us);
        stats_hist_add(&h, cases[i].us);
        sum += cases[i].us < 0 ? 0 : cases[i].us;
        for (int k = 0; k < STATS_NBUCKETS; k++)
            assert_int_equal(one.bucket[k], k == cases[i].bucket ? 1 : 0);
        assert_int_equal(one.count, 1);
    }
    for (int k = 0; k < STATS_NBUCKETS; k++)
        in += h.bucket[k];
    assert_int_equal(h.count, sizeof(cases) / sizeof(cases[0]));
    assert_int_equal(h.count - in, 2); /* the two above 10 s */
    assert_true(h.sum_us == sum);
}

static void test_stats_tables(void **state)
{
    struct stats *st = stats_create(2);

    (void)state;
    stats_submitted(st, 1);
    stats_submitted(st, 7); /* out of range: ignored */
    stats_started(st, 0);
    assert_int_equal(st->submitted[1], 1);
    assert_int_equal(st->started[0], 1);
    stats_rpc(st, 3, 120, 0);
    stats_rpc(st, 3, 80, 1);
    stats_rpc(st, STATS_RPC_TYPES, 1, 0); /* out of range: ignored */
    assert_int_equal(st->rpc[3].count, 2);
    assert_int_equal(st->rpc[3].errors, 1);
    assert_int_equal(st->rpc[3].dur.sum_us, 200);
    stats_preempt(st, 1, NULL, "requeue", 40, 0);
    stats_preempt(st, 1, "", "requeue", 2, 0);
    stats_preempt(st, 1, "high", "requeue", 0, 9);
    stats_preempt(st, 1, NULL, "cancel", 1, 0);
    assert_int_equal(st->npreempt, 3);
    assert_int_equal(st->preempt[0].count, 2);
    assert_int_equal(st->preempt[0].lost_gpu_s, 42);
    assert_string_equal(st->preempt[1].qos, "high");
    assert_int_equal(st->preempt[1].lost_cpu_s, 9);
    /* statuses: each its own entry until the table is full, then "other" */
    for (int i = 0; i < STATS_HTTP_CODES + 5; i++)
        stats_http(st, 200 + i);
    stats_http(st, 200);
    assert_int_equal(st->nhttp, STATS_HTTP_CODES);
    assert_int_equal(st->http[0].code, 200);
    assert_int_equal(st->http[0].count, 2);
    assert_int_equal(st->http[STATS_HTTP_CODES - 1].code, 0);
    assert_int_equal(st->http[STATS_HTTP_CODES - 1].count, 6);
    /* a NULL stats counts nothing and does not crash */
    stats_rpc(NULL, 1, 1, 0);
    stats_http(NULL, 200);
    stats_preempt(NULL, 0, NULL, "cancel", 1, 1);
    stats_destroy(st);
    stats_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head),         cmocka_unit_test(test_labels),
        cmocka_unit_test(test_samples),      cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_hist),         cmocka_unit_test(test_stats_hist),
        cmocka_unit_test(test_stats_tables),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
