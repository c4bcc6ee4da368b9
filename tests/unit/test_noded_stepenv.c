/*
 * Unit tests for what a step's task sees: the STEP_LAUNCH step object
 * parsed and refused with the member named, and the task environment
 * (Slurm's step and task variables over srun's environment and the
 * job's, GPUs per task, SLUICE_* twins).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noded/jobenv.h"
#include "noded/stepenv.h"
#include "noded/steplaunch.h"

static const char *base_step =
    "{\"job_id\": 12, \"step_id\": 1, \"name\": \"hostname\", "
    "\"user_id\": 1000, \"group_id\": 1000, \"user_name\": \"zhangsan\", "
    "\"partition\": \"dev\", \"account\": \"quant\", "
    "\"argv\": [\"hostname\", \"-s\"], "
    "\"env\": [\"PATH=/usr/bin:/bin\", \"SLURM_STEP_ID=99\", "
    "\"SLURM_UMASK=0027\", \"CUDA_VISIBLE_DEVICES=7\"], "
    "\"cwd\": \"/home/zhangsan\", \"node_id\": 1, "
    "\"nodes\": [\"node01\", \"node02\"], \"node_list\": \"node[01-02]\", "
    "\"num_nodes\": 2, \"ntasks\": 8, \"tasks\": [4, 5, 6, 7], "
    "\"tasks_per_node\": \"4(x2)\", \"cpus_per_task\": 2, \"cpus\": 8, "
    "\"gpus\": [1, 2, 3, 5], \"gpus_per_task\": 1, "
    "\"job_gpus\": [1, 2, 3, 5], \"job_cpus\": 16, \"mem_mib\": 0, "
    "\"job_mem_mib\": 4000, \"time_limit_s\": -1, \"kill_wait_s\": 5, "
    "\"srun_host\": \"10.0.0.5\", \"srun_port\": 4321, "
    "\"key\": "
    "\"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\","
    " \"input_task\": -1, \"kill_on_bad_exit\": true, "
    "\"distribution\": \"cyclic\", \"job_node_list\": \"node[01-04]\", "
    "\"job_num_nodes\": 4, \"submit_dir\": \"/home/zhangsan/run\", "
    "\"job_name\": \"train\"}";

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text, JSON_DECODE_ANY, &je);

    if (o == NULL)
        fail_msg("json: %s", je.text);
    return o;
}

static void parse_ok(json_t *o, struct step_launch *s)
{
    struct err e;

    if (step_launch_parse(o, s, &e) < 0)
        fail_msg("step_launch_parse: %s", e.text);
}

static void test_parse(void **state)
{
    json_t *o = load(base_step);
    struct step_launch s;

    (void)state;
    parse_ok(o, &s);
    assert_int_equal(s.job_id, 12);
    assert_int_equal(s.step_id, 1);
    assert_int_equal(s.argc, 2);
    assert_string_equal(s.argv[0], "hostname");
    assert_null(s.argv[2]);
    assert_int_equal(s.n_env, 4);
    assert_int_equal(s.n_tasks, 4);
    assert_int_equal(s.tasks[3], 7);
    assert_int_equal(s.n_gpus, 4);
    assert_int_equal(s.time_limit_s, -1);
    assert_int_equal(s.srun_port, 4321);
    assert_int_equal(s.key[0], 0x00);
    assert_int_equal(s.key[1], 0x11);
    assert_int_equal(s.input_task, -1);
    assert_true(s.kill_on_bad_exit);
    assert_true(s.gpus_given);
    step_launch_clear(&s);
    /* the batch step's id and no "gpus": the job's GPUs */
    json_object_set_new(o, "step_id", json_integer(4294967291));
    json_object_del(o, "gpus");
    json_object_del(o, "gpus_per_task");
    parse_ok(o, &s);
    assert_int_equal(s.step_id, 4294967291u);
    assert_false(s.gpus_given);
    assert_int_equal(s.n_gpus, 4);
    step_launch_clear(&s);
    json_decref(o);
}

static void test_refused(void **state)
{
    static const struct {
        const char *key, *value, *message;
    } cases[] = {
        {"job_id", "0", "STEP_LAUNCH: job_id: expected an integer"},
        {"step_id", "\"x\"", "STEP_LAUNCH: step_id: expected an integer"},
        {"argv", "[]", "STEP_LAUNCH: argv: expected at least one string"},
        {"argv", "[1]", "STEP_LAUNCH: argv: expected an array of strings"},
        {"env", "[\"NOEQUALS\"]", "STEP_LAUNCH: env: expected strings"},
        {"tasks", "[]", "STEP_LAUNCH: tasks: expected a non-empty array"},
        {"tasks", "[8]", "STEP_LAUNCH: tasks: expected task ids"},
        {"node_id", "2", "STEP_LAUNCH: node_id: expected an index"},
        {"srun_port", "0", "STEP_LAUNCH: srun_port: expected an integer"},
        {"key", "\"abc\"", "STEP_LAUNCH: key: expected 64 hex digits"},
        {"gpus", "[1, 1]", "STEP_LAUNCH: gpus: expected an array of distinct"},
        {"gpus_per_task", "2", "STEP_LAUNCH: gpus_per_task: expected at most"},
        {"user_id", "null", "STEP_LAUNCH: user_id: expected an integer"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *o = load(base_step);
        struct step_launch s;
        struct err e;

        json_object_set_new(o, cases[i].key, load(cases[i].value));
        if (step_launch_parse(o, &s, &e) == 0)
            fail_msg("%s=%s accepted", cases[i].key, cases[i].value);
        assert_int_equal(errno, EINVAL);
        if (strncmp(e.text, cases[i].message, strlen(cases[i].message)) != 0)
            fail_msg("%s=%s: \"%s\"", cases[i].key, cases[i].value, e.text);
        json_decref(o);
    }
}

static char **env_of(const char *json_text, size_t local,
                     const struct stepenv_gpus *g)
{
    json_t *o = load(json_text);
    struct step_launch s;
    char **env;

    parse_ok(o, &s);
    env = stepenv_build(&s, local, g, "zhangsan", "node02");
    step_launch_clear(&s);
    json_decref(o);
    return env;
}

static void expect(char **env, const char *key, const char *value)
{
    const char *v = jobenv_get(env, key);

    if (v == NULL || strcmp(v, value) != 0)
        fail_msg("%s=%s, expected %s", key, v ? v : "(unset)", value);
}

static void test_task_environment(void **state)
{
    /* device numbers of the node's 6 GPUs: /dev/nvidia{10..15} */
    static const int ordinals[] = {10, 11, 12, 13, 14, 15};
    struct stepenv_gpus g = {ordinals, 6, false};
    char **env = env_of(base_step, 2, &g);

    (void)state;
    expect(env, "PATH", "/usr/bin:/bin");
    expect(env, "SLURM_UMASK", "0027");
    /* srun's SLURM_STEP_ID is replaced, not duplicated */
    expect(env, "SLURM_STEP_ID", "1");
    expect(env, "SLUICE_STEP_ID", "1");
    expect(env, "SLURM_STEPID", "1");
    expect(env, "SLURM_PROCID", "6");
    expect(env, "SLURM_LOCALID", "2");
    expect(env, "SLURM_NODEID", "1");
    expect(env, "SLURM_NTASKS", "8");
    expect(env, "SLURM_NPROCS", "8");
    expect(env, "SLURM_NNODES", "2");
    expect(env, "SLURM_NODELIST", "node[01-02]");
    expect(env, "SLURM_STEP_NODELIST", "node[01-02]");
    expect(env, "SLURM_STEP_NUM_NODES", "2");
    expect(env, "SLURM_STEP_NUM_TASKS", "8");
    expect(env, "SLURM_STEP_TASKS_PER_NODE", "4(x2)");
    expect(env, "SLURM_TASKS_PER_NODE", "4(x2)");
    expect(env, "SLURM_CPUS_PER_TASK", "2");
    expect(env, "SLURM_CPUS_ON_NODE", "8");
    expect(env, "SLURM_JOB_ID", "12");
    expect(env, "SLURM_JOBID", "12");
    expect(env, "SLURM_JOB_NAME", "train");
    expect(env, "SLURM_JOB_NODELIST", "node[01-04]");
    expect(env, "SLURM_JOB_NUM_NODES", "4");
    expect(env, "SLURM_SUBMIT_DIR", "/home/zhangsan/run");
    expect(env, "SLURMD_NODENAME", "node02");
    expect(env, "SLUICED_NODENAME", "node02");
    expect(env, "SLURM_LAUNCH_NODE_IPADDR", "10.0.0.5");
    expect(env, "SLURM_SRUN_COMM_HOST", "10.0.0.5");
    expect(env, "SLURM_SRUN_COMM_PORT", "4321");
    expect(env, "SLURM_DISTRIBUTION", "cyclic");
    /* one GPU per task: local task 2 gets the third, by device number */
    expect(env, "SLURM_JOB_GPUS", "11,12,13,15");
    expect(env, "SLURM_STEP_GPUS", "11,12,13,15");
    expect(env, "SLURM_GPUS_ON_NODE", "4");
    expect(env, "CUDA_VISIBLE_DEVICES", "13");
    expect(env, "GPU_DEVICE_ORDINAL", "13");
    for (char **p = env; *p; p++)
        for (char **q = p + 1; *q; q++)
            if (strncmp(*p, *q, strcspn(*p, "=") + 1) == 0)
                fail_msg("%s twice", *p);
    jobenv_free(env);
}

/* srun -E (--preserve-env), as salloc's interactive step uses it: the
 * shell keeps the allocation's SLURM_NNODES and has no SLURM_NTASKS when
 * srun had none, so that an srun inside lays out over the allocation. */
static void test_preserve_env(void **state)
{
    char *text = strdup(base_step);
    char *at = strstr(text, "\"SLURM_UMASK=0027\"");
    char **env;
    size_t len = strlen(text) + 128;
    char *with = malloc(len);

    (void)state;
    assert_non_null(at);
    /* srun's environment says 4 nodes; the step itself is 2 nodes, 8
     * tasks */
    snprintf(with, len, "%.*s\"SLURM_NNODES=4\", %s", (int)(at - text), text,
             at);
    at = strrchr(with, '}');
    snprintf(at, len - (size_t)(at - with), ", \"preserve_env\": true}");
    env = env_of(with, 0, NULL);
    expect(env, "SLURM_NNODES", "4");
    expect(env, "SLUICE_NNODES", "4");
    assert_null(jobenv_get(env, "SLURM_NTASKS"));
    assert_null(jobenv_get(env, "SLUICE_NTASKS"));
    assert_null(jobenv_get(env, "SLURM_NPROCS"));
    expect(env, "SLURM_STEP_NUM_TASKS", "8");
    jobenv_free(env);
    free(with);
    free(text);
}

static void test_gpus(void **state)
{
    static const int ordinals[] = {10, 11, 12, 13, 14, 15};
    struct stepenv_gpus fenced = {ordinals, 6, true};
    json_t *o = load(base_step);
    char *text, **env;

    (void)state;
    /* fenced devices count from 0 within the job's GPUs */
    env = env_of(base_step, 3, &fenced);
    expect(env, "CUDA_VISIBLE_DEVICES", "3");
    expect(env, "SLURM_STEP_GPUS", "11,12,13,15");
    jobenv_free(env);
    /* without gpus_per_task every task sees the step's GPUs */
    json_object_del(o, "gpus_per_task");
    json_object_set_new(o, "gpus", json_pack("[i, i]", 2, 5));
    text = json_dumps(o, 0);
    env = env_of(text, 0, &fenced);
    expect(env, "CUDA_VISIBLE_DEVICES", "1,3");
    expect(env, "SLURM_GPUS_ON_NODE", "2");
    jobenv_free(env);
    env = env_of(text, 1, NULL);
    expect(env, "CUDA_VISIBLE_DEVICES", "2,5"); /* no ordinals: indices */
    jobenv_free(env);
    free(text);
    /* neither the job nor the step has GPUs: srun's value passes */
    json_object_set_new(o, "gpus", json_array());
    json_object_set_new(o, "job_gpus", json_array());
    text = json_dumps(o, 0);
    env = env_of(text, 0, NULL);
    expect(env, "CUDA_VISIBLE_DEVICES", "7");
    assert_null(jobenv_get(env, "SLURM_GPUS_ON_NODE"));
    jobenv_free(env);
    free(text);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_task_environment),
        cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_preserve_env),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
