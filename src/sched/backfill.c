/*
 * Backfill over a per-node time profile of free resources.  Each node's
 * profile is a step function: from step k's time until the next step's,
 * so much is free.  Running jobs give it back at their end (rounded up to
 * bf_resolution); reservations and backfilled jobs take it for their time
 * limit.  A job may start now only if its whole time limit fits the
 * profile, which already holds every reservation: so it delays none.
 */
#include "sched/backfill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "sched/select.h"

#define BF_FOREVER ((time_t)(INT64_MAX / 4))
/* Distinct start times tried for a multi-node reservation. */
#define BF_MAX_CANDIDATES 64

struct bf_step {
    time_t t;
    int64_t cpus, mem, gpus;
};

struct bf_node {
    struct bf_step *s;
    size_t n, cap;
    bool usable;
};

struct bf_need {
    int64_t cpus, mem, gpus;
    time_t dur;
};

struct bf {
    struct sched_cluster *c;
    const struct sched_bf *conf;
    time_t now;
    struct bf_node *node;
    bool *mask;     /* per node, for select_place; kept all false */
    time_t *when;   /* per node scratch: earliest start */
    uint64_t *seen; /* open-addressing tables: users, failed shapes */
    uint32_t *seen_n;
    size_t seen_cap;
    const struct sched_job **shape;
    size_t shape_cap;
};

/* ---- the profile ------------------------------------------------------ */

static time_t round_end(const struct bf *b, time_t end)
{
    int64_t res = b->conf->resolution_s > 0 ? b->conf->resolution_s : 1;
    int64_t d = end - b->now;

    if (end == 0)
        return BF_FOREVER;
    if (d <= 0)
        return b->now + res;
    return b->now + (d + res - 1) / res * res;
}

static void step_push(struct bf_node *n, struct bf_step s)
{
    if (n->n == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 4;
        n->s = xreallocarray(n->s, n->cap, sizeof(*n->s));
    }
    n->s[n->n++] = s;
}

static int by_time(const void *a, const void *b)
{
    time_t x = ((const struct bf_step *)a)->t,
           y = ((const struct bf_step *)b)->t;

    return x < y ? -1 : x > y;
}

/* A release of what a job holds on node i at its (rounded) end. */
static void release(struct bf *b, size_t i, time_t end, int64_t cpus,
                    int64_t mem, int64_t gpus)
{
    if (end >= BF_FOREVER || i >= b->c->nnodes)
        return;
    step_push(&b->node[i], (struct bf_step){end, cpus, mem, gpus});
}

static uint32_t gpus_free(const struct sched_node *n)
{
    uint32_t used = 0;

    for (size_t w = 0; w < SCHED_GPU_WORDS(n->ngpus); w++)
        used += (uint32_t)__builtin_popcountll(n->gpu_used[w]);
    return n->ngpus - used;
}

/* Turn each node's releases into steps, starting with what is free now. */
static void profile_finish(struct bf *b)
{
    for (size_t i = 0; i < b->c->nnodes; i++) {
        const struct sched_node *sn = &b->c->nodes[i];
        struct bf_node *n = &b->node[i];
        size_t rel = n->n, out = 1;
        struct bf_step cur = {b->now, (int64_t)sn->cpus - sn->cpus_alloc,
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

static int profile_build(struct bf *b, const struct sched_result *main)
{
    const struct sched_bf *bf = b->conf;

    for (size_t r = 0; r < bf->nrunning; r++) {
        const struct sched_running *x = &bf->running[r];
        time_t end = round_end(b, x->end_time);
        for (size_t k = 0; k < x->nnodes; k++) {
            if (x->nodes[k] >= b->c->nnodes)
                return -1;
            release(b, x->nodes[k], end, x->cpus_per_node,
                    (int64_t)x->mem_per_node_mib, x->gpus_per_node);
        }
    }
    for (size_t k = 0; k < main->n; k++) {
        const struct sched_decision *d = &main->decisions[k];
        const struct sched_job *j = &b->c->jobs[d->job];
        time_t end = j->time_limit_s > 0
                         ? round_end(b, b->now + j->time_limit_s)
                         : BF_FOREVER;
        for (size_t i = 0; i < d->nnodes; i++)
            release(b, d->nodes[i], end, j->cpus_per_node,
                    (int64_t)j->mem_per_node_mib, j->gpus_per_node);
    }
    profile_finish(b);
    return 0;
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

static bool fits(const struct bf_node *n, time_t t, const struct bf_need *w)
{
    time_t end = w->dur >= BF_FOREVER ? BF_FOREVER : t + w->dur;
    size_t first = step_at(n, t);

    if (!n->usable)
        return false;
    for (size_t k = first; k < n->n; k++) {
        const struct bf_step *s = &n->s[k];
        if (k > first && s->t >= end)
            break;
        if (s->cpus < w->cpus || s->mem < w->mem || s->gpus < w->gpus)
            return false;
    }
    return true;
}

/* The earliest step time <= horizon at which w fits n; -1 if none. */
static time_t earliest(const struct bf_node *n, const struct bf_need *w,
                       time_t horizon)
{
    if (!n->usable)
        return -1;
    for (size_t k = 0; k < n->n && n->s[k].t <= horizon; k++)
        if (fits(n, n->s[k].t, w))
            return n->s[k].t;
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

static void take(struct bf_node *n, time_t t, const struct bf_need *w)
{
    time_t end = w->dur >= BF_FOREVER ? BF_FOREVER : t + w->dur;
    split(n, t);
    if (end < BF_FOREVER)
        split(n, end);
    for (size_t k = step_at(n, t); k < n->n && n->s[k].t < end; k++) {
        n->s[k].cpus -= w->cpus;
        n->s[k].mem -= w->mem;
        n->s[k].gpus -= w->gpus;
    }
}

/* ---- small hash tables ------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return x;
}

/* Jobs examined so far for user u, after counting this one. */
static uint32_t user_count(struct bf *b, uint32_t u)
{
    size_t m = b->seen_cap - 1, i = mix(u + 1) & m;

    while (b->seen[i] != 0 && b->seen[i] != (uint64_t)u + 1)
        i = (i + 1) & m;
    b->seen[i] = (uint64_t)u + 1;
    return ++b->seen_n[i];
}

static bool shape_eq(const struct sched_job *x, const struct sched_job *y)
{
    return x->part == y->part && x->nodes == y->nodes &&
           x->cpus_per_node == y->cpus_per_node &&
           x->mem_per_node_mib == y->mem_per_node_mib &&
           x->gpus_per_node == y->gpus_per_node &&
           x->time_limit_s == y->time_limit_s;
}

static bool plain(const struct sched_job *j)
{
    return j->node_allowed == NULL && j->ncharges == 0 &&
           (j->gpu_type == NULL || j->gpu_type[0] == '\0');
}

/* Has a job of j's shape already failed to start now (add == false), or
 * remember that one did (add == true). */
static bool shape_failed(struct bf *b, const struct sched_job *j, bool add)
{
    uint64_t h = mix(((uint64_t)j->part << 40) ^ ((uint64_t)j->nodes << 32) ^
                     j->cpus_per_node ^ mix(j->mem_per_node_mib) ^
                     ((uint64_t)j->gpus_per_node << 20) ^
                     mix((uint64_t)j->time_limit_s));
    size_t m = b->shape_cap - 1, i = h & m;

    if (!plain(j))
        return false;
    while (b->shape[i] != NULL) {
        if (shape_eq(b->shape[i], j))
            return true;
        i = (i + 1) & m;
    }
    if (add)
        b->shape[i] = j;
    return false;
}

/* ---- decisions -------------------------------------------------------- */

static struct bf_need need_of(const struct sched_job *j)
{
    return (struct bf_need){j->cpus_per_node, (int64_t)j->mem_per_node_mib,
                            j->gpus_per_node,
                            j->time_limit_s > 0 ? j->time_limit_s : BF_FOREVER};
}

static bool allowed(const struct sched_job *j, size_t i)
{
    return j->node_allowed == NULL || j->node_allowed[i];
}

/* Start j now on nodes whose profile holds it for its whole limit. */
static bool start_now(struct bf *b, const struct sched_job *j,
                      struct sched_decision *d)
{
    const struct sched_part *p = &b->c->parts[j->part];
    struct bf_need w = need_of(j);
    struct sched_job tmp = *j;
    size_t ok = 0;
    int rc;

    for (size_t k = 0; k < p->nnodes; k++) {
        size_t i = p->nodes[k];
        if (allowed(j, i) && fits(&b->node[i], b->now, &w)) {
            b->mask[i] = true;
            ok++;
        }
    }
    tmp.node_allowed = b->mask;
    rc = ok >= j->nodes ? select_place(b->c, &tmp, d) : -1;
    for (size_t k = 0; k < p->nnodes; k++)
        b->mask[p->nodes[k]] = false;
    if (rc < 0)
        return false;
    for (size_t k = 0; k < d->nnodes; k++)
        take(&b->node[d->nodes[k]], b->now, &w);
    return true;
}

/* Reserve the earliest time within the window when j fits; 0 if none. */
static time_t reserve(struct bf *b, const struct sched_job *j)
{
    const struct sched_part *p = &b->c->parts[j->part];
    struct bf_need w = need_of(j);
    time_t horizon = b->now + b->conf->window_s, best = -1;
    size_t got = 0, tried = 0;

    for (size_t k = 0; k < p->nnodes; k++) {
        size_t i = p->nodes[k];
        b->when[k] = allowed(j, i) ? earliest(&b->node[i], &w, horizon) : -1;
        if (b->when[k] >= 0 && (best < 0 || b->when[k] < best))
            best = b->when[k];
    }
    while (best >= 0 && tried++ < BF_MAX_CANDIDATES) {
        time_t next = -1;
        got = 0;
        for (size_t k = 0; k < p->nnodes; k++) {
            if (b->when[k] > best && (next < 0 || b->when[k] < next))
                next = b->when[k];
            if (b->when[k] >= 0 && b->when[k] <= best &&
                fits(&b->node[p->nodes[k]], best, &w))
                got++;
        }
        if (got >= j->nodes)
            break;
        best = next;
    }
    if (best < 0 || got < j->nodes)
        return 0;
    got = 0;
    for (size_t k = 0; k < p->nnodes && got < j->nodes; k++)
        if (b->when[k] >= 0 && b->when[k] <= best &&
            fits(&b->node[p->nodes[k]], best, &w)) {
            take(&b->node[p->nodes[k]], best, &w);
            got++;
        }
    return best;
}

static bool after_cursor(const struct sched_job *j,
                         const struct sched_bf_cursor *c)
{
    if (!c->valid)
        return true;
    if (j->tier != c->tier)
        return j->tier < c->tier;
    if (j->priority != c->priority)
        return j->priority < c->priority;
    if (j->submit_time != c->submit_time)
        return j->submit_time > c->submit_time;
    return j->id > c->id;
}

static struct sched_bf_cursor cursor_of(const struct sched_job *j)
{
    return (struct sched_bf_cursor){true, j->tier, j->priority, j->submit_time,
                                    j->id};
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;

    while (p < n)
        p *= 2;
    return p;
}

static void bf_init(struct bf *b, struct sched_cluster *c,
                    const struct sched_bf *conf, time_t now)
{
    size_t maxpart = 1;

    memset(b, 0, sizeof(*b));
    b->c = c;
    b->conf = conf;
    b->now = now;
    for (size_t i = 0; i < c->nparts; i++)
        if (c->parts[i].nnodes > maxpart)
            maxpart = c->parts[i].nnodes;
    b->node = xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*b->node));
    b->mask = xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*b->mask));
    b->when = xcalloc(maxpart, sizeof(*b->when));
    b->seen_cap = pow2_at_least(2 * c->njobs);
    b->seen = xcalloc(b->seen_cap, sizeof(*b->seen));
    b->seen_n = xcalloc(b->seen_cap, sizeof(*b->seen_n));
    b->shape_cap = b->seen_cap;
    b->shape = xcalloc(b->shape_cap, sizeof(*b->shape));
}

static void bf_free(struct bf *b)
{
    for (size_t i = 0; b->node != NULL && i < b->c->nnodes; i++)
        free(b->node[i].s);
    free(b->node);
    free(b->mask);
    free(b->when);
    free(b->seen);
    free(b->seen_n);
    free(b->shape);
}

/* One waiting job: start it now, reserve for it, or neither. */
static void consider(struct bf *b, const struct sched_job *j,
                     struct sched_decision *d, struct sched_result *out,
                     struct sched_bf_stats *st)
{
    bool may_reserve = st->reserved < b->conf->max_job_test;
    time_t t;

    if (!may_reserve && shape_failed(b, j, false))
        return;
    if (sched_counters_room(b->c, j) && start_now(b, j, d)) {
        sched_counters_charge(b->c, j);
        d->reason = SCHED_REASON_NONE;
        d->start_est = b->now;
        d->backfilled = true;
        out->started++;
        st->started++;
        return;
    }
    if (!may_reserve) {
        shape_failed(b, j, true);
        return;
    }
    if (j->priority < j->min_prio_reserve) /* QOS MinPrioThreshold */
        return;
    t = reserve(b, j);
    if (t > 0) {
        d->start_est = t;
        st->reserved++;
    }
}

static void slice(struct bf *b, struct sched_result *out,
                  struct sched_bf_stats *st)
{
    const struct sched_bf *conf = b->conf;
    const struct sched_job *last = NULL;

    st->done = true;
    for (size_t k = 0; k < out->n; k++) {
        struct sched_decision *d = &out->decisions[k];
        const struct sched_job *j = &b->c->jobs[d->job];
        bool fresh = after_cursor(j, &conf->resume);
        if (d->nnodes > 0 || (d->reason != SCHED_REASON_PRIORITY &&
                              d->reason != SCHED_REASON_RESOURCES))
            continue;
        if (!fresh && st->reserved >= conf->max_job_test)
            continue; /* examined by an earlier slice */
        if (fresh && conf->max_examine > 0 &&
            st->examined >= conf->max_examine) {
            st->done = false;
            st->next = cursor_of(last);
            return;
        }
        if (conf->max_job_user > 0 &&
            user_count(b, j->user) > conf->max_job_user)
            continue;
        if (fresh) {
            st->examined++;
            last = j;
        }
        consider(b, j, d, out, st);
    }
}

int sched_backfill_pass(struct sched_cluster *c, const struct sched_bf *conf,
                        time_t now, struct sched_result *out,
                        struct sched_bf_stats *st)
{
    struct sched_bf_stats local;
    struct bf b;

    if (st == NULL)
        st = &local;
    memset(st, 0, sizeof(*st));
    if (sched_pass(c, now, out) < 0)
        return -1;
    for (size_t k = 0; k < out->n; k++)
        if (out->decisions[k].nnodes > 0)
            out->decisions[k].start_est = now;
    bf_init(&b, c, conf, now);
    if (profile_build(&b, out) < 0) {
        bf_free(&b);
        sched_result_clear(out);
        errno = EINVAL;
        return -1;
    }
    slice(&b, out, st);
    bf_free(&b);
    return 0;
}

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
