/*
 * The preemption review (preempt_report.h): one walk over each job's
 * events (start, checkpoint, preempt, requeue, end), charged to its
 * user, QOS and partition, and to its preemptor's for "caused".
 */
#include "common/preempt_report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct grp {
    char *name;
    uint64_t runs, preempted, caused, requeues;
    double gpu_s, cpu_s;
    int64_t *waits;
    size_t nwaits;
};

/* Groups are allocated one by one: pointers to them stay valid. */
struct table {
    struct grp **v;
    size_t n;
};

struct report {
    struct table users, qos, parts;
    struct grp total;
    json_t *by_id; /* "id" -> ACCT_JOB */
};

double preempt_report_share(const char *pp)
{
    const char *k = pp ? strstr(pp, "report_share=") : NULL;
    double x;
    char *end;

    if (k == NULL || (k != pp && k[-1] != ','))
        return PREEMPT_REPORT_SHARE;
    x = strtod(k + strlen("report_share="), &end);
    if (end == k + strlen("report_share=") || (*end != '\0' && *end != ',') ||
        !(x > 0 && x <= 1))
        return PREEMPT_REPORT_SHARE;
    return x;
}

static struct grp *grp_get(struct table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i]->name, name) == 0)
            return t->v[i];
    t->v = xreallocarray(t->v, t->n + 1, sizeof(*t->v));
    t->v[t->n] = xcalloc(1, sizeof(**t->v));
    t->v[t->n]->name = xstrdup(name);
    return t->v[t->n++];
}

static const char *str(json_t *job, const char *key)
{
    const char *s = json_string_value(json_object_get(job, key));

    return s != NULL && s[0] != '\0' ? s : "(none)";
}

/* The three groups of a job. */
static void groups_of(struct report *r, json_t *job, struct grp *g[3])
{
    g[0] = grp_get(&r->users, str(job, "user_name"));
    g[1] = grp_get(&r->qos, str(job, "qos"));
    g[2] = grp_get(&r->parts, str(job, "partition"));
}

/* The job's GPUs in all (gres/gpu=N of its TRES), 0 without. */
static int64_t gpus_of(json_t *job)
{
    const char *t = json_string_value(json_object_get(job, "tres_req_str"));
    const char *g = t ? strstr(t, "gres/gpu=") : NULL;

    return g ? strtoll(g + strlen("gres/gpu="), NULL, 10) : 0;
}

static uint64_t preemptor_of(const char *detail)
{
    unsigned long long id;

    return detail && sscanf(detail, "by job %llu", &id) == 1 ? id : 0;
}

/* Charge what the victim job lost, killed at kill. */
static void charge_lost(struct report *r, struct grp *g[3], json_t *job,
                        time_t from, time_t kill)
{
    int64_t gpus = gpus_of(job), secs = kill > from ? kill - from : 0;
    int64_t cpus = json_integer_value(json_object_get(job, "cpus"));
    struct grp *all[4] = {g[0], g[1], g[2], &r->total};

    for (int i = 0; i < 4; i++) {
        if (gpus > 0)
            all[i]->gpu_s += (double)(gpus * secs);
        else
            all[i]->cpu_s += (double)(cpus * secs);
    }
}

static void count(struct report *r, struct grp *g[3], size_t off, int64_t wait)
{
    struct grp *all[4] = {g[0], g[1], g[2], &r->total};

    for (int i = 0; i < 4; i++) {
        if (off != (size_t)-1)
            (*(uint64_t *)((char *)all[i] + off))++;
        if (wait >= 0) {
            all[i]->waits = xreallocarray(all[i]->waits, all[i]->nwaits + 1,
                                          sizeof(int64_t));
            all[i]->waits[all[i]->nwaits++] = wait;
        }
    }
}

#define OFF(f) offsetof(struct grp, f)

static void caused_by(struct report *r, uint64_t id)
{
    char key[24];
    json_t *p;
    struct grp *g[3];

    snprintf(key, sizeof(key), "%" PRIu64, id);
    if ((p = json_object_get(r->by_id, key)) == NULL)
        return;
    groups_of(r, p, g);
    count(r, g, OFF(caused), -1);
}

static void walk(struct report *r, json_t *job)
{
    struct grp *g[3];
    time_t run = 0, ckpt = 0, requeued = 0, preempt = 0;
    size_t i;
    json_t *ev;

    groups_of(r, job, g);
    json_array_foreach(json_object_get(job, "events"), i, ev)
    {
        const char *what = json_string_value(json_object_get(ev, "event"));
        time_t t = (time_t)json_integer_value(json_object_get(ev, "time"));
        if (what == NULL)
            continue;
        if (strcmp(what, "start") == 0) {
            count(r, g, OFF(runs), requeued ? t - requeued : -1);
            run = t;
            ckpt = requeued = 0;
        } else if (strcmp(what, "checkpoint") == 0) {
            ckpt = t;
        } else if (strcmp(what, "preempt") == 0) {
            const char *d = json_string_value(json_object_get(ev, "detail"));
            count(r, g, OFF(preempted), -1);
            caused_by(r, preemptor_of(d));
            /* a suspended victim loses nothing: it resumes later */
            preempt = d && strstr(d, "mode=SUSPEND") ? 0 : t;
        } else if (preempt &&
                   (strcmp(what, "requeue") == 0 || strcmp(what, "end") == 0)) {
            charge_lost(r, g, job, ckpt > run ? ckpt : run, t);
            if (strcmp(what, "requeue") == 0) {
                count(r, g, OFF(requeues), -1);
                requeued = t;
            }
            preempt = 0;
        }
    }
    if (preempt) /* still dying */
        charge_lost(r, g, job, ckpt > run ? ckpt : run, preempt);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

static int cmp_grp(const void *a, const void *b)
{
    return strcmp((*(struct grp *const *)a)->name,
                  (*(struct grp *const *)b)->name);
}

static json_t *grp_json(struct grp *g, double share, bool flag)
{
    double ps = g->runs ? (double)g->preempted / (double)g->runs : 0;
    json_t *med = json_null();

    if (g->nwaits > 0) {
        qsort(g->waits, g->nwaits, sizeof(*g->waits), cmp_i64);
        size_t m = g->nwaits / 2;
        med = json_integer(g->nwaits % 2 ? g->waits[m]
                                         : (g->waits[m - 1] + g->waits[m]) / 2);
    }
    json_t *o = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:f}", "name", g->name,
        "runs", (json_int_t)g->runs, "preempted", (json_int_t)g->preempted,
        "caused", (json_int_t)g->caused, "requeues", (json_int_t)g->requeues,
        "gpu_hours_lost", g->gpu_s / 3600.0, "cpu_hours_lost",
        g->cpu_s / 3600.0, "median_requeue_wait_s", med, "preempted_share", ps);
    if (flag)
        json_object_set_new(o, "flagged", json_boolean(ps > share));
    return o;
}

static json_t *table_json(struct table *t, double share, bool flag)
{
    json_t *a = json_array();

    if (t->n > 1) /* no table at all is NULL, which qsort may not get */
        qsort(t->v, t->n, sizeof(*t->v), cmp_grp);
    for (size_t i = 0; i < t->n; i++) {
        json_array_append_new(a, grp_json(t->v[i], share, flag));
        free(t->v[i]->name);
        free(t->v[i]->waits);
        free(t->v[i]);
    }
    free(t->v);
    return a;
}

static json_t *index_jobs(json_t *jobs)
{
    json_t *by = json_object(), *j;
    char key[24];
    size_t i;

    json_array_foreach(jobs, i, j)
    {
        snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
                 json_integer_value(json_object_get(j, "job_id")));
        json_object_set(by, key, j);
    }
    return by;
}

json_t *preempt_report_missing(json_t *jobs)
{
    json_t *by = index_jobs(jobs), *out = json_array(), *j, *ev;
    size_t i, k;
    char key[24];

    json_array_foreach(jobs, i, j)
    {
        json_array_foreach(json_object_get(j, "events"), k, ev)
        {
            uint64_t id =
                preemptor_of(json_string_value(json_object_get(ev, "detail")));
            const char *what = json_string_value(json_object_get(ev, "event"));
            if (id == 0 || what == NULL || strcmp(what, "preempt") != 0)
                continue;
            snprintf(key, sizeof(key), "%" PRIu64, id);
            if (json_object_get(by, key) != NULL)
                continue;
            json_object_set_new(by, key, json_null());
            json_array_append_new(out, json_integer((json_int_t)id));
        }
    }
    json_decref(by);
    return out;
}

json_t *preempt_report_build(json_t *jobs, double share)
{
    struct report r = {.total = {.name = "total"}};
    json_t *out, *j;
    size_t i;

    r.by_id = index_jobs(jobs);
    json_array_foreach(jobs, i, j) walk(&r, j);
    out = json_pack("{s:f, s:o, s:o, s:o, s:o}", "share", share, "totals",
                    grp_json(&r.total, share, false), "users",
                    table_json(&r.users, share, true), "qos",
                    table_json(&r.qos, share, false), "partitions",
                    table_json(&r.parts, share, false));
    free(r.total.waits);
    json_decref(r.by_id);
    return out;
}
