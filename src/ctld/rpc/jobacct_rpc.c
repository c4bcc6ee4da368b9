/*
 * JOB_ACCT: the accounting history behind sacct, answered from the
 * database (so finished jobs beyond the in-memory cap are included): each
 * job's record, filtered by ids, users, accounts, partitions, states and a
 * time window, with its events when asked.  Ordinary users see their own
 * jobs unless they ask for others' (-a, -u), as Slurm without PrivateData.
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/job.h"
#include "ctld/core/persist.h"
#include "ctld/queue/steps.h"
#include "ctld/rpc/rpc.h"

#define ACCT_PAGE_MAX 1000

struct acct_q {
    struct persist *persist;
    struct steps *steps;
    json_t *accounts, *parts;
    bool states[JOB_STATE_COUNT];
    bool any_state;
    uid_t *uids;
    size_t nuids;
    bool events;
    int64_t limit;
    size_t n;
    uint64_t last_id;
    json_t *out;
    struct err *e;
};

/* Bounds on a request's lists (as JOB_QUERY's): job ids, other filters. */
#define ACCT_IDS_MAX 10000
#define ACCT_LIST_MAX 1000
/* Records read from the history for one page, matching or not. */
#define ACCT_SCAN_MAX 5000

static int einval(struct err *e, const char *what)
{
    errno = EINVAL;
    return err_set(e, "JOB_ACCT: %s", what);
}

static int strings(json_t *body, const char *key, json_t **out, struct err *e)
{
    json_t *a = json_object_get(body, key), *v;
    size_t i;

    *out = NULL;
    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return einval(e, "expected an array of strings");
    if (json_array_size(a) > ACCT_LIST_MAX)
        return einval(e, "a filter of more than 1000 elements");
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v))
            return einval(e, "expected an array of strings");
    }
    *out = a;
    return 0;
}

static int users(json_t *body, struct acct_q *q, struct err *e)
{
    json_t *a = json_object_get(body, "users"), *v;
    size_t i;

    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return einval(e, "users: expected an array");
    if (json_array_size(a) > ACCT_LIST_MAX)
        return einval(e, "users: more than 1000 elements");
    q->uids = xcalloc(json_array_size(a) + 1, sizeof(*q->uids));
    json_array_foreach(a, i, v)
    {
        struct passwd pw, *res = NULL;
        char buf[4096], *end;
        const char *s = json_string_value(v);
        unsigned long u;

        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            q->uids[q->nuids++] = (uid_t)json_integer_value(v);
            continue;
        }
        if (s == NULL)
            return einval(e, "users: expected names or uids");
        if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) == 0 && res) {
            q->uids[q->nuids++] = pw.pw_uid;
            continue;
        }
        u = strtoul(s, &end, 10);
        if (*s == '\0' || *end != '\0') {
            errno = EINVAL;
            return err_set(e, "Invalid user id: %.64s", s);
        }
        q->uids[q->nuids++] = (uid_t)u;
    }
    return 0;
}

static int states(json_t *body, struct acct_q *q, struct err *e)
{
    json_t *a, *v;
    size_t i;

    q->any_state = true;
    if (strings(body, "states", &a, e) < 0)
        return -1;
    if (a == NULL)
        return 0;
    q->any_state = false;
    json_array_foreach(a, i, v)
    {
        enum job_state st;
        const char *s = json_string_value(v);
        if (strcasecmp(s, "REQUEUED") == 0 || strcasecmp(s, "RQ") == 0)
            continue; /* matched by restart_count, see match() */
        if (job_state_parse(s, &st) < 0) {
            errno = EINVAL;
            return err_set(e, "Invalid job state specified: %.32s", s);
        }
        q->states[st] = true;
    }
    return 0;
}

static bool str_in(json_t *a, const char *s)
{
    json_t *v;
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (s != NULL && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool wants_requeued(json_t *body)
{
    json_t *a = json_object_get(body, "states"), *v;
    size_t i;

    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        if (s && (strcasecmp(s, "REQUEUED") == 0 || strcasecmp(s, "RQ") == 0))
            return true;
    }
    return false;
}

static bool match(const struct acct_q *q, json_t *rec, bool requeued)
{
    uid_t uid = (uid_t)json_integer_value(json_object_get(rec, "user_id"));
    const char *st = json_string_value(json_object_get(rec, "job_state"));
    enum job_state s;
    bool ok = q->nuids == 0;

    for (size_t i = 0; i < q->nuids && !ok; i++)
        ok = q->uids[i] == uid;
    if (!ok)
        return false;
    if (!q->any_state) {
        bool rq = requeued &&
                  json_integer_value(json_object_get(rec, "restart_count")) > 0;
        if (!rq && (st == NULL || job_state_parse(st, &s) < 0 || !q->states[s]))
            return false;
    }
    return (q->parts == NULL ||
            str_in(q->parts,
                   json_string_value(json_object_get(rec, "partition")))) &&
           (q->accounts == NULL ||
            str_in(q->accounts,
                   json_string_value(json_object_get(rec, "account"))));
}

static int add_event(void *arg, time_t when, const char *event,
                     const char *detail)
{
    json_array_append_new(arg,
                          json_pack("{s:I, s:s, s:s}", "time", (json_int_t)when,
                                    "event", event, "detail", detail));
    return 0;
}

/* The record as clients see it: without the controller's own fields. */
static void strip(json_t *rec)
{
    static const char *const internal[] = {
        "held_admin", "kill",       "kill_sent",        "launched",
        "warn_sent",  "ntasks_set", "cpus_per_task_set"};
    for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
        json_object_del(rec, internal[i]);
}

struct acct_scan {
    struct acct_q *q;
    bool requeued;
    size_t scanned;   /* records read */
    bool cut;         /* stopped at ACCT_SCAN_MAX */
    uint64_t seen_id; /* the last record read */
};

static int take(void *arg, uint64_t id, const char *text)
{
    struct acct_scan *sc = arg;
    struct acct_q *q = sc->q;
    json_t *rec;

    /* a page reads a bounded part of the history, matches or not: the
     * client asks again after seen_id, and the loop serves others */
    if (sc->scanned++ >= ACCT_SCAN_MAX) {
        sc->cut = true;
        return 1;
    }
    sc->seen_id = id;
    rec = json_loads(text, 0, NULL);

    if (rec == NULL) {
        log_warnx("job=%" PRIu64 " record unreadable: not in JOB_ACCT", id);
        return 0;
    }
    if (!match(q, rec, sc->requeued)) {
        json_decref(rec);
        return 0;
    }
    if ((int64_t)q->n >= q->limit) {
        json_decref(rec);
        return 1;
    }
    strip(rec);
    /* the batch step and srun's, from memory and the steps table */
    json_t *steps = steps_of_job(q->steps, id, q->e);
    if (steps == NULL) {
        json_decref(rec);
        return -1;
    }
    json_object_set_new(rec, "steps", steps);
    if (q->events) {
        json_t *ev = json_array();
        if (persist_job_events(q->persist, id, add_event, ev, q->e) < 0) {
            json_decref(ev);
            json_decref(rec);
            return -1;
        }
        json_object_set_new(rec, "events", ev);
    }
    json_array_append_new(q->out, rec);
    q->n++;
    q->last_id = id;
    return 0;
}

static int by_ids(struct acct_q *q, struct acct_scan *sc, json_t *ids,
                  time_t from, time_t to)
{
    json_t *v;
    size_t i;

    json_array_foreach(ids, i, v)
    {
        char *text;
        json_t *rec;
        time_t sub, end;
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return einval(q->e, "job_ids: expected job ids");
        text = persist_job_record(q->persist, (uint64_t)json_integer_value(v),
                                  NULL);
        if (text == NULL)
            continue;
        rec = json_loads(text, 0, NULL);
        sub = (time_t)json_integer_value(json_object_get(rec, "submit_time"));
        end = (time_t)json_integer_value(json_object_get(rec, "end_time"));
        json_decref(rec);
        if (sub <= to && (end == 0 || end >= from) &&
            take(sc, (uint64_t)json_integer_value(v), text) < 0) {
            free(text);
            return -1;
        }
        free(text);
    }
    return 0;
}

static int get_time(json_t *body, const char *key, time_t dflt, time_t *out,
                    struct err *e)
{
    json_t *v = json_object_get(body, key);

    *out = dflt;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return einval(e, "start_time and end_time are Unix seconds");
    *out = (time_t)json_integer_value(v);
    return 0;
}

int rpc_job_acct(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *body = r->req->body, *ids = NULL;
    struct acct_q q = {.persist = r->env->persist,
                       .steps = r->env->steps,
                       .limit = ACCT_PAGE_MAX,
                       .e = e};
    struct acct_scan sc = {.q = &q};
    json_t *vl = json_object_get(body, "limit");
    json_t *va = json_object_get(body, "after_job_id");
    time_t from, to;
    int rc = -1;

    if ((vl && !json_is_null(vl) && !json_is_integer(vl)) ||
        (va && !json_is_null(va) && !json_is_integer(va))) {
        einval(e, "limit and after_job_id are integers");
        goto out;
    }
    if (json_is_integer(vl) && json_integer_value(vl) > 0 &&
        json_integer_value(vl) < ACCT_PAGE_MAX)
        q.limit = json_integer_value(vl);
    q.events = json_is_true(json_object_get(body, "events"));
    if (json_object_get(body, "job_ids") != NULL &&
        !json_is_null(json_object_get(body, "job_ids"))) {
        ids = json_object_get(body, "job_ids");
        if (!json_is_array(ids)) {
            einval(e, "job_ids: expected an array");
            goto out;
        }
        if (json_array_size(ids) > ACCT_IDS_MAX) {
            einval(e, "job_ids: more than 10000 elements");
            goto out;
        }
    }
    if (strings(body, "accounts", &q.accounts, e) < 0 ||
        strings(body, "partitions", &q.parts, e) < 0 ||
        users(body, &q, e) < 0 || states(body, &q, e) < 0 ||
        get_time(body, "start_time", 0, &from, e) < 0 ||
        get_time(body, "end_time", INT64_MAX / 2, &to, e) < 0)
        goto out;
    sc.requeued = wants_requeued(body);
    /* ordinary users: their own jobs unless they name users or ask for all */
    if (q.nuids == 0 && !json_is_true(json_object_get(body, "all_users")) &&
        !acct_is_operator(r->env->acct, r->who.uid)) {
        q.uids = xcalloc(1, sizeof(*q.uids));
        q.uids[q.nuids++] = r->who.uid;
    }
    q.out = json_array();
    if (ids != NULL)
        rc = by_ids(&q, &sc, ids, from, to);
    else
        rc = persist_job_scan(
            r->env->persist,
            json_is_integer(va) ? (uint64_t)json_integer_value(va) : 0, from,
            to, take, &sc, e);
    if (rc < 0) {
        json_decref(q.out);
        goto out;
    }
    *reply =
        json_pack("{s:o, s:o}", "jobs", q.out, "next_after_job_id",
                  ids == NULL && sc.cut ? json_integer((json_int_t)sc.seen_id)
                  : ids == NULL && (int64_t)q.n >= q.limit
                      ? json_integer((json_int_t)q.last_id)
                      : json_null());
out:
    free(q.uids);
    return rc;
}
