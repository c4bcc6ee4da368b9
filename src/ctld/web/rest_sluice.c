/*
 * Sluice's own API, /sluice/v1 (docs/rest-sluice.md): what the dashboard
 * needs and Slurm's REST API lacks.  Each route asks the RPC handlers as
 * the token's user (web_req_rpc: the CLI's permission rules) and shapes
 * their answers (dashview.h); only a job's output tail reads something
 * no RPC gives, for the job's owner or an operator (jobout.h).
 */
#include "ctld/web/rest.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/preempt_report.h"
#include "common/proto.h"
#include "common/stdpath.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/job.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"
#include "ctld/web/dashview.h"
#include "ctld/web/jobout.h"

/* The most jobs one request pages through (JOB_QUERY, JOB_ACCT): beyond
 * them the answer says "truncated" rather than hold the loop longer. */
#define SLUICE_MAX_JOBS 50000
/* The preemption report's window when the request names none. */
#define SLUICE_REPORT_DAYS 7

static void reply_rpc_error(struct web_req *wr, const struct err *e)
{
    int code = errno != 0 ? errno : EIO;

    web_reply_error(wr, web_status_of_errno(code), code, "%s", e->text);
}

/*
 * Every page of a paged request (JOB_QUERY, JOB_ACCT: "jobs" and
 * "next_after_job_id"), at most SLUICE_MAX_JOBS jobs (*truncated set when
 * more were left).  body is borrowed.  A new array, or NULL with errno and
 * e.
 */
static json_t *all_pages(struct web_req *wr, uint16_t type, json_t *body,
                         bool *truncated, struct err *e)
{
    json_t *all = json_array(), *req = json_deep_copy(body);

    *truncated = false;
    for (;;) {
        json_t *reply = NULL, *next;
        if (web_req_rpc(wr, type, json_incref(req), &reply, e) < 0) {
            int saved = errno;
            json_decref(all);
            json_decref(req);
            errno = saved;
            return NULL;
        }
        json_array_extend(all, json_object_get(reply, "jobs"));
        next = json_object_get(reply, "next_after_job_id");
        if (json_is_integer(next) && json_array_size(all) >= SLUICE_MAX_JOBS)
            *truncated = true;
        if (!json_is_integer(next) || *truncated) {
            json_decref(reply);
            json_decref(req);
            return all;
        }
        json_object_set(req, "after_job_id", next);
        json_decref(reply);
    }
}

/* The "{id}" of the route: a job id, or 0 after a 400 reply. */
static uint32_t job_id_arg(struct web_req *wr)
{
    const char *s = web_req_arg(wr, "id");
    char *end;
    unsigned long long v;

    if (s == NULL || s[0] < '0' || s[0] > '9')
        goto bad;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0 || v == 0 || v > UINT32_MAX)
        goto bad;
    return (uint32_t)v;
bad:
    web_reply_error(wr, 400, EINVAL, "job id %.64s: a number is expected",
                    s ? s : "");
    return 0;
}

/* A query parameter as a number in [lo, hi]: 0 with *v (dflt when
 * absent), or -1 after a 400 reply. */
static int query_num(struct web_req *wr, const char *key, long long dflt,
                     long long lo, long long hi, long long *v)
{
    const char *s = web_req_query(wr, key);
    char *end;

    *v = dflt;
    if (s == NULL)
        return 0;
    errno = 0;
    *v = strtoll(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || *v < lo || *v > hi) {
        web_reply_error(wr, 400, EINVAL,
                        "%s=%.64s: a number from %lld to %lld is expected", key,
                        s, lo, hi);
        return -1;
    }
    return 0;
}

/* The JOB object of id as the RPC shows it to the request's user: a new
 * reference, or NULL after an error reply (404 for an unknown job). */
static json_t *job_of(struct web_req *wr, uint32_t id)
{
    json_t *reply = NULL, *job;
    struct err e;

    if (web_req_rpc(wr, PROTO_MSG_JOB_QUERY,
                    json_pack("{s:[I]}", "job_ids", (json_int_t)id), &reply,
                    &e) < 0) {
        reply_rpc_error(wr, &e);
        return NULL;
    }
    job = json_array_get(json_object_get(reply, "jobs"), 0);
    if (job == NULL) {
        json_decref(reply);
        web_reply_error(wr, 404, ENOENT, "Invalid job id specified: %u",
                        (unsigned)id);
        return NULL;
    }
    json_incref(job);
    json_decref(reply);
    return job;
}

static bool is_operator(struct web_req *wr)
{
    return acct_is_operator(web_req_env(wr)->rpc->acct, web_req_who(wr)->uid);
}

/* ------------------------------------------------------------------ */

/* GET /sluice/v1/whoami: the token's user and what it may see. */
static void get_whoami(struct web_req *wr)
{
    const struct web_env *env = web_req_env(wr);
    uid_t uid = web_req_who(wr)->uid;

    web_reply_json(
        wr, 200,
        json_pack("{s:s, s:I, s:b, s:b, s:s, s:s, s:I}", "user",
                  web_req_user(wr), "uid", (json_int_t)uid, "operator",
                  acct_is_operator(env->rpc->acct, uid), "administrator",
                  acct_is_administrator(env->rpc->acct, uid), "cluster",
                  env->conf->cluster_name ? env->conf->cluster_name : "",
                  "version", SLUICE_VERSION, "now",
                  (json_int_t)web_req_now(wr)));
}

/* GET /sluice/v1/cluster: every node's GPUs with the job holding each,
 * and the partitions' load. */
/* The WAITING_TOP pending jobs of the highest priority (then lowest id),
 * their ids into ids, and every pending job (each array task) into the
 * partitions' and totals' figures of view, from one walk of the job table:
 * the cluster view is polled every few seconds, and asking JOB_QUERY for
 * 10,000 pending jobs each time would cost the controller 0.3 s. */
#define WAITING_TOP 10
static void pending_figures(struct web_req *wr, json_t *view, json_t *ids)
{
    const struct rpc_env *env = web_req_env(wr)->rpc;
    const struct conf *conf = web_req_env(wr)->conf;
    json_t *parts = json_object_get(view, "partitions");
    json_t *totals = json_object_get(view, "totals");
    const struct job *top[WAITING_TOP];
    size_t ntop = 0;
    json_int_t preempted = 0;

    for (const struct job *j = jobs_first(env->jobs); j != NULL; j = j->next) {
        uint64_t n = j->array_pending != NULL ? j->array_pending->count : 1;
        size_t k;
        if (j->state != JOB_PENDING || n == 0)
            continue;
        dashview_add_pending(
            totals, parts,
            j->part < conf->n_parts ? conf->parts[j->part].name : "",
            (json_int_t)n,
            (json_int_t)n * (j->nodes ? j->nodes : 1) * j->gpus_per_node);
        preempted += j->preempted_by != 0;
        /* insertion into the top list, best first */
        for (k = ntop; k > 0 && top[k - 1]->priority < j->priority; k--)
            if (k < WAITING_TOP)
                top[k] = top[k - 1];
        if (k < WAITING_TOP) {
            top[k] = j;
            if (ntop < WAITING_TOP)
                ntop++;
        }
    }
    for (size_t k = 0; k < ntop; k++)
        json_array_append_new(ids, json_integer((json_int_t)top[k]->id));
    json_object_set_new(totals, "jobs_pending_preempted",
                        json_integer(preempted));
}

static json_t *queue_preemptions(struct web_req *wr, json_t *jobs,
                                 struct err *e);

/* GET /sluice/v1/cluster: the GPU map, the partitions' load, the totals
 * and the first pending jobs. */
static void get_cluster(struct web_req *wr)
{
    json_t *nodes = NULL, *parts = NULL, *jobs = NULL, *ids = json_array();
    json_t *waiting = NULL, *pre = NULL, *view;
    bool truncated;
    struct err e;
    json_t *holders = json_pack("{s:[s,s,s]}", "states", "RUNNING", "SUSPENDED",
                                "COMPLETING");

    jobs = all_pages(wr, PROTO_MSG_JOB_QUERY, holders, &truncated, &e);
    if (jobs == NULL ||
        web_req_rpc(wr, PROTO_MSG_NODE_QUERY, NULL, &nodes, &e) < 0 ||
        web_req_rpc(wr, PROTO_MSG_PART_QUERY, NULL, &parts, &e) < 0) {
        reply_rpc_error(wr, &e);
        goto done;
    }
    view = dashview_cluster(json_object_get(nodes, "nodes"),
                            json_object_get(parts, "partitions"), jobs);
    pending_figures(wr, view, ids);
    if (json_array_size(ids) > 0) {
        json_t *reply = NULL;
        if (web_req_rpc(wr, PROTO_MSG_JOB_QUERY,
                        json_pack("{s:O}", "job_ids", ids), &reply, &e) < 0 ||
            (pre = queue_preemptions(wr, json_object_get(reply, "jobs"), &e)) ==
                NULL) {
            json_decref(reply);
            json_decref(view);
            reply_rpc_error(wr, &e);
            goto done;
        }
        waiting = dashview_queue(json_object_get(reply, "jobs"), pre);
        json_decref(reply);
    }
    json_object_set_new(view, "waiting", waiting ? waiting : json_array());
    json_object_set_new(view, "cluster",
                        json_string(web_req_env(wr)->conf->cluster_name
                                        ? web_req_env(wr)->conf->cluster_name
                                        : ""));
    json_object_set_new(view, "now", json_integer(web_req_now(wr)));
    json_object_set_new(view, "truncated", json_boolean(truncated));
    web_reply_json(wr, 200, view);
done:
    json_decref(holders);
    json_decref(jobs);
    json_decref(nodes);
    json_decref(parts);
    json_decref(ids);
    json_decref(pre);
}

/* The preemptions of the jobs that were ever preempted (their JOB names
 * a preemptor), from their events: dashview_preemptions, or NULL with e. */
static json_t *queue_preemptions(struct web_req *wr, json_t *jobs,
                                 struct err *e)
{
    json_t *ids = json_array(), *job, *body, *acct, *out;
    bool truncated;
    size_t i;

    json_array_foreach(jobs, i, job)
    {
        if (json_object_get(job, "preempted_by") != NULL)
            json_array_append(ids, json_object_get(job, "job_id"));
    }
    if (json_array_size(ids) == 0) {
        json_decref(ids);
        return json_object();
    }
    body = json_pack("{s:o, s:b, s:b}", "job_ids", ids, "events", 1,
                     "all_users", 1);
    acct = all_pages(wr, PROTO_MSG_JOB_ACCT, body, &truncated, e);
    json_decref(body);
    if (acct == NULL)
        return NULL;
    out = dashview_preemptions(acct);
    json_decref(acct);
    return out;
}

/* A page of the queue: its jobs as rows, with their preemptions. */
static json_t *queue_page(struct web_req *wr, json_t *jobs, void *arg,
                          struct err *e)
{
    json_t *pre = queue_preemptions(wr, jobs, e), *rows;

    (void)arg;
    if (pre == NULL)
        return NULL;
    rows = dashview_queue(jobs, pre);
    json_decref(pre);
    return rows;
}

/* GET /sluice/v1/queue: the jobs not finished, each pending one with its
 * reason, each with the preemptions it suffered; a page per turn of the
 * loop. */
static void get_queue(struct web_req *wr)
{
    json_t *head = json_pack("{s:I, s:b}", "now", (json_int_t)web_req_now(wr),
                             "truncated", 0);

    rest_pages(wr, &(struct rest_pages){
                       .type = PROTO_MSG_JOB_QUERY,
                       .body = json_pack("{s:[s,s,s,s]}", "states", "PENDING",
                                         "RUNNING", "SUSPENDED", "COMPLETING"),
                       .key = "jobs",
                       .limit = REST_PAGE_JOBS,
                       .head = rest_head(head, "jobs"),
                       .page = queue_page});
    json_decref(head);
}

/* GET /sluice/v1/jobs/{id}: the job, its events (the timeline) and its
 * steps. */
static void get_job(struct web_req *wr)
{
    uint32_t id = job_id_arg(wr);
    json_t *job, *acct = NULL, *rec, *body, *events, *steps;
    bool mine;
    struct err e;

    if (id == 0 || (job = job_of(wr, id)) == NULL)
        return;
    body = json_pack("{s:[I], s:b, s:b}", "job_ids", (json_int_t)id, "events",
                     1, "all_users", 1);
    if (web_req_rpc(wr, PROTO_MSG_JOB_ACCT, body, &acct, &e) < 0) {
        reply_rpc_error(wr, &e);
        json_decref(job);
        return;
    }
    rec = json_array_get(json_object_get(acct, "jobs"), 0);
    events = json_object_get(rec, "events");
    steps = json_object_get(rec, "steps");
    mine = json_integer_value(json_object_get(job, "user_id")) ==
           (json_int_t)web_req_who(wr)->uid;
    web_reply_json(wr, 200,
                   json_pack("{s:I, s:O, s:o, s:o, s:b}", "now",
                             (json_int_t)web_req_now(wr), "job", job, "events",
                             events ? json_incref(events) : json_array(),
                             "steps", steps ? json_incref(steps) : json_array(),
                             "output_readable", mine || is_operator(wr)));
    json_decref(job);
    json_decref(acct);
}

/* GET /sluice/v1/jobs/{id}/explain: JOB_EXPLAIN's answer. */
static void get_explain(struct web_req *wr)
{
    uint32_t id = job_id_arg(wr);
    json_t *reply = NULL;
    struct err e;

    if (id == 0)
        return;
    if (web_req_rpc(wr, PROTO_MSG_JOB_EXPLAIN,
                    json_pack("{s:I}", "job_id", (json_int_t)id), &reply,
                    &e) < 0) {
        reply_rpc_error(wr, &e);
        return;
    }
    web_reply_json(wr, 200, reply);
}

/* The job's output file as the node names it (docs/noded.md): its
 * pattern expanded, relative to its working directory (the user's home
 * when it has none).  A new string. */
static char *output_path(json_t *job)
{
    json_t *task = json_object_get(job, "array_task_id");
    const char *wd = json_string_value(json_object_get(job, "work_dir"));
    const char *bh = json_string_value(json_object_get(job, "batch_host"));
    struct stdpath_job j = {
        .job_id = (uint32_t)json_integer_value(json_object_get(job, "job_id")),
        .is_array = json_is_integer(task),
        .array_job_id =
            (uint32_t)json_integer_value(json_object_get(job, "array_job_id")),
        .array_task_id = (uint32_t)json_integer_value(task),
        .name = json_string_value(json_object_get(job, "name")),
        .user = json_string_value(json_object_get(job, "user_name")),
        .node = bh != NULL ? bh : ""};
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (j.name == NULL)
        j.name = "";
    if (j.user == NULL)
        j.user = "";
    if ((wd == NULL || wd[0] == '\0') &&
        getpwuid_r((uid_t)json_integer_value(json_object_get(job, "user_id")),
                   &pw, buf, sizeof(buf), &res) == 0 &&
        res != NULL)
        wd = pw.pw_dir;
    return stdpath_resolve(json_string_value(json_object_get(job, "std_out")),
                           &j, wd != NULL ? wd : "/");
}

/* Why a job has no output to show yet, or NULL. */
static const char *no_output_yet(json_t *job)
{
    const char *state = json_string_value(json_object_get(job, "job_state"));

    if (json_object_get(job, "alloc") != NULL)
        return "an allocation (salloc, srun) has no output file: its output "
               "goes to the terminal that asked for it";
    if (state != NULL && strcmp(state, "PENDING") == 0 &&
        json_integer_value(json_object_get(job, "restart_count")) == 0)
        return "the job has not started yet";
    return NULL;
}

/* GET /sluice/v1/jobs/{id}/output?bytes=N: the end of the job's output
 * file, for its owner or an operator. */
static void get_output(struct web_req *wr)
{
    uint32_t id = job_id_arg(wr);
    json_t *job, *out, *bh;
    long long bytes;
    uid_t uid;
    const char *why;
    char *path;
    struct jobout_tail t;
    struct err e;

    if (id == 0 || query_num(wr, "bytes", JOBOUT_DEFAULT_BYTES, 1,
                             JOBOUT_MAX_BYTES, &bytes) < 0)
        return;
    if ((job = job_of(wr, id)) == NULL)
        return;
    uid = (uid_t)json_integer_value(json_object_get(job, "user_id"));
    if (uid != web_req_who(wr)->uid && !is_operator(wr)) {
        web_reply_error(wr, 403, EPERM,
                        "Access/permission denied: only the job's owner or "
                        "an operator may read its output");
        json_decref(job);
        return;
    }
    path = output_path(job);
    bh = json_object_get(job, "batch_host");
    out = json_pack("{s:I, s:s, s:O}", "job_id", (json_int_t)id, "path", path,
                    "node", json_is_string(bh) ? bh : json_null());
    if ((why = no_output_yet(job)) != NULL) {
        json_object_set_new(out, "available", json_false());
        json_object_set_new(out, "reason", json_string(why));
    } else if (jobout_read(path, uid, (size_t)bytes, &t, &e) < 0) {
        json_object_set_new(out, "available", json_false());
        json_object_set_new(out, "reason", json_string(e.text));
    } else {
        json_object_set_new(out, "available", json_true());
        json_object_set_new(out, "size", json_integer((json_int_t)t.size));
        json_object_set_new(out, "offset", json_integer((json_int_t)t.offset));
        json_object_set_new(out, "truncated", json_boolean(t.offset > 0));
        json_object_set_new(out, "text", json_stringn(t.text, t.len));
        jobout_clear(&t);
    }
    free(path);
    json_decref(job);
    web_reply_json(wr, 200, out);
}

struct report {
    json_t *jobs; /* the ACCT_JOB objects that ever ran, page by page */
    long long start, end, now;
    json_int_t n_jobs; /* every job of the window */
};

/* Whether job (ACCT_JOB with events) ever started: one that never ran
 * was neither preempted nor preempted anyone, and adds nothing to the
 * review but its rows (its user, QOS and partition) and its weight
 * (10,000 held jobs' events and steps). */
static bool ever_ran(json_t *job)
{
    json_t *ev;
    size_t i;

    json_array_foreach(json_object_get(job, "events"), i, ev)
    {
        const char *what = json_string_value(json_object_get(ev, "event"));
        if (what != NULL && strcmp(what, "start") == 0)
            return true;
    }
    return false;
}

static json_t *report_page(struct web_req *wr, json_t *items, void *arg,
                           struct err *e)
{
    struct report *r = arg;
    json_t *job;
    size_t i;

    (void)wr;
    (void)e;
    r->n_jobs += (json_int_t)json_array_size(items);
    json_array_foreach(items, i, job)
    {
        if (ever_ran(job))
            json_array_append(r->jobs, job);
        else /* only what puts it in the review's rows, with no run */
            json_array_append_new(
                r->jobs, json_pack("{s:O?, s:O?, s:O?, s:O?}", "job_id",
                                   json_object_get(job, "job_id"), "user_name",
                                   json_object_get(job, "user_name"), "qos",
                                   json_object_get(job, "qos"), "partition",
                                   json_object_get(job, "partition")));
    }
    return json_array();
}

/* The pages are in: the preemptors outside the window (for "caused",
 * usually a few), then the review. */
static void report_end(struct web_req *wr, void *arg)
{
    struct report *r = arg;
    const struct conf *conf = web_req_env(wr)->conf;
    json_t *missing = preempt_report_missing(r->jobs), *rep;
    bool truncated = false;
    struct err e;

    if (json_array_size(missing) > 0) {
        json_t *body = json_pack("{s:O, s:b, s:b}", "job_ids", missing,
                                 "all_users", 1, "events", 0);
        json_t *more = all_pages(wr, PROTO_MSG_JOB_ACCT, body, &truncated, &e);
        json_decref(body);
        if (more != NULL)
            json_array_extend(r->jobs, more);
        json_decref(more);
    }
    json_decref(missing);
    rep = preempt_report_build(r->jobs,
                               preempt_report_share(conf->preempt_parameters));
    json_object_set_new(rep, "window",
                        json_pack("{s:I, s:I}", "start", (json_int_t)r->start,
                                  "end", (json_int_t)r->end));
    json_object_set_new(rep, "jobs", json_integer(r->n_jobs));
    json_object_set_new(rep, "truncated", json_boolean(truncated));
    json_object_set_new(rep, "now", json_integer((json_int_t)r->now));
    web_reply_json(wr, 200, rep);
}

static void report_free(void *arg)
{
    struct report *r = arg;

    json_decref(r->jobs);
    free(r);
}

/* GET /sluice/v1/preemptions?start=T&end=T: sluice report preemptions
 * over the jobs whose life overlaps the window (the last
 * SLUICE_REPORT_DAYS days by default; start=0: all history), a page of
 * JOB_ACCT per turn of the loop. */
static void get_preemptions(struct web_req *wr)
{
    long long now = (long long)web_req_now(wr), start, end;
    struct report *r;

    if (query_num(wr, "start", now - SLUICE_REPORT_DAYS * 86400LL, 0, LLONG_MAX,
                  &start) < 0 ||
        query_num(wr, "end", now, 0, LLONG_MAX, &end) < 0)
        return;
    r = xcalloc(1, sizeof(*r));
    *r = (struct report){json_array(), start, end, now, 0};
    rest_pages(wr, &(struct rest_pages){
                       .type = PROTO_MSG_JOB_ACCT,
                       .body = json_pack("{s:b, s:b, s:I, s:I}", "events", 1,
                                         "all_users", 1, "start_time",
                                         (json_int_t)start, "end_time",
                                         (json_int_t)end),
                       .key = "jobs",
                       .limit = REST_PAGE_ACCT,
                       .page = report_page,
                       .end = report_end,
                       .arg = r,
                       .done = report_free});
}

/* GET /sluice/v1/fairshare: SHARE_QUERY's answer (sshare). */
static void get_fairshare(struct web_req *wr)
{
    json_t *reply = NULL;
    struct err e;

    if (web_req_rpc(wr, PROTO_MSG_SHARE_QUERY, NULL, &reply, &e) < 0) {
        reply_rpc_error(wr, &e);
        return;
    }
    web_reply_json(wr, 200, reply);
}

const struct web_route sluice_routes[] = {
    {"GET", "/sluice/v1/whoami", get_whoami, 0},
    {"GET", "/sluice/v1/cluster", get_cluster, 0},
    {"GET", "/sluice/v1/queue", get_queue, 0},
    {"GET", "/sluice/v1/jobs/{id}", get_job, 0},
    {"GET", "/sluice/v1/jobs/{id}/explain", get_explain, 0},
    {"GET", "/sluice/v1/jobs/{id}/output", get_output, 0},
    {"GET", "/sluice/v1/preemptions", get_preemptions, 0},
    {"GET", "/sluice/v1/fairshare", get_fairshare, 0},
    {NULL, NULL, NULL, 0},
};
