/*
 * Backfill's availability timeline.  Each node's profile is a step
 * function: from step k's time until the next step's, so much is free.
 * Running jobs give their share back at their end (rounded up to
 * bf_resolution); reservations and backfilled jobs take it for their time
 * limit.
 */
#include "sched/bf_profile.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void bf_profile_init(struct bf_profile *p, size_t nnodes, time_t now,
                     int64_t resolution_s)
{
    p->node = xcalloc(nnodes ? nnodes : 1, sizeof(*p->node));
    p->nnodes = nnodes;
    p->now = now;
    p->resolution_s = resolution_s > 0 ? resolution_s : 1;
}

void bf_profile_free(struct bf_profile *p)
{
    for (size_t i = 0; p->node != NULL && i < p->nnodes; i++)
        free(p->node[i].s);
    free(p->node);
    memset(p, 0, sizeof(*p));
}

time_t bf_profile_round_end(const struct bf_profile *p, time_t end)
{
    int64_t res = p->resolution_s, d = end - p->now;

    if (end == 0)
        return BF_FOREVER;
    if (d <= 0)
        return p->now + res;
    return p->now + (d + res - 1) / res * res;
}

static void step_push(struct bf_node *n, struct bf_step s)
{
    if (n->n == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 4;
        n->s = xreallocarray(n->s, n->cap, sizeof(*n->s));
    }
    n->s[n->n++] = s;
}

void bf_profile_release(struct bf_profile *p, size_t i, time_t end,
                        int64_t cpus, int64_t mem, int64_t gpus)
{
    if (end >= BF_FOREVER || i >= p->nnodes)
        return;
    step_push(&p->node[i], (struct bf_step){end, cpus, mem, gpus});
}

static int by_time(const void *a, const void *b)
{
    time_t x = ((const struct bf_step *)a)->t,
           y = ((const struct bf_step *)b)->t;

    return x < y ? -1 : x > y;
}

static uint32_t gpus_free(const struct sched_node *n)
{
    uint32_t used = 0;

    for (size_t w = 0; w < SCHED_GPU_WORDS(n->ngpus); w++)
        used += (uint32_t)__builtin_popcountll(n->gpu_used[w]);
    return n->ngpus - used;
}

void bf_profile_finish(struct bf_profile *p, const struct sched_node *nodes)
{
    for (size_t i = 0; i < p->nnodes; i++) {
        const struct sched_node *sn = &nodes[i];
        struct bf_node *n = &p->node[i];
        size_t rel = n->n, out = 1;
        struct bf_step cur = {p->now, (int64_t)sn->cpus - sn->cpus_alloc,
                              (int64_t)sn->mem_mib - (int64_t)sn->mem_alloc_mib,
                              sn->ngpus ? gpus_free(sn) : 0};

        n->usable = sn->up && !sn->drain;
        step_push(n, cur); /* at the end; moved to the front below */
        qsort(n->s, rel, sizeof(*n->s), by_time);
        memmove(n->s + 1, n->s, rel * sizeof(*n->s));
        n->s[0] = cur;
        for (size_t k = 1; k <= rel; k++) {
            struct bf_step d = n->s[k];
            cur.cpus += d.cpus, cur.mem += d.mem, cur.gpus += d.gpus;
            cur.t = d.t;
            if (n->s[out - 1].t == d.t)
                n->s[out - 1] = cur;
            else
                n->s[out++] = cur;
        }
        n->n = out;
    }
}

/* The step in force at t (the last one at or before it). */
static size_t step_at(const struct bf_node *n, time_t t)
{
    size_t lo = 0, hi = n->n;

    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (n->s[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static bool short_of(const struct bf_step *s, const struct bf_need *w)
{
    return s->cpus < w->cpus || s->mem < w->mem || s->gpus < w->gpus;
}

bool bf_profile_fits(const struct bf_node *n, time_t t, const struct bf_need *w)
{
    time_t end = w->dur >= BF_FOREVER ? BF_FOREVER : t + w->dur;
    size_t first;

    if (!n->usable)
        return false;
    first = n->s[0].t >= t ? 0 : step_at(n, t);
    for (size_t k = first; k < n->n; k++) {
        if (k > first && n->s[k].t >= end)
            break;
        if (short_of(&n->s[k], w))
            return false;
    }
    return true;
}

/* A start at any step from k to the first step short of w includes that
 * step; so the next start worth trying is just after it. */
time_t bf_profile_earliest(const struct bf_node *n, const struct bf_need *w,
                           time_t from, time_t horizon)
{
    size_t k = n->s[0].t >= from ? 0 : step_at(n, from);

    if (!n->usable)
        return -1;
    while (k < n->n && n->s[k].t <= horizon) {
        time_t t = n->s[k].t < from ? from : n->s[k].t;
        time_t end = w->dur >= BF_FOREVER ? BF_FOREVER : t + w->dur;
        size_t m = k;
        while (m < n->n && (m == k || n->s[m].t < end) &&
               !short_of(&n->s[m], w))
            m++;
        if (m == n->n || (m > k && n->s[m].t >= end))
            return t;
        k = m + 1;
    }
    return -1;
}

/* Make t a step boundary of n; returns the step starting at t. */
static size_t split(struct bf_node *n, time_t t)
{
    size_t k = step_at(n, t);

    if (n->s[k].t == t)
        return k;
    step_push(n, n->s[n->n - 1]);
    memmove(&n->s[k + 2], &n->s[k + 1], (n->n - k - 2) * sizeof(*n->s));
    n->s[k + 1] = n->s[k];
    n->s[k + 1].t = t;
    return k + 1;
}

void bf_profile_take(struct bf_node *n, time_t t, const struct bf_need *w)
{
    time_t end;
    size_t k;

    if (t < n->s[0].t) /* never before the profile's start */
        t = n->s[0].t;
    end = w->dur >= BF_FOREVER ? BF_FOREVER : t + w->dur;
    k = split(n, t);
    if (end < BF_FOREVER)
        split(n, end);
    for (; k < n->n && n->s[k].t < end; k++) {
        n->s[k].cpus -= w->cpus;
        n->s[k].mem -= w->mem;
        n->s[k].gpus -= w->gpus;
    }
}
