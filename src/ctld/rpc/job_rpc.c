/*
 * Job requests from clients: SUBMIT, JOB_QUERY (filtered and paged),
 * JOB_CANCEL (by ids or filters, or a signal), JOB_HOLD, JOB_RELEASE and
 * JOB_UPDATE.  Requests on several jobs answer per job; a job the sender
 * may not touch gets Slurm's "Access/permission denied" and stays as it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "ctld/acct/acct.h"
#include "common/xalloc.h"
#include "ctld/queue/joballoc.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/core/persist.h"
#include "ctld/rpc/rpc.h"
#include "ctld/sched/sched_drv.h"

#define QUERY_PAGE_MAX 1000          /* jobs per JOB_QUERY reply */
#define QUERY_PAGE_BYTES (12u << 20) /* estimated, below PROTO_MAX_BODY */
/* Bounds on a request's lists, so that one request costs little whatever
 * it holds: job_ids elements (repeats counted), elements of each other
 * filter, and the length of one "N_[tasks]" element. */
#define FILTER_IDS_MAX 10000
#define FILTER_LIST_MAX 1000
#define FILTER_REF_LEN 1024

/* The filters of JOB_QUERY and JOB_CANCEL, checked once. */
struct filter {
    json_t *ids, *users, *parts, *names, *nodes;
    bool states[JOB_STATE_COUNT];
    bool any_state; /* no "states" given */
    uid_t *uids;
    size_t nuids;
    json_t *fields; /* JOB_QUERY: the JOB fields to send (a set), or NULL */
};

/* A job id as text: "123", "123_4" or "123_[1-3,7]". */
static bool job_ref_ok(json_t *v)
{
    const char *s = json_string_value(v);
    size_t n = s ? strspn(s, "0123456789") : 0;

    if (n == 0 || n > 10 || (s[n] != '\0' && s[n] != '_') ||
        strlen(s) > FILTER_REF_LEN)
        return false;
    return strtoull(s, NULL, 10) >= 1;
}

/* The job id of an element of job_ids, and the tasks it names (text after
 * '_', brackets removed; NULL: the whole job or array). */
static uint64_t job_ref(json_t *v, char **tasks)
{
    const char *s = json_string_value(v), *us;
    size_t len;

    *tasks = NULL;
    if (s == NULL)
        return (uint64_t)json_integer_value(v);
    if ((us = strchr(s, '_')) != NULL) {
        us++;
        len = strlen(us);
        if (len >= 2 && us[0] == '[' && us[len - 1] == ']')
            *tasks = xstrndup(us + 1, len - 2);
        else
            *tasks = xstrdup(us);
    }
    return strtoull(s, NULL, 10);
}

/* One element of job_ids, for sorting out repeats: its id and the tasks
 * text after '_' (NULL: the whole job or array). */
struct ref {
    uint64_t id;
    const char *tasks; /* borrowed from the request */
    json_t *v;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->tasks == NULL || y->tasks == NULL)
        return (x->tasks != NULL) - (y->tasks != NULL);
    return strcmp(x->tasks, y->tasks);
}

/* The elements of ids in id order, each once; *n of them.  The array is
 * the caller's (free()); its strings are borrowed from ids. */
static struct ref *refs_sorted(json_t *ids, size_t *n)
{
    size_t cnt = json_array_size(ids), k = 0, i;
    struct ref *r = xcalloc(cnt + 1, sizeof(*r));
    json_t *v;

    json_array_foreach(ids, i, v)
    {
        const char *s = json_string_value(v), *us = s ? strchr(s, '_') : NULL;
        r[i].id = s ? strtoull(s, NULL, 10) : (uint64_t)json_integer_value(v);
        r[i].tasks = us ? us + 1 : NULL;
        r[i].v = v;
    }
    qsort(r, cnt, sizeof(*r), ref_cmp);
    for (i = 0; i < cnt; i++)
        if (k == 0 || ref_cmp(&r[k - 1], &r[i]) != 0)
            r[k++] = r[i];
    *n = k;
    return r;
}

static int array_of(json_t *body, const char *key, bool strings, json_t **out,
                    struct err *e)
{
    json_t *a = json_object_get(body, key), *v;
    size_t i;

    *out = NULL;
    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return err_inval(e, "%s: expected an array", key);
    if (json_array_size(a) > (strings ? FILTER_LIST_MAX : FILTER_IDS_MAX))
        return err_inval(e, "%s: %zu elements, at most %d", key,
                         json_array_size(a),
                         strings ? FILTER_LIST_MAX : FILTER_IDS_MAX);
    json_array_foreach(a, i, v)
    {
        if (strings ? !json_is_string(v)
                    : !(json_is_integer(v) && json_integer_value(v) >= 1) &&
                          !job_ref_ok(v))
            return err_inval(e, "%s[%zu]: expected %s", key, i,
                             strings ? "a string"
                                     : "a job id (integer >= 1, or \"N\", "
                                       "\"N_T\", \"N_[1-3]\"; at most "
                                       "1024 characters)");
    }
    *out = a;
    return 0;
}

/* users: names or uids, as strings or integers. */
static int parse_users(json_t *body, struct filter *f, struct err *e)
{
    json_t *a = json_object_get(body, "users"), *v;
    size_t i;

    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return err_inval(e, "users: expected an array");
    if (json_array_size(a) > FILTER_LIST_MAX)
        return err_inval(e, "users: %zu elements, at most %d",
                         json_array_size(a), FILTER_LIST_MAX);
    f->users = a;
    f->uids = xcalloc(json_array_size(a) + 1, sizeof(*f->uids));
    json_array_foreach(a, i, v)
    {
        struct passwd pw, *res = NULL;
        char buf[4096], *end;
        const char *s = json_string_value(v);

        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            f->uids[f->nuids++] = (uid_t)json_integer_value(v);
        } else if (s == NULL) {
            return err_inval(e, "users[%zu]: expected a name or a uid", i);
        } else if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) == 0 && res) {
            f->uids[f->nuids++] = pw.pw_uid;
        } else {
            unsigned long u = strtoul(s, &end, 10);
            if (*s == '\0' || *end != '\0')
                return err_inval(e, "Invalid user: %.64s", s);
            f->uids[f->nuids++] = (uid_t)u;
        }
    }
    return 0;
}

/* Slurm's other state names: valid in a filter, never a Sluice state. */
static bool other_slurm_state(const char *s)
{
    static const char *const names[] = {
        "SUSPENDED",     "S",  "CONFIGURING", "CF", "REQUEUED",     "RQ",
        "RESIZING",      "RS", "REVOKED",     "RV", "SIGNALING",    "SI",
        "SPECIAL_EXIT",  "SE", "STAGE_OUT",   "SO", "STOPPED",      "ST",
        "DEADLINE",      "DL", "REQUEUE_FED", "RF", "REQUEUE_HOLD", "RH",
        "RESV_DEL_HOLD", "RD",
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i]) == 0)
            return true;
    return false;
}

static int parse_states(json_t *body, struct filter *f, struct err *e)
{
    json_t *a, *v;
    size_t i;

    f->any_state = true;
    if (array_of(body, "states", true, &a, e) < 0)
        return -1;
    if (a == NULL)
        return 0;
    f->any_state = false;
    json_array_foreach(a, i, v)
    {
        enum job_state st;
        if (job_state_parse(json_string_value(v), &st) == 0)
            f->states[st] = true;
        else if (!other_slurm_state(json_string_value(v)))
            return err_inval(e, "Invalid job state specified: %.32s",
                             json_string_value(v));
    }
    return 0;
}

static void filter_clear(struct filter *f)
{
    free(f->uids);
    json_decref(f->fields);
}

static int filter_parse(json_t *body, struct filter *f, struct err *e)
{
    memset(f, 0, sizeof(*f));
    if (array_of(body, "job_ids", false, &f->ids, e) < 0 ||
        array_of(body, "partitions", true, &f->parts, e) < 0 ||
        array_of(body, "names", true, &f->names, e) < 0 ||
        array_of(body, "nodes", true, &f->nodes, e) < 0 ||
        parse_users(body, f, e) < 0 || parse_states(body, f, e) < 0) {
        filter_clear(f);
        return -1;
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

static bool on_nodes(const struct conf *conf, const struct job *j, json_t *a)
{
    for (size_t i = 0; i < j->n_alloc; i++)
        if (str_in(a, conf->nodes[j->alloc[i]].name))
            return true;
    return false;
}

/* Does j pass every filter but job_ids? */
static bool filter_match(const struct conf *conf, const struct filter *f,
                         const struct job *j)
{
    bool uid_ok = f->users == NULL;

    for (size_t i = 0; i < f->nuids && !uid_ok; i++)
        uid_ok = f->uids[i] == j->user_id;
    return uid_ok && (f->any_state || f->states[j->state]) &&
           (f->parts == NULL || str_in(f->parts, conf->parts[j->part].name)) &&
           (f->names == NULL || str_in(f->names, j->name)) &&
           (f->nodes == NULL || on_nodes(conf, j, f->nodes));
}

/* ---- SUBMIT ----------------------------------------------------------- */

/* SUBMIT with "immediate": the job is kept only when it starts now, in
 * this request (sched_drv_place); else EAGAIN and nothing is left. */
static int submit_now(struct rpc *r, json_t *spec, json_t **reply,
                      struct err *e)
{
    struct sched_drv_place pl;
    time_t now = time(NULL);
    char *payload;
    struct job *j;
    int rc;

    j = jobs_submit_parse(r->env->jobs, spec, &r->who, &payload, e);
    if (j == NULL)
        return -1;
    if (sched_drv_place(r->env->sched, j, now, &pl, e) < 0) {
        log_info("uid=%u immediate job not started: %s", r->who.uid, e->text);
        job_free(j);
        free(payload);
        errno = EAGAIN;
        return -1;
    }
    rc = jobs_submit_insert(r->env->jobs, j, payload, reply, e);
    free(payload);
    if (rc == 0)
        sched_drv_start(r->env->sched, j, &pl, now);
    sched_drv_place_clear(&pl);
    return rc;
}

int rpc_submit(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *spec = json_object_get(r->req->body, "job");
    json_t *imm = json_object_get(spec, "immediate");
    struct job *j;

    if (!json_is_object(spec))
        return err_inval(e, "SUBMIT: expected {\"job\": {...}}");
    if (imm != NULL && !json_is_null(imm) && !json_is_boolean(imm))
        return err_inval(e, "job immediate: expected true or false");
    if (json_is_true(imm) && !json_is_true(json_object_get(spec, "test_only")))
        return submit_now(r, spec, reply, e);
    if (!json_is_true(json_object_get(spec, "test_only")))
        return jobs_submit(r->env->jobs, spec, &r->who, reply, e);
    /* --test-only: could it start now?  Nothing is created. */
    j = jobs_submit_test(r->env->jobs, spec, &r->who, e);
    if (j == NULL)
        return -1;
    *reply = sched_drv_test(r->env->sched, j);
    job_free(j);
    return 0;
}

/* ---- JOB_QUERY -------------------------------------------------------- */

static size_t size_estimate(const struct job *j)
{
    const char *s[] = {j->name,     j->user_name, j->std_out, j->std_err,
                       j->work_dir, j->qos,       j->account, j->nodelist,
                       j->exclude,  j->gres,      j->gpus,    j->reason_text};
    size_t n = 800 + 16 * j->n_alloc;

    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        n += s[i] ? 2 * strlen(s[i]) : 0; /* escapes may double */
    return n;
}

/* j as JOB, with the fields the query named alone when it named them. */
static void emit(json_t *out, const struct job *j, const struct filter *f,
                 const struct conf *conf, size_t *bytes)
{
    json_array_append_new(out, f->fields != NULL
                                   ? job_to_json_fields(j, conf, f->fields)
                                   : job_to_json(j, conf, false));
    *bytes += size_estimate(j);
}

/* Every job of array a in memory (for "123" naming an array), or those
 * of the tasks in tasks ("1-3"), pending ones as their array's record. */
static void query_array(struct rpc *r, const struct filter *f, struct job *a,
                        const char *tasks, json_t *out, size_t *bytes)
{
    const struct conf *conf = r->env->conf;
    uint64_t id = a->id;
    struct arrayset set = {0};
    bool meta_done = false;

    if (tasks != NULL &&
        arrayset_parse(tasks, a->array_max + 1, &set, NULL) < 0)
        return;
    for (struct job *j = a; j != NULL; j = j->next) {
        bool want = tasks == NULL;
        if (j->array_job_id != id)
            continue;
        if (!want && j->array_task_id >= 0)
            want = arrayset_has(&set, (uint32_t)j->array_task_id);
        for (int64_t t = 0; !want && !meta_done && j->array_pending && t >= 0;
             t = arrayset_next(&set, (uint32_t)t + 1))
            want = t < j->array_pending->nbits &&
                   arrayset_has(&set, (uint32_t)t) &&
                   arrayset_has(j->array_pending, (uint32_t)t);
        if (j->array_pending != NULL)
            meta_done = true;
        if (want && filter_match(conf, f, j))
            emit(out, j, f, conf, bytes);
    }
    arrayset_clear(&set);
}

/* The jobs one element of job_ids names: from memory, else from the
 * history database. */
static void query_ref(struct rpc *r, const struct filter *f, json_t *v,
                      json_t *out, size_t *bytes)
{
    const struct conf *conf = r->env->conf;
    char *tasks;
    uint64_t id = job_ref(v, &tasks);
    struct job *j = jobs_find(r->env->jobs, id);
    json_t *o = NULL;
    char *rec;

    if (j != NULL && j->array_job_id == id) {
        query_array(r, f, j, tasks, out, bytes);
        free(tasks);
        return;
    }
    free(tasks);
    if (j != NULL) {
        if (filter_match(conf, f, j))
            emit(out, j, f, conf, bytes);
        return;
    }
    rec = persist_job_record(r->env->persist, id, NULL);
    if (rec != NULL)
        o = json_loads(rec, 0, NULL);
    free(rec);
    if (o == NULL)
        return;
    j = job_from_json(o, conf, NULL);
    json_decref(o);
    if (j != NULL && filter_match(conf, f, j))
        emit(out, j, f, conf, bytes);
    job_free(j);
}

/* Jobs asked for by id, each id once, in id order after `after` and paged
 * like a scan (a page ends between ids); the id to ask after next, or 0. */
static uint64_t query_ids(struct rpc *r, const struct filter *f, int64_t after,
                          int64_t limit, json_t *out)
{
    size_t n, bytes = 0;
    struct ref *refs = refs_sorted(f->ids, &n);
    uint64_t next = 0, last = 0;

    for (size_t i = 0; i < n; i++) {
        if ((int64_t)refs[i].id <= after)
            continue;
        if (refs[i].id != last && last != 0 &&
            ((int64_t)json_array_size(out) >= limit ||
             bytes >= QUERY_PAGE_BYTES)) {
            next = last;
            break;
        }
        query_ref(r, f, refs[i].v, out, &bytes);
        last = refs[i].id;
    }
    free(refs);
    return next;
}

/* scontrol -dd: "batch_script" on each JOB of out that the caller may
 * act on and whose script is still stored (a batch job not yet final). */
static void add_scripts(struct rpc *r, json_t *out)
{
    size_t i;
    json_t *v;

    json_array_foreach(out, i, v)
    {
        json_t *id = json_object_get(v, "job_id");
        struct job *j =
            json_is_integer(id)
                ? jobs_find(r->env->jobs, (uint64_t)json_integer_value(id))
                : NULL;
        json_t *payload;
        char *text;
        struct err e;

        if (j == NULL || j->alloc_kind != JOB_ALLOC_NONE ||
            job_state_final(j->state) ||
            !jobs_may_act(r->env->jobs, j, r->who.uid))
            continue;
        if ((text = persist_job_payload(r->env->persist, j->id, &e)) == NULL)
            continue;
        payload = json_loads(text, 0, NULL);
        free(text);
        if (json_is_string(json_object_get(payload, "script")))
            json_object_set(v, "batch_script",
                            json_object_get(payload, "script"));
        json_decref(payload);
    }
}

/* Whether the filter names only states of unfinished jobs (squeue's
 * default): then the walk skips the finished jobs kept in memory. */
static bool only_unfinished(const struct filter *f)
{
    if (f->any_state)
        return false;
    for (int st = 0; st < JOB_STATE_COUNT; st++)
        if (f->states[st] && job_state_final((enum job_state)st))
            return false;
    return true;
}

/* The first job of the walk with an id above after (0: from the first),
 * and the one after j: all jobs, or the unfinished ones alone. */
static struct job *walk_first(struct jobs *js, bool unfinished, uint64_t after)
{
    struct job *j;

    if (!unfinished)
        return after > 0 ? jobs_after(js, after) : jobs_first(js);
    for (j = jobs_first_active(js); j != NULL && j->id <= after; j = j->anext)
        ;
    return j;
}

static struct job *walk_next(const struct job *j, bool unfinished)
{
    return unfinished ? j->anext : j->next;
}

static struct job *walk_prev(const struct job *j, bool unfinished)
{
    return unfinished ? j->aprev : j->prev;
}

/* JOB_QUERY's "fields": an array of names of JOB's top-level fields, as
 * an object whose keys are those names (a set); NULL when absent.  Names
 * JOB does not have are left out of the reply as the fields a job does
 * not carry are. */
static int fields_parse(json_t *body, json_t **set, struct err *e)
{
    json_t *names, *name;
    size_t i;

    *set = NULL;
    if (array_of(body, "fields", true, &names, e) < 0)
        return -1;
    if (names == NULL)
        return 0;
    *set = json_object();
    json_array_foreach(names, i, name)
        json_object_set_new(*set, json_string_value(name), json_true());
    return 0;
}

int rpc_job_query(struct rpc *r, json_t **reply, struct err *e)
{
    const struct conf *conf = r->env->conf;
    json_t *body = r->req->body, *out;
    int64_t after = 0, limit = QUERY_PAGE_MAX;
    size_t bytes = 0, n = 0;
    uint64_t next = 0;
    struct filter f;
    struct job *j;
    json_t *fields;

    json_t *va = json_object_get(body, "after_job_id");
    json_t *vl = json_object_get(body, "limit");
    if ((va && !json_is_null(va) && !json_is_integer(va)) ||
        (vl && !json_is_null(vl) && !json_is_integer(vl)))
        return err_inval(e, "JOB_QUERY: after_job_id and limit are integers");
    if (json_is_integer(va))
        after = json_integer_value(va);
    if (json_is_integer(vl) && json_integer_value(vl) > 0 &&
        json_integer_value(vl) < QUERY_PAGE_MAX)
        limit = json_integer_value(vl);
    if (fields_parse(body, &fields, e) < 0)
        return -1;
    if (filter_parse(body, &f, e) < 0) {
        json_decref(fields);
        return -1;
    }
    f.fields = fields;
    out = json_array();
    if (f.ids != NULL) {
        next = query_ids(r, &f, after, limit, out);
        j = NULL;
    } else {
        bool unf = only_unfinished(&f);
        for (j = walk_first(r->env->jobs, unf, (uint64_t)after); j != NULL;
             j = walk_next(j, unf)) {
            if (!filter_match(conf, &f, j))
                continue;
            if ((int64_t)n >= limit || bytes >= QUERY_PAGE_BYTES)
                break;
            emit(out, j, &f, conf, &bytes);
            n++;
        }
        /* j is the first matching job left out: ask again after the last */
        if (j != NULL)
            next = walk_prev(j, unf) ? walk_prev(j, unf)->id : 0;
    }
    filter_clear(&f);
    if (json_is_true(json_object_get(body, "batch_script")))
        add_scripts(r, out);
    *reply = json_pack("{s:o, s:o}", "jobs", out, "next_after_job_id",
                       j != NULL || next != 0 ? json_integer((json_int_t)next)
                                              : json_null());
    return 0;
}

/* ---- per-job requests -------------------------------------------------- */

static json_t *result(uint64_t id, const char *error)
{
    return json_pack("{s:I, s:o}", "job_id", (json_int_t)id, "error",
                     error ? json_string(error) : json_null());
}

enum job_op {
    OP_CANCEL,
    OP_HOLD,
    OP_RELEASE,
    OP_SUSPEND,
    OP_RESUME,
    OP_REQUEUE,
    OP_REQUEUE_HOLD,
};

static void act(struct rpc *r, struct job *j, enum job_op op, int sig,
                json_t *results)
{
    struct err e;
    int rc;

    err_clear(&e);
    if (op == OP_CANCEL)
        rc = jobs_cancel(r->env->jobs, j, r->who.uid, sig, &e);
    else if (op == OP_HOLD)
        rc = jobs_hold(r->env->jobs, j, r->who.uid, &e);
    else if (op == OP_SUSPEND)
        rc = jobs_suspend(r->env->jobs, j, r->who.uid, &e);
    else if (op == OP_RESUME)
        rc = jobs_resume(r->env->jobs, j, r->who.uid, &e);
    else if (op == OP_REQUEUE || op == OP_REQUEUE_HOLD)
        rc = jobs_requeue(r->env->jobs, j, r->who.uid, op == OP_REQUEUE_HOLD,
                          &e);
    else
        rc = jobs_release(r->env->jobs, j, r->who.uid, &e);
    if (rc < 0 && r->n_refused++ == 0) {
        r->first_refused = j->id;
        r->first_refusal = e;
    }
    json_array_append_new(results, result(j->id, rc < 0 ? e.text : NULL));
}

/* Whether op applies to j of an array named as a whole: any unfinished
 * one for cancel, pending ones for hold and release, running ones for
 * suspend, suspended ones for resume. */
static bool op_fits(enum job_op op, const struct job *j)
{
    switch (op) {
    case OP_CANCEL:
        return true;
    case OP_SUSPEND:
        return j->state == JOB_RUNNING;
    case OP_RESUME:
        return j->state == JOB_SUSPENDED;
    case OP_REQUEUE:
    case OP_REQUEUE_HOLD:
        return j->state == JOB_RUNNING || j->state == JOB_SUSPENDED;
    default:
        return j->state == JOB_PENDING;
    }
}

/* Every unfinished job of array a that op applies to: "scancel 123" on
 * an array. */
static void act_array(struct rpc *r, const struct filter *f, struct job *a,
                      enum job_op op, int sig, json_t *results)
{
    uint64_t id = a->id;
    struct job *j = a, *next;

    for (; j != NULL; j = next) {
        next = j->next;
        if (j->array_job_id != id || job_state_final(j->state) ||
            !op_fits(op, j) || !filter_match(r->env->conf, f, j))
            continue;
        act(r, j, op, sig, results);
    }
}

/* Tasks of array a ("1-3"), split off the pending record as needed. */
static void act_tasks(struct rpc *r, struct job *a, const char *tasks,
                      enum job_op op, int sig, json_t *results)
{
    struct arrayset set;
    struct err e;

    if (arrayset_parse(tasks, a->array_max + 1, &set, &e) < 0) {
        json_array_append_new(results, result(a->id, e.text));
        return;
    }
    for (int64_t t = arrayset_next(&set, 0); t >= 0;
         t = arrayset_next(&set, (uint32_t)t + 1)) {
        struct job *k = jobarray_find_task(r->env->jobs, a->id, t);
        if (k == NULL && a->array_pending != NULL &&
            arrayset_has(a->array_pending, (uint32_t)t) &&
            jobs_may_act(r->env->jobs, a, r->who.uid))
            k = jobarray_split(r->env->jobs, a, (uint32_t)t, &e);
        if (k == NULL)
            json_array_append_new(results,
                                  result(a->id, "Invalid job id specified"));
        else
            act(r, k, op, sig, results);
    }
    arrayset_clear(&set);
}

/* One element of job_ids: a job, an array, or tasks of an array. */
static void act_ref(struct rpc *r, const struct filter *f, json_t *v,
                    enum job_op op, int sig, json_t *results)
{
    char *tasks;
    uint64_t id = job_ref(v, &tasks);
    struct job *j = jobs_find(r->env->jobs, id);

    if (j == NULL || (tasks != NULL && j->array_job_id != id))
        json_array_append_new(results, result(id, "Invalid job id specified"));
    else if (tasks != NULL)
        act_tasks(r, j, tasks, op, sig, results);
    else if (j->array_job_id == id)
        act_array(r, f, j, op, sig, results);
    else if (filter_match(r->env->conf, f, j))
        act(r, j, op, sig, results);
    free(tasks);
}

static int per_job(struct rpc *r, enum job_op op, json_t **reply, struct err *e)
{
    const struct conf *conf = r->env->conf;
    json_t *results, *sigv = json_object_get(r->req->body, "signal");
    int sig = 0;
    struct filter f;
    size_t i;

    if (sigv != NULL && !json_is_null(sigv)) {
        if (op != OP_CANCEL || !json_is_integer(sigv) ||
            json_integer_value(sigv) < 1 || json_integer_value(sigv) > 64)
            return err_inval(e, "signal: expected a signal number 1-64");
        sig = (int)json_integer_value(sigv);
    }
    if (filter_parse(r->req->body, &f, e) < 0)
        return -1;
    if (f.ids == NULL && (op != OP_CANCEL ||
                          (!f.users && !f.parts && !f.names && f.any_state))) {
        filter_clear(&f);
        return err_inval(e, "%s: no job ids or filters given",
                         proto_type_name(r->req->type));
    }
    results = json_array();
    if (f.ids != NULL) {
        size_t n;
        struct ref *refs = refs_sorted(f.ids, &n);
        for (i = 0; i < n; i++)
            act_ref(r, &f, refs[i].v, op, sig, results);
        free(refs);
    } else {
        for (struct job *j = jobs_first(r->env->jobs); j; j = j->next)
            if (!job_state_final(j->state) && filter_match(conf, &f, j))
                act(r, j, op, sig, results);
    }
    filter_clear(&f);
    if (r->n_refused > 0)
        log_info("uid=%u request=%s refused=%zu job=%" PRIu64
                 " reason=\"%s\"%s",
                 (unsigned)r->who.uid, proto_type_name(r->req->type),
                 r->n_refused, r->first_refused, r->first_refusal.text,
                 r->n_refused > 1 ? " (the first of them)" : "");
    *reply = json_pack("{s:o}", "results", results);
    return 0;
}

int rpc_job_cancel(struct rpc *r, json_t **reply, struct err *e)
{
    return per_job(r, OP_CANCEL, reply, e);
}

int rpc_job_hold(struct rpc *r, json_t **reply, struct err *e)
{
    return per_job(r, OP_HOLD, reply, e);
}

int rpc_job_release(struct rpc *r, json_t **reply, struct err *e)
{
    return per_job(r, OP_RELEASE, reply, e);
}

int rpc_job_suspend(struct rpc *r, json_t **reply, struct err *e)
{
    return per_job(r, OP_SUSPEND, reply, e);
}

int rpc_job_resume(struct rpc *r, json_t **reply, struct err *e)
{
    return per_job(r, OP_RESUME, reply, e);
}

/* JOB_REQUEUE {"job_ids": [...], "hold": bool}: scontrol requeue and
 * requeuehold. */
int rpc_job_requeue(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *hold = json_object_get(r->req->body, "hold");

    if (hold != NULL && !json_is_boolean(hold))
        return err_inval(e, "JOB_REQUEUE: hold: expected true or false");
    return per_job(r, json_is_true(hold) ? OP_REQUEUE_HOLD : OP_REQUEUE, reply,
                   e);
}

/* The pending jobs of array a that an update of "a" changes. */
static int update_array(struct rpc *r, struct job *a, json_t *set,
                        struct err *e)
{
    uint64_t id = a->id;
    int rc = 0, done = 0;

    for (struct job *j = a; j != NULL; j = j->next) {
        if (j->array_job_id != id || j->state != JOB_PENDING)
            continue;
        if (jobs_update(r->env->jobs, j, r->who.uid, set, e) < 0)
            rc = -1;
        else
            done++;
    }
    if (done == 0 && rc == 0) {
        errno = EBUSY;
        return err_set(e, "Job is no longer pending execution");
    }
    return rc;
}

/* The T of "N_T" in JOB_UPDATE into *t (-1 without one): one task, a
 * decimal array task id that fits in 32 bits (not cut down to one). */
static int update_task(const char *tasks, int64_t *t, struct err *e)
{
    unsigned long long v;

    *t = -1;
    if (tasks == NULL)
        return 0;
    if (*tasks == '\0' || strspn(tasks, "0123456789") != strlen(tasks))
        return err_inval(e, "JOB_UPDATE: one array task at a time (N_T)");
    errno = 0;
    v = strtoull(tasks, NULL, 10);
    if (errno == ERANGE || v >= UINT32_MAX)
        return err_inval(e,
                         "JOB_UPDATE: array task id %.32s is out of range "
                         "(at most %u)",
                         tasks, UINT32_MAX - 1);
    *t = (int64_t)v;
    return 0;
}

/* Whether the comma list has item. */
static bool list_has(const char *list, const char *item)
{
    size_t n = strlen(item);

    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, item, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/*
 * scontrol top (JOB_UPDATE {"set": {"top": true}}): j moves ahead of its
 * user's other pending jobs in its partition, as Slurm does it, by
 * lowering its nice just enough.  Operators, or its owner when
 * SchedulerParameters has enable_user_top.
 */
static int job_top(struct rpc *r, struct job *j, struct err *e)
{
    const struct conf *conf = r->env->conf;
    bool op = acct_is_operator(r->env->acct, r->who.uid);
    uint32_t best = 0;
    char detail[64];
    int64_t nice;
    int32_t old_nice;

    if (!op && !(j->user_id == r->who.uid &&
                 list_has(conf->scheduler_parameters, "enable_user_top"))) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (j->state != JOB_PENDING) {
        errno = EBUSY;
        return err_set(e, "Job is no longer pending execution");
    }
    for (struct job *k = jobs_first(r->env->jobs); k != NULL; k = k->next)
        if (k != j && k->state == JOB_PENDING && k->user_id == j->user_id &&
            k->part == j->part && k->priority > best)
            best = k->priority;
    if (j->priority > best)
        return 0; /* already first */
    old_nice = j->nice;
    nice = (int64_t)j->nice - (int64_t)(best - j->priority) - 1;
    if (nice < -2147483645)
        nice = -2147483645;
    j->nice = (int32_t)nice;
    log_info("job=%" PRIu64 " top uid=%u nice=%d", j->id, (unsigned)r->who.uid,
             j->nice);
    snprintf(detail, sizeof(detail), "top by uid %u: nice=%d",
             (unsigned)r->who.uid, j->nice);
    if (jobs_save_event(r->env->jobs, j, "update", detail, e) < 0)
        return -1;
    if (j->priority > best)
        return 0;
    /* a priority that nice does not move (priority/basic): the highest of
     * the user's, fixed as an administrator's would be */
    j->nice = old_nice;
    j->priority = best + 1;
    j->prio_fixed = true;
    return jobs_save_event(r->env->jobs, j, "update", detail, e);
}

int rpc_job_update(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *id = json_object_get(r->req->body, "job_id");
    json_t *set = json_object_get(r->req->body, "set");
    char *tasks = NULL;
    uint64_t n;
    struct job *j;
    int64_t t;

    (void)reply;
    if (!json_is_integer(id) && !job_ref_ok(id))
        return err_inval(e, "JOB_UPDATE: job_id must be an integer or "
                            "\"N_T\"");
    n = job_ref(id, &tasks);
    j = jobs_find(r->env->jobs, n);
    if (update_task(tasks, &t, e) < 0) {
        free(tasks);
        return -1;
    }
    free(tasks);
    if (j == NULL || (t >= 0 && j->array_job_id != n)) {
        errno = ENOENT;
        return err_set(e, "Invalid job id specified");
    }
    if (t < 0 && j->array_job_id == n)
        return update_array(r, j, set, e);
    if (t >= 0) {
        struct job *k = jobarray_find_task(r->env->jobs, n, t);
        if (k == NULL && j->array_pending != NULL &&
            arrayset_has(j->array_pending, (uint32_t)t) &&
            jobs_may_act(r->env->jobs, j, r->who.uid))
            k = jobarray_split(r->env->jobs, j, (uint32_t)t, e);
        if (k == NULL) {
            errno = ENOENT;
            return err_set(e, "Invalid job id specified");
        }
        j = k;
    }
    if (json_is_true(json_object_get(set, "top")))
        return job_top(r, j, e);
    return jobs_update(r->env->jobs, j, r->who.uid, set, e);
}

/* ---- JOB_COMPLETE ----------------------------------------------------- */

int rpc_job_complete(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *id = json_object_get(r->req->body, "job_id");
    json_t *code = json_object_get(r->req->body, "exit_code");
    struct job *j;

    (void)reply;
    if (!json_is_integer(id) || json_integer_value(id) < 1)
        return err_inval(e, "JOB_COMPLETE: job_id must be an integer >= 1");
    if (code != NULL && !json_is_integer(code))
        return err_inval(e, "JOB_COMPLETE: exit_code must be an integer");
    j = jobs_find(r->env->jobs, (uint64_t)json_integer_value(id));
    if (j == NULL) {
        errno = ENOENT;
        return err_set(e, "Invalid job id specified");
    }
    if (code != NULL && (json_integer_value(code) < INT32_MIN ||
                         json_integer_value(code) > INT32_MAX))
        return err_inval(e, "JOB_COMPLETE: exit_code out of range");
    return joballoc_complete(r->env->jobs, j, r->who.uid,
                             code ? (int)json_integer_value(code) : 0, e);
}
