/*
 * Accounting history into a workload (history.h).
 */
#include "sim/history.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/value.h"

/* The next "name=value" item of a TRES string ("cpu=4,mem=16G,node=1,
 * gres/gpu=2,gres/gpu:h200=2") at *p into name and value (cut to their
 * buffers' sizes less one, NUL-terminated); false at the end. */
static bool tres_next(const char **p, char name[64], char value[32])
{
    const char *item = *p, *end, *eq;
    size_t len, nl;

    if (item == NULL || *item == '\0')
        return false;
    end = strchr(item, ',');
    len = end ? (size_t)(end - item) : strlen(item);
    *p = end ? end + 1 : NULL;
    eq = memchr(item, '=', len);
    nl = eq ? (size_t)(eq - item) : len;
    snprintf(name, 64, "%.*s", (int)nl, item);
    snprintf(value, 32, "%.*s", eq ? (int)(len - nl - 1) : 0, eq ? eq + 1 : "");
    return true;
}

/* The value of key in tres, 0 when absent or bad; memory in MiB. */
static uint64_t tres_get(const char *tres, const char *key)
{
    char name[64], value[32];
    uint64_t v;

    while (tres_next(&tres, name, value))
        if (strcmp(name, key) == 0)
            return (strcmp(key, "mem") == 0
                        ? value_parse_mem_mib(value, &v, NULL)
                        : value_parse_u64(value, 0, UINT32_MAX, &v, NULL)) < 0
                       ? 0
                       : v;
    return 0;
}

/* The type of a "gres/gpu:h200=2" item of tres ("h200", the trace's own
 * string); NULL when the job asked for any GPU. */
static const char *gpu_type(const char *tres, struct sim_trace *out)
{
    static const char key[] = "gres/gpu:";
    char name[64], value[32];

    while (tres_next(&tres, name, value))
        if (strncmp(name, key, sizeof(key) - 1) == 0 &&
            name[sizeof(key) - 1] != '\0')
            return sim_trace_intern(out, name + sizeof(key) - 1);
    return NULL;
}

static int64_t int_of(json_t *o, const char *k, int64_t dflt)
{
    json_t *v = json_object_get(o, k);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

static const char *str_of(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));

    return s != NULL && *s != '\0' ? s : NULL;
}

/* The first "start" event's time, else start_time. */
static int64_t first_start(json_t *j, int64_t start)
{
    json_t *ev;
    size_t i;

    json_array_foreach(json_object_get(j, "events"), i, ev)
    {
        const char *what = str_of(ev, "event");
        if (what != NULL && strcmp(what, "start") == 0)
            return int_of(ev, "time", start);
    }
    return start;
}

static int one(json_t *j, size_t idx, struct sim_trace *out, struct err *e)
{
    int64_t id = int_of(j, "job_id", -1), submit = int_of(j, "submit_time", -1);
    int64_t start = int_of(j, "start_time", -1),
            end = int_of(j, "end_time", -1);
    int64_t nodes = int_of(j, "nodes", 1), cpus = int_of(j, "cpus", 1);
    const char *tres = str_of(j, "req_tres");
    struct sim_job_in *in;

    if (!json_is_object(j) || id < 0)
        return err_inval(e, "%s: jobs[%zu]: expected a job with a job_id",
                         out->name, idx);
    if (submit < 0)
        return err_inval(e, "%s: job %lld: submit_time: expected a number",
                         out->name, (long long)id);
    if (start <= 0 || end < start) {
        out->skipped++; /* never ran, or runs still */
        return 0;
    }
    in = sim_trace_add(out);
    in->id = (uint64_t)id;
    in->line = (uint32_t)idx + 1;
    in->submit = (time_t)submit;
    in->rec_start = (time_t)first_start(j, start);
    in->has_rec = true;
    in->run_s = end - start;
    in->limit_s = int_of(j, "time_limit_s", 0);
    in->part = sim_trace_intern(out, str_of(j, "partition"));
    in->user = sim_trace_intern(
        out, str_of(j, "user_name") ? str_of(j, "user_name") : "root");
    in->account = sim_trace_intern(out, str_of(j, "account"));
    in->qos = sim_trace_intern(out, str_of(j, "qos"));
    in->nodes = nodes > 0 && nodes < 65536 ? (uint32_t)nodes : 1;
    in->cpus_per_node =
        (uint32_t)(cpus > 0 ? (cpus + in->nodes - 1) / in->nodes : 1);
    in->gpus_per_node = (uint32_t)(tres_get(tres, "gres/gpu") / in->nodes);
    if (in->gpus_per_node > 0)
        in->gpu_type = gpu_type(tres, out);
    in->mem_per_node_mib = tres_get(tres, "mem") / in->nodes;
    in->no_requeue = json_is_false(json_object_get(j, "requeue"));
    return 0;
}

int sim_history_jobs(json_t *jobs, struct sim_trace *out, struct err *e)
{
    json_t *j;
    size_t i;

    if (!json_is_array(jobs))
        return err_inval(e, "%s: expected {\"jobs\": [...]}", out->name);
    json_array_foreach(jobs, i, j)
    {
        if (one(j, i, out, e) < 0)
            return -1;
    }
    return 0;
}

int sim_history_parse(const char *buf, size_t len, const char *name,
                      struct sim_trace *out, struct err *e)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je), *jobs;
    int rc;

    (void)name;
    if (root == NULL)
        return err_inval(e, "%s:%d: %s", out->name, je.line, je.text);
    jobs = json_is_array(root) ? root : json_object_get(root, "jobs");
    rc = sim_history_jobs(jobs, out, e);
    json_decref(root);
    return rc;
}
