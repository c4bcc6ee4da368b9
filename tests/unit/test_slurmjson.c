/*
 * Unit tests for slurmjson.h: fixed Sluice JOB, NODE, PART and ACCT_JOB
 * objects become Slurm 22.05's v0.0.38 objects, field for field, with the
 * types tools rely on (integers, strings, lists, objects, null).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/slurmjson.h"

static const struct slurmjson_ctx ctx = {"quant", 2000};

/* What a key must hold: its type and, for scalars, its value as JSON. */
struct want {
    const char *path; /* "time.elapsed": object keys joined by '.' */
    json_type type;
    const char *value; /* compact JSON, or NULL: the type only */
};

static json_t *get_path(json_t *o, const char *path)
{
    char buf[128], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && o;
         k = strtok_r(NULL, ".", &save))
        o = json_object_get(o, k);
    return o;
}

static void check(json_t *o, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *v = get_path(o, w[i].path);
        if (v == NULL)
            fail_msg("%s is missing", w[i].path);
        if (json_typeof(v) != w[i].type)
            fail_msg("%s has type %d, not %d", w[i].path, json_typeof(v),
                     w[i].type);
        if (w[i].value != NULL) {
            char *got = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            if (strcmp(got, w[i].value) != 0)
                fail_msg("%s is %s, not %s", w[i].path, got, w[i].value);
            free(got);
        }
    }
}

#define CHECK(o, w) check(o, w, sizeof(w) / sizeof(*(w)))

static json_t *running_job(void)
{
    return json_pack(
        "{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:s, s:i, "
        "s:i, s:i, s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:b, s:i, s:n, s:n, s:s, "
        "s:s, s:s, s:s, s:[s], s:{s:[i]}, s:n}",
        "job_id", 42, "name", "train", "partition", "gpu", "time_limit_s", 3600,
        "cpus_per_task", 2, "ntasks", 2, "nodes", 2, "mem_mib", 4096, "cpus", 4,
        "work_dir", "/home/u", "account", "research", "user_name", "zhang",
        "user_id", 1000, "group_id", 100, "submit_time", 1000, "start_time",
        1500, "job_state", "RUNNING", "state_reason", "None", "exit_code",
        "return_code", 0, "signal", 0, "priority", 77, "requeue", 1,
        "restart_count", 1, "array_job_id", "array_task_id", "node_list",
        "node[01-02]", "batch_host", "node01", "tres_req_str",
        "cpu=4,mem=8G,node=2,billing=4,gres/gpu=2", "tres_per_node",
        "gres:gpu:1", "gres_detail", "gpu:1(IDX:0)", "gpu_alloc", "node01", 0,
        "last_checkpoint");
}

static void test_job(void **state)
{
    json_t *job = running_job(), *o;
    static const struct want w[] = {
        {"job_id", JSON_INTEGER, "42"},
        {"name", JSON_STRING, "\"train\""},
        {"job_state", JSON_STRING, "\"RUNNING\""},
        {"state_reason", JSON_STRING, "\"None\""},
        {"state_description", JSON_STRING, "\"\""},
        {"partition", JSON_STRING, "\"gpu\""},
        {"account", JSON_STRING, "\"research\""},
        {"user_id", JSON_INTEGER, "1000"},
        {"user_name", JSON_STRING, "\"zhang\""},
        {"group_id", JSON_INTEGER, "100"},
        {"cluster", JSON_STRING, "\"quant\""},
        {"nodes", JSON_STRING, "\"node[01-02]\""},
        {"batch_host", JSON_STRING, "\"node01\""},
        {"batch_flag", JSON_TRUE, NULL},
        {"time_limit", JSON_INTEGER, "60"},
        {"time_minimum", JSON_INTEGER, "0"},
        {"submit_time", JSON_INTEGER, "1000"},
        {"start_time", JSON_INTEGER, "1500"},
        {"end_time", JSON_INTEGER, "5100"}, /* start + limit */
        {"eligible_time", JSON_INTEGER, "0"},
        {"cpus", JSON_INTEGER, "4"},
        {"node_count", JSON_INTEGER, "2"},
        {"tasks", JSON_INTEGER, "2"},
        {"cpus_per_task", JSON_INTEGER, "2"},
        {"memory_per_node", JSON_INTEGER, "4096"},
        {"memory_per_cpu", JSON_NULL, NULL},
        {"billable_tres", JSON_REAL, "4.0"},
        {"priority", JSON_INTEGER, "77"},
        {"nice", JSON_INTEGER, "0"},
        {"requeue", JSON_TRUE, NULL},
        {"restart_cnt", JSON_INTEGER, "1"},
        {"exit_code", JSON_INTEGER, "0"},
        {"derived_exit_code", JSON_INTEGER, "0"},
        {"array_job_id", JSON_INTEGER, "0"},
        {"array_task_id", JSON_NULL, NULL},
        {"array_task_string", JSON_STRING, "\"\""},
        {"comment", JSON_STRING, "\"\""},
        {"wckey", JSON_STRING, "\"\""},
        {"current_working_directory", JSON_STRING, "\"/home/u\""},
        {"tres_req_str", JSON_STRING,
         "\"cpu=4,mem=8G,node=2,billing=4,gres/gpu=2\""},
        {"tres_alloc_str", JSON_STRING, "\"\""},
        {"tres_per_node", JSON_STRING, "\"gres:gpu:1\""},
        {"gres_detail", JSON_ARRAY, "[\"gpu:1(IDX:0)\"]"},
        {"flags", JSON_ARRAY, "[]"},
        {"cores_per_socket", JSON_NULL, NULL},
        {"job_resources.nodes", JSON_STRING, "\"node[01-02]\""},
        {"job_resources.allocated_hosts", JSON_INTEGER, "2"},
        {"job_resources.allocated_cores", JSON_INTEGER, "4"},
        {"job_resources.allocated_nodes", JSON_ARRAY, NULL},
        {"sluice.gpu_alloc", JSON_OBJECT, "{\"node01\":[0]}"},
        {"sluice.last_checkpoint", JSON_NULL, NULL},
        {"sluice.time_limit_s", JSON_INTEGER, "3600"},
    };

    (void)state;
    o = slurmjson_job(job, &ctx);
    CHECK(o, w);
    /* the second node of the allocation, by name, with its half */
    json_t *n1 =
        json_array_get(get_path(o, "job_resources.allocated_nodes"), 1);
    assert_string_equal(json_string_value(json_object_get(n1, "nodename")),
                        "node02");
    assert_int_equal(json_integer_value(json_object_get(n1, "cpus")), 2);
    /* the Sluice object is not changed */
    assert_null(json_object_get(job, "sluice"));
    json_decref(o);
    json_decref(job);
}

static void test_job_pending_and_empty(void **state)
{
    json_t *job = json_pack(
        "{s:i, s:s, s:n, s:i, s:i, s:s, s:s, s:{s:i, s:i}, s:s, s:i, s:s, "
        "s:s}",
        "job_id", 7, "job_state", "PENDING", "time_limit_s", "array_job_id", 5,
        "array_task_id", 2, "state_reason", "Priority", "comment", "c",
        "exit_code", "return_code", 3, "signal", 9, "mem_per_cpu_mib", "x",
        "deadline", 99, "exclusive", "user", "alloc", "salloc");
    json_t *o, *empty = json_object();
    static const struct want w[] = {
        {"time_limit", JSON_NULL, NULL}, /* UNLIMITED */
        {"array_job_id", JSON_INTEGER, "5"},
        {"array_task_id", JSON_INTEGER, "2"},
        {"comment", JSON_STRING, "\"c\""},
        {"exit_code", JSON_INTEGER, "777"}, /* 3 << 8 | 9 */
        {"memory_per_cpu", JSON_NULL, NULL},
        {"deadline", JSON_INTEGER, "99"},
        {"shared", JSON_STRING, "\"user\""},
        {"batch_flag", JSON_FALSE, NULL},
        {"job_resources.nodes", JSON_STRING, "\"\""},
        {"job_resources.allocated_nodes", JSON_ARRAY, "[]"},
        {"end_time", JSON_INTEGER, "0"},
        {"sluice.alloc", JSON_STRING, "\"salloc\""},
    };
    static const struct want none[] = {
        {"job_id", JSON_INTEGER, "0"},    {"name", JSON_STRING, "\"\""},
        {"cluster", JSON_STRING, "\"\""}, {"gres_detail", JSON_ARRAY, "[]"},
        {"sluice", JSON_OBJECT, "{}"},    {"cpus_per_task", JSON_INTEGER, "1"},
    };

    (void)state;
    o = slurmjson_job(job, &ctx);
    CHECK(o, w);
    json_decref(o);
    o = slurmjson_job(empty, NULL); /* every key absent: empty values */
    CHECK(o, none);
    json_decref(o);
    json_decref(empty);
    json_decref(job);
}

static void test_node(void **state)
{
    json_t *node = json_pack(
        "{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:[s, s], s:s, s:i, s:s, "
        "s:s, s:[i]}",
        "name", "node01", "state", "DRAINING", "reason", "maintenance",
        "reason_time", 1234, "cpus", 8, "cpus_alloc", 8, "mem_mib", 64000,
        "gres", "gpu:4", "partitions", "gpu", "dev", "addr", "10.0.0.1:6818",
        "mem_alloc_mib", 1000, "features", "a100,ib", "tres",
        "cpu=8,mem=64000M,billing=8,gres/gpu=4", "jobs", 42);
    json_t *o;
    static const struct want w[] = {
        {"name", JSON_STRING, "\"node01\""},
        {"hostname", JSON_STRING, "\"node01\""},
        {"address", JSON_STRING, "\"10.0.0.1:6818\""},
        {"port", JSON_INTEGER, "6818"},
        {"state", JSON_STRING, "\"allocated\""},
        {"state_flags", JSON_ARRAY, "[\"DRAIN\"]"},
        {"reason", JSON_STRING, "\"maintenance\""},
        {"reason_changed_at", JSON_INTEGER, "1234"},
        {"reason_set_by_user", JSON_STRING, "\"\""},
        {"cpus", JSON_INTEGER, "8"},
        {"alloc_cpus", JSON_INTEGER, "8"},
        {"idle_cpus", JSON_INTEGER, "0"},
        {"real_memory", JSON_INTEGER, "64000"},
        {"alloc_memory", JSON_INTEGER, "1000"},
        {"free_memory", JSON_INTEGER, "63000"},
        {"sockets", JSON_INTEGER, "8"},
        {"cores", JSON_INTEGER, "1"},
        {"threads", JSON_INTEGER, "1"},
        {"boards", JSON_INTEGER, "1"},
        {"weight", JSON_INTEGER, "1"},
        {"temporary_disk", JSON_INTEGER, "0"},
        {"gres", JSON_STRING, "\"gpu:4\""},
        {"features", JSON_STRING, "\"a100,ib\""},
        {"active_features", JSON_STRING, "\"a100,ib\""},
        {"partitions", JSON_ARRAY, "[\"gpu\",\"dev\"]"},
        {"tres", JSON_STRING, "\"cpu=8,mem=64000M,billing=8,gres/gpu=4\""},
        {"tres_weighted", JSON_REAL, "8.0"},
        {"boot_time", JSON_INTEGER, "0"},
        {"sluice.state", JSON_STRING, "\"DRAINING\""},
        {"sluice.jobs", JSON_ARRAY, "[42]"},
    };
    static const struct {
        const char *sluice, *base, *flags;
    } states[] = {
        {"IDLE", "\"idle\"", "[]"},
        {"MIXED", "\"mixed\"", "[]"},
        {"DRAIN", "\"idle\"", "[\"DRAIN\"]"},
        {"DOWN", "\"down\"", "[]"},
        {"INVALID", "\"down\"", "[\"INVALID_REG\"]"},
        {"UNKNOWN", "\"unknown\"", "[]"},
    };

    (void)state;
    o = slurmjson_node(node, &ctx);
    CHECK(o, w);
    json_decref(o);
    for (size_t i = 0; i < sizeof(states) / sizeof(*states); i++) {
        struct want s[] = {{"state", JSON_STRING, states[i].base},
                           {"state_flags", JSON_ARRAY, states[i].flags}};
        json_object_set_new(node, "state", json_string(states[i].sluice));
        o = slurmjson_node(node, &ctx);
        CHECK(o, s);
        json_decref(o);
    }
    json_decref(node);
}

static void test_partition(void **state)
{
    json_t *part = json_pack(
        "{s:s, s:s, s:b, s:s, s:i, s:i, s:n, s:i, s:i, s:i, s:n, s:i, s:b, "
        "s:s}",
        "name", "gpu", "state", "UP", "default", 1, "nodes", "node[01-04]",
        "total_nodes", 4, "total_cpus", 32, "max_time_s", "default_time_s",
        3600, "priority_tier", 2, "priority_job_factor", 1, "max_nodes",
        "min_nodes", 1, "exclusive_user", 1, "qos", "gpuqos");
    json_t *o;
    static const struct want w[] = {
        {"name", JSON_STRING, "\"gpu\""},
        {"state", JSON_STRING, "\"UP\""},
        {"nodes", JSON_STRING, "\"node[01-04]\""},
        {"flags", JSON_ARRAY, "[\"default\",\"exclusive_user\"]"},
        {"preemption_mode", JSON_ARRAY, "[\"disabled\"]"},
        {"total_nodes", JSON_INTEGER, "4"},
        {"total_cpus", JSON_INTEGER, "32"},
        {"max_time_limit", JSON_INTEGER, "-1"},
        {"default_time_limit", JSON_INTEGER, "60"},
        {"maximum_nodes_per_job", JSON_INTEGER, "-1"},
        {"min_nodes_per_job", JSON_INTEGER, "1"},
        {"priority_tier", JSON_INTEGER, "2"},
        {"priority_job_factor", JSON_INTEGER, "1"},
        {"qos", JSON_STRING, "\"gpuqos\""},
        {"allowed_accounts", JSON_STRING, "\"\""},
        {"tres", JSON_STRING, "\"cpu=32,node=4,billing=32\""},
        {"over_time_limit", JSON_NULL, NULL},
        {"sluice.default_time_s", JSON_INTEGER, "3600"},
    };

    (void)state;
    o = slurmjson_partition(part, &ctx);
    CHECK(o, w);
    json_decref(o);
    json_decref(part);
}

static json_t *acct_job(void)
{
    return json_pack(
        "{s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:i, "
        "s:i, s:i, s:{s:i, s:i}, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, "
        "s:[{s:I, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:s, s:i, s:i, "
        "s:{s:i, s:i}}], s:[{s:i, s:s}]}",
        "job_id", 9, "name", "sweep", "partition", "dev", "account", "res",
        "user_name", "zhang", "user_id", 1000, "cancelled_by", 1000, "qos",
        "normal", "job_state", "CANCELLED", "submit_time", 100, "eligible_time",
        100, "start_time", 110, "end_time", 170, "time_limit_s", 120, "cpus", 2,
        "exit_code", "return_code", 0, "signal", 15, "state_reason", "None",
        "node_list", "node01", "tres_alloc_str",
        "cpu=2,mem=1G,node=1,billing=2", "nodes", 1, "mem_mib", 1024,
        "priority", 5, "wckey", "submitit", "comment", "sweep 3", "steps",
        "step_id", (json_int_t)4294967291u, "name", "batch", "state",
        "CANCELLED", "start_time", 110, "end_time", 170, "nodes", "node01",
        "num_nodes", 1, "ntasks", 1, "tres", "cpu=2,node=1", "exit_code", 0,
        "signal", 15, "usage", "user_cpu_us", 2500000, "sys_cpu_us", 500000,
        "events", "time", 100, "event", "submit");
}

static void test_acct_job(void **state)
{
    json_t *job = acct_job(), *o;
    static const struct want w[] = {
        {"job_id", JSON_INTEGER, "9"},
        {"name", JSON_STRING, "\"sweep\""},
        {"user", JSON_STRING, "\"zhang\""},
        {"account", JSON_STRING, "\"res\""},
        {"cluster", JSON_STRING, "\"quant\""},
        {"partition", JSON_STRING, "\"dev\""},
        {"qos", JSON_STRING, "\"normal\""},
        {"nodes", JSON_STRING, "\"node01\""},
        {"allocation_nodes", JSON_INTEGER, "1"},
        {"priority", JSON_INTEGER, "5"},
        {"state.current", JSON_STRING, "\"CANCELLED\""},
        {"state.reason", JSON_STRING, "\"None\""},
        {"time.elapsed", JSON_INTEGER, "60"},
        {"time.submission", JSON_INTEGER, "100"},
        {"time.eligible", JSON_INTEGER, "100"},
        {"time.start", JSON_INTEGER, "110"},
        {"time.end", JSON_INTEGER, "170"},
        {"time.suspended", JSON_INTEGER, "0"},
        {"time.limit", JSON_INTEGER, "2"},
        {"time.user", JSON_OBJECT, "{\"seconds\":2,\"microseconds\":500000}"},
        {"time.system.seconds", JSON_INTEGER, "0"},
        {"time.total.seconds", JSON_INTEGER, "3"},
        {"exit_code.status", JSON_STRING, "\"SIGNALED\""},
        {"exit_code.return_code", JSON_INTEGER, "0"},
        {"exit_code.signal.signal_id", JSON_INTEGER, "15"},
        {"exit_code.signal.name", JSON_STRING, "\"TERM\""},
        {"derived_exit_code.status", JSON_STRING, "\"SIGNALED\""},
        {"array.job_id", JSON_INTEGER, "0"},
        {"array.task_id", JSON_NULL, NULL},
        {"array.task", JSON_STRING, "\"\""},
        {"array.limits.max.running.tasks", JSON_INTEGER, "0"},
        {"association.account", JSON_STRING, "\"res\""},
        {"association.cluster", JSON_STRING, "\"quant\""},
        {"association.partition", JSON_STRING, "\"dev\""},
        {"association.user", JSON_STRING, "\"zhang\""},
        {"required.CPUs", JSON_INTEGER, "2"},
        {"required.memory", JSON_INTEGER, "1024"},
        {"comment.job", JSON_STRING, "\"sweep 3\""},
        {"wckey.wckey", JSON_STRING, "\"submitit\""},
        {"wckey.flags", JSON_ARRAY, "[]"},
        {"kill_request_user", JSON_STRING, "\"zhang\""},
        {"tres.allocated", JSON_ARRAY,
         "[{\"type\":\"cpu\",\"name\":\"\",\"id\":1,\"count\":2},"
         "{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":1024},"
         "{\"type\":\"node\",\"name\":\"\",\"id\":4,\"count\":1},"
         "{\"type\":\"billing\",\"name\":\"\",\"id\":5,\"count\":2}]"},
        {"tres.requested", JSON_ARRAY, "[]"},
        {"steps", JSON_ARRAY, NULL},
        {"sluice.events", JSON_ARRAY, NULL},
        {"sluice.restart_count", JSON_INTEGER, "0"},
    };
    static const struct want step[] = {
        {"step.id", JSON_STRING, "\"batch\""},
        {"step.name", JSON_STRING, "\"batch\""},
        {"step.job_id", JSON_INTEGER, "9"},
        {"state", JSON_STRING, "\"CANCELLED\""},
        {"time.elapsed", JSON_INTEGER, "60"},
        {"time.start", JSON_INTEGER, "110"},
        {"time.user.seconds", JSON_INTEGER, "2"},
        {"exit_code.status", JSON_STRING, "\"SIGNALED\""},
        {"nodes.count", JSON_INTEGER, "1"},
        {"nodes.range", JSON_STRING, "\"node01\""},
        {"tasks.count", JSON_INTEGER, "1"},
        {"tres.allocated", JSON_ARRAY, NULL},
        {"tres.requested.max", JSON_ARRAY, "[]"},
    };

    (void)state;
    o = slurmjson_acct_job(job, &ctx);
    CHECK(o, w);
    assert_int_equal(json_array_size(json_object_get(o, "steps")), 1);
    check(json_array_get(json_object_get(o, "steps"), 0), step,
          sizeof(step) / sizeof(*step));
    json_decref(o);
    json_decref(job);
}

static void test_acct_pending_and_batch(void **state)
{
    /* a pending job: no node, no steps; a started one without STEP
     * records gets its batch step made from the job */
    json_t *p =
        json_pack("{s:i, s:s, s:{s:i, s:i}}", "job_id", 3, "job_state",
                  "PENDING", "exit_code", "return_code", 0, "signal", 0);
    json_t *r = json_pack("{s:i, s:s, s:s, s:s, s:i, s:{s:i, s:i}}", "job_id",
                          4, "job_state", "FAILED", "node_list", "node02",
                          "batch_host", "node02", "start_time", 1000,
                          "exit_code", "return_code", 3, "signal", 0);
    json_t *o;
    static const struct want wp[] = {
        {"nodes", JSON_STRING, "\"None assigned\""},
        {"steps", JSON_ARRAY, "[]"},
        {"time.elapsed", JSON_INTEGER, "0"},
        {"time.limit", JSON_NULL, NULL},
        {"exit_code.status", JSON_STRING, "\"SUCCESS\""},
    };
    static const struct want wr[] = {
        {"time.elapsed", JSON_INTEGER, "1000"}, /* running until now */
        {"exit_code.status", JSON_STRING, "\"FAILED\""},
        {"exit_code.return_code", JSON_INTEGER, "3"},
    };

    (void)state;
    o = slurmjson_acct_job(p, &ctx);
    CHECK(o, wp);
    assert_null(json_object_get(json_object_get(o, "exit_code"), "signal"));
    json_decref(o);
    o = slurmjson_acct_job(r, &ctx);
    CHECK(o, wr);
    json_t *b = json_array_get(json_object_get(o, "steps"), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(b, "step"), "id")),
        "batch");
    assert_string_equal(json_string_value(json_object_get(b, "state")),
                        "FAILED");
    json_decref(o);
    json_decref(p);
    json_decref(r);
}

static void test_tres_list(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {NULL, "[]"},
        {"", "[]"},
        {"cpu=4", "[{\"type\":\"cpu\",\"name\":\"\",\"id\":1,\"count\":4}]"},
        {"mem=2G",
         "[{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":2048}]"},
        {"mem=512K", "[{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":1}]"},
        {"gres/gpu:a100=2",
         "[{\"type\":\"gres\",\"name\":\"gpu:a100\",\"id\":1001,\"count\":2}]"},
        {"bogus,node=1",
         "[{\"type\":\"node\",\"name\":\"\",\"id\":4,\"count\":1}]"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        json_t *l = slurmjson_tres_list(cases[i].in);
        char *s = json_dumps(l, JSON_COMPACT);
        assert_string_equal(s, cases[i].out);
        free(s);
        json_decref(l);
    }
}

static void test_response(void **state)
{
    json_t *r = slurmjson_response(SLURMJSON_DBD, "jobs", NULL);
    static const struct want w[] = {
        {"meta.plugin.type", JSON_STRING, "\"openapi/dbv0.0.38\""},
        {"meta.plugin.name", JSON_STRING, "\"Slurm OpenAPI DB v0.0.38\""},
        {"meta.Slurm.version.major", JSON_INTEGER, "22"},
        {"meta.Slurm.version.minor", JSON_INTEGER, "5"},
        {"meta.Slurm.release", JSON_STRING, NULL},
        {"errors", JSON_ARRAY, "[]"},
        {"jobs", JSON_ARRAY, "[]"},
    };

    (void)state;
    CHECK(r, w);
    json_decref(r);
    r = slurmjson_response(SLURMJSON_CTLD, "nodes", json_array());
    assert_string_equal(json_string_value(get_path(r, "meta.plugin.type")),
                        "openapi/v0.0.38");
    assert_true(json_is_array(json_object_get(r, "nodes")));
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_job_pending_and_empty),
        cmocka_unit_test(test_node),
        cmocka_unit_test(test_partition),
        cmocka_unit_test(test_acct_job),
        cmocka_unit_test(test_acct_pending_and_batch),
        cmocka_unit_test(test_tres_list),
        cmocka_unit_test(test_response),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
