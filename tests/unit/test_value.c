/*
 * Unit tests for scalar values: integers, booleans, memory sizes, and the
 * quoting used when they appear in messages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/value.h"

/* check_error: the message names the input and what went wrong. */
static void check_error(const char *in, const struct err *e, int errnum,
                        int want_errno, const char *msg)
{
    assert_int_equal(errnum, want_errno);
    if (strstr(e->text, msg) == NULL)
        fail_msg("%s: message \"%s\" lacks \"%s\"", in, e->text, msg);
}

static void test_u64(void **state)
{
    static const struct {
        const char *s;
        uint64_t min, max, want;
        int errnum; /* 0: accepted */
        const char *msg;
    } cases[] = {
        {"0", 0, 10, 0, 0, NULL},
        {"10", 0, 10, 10, 0, NULL},
        {"007", 0, 10, 7, 0, NULL},
        {"18446744073709551615", 0, UINT64_MAX, UINT64_MAX, 0, NULL},
        {"18446744073709551616", 0, UINT64_MAX, 0, ERANGE, "too large"},
        {"99999999999999999999999", 0, UINT64_MAX, 0, ERANGE, "too large"},
        {"11", 0, 10, 0, ERANGE, "\"11\": must be between 0 and 10"},
        {"0", 1, 10, 0, ERANGE, "must be between 1 and 10"},
        {"", 0, 10, 0, EINVAL, "bad number \"\": expected a decimal"},
        {"-1", 0, 10, 0, EINVAL, "\"-1\": expected a decimal integer"},
        {"+1", 0, 10, 0, EINVAL, "expected a decimal integer"},
        {" 1", 0, 10, 0, EINVAL, "expected a decimal integer"},
        {"1 ", 0, 10, 0, EINVAL, "expected a decimal integer"},
        {"1x", 0, 10, 0, EINVAL, "\"1x\": expected"},
        {"0x10", 0, 100, 0, EINVAL, "expected a decimal integer"},
        {"1.0", 0, 10, 0, EINVAL, "expected a decimal integer"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        uint64_t v = 12345;
        errno = 0;
        int rc =
            value_parse_u64(cases[i].s, cases[i].min, cases[i].max, &v, &e);
        if (cases[i].errnum == 0) {
            if (rc < 0)
                fail_msg("%s: %s", cases[i].s, e.text);
            assert_int_equal(v, cases[i].want);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_int_equal(v, 12345);
        check_error(cases[i].s, &e, errno, cases[i].errnum, cases[i].msg);
    }
}

static void test_bool(void **state)
{
    static const struct {
        const char *s;
        int want; /* -1: rejected */
    } cases[] = {
        {"YES", 1}, {"yes", 1},    {"True", 1},  {"ON", 1},    {"1", 1},
        {"NO", 0},  {"no", 0},     {"FALSE", 0}, {"off", 0},   {"0", 0},
        {"", -1},   {"y", -1},     {"2", -1},    {"yes ", -1}, {"onn", -1},
        {"01", -1}, {"truth", -1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        bool b = false;
        errno = 0;
        int rc = value_parse_bool(cases[i].s, &b, &e);
        if (cases[i].want < 0) {
            assert_int_equal(rc, -1);
            check_error(cases[i].s, &e, errno, EINVAL,
                        "expected YES, NO, TRUE, FALSE, ON, OFF, 1 or 0");
            assert_non_null(strstr(e.text, cases[i].s));
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(b, cases[i].want == 1);
    }
}

static void test_mem(void **state)
{
    static const struct {
        const char *s;
        uint64_t want;
        int errnum;
    } cases[] = {
        {"64000", 64000, 0},
        {"0", 0, 0},
        {"4G", 4096, 0},
        {"4g", 4096, 0},
        {"4GB", 4096, 0},
        {"4gb", 4096, 0},
        {"512K", 1, 0},
        {"1024K", 1, 0},
        {"1025k", 2, 0},
        {"0K", 0, 0},
        {"100M", 100, 0},
        {"100MB", 100, 0},
        {"2T", 2097152, 0},
        {"17592186044415T", 18446744073708503040u, 0},
        {"17592186044416T", 0, ERANGE},
        {"18446744073709551615", UINT64_MAX, 0},
        {"18446744073709551616", 0, ERANGE},
        {"", 0, EINVAL},
        {"G", 0, EINVAL},
        {"-1G", 0, EINVAL},
        {"4X", 0, EINVAL},
        {"4B", 0, EINVAL},
        {"4GBB", 0, EINVAL},
        {"4 G", 0, EINVAL},
        {"4G ", 0, EINVAL},
        {"1.5G", 0, EINVAL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        uint64_t v = 7;
        errno = 0;
        int rc = value_parse_mem_mib(cases[i].s, &v, &e);
        if (cases[i].errnum == 0) {
            if (rc < 0)
                fail_msg("%s: %s", cases[i].s, e.text);
            assert_int_equal(v, cases[i].want);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_int_equal(v, 7);
        check_error(cases[i].s, &e, errno, cases[i].errnum,
                    cases[i].errnum == ERANGE
                        ? "too large"
                        : "expected a number with an optional K, M, G or T");
        assert_non_null(strstr(e.text, "bad memory size \""));
    }
}

static void test_digits(void **state)
{
    uint64_t v = 0;

    (void)state;
    assert_int_equal(value_digits_u64("123abc", 3, &v), 0);
    assert_int_equal(v, 123);
    assert_int_equal(value_digits_u64("123", 0, &v), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(value_digits_u64("1a", 2, &v), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(value_digits_u64("18446744073709551616", 20, &v), -1);
    assert_int_equal(errno, ERANGE);
}

static void test_quote(void **state)
{
    static const struct {
        const char *s;
        size_t len;
        const char *want;
    } cases[] = {
        {"plain", 32, "plain"},         {"", 32, ""},
        {"a\"b\\c", 32, "a\\\"b\\\\c"}, {"tab\there", 32, "tab\\x09here"},
        {"\xff", 32, "\\xff"},          {"abcdefghij", 8, "abcd..."},
        {"abcdefg", 8, "abcdefg"},      {"abc\x01", 8, "abc\\x01"},
        {"abcd\x01", 8, "abcd..."},     {"abcdef", 3, ""},
        {"abcdef", 4, "..."},
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(value_quote(cases[i].s, buf, cases[i].len),
                            cases[i].want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64),   cmocka_unit_test(test_bool),
        cmocka_unit_test(test_mem),   cmocka_unit_test(test_digits),
        cmocka_unit_test(test_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
