/*
 * Unit tests for what a job sees: the LAUNCH object parsed and refused,
 * output file patterns (%j %x %u %N %A %a %% and widths), output paths,
 * and the environment with its SLURM_* and SLUICE_* variables.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "noded/jobenv.h"
#include "noded/launch.h"

static void parse_ok(const char *json, struct launch *l)
{
    json_error_t je;
    json_t *o = json_loads(json, 0, &je);
    struct err e;

    if (o == NULL)
        fail_msg("json: %s", je.text);
    if (launch_parse(o, l, &e) < 0)
        fail_msg("launch_parse: %s", e.text);
    json_decref(o);
}

static const char *base_job =
    "{\"job_id\": 42, \"name\": \"train\", \"user_id\": 1000, "
    "\"group_id\": 1000, \"user_name\": \"zhangsan\", \"partition\": \"dev\","
    " \"script\": \"#!/bin/bash\\necho hi\\n\", \"argv\": [\"train.sh\", "
    "\"a b\"], \"work_dir\": \"/home/zhangsan\", \"std_out\": null, "
    "\"std_err\": null, \"environment\": {\"PATH\": \"/usr/bin:/bin\", "
    "\"SLURM_JOB_ID\": \"7\", \"HOME\": \"/home/zhangsan\"}, \"cpus\": 4, "
    "\"mem_mib\": 2048, \"node_list\": \"node[01-02]\", "
    "\"time_limit_s\": 3600}";

static void test_parse(void **state)
{
    struct launch l;

    (void)state;
    parse_ok(base_job, &l);
    assert_int_equal(l.job_id, 42);
    assert_string_equal(l.name, "train");
    assert_int_equal(l.uid, 1000);
    assert_int_equal(l.argc, 2);
    assert_string_equal(l.argv[1], "a b");
    assert_int_equal(l.n_env, 3);
    assert_string_equal(l.std_out, "");
    assert_int_equal(l.cpus, 4);
    assert_int_equal(l.mem_mib, 2048);
    assert_int_equal(l.time_limit_s, 3600);
    assert_null(l.gpus);
    assert_int_equal(l.n_gpus, 0);
    assert_false(l.is_array);
    launch_clear(&l);
}

static void test_parse_refused(void **state)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"[]", "job: expected an object"},
        {"{\"user_id\": 0, \"group_id\": 0, \"script\": \"#!/bin/sh\"}",
         "job_id: expected an integer 1..4294967295"},
        {"{\"job_id\": 0, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\"}",
         "job_id: expected"},
        {"{\"job_id\": 1, \"group_id\": 0, \"script\": \"#!/bin/sh\"}",
         "user_id: expected"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0}",
         "script: expected a string"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"echo hi\"}",
         "script has no interpreter line (#!...)"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"environment\": {\"A=B\": \"x\"}}",
         "bad variable name \"A=B\""},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"environment\": {\"A\": 1}}",
         "environment: expected an object of strings"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"argv\": [1]}",
         "argv: expected an array of strings"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"cpus\": -1}",
         "cpus: expected an integer"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"work_dir\": 5}",
         "work_dir: expected a string"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": [\"x\"]}",
         "gpus: expected an array of distinct GPU indices 0..4095"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": [1, 1]}",
         "gpus: expected an array of distinct GPU indices"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": [4096]}",
         "gpus: expected an array of distinct GPU indices"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": [-1]}",
         "gpus: expected an array of distinct GPU indices"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": \"0,x\"}",
         "gpus: expected an array of distinct GPU indices"},
        {"{\"job_id\": 1, \"user_id\": 0, \"group_id\": 0, "
         "\"script\": \"#!/bin/sh\", \"gpus\": {}}",
         "gpus: expected an array of distinct GPU indices"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *o = json_loads(cases[i].json, 0, NULL);
        struct launch l;
        struct err e;
        assert_non_null(o);
        if (launch_parse(o, &l, &e) == 0)
            fail_msg("accepted %s", cases[i].json);
        assert_int_equal(errno, EINVAL);
        if (strstr(e.text, cases[i].want) == NULL)
            fail_msg("%s: got \"%s\", want \"%s\"", cases[i].json, e.text,
                     cases[i].want);
        json_decref(o);
    }
}

static void test_expand(void **state)
{
    static const struct {
        const char *pattern, *want;
    } cases[] = {
        {"slurm-%j.out", "slurm-42.out"},
        {"%x-%u-%N.log", "train-zhangsan-node01.log"},
        {"%A_%a.out", "42_4294967294.out"},
        {"%5j", "00042"},
        {"dask-worker-%J.out", "dask-worker-42.out"},
        {"100%%", "100%"},
        {"%q%", "%q%"},
        {"job\\%j", "job%j"},
        {"%n.%t.%s", "0.0.batch"},
        {"", ""},
    };
    struct launch l;

    (void)state;
    parse_ok(base_job, &l);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got =
            jobenv_expand(cases[i].pattern, &l, "zhangsan", "node01.cluster");
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("expand(%s) = \"%s\", want \"%s\"", cases[i].pattern, got,
                     cases[i].want);
        free(got);
    }
    launch_clear(&l);
}

static void test_expand_array(void **state)
{
    struct launch l;
    json_t *o = json_loads(base_job, 0, NULL);
    struct err e;
    char *got;

    (void)state;
    json_object_set_new(o, "array_job_id", json_integer(40));
    json_object_set_new(o, "array_task_id", json_integer(2));
    assert_int_equal(launch_parse(o, &l, &e), 0);
    got = jobenv_expand("%A_%a-%j", &l, "u", "n");
    assert_string_equal(got, "40_2-42");
    free(got);
    launch_clear(&l);
    json_decref(o);
}

static void test_output_paths(void **state)
{
    struct launch l;
    char *p;

    (void)state;
    parse_ok(base_job, &l);
    p = jobenv_output_path(&l, 0, "zhangsan", "node01", "/w");
    assert_string_equal(p, "/w/slurm-42.out");
    free(p);
    p = jobenv_output_path(&l, 1, "zhangsan", "node01", "/w");
    assert_string_equal(p, "/w/slurm-42.out"); /* stderr with stdout */
    free(p);
    free(l.std_out);
    l.std_out = strdup("/abs/%x.out");
    free(l.std_err);
    l.std_err = strdup("logs/%j.err");
    p = jobenv_output_path(&l, 0, "zhangsan", "node01", "/w");
    assert_string_equal(p, "/abs/train.out");
    free(p);
    p = jobenv_output_path(&l, 1, "zhangsan", "node01", "/w");
    assert_string_equal(p, "/w/logs/42.err");
    free(p);
    launch_clear(&l);
}

static void test_environment(void **state)
{
    struct launch l;
    char **env;
    size_t n = 0;

    (void)state;
    parse_ok(base_job, &l);
    env = jobenv_build(&l, NULL, "zhangsan", "node01");
    for (char **p = env; *p; p++)
        n++;
    assert_string_equal(jobenv_get(env, "PATH"), "/usr/bin:/bin");
    assert_string_equal(jobenv_get(env, "HOME"), "/home/zhangsan");
    /* the submitted SLURM_JOB_ID is replaced, not duplicated */
    assert_string_equal(jobenv_get(env, "SLURM_JOB_ID"), "42");
    assert_string_equal(jobenv_get(env, "SLUICE_JOB_ID"), "42");
    assert_string_equal(jobenv_get(env, "SLURM_JOBID"), "42");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_NAME"), "train");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_PARTITION"), "dev");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_NODELIST"), "node[01-02]");
    assert_string_equal(jobenv_get(env, "SLURM_NODELIST"), "node[01-02]");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_NUM_NODES"), "2");
    assert_string_equal(jobenv_get(env, "SLURM_SUBMIT_DIR"), "/home/zhangsan");
    assert_string_equal(jobenv_get(env, "SLURM_CPUS_ON_NODE"), "4");
    assert_string_equal(jobenv_get(env, "SLUICE_CPUS_ON_NODE"), "4");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_USER"), "zhangsan");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_UID"), "1000");
    assert_string_equal(jobenv_get(env, "SLURM_NODEID"), "0");
    assert_string_equal(jobenv_get(env, "SLURMD_NODENAME"), "node01");
    assert_string_equal(jobenv_get(env, "SLUICED_NODENAME"), "node01");
    assert_string_equal(jobenv_get(env, "SLURM_MEM_PER_NODE"), "2048");
    assert_null(jobenv_get(env, "SLURM_RESTART_COUNT"));
    /* no GPUs: no GPU variable at all (Slurm sets none either) */
    assert_null(jobenv_get(env, "CUDA_VISIBLE_DEVICES"));
    assert_null(jobenv_get(env, "GPU_DEVICE_ORDINAL"));
    assert_null(jobenv_get(env, "SLURM_JOB_GPUS"));
    assert_null(jobenv_get(env, "SLUICE_JOB_GPUS"));
    assert_null(jobenv_get(env, "SLURM_GPUS_ON_NODE"));
    for (char **p = env; *p; p++)
        for (char **q = p + 1; *q; q++)
            if (strncmp(*p, *q, strcspn(*p, "=") + 1) == 0)
                fail_msg("%s twice", *p);
    jobenv_free(env);
    launch_clear(&l);
}

static void test_environment_extras(void **state)
{
    json_t *o = json_loads(base_job, 0, NULL);
    struct launch l;
    struct err e;
    char **env;

    (void)state;
    json_object_set_new(o, "restart_count", json_integer(2));
    json_object_set_new(o, "gpus", json_pack("[i, i]", 0, 3));
    json_object_del(o, "environment");
    assert_int_equal(launch_parse(o, &l, &e), 0);
    env = jobenv_build(&l, NULL, "zhangsan", "node01");
    assert_string_equal(jobenv_get(env, "SLURM_RESTART_COUNT"), "2");
    assert_string_equal(jobenv_get(env, "SLUICE_RESTART_COUNT"), "2");
    assert_string_equal(jobenv_get(env, "CUDA_VISIBLE_DEVICES"), "0,3");
    assert_string_equal(jobenv_get(env, "SLURM_JOB_GPUS"), "0,3");
    assert_null(jobenv_get(env, "PATH"));
    jobenv_free(env);
    launch_clear(&l);
    json_decref(o);
}

/* The job's umask: SLURM_UMASK as sbatch sends it, 0022 without one or
 * with one that is not an octal mode. */
static void test_umask(void **state)
{
    static const struct {
        const char *value; /* NULL: no SLURM_UMASK */
        mode_t want;
    } cases[] = {
        {NULL, 022},   {"0077", 077},  {"0027", 027}, {"0", 0},
        {"777", 0777}, {"1000", 022},  {"0089", 022}, {"", 022},
        {"-1", 022},   {"0022x", 022}, {" 077", 022},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *o = json_loads(base_job, 0, NULL);
        struct launch l;
        struct err e;
        if (cases[i].value != NULL)
            json_object_set_new(json_object_get(o, "environment"),
                                "SLURM_UMASK", json_string(cases[i].value));
        assert_int_equal(launch_parse(o, &l, &e), 0);
        if (jobenv_umask(&l) != cases[i].want)
            fail_msg("SLURM_UMASK=%s: got %04o, want %04o",
                     cases[i].value ? cases[i].value : "(none)",
                     (unsigned)jobenv_umask(&l), (unsigned)cases[i].want);
        launch_clear(&l);
        json_decref(o);
    }
}

/* The GPU variables: indices, device numbers, renumbering under
 * ConstrainDevices, and a submitted CUDA_VISIBLE_DEVICES replaced. */
static void test_environment_gpus(void **state)
{
    static const int ord_13[] = {1, 3}, ord_52[] = {2, 5, 7};
    static const struct {
        const char *gpus; /* as LAUNCH sends them */
        const int *ordinals;
        bool renumber;
        const char *cuda, *job_gpus, *count;
    } cases[] = {
        {"[1, 3]", NULL, false, "1,3", "1,3", "2"},
        {"[3, 1]", NULL, false, "1,3", "1,3", "2"}, /* sorted */
        {"[1, 3]", NULL, true, "0,1", "1,3", "2"},
        {"[0, 2]", ord_13, false, "1,3", "1,3", "2"},
        {"[0, 2]", ord_13, true, "0,1", "1,3", "2"},
        {"[0, 1, 2]", ord_52, true, "0,1,2", "2,5,7", "3"},
        {"[7]", NULL, false, "7", "7", "1"},
        {"\"2,0\"", NULL, false, "0,2", "0,2", "2"},
    };
    char json[600];
    struct launch l;
    char **env;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct jobenv_gpus g = {cases[i].ordinals, cases[i].renumber};
        snprintf(json, sizeof(json),
                 "{\"job_id\": 5, \"user_id\": 0, \"group_id\": 0, "
                 "\"script\": \"#!/bin/sh\", \"gpus\": %s, "
                 "\"environment\": {\"CUDA_VISIBLE_DEVICES\": \"9\"}}",
                 cases[i].gpus);
        parse_ok(json, &l);
        env = jobenv_build(&l, &g, "root", "node01");
        assert_string_equal(jobenv_get(env, "CUDA_VISIBLE_DEVICES"),
                            cases[i].cuda);
        assert_string_equal(jobenv_get(env, "GPU_DEVICE_ORDINAL"),
                            cases[i].cuda);
        assert_string_equal(jobenv_get(env, "SLURM_JOB_GPUS"),
                            cases[i].job_gpus);
        assert_string_equal(jobenv_get(env, "SLUICE_JOB_GPUS"),
                            cases[i].job_gpus);
        assert_string_equal(jobenv_get(env, "SLURM_GPUS_ON_NODE"),
                            cases[i].count);
        assert_string_equal(jobenv_get(env, "SLUICE_GPUS_ON_NODE"),
                            cases[i].count);
        jobenv_free(env);
        launch_clear(&l);
    }
    /* without GPUs a submitted CUDA_VISIBLE_DEVICES passes as it is */
    parse_ok("{\"job_id\": 5, \"user_id\": 0, \"group_id\": 0, "
             "\"script\": \"#!/bin/sh\", \"gpus\": [], "
             "\"environment\": {\"CUDA_VISIBLE_DEVICES\": \"9\"}}",
             &l);
    env = jobenv_build(&l, NULL, "root", "node01");
    assert_string_equal(jobenv_get(env, "CUDA_VISIBLE_DEVICES"), "9");
    assert_null(jobenv_get(env, "SLURM_JOB_GPUS"));
    jobenv_free(env);
    launch_clear(&l);
}

/* Slurm 22.05's batch variables from the LAUNCH's extras (the table in
 * docs/environment.md), each with its exact format. */
static void test_environment_slurm2205(void **state)
{
    static const struct {
        const char *key, *want; /* want NULL: not set */
    } cases[] = {
        {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
        {"SLURM_MEM_PER_CPU", "2048"},
        {"SLURM_MEM_PER_NODE", NULL},
        {"SLURM_MEM_PER_GPU", "4096"},
        {"SLURM_GPUS", "a100:2"},
        {"SLURM_GPUS_PER_NODE", "1"},
        {"SLURM_JOB_ACCOUNT", "physics"},
        {"SLURM_JOB_QOS", "normal"},
        {"SLURM_CLUSTER_NAME", "quant"},
        {"SLURM_SUBMIT_HOST", "login1"},
        {"SLURM_JOB_RESERVATION", "maint"},
        {"SLURM_JOB_START_TIME", "1764700000"},
        {"SLURM_JOB_END_TIME", "1764703600"},
        {"SLURM_PRIO_PROCESS", "0"},
        {"SLURM_TOPOLOGY_ADDR", "node01"},
        {"SLURM_TOPOLOGY_ADDR_PATTERN", "node"},
        {"SLURM_PROCID", "0"},
        {"SLURM_GET_USER_ENV", "1"},
        {"ENVIRONMENT", "BATCH"},
        {"SLUICE_CLUSTER_NAME", "quant"},
    };
    json_t *o = json_loads(base_job, 0, NULL);
    struct launch l;
    struct err e;
    char **env;

    (void)state;
    json_object_set_new(o, "cpus", json_integer(8));
    json_object_set_new(o, "num_nodes", json_integer(2));
    json_object_set_new(o, "mem_mib", json_integer(16384));
    json_object_set_new(o, "mem_per_cpu_mib", json_integer(2048));
    json_object_set_new(o, "mem_per_gpu_mib", json_integer(4096));
    json_object_set_new(o, "req_gpus", json_string("a100:2"));
    json_object_set_new(o, "req_gpus_per_node", json_string("1"));
    json_object_set_new(o, "account", json_string("physics"));
    json_object_set_new(o, "qos", json_string("normal"));
    json_object_set_new(o, "cluster_name", json_string("quant"));
    json_object_set_new(o, "submit_host", json_string("login1"));
    json_object_set_new(o, "reservation", json_string("maint"));
    json_object_set_new(o, "start_time", json_integer(1764700000));
    json_object_set_new(o, "end_time", json_integer(1764703600));
    json_object_set_new(o, "get_user_env", json_string(""));
    assert_int_equal(launch_parse(o, &l, &e), 0);
    env = jobenv_build(&l, NULL, "zhangsan", "node01");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = jobenv_get(env, cases[i].key);
        if (cases[i].want == NULL && got != NULL)
            fail_msg("%s=%s: want it unset", cases[i].key, got);
        if (cases[i].want != NULL &&
            (got == NULL || strcmp(got, cases[i].want) != 0))
            fail_msg("%s=%s: want %s", cases[i].key, got ? got : "(unset)",
                     cases[i].want);
    }
    jobenv_free(env);
    launch_clear(&l);
    json_decref(o);
}

/* --open-mode and requeues: append or truncate. */
static void test_append(void **state)
{
    static const struct {
        const char *mode; /* NULL: absent */
        int restarts;
        bool append;
    } cases[] = {
        {NULL, 0, false}, {"truncate", 0, false}, {"append", 0, true},
        {NULL, 1, true},  {"truncate", 2, true},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *o = json_loads(base_job, 0, NULL);
        struct launch l;
        struct err e;
        if (cases[i].mode != NULL)
            json_object_set_new(o, "open_mode", json_string(cases[i].mode));
        json_object_set_new(o, "restart_count",
                            json_integer(cases[i].restarts));
        assert_int_equal(launch_parse(o, &l, &e), 0);
        if (jobenv_append(&l) != cases[i].append)
            fail_msg("case %zu: append %d", i, !cases[i].append);
        launch_clear(&l);
        json_decref(o);
    }
}

/* The line a killed job's stderr gets, by the kill's reason. */
static void test_cancel_line(void **state)
{
    static const struct {
        const char *reason, *tail; /* tail NULL: no line */
    } cases[] = {
        {"timeout", " DUE TO TIME LIMIT ***\n"},
        {"cancelled", " ***\n"},
        {"preempted", " DUE TO PREEMPTION ***\n"},
        {"node_down", " DUE TO NODE FAILURE ***\n"},
        {"requeued", " DUE TO JOB REQUEUE ***\n"},
        {"complete", NULL},
    };
    char buf[256];

    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = jobenv_cancel_line(42, "node01", cases[i].reason, 1764700000,
                                      buf, sizeof(buf));
        if (cases[i].tail == NULL) {
            assert_int_equal(n, 0);
            continue;
        }
        assert_int_equal(n, strlen(buf));
        assert_true(strncmp(buf,
                            "slurmstepd: error: *** JOB 42 ON node01 "
                            "CANCELLED AT 2025-12-02T18:26:40",
                            72) == 0);
        assert_string_equal(buf + 72, cases[i].tail);
    }
}

/* --propagate: the named limits with the values the submit side sent. */
static void test_rlimits(void **state)
{
    static const struct {
        const char *propagate; /* NULL: absent */
        size_t n;
        int first;
        uint64_t soft;
    } cases[] = {
        {NULL, 0, 0, 0},
        {"NONE", 0, 0, 0},
        {"NOFILE", 1, RLIMIT_NOFILE, 512},
        {"CORE,NOFILE", 2, RLIMIT_CORE, 0},
        {"ALL", 3, RLIMIT_CORE, 0},
        {"", 3, RLIMIT_CORE, 0},
        {"STACK", 1, RLIMIT_STACK, (uint64_t)RLIM_INFINITY},
        {"AS", 0, 0, 0}, /* no SLURM_RLIMIT_AS sent */
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *o = json_loads(base_job, 0, NULL);
        json_t *env = json_object_get(o, "environment");
        struct jobenv_rlimit rl[16];
        struct launch l;
        struct err e;
        size_t n;
        json_object_set_new(env, "SLURM_RLIMIT_NOFILE", json_string("512"));
        json_object_set_new(env, "SLURM_RLIMIT_CORE", json_string("0"));
        json_object_set_new(env, "SLURM_RLIMIT_STACK",
                            json_string("unlimited"));
        json_object_set_new(env, "SLURM_RLIMIT_CPU", json_string("12x"));
        if (cases[i].propagate != NULL)
            json_object_set_new(o, "propagate",
                                json_string(cases[i].propagate));
        assert_int_equal(launch_parse(o, &l, &e), 0);
        n = jobenv_rlimits(&l, rl, 16);
        if (n != cases[i].n)
            fail_msg("case %zu: %zu limits, want %zu", i, n, cases[i].n);
        if (n > 0 &&
            (rl[0].resource != cases[i].first || rl[0].soft != cases[i].soft))
            fail_msg("case %zu: first %d=%llu", i, rl[0].resource,
                     (unsigned long long)rl[0].soft);
        launch_clear(&l);
        json_decref(o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_refused),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_expand_array),
        cmocka_unit_test(test_output_paths),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_environment_extras),
        cmocka_unit_test(test_environment_gpus),
        cmocka_unit_test(test_umask),
        cmocka_unit_test(test_environment_slurm2205),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_cancel_line),
        cmocka_unit_test(test_rlimits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
