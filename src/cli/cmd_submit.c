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
#include "cli/slurmopts.h"
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
    char unknown[128]; /* an unrecognized long option, for a suggestion */
};

/* SBATCH_* input variables (Slurm 22.05's sbatch(1), "INPUT ENVIRONMENT
 * VARIABLES"), weaker than the command line, by option name; a flag
 * option is set by its variable whatever the value. */
static const struct {
    const char *var;
    const char *opt;
    bool flag; /* set whatever the value (an optional one too) */
} submit_env_opts[] = {
    {"SBATCH_ACCOUNT", "account", false},
    {"SBATCH_ACCTG_FREQ", "acctg-freq", false},
    {"SBATCH_BATCH", "batch", false},
    {"SBATCH_CLUSTERS", "clusters", false},
    {"SBATCH_CLUSTER_CONSTRAINT", "cluster-constraint", false},
    {"SBATCH_CONSTRAINT", "constraint", false},
    {"SBATCH_CONTAINER", "container", false},
    {"SBATCH_CORE_SPEC", "core-spec", false},
    {"SBATCH_CPUS_PER_GPU", "cpus-per-gpu", false},
    {"SBATCH_CPU_FREQ_REQ", "cpu-freq", false},
    {"SBATCH_DELAY_BOOT", "delay-boot", false},
    {"SBATCH_DISTRIBUTION", "distribution", false},
    {"SBATCH_EXCLUSIVE", "exclusive", false},
    {"SBATCH_EXPORT", "export", false},
    {"SBATCH_GET_USER_ENV", "get-user-env", false},
    {"SBATCH_GPU_BIND", "gpu-bind", false},
    {"SBATCH_GPU_FREQ", "gpu-freq", false},
    {"SBATCH_GPUS", "gpus", false},
    {"SBATCH_GPUS_PER_NODE", "gpus-per-node", false},
    {"SBATCH_GPUS_PER_TASK", "gpus-per-task", false},
    {"SBATCH_GRES", "gres", false},
    {"SBATCH_GRES_FLAGS", "gres-flags", false},
    {"SBATCH_HINT", "hint", false},
    {"SBATCH_IGNORE_PBS", "ignore-pbs", false},
    {"SBATCH_JOB_NAME", "job-name", false},
    {"SBATCH_MEM_BIND", "mem-bind", false},
    {"SBATCH_MEM_PER_CPU", "mem-per-cpu", false},
    {"SBATCH_MEM_PER_GPU", "mem-per-gpu", false},
    {"SBATCH_MEM_PER_NODE", "mem", false},
    {"SBATCH_NETWORK", "network", false},
    {"SBATCH_NO_KILL", "no-kill", true},
    {"SBATCH_NO_REQUEUE", "no-requeue", false},
    {"SBATCH_OPEN_MODE", "open-mode", false},
    {"SBATCH_OVERCOMMIT", "overcommit", false},
    {"SBATCH_PARTITION", "partition", false},
    {"SBATCH_POWER", "power", false},
    {"SBATCH_PROFILE", "profile", false},
    {"SBATCH_QOS", "qos", false},
    {"SBATCH_REQ_SWITCH", "switches", false},
    {"SBATCH_REQUEUE", "requeue", false},
    {"SBATCH_RESERVATION", "reservation", false},
    {"SBATCH_SIGNAL", "signal", false},
    {"SBATCH_SPREAD_JOB", "spread-job", false},
    {"SBATCH_THREAD_SPEC", "thread-spec", false},
    {"SBATCH_TIMELIMIT", "time", false},
    {"SBATCH_USE_MIN_NODES", "use-min-nodes", false},
    {"SBATCH_WAIT", "wait", false},
    {"SBATCH_WAIT_ALL_NODES", "wait-all-nodes", false},
    {"SBATCH_WCKEY", "wckey", false},
};

static void submit_help(void)
{
    printf(
        "Usage: %s [OPTIONS] [SCRIPT [ARGS...]]\n"
        "Submit a batch script (a file, stdin, or --wrap=CMD).  Options may\n"
        "also be given as #SBATCH lines at the top of the script.\n\n"
        "  -J, --job-name=NAME      -p, --partition=PART    -t, --time=TIME\n"
        "  -c, --cpus-per-task=N    -n, --ntasks=N          -N, --nodes=N\n"
        "      --ntasks-per-node=N      --ntasks-per-gpu=N  --mincpus=N\n"
        "      --mem=SIZE               --mem-per-cpu=SIZE  --tmp=SIZE\n"
        "  -o, --output=PATTERN     -e, --error=PATTERN     -D, --chdir=DIR\n"
        "      --open-mode=append|truncate\n"
        "      --export=ALL|NONE|VAR[=VAL],...\n"
        "  -q, --qos=QOS            -A, --account=ACCOUNT   --wckey=KEY\n"
        "  -w, --nodelist=HOSTS     -x, --exclude=HOSTS\n"
        "  -C, --constraint=EXPR        --reservation=NAME\n"
        "      --exclusive[=user|mcs]  -s, --oversubscribe\n"
        "  -B, --extra-node-info=S[:C[:T]]  --sockets-per-node=N\n"
        "      --cores-per-socket=N     --threads-per-core=N\n"
        "      --gres=LIST          -G, --gpus=[TYPE:]N\n"
        "      --gpus-per-node=[TYPE:]N --gpus-per-task=[TYPE:]N\n"
        "      --cpus-per-gpu=N         --mem-per-gpu=SIZE\n"
        "      --gres-flags=enforce-binding|disable-binding\n"
        "      --gpu-bind=TYPE          --cpu-bind=TYPE     --hint=HINT\n"
        "  -m, --distribution=DIST      --spread-job        --use-min-nodes\n"
        "  -H, --hold               -b, --begin=TIME        --deadline=TIME\n"
        "      --time-min=TIME          --priority=N|TOP    --nice[=ADJ]\n"
        "  -a, --array=SPEC         -d, --dependency=EXPR\n"
        "      --kill-on-invalid-dep=yes|no  -k, --no-kill[=off]\n"
        "      --requeue                --no-requeue\n"
        "      --signal=[{R|B}:]SIG[@SECS]\n"
        "      --mail-type=TYPE,...     --mail-user=ADDR    --comment=TEXT\n"
        "      --get-user-env[=T][S|L]  --propagate[=RLIMIT,...]\n"
        "      --uid=USER               --gid=GROUP\n"
        "      --wrap=COMMAND           --parsable    --test-only\n"
        "  -W, --wait               -Q, --quiet\n"
        "  -h, --help               --usage       -V, --version\n",
        cli_slurm_face() ? "sbatch" : "sluice submit");
    slurmopts_help(jobspec_table());
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
    while ((rc = opt_next(&st, jobspec_table(), &id, &arg, e)) > 0) {
        if (id == JS_WRAP && jobspec_set(&s->js, id, arg, s->now, e) < 0)
            return -1;
        s->args = xreallocarray(s->args, s->n_args + 1, sizeof(*s->args));
        s->args[s->n_args++] = (struct submit_arg){id, arg};
        if (id == JS_HELP || id == JS_USAGE || id == JS_VERSION)
            jobspec_set(&s->js, id, arg, s->now, e);
    }
    if (rc < 0) {
        memcpy(s->unknown, st.unknown, sizeof(s->unknown));
        return -1;
    }
    if (st.ind < argc && s->js.wrap == NULL) {
        s->script_name = argv[st.ind];
        st.ind++;
    }
    s->script_args = argv + st.ind;
    s->n_script_args = argc - st.ind;
    return 0;
}

/* The entry of sbatch's table named long_name. */
static const struct opt_def *submit_env_def(const char *long_name)
{
    for (const struct opt_def *d = jobspec_table(); d->id != 0; d++)
        if (d->long_name != NULL && strcmp(d->long_name, long_name) == 0)
            return d;
    return NULL;
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
        const struct opt_def *d = submit_env_def(submit_env_opts[i].opt);
        if (v == NULL || d == NULL)
            continue;
        /* a flag is set by its variable; an optional value may be empty */
        if (d->arg == OPT_NOARG || (d->arg == OPT_OPTARG && v[0] == '\0') ||
            submit_env_opts[i].flag)
            v = NULL;
        else if (v[0] == '\0')
            continue;
        if (jobspec_set(&s->js, d->id, v, s->now, e) < 0)
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

/* SLURM_SUBMIT_HOST's and SLURM_SUBMIT_DIR's sources: this host's name
 * and the directory sbatch runs in (not -D's). */
static void submit_set_host(json_t *job)
{
    char host[256] = "";
    char *cwd = getcwd(NULL, 0);

    if (gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0')
        json_object_set_new(job, "submit_host", json_string(host));
    if (cwd != NULL && cwd[0] == '/')
        json_object_set_new(job, "submit_dir", json_string(cwd));
    free(cwd);
}

/* Whether a job in state has ended (or may not come back). */
static bool submit_state_live(const char *state)
{
    static const char *const live[] = {"PENDING",    "RUNNING",     "SUSPENDED",
                                       "COMPLETING", "CONFIGURING", "REQUEUED",
                                       NULL};

    for (const char *const *p = live; state != NULL && *p != NULL; p++)
        if (strcmp(state, *p) == 0)
            return true;
    return false;
}

/* -W: poll the job (or every task of an array) once a second until none
 * is live; the highest exit status of them (Slurm's rule for arrays). */
static int submit_wait(long long id)
{
    int worst = 0;

    for (;;) {
        json_t *req = json_pack("{s:[I]}", "job_ids", (json_int_t)id);
        json_t *reply = NULL, *jobs, *j;
        bool live = false;
        struct err e;
        size_t i;

        if (cli_call(PROTO_MSG_JOB_QUERY, req, &reply, &e) < 0) {
            json_decref(req);
            cli_error("Unable to query job %lld: %s", id, e.text);
            return 1;
        }
        json_decref(req);
        jobs = json_object_get(reply, "jobs");
        json_array_foreach(jobs, i, j)
        {
            const char *st = json_string_value(json_object_get(j, "job_state"));
            int code = jobspec_wait_status(j);
            if (submit_state_live(st))
                live = true;
            else if (code > worst)
                worst = code;
        }
        json_decref(reply);
        if (!live)
            return worst;
        sleep(1);
    }
}

static int submit_send(struct submit *s, json_t *job)
{
    json_t *req = json_pack("{s:O}", "job", job), *reply = NULL;
    bool test_only = json_is_true(json_object_get(job, "test_only"));
    long long id;
    struct err e;
    int rc = 1;

    if (cli_call(PROTO_MSG_SUBMIT, req, &reply, &e) < 0) {
        cli_error("Batch job submission failed: %s", e.text);
        goto out;
    }
    id = (long long)json_integer_value(json_object_get(reply, "job_id"));
    if (test_only)
        submit_print_test(reply);
    else if (s->js.parsable)
        printf("%lld\n", id);
    else if (!s->js.quiet)
        printf("Submitted batch job %lld\n", id);
    rc = 0;
    if (s->js.wait && !test_only && id > 0) {
        fflush(stdout);
        rc = submit_wait(id);
    }
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
        slurmopts_error(s->unknown, jobspec_table(), e.text,
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
    if (!s->js.quiet)
        slurmopts_print(s->js.notes);
    submit_set_host(job);
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
