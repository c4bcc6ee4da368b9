/*
 * sluice submit / sbatch: a batch script (a file, stdin or --wrap) with
 * options from #SBATCH directives, SBATCH_* variables and the command line
 * (later ones win), checked here and sent as one SUBMIT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobspec.h"
#include "common/proto.h"
#include "common/xalloc.h"

extern char **environ;

/* An option from argv, applied after the script's directives. */
struct submit_arg {
    int id;
    const char *arg;
};

struct submit {
    struct jobspec js;
    struct submit_arg *args;
    size_t n_args;
    const char *script_name; /* NULL: stdin or --wrap */
    char **script_args;
    int n_script_args;
    char *script;
    size_t script_len;
    time_t now;
};

/* SBATCH_* input variables, weaker than the command line. */
static const struct {
    const char *var;
    int id;
} submit_env_opts[] = {
    {"SBATCH_ACCOUNT", JS_ACCOUNT},
    {"SBATCH_EXPORT", JS_EXPORT},
    {"SBATCH_GRES", JS_GRES},
    {"SBATCH_JOB_NAME", JS_NAME},
    {"SBATCH_PARTITION", JS_PARTITION},
    {"SBATCH_QOS", JS_QOS},
    {"SBATCH_TIMELIMIT", JS_TIME},
    {"SBATCH_GPUS", JS_GPUS},
    {"SBATCH_GPUS_PER_NODE", JS_GPUS_PER_NODE},
    {"SBATCH_GPUS_PER_TASK", JS_GPUS_PER_TASK},
    {"SBATCH_CPUS_PER_GPU", JS_CPUS_PER_GPU},
    {"SBATCH_MEM_PER_GPU", JS_MEM_PER_GPU},
};

static void submit_help(void)
{
    printf(
        "Usage: %s [OPTIONS] [SCRIPT [ARGS...]]\n"
        "Submit a batch script (a file, stdin, or --wrap=CMD).  Options may\n"
        "also be given as #SBATCH lines at the top of the script.\n\n"
        "  -J, --job-name=NAME      -p, --partition=PART    -t, --time=TIME\n"
        "  -c, --cpus-per-task=N    -n, --ntasks=N          -N, --nodes=N\n"
        "      --ntasks-per-node=N\n"
        "      --mem=SIZE               --mem-per-cpu=SIZE\n"
        "  -o, --output=PATTERN     -e, --error=PATTERN     -D, --chdir=DIR\n"
        "      --export=ALL|NONE|VAR[=VAL],...\n"
        "  -q, --qos=QOS            -A, --account=ACCOUNT\n"
        "  -w, --nodelist=HOSTS     -x, --exclude=HOSTS\n"
        "      --gres=LIST          -G, --gpus=[TYPE:]N\n"
        "      --gpus-per-node=[TYPE:]N --gpus-per-task=[TYPE:]N\n"
        "      --cpus-per-gpu=N         --mem-per-gpu=SIZE\n"
        "  -H, --hold               -b, --begin=TIME\n"
        "      --requeue                --no-requeue\n"
        "      --wrap=COMMAND           --parsable    --test-only\n"
        "  -Q, --quiet              -h, --help    --usage    -V, --version\n",
        cli_slurm_face() ? "sbatch" : "sluice submit");
}

/* Read all of fp into s->script. */
static int submit_read(struct submit *s, FILE *fp, struct err *e)
{
    size_t cap = 65536, n;

    s->script = xmalloc(cap + 1);
    s->script_len = 0;
    while ((n = fread(s->script + s->script_len, 1, cap - s->script_len, fp)) >
           0) {
        s->script_len += n;
        if (s->script_len > JOBSPEC_MAX_SCRIPT)
            break;
        if (s->script_len == cap) {
            cap *= 2;
            s->script = xrealloc(s->script, cap + 1);
        }
    }
    s->script[s->script_len] = '\0';
    if (ferror(fp)) {
        return err_set(e, "Unable to read %s: %s",
                       s->script_name ? s->script_name
                                      : "the script from "
                                        "stdin",
                       strerror(errno));
    }
    return 0;
}

static int submit_load_script(struct submit *s, struct err *e)
{
    FILE *fp = stdin;
    int rc;

    if (s->js.wrap != NULL) {
        s->script = xasprintf("#!/bin/sh\n%s\n", s->js.wrap);
        s->script_len = strlen(s->script);
        return 0;
    }
    if (s->script_name != NULL && (fp = fopen(s->script_name, "r")) == NULL)
        return err_set(e, "Unable to open file %s: %s", s->script_name,
                       strerror(errno));
    rc = submit_read(s, fp, e);
    if (fp != stdin)
        fclose(fp);
    if (rc < 0)
        return -1;
    return jobspec_check_script(s->script, s->script_len, e);
}

/* argv's options, kept in order; --wrap is applied at once (it decides
 * whether there is a script to read). */
static int submit_parse_argv(struct submit *s, int argc, char **argv,
                             struct err *e)
{
    struct opt_state st;
    const char *arg;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, jobspec_opts, &id, &arg, e)) > 0) {
        if (id == JS_WRAP && jobspec_set(&s->js, id, arg, s->now, e) < 0)
            return -1;
        s->args = xreallocarray(s->args, s->n_args + 1, sizeof(*s->args));
        s->args[s->n_args++] = (struct submit_arg){id, arg};
        if (id == JS_HELP || id == JS_USAGE || id == JS_VERSION)
            jobspec_set(&s->js, id, arg, s->now, e);
    }
    if (rc < 0)
        return -1;
    if (st.ind < argc && s->js.wrap == NULL) {
        s->script_name = argv[st.ind];
        st.ind++;
    }
    s->script_args = argv + st.ind;
    s->n_script_args = argc - st.ind;
    return 0;
}

/* Directives, then SBATCH_* variables, then the command line. */
static int submit_apply(struct submit *s, struct err *e)
{
    const char *name = s->script_name ? s->script_name : "stdin";

    if (s->js.wrap == NULL &&
        jobspec_directives(&s->js, s->script, name, s->now, e) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(submit_env_opts) / sizeof(*submit_env_opts);
         i++) {
        const char *v = getenv(submit_env_opts[i].var);
        if (v != NULL && v[0] != '\0' &&
            jobspec_set(&s->js, submit_env_opts[i].id, v, s->now, e) < 0)
            return err_prefix(e, "%s", submit_env_opts[i].var);
    }
    for (size_t i = 0; i < s->n_args; i++)
        if (jobspec_set(&s->js, s->args[i].id, s->args[i].arg, s->now, e) < 0)
            return -1;
    return 0;
}

/* --test-only, from {"job_id": 0, "would_start": bool, "node_list",
 * "reason", "partition"}: "sbatch: Job 0 to start at T on nodes NODES in
 * partition P", or why it would wait. */
static void submit_print_test(json_t *reply)
{
    const char *nodes = json_string_value(json_object_get(reply, "node_list"));
    const char *part = json_string_value(json_object_get(reply, "partition"));
    const char *why = json_string_value(json_object_get(reply, "reason"));
    char tbuf[FMT_BUFLEN];

    if (json_is_true(json_object_get(reply, "would_start")))
        fprintf(stderr, "%s: Job 0 to start at %s on nodes %s", cli_prog(),
                fmt_time(time(NULL), "now", tbuf, sizeof(tbuf)),
                nodes ? nodes : "(unknown)");
    else
        fprintf(stderr, "%s: Job 0 would not start now (%s)", cli_prog(),
                why ? why : "no reason given");
    if (part != NULL)
        fprintf(stderr, " in partition %s", part);
    fputc('\n', stderr);
}

static int submit_send(struct submit *s, json_t *job)
{
    json_t *req = json_pack("{s:O}", "job", job), *reply = NULL;
    bool test_only = json_is_true(json_object_get(job, "test_only"));
    struct err e;
    int rc = 1;

    if (cli_call(PROTO_MSG_SUBMIT, req, &reply, &e) < 0) {
        cli_error("Batch job submission failed: %s", e.text);
        goto out;
    }
    if (test_only)
        submit_print_test(reply);
    else if (s->js.parsable)
        printf("%lld\n",
               (long long)json_integer_value(json_object_get(reply, "job_id")));
    else
        printf("Submitted batch job %lld\n",
               (long long)json_integer_value(json_object_get(reply, "job_id")));
    rc = 0;
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}

static int submit_run(struct submit *s, int argc, char **argv)
{
    char cwd[4096];
    struct err e;
    json_t *job;
    int rc;

    if (submit_parse_argv(s, argc, argv, &e) < 0) {
        cli_error("%s (see '%s --help')", e.text,
                  cli_slurm_face() ? "sbatch" : "sluice submit");
        return 1;
    }
    if (s->js.help || s->js.usage) {
        submit_help();
        return 0;
    }
    if (s->js.version) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        cli_error("cannot get the current directory: %s", strerror(errno));
        return 1;
    }
    if (submit_load_script(s, &e) < 0 || submit_apply(s, &e) < 0 ||
        (job = jobspec_finish(&s->js, s->script, s->script_name, s->script_args,
                              s->n_script_args, cwd, environ, &e)) == NULL) {
        cli_error("%s", e.text);
        return 1;
    }
    rc = submit_send(s, job);
    json_decref(job);
    return rc;
}

int cmd_submit(int argc, char **argv)
{
    struct submit s = {.now = time(NULL)};
    int rc;

    cli_set_prog(argv[0]);
    jobspec_init(&s.js);
    rc = submit_run(&s, argc, argv);
    jobspec_clear(&s.js);
    free(s.args);
    free(s.script);
    cli_close();
    return rc;
}
