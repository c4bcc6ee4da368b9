/*
 * slurmrestd's /slurmdb/v0.0.38 (docs/rest.md): the job history (JOB_ACCT,
 * sacct's message) and the accounting entities (ACCT_LIST, sacctmgr
 * show's), in slurmdbd's dbv0.0.38 objects.  Sluice keeps accounting in
 * the controller, so these are served here, as the token's user.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/web/rest.h"

/* slurmdbd's job filters Sluice has no equivalent for: refused by name
 * rather than ignored, so that a filter never silently matches more. */
static const char *const jobs_unsupported[] = {
    "association", "constraints", "cpus_max",    "cpus_min",
    "exit_code",   "format",      "group",       "nodes_max",
    "nodes_min",   "reason",      "reservation", "step",
    "node",        "wckey",       "submit_time", NULL,
};

static const char *const jobs_known[] = {
    "users",
    "account",
    "partition",
    "state",
    "start_time",
    "end_time",
    "job_name",
    "qos",
    "cluster",
    "skip_steps",
    "disable_wait_for_result",
    NULL,
};

struct acct_jobs {
    struct slurmjson_ctx ctx;
    json_t *names, *qos; /* job_name=, qos= (NULL: any) */
    bool skip_steps;
    bool other_cluster; /* cluster= does not name this one */
    json_t *out;
};

static bool in_list(json_t *list, const char *s)
{
    json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        if (s != NULL && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static void add_acct_job(json_t *job, void *arg)
{
    struct acct_jobs *a = arg;
    json_t *o;

    if (a->other_cluster ||
        (a->names &&
         !in_list(a->names, json_string_value(json_object_get(job, "name")))) ||
        (a->qos &&
         !in_list(a->qos, json_string_value(json_object_get(job, "qos")))))
        return;
    o = slurmjson_acct_job(job, &a->ctx);
    if (a->skip_steps)
        json_object_set_new(o, "steps", json_array());
    json_array_append_new(a->out, o);
}

/* A time parameter into JOB_ACCT's key; -1 answered 400. */
static int time_param(struct web_req *wr, const char *name, const char *key,
                      json_t *req)
{
    const char *s = web_req_query(wr, name);
    time_t t;

    if (s == NULL)
        return 0;
    if (slurmjson_time_parse(s, &t) < 0) {
        web_reply_error(wr, 400, EINVAL,
                        "%s=%.64s: expected Unix seconds or "
                        "YYYY-MM-DD[THH:MM[:SS]]",
                        name, s);
        return -1;
    }
    json_object_set_new(req, key, json_integer((json_int_t)t));
    return 0;
}

/* The filters of GET jobs into a JOB_ACCT body and a; -1 answered. */
static int jobs_filters(struct web_req *wr, json_t *req, struct acct_jobs *a)
{
    static const struct {
        const char *param, *key;
    } lists[] = {
        {"users", "users"},
        {"account", "accounts"},
        {"partition", "partitions"},
        {"state", "states"},
    };
    const char *s, *cluster = web_req_env(wr)->conf->cluster_name;
    json_t *l;

    for (size_t i = 0; jobs_unsupported[i] != NULL; i++)
        if (web_req_query(wr, jobs_unsupported[i]) != NULL) {
            web_reply_error(wr, 400, EINVAL,
                            "query parameter %s: not supported by Sluice "
                            "(docs/rest.md)",
                            jobs_unsupported[i]);
            return -1;
        }
    if (rest_check_query(wr, jobs_known) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(lists) / sizeof(*lists); i++)
        if ((s = web_req_query(wr, lists[i].param)) != NULL)
            json_object_set_new(req, lists[i].key, slurmjson_comma_list(s));
    /* slurmdbd answers every user's jobs (without PrivateData) */
    if (json_object_get(req, "users") == NULL)
        json_object_set_new(req, "all_users", json_true());
    if (time_param(wr, "start_time", "start_time", req) < 0 ||
        time_param(wr, "end_time", "end_time", req) < 0)
        return -1;
    if ((s = web_req_query(wr, "job_name")) != NULL)
        a->names = slurmjson_comma_list(s);
    if ((s = web_req_query(wr, "qos")) != NULL)
        a->qos = slurmjson_comma_list(s);
    if ((s = web_req_query(wr, "cluster")) != NULL) {
        l = slurmjson_comma_list(s);
        a->other_cluster = !in_list(l, cluster ? cluster : "");
        json_decref(l);
    }
    s = web_req_query(wr, "skip_steps");
    a->skip_steps = s != NULL && (strcmp(s, "true") == 0 || strcmp(s, "") == 0);
    return 0;
}

static void reply_acct_jobs(struct web_req *wr, json_t *req,
                            struct acct_jobs *a, bool one_id)
{
    if (rest_each(wr, PROTO_MSG_JOB_ACCT, req, "jobs", add_acct_job, a) < 0)
        return;
    if (one_id && json_array_size(a->out) == 0) {
        web_reply_error(wr, 404, ENOENT, "Invalid job id specified");
        return;
    }
    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_DBD, "jobs", a->out));
    a->out = NULL;
}

/* A page of ACCT_JOB objects as dbv0.0.38_job objects (a's filters). */
static json_t *acct_page(struct web_req *wr, json_t *items, void *arg,
                         struct err *e)
{
    struct acct_jobs *a = arg;
    json_t *job;
    size_t i;

    (void)wr;
    (void)e;
    json_decref(a->out); /* the last page's, written */
    a->out = json_array();
    json_array_foreach(items, i, job)
    {
        add_acct_job(job, a);
    }
    return json_incref(a->out);
}

static void acct_free(void *arg)
{
    struct acct_jobs *a = arg;

    json_decref(a->names);
    json_decref(a->qos);
    json_decref(a->out);
    free(a);
}

/* GET /slurmdb/v0.0.38/jobs: sacct's history, every user's by default, a
 * page per turn of the loop. */
static void get_acct_jobs(struct web_req *wr)
{
    struct acct_jobs *a = xcalloc(1, sizeof(*a));
    json_t *req = json_object(), *obj;

    a->ctx = rest_ctx(wr);
    if (jobs_filters(wr, req, a) < 0) {
        json_decref(req);
        acct_free(a);
        return;
    }
    obj = json_pack("{s:o, s:[]}", "meta", slurmjson_meta(SLURMJSON_DBD),
                    "errors");
    rest_pages(wr, &(struct rest_pages){.type = PROTO_MSG_JOB_ACCT,
                                        .body = req,
                                        .key = "jobs",
                                        .limit = REST_PAGE_ACCT,
                                        .head = rest_head(obj, "jobs"),
                                        .page = acct_page,
                                        .arg = a,
                                        .done = acct_free});
    json_decref(obj);
}

/* GET /slurmdb/v0.0.38/job/{job_id}: one job's record, with its steps. */
static void get_acct_job(struct web_req *wr)
{
    struct acct_jobs a = {rest_ctx(wr), NULL, NULL, false, false, json_array()};
    const char *id = web_req_arg(wr, "job_id");
    size_t n = strspn(id, "0123456789");
    json_t *req;

    if (rest_check_query(wr, (const char *const[]){NULL}) < 0)
        goto done;
    if (n == 0 || n > 18 || id[n] != '\0' || id[0] == '0') {
        web_reply_error(wr, 400, EINVAL,
                        "job_id \"%.64s\": expected a job id (N)", id);
        goto done;
    }
    req = json_pack("{s:[I], s:b}", "job_ids",
                    (json_int_t)strtoll(id, NULL, 10), "all_users", 1);
    reply_acct_jobs(wr, req, &a, true);
    json_decref(req);
done:
    json_decref(a.out);
}

/* ACCT_LIST of entity with where (stolen; NULL: none): the reply's list
 * under key (a new reference), or NULL answered. */
static json_t *acct_list(struct web_req *wr, const char *entity, json_t *where,
                         const char *key)
{
    json_t *reply, *list;

    if (rest_call(wr, PROTO_MSG_ACCT_LIST,
                  json_pack("{s:s, s:o}", "entity", entity, "where",
                            where ? where : json_object()),
                  &reply) < 0)
        return NULL;
    list = json_incref(json_object_get(reply, key));
    json_decref(reply);
    return list != NULL ? list : json_array();
}

/* The where of a name from the path ({arg}), or of nothing. */
static json_t *where_name(struct web_req *wr, const char *arg)
{
    const char *name = web_req_arg(wr, arg);

    return name ? json_pack("{s:s}", "Name", name) : json_object();
}

/* The reply of a named entity that is not there, or of the list. */
static void reply_entities(struct web_req *wr, const char *arg,
                           const char *what, const char *key, json_t *out)
{
    const char *name = web_req_arg(wr, arg);

    if (name != NULL && json_array_size(out) == 0) {
        json_decref(out);
        web_reply_error(wr, 404, ENOENT, "%s %.64s not found", what, name);
        return;
    }
    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_DBD, key, out));
}

static const char *const q_with_deleted[] = {"with_deleted", NULL};

/* GET /slurmdb/v0.0.38/qos and qos/{qos_name}. */
static void get_qos(struct web_req *wr)
{
    json_t *list, *out, *v;
    size_t i;

    if (rest_check_query(wr, q_with_deleted) < 0 ||
        (list = acct_list(wr, "qos", where_name(wr, "qos_name"), "qos")) ==
            NULL)
        return;
    out = json_array();
    json_array_foreach(list, i, v) json_array_append_new(out, slurmjson_qos(v));
    json_decref(list);
    reply_entities(wr, "qos_name", "QOS", "qos", out);
}

/* GET /slurmdb/v0.0.38/associations?cluster=&account=&user=&partition= */
static void get_associations(struct web_req *wr)
{
    static const struct {
        const char *param, *key;
    } conds[] = {
        {"cluster", "Cluster"},
        {"account", "Account"},
        {"user", "User"},
        {"partition", "Partition"},
    };
    static const char *const known[] = {"cluster", "account", "user",
                                        "partition", NULL};
    json_t *where = json_object(), *list, *all, *out, *v;
    const char *s;
    size_t i;

    if (rest_check_query(wr, known) < 0) {
        json_decref(where);
        return;
    }
    for (i = 0; i < sizeof(conds) / sizeof(*conds); i++)
        if ((s = web_req_query(wr, conds[i].param)) != NULL)
            json_object_set_new(where, conds[i].key, json_string(s));
    if ((list = acct_list(wr, "association", where, "associations")) == NULL)
        return;
    /* the parents' accounts are looked up in the whole tree */
    if ((all = acct_list(wr, "association", NULL, "associations")) == NULL) {
        json_decref(list);
        return;
    }
    out = json_array();
    json_array_foreach(list, i, v)
        json_array_append_new(out, slurmjson_assoc(v, all));
    json_decref(list);
    json_decref(all);
    web_reply_json(wr, 200,
                   slurmjson_response(SLURMJSON_DBD, "associations", out));
}

/* GET users (user/{user_name}) and accounts (account/{account_name}),
 * each with its associations. */
static void get_users_accounts(struct web_req *wr, bool users)
{
    const char *arg = users ? "user_name" : "account_name";
    const char *key = users ? "users" : "accounts";
    json_t *list, *assocs, *out, *v;
    size_t i;

    if (rest_check_query(wr, q_with_deleted) < 0 ||
        (list = acct_list(wr, users ? "user" : "account", where_name(wr, arg),
                          key)) == NULL)
        return;
    if ((assocs = acct_list(wr, "association", NULL, "associations")) == NULL) {
        json_decref(list);
        return;
    }
    out = json_array();
    json_array_foreach(list, i, v) json_array_append_new(
        out, users ? slurmjson_user(v, assocs) : slurmjson_account(v, assocs));
    json_decref(list);
    json_decref(assocs);
    reply_entities(wr, arg, users ? "User" : "Account", key, out);
}

static void get_users(struct web_req *wr)
{
    get_users_accounts(wr, true);
}

static void get_accounts(struct web_req *wr)
{
    get_users_accounts(wr, false);
}

const struct web_route rest_db_routes[] = {
    {"GET", "/slurmdb/v0.0.38/jobs", get_acct_jobs, 0},
    {"GET", "/slurmdb/v0.0.38/job/{job_id}", get_acct_job, 0},
    {"GET", "/slurmdb/v0.0.38/qos", get_qos, 0},
    {"GET", "/slurmdb/v0.0.38/qos/{qos_name}", get_qos, 0},
    {"GET", "/slurmdb/v0.0.38/associations", get_associations, 0},
    {"GET", "/slurmdb/v0.0.38/users", get_users, 0},
    {"GET", "/slurmdb/v0.0.38/user/{user_name}", get_users, 0},
    {"GET", "/slurmdb/v0.0.38/accounts", get_accounts, 0},
    {"GET", "/slurmdb/v0.0.38/account/{account_name}", get_accounts, 0},
    {NULL, NULL, NULL, 0},
};
