/*
 * Unit tests for sbatch's options and directives (src/cli/jobspec*.c):
 * every option's value checks, #SBATCH parsing and precedence, batch
 * script checks, --begin times and --export environments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "cli/jobspec.h"

/* 2024-03-10T12:00:05Z */
#define NOW ((time_t)1710072005)

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long long num(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

static void test_set_values(void **state)
{
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(jobspec_set(&js, JS_NAME, "train", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_TIME, "1-02:03:04", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_MEM, "4G", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_CPUS_PER_TASK, "8", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_NTASKS_PER_NODE, "4", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_NODELIST, "node02,node01", NOW, &e),
                     0);
    assert_int_equal(jobspec_set(&js, JS_GRES, "gpu:2", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_GPUS, "h200:2", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_HOLD, NULL, NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_BEGIN, "now+1hour", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_ARRAY, "0-99%10", NOW, &e), 0);
    assert_int_equal(
        jobspec_set(&js, JS_DEPENDENCY, "afterok:5,afterok:6_2", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_KILL_INVALID_DEP, "yes", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_NO_KILL, NULL, NOW, &e), 0);
    assert_true(json_is_true(json_object_get(js.job, "no_kill")));
    assert_int_equal(jobspec_set(&js, JS_NO_KILL, "off", NOW, &e), 0);
    assert_true(json_is_false(json_object_get(js.job, "no_kill")));
    assert_string_equal(str(js.job, "array"), "0-99%10");
    assert_string_equal(str(js.job, "dependency"), "afterok:5:6_2");
    assert_true(json_is_true(json_object_get(js.job, "kill_on_invalid_dep")));
    assert_string_equal(str(js.job, "name"), "train");
    assert_int_equal(num(js.job, "time_limit_s"), 93784);
    assert_int_equal(num(js.job, "mem_mib"), 4096);
    assert_int_equal(num(js.job, "cpus_per_task"), 8);
    assert_int_equal(num(js.job, "ntasks_per_node"), 4);
    assert_string_equal(str(js.job, "nodelist"), "node[01-02]");
    assert_string_equal(str(js.job, "gres"), "gpu:2");
    assert_string_equal(str(js.job, "gpus"), "h200:2");
    assert_true(json_is_true(json_object_get(js.job, "hold")));
    assert_int_equal(num(js.job, "begin_time"), NOW + 3600);
    /* INFINITE, and 0 as Slurm reads it, ask for no limit. */
    assert_int_equal(jobspec_set(&js, JS_TIME, "0", NOW, &e), 0);
    assert_string_equal(str(js.job, "time_limit_s"), "INFINITE");
    assert_int_equal(jobspec_set(&js, JS_GPUS, "gpu:3", NOW, &e), 0);
    assert_string_equal(str(js.job, "gpus"), "3");
    jobspec_clear(&js);
}

static void test_set_errors(void **state)
{
    static const struct {
        int id;
        const char *arg, *prefix;
    } cases[] = {
        {JS_TIME, "abc", "--time=abc: bad time"},
        {JS_TIME, "10:60", "--time=10:60: "},
        {JS_MEM, "4X", "--mem=4X: "},
        {JS_CPUS_PER_TASK, "0", "--cpus-per-task=0: "},
        {JS_NTASKS, "-1", "--ntasks=-1: "},
        {JS_NTASKS_PER_NODE, "0", "--ntasks-per-node=0: "},
        {JS_NODES, "2-1", "--nodes=2-1: "},
        {JS_NODELIST, "node[01-", "--nodelist=node[01-: "},
        {JS_GRES, "gpu:x:y:z", "--gres=gpu:x:y:z: "},
        {JS_GPUS, "lots", "--gpus=lots: "},
        {JS_BEGIN, "someday", "--begin=someday: invalid time \"someday\""},
        {JS_EXPORT, "1BAD=x", "--export=1BAD=x: bad variable name"},
        {JS_PARTITION, "", "--partition=: empty value"},
        {JS_ARRAY, "0-15:0",
         "--array=0-15:0: invalid --array \"0-15:0\": "
         "a step of 0"},
        {JS_DEPENDENCY, "afterok:1?afterany:2,afterok:3",
         "--dependency=afterok:1?afterany:2,afterok:3: Job dependency "
         "problem"},
        {JS_KILL_INVALID_DEP, "maybe",
         "--kill-on-invalid-dep=maybe: expected yes or no"},
        {JS_NICE, "2147483646", "--nice=2147483646: expected an integer"},
        {JS_NICE, "1x", "--nice=1x: expected an integer from -2147483645"},
        {JS_NO_KILL, "yes", "--no-kill=yes: expected off or nothing"},
    };
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(jobspec_set(&js, cases[i].id, cases[i].arg, NOW, &e),
                         -1);
        if (strncmp(e.text, cases[i].prefix, strlen(cases[i].prefix)) != 0)
            fail_msg("case %zu: \"%s\" does not start with \"%s\"", i, e.text,
                     cases[i].prefix);
    }
    assert_int_equal(json_object_size(js.job), 0);
    jobspec_clear(&js);
}

static void test_directives(void **state)
{
    const char *script = "#!/bin/bash\n"
                         "#SBATCH -J dirjob --partition=dev\n"
                         "#SBATCH --time=10 # ten minutes\n"
                         "\n"
                         "  # an indented comment\n"
                         "#SBATCHX --qos=not-a-directive\n"
                         "#SBATCH --output='out %j.txt'\n"
                         "echo hello\n"
                         "#SBATCH --qos=after-the-first-command\n";
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js, script, "job.sh", NOW, &e), 0);
    assert_string_equal(str(js.job, "name"), "dirjob");
    assert_string_equal(str(js.job, "partition"), "dev");
    assert_int_equal(num(js.job, "time_limit_s"), 600);
    assert_string_equal(str(js.job, "std_out"), "out %j.txt");
    assert_null(json_object_get(js.job, "qos"));
    /* --nice takes its value only after '=': a bare --nice is 100 */
    assert_int_equal(jobspec_directives(&js, "#!/bin/sh\n#SBATCH --nice\n",
                                        "job.sh", NOW, &e),
                     0);
    assert_int_equal(num(js.job, "nice"), 100);
    assert_int_equal(jobspec_directives(&js, "#!/bin/sh\n#SBATCH --nice=-3\n",
                                        "job.sh", NOW, &e),
                     0);
    assert_int_equal(num(js.job, "nice"), -3);
    assert_int_equal(jobspec_directives(&js, "#!/bin/sh\n#SBATCH --nice 5\n",
                                        "job.sh", NOW, &e),
                     -1);
    assert_string_equal(e.text, "job.sh:2: unexpected argument \"5\"");
    /* The command line comes after the directives and wins. */
    assert_int_equal(jobspec_set(&js, JS_PARTITION, "prod", NOW, &e), 0);
    assert_string_equal(str(js.job, "partition"), "prod");
    jobspec_clear(&js);
}

static void test_directive_errors(void **state)
{
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js,
                                        "#!/bin/sh\n#SBATCH -J ok\n"
                                        "#SBATCH --time=abc\n",
                                        "job.sh", NOW, &e),
                     -1);
    assert_string_equal(e.text, "job.sh:3: --time=abc: bad time \"abc\": "
                                "expected M, M:S, H:M:S, D-H, D-H:M, D-H:M:S "
                                "or INFINITE");
    assert_int_equal(jobspec_directives(&js,
                                        "#!/bin/sh\n#SBATCH --frobnicate\n",
                                        "job.sh", NOW, &e),
                     -1);
    assert_string_equal(e.text, "job.sh:2: unrecognized option '--frobnicate'");
    assert_int_equal(jobspec_directives(&js, "#!/bin/sh\n#SBATCH -J a b\n",
                                        "job.sh", NOW, &e),
                     -1);
    assert_string_equal(e.text, "job.sh:2: unexpected argument \"b\"");
    jobspec_clear(&js);
}

static void test_check_script(void **state)
{
    static const struct {
        const char *script, *msg;
    } cases[] = {
        {"", "Batch script is empty!"},
        {"  \n\t\n", "Batch script contains only whitespace!"},
        {"echo hi\n", "This does not look like a batch script.  The first "
                      "line must start with #! followed by the path to an "
                      "interpreter."},
        {"#!/bin/sh\r\necho\r\n", "Batch script contains DOS line breaks "
                                  "(\\r\\n) instead of expected UNIX line "
                                  "breaks (\\n)."},
    };
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(
            jobspec_check_script(cases[i].script, strlen(cases[i].script), &e),
            -1);
        assert_string_equal(e.text, cases[i].msg);
    }
    assert_int_equal(jobspec_check_script("#!/bin/sh\0x", 11, &e), -1);
    assert_string_equal(e.text, "Batch script contains a NUL byte at offset 9");
    assert_int_equal(jobspec_check_script("#!/bin/sh\n", 10, &e), 0);
}

static void test_export(void **state)
{
    char *envp[] = {"PATH=/bin", "HOME=/root", "SLURM_CONF=/x", "A=1", NULL};
    struct err e;
    json_t *env;

    (void)state;
    env = jobspec_export_env("ALL", envp, &e);
    assert_int_equal(json_object_size(env), 4);
    json_decref(env);

    env = jobspec_export_env("NONE", envp, &e);
    assert_int_equal(json_object_size(env), 1); /* SLURM_* always travel */
    assert_string_equal(str(env, "SLURM_CONF"), "/x");
    json_decref(env);

    env = jobspec_export_env("HOME,B=two,MISSING", envp, &e);
    assert_int_equal(json_object_size(env), 3);
    assert_string_equal(str(env, "HOME"), "/root");
    assert_string_equal(str(env, "B"), "two");
    assert_null(json_object_get(env, "PATH"));
    json_decref(env);

    env = jobspec_export_env("ALL,A=override,C=", envp, &e);
    assert_string_equal(str(env, "A"), "override");
    assert_string_equal(str(env, "C"), "");
    assert_string_equal(str(env, "PATH"), "/bin");
    json_decref(env);

    assert_null(jobspec_export_env("GOOD,BAD-NAME=1", envp, &e));
    assert_non_null(strstr(e.text, "bad variable name \"BAD-NAME\""));
}

static void test_finish(void **state)
{
    char *envp[] = {"PATH=/bin", NULL};
    char *args[] = {"a", "b c"};
    struct jobspec js;
    struct err e;
    json_t *job;

    (void)state;
    jobspec_init(&js);
    job = jobspec_finish(&js, "#!/bin/sh\n", "sub/train.sh", args, 2, "/home/u",
                         envp, &e);
    assert_non_null(job);
    assert_string_equal(str(job, "name"), "train.sh");
    assert_string_equal(str(job, "work_dir"), "/home/u");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(job, "argv"), 0)),
        "/home/u/sub/train.sh");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(job, "argv"), 2)),
        "b c");
    assert_string_equal(str(json_object_get(job, "environment"), "PATH"),
                        "/bin");
    json_decref(job);
    jobspec_clear(&js);

    /* stdin: named "sbatch"; -D is taken relative to the cwd.  Only
     * SLURM_UMASK travels with --export=NONE: the submitter's umask. */
    jobspec_init(&js);
    jobspec_set(&js, JS_CHDIR, "work", NOW, &e);
    jobspec_set(&js, JS_EXPORT, "NONE", NOW, &e);
    mode_t old = umask(027);
    job =
        jobspec_finish(&js, "#!/bin/sh\n", NULL, NULL, 0, "/home/u", envp, &e);
    umask(old);
    assert_string_equal(str(job, "name"), "sbatch");
    assert_string_equal(str(job, "work_dir"), "/home/u/work");
    assert_null(json_object_get(job, "argv"));
    assert_int_equal(json_object_size(json_object_get(job, "environment")), 1);
    assert_string_equal(str(json_object_get(job, "environment"), "SLURM_UMASK"),
                        "0027");
    json_decref(job);
    jobspec_clear(&js);

    jobspec_init(&js);
    jobspec_set(&js, JS_WRAP, "hostname", NOW, &e);
    assert_null(jobspec_finish(&js, "#!/bin/sh\nhostname\n", "x.sh", NULL, 0,
                               "/", envp, &e));
    assert_string_equal(e.text,
                        "Script arguments not permitted with --wrap option");
    job = jobspec_finish(&js, "#!/bin/sh\nhostname\n", NULL, NULL, 0, "/", envp,
                         &e);
    assert_string_equal(str(job, "name"), "wrap");
    json_decref(job);
    jobspec_clear(&js);

    jobspec_init(&js);
    jobspec_set(&js, JS_MEM, "1G", NOW, &e);
    jobspec_set(&js, JS_MEM_PER_CPU, "100", NOW, &e);
    assert_null(
        jobspec_finish(&js, "#!/bin/sh\n", NULL, NULL, 0, "/", envp, &e));
    assert_string_equal(e.text,
                        "--mem and --mem-per-cpu are mutually exclusive.");
    jobspec_clear(&js);
}

/* The GPU options, as options and as directives, and their conflicts. */
static void test_gpu_options(void **state)
{
    const char *script = "#!/bin/bash\n"
                         "#SBATCH --gpus-per-node=a100:2 --cpus-per-gpu=4\n"
                         "#SBATCH --mem-per-gpu=10G\n"
                         "#SBATCH --gpus-per-task=gpu:1\n";
    char *none[] = {NULL};
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js, script, "g.sh", NOW, &e), 0);
    assert_string_equal(str(js.job, "gpus_per_node"), "a100:2");
    assert_string_equal(str(js.job, "gpus_per_task"), "1");
    assert_int_equal(num(js.job, "cpus_per_gpu"), 4);
    assert_int_equal(num(js.job, "mem_per_gpu_mib"), 10240);
    assert_int_equal(jobspec_set(&js, JS_GPUS_PER_NODE, "x:y:z", NOW, &e), -1);
    assert_string_equal(e.text,
                        "--gpus-per-node=x:y:z: bad GRES \"gpu:x:y:z\": "
                        "expected NAME[:TYPE][:COUNT]");
    assert_int_equal(jobspec_set(&js, JS_GPUS_PER_TASK, "h200", NOW, &e), -1);
    assert_int_equal(jobspec_set(&js, JS_CPUS_PER_GPU, "0", NOW, &e), -1);
    assert_int_equal(jobspec_set(&js, JS_MEM_PER_GPU, "lots", NOW, &e), -1);
    /* Slurm's conflicts, checked before anything is sent */
    assert_int_equal(jobspec_set(&js, JS_MEM, "1G", NOW, &e), 0);
    assert_null(jobspec_finish(&js, script, "g.sh", NULL, 0, "/", none, &e));
    assert_string_equal(e.text, "--mem, --mem-per-cpu, and --mem-per-gpu are "
                                "mutually exclusive.");
    jobspec_clear(&js);
    jobspec_init(&js);
    assert_int_equal(jobspec_set(&js, JS_CPUS_PER_GPU, "2", NOW, &e), 0);
    assert_int_equal(jobspec_set(&js, JS_CPUS_PER_TASK, "2", NOW, &e), 0);
    assert_null(jobspec_finish(&js, script, "g.sh", NULL, 0, "/", none, &e));
    assert_string_equal(e.text, "--cpus-per-gpu is mutually exclusive with "
                                "--cpus-per-task");
    jobspec_clear(&js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_values),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_directive_errors),
        cmocka_unit_test(test_check_script),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_gpu_options),
    };

    /* --begin's times of day are local: fix the zone. */
    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
