/*
 * The dashboard's views (dashview.h): the GPU map from NODE and JOB
 * objects, the partitions' load, the queue's rows with each job's
 * preemptions counted from its accounting events.
 */
#include "ctld/web/dashview.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL ? s : "";
}

static json_int_t int_of(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* o[key] += by, for an integer member (absent: 0). */
static void add_int(json_t *o, const char *key, json_int_t by)
{
    json_object_set_new(o, key, json_integer(int_of(o, key) + by));
}

int dashview_holds_gpus(const char *state)
{
    return state != NULL &&
           (strcmp(state, "RUNNING") == 0 || strcmp(state, "COMPLETING") == 0 ||
            strcmp(state, "SUSPENDED") == 0);
}

int64_t dashview_job_gpus(json_t *job)
{
    json_t *alloc = json_object_get(job, "gpu_alloc"), *idx;
    const char *t = str_of(job, "tres_req_str");
    const char *g = strstr(t, "gres/gpu=");
    const char *node;
    int64_t n = 0;

    if (json_is_object(alloc) && json_object_size(alloc) > 0) {
        json_object_foreach(alloc, node, idx)
        {
            n += (int64_t)json_array_size(idx);
        }
        return n;
    }
    return g != NULL ? strtoll(g + strlen("gres/gpu="), NULL, 10) : 0;
}

/* Whether a node in state may run jobs (for the totals). */
static int node_available(const char *state)
{
    static const char *const gone[] = {"DOWN", "DRAIN", "DRAINING", "INVALID",
                                       "UNKNOWN"};

    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        if (strcmp(state, gone[i]) == 0)
            return 0;
    return 1;
}

/* The GPU cells of one NODE, each holder found in holders ("node/index" ->
 * JOB); busy counted in *busy. */
static json_t *node_gpus(json_t *node, json_t *holders, json_int_t *busy)
{
    json_t *cells = json_array(), *gpu,
           *alloc = json_object_get(node, "gpus_alloc");
    const char *name = str_of(node, "name");
    size_t i, k;

    *busy = 0;
    json_array_foreach(json_object_get(node, "gpus"), i, gpu)
    {
        json_int_t index = int_of(gpu, "index");
        char key[300];
        json_t *job, *v;
        int listed = 0;

        snprintf(key, sizeof(key), "%s/%" JSON_INTEGER_FORMAT, name, index);
        job = json_object_get(holders, key);
        json_array_foreach(alloc, k, v)
        {
            if (json_integer_value(v) == index)
                listed = 1;
        }
        json_array_append_new(
            cells,
            json_pack(
                "{s:I, s:s, s:b, s:o, s:o, s:o, s:o}", "index", index, "type",
                str_of(gpu, "type"), "busy", job != NULL || listed, "job_id",
                job ? json_integer(int_of(job, "job_id")) : json_null(),
                "user_name",
                job ? json_string(str_of(job, "user_name")) : json_null(),
                "partition",
                job ? json_string(str_of(job, "partition")) : json_null(),
                "job_state",
                job ? json_string(str_of(job, "job_state")) : json_null()));
        if (job != NULL || listed)
            (*busy)++;
    }
    return cells;
}

/* "node/index" -> the JOB holding that GPU (borrowed). */
static json_t *gpu_holders(json_t *jobs)
{
    json_t *holders = json_object(), *job, *idx, *v;
    const char *node;
    size_t i, k;

    json_array_foreach(jobs, i, job)
    {
        if (!dashview_holds_gpus(str_of(job, "job_state")))
            continue;
        json_object_foreach(json_object_get(job, "gpu_alloc"), node, idx)
        {
            json_array_foreach(idx, k, v)
            {
                char key[300];
                snprintf(key, sizeof(key), "%s/%" JSON_INTEGER_FORMAT, node,
                         json_integer_value(v));
                json_object_set(holders, key, job);
            }
        }
    }
    return holders;
}

static json_t *node_view(json_t *node, json_t *holders, json_int_t *busy)
{
    json_t *cells = node_gpus(node, holders, busy);
    json_t *parts = json_object_get(node, "partitions");

    return json_pack(
        "{s:s, s:s, s:O, s:O, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "name",
        str_of(node, "name"), "state", str_of(node, "state"), "reason",
        json_object_get(node, "reason") ? json_object_get(node, "reason")
                                        : json_null(),
        "partitions", parts ? parts : json_null(), "connected",
        json_is_true(json_object_get(node, "connected")), "cpus",
        int_of(node, "cpus"), "cpus_alloc", int_of(node, "cpus_alloc"),
        "mem_mib", int_of(node, "mem_mib"), "mem_alloc_mib",
        int_of(node, "mem_alloc_mib"), "gpus_total",
        (json_int_t)json_array_size(cells), "gpus_busy", *busy, "gpus", cells);
}

static json_t *part_view(json_t *part)
{
    return json_pack(
        "{s:s, s:s, s:b, s:I, s:s, s:I, s:I, s:i, s:i, s:i, s:i, "
        "s:i, s:i, s:i, s:i}",
        "name", str_of(part, "name"), "state", str_of(part, "state"), "default",
        json_is_true(json_object_get(part, "default")), "priority_tier",
        int_of(part, "priority_tier"), "nodes", str_of(part, "nodes"),
        "total_nodes", int_of(part, "total_nodes"), "total_cpus",
        int_of(part, "total_cpus"), "gpus_total", 0, "gpus_busy", 0,
        "gpus_alloc", 0, "cpus_alloc", 0, "jobs_running", 0, "jobs_suspended",
        0, "jobs_pending", 0, "gpus_pending", 0);
}

/* Charge each job to its partition's view (by name in views). */
static void charge_jobs(json_t *views, json_t *jobs, json_t *totals)
{
    json_t *job;
    size_t i;

    json_array_foreach(jobs, i, job)
    {
        const char *state = str_of(job, "job_state");
        json_t *p = json_object_get(views, str_of(job, "partition"));
        int64_t gpus = dashview_job_gpus(job);

        if (strcmp(state, "PENDING") == 0) {
            add_int(totals, "jobs_pending", 1);
            if (p != NULL) {
                add_int(p, "jobs_pending", 1);
                add_int(p, "gpus_pending", gpus);
            }
        } else if (dashview_holds_gpus(state)) {
            const char *key = strcmp(state, "SUSPENDED") == 0 ? "jobs_suspended"
                                                              : "jobs_running";
            add_int(totals, key, 1);
            if (p != NULL) {
                add_int(p, key, 1);
                add_int(p, "gpus_alloc", gpus);
                add_int(p, "cpus_alloc", int_of(job, "cpus"));
            }
        }
    }
}

json_t *dashview_cluster(json_t *nodes, json_t *parts, json_t *jobs)
{
    json_t *holders = gpu_holders(jobs), *views = json_object();
    json_t *out_nodes = json_array(), *out_parts = json_array(), *totals;
    json_t *node, *part, *pn;
    size_t i, k;

    totals =
        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "nodes", 0,
                  "nodes_available", 0, "gpus_total", 0, "gpus_busy", 0,
                  "jobs_running", 0, "jobs_suspended", 0, "jobs_pending", 0);
    json_array_foreach(parts, i, part)
    {
        json_t *v = part_view(part);
        json_array_append_new(out_parts, v);
        json_object_set(views, str_of(part, "name"), v);
    }
    json_array_foreach(nodes, i, node)
    {
        json_int_t busy;
        json_t *v = node_view(node, holders, &busy);
        json_int_t total = int_of(v, "gpus_total");

        json_array_append_new(out_nodes, v);
        add_int(totals, "nodes", 1);
        add_int(totals, "nodes_available",
                node_available(str_of(node, "state")));
        add_int(totals, "gpus_total", total);
        add_int(totals, "gpus_busy", busy);
        json_array_foreach(json_object_get(node, "partitions"), k, pn)
        {
            json_t *p = json_object_get(views, json_string_value(pn));
            if (p != NULL) {
                add_int(p, "gpus_total", total);
                add_int(p, "gpus_busy", busy);
            }
        }
    }
    charge_jobs(views, jobs, totals);
    json_decref(holders);
    json_decref(views);
    return json_pack("{s:o, s:o, s:o}", "nodes", out_nodes, "partitions",
                     out_parts, "totals", totals);
}

static uint64_t preemptor_of(const char *detail)
{
    unsigned long long id;

    return sscanf(detail, "by job %llu", &id) == 1 ? id : 0;
}

json_t *dashview_preemptions(json_t *acct_jobs)
{
    json_t *out = json_object(), *job, *ev;
    size_t i, k;

    json_array_foreach(acct_jobs, i, job)
    {
        json_int_t n = 0, last_time = 0;
        uint64_t by = 0;
        char id[32];

        json_array_foreach(json_object_get(job, "events"), k, ev)
        {
            if (strcmp(str_of(ev, "event"), "preempt") != 0)
                continue;
            n++;
            by = preemptor_of(str_of(ev, "detail"));
            last_time = int_of(ev, "time");
        }
        if (n == 0)
            continue;
        snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT,
                 int_of(job, "job_id"));
        json_object_set_new(
            out, id,
            json_pack("{s:I, s:o, s:I}", "preemptions", n, "last_by",
                      by ? json_integer((json_int_t)by) : json_null(),
                      "last_time", last_time));
    }
    return out;
}

/* job[key], or null (a new reference either way). */
static json_t *member(json_t *job, const char *key)
{
    json_t *v = json_object_get(job, key);

    return v != NULL ? json_incref(v) : json_null();
}

static json_t *queue_row(json_t *job, json_t *preempted)
{
    static const char *const keys[] = {
        "job_id",        "array_job_id",  "array_task_id", "array_task_str",
        "name",          "user_name",     "account",       "qos",
        "partition",     "job_state",     "state_reason",  "state_description",
        "priority",      "submit_time",   "start_time",    "end_time",
        "time_limit_s",  "node_list",     "cpus",          "gpu_alloc",
        "tres_per_node", "restart_count", "hold",          "dependency",
    };
    json_t *row = json_object(), *p, *by;
    char id[32];

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        json_object_set_new(row, keys[i], member(job, keys[i]));
    json_object_set_new(row, "num_nodes", member(job, "nodes"));
    json_object_set_new(row, "gpus", json_integer(dashview_job_gpus(job)));
    snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT, int_of(job, "job_id"));
    p = preempted != NULL ? json_object_get(preempted, id) : NULL;
    json_object_set_new(row, "preemptions",
                        json_integer(p ? int_of(p, "preemptions") : 0));
    by = json_object_get(json_object_get(job, "preempted_by"), "job_id");
    json_object_set_new(row, "last_preempted_by",
                        json_is_integer(by) ? json_incref(by)
                        : p                 ? member(p, "last_by")
                                            : json_null());
    return row;
}

json_t *dashview_queue(json_t *jobs, json_t *preempted)
{
    json_t *rows = json_array(), *job;
    size_t i;

    json_array_foreach(jobs, i, job)
    {
        json_array_append_new(rows, queue_row(job, preempted));
    }
    return rows;
}

void dashview_add_pending(json_t *totals, json_t *parts, const char *part,
                          json_int_t n, json_int_t gpus)
{
    json_t *p;
    size_t i;

    add_int(totals, "jobs_pending", n);
    json_array_foreach(parts, i, p)
    {
        if (strcmp(str_of(p, "name"), part) == 0) {
            add_int(p, "jobs_pending", n);
            add_int(p, "gpus_pending", gpus);
            return;
        }
    }
}
