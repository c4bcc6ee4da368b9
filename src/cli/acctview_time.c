/*
 * sacct's -S/-E time arguments (acctview_time_parse in acctview.h): the
 * forms Slurm documents for them that fit a batch-only cluster, in local
 * time.  ISO dates and the words go through jobspec_begin_parse.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/acctview.h"
#include "cli/jobspec.h"

#define ACCT_TIME_FORMS                                                        \
    "YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS], now[{+|-}N[units]], "    \
    "today, midnight, noon"

static int bad(const char *s, struct err *e)
{
    errno = EINVAL;
    return err_set(e, "invalid time \"%s\" (expected %s)", s, ACCT_TIME_FORMS);
}

/* now-N[units] / now+N[units]: seconds by default. */
static int relative(const char *s, time_t now, time_t *out, struct err *e)
{
    static const struct {
        const char *unit;
        long mult;
    } units[] = {{"", 1},        {"s", 1},          {"sec", 1},
                 {"seconds", 1}, {"second", 1},     {"m", 60},
                 {"min", 60},    {"minutes", 60},   {"minute", 60},
                 {"h", 3600},    {"hours", 3600},   {"hour", 3600},
                 {"d", 86400},   {"days", 86400},   {"day", 86400},
                 {"w", 604800},  {"weeks", 604800}, {"week", 604800}};
    const char *p = s + 3;
    int sign = *p == '-' ? -1 : 1;
    char *end;
    long n;

    if (*p != '-' && *p != '+')
        return bad(s, e);
    if (!isdigit((unsigned char)p[1]))
        return bad(s, e);
    n = strtol(p + 1, &end, 10);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].unit) == 0) {
            *out = now + sign * (time_t)n * units[i].mult;
            return 0;
        }
    }
    return bad(s, e);
}

/* HH:MM[:SS] today. */
static int clock_today(const char *s, time_t now, time_t *out)
{
    int h, m, sec = 0, used = 0;
    struct tm tm;

    if ((sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &used) != 3 &&
         sscanf(s, "%2d:%2d%n", &h, &m, &used) != 2) ||
        s[used] != '\0' || h > 23 || m > 59 || sec > 59)
        return -1;
    localtime_r(&now, &tm);
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    *out = mktime(&tm);
    return 0;
}

/* MM/DD[/YY] at midnight, this year unless given. */
static int month_day(const char *s, time_t now, time_t *out)
{
    int mo, d, y = -1, used = 0;
    struct tm tm;

    if ((sscanf(s, "%2d/%2d/%2d%n", &mo, &d, &y, &used) != 3 &&
         sscanf(s, "%2d/%2d%n", &mo, &d, &used) != 2) ||
        s[used] != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31)
        return -1;
    localtime_r(&now, &tm);
    if (y >= 0)
        tm.tm_year = 100 + y;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    *out = mktime(&tm);
    return 0;
}

int acctview_time_parse(const char *s, time_t now, time_t *out, struct err *e)
{
    char *end;

    if (s == NULL || *s == '\0')
        return bad(s ? s : "", e);
    if (s[0] == '@') {
        long long v = strtoll(s + 1, &end, 10);
        if (s[1] == '\0' || *end != '\0' || v < 0)
            return bad(s, e);
        *out = (time_t)v;
        return 0;
    }
    /* today's, not the next (as --begin means) */
    if (strcasecmp(s, "today") == 0 || strcasecmp(s, "midnight") == 0)
        return clock_today("00:00", now, out);
    if (strcasecmp(s, "noon") == 0)
        return clock_today("12:00", now, out);
    if (strncasecmp(s, "now", 3) == 0 && s[3] != '\0')
        return relative(s, now, out, e);
    if (clock_today(s, now, out) == 0 || month_day(s, now, out) == 0)
        return 0;
    if (strcasecmp(s, "tomorrow") != 0 && strcasecmp(s, "teatime") != 0 &&
        jobspec_begin_parse(s, now, out, NULL) == 0)
        return 0;
    return bad(s, e);
}
