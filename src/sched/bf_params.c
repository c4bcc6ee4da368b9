/*
 * The backfill keys of SchedulerParameters (bf_window, bf_resolution,
 * bf_max_job_test, bf_max_job_user, bf_continue, bf_yield_interval).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sched/backfill.h"

/* ---- SchedulerParameters ---------------------------------------------- */

static const struct {
    const char *key;
    uint64_t min, max;
} bf_keys[] = {
    {"bf_window", 1, 43200},            /* minutes: up to 30 days */
    {"bf_resolution", 1, 3600},         /* seconds */
    {"bf_max_job_test", 1, 1000000},    /* jobs */
    {"bf_max_job_user", 0, 1000000},    /* jobs; 0: unlimited */
    {"bf_yield_interval", 1, 10000000}, /* microseconds */
};

static void bf_set(struct sched_bf *bf, size_t k, uint64_t v)
{
    switch (k) {
    case 0:
        bf->window_s = (int64_t)v * 60;
        break;
    case 1:
        bf->resolution_s = (int64_t)v;
        break;
    case 2:
        bf->max_job_test = (uint32_t)v;
        break;
    case 3:
        bf->max_job_user = (uint32_t)v;
        break;
    default:
        bf->yield_interval_us = (int64_t)v;
        break;
    }
}

int sched_bf_params_parse(const char *params, struct sched_bf *bf,
                          struct err *e)
{
    struct sched_bf t = *bf;
    const char *p = params;

    t.window_s = SCHED_BF_WINDOW_S;
    t.resolution_s = SCHED_BF_RESOLUTION_S;
    t.max_job_test = SCHED_BF_MAX_JOB_TEST;
    t.max_job_user = 0;
    t.cont = false;
    t.yield_interval_us = 2000000;
    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
        if (klen == len && len == strlen("bf_continue") &&
            strncasecmp(p, "bf_continue", len) == 0)
            t.cont = true;
        for (size_t k = 0;
             klen < len && k < sizeof(bf_keys) / sizeof(bf_keys[0]); k++) {
            char num[32], *end;
            unsigned long long v;
            if (strlen(bf_keys[k].key) != klen ||
                strncasecmp(p, bf_keys[k].key, klen) != 0)
                continue;
            if (len - klen - 1 == 0 || len - klen - 1 >= sizeof(num))
                goto bad;
            memcpy(num, p + klen + 1, len - klen - 1);
            num[len - klen - 1] = '\0';
            errno = 0;
            v = strtoull(num, &end, 10);
            if (*end != '\0' || errno != 0 || num[0] == '-' ||
                v < bf_keys[k].min || v > bf_keys[k].max) {
                errno = EINVAL;
                return err_set(e,
                               "SchedulerParameters: %s=%s: want a whole "
                               "number from %llu to %llu",
                               bf_keys[k].key, num,
                               (unsigned long long)bf_keys[k].min,
                               (unsigned long long)bf_keys[k].max);
            }
            bf_set(&t, k, v);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (t.resolution_s > t.window_s) {
        errno = EINVAL;
        return err_set(e,
                       "SchedulerParameters: bf_resolution=%lld s is longer "
                       "than bf_window (%lld s): nothing could be reserved",
                       (long long)t.resolution_s, (long long)t.window_s);
    }
    *bf = t;
    return 0;
bad:
    errno = EINVAL;
    return err_set(e,
                   "SchedulerParameters: \"%.*s\": the value is missing "
                   "or too long",
                   (int)strcspn(p, ","), p);
}
