/*
 * Unit tests for Slurm 22.05's options in sbatch, salloc and srun
 * (src/cli/jobspec_slurm.c, slurmopts.c): each new option's JOBSPEC key,
 * each bad value's error, one warning line per warn-only option, the
 * nearest-name suggestion, and the same options as #SBATCH lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/client.h"
#include "cli/jobspec.h"
#include "cli/opt.h"
#include "cli/salloc.h"
#include "cli/slurmopts.h"
#include "cli/srun.h"

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

/* Parse the words of line (argv[0] first) with sbatch's table into js, as
 * sbatch's command line is: 0, or -1 with e. */
static int sbatch_words(struct jobspec *js, const char *line, struct err *e)
{
    struct opt_state st;
    const char *arg;
    char **words;
    int n, id, rc;

    words = opt_split(line, &n, e);
    assert_non_null(words);
    opt_init(&st, n, words, 1, false);
    while ((rc = opt_next(&st, jobspec_table(), &id, &arg, e)) > 0)
        if (jobspec_set(js, id, arg, NOW, e) < 0) {
            rc = -1;
            break;
        }
    opt_free(&st);
    opt_split_free(words);
    return rc;
}

/* The value of key after "sbatch OPT": a fresh jobspec each time. */
static json_t *one(const char *line)
{
    struct jobspec js;
    struct err e;
    json_t *job;

    jobspec_init(&js);
    if (sbatch_words(&js, line, &e) < 0)
        fail_msg("%s: %s", line, e.text);
    job = json_incref(js.job);
    jobspec_clear(&js);
    return job;
}

/* The error of "sbatch OPT" (it must fail). */
static const char *bad(const char *line)
{
    static struct err e;
    struct jobspec js;

    jobspec_init(&js);
    if (sbatch_words(&js, line, &e) == 0)
        fail_msg("%s was accepted", line);
    jobspec_clear(&js);
    return e.text;
}

static void test_new_keys(void **state)
{
    json_t *j;

    (void)state;
#define STR(line, key, want)                                                   \
    do {                                                                       \
        j = one(line);                                                         \
        assert_non_null(str(j, key));                                          \
        assert_string_equal(str(j, key), want);                                \
        json_decref(j);                                                        \
    } while (0)
#define NUM(line, key, want)                                                   \
    do {                                                                       \
        j = one(line);                                                         \
        assert_true(json_is_integer(json_object_get(j, key)));                 \
        assert_int_equal(num(j, key), want);                                   \
        json_decref(j);                                                        \
    } while (0)
#define TRUE(line, key)                                                        \
    do {                                                                       \
        j = one(line);                                                         \
        assert_true(json_is_true(json_object_get(j, key)));                    \
        json_decref(j);                                                        \
    } while (0)
    STR("sbatch --comment=\"hello world\"", "comment", "hello world");
    STR("sbatch --wckey submitit", "wckey", "submitit");
    NUM("sbatch --deadline=now+1hour", "deadline", NOW + 3600);
    NUM("sbatch --time-min=1:30:00", "time_min_s", 5400);
    NUM("sbatch --time-min 10", "time_min_s", 600);
    NUM("sbatch --tmp=10G", "tmp_mib", 10240);
    NUM("sbatch --tmp=512", "tmp_mib", 512);
    NUM("sbatch --mincpus=4", "mincpus", 4);
    STR("sbatch --exclusive", "exclusive", "node");
    STR("sbatch --exclusive=user", "exclusive", "user");
    STR("sbatch --exclusive=MCS", "exclusive", "mcs");
    TRUE("sbatch -s", "oversubscribe");
    TRUE("sbatch --oversubscribe", "oversubscribe");
    STR("sbatch -C gpu&h200", "constraint", "gpu&h200");
    STR("sbatch --constraint=[rack1|rack2]*2", "constraint", "[rack1|rack2]*2");
    NUM("sbatch -B 2:8:1", "sockets_per_node", 2);
    NUM("sbatch -B 2:8:1", "cores_per_socket", 8);
    NUM("sbatch -B 2:8:1", "threads_per_core", 1);
    NUM("sbatch -B *:4", "cores_per_socket", 4);
    NUM("sbatch --extra-node-info=2", "sockets_per_node", 2);
    NUM("sbatch --sockets-per-node=2", "sockets_per_node", 2);
    NUM("sbatch --cores-per-socket=16", "cores_per_socket", 16);
    NUM("sbatch --threads-per-core=1", "threads_per_core", 1);
    NUM("sbatch --ntasks-per-gpu=2", "ntasks_per_gpu", 2);
    STR("sbatch --gres-flags=enforce-binding", "gres_flags", "enforce-binding");
    STR("sbatch --gres-flags=disable-binding", "gres_flags", "disable-binding");
    STR("sbatch --gpu-bind=closest", "gpu_bind", "closest");
    STR("sbatch --gpu-bind=verbose,map_gpu:0,1", "gpu_bind",
        "verbose,map_gpu:0,1");
    STR("sbatch --gpu-bind=single:1", "gpu_bind", "single:1");
    STR("sbatch --cpu-bind=cores", "cpu_bind", "cores");
    STR("sbatch --cpu-bind=verbose", "cpu_bind", "verbose");
    STR("sbatch --cpu-bind=quiet,map_cpu:0,2", "cpu_bind", "quiet,map_cpu:0,2");
    STR("sbatch --hint=nomultithread", "hint", "nomultithread");
    STR("sbatch -m cyclic", "distribution", "cyclic");
    STR("sbatch --distribution=block:cyclic:fcyclic,Pack", "distribution",
        "block:cyclic:fcyclic,Pack");
    STR("sbatch -m plane=4", "distribution", "plane=4");
    STR("sbatch -m arbitrary", "distribution", "arbitrary");
    TRUE("sbatch --spread-job", "spread_job");
    TRUE("sbatch --use-min-nodes", "use_min_nodes");
    NUM("sbatch --priority=100", "priority", 100);
    NUM("sbatch --priority=TOP", "priority", JOBSPEC_PRIORITY_TOP);
    NUM("sbatch --uid=0", "uid", 0);
    NUM("sbatch --uid=root", "uid", 0);
    NUM("sbatch --gid=root", "gid", 0);
    NUM("sbatch --gid=1234", "gid", 1234);
    STR("sbatch --reservation=maint", "reservation", "maint");
    STR("sbatch --mail-type=end,BEGIN,fail", "mail_type", "BEGIN,END,FAIL");
    STR("sbatch --mail-type=ALL", "mail_type",
        "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
    STR("sbatch --mail-type=NONE", "mail_type", "NONE");
    STR("sbatch --mail-type=BEGIN,NONE,END", "mail_type", "END");
    STR("sbatch --mail-type=TIME_LIMIT_90,ARRAY_TASKS", "mail_type",
        "TIME_LIMIT_90,ARRAY_TASKS");
    STR("sbatch --mail-user=a@example.org", "mail_user", "a@example.org");
    STR("sbatch --open-mode=append", "open_mode", "append");
    STR("sbatch --open-mode=Truncate", "open_mode", "truncate");
    STR("sbatch --open-mode=a", "open_mode", "append");
    TRUE("sbatch --get-user-env", "get_user_env");
    STR("sbatch --get-user-env=10L", "get_user_env", "10L");
    STR("sbatch --get-user-env=S", "get_user_env", "S");
    STR("sbatch --propagate", "propagate", "ALL");
    STR("sbatch --propagate=stack,RLIMIT_NOFILE,core", "propagate",
        "STACK,NOFILE,CORE");
#undef STR
#undef NUM
#undef TRUE
}

/* Slurm's one sharing setting: the later of --exclusive and -s wins. */
/* Free text may be empty (Slurm's "not given"). */
static void test_empty_text(void **state)
{
    json_t *j;

    (void)state;
    j = one("sbatch --comment=x --comment= --wckey= --reservation= "
            "--mail-user=");
    assert_int_equal(json_object_size(j), 0);
    json_decref(j);
}

static void test_exclusive_oversubscribe(void **state)
{
    json_t *j;

    (void)state;
    j = one("sbatch --exclusive -s");
    assert_null(json_object_get(j, "exclusive"));
    assert_true(json_is_true(json_object_get(j, "oversubscribe")));
    json_decref(j);
    j = one("sbatch --exclusive=oversubscribe");
    assert_null(json_object_get(j, "exclusive"));
    assert_true(json_is_true(json_object_get(j, "oversubscribe")));
    json_decref(j);
    j = one("sbatch --exclusive=exclusive");
    assert_string_equal(str(j, "exclusive"), "node");
    json_decref(j);
    j = one("sbatch -s --exclusive=user");
    assert_null(json_object_get(j, "oversubscribe"));
    assert_string_equal(str(j, "exclusive"), "user");
    json_decref(j);
}

static void test_finish_checks(void **state)
{
    struct jobspec js;
    struct err e;
    char *envp[] = {NULL};

    (void)state;
    jobspec_init(&js);
    assert_int_equal(
        sbatch_words(&js, "sbatch --ntasks-per-gpu=2 --gpus-per-task=1", &e),
        0);
    assert_null(
        jobspec_finish(&js, "#!/bin/sh\n", "x.sh", NULL, 0, "/", envp, &e));
    assert_string_equal(e.text, "--gpus-per-task is mutually exclusive with "
                                "--ntasks-per-gpu");
    jobspec_clear(&js);
}

static void test_wait_quiet(void **state)
{
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(sbatch_words(&js, "sbatch -W -Q", &e), 0);
    assert_true(js.wait);
    assert_true(js.quiet);
    jobspec_clear(&js);
    jobspec_init(&js);
    assert_int_equal(sbatch_words(&js, "sbatch --wait", &e), 0);
    assert_true(js.wait);
    /* nothing of it goes to the controller */
    assert_int_equal(json_object_size(js.job), 0);
    jobspec_clear(&js);
}

static void test_wait_status(void **state)
{
    json_t *j;

    (void)state;
    j = json_pack("{s:{s:i,s:i}}", "exit_code", "return_code", 3, "signal", 0);
    assert_int_equal(jobspec_wait_status(j), 3);
    json_decref(j);
    j = json_pack("{s:{s:i,s:i}}", "exit_code", "return_code", 0, "signal", 9);
    assert_int_equal(jobspec_wait_status(j), 137);
    json_decref(j);
    j = json_pack("{s:{s:i,s:i}}", "exit_code", "return_code", 0, "signal", 0);
    assert_int_equal(jobspec_wait_status(j), 0);
    json_decref(j);
}

static void test_bad_values(void **state)
{
    (void)state;
#define BAD(line, want)                                                        \
    do {                                                                       \
        const char *t = bad(line);                                             \
        if (strstr(t, want) == NULL)                                           \
            fail_msg("%s: \"%s\" lacks \"%s\"", line, t, want);                \
    } while (0)
    BAD("sbatch --deadline=soon", "--deadline=soon: ");
    BAD("sbatch --time-min=abc", "--time-min=abc: ");
    BAD("sbatch --time-min=0", "--time-min=0: expected a time above 0");
    BAD("sbatch --tmp=lots", "--tmp=lots: ");
    BAD("sbatch --mincpus=0", "--mincpus=0: ");
    BAD("sbatch --exclusive=node", "--exclusive=node: expected user, mcs");
    BAD("sbatch -C gpu[", "--constraint=gpu[: unbalanced");
    BAD("sbatch --constraint=a;b", "unexpected ';'");
    BAD("sbatch -B 2:x", "--extra-node-info=2:x: ");
    BAD("sbatch -B 1:2:3:4", "at most three parts");
    BAD("sbatch --sockets-per-node=0", "--sockets-per-node=0: ");
    BAD("sbatch --ntasks-per-gpu=x", "--ntasks-per-gpu=x: ");
    BAD("sbatch --gres-flags=enforce", "expected enforce-binding or");
    BAD("sbatch --gpu-bind=nearest", "--gpu-bind=nearest: expected");
    BAD("sbatch --gpu-bind=map_gpu:", "--gpu-bind=map_gpu:: expected");
    BAD("sbatch --cpu-bind=spread", "--cpu-bind=spread: expected");
    BAD("sbatch --hint=fast", "--hint=fast: expected compute_bound");
    BAD("sbatch -m diagonal", "--distribution=diagonal: expected");
    BAD("sbatch -m block:block:block:block", "expected block");
    BAD("sbatch -m plane=0", "expected block");
    BAD("sbatch -m block,Tight", "expected block");
    BAD("sbatch --priority=high", "--priority=high: expected a number");
    BAD("sbatch --priority=-1", "--priority=-1: ");
    BAD("sbatch --uid=no-such-user-xyz",
        "--uid=no-such-user-xyz: no such user");
    BAD("sbatch --gid=no-such-group-xyz", "no such group");
    BAD("sbatch --mail-type=END,BOGUS", "invalid mail type 'BOGUS'");
    BAD("sbatch --open-mode=write", "--open-mode=write: expected append or");
    BAD("sbatch --get-user-env=10X", "expected [TIMEOUT][S|L]");
    BAD("sbatch --propagate=STACK,HEAP", "invalid resource limit 'HEAP'");
    BAD("sbatch --wait=5", "doesn't allow an argument");
#undef BAD
}

/* Every warn-only option of cmd is in table, takes a value as in Slurm,
 * and adds exactly its one line. */
static void check_warn_entries(const struct opt_def *table, unsigned cmd)
{
    size_t count = 0;

    for (size_t i = 0; slurmopts_warn_table[i].long_name != NULL; i++) {
        const struct slurmopt_warn *w = &slurmopts_warn_table[i];
        json_t *notes;
        char want[160];
        int id;
        if ((w->cmds & cmd) == 0)
            continue;
        id = slurmopts_find(table, w->long_name);
        if (!slurmopts_is_warn(id))
            continue; /* the command implements it */
        count++;
        notes = json_array();
        slurmopts_note(notes, id);
        slurmopts_note(notes, id);
        assert_int_equal(json_array_size(notes), 1);
        snprintf(want, sizeof(want), "--%s has no effect in Sluice (%s)",
                 w->long_name, w->reason);
        assert_string_equal(json_string_value(json_array_get(notes, 0)), want);
        json_decref(notes);
    }
    assert_true(count > 10);
}

/* No long name or short letter twice in a command's table. */
static void check_unique(const struct opt_def *table)
{
    for (const struct opt_def *a = table; a->id != 0; a++)
        for (const struct opt_def *b = a + 1; b->id != 0; b++) {
            if (a->long_name != NULL && b->long_name != NULL &&
                strcmp(a->long_name, b->long_name) == 0)
                fail_msg("--%s twice", a->long_name);
            if (a->short_name != 0 && a->short_name == b->short_name &&
                a->id != b->id)
                fail_msg("-%c twice", a->short_name);
        }
}

static void test_warn_table(void **state)
{
    (void)state;
    check_unique(jobspec_table());
    check_warn_entries(jobspec_table(), SLURMOPTS_SBATCH);
}

/* stderr of fn(arg) as text (at most 4 KiB). */
static char captured[4096];

static const char *capture_stderr(void (*fn)(json_t *), json_t *arg)
{
    char path[] = "/tmp/test_slurmopts_XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    ssize_t n;

    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    n = read(fd, captured, sizeof(captured) - 1);
    captured[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return captured;
}

static int count_lines(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

static void test_warn_lines(void **state)
{
    static const char *const lines[] = {
        "sbatch --switches=1",
        "sbatch -S 2",
        "sbatch -M other",
        "sbatch -L matlab:1",
        "sbatch -i in.txt",
        "sbatch -I",
        "sbatch -O",
        "sbatch -v",
        "sbatch -F nodes.txt",
        "sbatch --power=x",
        "sbatch --network=ib",
        "sbatch --bb=x",
        "sbatch --profile=all",
        "sbatch --ignore-pbs",
        "sbatch --contiguous",
        "sbatch --reboot",
        "sbatch --cpu-freq=low",
        "sbatch --mem-bind=local",
        "sbatch --ntasks-per-core=1",
        "sbatch --prefer=a100",
        "sbatch --wait-all-nodes=1",
        "sbatch --acctg-freq=30",
        "sbatch --gpu-freq=high",
        "sbatch --export-file=f",
    };
    const char *out;

    (void)state;
    cli_set_prog("sbatch");
    for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
        struct jobspec js;
        struct err e;
        char want[64];
        const char *name;

        jobspec_init(&js);
        if (sbatch_words(&js, lines[i], &e) < 0)
            fail_msg("%s: %s", lines[i], e.text);
        /* twice on the line: still one warning */
        if (sbatch_words(&js, lines[i], &e) < 0)
            fail_msg("%s: %s", lines[i], e.text);
        out = capture_stderr(slurmopts_print, js.notes);
        if (count_lines(out) != 1 || strncmp(out, "sbatch: warning: --", 19) ||
            strstr(out, " has no effect in Sluice (") == NULL)
            fail_msg("%s: \"%s\"", lines[i], out);
        name = lines[i] + 7;
        if (name[1] != '-') {
            /* a short letter: the line names the long option */
            assert_true(strstr(out, "warning: --") != NULL);
        } else {
            snprintf(want, sizeof(want), "%.*s has no", (int)strcspn(name, "="),
                     name);
            if (strstr(out, want) == NULL)
                fail_msg("%s: \"%s\"", lines[i], out);
        }
        assert_int_equal(json_object_size(js.job), 0);
        jobspec_clear(&js);
    }
    out = capture_stderr(slurmopts_print, NULL);
    assert_string_equal(out, "");
}

static void test_suggest(void **state)
{
    struct opt_state st;
    const char *arg;
    char *argv[] = {"sbatch", "--ntask-per-node=2", NULL};
    struct err e;
    int id;

    (void)state;
    assert_string_equal(slurmopts_nearest(jobspec_table(), "ntask-per-node"),
                        "ntasks-per-node");
    assert_string_equal(slurmopts_nearest(jobspec_table(), "tiem"), "time");
    assert_string_equal(slurmopts_nearest(jobspec_table(), "exlusive"),
                        "exclusive");
    assert_string_equal(slurmopts_nearest(jobspec_table(), "mail-tipe"),
                        "mail-type");
    assert_string_equal(slurmopts_nearest(jobspec_table(), "swiches"),
                        "switches");
    assert_null(slurmopts_nearest(jobspec_table(), "xyzzy"));
    assert_null(slurmopts_nearest(jobspec_table(), "frobnicate-all"));
    opt_init(&st, 2, argv, 1, false);
    assert_int_equal(opt_next(&st, jobspec_table(), &id, &arg, &e), -1);
    assert_string_equal(e.text, "unrecognized option '--ntask-per-node'");
    assert_string_equal(st.unknown, "ntask-per-node");
    opt_free(&st);
}

static void print_opt_errors(json_t *unused)
{
    (void)unused;
    slurmopts_error("ntask-per-node", jobspec_table(),
                    "unrecognized option '--ntask-per-node'", "sbatch");
    slurmopts_error("xyzzy", jobspec_table(), "unrecognized option '--xyzzy'",
                    "sbatch");
}

static void test_error_lines(void **state)
{
    (void)state;
    cli_set_prog("sbatch");
    assert_string_equal(capture_stderr(print_opt_errors, NULL),
                        "sbatch: error: unrecognized option "
                        "'--ntask-per-node'\n"
                        "sbatch: error: did you mean '--ntasks-per-node'?\n"
                        "sbatch: error: unrecognized option '--xyzzy' (see "
                        "'sbatch --help')\n");
}

static void test_directives(void **state)
{
    const char *script =
        "#!/bin/bash\n"
        "#SBATCH --exclusive\n"
        "#SBATCH -C 'gpu&h200'\n"
        "#SBATCH --mail-type=END,FAIL\n"
        "#SBATCH --mail-user=me@example.org\n"
        "#SBATCH --open-mode=append\n"
        "#SBATCH --comment=\"a b\" --wckey=submitit\n"
        "#SBATCH --switches=1 --power=x\n"
        "#SBATCH --switches=2\n"
        "#SBATCH -B 2:8 --hint=compute_bound\n"
        "#SBATCH --gpu-bind=closest --gres-flags=enforce-binding\n"
        "#SBATCH --time-min=30 --tmp=1G --deadline=now+2hours\n"
        "srun hostname\n";
    struct jobspec js;
    struct err e;

    (void)state;
    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js, script, "job.sh", NOW, &e), 0);
    assert_string_equal(str(js.job, "exclusive"), "node");
    assert_string_equal(str(js.job, "constraint"), "gpu&h200");
    assert_string_equal(str(js.job, "mail_type"), "END,FAIL");
    assert_string_equal(str(js.job, "mail_user"), "me@example.org");
    assert_string_equal(str(js.job, "open_mode"), "append");
    assert_string_equal(str(js.job, "comment"), "a b");
    assert_string_equal(str(js.job, "wckey"), "submitit");
    assert_int_equal(num(js.job, "sockets_per_node"), 2);
    assert_int_equal(num(js.job, "cores_per_socket"), 8);
    assert_string_equal(str(js.job, "hint"), "compute_bound");
    assert_string_equal(str(js.job, "gpu_bind"), "closest");
    assert_string_equal(str(js.job, "gres_flags"), "enforce-binding");
    assert_int_equal(num(js.job, "time_min_s"), 1800);
    assert_int_equal(num(js.job, "tmp_mib"), 1024);
    assert_int_equal(num(js.job, "deadline"), NOW + 7200);
    /* --switches twice, --power once: two lines */
    assert_int_equal(json_array_size(js.notes), 2);
    assert_string_equal(json_string_value(json_array_get(js.notes, 0)),
                        "--switches has no effect in Sluice (no network "
                        "topology)");
    jobspec_clear(&js);

    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js,
                                        "#!/bin/sh\n#SBATCH -N 1\n"
                                        "#SBATCH --ntask-per-node=4\n",
                                        "t.sh", NOW, &e),
                     -1);
    assert_string_equal(e.text, "t.sh:3: unrecognized option "
                                "'--ntask-per-node'; did you mean "
                                "'--ntasks-per-node'?");
    jobspec_clear(&js);
    jobspec_init(&js);
    assert_int_equal(jobspec_directives(&js,
                                        "#!/bin/sh\n"
                                        "#SBATCH --mail-type=END,NEVER\n",
                                        "t.sh", NOW, &e),
                     -1);
    assert_non_null(strstr(e.text, "t.sh:2: --mail-type=END,NEVER: invalid "
                                   "mail type 'NEVER'"));
    jobspec_clear(&js);
}

/* Parse with srun's parser, no environment. */
static int srun_words(struct srun_opts *o, const char *line, struct err *e)
{
    char *env[] = {NULL};
    char **words;
    int n, rc;

    words = opt_split(line, &n, e);
    assert_non_null(words);
    rc = srun_opts_parse(o, n, words, env, e);
    /* the command is borrowed from words: drop it before freeing them */
    o->cmd = NULL;
    o->n_cmd = 0;
    opt_split_free(words);
    return rc;
}

static void test_srun(void **state)
{
    struct srun_opts o;
    struct err e;

    (void)state;
    assert_int_equal(srun_words(&o,
                                "srun --mpi=pmix -X --mpi=pmi2 --comment=x "
                                "-C gpu --exclusive --mail-type=end -G 1 "
                                "hostname",
                                &e),
                     0);
    assert_int_equal(json_array_size(o.notes), 2);
    assert_string_equal(json_string_value(json_array_get(o.notes, 0)),
                        "--mpi has no effect in Sluice (tasks start without "
                        "an MPI plugin)");
    assert_true(o.exact); /* a step's --exclusive */
    /* kept for srun's own allocation */
    assert_int_equal(o.n_alloc_args, 5);
    assert_int_equal(o.alloc_args[0].js_id, JS_COMMENT);
    assert_int_equal(o.alloc_args[1].js_id, JS_CONSTRAINT);
    assert_int_equal(o.alloc_args[2].js_id, JS_EXCLUSIVE);
    assert_int_equal(o.alloc_args[3].js_id, JS_MAIL_TYPE);
    assert_int_equal(o.alloc_args[4].js_id, JS_GPUS);
    srun_opts_clear(&o);

    assert_int_equal(srun_words(&o, "srun --mail-type=soon hostname", &e), -1);
    assert_non_null(strstr(e.text, "--mail-type=soon: invalid mail type"));
    srun_opts_clear(&o);
    assert_int_equal(srun_words(&o, "srun --ntask-per-node=1 hostname", &e),
                     -1);
    assert_string_equal(o.unknown, "ntask-per-node");
    srun_opts_clear(&o);
    /* srun has no --wrap or --array */
    assert_int_equal(srun_words(&o, "srun --array=1-2 hostname", &e), -1);
    srun_opts_clear(&o);
    /* input variables: a job option for the allocation, a warned one */
    {
        char *env[] = {"SLURM_CONSTRAINT=a100", "SLURM_MPI_TYPE=pmix",
                       "SLURM_SPREAD_JOB=1", NULL};
        char *argv[] = {"srun", "-C", "h200", "hostname", NULL};
        assert_int_equal(srun_opts_parse(&o, 4, argv, env, &e), 0);
        assert_int_equal(json_array_size(o.notes), 1);
        assert_int_equal(o.n_alloc_args, 3);
        assert_int_equal(o.alloc_args[0].js_id, JS_CONSTRAINT);
        assert_string_equal(o.alloc_args[0].arg, "a100");
        assert_int_equal(o.alloc_args[1].js_id, JS_SPREAD_JOB);
        assert_null(o.alloc_args[1].arg);
        /* the command line's comes last: it wins */
        assert_string_equal(o.alloc_args[2].arg, "h200");
        srun_opts_clear(&o);
        env[0] = "SLURM_CONSTRAINT=a[";
        assert_int_equal(srun_opts_parse(&o, 4, argv, env, &e), -1);
        assert_non_null(strstr(e.text, "SLURM_CONSTRAINT: --constraint=a[: "));
        srun_opts_clear(&o);
    }
    /* plane and arbitrary (sbatch's, maybe from SLURM_DISTRIBUTION) are
     * laid out as block, with a warning */
    assert_int_equal(srun_words(&o, "srun -m plane=4 hostname", &e), 0);
    assert_string_equal(o.distribution, "block");
    assert_int_equal(json_array_size(o.notes), 1);
    assert_string_equal(json_string_value(json_array_get(o.notes, 0)),
                        "--distribution=plane=4 is laid out as block in "
                        "Sluice (no plane or arbitrary step layout)");
    srun_opts_clear(&o);
    /* SLURM_OPEN_MODE's one letter */
    {
        char *env[] = {"SLURM_OPEN_MODE=a", NULL};
        char *argv[] = {"srun", "hostname", NULL};
        assert_int_equal(srun_opts_parse(&o, 2, argv, env, &e), 0);
        assert_int_equal(o.n_alloc_args, 1);
        assert_int_equal(o.alloc_args[0].js_id, JS_OPEN_MODE);
        srun_opts_clear(&o);
    }
    /* in a job, step options Slurm applies and Sluice does not warn */
    {
        char *env[] = {"SLURM_JOB_ID=7", NULL};
        char *argv[] = {"srun",
                        "--cpu-bind=cores",
                        "--hint=nomultithread",
                        "--cpu-bind=none",
                        "--comment=x",
                        "hostname",
                        NULL};
        assert_int_equal(srun_opts_parse(&o, 6, argv, env, &e), 0);
        assert_int_equal(json_array_size(o.notes), 2);
        assert_string_equal(json_string_value(json_array_get(o.notes, 0)),
                            "--cpu-bind has no effect on a step in Sluice "
                            "(tasks are not bound to CPUs)");
        srun_opts_clear(&o);
        /* outside a job they are the new job's */
        assert_int_equal(srun_opts_parse(&o, 6, argv, (char *[]){NULL}, &e), 0);
        assert_int_equal(json_array_size(o.notes), 0);
        srun_opts_clear(&o);
    }
    /* -W is srun's --wait=SECONDS, warned */
    assert_int_equal(srun_words(&o, "srun -W 5 -Z hostname", &e), 0);
    assert_int_equal(json_array_size(o.notes), 2);
    srun_opts_clear(&o);
}

static void test_salloc(void **state)
{
    struct salloc_opts o;
    char *env[] = {"SALLOC_CONSTRAINT=a100",
                   "SALLOC_EXCLUSIVE=", "SALLOC_MEM_BIND=local",
                   "SALLOC_NO_KILL=1", NULL};
    char **words;
    struct err e;
    int n;

    (void)state;
    words = opt_split("salloc --x11 --comment=c -K --reservation=r "
                      "--mail-type=begin -N1",
                      &n, &e);
    assert_int_equal(salloc_opts_parse(&o, n, words, env, NOW, &e), 0);
    assert_string_equal(str(o.js.job, "comment"), "c");
    assert_string_equal(str(o.js.job, "reservation"), "r");
    assert_string_equal(str(o.js.job, "mail_type"), "BEGIN");
    assert_string_equal(str(o.js.job, "constraint"), "a100");
    assert_string_equal(str(o.js.job, "exclusive"), "node");
    assert_true(json_is_true(json_object_get(o.js.job, "no_kill")));
    /* --mem-bind (from SALLOC_MEM_BIND), --x11, --kill-command */
    assert_int_equal(json_array_size(o.js.notes), 3);
    salloc_opts_clear(&o);
    opt_split_free(words);

    /* salloc has no --open-mode (sbatch's) */
    words = opt_split("salloc --open-mode=append", &n, &e);
    assert_int_equal(salloc_opts_parse(&o, n, words, env, NOW, &e), -1);
    assert_true(o.syntax_error);
    assert_string_equal(o.unknown, "open-mode");
    salloc_opts_clear(&o);
    opt_split_free(words);
}

/* Every warn-only option of srun and salloc parses (with a value when it
 * takes one) and adds exactly one line; the short letters too. */
static void test_warn_all_cmds(void **state)
{
    char *env[] = {NULL};

    (void)state;
    for (size_t i = 0; slurmopts_warn_table[i].long_name != NULL; i++) {
        const struct slurmopt_warn *w = &slurmopts_warn_table[i];
        char opt[80], shortopt[8];
        char *argv[] = {"srun", opt, "true", NULL};
        char *sargv[] = {"srun", shortopt, "x", "true", NULL};
        struct srun_opts o;
        struct salloc_opts a;
        struct err e;

        snprintf(opt, sizeof(opt), "--%s%s", w->long_name,
                 w->arg == OPT_ARG ? "=x" : "");
        if (w->cmds & SLURMOPTS_SRUN) {
            if (srun_opts_parse(&o, 3, argv, env, &e) < 0)
                fail_msg("srun %s: %s", opt, e.text);
            if (json_array_size(o.notes) != 1)
                fail_msg("srun %s: %zu lines", opt, json_array_size(o.notes));
            srun_opts_clear(&o);
        }
        if (w->cmds & SLURMOPTS_SALLOC) {
            argv[0] = "salloc";
            if (salloc_opts_parse(&a, 3, argv, env, NOW, &e) < 0)
                fail_msg("salloc %s: %s", opt, e.text);
            if (json_array_size(a.js.notes) != 1)
                fail_msg("salloc %s: %zu lines", opt,
                         json_array_size(a.js.notes));
            salloc_opts_clear(&a);
            argv[0] = "srun";
        }
        if ((w->cmds & SLURMOPTS_SRUN) && w->short_name != 0) {
            snprintf(shortopt, sizeof(shortopt), "-%c", w->short_name);
            /* a value only where the option takes one */
            if (w->arg != OPT_ARG) {
                sargv[2] = "true";
                sargv[3] = NULL;
            }
            if (srun_opts_parse(&o, w->arg == OPT_ARG ? 4 : 3, sargv, env, &e) <
                0)
                fail_msg("srun %s: %s", shortopt, e.text);
            assert_int_equal(json_array_size(o.notes), 1);
            srun_opts_clear(&o);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_keys),
        cmocka_unit_test(test_exclusive_oversubscribe),
        cmocka_unit_test(test_finish_checks),
        cmocka_unit_test(test_empty_text),
        cmocka_unit_test(test_wait_quiet),
        cmocka_unit_test(test_wait_status),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_warn_table),
        cmocka_unit_test(test_warn_lines),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_error_lines),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_srun),
        cmocka_unit_test(test_salloc),
        cmocka_unit_test(test_warn_all_cmds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
