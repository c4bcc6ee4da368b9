/*
 * Unit tests for what slurmjson.h adds for the REST API: slurmrestd's job
 * descriptions into JOBSPEC and JOB_UPDATE (every field, and the 400s
 * that name a field), signal names, and the reservation, diag, QOS,
 * association, user and account objects in Slurm's shapes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/slurmjson.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);

    if (v == NULL)
        fail_msg("bad test JSON %s: %s", text, je.text);
    return v;
}

/* Every member of want (compact JSON) is in got with the same value;
 * "!key" in want means key must be absent. */
static void expect_members(json_t *got, const char *want_text, const char *ctx)
{
    json_t *want = parse(want_text), *v;
    const char *k;

    json_object_foreach(want, k, v)
    {
        json_t *g = json_object_get(got, k[0] == '!' ? k + 1 : k);
        char *gs, *ws;
        if (k[0] == '!') {
            if (g != NULL)
                fail_msg("%s: %s should be absent", ctx, k + 1);
            continue;
        }
        if (g == NULL)
            fail_msg("%s: %s is missing", ctx, k);
        if (!json_equal(g, v)) {
            gs = json_dumps(g, JSON_COMPACT | JSON_ENCODE_ANY);
            ws = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            fail_msg("%s: %s is %s, not %s", ctx, k, gs, ws);
        }
    }
    json_decref(want);
}

/* A value at a dotted path ("limits.max.jobs"), or NULL. */
static json_t *at(json_t *o, const char *path)
{
    char buf[160], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && o;
         k = strtok_r(NULL, ".", &save))
        o = json_object_get(o, k);
    return o;
}

static void expect_at(json_t *o, const char *path, const char *want)
{
    json_t *v = at(o, path);
    char *got;

    if (v == NULL)
        fail_msg("%s is missing", path);
    got = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (strcmp(got, want) != 0)
        fail_msg("%s is %s, not %s", path, got, want);
    free(got);
}

/* ---- job submissions ---------------------------------------------------- */

static const char *const script = "#!/bin/sh\\ntrue\\n";

struct submit_case {
    const char *job;   /* the "job" object's members */
    const char *want;  /* JOBSPEC members, or NULL for an error */
    const char *error; /* the error's beginning */
};

static const struct submit_case submit_cases[] = {
    {"\"name\": \"train\", \"partition\": \"gpu\", \"account\": \"a\", "
     "\"qos\": \"q\"",
     "{\"name\": \"train\", \"partition\": \"gpu\", \"account\": \"a\", "
     "\"qos\": \"q\"}",
     NULL},
    {"\"time_limit\": 5, \"time_minimum\": 2",
     "{\"time_limit_s\": 300, \"time_min_s\": 120}", NULL},
    {"\"time_limit\": \"INFINITE\"", "{\"time_limit_s\": \"INFINITE\"}", NULL},
    {"\"time_limit\": -1", "{\"time_limit_s\": \"INFINITE\"}", NULL},
    {"\"time_limit\": 0", NULL, "job.time_limit: expected minutes"},
    {"\"time_limit\": \"5m\"", NULL, "job.time_limit: expected minutes"},
    {"\"time_minimum\": \"INFINITE\"", NULL, "job.time_minimum: expected"},
    {"\"environment\": {\"PATH\": \"/bin\", \"A\": \"1\"}",
     "{\"environment\": {\"PATH\": \"/bin\", \"A\": \"1\"}}", NULL},
    {"\"environment\": [\"PATH=/bin\", \"B=x=y\", \"E=\"]",
     "{\"environment\": {\"PATH\": \"/bin\", \"B\": \"x=y\", \"E\": \"\"}}",
     NULL},
    {"\"environment\": [\"PATH\"]", NULL,
     "job.environment: [0]: expected \"NAME=value\""},
    {"\"environment\": {\"A\": 1}", NULL, "job.environment: \"A\": expected"},
    {"\"environment\": \"PATH=/bin\"", NULL, "job.environment: expected"},
    {"\"current_working_directory\": \"/tmp\", \"standard_output\": "
     "\"o-%j\", \"standard_error\": \"e-%j\", \"standard_input\": "
     "\"/dev/null\"",
     "{\"work_dir\": \"/tmp\", \"std_out\": \"o-%j\", \"std_err\": "
     "\"e-%j\"}",
     NULL},
    {"\"standard_input\": \"/etc/passwd\"", NULL,
     "job.standard_input: not supported"},
    {"\"nodes\": 2, \"tasks\": 4, \"cpus_per_task\": 2, \"tasks_per_node\": "
     "2",
     "{\"nodes\": 2, \"ntasks\": 4, \"cpus_per_task\": 2, "
     "\"ntasks_per_node\": 2}",
     NULL},
    {"\"nodes\": [2, 4]", "{\"nodes\": 2}", NULL},
    {"\"nodes\": \"3-5\"", "{\"nodes\": 3}", NULL},
    {"\"nodes\": [3, 1]", NULL, "job.nodes: expected a node count"},
    {"\"nodes\": 0", NULL, "job.nodes: expected a node count"},
    {"\"tasks\": 0", NULL, "job.tasks: expected an integer of at least 1"},
    {"\"tasks\": \"4\"", "{\"ntasks\": 4}", NULL},
    {"\"cpus_per_task\": true", NULL, "job.cpus_per_task: expected an"},
    {"\"memory_per_node\": 2048, \"memory_per_gpu\": 100",
     "{\"mem_mib\": 2048, \"mem_per_gpu_mib\": 100}", NULL},
    {"\"memory_per_cpu\": 512", "{\"mem_per_cpu_mib\": 512}", NULL},
    {"\"gres\": \"gpu:2\"", "{\"gres\": \"gpu:2\"}", NULL},
    {"\"tres_per_node\": \"gres:gpu:a100:2\"", "{\"gres\": \"gpu:a100:2\"}",
     NULL},
    {"\"gpus\": 4, \"gpus_per_task\": \"a100:1\", \"cpus_per_gpu\": \"8\"",
     "{\"gpus\": \"4\", \"gpus_per_task\": \"a100:1\", \"cpus_per_gpu\": 8}",
     NULL},
    {"\"gpus_per_node\": \"gpu:2\"", "{\"gpus_per_node\": \"2\"}", NULL},
    {"\"gpus\": \"two\"", NULL, "job.gpus: \"two\": expected \"N\""},
    {"\"array\": \"0-9%2\", \"dependency\": \"afterok:5\", "
     "\"kill_on_invalid_dependency\": true",
     "{\"array\": \"0-9%2\", \"dependency\": \"afterok:5\", "
     "\"kill_on_invalid_dep\": true}",
     NULL},
    {"\"hold\": true, \"requeue\": false, \"no_kill\": true, "
     "\"minimum_nodes\": true, \"spread_job\": false",
     "{\"hold\": true, \"requeue\": false, \"no_kill\": true, "
     "\"use_min_nodes\": true, \"spread_job\": false}",
     NULL},
    {"\"hold\": \"yes\"", NULL, "job.hold: expected true or false"},
    {"\"exclusive\": \"user\"", "{\"exclusive\": \"user\"}", NULL},
    {"\"exclusive\": \"true\"", "{\"exclusive\": \"node\"}", NULL},
    {"\"exclusive\": true", "{\"exclusive\": \"node\"}", NULL},
    {"\"exclusive\": \"false\"", "{\"!exclusive\": 0}", NULL},
    {"\"exclusive\": \"sometimes\"", NULL, "job.exclusive: \"sometimes\""},
    {"\"signal\": \"B:USR1@90\"",
     "{\"warn_signal\": 10, \"warn_time_s\": 90, \"warn_batch\": true}", NULL},
    {"\"signal\": \"SIGTERM\"",
     "{\"warn_signal\": 15, \"warn_time_s\": 60, \"warn_batch\": false}", NULL},
    {"\"signal\": \"NOPE@5\"", NULL, "job.signal: expected"},
    {"\"nice\": \"10\", \"priority\": \"TOP\"",
     "{\"nice\": 10, \"priority\": \"TOP\"}", NULL},
    {"\"nice\": -5, \"priority\": 100", "{\"nice\": -5, \"priority\": 100}",
     NULL},
    {"\"priority\": -1", NULL, "job.priority: expected a priority"},
    {"\"constraints\": \"a100&ib\", \"cpu_binding\": \"cores\", "
     "\"cpu_binding_hint\": \"nomultithread\", \"gpu_binding\": \"closest\", "
     "\"distribution\": \"block\", \"gres_flags\": \"enforce-binding\"",
     "{\"constraint\": \"a100&ib\", \"cpu_bind\": \"cores\", \"hint\": "
     "\"nomultithread\", \"gpu_bind\": \"closest\", \"distribution\": "
     "\"block\", \"gres_flags\": \"enforce-binding\"}",
     NULL},
    {"\"comment\": \"c\", \"wckey\": \"w\", \"reservation\": \"r\", "
     "\"mail_type\": \"END\", \"mail_user\": \"u@x\", \"open_mode\": "
     "\"append\"",
     "{\"comment\": \"c\", \"wckey\": \"w\", \"reservation\": \"r\", "
     "\"mail_type\": \"END\", \"mail_user\": \"u@x\", \"open_mode\": "
     "\"append\"}",
     NULL},
    {"\"begin_time\": 1700000000, \"deadline\": \"1800000000\"",
     "{\"begin_time\": 1700000000, \"deadline\": 1800000000}", NULL},
    {"\"minimum_cpus_per_node\": 4, \"sockets_per_node\": 2, "
     "\"cores_per_socket\": 8, \"threads_per_core\": 1",
     "{\"mincpus\": 4, \"sockets_per_node\": 2, \"cores_per_socket\": 8, "
     "\"threads_per_core\": 1}",
     NULL},
    {"\"required_nodes\": \"node[01-02]\", \"excluded_nodes\": \"node03\"",
     "{\"nodelist\": \"node[01-02]\", \"exclude\": \"node03\"}", NULL},
    {"\"get_user_environment\": true, \"argv\": [\"run.sh\", \"--x\"]",
     "{\"get_user_env\": true, \"argv\": [\"run.sh\", \"--x\"]}", NULL},
    {"\"argv\": [\"a\", 2]", NULL, "job.argv: [1]: expected a string"},
    {"\"name\": \"\", \"licenses\": \"\", \"burst_buffer\": null, "
     "\"core_specification\": 0, \"wait_all_nodes\": false",
     "{\"!name\": 0, \"!licenses\": 0}", NULL},
    {"\"licenses\": \"matlab:1\"", NULL,
     "job.licenses: not supported by Sluice"},
    {"\"tasks_per_core\": 2", NULL, "job.tasks_per_core: not supported"},
    {"\"name\": 7", NULL, "job.name: expected a string"},
    {"\"colour\": \"blue\"", NULL,
     "job.colour: unknown field of a job description"},
};

static void test_submission(void **state)
{
    char text[2048], ctx[64];

    (void)state;
    for (size_t i = 0; i < sizeof(submit_cases) / sizeof(*submit_cases); i++) {
        const struct submit_case *c = &submit_cases[i];
        json_t *body, *notes = json_array(), *spec;
        struct err e = {0};

        snprintf(text, sizeof(text), "{\"script\": \"%s\", \"job\": {%s}}",
                 script, c->job);
        snprintf(ctx, sizeof(ctx), "case %zu", i);
        body = parse(text);
        spec = slurmjson_job_submission(body, notes, &e);
        if (c->want != NULL) {
            if (spec == NULL)
                fail_msg("%s: refused: %s", ctx, e.text);
            expect_members(spec, c->want, ctx);
            expect_members(spec, "{\"script\": \"#!/bin/sh\\ntrue\\n\"}", ctx);
        } else {
            if (spec != NULL)
                fail_msg("%s: taken, expected %s", ctx, c->error);
            if (strncmp(e.text, c->error, strlen(c->error)) != 0)
                fail_msg("%s: error \"%s\", expected \"%s...\"", ctx, e.text,
                         c->error);
        }
        json_decref(spec);
        json_decref(body);
        json_decref(notes);
    }
}

static void test_submission_shape(void **state)
{
    static const struct {
        const char *body, *error;
    } cases[] = {
        {"{\"job\": {}}", "script: missing"},
        {"{\"script\": 3, \"job\": {}}", "script: expected"},
        {"{\"script\": \"#!/bin/sh\"}", "job: missing"},
        {"{\"script\": \"#!/bin/sh\", \"job\": []}", "job: expected an object"},
        {"{\"script\": \"#!/bin/sh\", \"job\": {}, \"jobs\": [{}]}",
         "job, jobs: give one"},
        {"{\"script\": \"#!/bin/sh\", \"jobs\": [{}, {}]}",
         "jobs: Sluice has no heterogeneous jobs"},
        {"{\"script\": \"#!/bin/sh\", \"jobs\": [{\"tasks\": 0}]}",
         "jobs[0].tasks: expected"},
        {"{\"script\": \"#!/bin/sh\", \"job\": {}, \"extra\": 1}",
         "extra: unknown field of a job submission"},
        {"{\"script\": \"#!/bin/sh\\r\\ntrue\\r\\n\", \"job\": {}}",
         "script: contains DOS line breaks"},
        {"{\"script\": \"#!/a\", \"job\": {\"script\": \"#!/b\"}}",
         "job.script: differs"},
    };
    json_t *notes = json_array(), *body, *spec;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        body = parse(cases[i].body);
        spec = slurmjson_job_submission(body, NULL, &e);
        if (spec != NULL)
            fail_msg("%s: taken", cases[i].body);
        if (strncmp(e.text, cases[i].error, strlen(cases[i].error)) != 0)
            fail_msg("%s: error \"%s\", expected \"%s...\"", cases[i].body,
                     e.text, cases[i].error);
        json_decref(body);
    }
    /* one job in "jobs", the script inside the job, a range of nodes */
    body = parse("{\"jobs\": [{\"script\": \"#!/bin/sh\", \"nodes\": [1, 3], "
                 "\"environment\": {}}]}");
    spec = slurmjson_job_submission(body, notes, &e);
    assert_non_null(spec);
    expect_members(spec,
                   "{\"script\": \"#!/bin/sh\", \"nodes\": 1, "
                   "\"environment\": {}}",
                   "jobs");
    assert_int_equal(json_array_size(notes), 1);
    assert_string_equal(json_string_value(json_array_get(notes, 0)),
                        "jobs[0].nodes: Sluice allocates the minimum, 1 node");
    json_decref(spec);
    json_decref(body);
    json_decref(notes);
}

static void test_update(void **state)
{
    static const struct {
        const char *body, *set; /* set NULL: an error */
        int hold;
        const char *error;
    } cases[] = {
        {"{\"time_limit\": 10, \"name\": \"n\", \"comment\": \"c\"}",
         "{\"time_limit_s\": 600, \"name\": \"n\", \"comment\": \"c\"}", -1,
         NULL},
        {"{\"job\": {\"partition\": \"p\", \"priority\": 5, \"nice\": 3}}",
         "{\"partition\": \"p\", \"priority\": 5, \"nice\": 3}", -1, NULL},
        {"{\"hold\": true}", "{}", 1, NULL},
        {"{\"hold\": false, \"dependency\": \"\"}", "{\"dependency\": \"\"}", 0,
         NULL},
        {"{\"time_limit\": \"INFINITE\"}", "{\"time_limit_s\": \"INFINITE\"}",
         -1, NULL},
        {"{}", NULL, 0, "job: nothing to change"},
        {"[]", NULL, 0, "job: expected an object"},
        {"{\"qos\": \"high\"}", NULL, 0,
         "job.qos: POST job/{job_id} cannot change it"},
        {"{\"bogus\": 1}", NULL, 0,
         "job.bogus: unknown field of POST job/{job_id}"},
        {"{\"time_limit\": \"soon\"}", NULL, 0, "job.time_limit: expected"},
        {"{\"hold\": 1}", NULL, 0, "job.hold: expected true or false"},
        {"{\"priority\": \"TOP\"}", NULL, 0, "job.priority: expected an"},
    };
    json_t *body, *set;
    struct err e;
    int hold;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        body = json_loads(cases[i].body, JSON_DECODE_ANY, NULL);
        assert_non_null(body);
        if (cases[i].set != NULL) {
            if (slurmjson_job_update(body, &set, &hold, &e) < 0)
                fail_msg("%s: refused: %s", cases[i].body, e.text);
            expect_members(set, cases[i].set, cases[i].body);
            assert_int_equal(hold, cases[i].hold);
            json_decref(set);
        } else {
            if (slurmjson_job_update(body, &set, &hold, &e) == 0)
                fail_msg("%s: taken", cases[i].body);
            assert_null(set);
            if (strncmp(e.text, cases[i].error, strlen(cases[i].error)) != 0)
                fail_msg("%s: error \"%s\", expected \"%s...\"", cases[i].body,
                         e.text, cases[i].error);
        }
        json_decref(body);
    }
}

static void test_signals(void **state)
{
    static const struct {
        const char *s;
        int sig;
    } cases[] = {
        {"USR1", 10}, {"SIGUSR1", 10}, {"sigusr2", 12}, {"10", 10},
        {"TERM", 15}, {"KILL", 9},     {"64", 64},      {"65", -1},
        {"0", -1},    {"-9", -1},      {"", -1},        {"SIG", -1},
        {"FOO", -1},  {"10x", -1},     {NULL, -1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
        if (slurmjson_signal_parse(cases[i].s) != cases[i].sig)
            fail_msg("%s: %d, expected %d", cases[i].s ? cases[i].s : "NULL",
                     slurmjson_signal_parse(cases[i].s), cases[i].sig);
    assert_string_equal(slurmjson_signal_name(15), "TERM");
    assert_null(slurmjson_signal_name(0));
    assert_null(slurmjson_signal_name(99));
}

static void test_times(void **state)
{
    static const struct {
        const char *s;
        long long t; /* -1: refused */
    } cases[] = {
        {"0", 0},
        {"1700000000", 1700000000},
        {"2024-01-02", 1704153600},
        {"2024-01-02T03:04", 1704164640},
        {"2024-01-02T03:04:05", 1704164645},
        {"2024-01-02 03:04", -1},
        {"-5", -1},
        {"yesterday", -1},
        {"", -1},
        {"2024-13-40", -1},
    };
    time_t t;

    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        int rc = slurmjson_time_parse(cases[i].s, &t);
        if (cases[i].t < 0 ? rc == 0 : rc != 0 || (long long)t != cases[i].t)
            fail_msg("%s: rc %d t %lld, expected %lld", cases[i].s, rc,
                     (long long)t, cases[i].t);
    }
}

/* ---- objects ------------------------------------------------------------ */

static void test_reservation(void **state)
{
    json_t *r = parse("{\"name\": \"maint\", \"start_time\": 100, "
                      "\"end_time\": 3700, \"duration_s\": 3600, \"nodes\": "
                      "\"node01\", \"node_count\": 1, \"core_count\": 16, "
                      "\"partition\": null, \"flags\": \"MAINT,SPEC_NODES\", "
                      "\"users\": \"root\", \"accounts\": null, \"state\": "
                      "\"ACTIVE\", \"tres\": \"cpu=16\"}");
    json_t *o = slurmjson_reservation(r);

    (void)state;
    assert_non_null(o);
    expect_members(o,
                   "{\"name\": \"maint\", \"start_time\": 100, \"end_time\": "
                   "3700, \"node_list\": \"node01\", \"node_count\": 1, "
                   "\"core_count\": 16, \"partition\": \"\", \"flags\": "
                   "[\"MAINT\", \"SPEC_NODES\"], \"users\": \"root\", "
                   "\"accounts\": \"\", \"tres\": \"cpu=16\", \"watts\": 0, "
                   "\"purge_completed\": {\"time\": 0}}",
                   "reservation");
    expect_at(o, "sluice.state", "\"ACTIVE\"");
    expect_at(o, "sluice.duration_s", "3600");
    json_decref(o);
    json_decref(r);
}

static void test_diag(void **state)
{
    static const char *const jobs[] = {
        "{\"job_state\": \"PENDING\", \"submit_time\": 50}",
        "{\"job_state\": \"RUNNING\", \"submit_time\": 150}",
        "{\"job_state\": \"SUSPENDED\", \"submit_time\": 150}",
        "{\"job_state\": \"COMPLETED\", \"submit_time\": 150, "
        "\"end_time\": 160}",
        "{\"job_state\": \"COMPLETED\", \"submit_time\": 10, \"end_time\": 20}",
        "{\"job_state\": \"CANCELLED\", \"submit_time\": 150, "
        "\"end_time\": 170}",
        "{\"job_state\": \"TIMEOUT\", \"submit_time\": 150, \"end_time\": 180}",
        "{\"job_state\": \"NODE_FAIL\", \"submit_time\": 150, "
        "\"end_time\": 190}",
        "{\"submit_time\": 150}",
    };
    struct slurmjson_jobcount c = {0};
    json_t *d = parse("{\"now\": 700, \"since\": 100, \"backfill_state\": "
                      "\"running\", \"main\": {\"passes\": 30, \"max_us\": 9, "
                      "\"last_us\": 4, \"mean_us\": 5.6, \"jobs_started\": 7, "
                      "\"queue_length\": 3}, \"backfill\": {\"cycles\": 2, "
                      "\"jobs_backfilled\": 1, \"mean_cycle_us\": 11.2, "
                      "\"max_cycle_us\": 20, \"last_depth\": 6, "
                      "\"last_cycle_us\": 12, \"last_cycle_time\": 650}}");
    json_t *o;

    (void)state;
    for (size_t i = 0; i < sizeof(jobs) / sizeof(*jobs); i++) {
        json_t *j = parse(jobs[i]);
        slurmjson_diag_count(&c, j, 100);
        json_decref(j);
    }
    o = slurmjson_diag(d, &c);
    expect_members(o,
                   "{\"req_time\": 700, \"req_time_start\": 100, "
                   "\"schedule_cycle_total\": 30, \"schedule_cycle_max\": 9, "
                   "\"schedule_cycle_last\": 4, \"schedule_cycle_mean\": 5, "
                   "\"schedule_cycle_per_minute\": 3, "
                   "\"schedule_queue_length\": 3, \"jobs_started\": 7, "
                   "\"jobs_submitted\": 6, \"jobs_pending\": 1, "
                   "\"jobs_running\": 2, \"jobs_completed\": 1, "
                   "\"jobs_canceled\": 1, \"jobs_failed\": 2, "
                   "\"bf_backfilled_jobs\": 1, \"bf_cycle_counter\": 2, "
                   "\"bf_cycle_mean\": 11, \"bf_cycle_max\": 20, "
                   "\"bf_last_depth\": 6, \"bf_cycle_last\": 12, "
                   "\"bf_when_last_cycle\": 650, \"bf_active\": true}",
                   "diag");
    expect_at(o, "sluice.main.passes", "30");
    json_decref(o);
    json_decref(d);
}

static const char *const assoc_list =
    "[{\"id\": 1, \"cluster\": \"c\", \"account\": \"root\", \"user\": null, "
    "\"partition\": null, \"fairshare\": 1, \"default_qos\": null, \"qos\": "
    "[], \"effective_qos\": [\"normal\"], \"parent_id\": null, \"limits\": "
    "{}},"
    " {\"id\": 2, \"cluster\": \"c\", \"account\": \"research\", \"user\": "
    "null, \"partition\": null, \"fairshare\": \"parent\", \"default_qos\": "
    "\"normal\", \"qos\": [\"normal\", \"high\"], \"effective_qos\": "
    "[\"normal\", \"high\"], \"parent_id\": 1, \"limits\": {\"max_wall\": "
    "3601, \"grp_tres\": {\"cpu\": 8, \"gres/gpu\": 2}, \"max_tres_per_job\": "
    "{\"mem\": 1024}, \"grp_jobs\": 4, \"max_jobs_per_user\": null}},"
    " {\"id\": 3, \"cluster\": \"c\", \"account\": \"research\", \"user\": "
    "\"zhang\", \"partition\": \"gpu\", \"fairshare\": 10, \"default_qos\": "
    "null, \"qos\": [], \"effective_qos\": [\"normal\", \"high\"], "
    "\"parent_id\": 2, \"limits\": {}}]";

static void test_assoc(void **state)
{
    json_t *all = parse(assoc_list), *o;

    (void)state;
    o = slurmjson_assoc(json_array_get(all, 1), all);
    expect_members(o,
                   "{\"account\": \"research\", \"cluster\": \"c\", "
                   "\"user\": \"\", \"partition\": \"\", \"parent_account\": "
                   "\"root\", \"shares_raw\": 2147483647, \"QOS\": "
                   "[\"normal\", \"high\"], \"default\": {\"qos\": "
                   "\"normal\"}, \"flags\": [], \"priority\": null}",
                   "assoc");
    expect_at(o, "max.jobs.per.wall_clock", "61");
    expect_at(o, "max.tres.total",
              "[{\"type\":\"cpu\",\"name\":\"\",\"id\":1,\"count\":8},"
              "{\"type\":\"gres\",\"name\":\"gpu\",\"id\":1001,\"count\":2}]");
    expect_at(o, "max.tres.per.job",
              "[{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":1024}]");
    expect_at(o, "min.priority_threshold", "null");
    expect_at(o, "sluice.fairshare", "\"parent\"");
    expect_at(o, "sluice.limits.grp_jobs", "4");
    json_decref(o);
    o = slurmjson_assoc(json_array_get(all, 2), all);
    expect_members(o,
                   "{\"user\": \"zhang\", \"partition\": \"gpu\", "
                   "\"parent_account\": \"research\", \"shares_raw\": 10, "
                   "\"default\": {\"qos\": \"\"}}",
                   "user assoc");
    expect_at(o, "max.jobs.per.wall_clock", "null");
    json_decref(o);
    o = slurmjson_assoc(json_array_get(all, 0), all);
    expect_members(o, "{\"parent_account\": \"\"}", "root assoc");
    json_decref(o);
    json_decref(all);
}

static void test_user_account(void **state)
{
    json_t *all = parse(assoc_list), *o;
    json_t *u = parse("{\"name\": \"zhang\", \"default_account\": "
                      "\"research\", \"admin_level\": \"Operator\", "
                      "\"accounts\": [\"research\"]}");
    json_t *a = parse("{\"name\": \"research\", \"description\": \"r\", "
                      "\"organization\": \"o\", \"parent\": \"root\"}");

    (void)state;
    o = slurmjson_user(u, all);
    expect_members(o,
                   "{\"name\": \"zhang\", \"administrator_level\": "
                   "\"Operator\", \"default\": {\"account\": \"research\", "
                   "\"wckey\": \"\"}, \"coordinators\": [], \"flags\": [], "
                   "\"associations\": [{\"account\": \"research\", "
                   "\"cluster\": \"c\", \"partition\": \"gpu\", \"user\": "
                   "\"zhang\"}]}",
                   "user");
    expect_at(o, "sluice.accounts", "[\"research\"]");
    json_decref(o);
    o = slurmjson_account(a, all);
    expect_members(o,
                   "{\"name\": \"research\", \"description\": \"r\", "
                   "\"organization\": \"o\", \"coordinators\": [], "
                   "\"flags\": [], \"associations\": [{\"account\": "
                   "\"research\", \"cluster\": \"c\", \"partition\": \"\", "
                   "\"user\": \"\"}]}",
                   "account");
    expect_at(o, "sluice.parent", "\"root\"");
    json_decref(o);
    json_decref(u);
    json_decref(a);
    json_decref(all);
}

static void test_qos(void **state)
{
    json_t *q =
        parse("{\"id\": 3, \"name\": \"high\", \"description\": "
              "\"d\", \"priority\": 100, \"preempt\": [\"low\"], "
              "\"preempt_mode\": \"requeue\", "
              "\"preempt_exempt_time\": 60, \"grace_time\": 30, "
              "\"usage_factor\": 2.0, \"flags\": [\"NoDecay\"], "
              "\"limits\": {\"max_wall\": 7200, "
              "\"max_jobs_per_user\": 2, \"max_jobs_per_account\": "
              "null, \"max_tres_per_user\": {\"gres/gpu\": 4}, "
              "\"min_prio_threshold\": 9, \"max_submit_jobs_per_user\": "
              "5}}");
    json_t *o = slurmjson_qos(q);

    (void)state;
    expect_members(o,
                   "{\"id\": 3, \"name\": \"high\", \"description\": \"d\", "
                   "\"priority\": 100, \"usage_factor\": 2.0, \"flags\": "
                   "[\"NoDecay\"], \"preempt\": {\"list\": [\"low\"], "
                   "\"mode\": [\"requeue\"], \"exempt_time\": 60}, "
                   "\"usage_threshold\": null}",
                   "qos");
    expect_at(o, "limits.max.wall_clock.per.job", "120");
    expect_at(o, "limits.max.jobs.active_jobs.per.user", "2");
    expect_at(o, "limits.max.jobs.active_jobs.per.account", "null");
    expect_at(o, "limits.max.tres.per.user",
              "[{\"type\":\"gres\",\"name\":\"gpu\",\"id\":1001,\"count\":4}]");
    expect_at(o, "limits.max.tres.per.job", "[]");
    expect_at(o, "limits.min.priority_threshold", "9");
    expect_at(o, "sluice.limits.max_submit_jobs_per_user", "5");
    expect_at(o, "sluice.grace_time", "30");
    json_decref(o);
    json_decref(q);
    /* an empty record still has every field, with Slurm's empty values */
    q = json_object();
    o = slurmjson_qos(q);
    expect_members(
        o,
        "{\"id\": 0, \"name\": \"\", \"flags\": [], \"usage_factor\": "
        "1.0, \"preempt\": {\"list\": [], \"mode\": [\"cluster\"], "
        "\"exempt_time\": null}}",
        "empty qos");
    json_decref(o);
    json_decref(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submission),
        cmocka_unit_test(test_submission_shape),
        cmocka_unit_test(test_update),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_reservation),
        cmocka_unit_test(test_diag),
        cmocka_unit_test(test_assoc),
        cmocka_unit_test(test_user_account),
        cmocka_unit_test(test_qos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
