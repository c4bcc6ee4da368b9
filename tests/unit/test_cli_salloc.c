/*
 * Unit tests for salloc's pure parts and the allocation helpers it shares
 * with srun: options (sbatch's table and words), the SUBMIT body of an
 * allocation, the command's environment from a JOB_QUERY reply, the
 * command line, Slurm's message texts, exit codes and the poll backoff.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cli/alloc.h"
#include "cli/opt.h"
#include "cli/salloc.h"

static int parse(struct salloc_opts *o, const char *line, char **env,
                 char ***words, struct err *e)
{
    int n;

    *words = opt_split(line, &n, e);
    assert_non_null(*words);
    return salloc_opts_parse(o, n, *words, env, 1700000000, e);
}

static void test_options(void **state)
{
    char *env[] = {"SALLOC_PARTITION=backtest", "SALLOC_TIMELIMIT=10",
                   "SALLOC_BELL=1", NULL};
    struct salloc_opts o;
    struct err e;
    json_t *job;
    char **w;

    (void)state;
    assert_int_equal(parse(&o,
                           "salloc -N 2 -p dev --gres=gpu:1 -J dbg --no-shell "
                           "-I --no-bell -Q",
                           env, &w, &e),
                     0);
    assert_true(o.no_shell);
    assert_int_equal(o.immediate_s, 0);
    assert_int_equal(o.bell, SALLOC_BELL_NEVER); /* the command line wins */
    assert_true(o.js.quiet);
    assert_int_equal(o.n_cmd, 0);
    job = salloc_jobspec(&o, "/home/u", &e);
    assert_non_null(job);
    assert_string_equal(json_string_value(json_object_get(job, "alloc")),
                        "salloc");
    assert_null(json_object_get(job, "script"));
    assert_null(json_object_get(job, "argv"));
    assert_string_equal(json_string_value(json_object_get(job, "partition")),
                        "dev");
    assert_int_equal(json_integer_value(json_object_get(job, "time_limit_s")),
                     600); /* from SALLOC_TIMELIMIT */
    assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 2);
    assert_string_equal(json_string_value(json_object_get(job, "gres")),
                        "gpu:1");
    assert_string_equal(json_string_value(json_object_get(job, "name")), "dbg");
    assert_string_equal(json_string_value(json_object_get(job, "work_dir")),
                        "/home/u");
    assert_true(json_is_true(json_object_get(job, "immediate")));
    json_decref(job);
    salloc_opts_clear(&o);
    opt_split_free(w);

    /* a command: its base name names the job; options stop at it */
    assert_int_equal(
        parse(&o, "salloc -I30 -t 1:00 /usr/bin/python3 -t x", NULL, &w, &e),
        0);
    assert_int_equal(o.immediate_s, 30);
    assert_int_equal(o.n_cmd, 3);
    assert_string_equal(o.cmd[1], "-t");
    job = salloc_jobspec(&o, "/", &e);
    assert_string_equal(json_string_value(json_object_get(job, "name")),
                        "python3");
    assert_null(json_object_get(job, "immediate")); /* -I30 waits 30 s */
    assert_int_equal(json_integer_value(json_object_get(job, "time_limit_s")),
                     60);
    json_decref(job);
    salloc_opts_clear(&o);
    opt_split_free(w);

    /* no command: "interactive" */
    assert_int_equal(parse(&o, "salloc", NULL, &w, &e), 0);
    assert_int_equal(o.immediate_s, -1);
    assert_int_equal(o.bell, SALLOC_BELL_AFTER_DELAY);
    job = salloc_jobspec(&o, "/", &e);
    assert_string_equal(json_string_value(json_object_get(job, "name")),
                        "interactive");
    json_decref(job);
    salloc_opts_clear(&o);
    opt_split_free(w);
}

/* Mistakes read as sbatch's: the same parsers and checks. */
static void test_errors(void **state)
{
    static const struct {
        const char *line;
        bool syntax;
        const char *text;
    } cases[] = {
        {"salloc -t abc", false, "--time=abc: bad time \"abc\""},
        {"salloc --gres=gpu:x:y:z", false, "--gres=gpu:x:y:z: "},
        {"salloc -Iabc", false, "--immediate=abc: "},
        {"salloc --frob", true, "unrecognized option '--frob'"},
        {"salloc --wrap=hostname", true, "unrecognized option '--wrap'"},
        {"salloc --array=1-3", true, "unrecognized option '--array'"},
        {"salloc -p", true, "option requires an argument -- 'p'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        struct salloc_opts o;
        struct err e;
        char **w;
        if (parse(&o, cases[i].line, NULL, &w, &e) != -1)
            fail_msg("%s: parsed", cases[i].line);
        assert_int_equal(errno, EINVAL);
        assert_int_equal(o.syntax_error, cases[i].syntax);
        if (strncmp(e.text, cases[i].text, strlen(cases[i].text)) != 0)
            fail_msg("%s: got \"%s\"", cases[i].line, e.text);
        salloc_opts_clear(&o);
        opt_split_free(w);
    }
    /* the checks sbatch makes when it puts the JOBSPEC together */
    {
        struct salloc_opts o;
        struct err e;
        char **w;
        assert_int_equal(
            parse(&o, "salloc --mem=1G --mem-per-cpu=1G", NULL, &w, &e), 0);
        assert_null(salloc_jobspec(&o, "/", &e));
        assert_string_equal(e.text,
                            "--mem and --mem-per-cpu are mutually exclusive.");
        salloc_opts_clear(&o);
        opt_split_free(w);
    }
}

static json_t *job_2x4(void)
{
    return json_pack("{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i}", "job_id", 42,
                     "job_state", "RUNNING", "name", "interactive", "partition",
                     "backtest", "node_list", "node[01-02]", "nodes", 2, "cpus",
                     8, "ntasks", 3, "cpus_per_task", 2, "mem_mib", 2048);
}

static void test_env(void **state)
{
    char *envp[] = {"PATH=/bin", "SLURM_JOB_ID=7", "HOME=/home/u", NULL};
    json_t *job = job_2x4();
    json_t *spec = json_pack("{s:i,s:i,s:i}", "ntasks", 3, "cpus_per_task", 2,
                             "mem_mib", 2048);
    char **env;

    (void)state;
    env = salloc_env(job, spec, envp, "/home/u/src", "login1");
    assert_string_equal(salloc_env_get(env, "PATH"), "/bin");
    assert_string_equal(salloc_env_get(env, "HOME"), "/home/u");
    /* the allocation's, replacing an outer job's */
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_ID"), "42");
    assert_string_equal(salloc_env_get(env, "SLURM_JOBID"), "42");
    assert_string_equal(salloc_env_get(env, "SLUICE_JOB_ID"), "42");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_NAME"), "interactive");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_PARTITION"), "backtest");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_NODELIST"),
                        "node[01-02]");
    assert_string_equal(salloc_env_get(env, "SLURM_NODELIST"), "node[01-02]");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_NUM_NODES"), "2");
    assert_string_equal(salloc_env_get(env, "SLURM_NNODES"), "2");
    assert_string_equal(salloc_env_get(env, "SLUICE_NNODES"), "2");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_CPUS_PER_NODE"),
                        "4(x2)");
    assert_string_equal(salloc_env_get(env, "SLURM_TASKS_PER_NODE"), "2,1");
    assert_string_equal(salloc_env_get(env, "SLURM_NTASKS"), "3");
    assert_string_equal(salloc_env_get(env, "SLURM_NPROCS"), "3");
    assert_string_equal(salloc_env_get(env, "SLURM_CPUS_PER_TASK"), "2");
    assert_string_equal(salloc_env_get(env, "SLURM_MEM_PER_NODE"), "2048");
    assert_string_equal(salloc_env_get(env, "SLURM_SUBMIT_DIR"), "/home/u/src");
    assert_string_equal(salloc_env_get(env, "SLURM_SUBMIT_HOST"), "login1");
    assert_null(salloc_env_get(env, "SLURM_NTASKS_PER_NODE"));
    salloc_env_free(env);
    json_decref(spec);

    /* nothing asked: no task counts, one task per node */
    spec = json_object();
    env = salloc_env(job, spec, NULL, "/", "h");
    assert_null(salloc_env_get(env, "SLURM_NTASKS"));
    assert_null(salloc_env_get(env, "SLURM_CPUS_PER_TASK"));
    assert_null(salloc_env_get(env, "SLURM_MEM_PER_NODE"));
    assert_string_equal(salloc_env_get(env, "SLURM_TASKS_PER_NODE"), "2,1");
    salloc_env_free(env);
    json_object_set_new(job, "ntasks", json_integer(0));
    json_object_set_new(job, "node_list", json_string("node03"));
    json_object_set_new(job, "cpus", json_integer(4));
    env = salloc_env(job, spec, NULL, "/", "h");
    assert_string_equal(salloc_env_get(env, "SLURM_TASKS_PER_NODE"), "1");
    assert_string_equal(salloc_env_get(env, "SLURM_JOB_CPUS_PER_NODE"), "4");
    assert_string_equal(salloc_env_get(env, "SLURM_NNODES"), "1");
    salloc_env_free(env);
    json_decref(spec);
    json_decref(job);
}

static void test_command(void **state)
{
    struct conf conf = {.use_interactive_step = false};
    struct salloc_opts o;
    struct err e;
    char **w, **cmd;

    (void)state;
    conf.interactive_step_options = "";
    assert_int_equal(parse(&o, "salloc -N1", NULL, &w, &e), 0);
    /* the user's shell, locally */
    cmd = salloc_command(&o, &conf, "/bin/zsh", &e);
    assert_string_equal(cmd[0], "/bin/zsh");
    assert_null(cmd[1]);
    salloc_env_free(cmd);
    /* the interactive step, Slurm's default options */
    conf.use_interactive_step = true;
    cmd = salloc_command(&o, &conf, "/bin/zsh", &e);
    assert_string_equal(cmd[0], "srun");
    assert_string_equal(cmd[1], "--interactive");
    assert_string_equal(cmd[2], "--preserve-env");
    assert_string_equal(cmd[3], "--pty");
    assert_string_equal(cmd[4], "/bin/zsh");
    assert_null(cmd[5]);
    salloc_env_free(cmd);
    conf.interactive_step_options = "--interactive -p x '$SHELL' -l";
    cmd = salloc_command(&o, &conf, "/bin/bash", &e);
    assert_string_equal(cmd[4], "/bin/bash");
    assert_string_equal(cmd[5], "-l");
    salloc_env_free(cmd);
    conf.interactive_step_options = "--interactive 'unterminated";
    assert_null(salloc_command(&o, &conf, "/bin/bash", &e));
    salloc_opts_clear(&o);
    opt_split_free(w);
    /* a command given wins */
    assert_int_equal(parse(&o, "salloc srun -l hostname", NULL, &w, &e), 0);
    cmd = salloc_command(&o, &conf, "/bin/zsh", &e);
    assert_string_equal(cmd[0], "srun");
    assert_string_equal(cmd[1], "-l");
    assert_string_equal(cmd[2], "hostname");
    assert_null(cmd[3]);
    salloc_env_free(cmd);
    salloc_opts_clear(&o);
    opt_split_free(w);
}

static void test_messages(void **state)
{
    json_t *job = json_pack("{s:i,s:s}", "job_id", 42, "job_state", "TIMEOUT");
    char l1[256], l2[256], buf[256];

    (void)state;
    salloc_end_lines(job, 42, l1, sizeof(l1), l2, sizeof(l2));
    assert_string_equal(l1, "Job 42 has exceeded its time limit and its "
                            "allocation has been revoked.");
    assert_string_equal(l2, "");
    json_object_set_new(job, "job_state", json_string("PREEMPTED"));
    json_object_set_new(
        job, "preempted_by",
        json_pack("{s:i,s:s}", "job_id", 57, "partition", "prod"));
    salloc_end_lines(job, 42, l1, sizeof(l1), l2, sizeof(l2));
    assert_string_equal(l1, "Job allocation 42 has been revoked.");
    assert_string_equal(l2, "job 42 was preempted by job 57 (partition prod)");
    salloc_end_lines(NULL, 42, l1, sizeof(l1), l2, sizeof(l2));
    assert_string_equal(l1, "Job allocation 42 has been revoked.");
    assert_string_equal(l2, "");
    json_decref(job);

    job = json_pack("{s:i,s:s,s:s,s:n}", "job_id", 9, "job_state", "PENDING",
                    "state_reason", "None", "state_description");
    assert_null(alloc_pending_line(job, buf, sizeof(buf)));
    assert_null(alloc_preempted_line(job, buf, sizeof(buf)));
    json_object_set_new(job, "state_reason", json_string("Resources"));
    assert_string_equal(alloc_pending_line(job, buf, sizeof(buf)),
                        "job 9 pending: Reason=Resources");
    json_object_set_new(job, "state_reason", json_string("PartitionTimeLimit"));
    json_object_set_new(job, "state_description",
                        json_string("time limit 02:00:00 is over the "
                                    "partition's MaxTime 01:00:00"));
    assert_string_equal(alloc_pending_line(job, buf, sizeof(buf)),
                        "job 9 pending: Reason=PartitionTimeLimit (time limit "
                        "02:00:00 is over the partition's MaxTime 01:00:00)");
    json_decref(job);

    assert_string_equal(
        alloc_strip_prefix("Unable to allocate resources: Requested nodes "
                           "are busy"),
        "Requested nodes are busy");
    assert_string_equal(alloc_strip_prefix("Invalid partition name specified"),
                        "Invalid partition name specified");
    assert_true(alloc_state_is_live("RUNNING"));
    assert_true(alloc_state_is_live("SUSPENDED"));
    assert_false(alloc_state_is_live("COMPLETING"));
    assert_false(alloc_state_is_live("PENDING"));
    assert_false(alloc_state_is_live(NULL));
}

static void test_exit_codes(void **state)
{
    (void)state;
    /* wait statuses as waitpid gives them */
    assert_int_equal(salloc_exit_code(7 << 8), 7);
    assert_int_equal(salloc_complete_code(7 << 8), 7);
    assert_int_equal(salloc_exit_code(0), 0);
    assert_int_equal(salloc_exit_code(SIGHUP), 0);
    assert_int_equal(salloc_exit_code(SIGKILL), 0);
    assert_int_equal(salloc_exit_code(SIGSEGV), 1);
    assert_int_equal(salloc_complete_code(SIGKILL), -SIGKILL);
    assert_int_equal(salloc_complete_code(SIGSEGV), -SIGSEGV);
}

static void test_backoff(void **state)
{
    int d = ALLOC_POLL_FIRST_MS, n = 0, total = 0;

    (void)state;
    assert_int_equal(d, 1);
    while (d < ALLOC_POLL_MAX_MS) {
        total += d;
        d = alloc_backoff_next(d, ALLOC_POLL_MAX_MS);
        n++;
    }
    /* 1, 2, 4, ..., 128, then the cap */
    assert_int_equal(n, 8);
    assert_int_equal(total, 255);
    assert_int_equal(alloc_backoff_next(200, 200), 200);
    assert_int_equal(alloc_backoff_next(150, 200), 200);
    assert_int_equal(alloc_backoff_next(0, 200), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),  cmocka_unit_test(test_errors),
        cmocka_unit_test(test_env),      cmocka_unit_test(test_command),
        cmocka_unit_test(test_messages), cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_backoff),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
