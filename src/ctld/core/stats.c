/*
 * The controller's own counters (stats.h): fixed-bucket histograms and
 * small tables, nothing allocated per event but a new preemption label
 * set.
 */
#include "ctld/core/stats.h"

#include <errno.h>
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
