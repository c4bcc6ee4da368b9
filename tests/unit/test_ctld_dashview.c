/*
 * Unit tests for ctld/web/dashview (the dashboard's GPU map, partition
 * load and queue rows) on hand-made NODE, PART and JOB objects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "ctld/web/dashview.h"

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);

    if (v == NULL)
        fail_msg("bad test JSON: %s", je.text);
    return v;
}

/* Two nodes of 4 GPUs; prod on node01, dev on both; job 7 (prod) holds
 * node01's GPUs 1-2, job 8 (dev, suspended) node02's 0, job 9 (dev) waits
 * for 2, job 10 (dev) ended; node02 lists GPU 3 allocated to no job. */
static const char nodes_json[] =
    "[{\"name\": \"node01\", \"state\": \"MIXED\", \"partitions\": [\"prod\", "
    "\"dev\"], \"connected\": true, \"cpus\": 16, \"cpus_alloc\": 2,"
    " \"gpus\": [{\"index\": 0, \"type\": \"\"}, {\"index\": 1, \"type\": "
    "\"\"}, {\"index\": 2, \"type\": \"\"}, {\"index\": 3, \"type\": \"\"}],"
    " \"gpus_alloc\": [1, 2]},"
    " {\"name\": \"node02\", \"state\": \"DRAIN\", \"reason\": \"disk\","
    " \"partitions\": [\"dev\"], \"connected\": true, \"cpus\": 16,"
    " \"gpus\": [{\"index\": 0, \"type\": \"a100\"}, {\"index\": 1, \"type\": "
    "\"a100\"}, {\"index\": 2, \"type\": \"a100\"}, {\"index\": 3, \"type\": "
    "\"a100\"}], \"gpus_alloc\": [0, 3]}]";
static const char parts_json[] =
    "[{\"name\": \"prod\", \"state\": \"UP\", \"priority_tier\": 100,"
    " \"nodes\": \"node01\", \"total_nodes\": 1, \"total_cpus\": 16},"
    " {\"name\": \"dev\", \"state\": \"UP\", \"default\": true,"
    " \"priority_tier\": 10, \"nodes\": \"node[01-02]\", \"total_nodes\": 2,"
    " \"total_cpus\": 32}]";
static const char jobs_json[] =
    "[{\"job_id\": 7, \"user_name\": \"zhangsan\", \"partition\": \"prod\","
    " \"job_state\": \"RUNNING\", \"cpus\": 2,"
    " \"tres_req_str\": \"cpu=2,node=1,billing=2,gres/gpu=2\","
    " \"gpu_alloc\": {\"node01\": [1, 2]}},"
    " {\"job_id\": 8, \"user_name\": \"lisi\", \"partition\": \"dev\","
    " \"job_state\": \"SUSPENDED\", \"cpus\": 1,"
    " \"gpu_alloc\": {\"node02\": [0]}, \"restart_count\": 1,"
    " \"preempted_by\": {\"job_id\": 7, \"partition\": \"prod\"}},"
    " {\"job_id\": 9, \"user_name\": \"lisi\", \"partition\": \"dev\","
    " \"job_state\": \"PENDING\", \"state_reason\": \"Resources\","
    " \"tres_req_str\": \"cpu=1,node=1,billing=1,gres/gpu=2\", \"gpu_alloc\": "
    "null},"
    " {\"job_id\": 10, \"user_name\": \"lisi\", \"partition\": \"dev\","
    " \"job_state\": \"COMPLETED\", \"gpu_alloc\": {\"node01\": [0]}}]";

static json_t *cell(json_t *view, size_t node, size_t gpu)
{
    return json_array_get(
        json_object_get(json_array_get(json_object_get(view, "nodes"), node),
                        "gpus"),
        gpu);
}

static json_int_t geti(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        fail_msg("%s is not an integer", key);
    return json_integer_value(v);
}

static void test_gpu_map(void **state)
{
    json_t *nodes = load(nodes_json), *parts = load(parts_json);
    json_t *jobs = load(jobs_json);
    json_t *v = dashview_cluster(nodes, parts, jobs), *c;
    static const struct {
        size_t node, gpu;
        int busy;
        json_int_t job; /* 0: none */
        const char *part;
    } want[] = {
        {0, 0, 0, 0, NULL}, /* job 10 ended: its old GPU is free */
        {0, 1, 1, 7, "prod"},
        {0, 2, 1, 7, "prod"},
        {0, 3, 0, 0, NULL},
        {1, 0, 1, 8, "dev"}, /* suspended: keeps its GPU */
        {1, 1, 0, 0, NULL},
        {1, 2, 0, 0, NULL},
        {1, 3, 1, 0, NULL}, /* allocated, holder unknown */
    };

    (void)state;
    assert_non_null(v);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        c = cell(v, want[i].node, want[i].gpu);
        assert_non_null(c);
        assert_int_equal(geti(c, "index"), (json_int_t)want[i].gpu);
        assert_int_equal(json_is_true(json_object_get(c, "busy")),
                         want[i].busy);
        if (want[i].job == 0) {
            assert_true(json_is_null(json_object_get(c, "job_id")));
            continue;
        }
        assert_int_equal(geti(c, "job_id"), want[i].job);
        assert_string_equal(json_string_value(json_object_get(c, "partition")),
                            want[i].part);
    }
    assert_string_equal(
        json_string_value(json_object_get(cell(v, 1, 0), "user_name")), "lisi");
    assert_string_equal(
        json_string_value(json_object_get(cell(v, 1, 2), "type")), "a100");
    json_decref(v);
    json_decref(nodes);
    json_decref(parts);
    json_decref(jobs);
}

static void test_loads(void **state)
{
    json_t *nodes = load(nodes_json), *parts = load(parts_json);
    json_t *jobs = load(jobs_json);
    json_t *v = dashview_cluster(nodes, parts, jobs);
    json_t *prod = json_array_get(json_object_get(v, "partitions"), 0);
    json_t *dev = json_array_get(json_object_get(v, "partitions"), 1);
    json_t *tot = json_object_get(v, "totals");
    json_t *n1 = json_array_get(json_object_get(v, "nodes"), 1);

    (void)state;
    assert_string_equal(json_string_value(json_object_get(prod, "name")),
                        "prod");
    assert_int_equal(geti(prod, "gpus_total"), 4);
    assert_int_equal(geti(prod, "gpus_busy"), 2);
    assert_int_equal(geti(prod, "gpus_alloc"), 2);
    assert_int_equal(geti(prod, "jobs_running"), 1);
    assert_int_equal(geti(prod, "cpus_alloc"), 2);
    assert_int_equal(geti(dev, "gpus_total"), 8); /* both nodes */
    assert_int_equal(geti(dev, "gpus_busy"), 4);  /* anyone's jobs */
    assert_int_equal(geti(dev, "gpus_alloc"), 1); /* its own */
    assert_int_equal(geti(dev, "jobs_suspended"), 1);
    assert_int_equal(geti(dev, "jobs_pending"), 1);
    assert_int_equal(geti(dev, "gpus_pending"), 2);
    assert_true(json_is_true(json_object_get(dev, "default")));
    assert_int_equal(geti(tot, "gpus_total"), 8);
    assert_int_equal(geti(tot, "gpus_busy"), 4);
    assert_int_equal(geti(tot, "nodes_available"), 1); /* node02 drained */
    assert_int_equal(geti(tot, "jobs_running"), 1);
    assert_int_equal(geti(tot, "jobs_pending"), 1);
    assert_string_equal(json_string_value(json_object_get(n1, "reason")),
                        "disk");
    assert_int_equal(geti(n1, "gpus_busy"), 2);
    json_decref(v);
    json_decref(nodes);
    json_decref(parts);
    json_decref(jobs);
}

static void test_queue(void **state)
{
    json_t *jobs = load(jobs_json);
    json_t *acct = load(
        "[{\"job_id\": 8, \"events\": [{\"time\": 10, \"event\": \"start\"},"
        " {\"time\": 20, \"event\": \"preempt\", \"detail\": \"by job 5 "
        "mode=REQUEUE grace=0\"}, {\"time\": 21, \"event\": \"requeue\"},"
        " {\"time\": 30, \"event\": \"preempt\", \"detail\": \"by job 7 "
        "mode=SUSPEND\"}]},"
        " {\"job_id\": 9, \"events\": [{\"time\": 5, \"event\": "
        "\"submit\"}]}]");
    json_t *pre = dashview_preemptions(acct), *rows, *r;

    (void)state;
    assert_int_equal(json_object_size(pre), 1); /* job 9: never preempted */
    assert_int_equal(geti(json_object_get(pre, "8"), "preemptions"), 2);
    assert_int_equal(geti(json_object_get(pre, "8"), "last_by"), 7);
    assert_int_equal(geti(json_object_get(pre, "8"), "last_time"), 30);
    rows = dashview_queue(jobs, pre);
    assert_int_equal(json_array_size(rows), 4);
    r = json_array_get(rows, 1);
    assert_int_equal(geti(r, "job_id"), 8);
    assert_int_equal(geti(r, "preemptions"), 2);
    assert_int_equal(geti(r, "last_preempted_by"), 7);
    assert_int_equal(geti(r, "gpus"), 1); /* from its allocation */
    r = json_array_get(rows, 2);
    assert_int_equal(geti(r, "gpus"), 2); /* from its request */
    assert_int_equal(geti(r, "preemptions"), 0);
    assert_true(json_is_null(json_object_get(r, "last_preempted_by")));
    assert_string_equal(json_string_value(json_object_get(r, "state_reason")),
                        "Resources");
    json_decref(rows);
    rows = dashview_queue(jobs, NULL);
    assert_int_equal(geti(json_array_get(rows, 1), "preemptions"), 0);
    json_decref(rows);
    json_decref(pre);
    json_decref(acct);
    json_decref(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_map),
        cmocka_unit_test(test_loads),
        cmocka_unit_test(test_queue),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
