/*
 * The controller's own counters (stats.h): fixed-bucket histograms and
 * small tables, nothing allocated per event but a new preemption label
 * set.
 */
#include "ctld/core/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

const int64_t stats_le_us[STATS_NBUCKETS] = {
    50,    100,    250,    500,    1000,    2500,    5000,    10000,    25000,
    50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
};

void stats_hist_add(struct stats_hist *h, int64_t us)
{
    size_t lo = 0, hi = STATS_NBUCKETS;

    if (us < 0)
        us = 0;
    /* the first bound >= us (hi == STATS_NBUCKETS: above them all) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (stats_le_us[mid] < us)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < STATS_NBUCKETS)
        h->bucket[lo]++;
    h->count++;
    h->sum_us += us;
}

struct stats *stats_create(size_t nparts)
{
    struct stats *st = xcalloc(1, sizeof(*st));

    st->nparts = nparts;
    st->submitted = xcalloc(nparts ? nparts : 1, sizeof(*st->submitted));
    st->started = xcalloc(nparts ? nparts : 1, sizeof(*st->started));
    return st;
}

void stats_destroy(struct stats *st)
{
    int saved = errno;

    if (st == NULL)
        return;
    for (size_t i = 0; i < st->npreempt; i++)
        free(st->preempt[i].qos);
    free(st->preempt);
    free(st->submitted);
    free(st->started);
    free(st);
    errno = saved;
}

void stats_rpc(struct stats *st, uint16_t type, int64_t dur_us, int failed)
{
    struct stats_rpc *r;

    if (st == NULL || type >= STATS_RPC_TYPES)
        return;
    r = &st->rpc[type];
    r->count++;
    if (failed)
        r->errors++;
    stats_hist_add(&r->dur, dur_us);
}

void stats_commit(struct stats *st, int64_t dur_us)
{
    if (st != NULL)
        stats_hist_add(&st->commit, dur_us);
}

void stats_http(struct stats *st, int code)
{
    size_t i = 0;

    if (st == NULL)
        return;
    while (i < st->nhttp && st->http[i].code != code)
        i++;
    if (i == STATS_HTTP_CODES) {
        i = STATS_HTTP_CODES - 1; /* full: counted as "other" */
    } else if (i == st->nhttp) {
        /* the last free entry becomes "other" (code 0) */
        st->http[i].code = i == STATS_HTTP_CODES - 1 ? 0 : code;
        st->nhttp++;
    }
    st->http[i].count++;
}

void stats_submitted(struct stats *st, size_t part)
{
    if (st != NULL && part < st->nparts)
        st->submitted[part]++;
}

void stats_started(struct stats *st, size_t part)
{
    if (st != NULL && part < st->nparts)
        st->started[part]++;
}

void stats_preempt(struct stats *st, size_t part, const char *qos,
                   const char *mode, uint64_t gpu_s, uint64_t cpu_s)
{
    struct stats_preempt *p = NULL;

    if (st == NULL)
        return;
    if (qos == NULL)
        qos = "";
    for (size_t i = 0; i < st->npreempt && p == NULL; i++)
        if (st->preempt[i].part == part &&
            strcmp(st->preempt[i].mode, mode) == 0 &&
            strcmp(st->preempt[i].qos, qos) == 0)
            p = &st->preempt[i];
    if (p == NULL) {
        st->preempt =
            xreallocarray(st->preempt, st->npreempt + 1, sizeof(*st->preempt));
        p = &st->preempt[st->npreempt++];
        *p = (struct stats_preempt){
            .part = part, .qos = xstrdup(qos), .mode = mode};
    }
    p->count++;
    p->lost_gpu_s += gpu_s;
    p->lost_cpu_s += cpu_s;
}

void stats_auth_refused(struct stats *st, const char *addr, const char *reason,
                        time_t now)
{
    struct stats_refused *r = NULL;

    if (st == NULL)
        return;
    for (size_t i = 0; i < st->nrefused && r == NULL; i++)
        if (strcmp(st->refused[i].addr, addr) == 0)
            r = &st->refused[i];
    if (r == NULL && st->nrefused < STATS_REFUSED_MAX)
        r = &st->refused[st->nrefused++];
    if (r == NULL) { /* full: the peer refused longest ago makes room */
        r = &st->refused[0];
        for (size_t i = 1; i < st->nrefused; i++)
            if (st->refused[i].last < r->last)
                r = &st->refused[i];
    }
    if (strcmp(r->addr, addr) != 0) {
        memset(r, 0, sizeof(*r));
        snprintf(r->addr, sizeof(r->addr), "%s", addr);
        r->first = now;
    }
    r->count++;
    r->last = now;
    snprintf(r->reason, sizeof(r->reason), "%s", reason);
}

static int by_last(const void *a, const void *b)
{
    const struct stats_refused *x = *(const struct stats_refused *const *)a;
    const struct stats_refused *y = *(const struct stats_refused *const *)b;

    return x->last < y->last ? 1 : x->last > y->last ? -1 : 0;
}

json_t *stats_refused_json(const struct stats *st)
{
    const struct stats_refused *v[STATS_REFUSED_MAX];
    json_t *a = json_array();
    size_t n = st ? st->nrefused : 0;

    for (size_t i = 0; i < n; i++)
        v[i] = &st->refused[i];
    qsort(v, n, sizeof(v[0]), by_last);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a,
            json_pack("{s:s, s:I, s:I, s:I, s:s}", "peer", v[i]->addr, "count",
                      (json_int_t)v[i]->count, "first", (json_int_t)v[i]->first,
                      "last", (json_int_t)v[i]->last, "reason", v[i]->reason));
    return a;
}
