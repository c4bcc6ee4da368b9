/*
 * salloc's options: sbatch's resource options, read by the jobspec table
 * and checks so that a mistake reads exactly as sbatch's, plus salloc's
 * own (--no-shell, -I, --bell, -v), and the JOBSPEC of the allocation.
 */
#include "cli/salloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"
#include "cli/opt.h"
#include "cli/slurmopts.h"
#include "common/value.h"
#include "common/xalloc.h"

/* salloc's own option ids, beyond the jobspec table's. */
enum salloc_opt {
    SA_NO_SHELL = 100,
    SA_IMMEDIATE,
    SA_BELL,
    SA_NO_BELL,
    SA_VERBOSE,
};

/* The sbatch options that make no sense for an allocation: no script to
 * wrap or to write output for, no array, no requeue. */
static const int salloc_not_taken[] = {
    JS_OUTPUT,   JS_ERROR,     JS_EXPORT,       JS_WRAP,       JS_ARRAY,
    JS_PARSABLE, JS_TEST_ONLY, JS_REQUEUE,      JS_NO_REQUEUE, JS_OPEN_MODE,
    JS_WAIT,     JS_PROPAGATE, JS_GET_USER_ENV, JS_CPU_BIND,
};

static const struct opt_def salloc_own_opts[] = {
    {"no-shell", 0, OPT_NOARG, SA_NO_SHELL},
    {"immediate", 'I', OPT_OPTARG, SA_IMMEDIATE},
    {"bell", 0, OPT_NOARG, SA_BELL},
    {"no-bell", 0, OPT_NOARG, SA_NO_BELL},
    {"verbose", 'v', OPT_NOARG, SA_VERBOSE},
};

/* SALLOC_* input variables (Slurm 22.05's salloc(1)), weaker than the
 * command line, by option name; a flag option is set by its variable
 * whatever the value. */
static const struct {
    const char *var;
    const char *opt;
    bool flag; /* set whatever the value (an optional one too) */
} salloc_env_opts[] = {
    {"SALLOC_ACCOUNT", "account", false},
    {"SALLOC_ACCTG_FREQ", "acctg-freq", false},
    {"SALLOC_BELL", "bell", false},
    {"SALLOC_CLUSTERS", "clusters", false},
    {"SALLOC_CONSTRAINT", "constraint", false},
    {"SALLOC_CONTAINER", "container", false},
    {"SALLOC_CORE_SPEC", "core-spec", false},
    {"SALLOC_CPU_FREQ_REQ", "cpu-freq", false},
    {"SALLOC_CPUS_PER_GPU", "cpus-per-gpu", false},
    {"SALLOC_DELAY_BOOT", "delay-boot", false},
    {"SALLOC_EXCLUSIVE", "exclusive", false},
    {"SALLOC_GPU_BIND", "gpu-bind", false},
    {"SALLOC_GPU_FREQ", "gpu-freq", false},
    {"SALLOC_GPUS", "gpus", false},
    {"SALLOC_GPUS_PER_NODE", "gpus-per-node", false},
    {"SALLOC_GPUS_PER_TASK", "gpus-per-task", false},
    {"SALLOC_GRES", "gres", false},
    {"SALLOC_GRES_FLAGS", "gres-flags", false},
    {"SALLOC_HINT", "hint", false},
    {"SALLOC_IMMEDIATE", "immediate", false},
    {"SALLOC_KILL_CMD", "kill-command", false},
    {"SALLOC_MEM_BIND", "mem-bind", false},
    {"SALLOC_MEM_PER_CPU", "mem-per-cpu", false},
    {"SALLOC_MEM_PER_GPU", "mem-per-gpu", false},
    {"SALLOC_MEM_PER_NODE", "mem", false},
    {"SALLOC_NETWORK", "network", false},
    {"SALLOC_NO_BELL", "no-bell", false},
    {"SALLOC_NO_KILL", "no-kill", true},
    {"SALLOC_OVERCOMMIT", "overcommit", false},
    {"SALLOC_PARTITION", "partition", false},
    {"SALLOC_POWER", "power", false},
    {"SALLOC_PROFILE", "profile", false},
    {"SALLOC_QOS", "qos", false},
    {"SALLOC_REQ_SWITCH", "switches", false},
    {"SALLOC_RESERVATION", "reservation", false},
    {"SALLOC_SIGNAL", "signal", false},
    {"SALLOC_SPREAD_JOB", "spread-job", false},
    {"SALLOC_THREAD_SPEC", "thread-spec", false},
    {"SALLOC_TIMELIMIT", "time", false},
    {"SALLOC_USE_MIN_NODES", "use-min-nodes", false},
    {"SALLOC_WAIT_ALL_NODES", "wait-all-nodes", false},
    {"SALLOC_WCKEY", "wckey", false},
};

#define SALLOC_MAX_OPTS 200

static bool salloc_takes(int id)
{
    for (size_t i = 0; i < sizeof(salloc_not_taken) / sizeof(int); i++)
        if (salloc_not_taken[i] == id)
            return false;
    return true;
}

/* The table: the jobspec's entries salloc takes, then its own, then
 * Slurm's options that only warn. */
static const struct opt_def *salloc_opt_table(void)
{
    static struct opt_def tab[SALLOC_MAX_OPTS], full[SALLOC_MAX_OPTS];
    size_t n = 0;

    if (full[0].id != 0)
        return full;
    for (const struct opt_def *d = jobspec_opts; d->id != 0; d++)
        if (salloc_takes(d->id) && n + 1 < SALLOC_MAX_OPTS)
            tab[n++] = *d;
    for (size_t i = 0; i < sizeof(salloc_own_opts) / sizeof(*salloc_own_opts);
         i++)
        if (n + 1 < SALLOC_MAX_OPTS)
            tab[n++] = salloc_own_opts[i];
    tab[n] = (struct opt_def){NULL, 0, OPT_NOARG, 0};
    return slurmopts_table(tab, SLURMOPTS_SALLOC, full, SALLOC_MAX_OPTS);
}

void salloc_opts_error(const struct salloc_opts *o, const char *text,
                       const char *help)
{
    if (o->syntax_error)
        slurmopts_error(o->unknown, salloc_opt_table(), text, help);
    else
        cli_error("%s", text);
}

void salloc_opts_help(const char *name)
{
    printf(
        "Usage: %s [OPTIONS] [COMMAND [ARGS...]]\n"
        "Get a job allocation and run COMMAND in it (default: your shell).\n"
        "The allocation ends when the command exits.\n\n"
        "  -J, --job-name=NAME      -p, --partition=PART    -t, --time=TIME\n"
        "  -c, --cpus-per-task=N    -n, --ntasks=N          -N, --nodes=N\n"
        "      --ntasks-per-node=N      --ntasks-per-gpu=N  --mincpus=N\n"
        "      --mem=SIZE               --mem-per-cpu=SIZE  --tmp=SIZE\n"
        "  -D, --chdir=DIR          -q, --qos=QOS           -A, "
        "--account=ACCOUNT\n"
        "  -w, --nodelist=HOSTS     -x, --exclude=HOSTS     --wckey=KEY\n"
        "  -C, --constraint=EXPR        --reservation=NAME\n"
        "      --exclusive[=user|mcs]  -s, --oversubscribe\n"
        "  -B, --extra-node-info=S[:C[:T]]  --sockets-per-node=N\n"
        "      --cores-per-socket=N     --threads-per-core=N\n"
        "      --gres=LIST          -G, --gpus=[TYPE:]N\n"
        "      --gpus-per-node=[TYPE:]N --gpus-per-task=[TYPE:]N\n"
        "      --cpus-per-gpu=N         --mem-per-gpu=SIZE\n"
        "      --gres-flags=enforce-binding|disable-binding\n"
        "      --gpu-bind=TYPE          --hint=HINT\n"
        "  -m, --distribution=DIST      --spread-job        --use-min-nodes\n"
        "  -H, --hold               -b, --begin=TIME        -d, "
        "--dependency=EXPR\n"
        "      --deadline=TIME          --time-min=TIME     --priority=N|TOP\n"
        "      --signal=[R:]SIG[@SECS]  --nice[=ADJ]        -k, --no-kill\n"
        "      --mail-type=TYPE,...     --mail-user=ADDR    --comment=TEXT\n"
        "      --uid=USER               --gid=GROUP\n"
        "      --no-shell           -I, --immediate[=SECS]\n"
        "      --bell                   --no-bell\n"
        "  -Q, --quiet              -v, --verbose\n"
        "  -h, --help               --usage              -V, --version\n",
        name);
    slurmopts_help(salloc_opt_table());
}

void salloc_opts_clear(struct salloc_opts *o)
{
    jobspec_clear(&o->js);
    memset(o, 0, sizeof(*o));
}

/* -I[SECS]: no value (or 0) starts now or never. */
static int sa_immediate(struct salloc_opts *o, const char *arg, struct err *e)
{
    uint64_t secs = 0;

    if (arg != NULL && arg[0] != '\0' &&
        value_parse_u64(arg, 0, 65535, &secs, e) < 0)
        return err_prefix(e, "--immediate=%s", arg);
    o->immediate_s = (int)secs;
    return 0;
}

/* One option (a jobspec one goes to jobspec_set, which names it). */
static int sa_set(struct salloc_opts *o, int id, const char *arg, time_t now,
                  struct err *e)
{
    switch (id) {
    case SA_NO_SHELL:
        o->no_shell = true;
        return 0;
    case SA_IMMEDIATE:
        return sa_immediate(o, arg, e);
    case SA_BELL:
        o->bell = SALLOC_BELL_ALWAYS;
        return 0;
    case SA_NO_BELL:
        o->bell = SALLOC_BELL_NEVER;
        return 0;
    case SA_VERBOSE:
        o->verbose++;
        return 0;
    default:
        return jobspec_set(&o->js, id, arg, now, e);
    }
}

static const char *sa_env(char *const *envp, const char *var)
{
    size_t n = strlen(var);

    for (char *const *p = envp; p != NULL && *p != NULL; p++)
        if (strncmp(*p, var, n) == 0 && (*p)[n] == '=')
            return *p + n + 1;
    return NULL;
}

static const struct opt_def *sa_def(const char *long_name)
{
    for (const struct opt_def *d = salloc_opt_table(); d->id != 0; d++)
        if (d->long_name != NULL && strcmp(d->long_name, long_name) == 0)
            return d;
    return NULL;
}

static int sa_apply_env(struct salloc_opts *o, char *const *envp, time_t now,
                        struct err *e)
{
    for (size_t i = 0; i < sizeof(salloc_env_opts) / sizeof(*salloc_env_opts);
         i++) {
        const struct opt_def *d = sa_def(salloc_env_opts[i].opt);
        const char *v = sa_env(envp, salloc_env_opts[i].var);
        if (v == NULL || d == NULL)
            continue;
        if (d->arg == OPT_NOARG || (d->arg == OPT_OPTARG && v[0] == '\0') ||
            salloc_env_opts[i].flag)
            v = NULL;
        else if (v[0] == '\0')
            continue;
        if (sa_set(o, d->id, v, now, e) < 0)
            return err_prefix(e, "%s", salloc_env_opts[i].var);
    }
    return 0;
}

/* An option from argv, applied after the variables. */
struct sa_arg {
    int id;
    const char *arg;
};

int salloc_opts_parse(struct salloc_opts *o, int argc, char **argv,
                      char *const *envp, time_t now, struct err *e)
{
    struct sa_arg *args = NULL;
    struct opt_state st;
    const char *arg;
    size_t n = 0;
    int id, rc;

    memset(o, 0, sizeof(*o));
    jobspec_init(&o->js);
    o->immediate_s = -1;
    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, salloc_opt_table(), &id, &arg, e)) > 0) {
        args = xreallocarray(args, n + 1, sizeof(*args));
        args[n++] = (struct sa_arg){id, arg};
    }
    opt_free(&st);
    o->syntax_error = rc < 0;
    memcpy(o->unknown, st.unknown, sizeof(o->unknown));
    if (rc == 0)
        rc = sa_apply_env(o, envp, now, e);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sa_set(o, args[i].id, args[i].arg, now, e);
    free(args);
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    o->cmd = argv + st.ind;
    o->n_cmd = argc - st.ind;
    return 0;
}

json_t *salloc_jobspec(struct salloc_opts *o, const char *cwd, struct err *e)
{
    const char *name = "interactive", *base;
    json_t *job;

    if (o->n_cmd > 0) {
        base = strrchr(o->cmd[0], '/');
        name = base != NULL && base[1] != '\0' ? base + 1 : o->cmd[0];
    }
    job = jobspec_finish_alloc(&o->js, "salloc", name, cwd, e);
    if (job != NULL && o->immediate_s == 0)
        json_object_set_new(job, "immediate", json_true());
    return job;
}
