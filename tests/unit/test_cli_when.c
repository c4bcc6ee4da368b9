/*
 * Unit tests for the CLI's one parser of points in time (src/cli/when.c):
 * every form in both of its day rules (WHEN_NEXT for --begin, WHEN_TODAY
 * for sacct/report bounds), the boundaries (a time of day equal to now,
 * just passed; leap days; the 100-year reach of now+N; AM/PM at 12), a
 * day that changes to summer time, and bad input named in the error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/when.h"

/* Local time, so that the expectations hold in the zone set by main. */
static time_t local(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = {.tm_year = y - 1900,
                    .tm_mon = mo - 1,
                    .tm_mday = d,
                    .tm_hour = h,
                    .tm_min = mi,
                    .tm_sec = s,
                    .tm_isdst = -1};
    return mktime(&tm);
}

struct ok_case {
    const char *in;
    time_t want;
};

static void expect_ok(const struct ok_case *c, size_t n, time_t now,
                      enum when_day day)
{
    struct err e;
    time_t t;

    for (size_t i = 0; i < n; i++) {
        t = 0;
        if (when_parse(c[i].in, now, day, &t, &e) < 0)
            fail_msg("%s: %s", c[i].in, e.text);
        if (t != c[i].want)
            fail_msg("%s (day rule %d): got %lld, want %lld", c[i].in, day,
                     (long long)t, (long long)c[i].want);
    }
}

/* --begin: 2024-03-10 12:00:05 (a Sunday). */
static void test_next(void **state)
{
    time_t now = local(2024, 3, 10, 12, 0, 5);
    const struct ok_case ok[] = {
        {"now", now},
        {"now+90", now + 90},
        {"now+1hour", now + 3600},
        {"NOW+2days", now + 2 * 86400},
        {"now+3minutes", now + 180},
        {"now+1week", now + 7 * 86400},
        {"now+10s", now + 10},
        {"now+2mins", now + 120},
        {"now+1h", now + 3600},
        {"now+3d", now + 3 * 86400},
        {"NoW+1W", now + 604800},
        {"now-5minutes", now - 300},
        {"now+5200weeks", now + 5200LL * 604800},   /* just under 100 years */
        {"13:30", local(2024, 3, 10, 13, 30, 0)},   /* later today */
        {"11:00:00", local(2024, 3, 11, 11, 0, 0)}, /* passed: tomorrow */
        {"12:00:05", now},                          /* now: today */
        {"12:00:04", local(2024, 3, 11, 12, 0, 4)}, /* a second ago */
        {"9:15", local(2024, 3, 11, 9, 15, 0)},
        {"1:30PM", local(2024, 3, 10, 13, 30, 0)},
        {"12:30pm", local(2024, 3, 10, 12, 30, 0)},
        {"12:00AM", local(2024, 3, 11, 0, 0, 0)},
        {"11:59:59am", local(2024, 3, 11, 11, 59, 59)},
        {"2024-12-31", local(2024, 12, 31, 0, 0, 0)},
        {"2024-12-31T23:59", local(2024, 12, 31, 23, 59, 0)},
        {"2024-02-29T01:02:03", local(2024, 2, 29, 1, 2, 3)}, /* leap day */
        {"2020-01-01", local(2020, 1, 1, 0, 0, 0)}, /* the past, as given */
        {"midnight", local(2024, 3, 11, 0, 0, 0)},
        {"tomorrow", local(2024, 3, 11, 0, 0, 0)},
        {"today", local(2024, 3, 10, 0, 0, 0)},
        {"noon", local(2024, 3, 11, 12, 0, 0)}, /* 12:00 has just passed */
        {"elevenses", local(2024, 3, 11, 11, 0, 0)},
        {"fika", local(2024, 3, 10, 15, 0, 0)},
        {"teatime", local(2024, 3, 10, 16, 0, 0)},
        {"TeaTime", local(2024, 3, 10, 16, 0, 0)},
        {"03/15", local(2024, 3, 15, 0, 0, 0)},
        {"3/15", local(2024, 3, 15, 0, 0, 0)},
        {"03/09", local(2025, 3, 9, 0, 0, 0)},  /* passed: next year */
        {"03/10", local(2025, 3, 10, 0, 0, 0)}, /* today's 00:00 passed */
        {"03/10-13:00", local(2024, 3, 10, 13, 0, 0)},
        {"03/15/25", local(2025, 3, 15, 0, 0, 0)},
        {"03/15/23", local(2023, 3, 15, 0, 0, 0)}, /* a year: as given */
        {"03/15/25-16:00", local(2025, 3, 15, 16, 0, 0)},
        {"3.15", local(2024, 3, 15, 0, 0, 0)},
        {"03.15.24-08:00:30", local(2024, 3, 15, 8, 0, 30)},
        {"0315", local(2024, 3, 15, 0, 0, 0)},
        {"031525", local(2025, 3, 15, 0, 0, 0)},
        {"0315-4:00PM", local(2024, 3, 15, 16, 0, 0)},
        {"@1700000000", 1700000000},
        {"@0", 0},
    };

    (void)state;
    expect_ok(ok, sizeof(ok) / sizeof(ok[0]), now, WHEN_NEXT);
}

/* sacct -S/-E: 2026-11-29 15:30. */
static void test_today(void **state)
{
    time_t now = local(2026, 11, 29, 15, 30, 0);
    const struct ok_case ok[] = {
        {"2026-11-29", local(2026, 11, 29, 0, 0, 0)},
        {"2026-11-29T10:00", local(2026, 11, 29, 10, 0, 0)},
        {"2026-11-29T10:00:05", local(2026, 11, 29, 10, 0, 5)},
        {"10:00", local(2026, 11, 29, 10, 0, 0)},
        {"16:00:30", local(2026, 11, 29, 16, 0, 30)},
        {"11/28", local(2026, 11, 28, 0, 0, 0)},
        {"11/28/25", local(2025, 11, 28, 0, 0, 0)},
        {"12/24", local(2026, 12, 24, 0, 0, 0)}, /* later: still this year */
        {"1128", local(2026, 11, 28, 0, 0, 0)},
        {"2/29/24", local(2024, 2, 29, 0, 0, 0)},
        {"midnight", local(2026, 11, 29, 0, 0, 0)},
        {"today", local(2026, 11, 29, 0, 0, 0)},
        {"tomorrow", local(2026, 11, 30, 0, 0, 0)},
        {"noon", local(2026, 11, 29, 12, 0, 0)},
        {"elevenses", local(2026, 11, 29, 11, 0, 0)},
        {"fika", local(2026, 11, 29, 15, 0, 0)},
        {"teatime", local(2026, 11, 29, 16, 0, 0)}, /* later: still today */
        {"now", now},
        {"now-1hours", now - 3600},
        {"now-90", now - 90},
        {"now+2days", now + 2 * 86400},
        {"now-1week", now - 604800},
        {"@1700000000", 1700000000},
    };

    (void)state;
    expect_ok(ok, sizeof(ok) / sizeof(ok[0]), now, WHEN_TODAY);
}

/* Bad input: -1, EINVAL, and the text named with the reason. */
static void test_bad(void **state)
{
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"25:00", "invalid time \"25:00\": hour must be 0-23"},
        {"12:60", "invalid time \"12:60\": minutes must be 0-59"},
        {"12:00:60", "invalid time \"12:00:60\": seconds must be 0-59"},
        {"13:00PM",
         "invalid time \"13:00PM\": hour must be 1-12 with AM or PM"},
        {"0:10am", "invalid time \"0:10am\": hour must be 1-12 with AM or PM"},
        {"2024-12-31T24:00", "invalid time \"2024-12-31T24:00\": hour must "
                             "be 0-23"},
        {"now+", "invalid time \"now+\": expected a number after now+ or now-"},
        {"now-", "invalid time \"now-\": expected a number after now+ or now-"},
        {"now+5parsecs", "invalid time \"now+5parsecs\": unknown unit "
                         "(seconds, minutes, hours, days or weeks)"},
        {"now-1fortnight", "invalid time \"now-1fortnight\": unknown unit "
                           "(seconds, minutes, hours, days or weeks)"},
        {"now+5300weeks", "invalid time \"now+5300weeks\": more than 100 "
                          "years away"},
        {"now+99999999999999999999", "invalid time "
                                     "\"now+99999999999999999999\": more "
                                     "than 100 years away"},
        {"2023-02-29", "invalid time \"2023-02-29\": no such day in that "
                       "month"},
        {"2024-04-31", "invalid time \"2024-04-31\": no such day in that "
                       "month"},
        {"2024-13-01", "invalid time \"2024-13-01\": month must be 1-12"},
        {"2024-00-10", "invalid time \"2024-00-10\": month must be 1-12"},
        {"1969-12-31", "invalid time \"1969-12-31\": year must be 1970 or "
                       "later"},
        {"13/01", "invalid time \"13/01\": month must be 1-12"},
        {"02/30", "invalid time \"02/30\": no such day in that month"},
        {"1332", "invalid time \"1332\": month must be 1-12"},
        {"@x", "invalid time \"@x\": expected Unix seconds after @"},
        {"@12x", "invalid time \"@12x\": expected Unix seconds after @"},
        {"soon", "invalid time \"soon\" (expected " WHEN_FORMS ")"},
        {"", "invalid time \"\" (expected " WHEN_FORMS ")"},
    };
    /* Not forms at all: the generic message. */
    static const char *const shapeless[] = {
        "yesterday", "yesterday-ish", "2024-1-1",
        "12:00:5",   "123:00",        "1/2/3",
        "03/15-",    "031",           "03151",
        "now5",      "10:00 today",   "16:00 tomorrow",
        "noon+1",    "12:00 PM",      " 12:00",
        "T12:00",    "2024-12-31T",   "2024-12-31 12:00",
    };
    time_t now = local(2024, 3, 10, 12, 0, 5), t;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        for (int day = WHEN_NEXT; day <= WHEN_TODAY; day++) {
            errno = 0;
            if (when_parse(bad[i].in, now, (enum when_day)day, &t, &e) == 0)
                fail_msg("%s accepted", bad[i].in);
            assert_int_equal(errno, EINVAL);
            assert_string_equal(e.text, bad[i].msg);
        }
    }
    for (size_t i = 0; i < sizeof(shapeless) / sizeof(shapeless[0]); i++) {
        errno = 0;
        if (when_parse(shapeless[i], now, WHEN_NEXT, &t, &e) == 0)
            fail_msg("%s accepted", shapeless[i]);
        assert_int_equal(errno, EINVAL);
        if (strstr(e.text, "(expected now[{+|-}N") == NULL ||
            strncmp(e.text, "invalid time \"", 14) != 0 ||
            strncmp(e.text + 14, shapeless[i], strlen(shapeless[i])) != 0)
            fail_msg("%s: %s", shapeless[i], e.text);
    }
    assert_int_equal(when_parse(NULL, now, WHEN_NEXT, &t, &e), -1);
    assert_int_equal(errno, EINVAL);
}

/* Sweden changes to summer time at 02:00 on 2024-03-31: local days and
 * times of day follow the wall clock, now+N counts seconds. */
static void test_summer_time(void **state)
{
    time_t now, t;
    struct err e;
    struct tm tm;

    (void)state;
    setenv("TZ", "Europe/Stockholm", 1);
    tzset();
    now = local(2024, 3, 30, 18, 0, 0);
    assert_int_equal(when_parse("fika", now, WHEN_NEXT, &t, &e), 0);
    localtime_r(&t, &tm);
    assert_int_equal(tm.tm_mday, 31);
    assert_int_equal(tm.tm_hour, 15);
    assert_int_equal(tm.tm_isdst, 1);
    /* 00:00 to 15:00 that day is 14 hours. */
    assert_int_equal(t - when_midnight(now, 1), 14 * 3600);
    assert_int_equal(when_parse("now+1day", now, WHEN_NEXT, &t, &e), 0);
    assert_int_equal(t, now + 86400);
    localtime_r(&t, &tm);
    assert_int_equal(tm.tm_hour, 19);
    assert_int_equal(when_parse("03/31-12:00", now, WHEN_NEXT, &t, &e), 0);
    assert_int_equal(t, local(2024, 3, 31, 12, 0, 0));
    setenv("TZ", "UTC", 1);
    tzset();
}

static void test_midnight(void **state)
{
    time_t now = local(2024, 12, 31, 23, 59, 59);

    (void)state;
    assert_int_equal(when_midnight(now, 0), local(2024, 12, 31, 0, 0, 0));
    assert_int_equal(when_midnight(now, 1), local(2025, 1, 1, 0, 0, 0));
    assert_int_equal(when_midnight(now, -1), local(2024, 12, 30, 0, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next),        cmocka_unit_test(test_today),
        cmocka_unit_test(test_bad),         cmocka_unit_test(test_midnight),
        cmocka_unit_test(test_summer_time),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
