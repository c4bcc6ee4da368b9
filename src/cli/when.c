/*
 * Points in time as the CLI's users write them (when.h): each form is one
 * function that answers 1 (it was this form; *out set), 0 (not this form)
 * or -1 (this form, but a field out of range; the reason in w->why).
 */
#include "cli/when.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The furthest now+N / now-N may reach, in seconds (100 years). */
#define WHEN_MAX_OFFSET (100LL * 365 * 86400)

struct when {
    time_t now;
    enum when_day day;
    const char *why; /* set by a form that matched but is out of range */
};

/* A clock time and a date; year < 0: not given. */
struct when_tm {
    int year, mon, mday, hour, min, sec;
};

time_t when_midnight(time_t now, int days)
{
    struct tm tm;

    localtime_r(&now, &tm);
    tm.tm_mday += days;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

/* h:m:s local time, days after the day of now. */
static time_t at_clock(time_t now, int days, int h, int m, int s)
{
    struct tm tm;

    localtime_r(&now, &tm);
    tm.tm_mday += days;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = s;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

/* A time of day: today's, or (WHEN_NEXT) tomorrow's once it has passed. */
static time_t at_day_clock(const struct when *w, int h, int m, int s)
{
    time_t t = at_clock(w->now, 0, h, m, s);

    if (w->day == WHEN_NEXT && t < w->now)
        t = at_clock(w->now, 1, h, m, s);
    return t;
}

static time_t at_date(const struct when_tm *d)
{
    struct tm tm = {
        .tm_year = d->year - 1900,
        .tm_mon = d->mon - 1,
        .tm_mday = d->mday,
        .tm_hour = d->hour,
        .tm_min = d->min,
        .tm_sec = d->sec,
        .tm_isdst = -1,
    };

    return mktime(&tm);
}

static int days_in_month(int year, int mon)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

    return mon == 2 && leap ? 29 : days[mon - 1];
}

/* Exactly n digits at *pp into *v. */
static bool digits(const char **pp, int n, int *v)
{
    int x = 0;

    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*pp)[i]))
            return false;
        x = x * 10 + ((*pp)[i] - '0');
    }
    *pp += n;
    *v = x;
    return true;
}

/* One or two digits at *pp into *v. */
static bool digits12(const char **pp, int *v)
{
    if (!digits(pp, 1, v))
        return false;
    if (isdigit((unsigned char)**pp)) {
        *v = *v * 10 + (**pp - '0');
        (*pp)++;
    }
    return true;
}

/* "H[H]:MM[:SS][AM|PM]", the whole of p, into t's clock fields. */
static int form_clock(struct when *w, const char *p, struct when_tm *t)
{
    int ampm = 0; /* 1: AM, 2: PM */

    t->sec = 0;
    if (!digits12(&p, &t->hour) || *p++ != ':' || !digits(&p, 2, &t->min))
        return 0;
    if (*p == ':' && (p++, !digits(&p, 2, &t->sec)))
        return 0;
    if (strcasecmp(p, "AM") == 0)
        ampm = 1;
    else if (strcasecmp(p, "PM") == 0)
        ampm = 2;
    else if (*p != '\0')
        return 0;
    if (ampm != 0 && (t->hour < 1 || t->hour > 12))
        return w->why = "hour must be 1-12 with AM or PM", -1;
    if (ampm != 0)
        t->hour = t->hour % 12 + (ampm == 2 ? 12 : 0);
    if (t->hour > 23)
        return w->why = "hour must be 0-23", -1;
    if (t->min > 59)
        return w->why = "minutes must be 0-59", -1;
    if (t->sec > 59)
        return w->why = "seconds must be 0-59", -1;
    return 1;
}

/* The date in t is a real day (year given or this year's). */
static int check_date(struct when *w, const struct when_tm *t)
{
    if (t->mon < 1 || t->mon > 12)
        return w->why = "month must be 1-12", -1;
    if (t->mday < 1 || t->mday > days_in_month(t->year, t->mon))
        return w->why = "no such day in that month", -1;
    return 1;
}

/* After a date: nothing (00:00), or sep and a clock. */
static int date_clock(struct when *w, const char *p, char sep,
                      struct when_tm *t)
{
    int rc;

    t->hour = t->min = t->sec = 0;
    if (*p == '\0')
        return 1;
    if (*p != sep)
        return 0;
    if ((rc = form_clock(w, p + 1, t)) <= 0)
        return rc;
    return 1;
}

/* "YYYY-MM-DD[THH:MM[:SS]]". */
static int form_iso(struct when *w, const char *p, time_t *out)
{
    struct when_tm t;
    int rc;

    if (!digits(&p, 4, &t.year) || *p++ != '-' || !digits(&p, 2, &t.mon) ||
        *p++ != '-' || !digits(&p, 2, &t.mday))
        return 0;
    if ((rc = date_clock(w, p, 'T', &t)) <= 0)
        return rc;
    if (t.year < 1970)
        return w->why = "year must be 1970 or later", -1;
    if ((rc = check_date(w, &t)) < 0)
        return rc;
    *out = at_date(&t);
    return 1;
}

/* The date in t without its year: this year's, or (WHEN_NEXT) next
 * year's once it has passed. */
static int date_this_year(struct when *w, struct when_tm *t, time_t *out)
{
    struct tm now;
    int rc;

    localtime_r(&w->now, &now);
    if (t->year < 0) {
        t->year = now.tm_year + 1900;
        if ((rc = check_date(w, t)) < 0)
            return rc;
        *out = at_date(t);
        if (w->day != WHEN_NEXT || *out >= w->now)
            return 1;
        t->year++;
    }
    if ((rc = check_date(w, t)) < 0)
        return rc;
    *out = at_date(t);
    return 1;
}

/* "MM/DD[/YY]", "MM.DD[.YY]" or "MMDD[YY]", then "[-HH:MM[:SS]]". */
static int form_mmdd(struct when *w, const char *p, time_t *out)
{
    struct when_tm t = {.year = -1};
    size_t len = strlen(p);
    char sep;
    int yy, rc;

    if (len < 3)
        return 0;
    sep = p[1] == '/' || p[1] == '.' ? p[1] : p[2];
    if (sep == '/' || sep == '.') {
        if (!digits12(&p, &t.mon) || *p++ != sep || !digits12(&p, &t.mday))
            return 0;
        if (*p == sep) {
            p++;
            if (!digits(&p, 2, &yy))
                return 0;
            t.year = 2000 + yy;
        }
    } else {
        if (!digits(&p, 2, &t.mon) || !digits(&p, 2, &t.mday))
            return 0;
        if (digits(&p, 2, &yy))
            t.year = 2000 + yy;
    }
    if ((rc = date_clock(w, p, '-', &t)) <= 0)
        return rc;
    return date_this_year(w, &t, out);
}

/* "now", "now+N[UNIT]", "now-N[UNIT]". */
static int form_now(struct when *w, const char *p, time_t *out)
{
    static const struct {
        const char *name;
        long long secs;
    } units[] = {
        {"", 1},         {"s", 1},        {"sec", 1},       {"secs", 1},
        {"second", 1},   {"seconds", 1},  {"m", 60},        {"min", 60},
        {"mins", 60},    {"minute", 60},  {"minutes", 60},  {"h", 3600},
        {"hour", 3600},  {"hours", 3600}, {"d", 86400},     {"day", 86400},
        {"days", 86400}, {"w", 604800},   {"week", 604800}, {"weeks", 604800},
    };
    int sign;
    char *end;
    long long n;

    if (strncasecmp(p, "now", 3) != 0)
        return 0;
    p += 3;
    if (*p == '\0') {
        *out = w->now;
        return 1;
    }
    if (*p != '+' && *p != '-')
        return 0;
    sign = *p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*p))
        return w->why = "expected a number after now+ or now-", -1;
    errno = 0;
    n = strtoll(p, &end, 10);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].name) != 0)
            continue;
        if (errno != 0 || n > WHEN_MAX_OFFSET / units[i].secs)
            return w->why = "more than 100 years away", -1;
        *out = w->now + (time_t)(sign * n * units[i].secs);
        return 1;
    }
    return w->why = "unknown unit (seconds, minutes, hours, days or weeks)", -1;
}

/* The named times. */
static int form_word(struct when *w, const char *p, time_t *out)
{
    static const struct {
        const char *name;
        int hour;
    } clocks[] = {
        {"noon", 12},
        {"elevenses", 11},
        {"fika", 15},
        {"teatime", 16},
    };

    if (strcasecmp(p, "today") == 0) {
        *out = when_midnight(w->now, 0);
        return 1;
    }
    if (strcasecmp(p, "tomorrow") == 0) {
        *out = when_midnight(w->now, 1);
        return 1;
    }
    if (strcasecmp(p, "midnight") == 0) {
        *out = when_midnight(w->now, w->day == WHEN_NEXT ? 1 : 0);
        return 1;
    }
    for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
        if (strcasecmp(p, clocks[i].name) == 0) {
            *out = at_day_clock(w, clocks[i].hour, 0, 0);
            return 1;
        }
    return 0;
}

/* "@SECONDS". */
static int form_epoch(struct when *w, const char *p, time_t *out)
{
    char *end;
    long long v;

    if (*p++ != '@')
        return 0;
    if (!isdigit((unsigned char)*p))
        return w->why = "expected Unix seconds after @", -1;
    errno = 0;
    v = strtoll(p, &end, 10);
    if (*end != '\0')
        return w->why = "expected Unix seconds after @", -1;
    if (errno != 0)
        return w->why = "out of range", -1;
    *out = (time_t)v;
    return 1;
}

/* A bare time of day. */
static int form_day_clock(struct when *w, const char *p, time_t *out)
{
    struct when_tm t;
    int rc = form_clock(w, p, &t);

    if (rc > 0)
        *out = at_day_clock(w, t.hour, t.min, t.sec);
    return rc;
}

int when_parse(const char *s, time_t now, enum when_day day, time_t *out,
               struct err *e)
{
    static int (*const forms[])(struct when *, const char *, time_t *) = {
        form_now, form_word, form_epoch, form_day_clock, form_iso, form_mmdd,
    };
    struct when w = {now, day, NULL};

    for (size_t i = 0; s != NULL && i < sizeof(forms) / sizeof(forms[0]); i++) {
        int rc = forms[i](&w, s, out);
        if (rc > 0 && *out == (time_t)-1)
            break;
        if (rc > 0)
            return 0;
        if (rc < 0) {
            errno = EINVAL;
            return err_set(e, "invalid time \"%s\": %s", s, w.why);
        }
    }
    errno = EINVAL;
    return err_set(e, "invalid time \"%s\" (expected " WHEN_FORMS ")",
                   s ? s : "");
}
