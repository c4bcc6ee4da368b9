/*
 * Unit tests for Slurm time limits: every accepted form, its bounds, the
 * errors people see, and the canonical print that parses back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/timefmt.h"

static void test_parse(void **state)
{
    static const struct {
        const char *s;
        int64_t secs;
    } cases[] = {
        {"0", 0},
        {"5", 300},
        {"90", 5400},
        {"00", 0},
        {"INFINITE", TIMEFMT_INFINITE},
        {"UNLIMITED", TIMEFMT_INFINITE},
        {"infinite", TIMEFMT_INFINITE},
        {"Unlimited", TIMEFMT_INFINITE},
        {"1:30", 90},
        {"59:59", 3599},
        {"120:00", 7200},
        {"1:00:00", 3600},
        {"00:05:00", 300},
        {"72:00:00", 259200},
        {"1:59:59", 7199},
        {"1-0", 86400},
        {"1-00", 86400},
        {"2-12", 216000},
        {"1-23:59", 86400 + 23 * 3600 + 59 * 60},
        {"1-2:3:4", 86400 + 2 * 3600 + 3 * 60 + 4},
        {"3-00:00:00", 259200},
        {"0-0:0:0", 0},
        {"365-0", 365 * 86400},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        int64_t secs = -1;
        if (timefmt_parse(cases[i].s, &secs, &e) < 0)
            fail_msg("%s: %s", cases[i].s, e.text);
        assert_int_equal(secs, cases[i].secs);
    }
}

static void test_parse_errors(void **state)
{
    static const struct {
        const char *s;
        int errnum;
        const char *msg;
    } cases[] = {
        {"59:60", EINVAL,
         "bad time \"59:60\": seconds must be 0-59 (expected "
         "M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or INFINITE)"},
        {"1:60:00", EINVAL, "\"1:60:00\": minutes must be 0-59"},
        {"1:00:60", EINVAL, "seconds must be 0-59"},
        {"1-24", EINVAL, "\"1-24\": hours must be 0-23"},
        {"1-0:60", EINVAL, "minutes must be 0-59"},
        {"1-0:0:60", EINVAL, "seconds must be 0-59"},
        {"-5", EINVAL, "bad time \"-5\": expected M, M:S"},
        {"", EINVAL, "bad time \"\": expected"},
        {"1-", EINVAL, "\"1-\": expected"},
        {"-", EINVAL, "expected"},
        {"1:2:3:4", EINVAL, "\"1:2:3:4\": expected"},
        {"1-2:3:4:5", EINVAL, "expected"},
        {"1-2-3", EINVAL, "expected"},
        {"abc", EINVAL, "\"abc\": expected"},
        {"1 2", EINVAL, "\"1 2\": expected"},
        {" 1", EINVAL, "expected"},
        {"1:", EINVAL, "expected"},
        {":1", EINVAL, "expected"},
        {"1::2", EINVAL, "expected"},
        {"+5", EINVAL, "expected"},
        {"1.5", EINVAL, "expected"},
        {"INFINITEx", EINVAL, "expected"},
        {"99999999999999999999", ERANGE,
         "\"99999999999999999999\": too "
         "large"},
        {"153722867280912931", ERANGE, "too large"},
        {"106751991167301-0", ERANGE, "too large"},
        {"1:99999999999999999999:00", ERANGE, "too large"},
        {"bad\ntime", EINVAL, "\"bad\\x0atime\""},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        int64_t secs = 42;
        errno = 0;
        if (timefmt_parse(cases[i].s, &secs, &e) == 0)
            fail_msg("%s: parsed as %lld", cases[i].s, (long long)secs);
        assert_int_equal(secs, 42);
        assert_int_equal(errno, cases[i].errnum);
        if (strstr(e.text, cases[i].msg) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].s, e.text,
                     cases[i].msg);
    }
}

static void test_format(void **state)
{
    static const struct {
        int64_t secs;
        const char *want;
    } cases[] = {
        {TIMEFMT_INFINITE, "INFINITE"},
        {0, "00:00:00"},
        {59, "00:00:59"},
        {300, "00:05:00"},
        {3600, "01:00:00"},
        {86399, "23:59:59"},
        {86400, "1-00:00:00"},
        {259200, "3-00:00:00"},
        {90061, "1-01:01:01"},
        {400 * 86400 + 5, "400-00:00:05"},
        {-5, "00:00:00"},
    };
    char buf[TIMEFMT_BUFLEN];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(timefmt_format(cases[i].secs, buf, sizeof(buf)),
                            cases[i].want);
    /* A short buffer truncates but stays terminated. */
    assert_string_equal(timefmt_format(259200, buf, 4), "3-0");
    assert_ptr_equal(timefmt_format(1, buf, 0), buf);
}

/* The canonical print parses back to the same seconds. */
static void test_round_trip(void **state)
{
    static const int64_t values[] = {
        0,
        1,
        59,
        60,
        3599,
        3600,
        86399,
        86400,
        86401,
        259200,
        1234567,
        99999999,
        TIMEFMT_INFINITE - 1,
        TIMEFMT_INFINITE,
    };
    char buf[TIMEFMT_BUFLEN];
    uint32_t x = 7;

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]) + 1000; i++) {
        int64_t v, back;
        if (i < sizeof(values) / sizeof(values[0])) {
            v = values[i];
        } else {
            x = x * 1103515245u + 12345u;
            v = (int64_t)(x % 40000000u);
        }
        struct err e = {""};
        timefmt_format(v, buf, sizeof(buf));
        if (timefmt_parse(buf, &back, &e) < 0)
            fail_msg("%lld -> %s: %s", (long long)v, buf, e.text);
        assert_int_equal(back, v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
