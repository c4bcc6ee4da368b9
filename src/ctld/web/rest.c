/*
 * slurmrestd's API, v0.0.38, for what this cluster has (docs/rest.md):
 * the controller's queries (ping, diag, jobs, nodes, partitions,
 * reservations) and the OpenAPI document, and what rest_job.c and
 * rest_db.c share (rest.h).  Each route turns its request into the
 * message the CLI would send, served by rpc_dispatch as the token's user,
 * and its reply into Slurm's objects (common/slurmjson.h).
 */
#include "ctld/web/rest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/web/assets.h"

/* A paged request that does not move on is not asked again forever. */
#define REST_MAX_PAGES 100000

/* ------------------------------------------------------------------ */
/* What the REST files share (rest.h).                                 */

int rest_status(int code)
{
    switch (code) {
    case EALREADY:
    case EBUSY:
    case EEXIST:
        return 409;
    default:
        return web_status_of_errno(code);
    }
}

void rest_fail(struct web_req *wr, int code, const struct err *e)
{
    web_reply_error(wr, rest_status(code), code, "%s", e->text);
}

int rest_call(struct web_req *wr, uint16_t type, json_t *body, json_t **reply)
{
    struct err e;

    if (web_req_rpc(wr, type, body, reply, &e) < 0) {
        rest_fail(wr, errno, &e);
        return -1;
    }
    return 0;
}

int rest_each(struct web_req *wr, uint16_t type, json_t *body, const char *key,
              void (*fn)(json_t *item, void *arg), void *arg)
{
    json_int_t after = 0;
    json_t *reply, *next, *v;
    size_t i;

    for (int page = 0; page < REST_MAX_PAGES; page++) {
        json_t *req = json_deep_copy(body);
        if (after > 0)
            json_object_set_new(req, "after_job_id", json_integer(after));
        if (rest_call(wr, type, req, &reply) < 0)
            return -1;
        json_array_foreach(json_object_get(reply, key), i, v) fn(v, arg);
        next = json_object_get(reply, "next_after_job_id");
        if (!json_is_integer(next) || json_integer_value(next) <= after) {
            json_decref(reply);
            return 0;
        }
        after = json_integer_value(next);
        json_decref(reply);
    }
    return 0;
}

char *rest_head(json_t *obj, const char *key)
{
    char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
    size_t n = text != NULL ? strlen(text) : 0;
    char *out;

    if (n < 2 || text[n - 1] != '}') { /* not an object: no head */
        free(text);
        return xasprintf("{\"%s\":[", key);
    }
    text[n - 1] = '\0';
    out = xasprintf("%s%s\"%s\":[", text, n > 2 ? "," : "", key);
    free(text);
    return out;
}

struct pager {
    struct rest_pages p;
    json_int_t after;
    bool head_out, any;
};

static int to_evbuffer(const char *buf, size_t len, void *arg)
{
    return evbuffer_add(arg, buf, len);
}

static void pager_free(void *arg)
{
    struct pager *pg = arg;

    if (pg->p.done != NULL)
        pg->p.done(pg->p.arg);
    json_decref(pg->p.body);
    free(pg->p.head);
    free(pg);
}

/* One page (web_stream_fn). */
static int pager_slice(struct web_req *wr, struct evbuffer *out, void *arg)
{
    struct pager *pg = arg;
    json_t *req = json_deep_copy(pg->p.body), *reply = NULL, *items, *v, *next;
    struct err e;
    size_t i;

    json_object_set_new(req, "limit", json_integer(pg->p.limit));
    if (pg->after > 0)
        json_object_set_new(req, "after_job_id", json_integer(pg->after));
    if (web_req_rpc(wr, pg->p.type, req, &reply, &e) < 0 ||
        (items = pg->p.page(wr, json_object_get(reply, pg->p.key), pg->p.arg,
                            &e)) == NULL) {
        int code = errno;
        json_decref(reply);
        if (pg->head_out)
            return -1;
        rest_fail(wr, code, &e);
        return 1;
    }
    if (pg->p.head != NULL && !pg->head_out) {
        evbuffer_add(out, pg->p.head, strlen(pg->p.head));
        pg->head_out = true;
    }
    json_array_foreach(items, i, v)
    {
        if (pg->p.head == NULL)
            break;
        if (pg->any)
            evbuffer_add(out, ",", 1);
        json_dump_callback(v, to_evbuffer, out,
                           JSON_COMPACT | JSON_PRESERVE_ORDER);
        pg->any = true;
    }
    json_decref(items);
    next = json_object_get(reply, "next_after_job_id");
    if (json_is_integer(next) && json_integer_value(next) > pg->after) {
        pg->after = json_integer_value(next);
        json_decref(reply);
        return 0;
    }
    json_decref(reply);
    if (pg->p.head == NULL) {
        pg->p.end(wr, pg->p.arg);
        return 1;
    }
    evbuffer_add(out, "]}", 2);
    return 1;
}

void rest_pages(struct web_req *wr, const struct rest_pages *p)
{
    struct pager *pg = xcalloc(1, sizeof(*pg));

    pg->p = *p;
    web_reply_stream(wr, 200, "application/json", pager_slice, pg, pager_free);
}

int rest_check_query(struct web_req *wr, const char *const *known)
{
    const char *k = web_req_query_unknown(wr, known);
    char list[256] = "";

    if (k == NULL)
        return 0;
    for (size_t i = 0; known[i] != NULL; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                 i > 0 ? ", " : "", known[i]);
    web_reply_error(wr, 400, EINVAL,
                    "query parameter %.64s: not known here%s%s", k,
                    list[0] ? " (it takes " : "", list[0] ? list : "");
    return -1;
}

struct slurmjson_ctx rest_ctx(const struct web_req *wr)
{
    struct slurmjson_ctx ctx = {web_req_env(wr)->conf->cluster_name,
                                web_req_now(wr)};

    return ctx;
}

json_t *rest_ok(enum slurmjson_plugin plugin)
{
    return json_pack("{s:o, s:[], s:[]}", "meta", slurmjson_meta(plugin),
                     "errors", "warnings");
}

json_t *rest_job_ref(struct web_req *wr)
{
    const char *id = web_req_arg(wr, "job_id");
    size_t digits = id ? strspn(id, "0123456789") : 0;
    unsigned long long n;

    if (digits > 0 && digits <= 18 && id[0] != '0') {
        n = strtoull(id, NULL, 10);
        if (id[digits] == '\0')
            return json_integer((json_int_t)n);
        if (id[digits] == '_' && id[digits + 1] != '\0' &&
            strspn(id + digits + 1, "0123456789") == strlen(id + digits + 1) &&
            strlen(id + digits + 1) <= 10)
            return json_string(id);
    }
    web_reply_error(wr, 400, EINVAL,
                    "job_id \"%.64s\": expected a job id (N) or an array "
                    "task (N_T)",
                    id ? id : "");
    return NULL;
}

/* ------------------------------------------------------------------ */
/* /slurm/v0.0.38 queries.                                             */

static const char *const q_update_time[] = {"update_time", NULL};

/* GET /slurm/v0.0.38/ping: the controller answers, so it is UP. */
static void get_ping(struct web_req *wr)
{
    const struct conf *c = web_req_env(wr)->conf;
    const char *host = c->n_ctld_hosts > 0 ? c->ctld_hosts[0].host : "";
    json_t *pings = json_pack("[{s:s, s:s, s:i, s:s}]", "hostname", host,
                              "ping", "UP", "status", 0, "mode", "primary");

    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_CTLD, "pings", pings));
}

struct job_list {
    struct slurmjson_ctx ctx;
    json_t *out;
};

static void add_job(json_t *job, void *arg)
{
    struct job_list *l = arg;

    json_array_append_new(l->out, slurmjson_job(job, &l->ctx));
}

/* The jobs of a JOB_QUERY body (stolen) as v0.0.38_jobs_response; 404
 * with "Invalid job id specified" when one_id asked and none came. */
static void reply_jobs(struct web_req *wr, json_t *req, bool one_id)
{
    struct job_list l = {rest_ctx(wr), json_array()};

    if (rest_each(wr, PROTO_MSG_JOB_QUERY, req, "jobs", add_job, &l) < 0)
        goto done;
    if (one_id && json_array_size(l.out) == 0) {
        web_reply_error(wr, 404, ENOENT, "Invalid job id specified");
        goto done;
    }
    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_CTLD, "jobs", l.out));
    l.out = NULL;
done:
    json_decref(l.out);
    json_decref(req);
}

/* A page of JOB objects as v0.0.38_job_info objects. */
static json_t *jobs_page(struct web_req *wr, json_t *items, void *arg,
                         struct err *e)
{
    struct slurmjson_ctx ctx = rest_ctx(wr);
    json_t *out = json_array(), *job;
    size_t i;

    (void)arg;
    (void)e;
    json_array_foreach(items, i, job)
    {
        json_array_append_new(out, slurmjson_job(job, &ctx));
    }
    return out;
}

/* The jobs of a JOB_QUERY body (stolen) as v0.0.38_jobs_response, a page
 * per turn of the loop. */
static void stream_jobs(struct web_req *wr, json_t *req)
{
    /* slurmjson_response's members before "jobs" */
    json_t *obj = json_pack("{s:o, s:[]}", "meta",
                            slurmjson_meta(SLURMJSON_CTLD), "errors");

    rest_pages(wr, &(struct rest_pages){.type = PROTO_MSG_JOB_QUERY,
                                        .body = req,
                                        .key = "jobs",
                                        .limit = REST_PAGE_JOBS,
                                        .head = rest_head(obj, "jobs"),
                                        .page = jobs_page});
    json_decref(obj);
}

/* GET /slurm/v0.0.38/jobs: what squeue shows (every user's jobs that are
 * not finished), or with Sluice's filters user=, partition= and state=
 * (comma lists; state=all is every job the controller holds). */
static void get_jobs(struct web_req *wr)
{
    static const char *const known[] = {"update_time", "user", "partition",
                                        "state", NULL};
    const char *st = web_req_query(wr, "state");
    const char *user = web_req_query(wr, "user");
    const char *part = web_req_query(wr, "partition");
    json_t *req = json_object();

    if (rest_check_query(wr, known) < 0) {
        json_decref(req);
        return;
    }
    if (st == NULL)
        json_object_set_new(req, "states",
                            json_pack("[ssss]", "PENDING", "RUNNING",
                                      "COMPLETING", "SUSPENDED"));
    else if (strcmp(st, "all") != 0)
        json_object_set_new(req, "states", slurmjson_comma_list(st));
    if (user != NULL)
        json_object_set_new(req, "users", slurmjson_comma_list(user));
    if (part != NULL)
        json_object_set_new(req, "partitions", slurmjson_comma_list(part));
    stream_jobs(wr, req);
}

/* GET /slurm/v0.0.38/job/{job_id}: the job, finished or not (an array's
 * id: all its jobs). */
static void get_job(struct web_req *wr)
{
    json_t *ref;

    if (rest_check_query(wr, q_update_time) < 0 ||
        (ref = rest_job_ref(wr)) == NULL)
        return;
    reply_jobs(wr, json_pack("{s:[o]}", "job_ids", ref), true);
}

/* A NODE_QUERY or PART_QUERY reply's list converted; 404 with missing
 * when a name was asked for and none came. */
static void reply_list(struct web_req *wr, uint16_t type, const char *key,
                       const char *arg, const char *missing,
                       json_t *(*conv)(json_t *, const struct slurmjson_ctx *))
{
    const char *name = web_req_arg(wr, arg);
    struct slurmjson_ctx ctx = rest_ctx(wr);
    json_t *reply, *out, *v;
    size_t i;

    if (rest_check_query(wr, q_update_time) < 0 ||
        rest_call(wr, type,
                  name ? json_pack("{s:[s]}", key, name) : json_object(),
                  &reply) < 0)
        return;
    out = json_array();
    json_array_foreach(json_object_get(reply, key), i, v)
        json_array_append_new(out, conv(v, &ctx));
    json_decref(reply);
    if (name != NULL && json_array_size(out) == 0) {
        json_decref(out);
        web_reply_error(wr, 404, ENOENT, "%s %.64s", missing, name);
        return;
    }
    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_CTLD, key, out));
}

static void get_nodes(struct web_req *wr)
{
    reply_list(wr, PROTO_MSG_NODE_QUERY, "nodes", "node_name",
               "Invalid node name specified:", slurmjson_node);
}

static void get_partitions(struct web_req *wr)
{
    reply_list(wr, PROTO_MSG_PART_QUERY, "partitions", "partition_name",
               "Invalid partition name specified:", slurmjson_partition);
}

/* GET /slurm/v0.0.38/reservations and reservation/{reservation_name}. */
static void get_reservations(struct web_req *wr)
{
    const char *name = web_req_arg(wr, "reservation_name");
    json_t *reply, *out, *v;
    size_t i;

    if (rest_check_query(wr, q_update_time) < 0 ||
        rest_call(wr, PROTO_MSG_RESV_QUERY,
                  name ? json_pack("{s:s}", "name", name) : json_object(),
                  &reply) < 0)
        return;
    out = json_array();
    json_array_foreach(json_object_get(reply, "reservations"), i, v)
        json_array_append_new(out, slurmjson_reservation(v));
    json_decref(reply);
    web_reply_json(wr, 200,
                   slurmjson_response(SLURMJSON_CTLD, "reservations", out));
}

struct diag_count {
    struct slurmjson_jobcount c;
    time_t since;
    json_t *diag; /* SCHED_DIAG's reply */
};

static void count_job(json_t *job, void *arg)
{
    struct diag_count *d = arg;

    slurmjson_diag_count(&d->c, job, d->since);
}

static json_t *diag_page(struct web_req *wr, json_t *items, void *arg,
                         struct err *e)
{
    struct diag_count *d = arg;
    json_t *job;
    size_t i;

    (void)wr;
    (void)e;
    json_array_foreach(items, i, job)
    {
        count_job(job, d);
    }
    return json_array();
}

static void diag_end(struct web_req *wr, void *arg)
{
    struct diag_count *d = arg;

    web_reply_json(wr, 200,
                   slurmjson_response(SLURMJSON_CTLD, "statistics",
                                      slurmjson_diag(d->diag, &d->c)));
}

static void diag_free(void *arg)
{
    struct diag_count *d = arg;

    json_decref(d->diag);
    free(d);
}

/* GET /slurm/v0.0.38/diag: SCHED_DIAG, and the jobs the controller holds
 * counted by state (a page per turn of the loop). */
static void get_diag(struct web_req *wr)
{
    struct diag_count *d;
    json_t *diag;

    if (rest_check_query(wr, (const char *const[]){NULL}) < 0 ||
        rest_call(wr, PROTO_MSG_SCHED_DIAG, NULL, &diag) < 0)
        return;
    d = xcalloc(1, sizeof(*d));
    d->diag = diag;
    d->since = (time_t)json_integer_value(json_object_get(diag, "since"));
    rest_pages(wr, &(struct rest_pages){.type = PROTO_MSG_JOB_QUERY,
                                        .body = json_object(),
                                        .key = "jobs",
                                        .limit = REST_PAGE_JOBS * 10,
                                        .page = diag_page,
                                        .end = diag_end,
                                        .arg = d,
                                        .done = diag_free});
}

/* GET /openapi/v3: the document that describes all of this
 * (web/openapi/v3.json), public as slurmrestd's is. */
static void get_openapi(struct web_req *wr)
{
    const struct web_asset *a = web_asset_find("openapi/v3.json");

    if (a == NULL) {
        web_reply_error(wr, 404, ENOENT, "no OpenAPI document in this build");
        return;
    }
    web_reply_header(wr, "Cache-Control", "no-cache");
    web_reply_text(wr, 200, "application/json", (const char *)a->data, a->len);
}

const struct web_route rest_routes[] = {
    {"GET", "/slurm/v0.0.38/ping", get_ping, 0},
    {"GET", "/slurm/v0.0.38/diag", get_diag, 0},
    {"GET", "/slurm/v0.0.38/jobs", get_jobs, 0},
    {"GET", "/slurm/v0.0.38/job/{job_id}", get_job, 0},
    {"GET", "/slurm/v0.0.38/nodes", get_nodes, 0},
    {"GET", "/slurm/v0.0.38/node/{node_name}", get_nodes, 0},
    {"GET", "/slurm/v0.0.38/partitions", get_partitions, 0},
    {"GET", "/slurm/v0.0.38/partition/{partition_name}", get_partitions, 0},
    {"GET", "/slurm/v0.0.38/reservations", get_reservations, 0},
    {"GET", "/slurm/v0.0.38/reservation/{reservation_name}", get_reservations,
     0},
    {"GET", "/openapi/v3", get_openapi, WEB_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
