/*
 * Slurm time limits: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S" and
 * INFINITE, parsed strictly into seconds and printed back canonically.
 */
#include "common/timefmt.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/value.h"

#define TIMEFMT_EXPECTED                                                       \
    "expected M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or INFINITE"

/* The fields of a time, each in its own unit. */
struct timefmt_parts {
    uint64_t days, hours, mins, secs;
};

static int time_error(const char *s, int errnum, const char *why, struct err *e)
{
    char q[VALUE_QUOTE_MAX];

    errno = errnum;
    value_quote(s, q, sizeof(q));
    if (why == NULL)
        return err_set(e, "bad time \"%s\": %s", q, TIMEFMT_EXPECTED);
    return err_set(e, "bad time \"%s\": %s (%s)", q, why, TIMEFMT_EXPECTED);
}

/*
 * split_colons: the up to three ':'-separated numbers of s into v; the
 * count, or -1 with errno EINVAL (syntax) or ERANGE (a huge number).
 */
static int split_colons(const char *s, uint64_t v[3])
{
    int n = 0;

    for (;;) {
        size_t len = strcspn(s, ":");
        if (n == 3) {
            errno = EINVAL;
            return -1;
        }
        if (value_digits_u64(s, len, &v[n++]) < 0)
            return -1;
        if (s[len] == '\0')
            return n;
        s += len + 1;
    }
}

/* fill_parts: place the n colon fields per the format; -1 with a reason. */
static int fill_parts(bool with_days, const uint64_t v[3], int n,
                      struct timefmt_parts *p, const char **why)
{
    if (with_days) {
        p->hours = v[0];
        p->mins = n > 1 ? v[1] : 0;
        p->secs = n > 2 ? v[2] : 0;
        if (p->hours > 23)
            *why = "hours must be 0-23";
    } else if (n == 3) {
        p->hours = v[0];
        p->mins = v[1];
        p->secs = v[2];
    } else {
        p->mins = v[0];
        p->secs = n > 1 ? v[1] : 0;
        /* A bare M has no bound; only fields after a colon are checked. */
        if (n == 1)
            return 0;
    }
    if (p->secs > 59)
        *why = "seconds must be 0-59";
    if (p->mins > 59 && (with_days || n == 3))
        *why = "minutes must be 0-59";
    return *why != NULL ? -1 : 0;
}

/* add_scaled: *total += v * unit, -1 when it would reach INFINITE. */
static int add_scaled(uint64_t *total, uint64_t v, uint64_t unit)
{
    uint64_t limit = (uint64_t)TIMEFMT_INFINITE - 1;

    if (v > limit / unit || v * unit > limit - *total)
        return -1;
    *total += v * unit;
    return 0;
}

int timefmt_parse(const char *s, int64_t *secs, struct err *e)
{
    struct timefmt_parts p = {0};
    const char *why = NULL;
    const char *dash = strchr(s, '-');
    uint64_t v[3], total = 0;
    int n;

    if (strcasecmp(s, "INFINITE") == 0 || strcasecmp(s, "UNLIMITED") == 0) {
        *secs = TIMEFMT_INFINITE;
        return 0;
    }
    if (dash != NULL && value_digits_u64(s, (size_t)(dash - s), &p.days) < 0)
        return time_error(s, errno, errno == ERANGE ? "too large" : NULL, e);
    n = split_colons(dash != NULL ? dash + 1 : s, v);
    if (n < 0)
        return time_error(s, errno, errno == ERANGE ? "too large" : NULL, e);
    if (fill_parts(dash != NULL, v, n, &p, &why) < 0)
        return time_error(s, EINVAL, why, e);
    if (add_scaled(&total, p.days, 86400) < 0 ||
        add_scaled(&total, p.hours, 3600) < 0 ||
        add_scaled(&total, p.mins, 60) < 0 || add_scaled(&total, p.secs, 1) < 0)
        return time_error(s, ERANGE, "too large", e);
    *secs = (int64_t)total;
    return 0;
}

char *timefmt_format(int64_t secs, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    if (secs == TIMEFMT_INFINITE) {
        snprintf(buf, len, "INFINITE");
        return buf;
    }
    if (secs < 0)
        secs = 0;
    int64_t days = secs / 86400;
    int h = (int)(secs / 3600 % 24);
    int m = (int)(secs / 60 % 60);
    int s = (int)(secs % 60);
    if (days > 0)
        snprintf(buf, len, "%" PRId64 "-%02d:%02d:%02d", days, h, m, s);
    else
        snprintf(buf, len, "%02d:%02d:%02d", h, m, s);
    return buf;
}
