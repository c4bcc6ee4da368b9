/*
 * Unit tests for srun's pure parts (src/cli/srun_*.c): options and the
 * defaults a step inherits from its job's SLURM_* variables, the
 * STEP_CREATE request, -l labels and line buffering, -o/-e patterns and
 * files, the reply's layout, and Slurm's exit report.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "cli/opt.h"
#include "cli/srun.h"

#define MAX_WORDS 32

/* Parse the words of line (argv[0] first) with the environment env. */
static int parse(struct srun_opts *o, const char *line, char **env,
                 char ***words, struct err *e)
{
    int n;

    *words = opt_split(line, &n, e);
    assert_non_null(*words);
    return srun_opts_parse(o, n, *words, env, e);
}

static char *job_env[] = {"SLURM_JOB_ID=12",
                          "SLURM_NNODES=2",
                          "SLURM_NTASKS=8",
                          "SLURM_NTASKS_PER_NODE=4",
                          "SLURM_CPUS_PER_TASK=2",
                          "PATH=/bin",
                          NULL};

/* How the job's shape is inherited, Slurm 22.05's way. */
static void test_inherit(void **state)
{
    static const struct {
        const char *line;
        uint32_t ntasks, nmin, nmax, tpn, cpus;
    } cases[] = {
        {"srun hostname", 8, 2, 2, 4, 2},
        /* -n alone: the step chooses its nodes */
        {"srun -n 3 hostname", 3, 0, 0, 0, 2},
        /* -N reshapes the step: no SLURM_NTASKS */
        {"srun -N 1 hostname", 0, 1, 1, 4, 2},
        {"srun --ntasks-per-node=1 hostname", 0, 2, 2, 1, 2},
        {"srun -n 2 -N 1-2 -c 4 hostname", 2, 1, 2, 0, 4},
        {"srun -n4 -N2 --ntasks-per-node=2 -c1 true", 4, 2, 2, 2, 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        struct srun_opts o;
        struct err e;
        char **w;
        assert_int_equal(parse(&o, cases[i].line, job_env, &w, &e), 0);
        assert_int_equal(o.job_id, 12);
        assert_int_equal(o.ntasks, cases[i].ntasks);
        assert_int_equal(o.nodes_min, cases[i].nmin);
        assert_int_equal(o.nodes_max, cases[i].nmax);
        assert_int_equal(o.ntasks_per_node, cases[i].tpn);
        assert_int_equal(o.cpus_per_task, cases[i].cpus);
        srun_opts_clear(&o);
        opt_split_free(w);
    }
}

static void test_values(void **state)
{
    char *env[] = {"SLURM_JOB_ID=12",       "SLURM_LABELIO=1",
                   "SLURM_EXACT=yes",       "SLURM_DISTRIBUTION=cyclic",
                   "SLURM_KILL_BAD_EXIT=1", "SLURM_UNBUFFEREDIO=1",
                   "SLURM_GPUS_PER_TASK=1", NULL};
    struct srun_opts o;
    struct err e;
    char **w;

    (void)state;
    assert_int_equal(parse(&o,
                           "srun -K0 -m block:cyclic --jobid=7 -w "
                           "node[02,01] -x node03 --mem=4G -t 10 -I "
                           "--overlap -k -Q -v -v hostname -l -n 3",
                           env, &w, &e),
                     0);
    assert_int_equal(o.job_id, 7);
    assert_true(o.label);
    assert_true(o.exact);
    assert_true(o.unbuffered);
    assert_true(o.overlap);
    assert_true(o.no_kill);
    assert_true(o.quiet);
    assert_int_equal(o.verbose, 2);
    assert_false(o.kill_on_bad_exit);
    assert_string_equal(o.distribution, "block");
    assert_string_equal(o.nodelist, "node[01-02]");
    assert_string_equal(o.exclude, "node03");
    assert_int_equal(o.mem_mib, 4096);
    assert_int_equal(o.time_limit_s, 600);
    assert_int_equal(o.immediate_s, 0);
    assert_int_equal(o.gpus_per_task, 1);
    /* Everything after the command is the command's. */
    assert_int_equal(o.n_cmd, 4);
    assert_string_equal(o.cmd[0], "hostname");
    assert_string_equal(o.cmd[1], "-l");
    assert_int_equal(o.ntasks, 0);
    srun_opts_clear(&o);
    opt_split_free(w);

    assert_int_equal(parse(&o,
                           "srun --gres=gpu:h200:2 --gpus-per-task=h200:1 "
                           "-t 0 -I5 -i none -o out-%t -e none true",
                           env, &w, &e),
                     0);
    assert_int_equal(o.gpus_per_node, 2);
    assert_int_equal(o.gpus_per_task, 1);
    assert_int_equal(o.time_limit_s, -1);
    assert_int_equal(o.immediate_s, 5);
    assert_int_equal(o.input_task, SRUN_INPUT_NONE);
    assert_string_equal(o.out_pattern, "out-%t");
    assert_string_equal(o.err_pattern, "none");
    assert_true(o.kill_on_bad_exit);
    assert_string_equal(o.distribution, "cyclic");
    srun_opts_clear(&o);
    opt_split_free(w);

    assert_int_equal(parse(&o, "srun -i 3 true", env, &w, &e), 0);
    assert_int_equal(o.input_task, 3);
    assert_null(o.input_file);
    srun_opts_clear(&o);
    opt_split_free(w);
    assert_int_equal(parse(&o, "srun --input=in.txt true", env, &w, &e), 0);
    assert_int_equal(o.input_task, SRUN_INPUT_ALL);
    assert_string_equal(o.input_file, "in.txt");
    srun_opts_clear(&o);
    opt_split_free(w);
}

static void test_errors(void **state)
{
    static const struct {
        const char *line;
        const char *env;
        const char *text; /* how the message starts */
    } cases[] = {
        {"srun -n abc true", NULL, "--ntasks=abc: "},
        {"srun --nodes=3-1 true", NULL,
         "--nodes=3-1: the maximum node count is below the minimum"},
        {"srun --gpus-per-task=h200 true", NULL,
         "--gpus-per-task=h200: expected a GPU count, optionally with a type"},
        {"srun --gpus-per-node=0 true", NULL,
         "--gpus-per-node=0: expected a GPU count from 1 to 1024"},
        {"srun --gpus-per-node=gpu:h200:2000 true", NULL,
         "--gpus-per-node=gpu:h200:2000: expected a GPU count from 1 to 1024"},
        {"srun --gres=mps:1 true", NULL,
         "--gres=mps:1: only GPUs can be asked for per step"},
        {"srun -m diagonal true", NULL,
         "--distribution=diagonal: expected block, cyclic, plane=N or "
         "arbitrary"},
        {"srun -m plane=0 true", NULL, "--distribution=plane=0: expected"},
        {"srun -K2 true", NULL,
         "--kill-on-bad-exit=2: expected no value, 1 or 0"},
        {"srun --no-kill=maybe true", NULL,
         "--no-kill=maybe: expected no value, 1 or off"},
        {"srun --bogus true", NULL, "unrecognized option '--bogus'"},
        {"srun -c 0 true", NULL, "--cpus-per-task=0: "},
        {"srun true", "SLURM_NTASKS=x", "SLURM_NTASKS=x: "},
        {"srun true", "SLURM_DISTRIBUTION=spiral",
         "SLURM_DISTRIBUTION=spiral: expected block, cyclic"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        char *env[] = {(char *)cases[i].env, NULL};
        struct srun_opts o;
        struct err e;
        char **w;
        assert_int_equal(parse(&o, cases[i].line, env, &w, &e), -1);
        assert_int_equal(errno, EINVAL);
        if (strncmp(e.text, cases[i].text, strlen(cases[i].text)) != 0)
            fail_msg("%s: got \"%s\"", cases[i].line, e.text);
        srun_opts_clear(&o);
        opt_split_free(w);
    }
}

static void test_request(void **state)
{
    char *env[] = {"SLURM_JOB_ID=12", "SLURM_NNODES=2", "A=b", NULL};
    struct srun_opts o;
    struct err e;
    json_t *req;
    char **w;

    (void)state;
    assert_int_equal(parse(&o, "srun -D sub -n 2 /bin/echo hi", env, &w, &e),
                     0);
    req = srun_opts_request(&o, env, "/home/u", "10.0.0.1", 4321);
    assert_int_equal(json_integer_value(json_object_get(req, "job_id")), 12);
    assert_string_equal(json_string_value(json_object_get(req, "name")),
                        "echo");
    assert_string_equal(json_string_value(json_object_get(req, "cwd")),
                        "/home/u/sub");
    assert_int_equal(json_array_size(json_object_get(req, "argv")), 2);
    assert_int_equal(json_array_size(json_object_get(req, "env")), 3);
    assert_int_equal(json_integer_value(json_object_get(req, "ntasks")), 2);
    /* Not given: absent, for the controller's defaults. */
    assert_null(json_object_get(req, "nodes_min"));
    assert_null(json_object_get(req, "distribution"));
    assert_int_equal(json_integer_value(json_object_get(req, "time_limit_s")),
                     -1);
    assert_int_equal(json_integer_value(json_object_get(req, "input_task")),
                     SRUN_INPUT_ALL);
    assert_string_equal(json_string_value(json_object_get(req, "srun_host")),
                        "10.0.0.1");
    assert_int_equal(json_integer_value(json_object_get(req, "srun_port")),
                     4321);
    assert_true(json_is_false(json_object_get(req, "exact")));
    json_decref(req);
    srun_opts_clear(&o);
    opt_split_free(w);

    assert_int_equal(parse(&o, "srun -J train python x.py", env, &w, &e), 0);
    req = srun_opts_request(&o, env, "/", "h", 1);
    assert_string_equal(json_string_value(json_object_get(req, "name")),
                        "train");
    assert_int_equal(json_integer_value(json_object_get(req, "nodes_min")), 2);
    json_decref(req);
    srun_opts_clear(&o);
    opt_split_free(w);
}

/* srun outside a job: its options make the allocation's JOBSPEC, read by
 * sbatch's parsers. */
static void test_alloc_spec(void **state)
{
    char *env[] = {"PATH=/bin", NULL};
    struct srun_opts o;
    struct err e;
    json_t *job;
    char **w;

    (void)state;
    assert_int_equal(parse(&o,
                           "srun -p dev -A ml -q high -N 2 -n 4 -c 2 "
                           "--gres=gpu:a100:1 --mem=2G -t 30 -w node[01-02] "
                           "-I /usr/bin/python3 train.py",
                           env, &w, &e),
                     0);
    assert_int_equal(o.job_id, 0);
    job = srun_alloc_spec(&o, "/home/u", &e);
    assert_non_null(job);
    assert_string_equal(json_string_value(json_object_get(job, "alloc")),
                        "srun");
    assert_null(json_object_get(job, "script"));
    assert_string_equal(json_string_value(json_object_get(job, "partition")),
                        "dev");
    assert_string_equal(json_string_value(json_object_get(job, "account")),
                        "ml");
    assert_string_equal(json_string_value(json_object_get(job, "qos")), "high");
    assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 2);
    assert_int_equal(json_integer_value(json_object_get(job, "ntasks")), 4);
    assert_int_equal(json_integer_value(json_object_get(job, "cpus_per_task")),
                     2);
    assert_string_equal(json_string_value(json_object_get(job, "gres")),
                        "gpu:a100:1");
    assert_int_equal(json_integer_value(json_object_get(job, "mem_mib")), 2048);
    assert_int_equal(json_integer_value(json_object_get(job, "time_limit_s")),
                     1800);
    assert_string_equal(json_string_value(json_object_get(job, "nodelist")),
                        "node[01-02]");
    assert_string_equal(json_string_value(json_object_get(job, "name")),
                        "python3");
    assert_string_equal(json_string_value(json_object_get(job, "work_dir")),
                        "/home/u");
    assert_true(json_is_true(json_object_get(job, "immediate")));
    json_decref(job);
    srun_opts_clear(&o);
    opt_split_free(w);

    /* -J names the job; --gres=none asks for nothing; no -I */
    assert_int_equal(
        parse(&o, "srun -J dbg --gres=none -D /tmp hostname", env, &w, &e), 0);
    job = srun_alloc_spec(&o, "/home/u", &e);
    assert_non_null(job);
    assert_string_equal(json_string_value(json_object_get(job, "name")), "dbg");
    assert_null(json_object_get(job, "gres"));
    assert_null(json_object_get(job, "immediate"));
    assert_string_equal(json_string_value(json_object_get(job, "work_dir")),
                        "/tmp");
    json_decref(job);
    srun_opts_clear(&o);
    opt_split_free(w);

    /* a node count range: the minimum (and a note saying so) */
    assert_int_equal(parse(&o, "srun -N 1-2 hostname", env, &w, &e), 0);
    job = srun_alloc_spec(&o, "/", &e);
    assert_non_null(job);
    assert_int_equal(json_integer_value(json_object_get(job, "nodes")), 1);
    json_decref(job);
    srun_opts_clear(&o);
    opt_split_free(w);
    assert_int_equal(parse(&o, "srun -p '' hostname", env, &w, &e), -1);
    assert_string_equal(e.text, "--partition=: empty value");
    srun_opts_clear(&o);
    opt_split_free(w);
}

/* --interactive: salloc's step, one task on one node holding nothing,
 * whatever the allocation's variables say. */
static void test_interactive(void **state)
{
    char *env[] = {"SLURM_JOB_ID=12", "SLURM_NNODES=2", "SLURM_NTASKS=8", NULL};
    struct srun_opts o;
    struct err e;
    json_t *req;
    char **w;

    (void)state;
    assert_int_equal(
        parse(&o, "srun --interactive --preserve-env /bin/bash", env, &w, &e),
        0);
    assert_true(o.interactive);
    assert_true(o.preserve_env);
    req = srun_opts_request(&o, env, "/", "h", 1);
    assert_string_equal(json_string_value(json_object_get(req, "step_id")),
                        "interactive");
    assert_string_equal(json_string_value(json_object_get(req, "name")),
                        "interactive");
    assert_int_equal(json_integer_value(json_object_get(req, "ntasks")), 1);
    assert_int_equal(json_integer_value(json_object_get(req, "nodes_min")), 1);
    assert_int_equal(json_integer_value(json_object_get(req, "nodes_max")), 1);
    assert_true(json_is_true(json_object_get(req, "overlap")));
    assert_true(json_is_true(json_object_get(req, "preserve_env")));
    json_decref(req);
    srun_opts_clear(&o);
    opt_split_free(w);

    /* a plain step has neither */
    assert_int_equal(parse(&o, "srun hostname", env, &w, &e), 0);
    req = srun_opts_request(&o, env, "/", "h", 1);
    assert_null(json_object_get(req, "step_id"));
    assert_null(json_object_get(req, "preserve_env"));
    json_decref(req);
    srun_opts_clear(&o);
    opt_split_free(w);
}

/* ---- the step and its output ---- */

static json_t *reply_8x2(void)
{
    return json_pack("{s:i,s:i,s:s,s:[s,s],s:[[i,i,i,i],[i,i,i,i]],s:i,"
                     "s:i}",
                     "job_id", 12, "step_id", 3, "key",
                     "00112233445566778899aabbccddeeff00112233445566778899aabb"
                     "ccddeeff",
                     "nodes", "node01", "node02.lab", "tasks", 0, 1, 2, 3, 4, 5,
                     6, 7, "ntasks", 8, "kill_wait_s", 30);
}

static void step_8x2(struct srun_step *s)
{
    json_t *r = reply_8x2();
    struct err e;

    assert_int_equal(srun_step_from_reply(r, s, &e), 0);
    json_decref(r);
    s->job_name = strdup("train");
    s->user = strdup("alice");
    s->array_job_id = 12;
    s->array_task_id = 4294967294u;
}

static void test_reply(void **state)
{
    struct srun_step s;
    struct err e;
    json_t *r;

    (void)state;
    step_8x2(&s);
    assert_int_equal(s.job_id, 12);
    assert_int_equal(s.step_id, 3);
    assert_int_equal(s.n_nodes, 2);
    assert_int_equal(s.task_node[3], 0);
    assert_int_equal(s.task_node[4], 1);
    assert_int_equal(s.kill_wait_s, 30);
    srun_step_clear(&s);

    /* A task on two nodes, and one on none. */
    r = reply_8x2();
    json_array_set_new(json_array_get(json_object_get(r, "tasks"), 1), 0,
                       json_integer(3));
    assert_int_equal(srun_step_from_reply(r, &s, &e), -1);
    assert_int_equal(errno, EBADMSG);
    json_object_set_new(r, "ntasks", json_integer(0));
    assert_int_equal(srun_step_from_reply(r, &s, &e), -1);
    json_decref(r);
}

static void test_expand(void **state)
{
    static const struct {
        const char *pattern;
        uint32_t task;
        const char *want;
    } cases[] = {
        {"out-%j.%s-%t.txt", 5, "out-12.3-5.txt"},
        {"%N-%n-%3t", 5, "node02-1-005"},
        {"%x-%u-%A-%a", 0, "train-alice-12-4294967294"},
        {"100%%-%q", 0, "100%-%q"},
        {"lit\\%t", 1, "lit%t"},
    };
    struct srun_step s;

    (void)state;
    step_8x2(&s);
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        char *got = srun_expand(cases[i].pattern, &s, cases[i].task);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
    srun_step_clear(&s);
}

static void test_label_width(void **state)
{
    static const uint32_t n[] = {1, 8, 10, 11, 100, 101, 1000, 1001};
    static const int w[] = {1, 1, 1, 2, 2, 3, 3, 4};

    (void)state;
    for (size_t i = 0; i < sizeof(n) / sizeof(*n); i++)
        assert_int_equal(srun_label_width(n[i]), w[i]);
}

/* What fd holds from its start, as a string (caller frees). */
static char *slurp(int fd)
{
    char *buf = calloc(1, 65536);
    ssize_t n = pread(fd, buf, 65535, 0);

    assert_true(n >= 0);
    return buf;
}

struct chunk {
    uint32_t task;
    int err; /* 1: stderr; 2: the task's end (OUT_EOF) */
    const char *data;
};

static char *run_out(uint32_t ntasks, bool label, bool unbuffered,
                     const struct chunk *c, size_t n)
{
    int fd = memfd_create("srun-out", 0);
    struct srun_out *o = srun_out_fds(ntasks, fd, fd, label, unbuffered);
    char *got;

    for (size_t i = 0; i < n; i++) {
        if (c[i].err == 2)
            srun_out_eof(o, c[i].task);
        else
            srun_out_data(o, c[i].task, c[i].err ? SRUN_STDERR : SRUN_STDOUT,
                          c[i].data, strlen(c[i].data));
    }
    srun_out_flush(o);
    got = slurp(fd);
    srun_out_destroy(o);
    close(fd);
    return got;
}

static void test_lines(void **state)
{
    static const struct chunk interleave[] = {
        {0, 0, "hel"},    {1, 0, "world\n"}, {0, 0, "lo\npart"},
        {1, 1, "oops\n"}, {0, 2, NULL},
    };
    static const struct chunk many[] = {
        {0, 0, "a\nb\n"},
        {10, 0, "c\n"},
        {10, 0, "\n"},
    };
    static const struct chunk raw[] = {
        {0, 0, "ab"},
        {1, 0, "x"},
        {0, 0, "c\nd"},
    };
    char *got;

    (void)state;
    /* Whole lines only: task 0's half line waits for its newline. */
    got = run_out(2, false, false, interleave, 5);
    assert_string_equal(got, "world\nhello\noops\npart");
    free(got);
    got = run_out(2, true, false, interleave, 5);
    assert_string_equal(got, "1: world\n0: hello\n1: oops\n0: part");
    free(got);
    /* Labels padded to the widest task id. */
    got = run_out(11, true, false, many, 3);
    assert_string_equal(got, " 0: a\n 0: b\n10: c\n10: \n");
    free(got);
    /* -u: bytes as they come, a label where a task starts a line. */
    got = run_out(2, true, true, raw, 3);
    assert_string_equal(got, "0: ab1: xc\n0: d");
    free(got);
    got = run_out(2, false, true, raw, 3);
    assert_string_equal(got, "abxc\nd");
    free(got);
}

/* Output without newlines is not held back without end. */
static void test_long_line(void **state)
{
    int fd = memfd_create("srun-long", 0);
    struct srun_out *o = srun_out_fds(2, fd, fd, false, false);
    char *big = malloc(40000);

    (void)state;
    memset(big, 'x', 40000);
    srun_out_data(o, 0, SRUN_STDOUT, big, 40000);
    srun_out_flush(o);
    assert_int_equal(lseek(fd, 0, SEEK_END), 0); /* one piece: held */
    srun_out_data(o, 0, SRUN_STDOUT, big, 40000);
    srun_out_flush(o);
    /* Past 64 KiB the line goes out as it is. */
    assert_int_equal(lseek(fd, 0, SEEK_END), 80000);
    srun_out_data(o, 1, SRUN_STDOUT, "y\n", 2);
    srun_out_flush(o);
    assert_int_equal(lseek(fd, 0, SEEK_END), 80002);
    srun_out_destroy(o);
    close(fd);
    free(big);
}

static void test_files(void **state)
{
    char dir[] = "/tmp/test_cli_srun.XXXXXX", *pat, *path, buf[64];
    struct srun_step s;
    struct srun_out *o;
    struct err e;
    FILE *fp;

    (void)state;
    assert_non_null(mkdtemp(dir));
    step_8x2(&s);
    /* One file per node, stderr discarded. */
    pat = malloc(256);
    snprintf(pat, 256, "%s/o-%%n.txt", dir);
    o = srun_out_create(&s, pat, "none", true, false, false, &e);
    assert_non_null(o);
    srun_out_data(o, 1, SRUN_STDOUT, "one\n", 4);
    srun_out_data(o, 5, SRUN_STDOUT, "five\n", 5);
    srun_out_data(o, 5, SRUN_STDERR, "hidden\n", 7);
    srun_out_destroy(o);
    path = malloc(300);
    snprintf(path, 300, "%s/o-1.txt", dir);
    fp = fopen(path, "r");
    assert_non_null(fp);
    assert_non_null(fgets(buf, sizeof(buf), fp));
    assert_string_equal(buf, "5: five\n");
    assert_null(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    unlink(path);
    snprintf(path, 300, "%s/o-0.txt", dir);
    unlink(path);
    /* A file that cannot be opened is named. */
    snprintf(pat, 256, "%s/no/such/%%t", dir);
    assert_null(srun_out_create(&s, pat, NULL, false, false, false, &e));
    assert_non_null(strstr(e.text, "no/such/0: No such file or directory"));
    rmdir(dir);
    free(pat);
    free(path);
    srun_step_clear(&s);
}

static void test_report(void **state)
{
    struct srun_task_end t[8] = {0};
    struct srun_step s;
    char *text = NULL;
    size_t len = 0;
    FILE *fp;
    uint32_t ids[] = {0, 1, 2, 3, 5, 7, 8};
    char buf[64];

    (void)state;
    assert_string_equal(srun_task_ranges(ids, 7, buf, sizeof(buf)),
                        "0-3,5,7-8");
    step_8x2(&s);
    for (int i = 0; i < 8; i++)
        t[i] = (struct srun_task_end){SRUN_TASK_EXITED, 0, 0};
    assert_int_equal(srun_exit_code(t, 8), 0);
    t[0].exit_code = t[1].exit_code = t[3].exit_code = 2;
    t[2].signal = 9;
    t[6].exit_code = 3;
    fp = open_memstream(&text, &len);
    srun_report(fp, "srun", &s, t);
    fclose(fp);
    assert_string_equal(text, "srun: error: node01: tasks 0-1,3: Exited with "
                              "exit code 2\n"
                              "srun: error: node01: task 2: Killed\n"
                              "srun: error: node02.lab: task 6: Exited with "
                              "exit code 3\n");
    free(text);
    /* The worst: a signal counts as 128 + its number. */
    assert_int_equal(srun_exit_code(t, 8), 137);
    t[2].signal = 0;
    assert_int_equal(srun_exit_code(t, 8), 3);
    t[7].state = SRUN_TASK_LOST;
    t[6].exit_code = 0;
    t[0].exit_code = t[1].exit_code = t[3].exit_code = 0;
    assert_int_equal(srun_exit_code(t, 8), 1);
    srun_step_clear(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inherit),     cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_request),
        cmocka_unit_test(test_reply),       cmocka_unit_test(test_expand),
        cmocka_unit_test(test_label_width), cmocka_unit_test(test_lines),
        cmocka_unit_test(test_long_line),   cmocka_unit_test(test_files),
        cmocka_unit_test(test_report),      cmocka_unit_test(test_alloc_spec),
        cmocka_unit_test(test_interactive),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
