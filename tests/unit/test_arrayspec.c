/*
 * --array specifications: ranges, steps, lists, the %N throttle, the
 * MaxArraySize bound and the errors, and the compact text of task sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/arrayspec.h"
#include "common/xalloc.h"

static const struct {
    const char *spec;
    const char *set; /* as arrayset_format prints it */
    uint32_t count, min, max, step, throttle;
} good[] = {
    {"0-99%10", "0-99", 100, 0, 99, 1, 10},
    {"0-15:4", "0,4,8,12", 4, 0, 12, 4, 0},
    {"1,3,5-7", "1,3,5-7", 5, 1, 7, 1, 0},
    {"7", "7", 1, 7, 7, 1, 0},
    {"2-10:2%2", "2,4,6,8,10", 5, 2, 10, 2, 2},
    {"0-1000", "0-1000", 1001, 0, 1000, 1, 0},
    {"5,1,3", "1,3,5", 3, 1, 5, 2, 0},
    {"1-3,2-4", "1-4", 4, 1, 4, 1, 0},
};

static void test_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct arrayspec a;
        struct err e;
        char *s;

        assert_int_equal(arrayspec_parse(good[i].spec, 1001, &a, &e), 0);
        s = arrayset_format(&a.set);
        assert_string_equal(s, good[i].set);
        assert_int_equal(a.set.count, good[i].count);
        assert_int_equal(a.min, good[i].min);
        assert_int_equal(a.max, good[i].max);
        assert_int_equal(a.step, good[i].step);
        assert_int_equal(a.throttle, good[i].throttle);
        free(s);
        arrayspec_clear(&a);
    }
}

static const struct {
    const char *spec;
    const char *error; /* a part of the message */
} bad[] = {
    {"", "empty"},
    {"a-3", "expected a number at \"a-3\""},
    {"0-", "expected a number"},
    {"5-1", "runs backwards"},
    {"0-10:0", "step of 0"},
    {"0-1001", "task id 1001 is above MaxArraySize-1 (1000)"},
    {"1,,2", "expected a number"},
    {"1-3%", "expected a number"},
    {"1-3%0", "%0 limit"},
    {"1-3%2x", "after the %N limit"},
    {"1-3x", "unexpected \"x\""},
    {"99999999999", "number too large"},
    {"0-1000,0-1000", "more than MaxArraySize (1001) task ids in all"},
    {"0-600,500-1000", "more than MaxArraySize (1001) task ids in all"},
};

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct arrayspec a;
        struct err e;

        assert_int_equal(arrayspec_parse(bad[i].spec, 1001, &a, &e), -1);
        if (strstr(e.text, bad[i].error) == NULL)
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].spec, e.text,
                     bad[i].error);
        assert_non_null(strstr(e.text, "invalid --array"));
    }
}

/* Finding 8 of the December 2026 audit: "0-1000," repeated millions of
 * times made one SUBMIT loop over billions of ids.  A spec now costs at
 * most its length plus MaxArraySize steps, and is refused beyond that. */
static void test_bounded_work(void **state)
{
    size_t n = 2300000, len = n * 7;
    char *big = xmalloc(len + 1);
    struct arrayspec a;
    struct arrayset set;
    struct err e;

    (void)state;
    for (size_t i = 0; i < n; i++)
        memcpy(big + 7 * i, "0-1000,", 7);
    big[len - 1] = '\0';
    assert_int_equal(arrayspec_parse(big, 1001, &a, &e), -1);
    assert_non_null(strstr(e.text, "longer than 65536 characters"));
    assert_int_equal(arrayset_parse(big, 1001, &set, &e), -1);
    /* under the length cap, repeats run into the MaxArraySize budget */
    big[60000] = '\0';
    assert_int_equal(arrayspec_parse(big, ARRAYSPEC_MAX_SIZE, &a, &e), -1);
    assert_non_null(strstr(e.text, "do they repeat?"));
    free(big);
}

/* A 10,000-task array costs a bitmap of its ids, nothing per task. */
static void test_large_and_sets(void **state)
{
    struct arrayspec a;
    struct arrayset copy;
    struct err e;
    char *s;

    (void)state;
    assert_int_equal(arrayspec_parse("0-9999%50", 10001, &a, &e), 0);
    assert_int_equal(a.set.count, 10000);
    assert_true(a.set.nbits <= 10000 + 64);
    arrayset_del(&a.set, 0);
    arrayset_del(&a.set, 5000);
    arrayset_del(&a.set, 5000);
    assert_int_equal(a.set.count, 9998);
    assert_int_equal(arrayset_next(&a.set, 0), 1);
    assert_int_equal(arrayset_next(&a.set, 5000), 5001);
    assert_false(arrayset_has(&a.set, 10000));
    s = arrayset_format(&a.set);
    assert_string_equal(s, "1-4999,5001-9999");
    free(s);
    arrayset_copy(&copy, &a.set);
    arrayset_add(&copy, 0);
    assert_int_equal(copy.count, 9999);
    assert_int_equal(a.set.count, 9998);
    arrayset_clear(&copy);
    arrayspec_clear(&a);
    /* a bare set of a record read back */
    assert_int_equal(arrayset_parse("1-4999,5001-9999", 10000, &copy, &e), 0);
    assert_int_equal(copy.count, 9998);
    arrayset_clear(&copy);
    assert_int_equal(arrayset_parse("1-3%2", 10, &copy, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_bounded_work),
        cmocka_unit_test(test_large_and_sets),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
