/*
 * srun's options and the defaults a step inherits from its job through the
 * SLURM_* input variables (Slurm 22.05's rules, docs/srun.md), turned into
 * the STEP_CREATE request.  Every value is checked here with the shared
 * parsers and a mistake is named with the option or variable that held it.
 */
#include "cli/srun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/jobspec.h"
#include "cli/opt.h"
#include "cli/optval.h"
#include "cli/slurmopts.h"
#include "common/gres.h"
#include "common/utf8.h"
#include "common/value.h"
#include "common/xalloc.h"

#define SRUN_MAX_COUNT 1048576u /* tasks or CPUs one step may ask for */
#define SRUN_MAX_GPUS 1024u

enum srun_opt {
    SR_NTASKS = 1,
    SR_NODES,
    SR_NTASKS_PER_NODE,
    SR_CPUS_PER_TASK,
    SR_GPUS_PER_TASK,
    SR_GPUS_PER_NODE,
    SR_GRES,
    SR_MEM,
    SR_NODELIST,
    SR_EXCLUDE,
    SR_DISTRIBUTION,
    SR_LABEL,
    SR_OUTPUT,
    SR_ERROR,
    SR_INPUT,
    SR_UNBUFFERED,
    SR_PTY,
    SR_NAME,
    SR_TIME,
    SR_EXACT,
    SR_OVERLAP,
    SR_IMMEDIATE,
    SR_KILL_BAD_EXIT,
    SR_NO_KILL,
    SR_JOBID,
    SR_CHDIR,
    SR_PARTITION,
    SR_ACCOUNT,
    SR_QOS,
    SR_INTERACTIVE,
    SR_PRESERVE_ENV,
    SR_QUIET,
    SR_VERBOSE,
    SR_HELP,
    SR_USAGE,
    SR_VERSION,
    SR_N_OPTS,
};

/* sbatch's options that srun takes only for its own allocation (outside a
 * job; inside one they change nothing): SR_JS_BASE + their sbatch id. */
#define SR_JS_BASE 500
#define SR_TABLE_MAX 240

static const struct opt_def srun_opt_defs[] = {
    {"ntasks", 'n', OPT_ARG, SR_NTASKS},
    {"nodes", 'N', OPT_ARG, SR_NODES},
    {"ntasks-per-node", 0, OPT_ARG, SR_NTASKS_PER_NODE},
    {"tasks-per-node", 0, OPT_ARG, SR_NTASKS_PER_NODE},
    {"cpus-per-task", 'c', OPT_ARG, SR_CPUS_PER_TASK},
    {"gpus-per-task", 0, OPT_ARG, SR_GPUS_PER_TASK},
    {"gpus-per-node", 0, OPT_ARG, SR_GPUS_PER_NODE},
    {"gres", 0, OPT_ARG, SR_GRES},
    {"mem", 0, OPT_ARG, SR_MEM},
    {"nodelist", 'w', OPT_ARG, SR_NODELIST},
    {"exclude", 'x', OPT_ARG, SR_EXCLUDE},
    {"distribution", 'm', OPT_ARG, SR_DISTRIBUTION},
    {"label", 'l', OPT_NOARG, SR_LABEL},
    {"output", 'o', OPT_ARG, SR_OUTPUT},
    {"error", 'e', OPT_ARG, SR_ERROR},
    {"input", 'i', OPT_ARG, SR_INPUT},
    {"unbuffered", 'u', OPT_NOARG, SR_UNBUFFERED},
    {"pty", 0, OPT_NOARG, SR_PTY},
    {"job-name", 'J', OPT_ARG, SR_NAME},
    {"time", 't', OPT_ARG, SR_TIME},
    {"exact", 0, OPT_NOARG, SR_EXACT},
    {"overlap", 0, OPT_NOARG, SR_OVERLAP},
    {"immediate", 'I', OPT_OPTARG, SR_IMMEDIATE},
    {"kill-on-bad-exit", 'K', OPT_OPTARG, SR_KILL_BAD_EXIT},
    {"no-kill", 'k', OPT_OPTARG, SR_NO_KILL},
    {"jobid", 0, OPT_ARG, SR_JOBID},
    {"chdir", 'D', OPT_ARG, SR_CHDIR},
    {"partition", 'p', OPT_ARG, SR_PARTITION},
    {"account", 'A', OPT_ARG, SR_ACCOUNT},
    {"qos", 'q', OPT_ARG, SR_QOS},
    {"interactive", 0, OPT_NOARG, SR_INTERACTIVE},
    {"preserve-env", 'E', OPT_NOARG, SR_PRESERVE_ENV},
    {"quiet", 'Q', OPT_NOARG, SR_QUIET},
    {"verbose", 'v', OPT_NOARG, SR_VERBOSE},
    {"help", 'h', OPT_NOARG, SR_HELP},
    {"usage", 0, OPT_NOARG, SR_USAGE},
    {"version", 'V', OPT_NOARG, SR_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

/* sbatch's options that srun does not have (Slurm 22.05's srun(1)). */
static const int srun_js_not_taken[] = {
    JS_WRAP,    JS_ARRAY,        JS_PARSABLE,         JS_EXPORT,
    JS_REQUEUE, JS_NO_REQUEUE,   JS_KILL_INVALID_DEP, JS_TEST_ONLY,
    JS_WAIT,    JS_GET_USER_ENV,
};

static bool sr_js_takes(int js_id)
{
    for (size_t i = 0; i < sizeof(srun_js_not_taken) / sizeof(int); i++)
        if (srun_js_not_taken[i] == js_id)
            return false;
    return true;
}

/* srun's table: its own options, sbatch's for the allocation (a short
 * letter only where srun has none), then Slurm's that only warn. */
static const struct opt_def *srun_table(void)
{
    static struct opt_def tab[SR_TABLE_MAX], full[SR_TABLE_MAX];
    size_t n = 0;

    if (full[0].id != 0)
        return full;
    for (const struct opt_def *d = srun_opt_defs; d->id != 0; d++)
        tab[n++] = *d;
    for (const struct opt_def *d = jobspec_opts; d->id != 0; d++) {
        bool dup_long = false, dup_short = false;
        if (!sr_js_takes(d->id) || n + 1 >= SR_TABLE_MAX)
            continue;
        for (size_t i = 0; i < n; i++) {
            dup_long |= d->long_name != NULL && tab[i].long_name != NULL &&
                        strcmp(d->long_name, tab[i].long_name) == 0;
            dup_short |=
                d->short_name != 0 && tab[i].short_name == d->short_name;
        }
        if (dup_long)
            continue;
        tab[n] = (struct opt_def){d->long_name, dup_short ? 0 : d->short_name,
                                  d->arg, SR_JS_BASE + d->id};
        n++;
    }
    tab[n] = (struct opt_def){NULL, 0, OPT_NOARG, 0};
    return slurmopts_table(tab, SLURMOPTS_SRUN, full, SR_TABLE_MAX);
}

void srun_opts_error(const struct srun_opts *o, const char *text,
                     const char *help)
{
    slurmopts_error(o->unknown, srun_table(), text, help);
}

/*
 * The input variables srun reads (Slurm 22.05's srun(1), "INPUT
 * ENVIRONMENT VARIABLES"), weaker than the command line.  A flag variable
 * sets its option whatever its value.  The job's shape (-N, -n,
 * --ntasks-per-node) is inherited only where the command line does not
 * reshape the step: see srun_env_applies.
 */
static const struct {
    const char *var;
    int id;
    bool flag;
} srun_env_opts[] = {
    {"SLURM_JOB_NUM_NODES", SR_NODES, false},
    {"SLURM_NNODES", SR_NODES, false},
    {"SLURM_NPROCS", SR_NTASKS, false},
    {"SLURM_NTASKS", SR_NTASKS, false},
    {"SLURM_NTASKS_PER_NODE", SR_NTASKS_PER_NODE, false},
    {"SLURM_CPUS_PER_TASK", SR_CPUS_PER_TASK, false},
    {"SLURM_GPUS_PER_TASK", SR_GPUS_PER_TASK, false},
    {"SLURM_GPUS_PER_NODE", SR_GPUS_PER_NODE, false},
    {"SLURM_MEM_PER_NODE", SR_MEM, false},
    {"SLURM_DISTRIBUTION", SR_DISTRIBUTION, false},
    {"SLURM_TIMELIMIT", SR_TIME, false},
    {"SLURM_STDOUTMODE", SR_OUTPUT, false},
    {"SLURM_STDERRMODE", SR_ERROR, false},
    {"SLURM_STDINMODE", SR_INPUT, false},
    {"SLURM_WORKING_DIR", SR_CHDIR, false},
    {"SLURM_IMMEDIATE", SR_IMMEDIATE, false},
    {"SLURM_KILL_BAD_EXIT", SR_KILL_BAD_EXIT, false},
    {"SLURM_EXACT", SR_EXACT, true},
    {"SLURM_OVERLAP", SR_OVERLAP, true},
    {"SLURM_LABELIO", SR_LABEL, true},
    {"SLURM_UNBUFFEREDIO", SR_UNBUFFERED, true},
    {"SLURM_NO_KILL", SR_NO_KILL, true},
};

void srun_opts_help(const char *name)
{
    printf("Usage: %s [OPTIONS] COMMAND [ARGS...]\n", name);
    printf(
        "Run a parallel step of COMMAND inside a job's allocation.\n\n"
        "  -n, --ntasks=N           -N, --nodes=MIN[-MAX]\n"
        "      --ntasks-per-node=N  -c, --cpus-per-task=N\n"
        "      --gpus-per-task=[TYPE:]N  --gpus-per-node=[TYPE:]N\n"
        "      --gres=gpu[:TYPE]:N      --mem=SIZE\n"
        "  -w, --nodelist=HOSTS     -x, --exclude=HOSTS\n"
        "  -m, --distribution=block|cyclic\n"
        "      --exact              --overlap\n"
        "  -l, --label              -u, --unbuffered     --pty\n"
        "  -o, --output=PATTERN     -e, --error=PATTERN\n"
        "  -i, --input=all|none|TASK|FILE\n"
        "  -J, --job-name=NAME      -t, --time=TIME      -D, --chdir=DIR\n"
        "  -I, --immediate[=SECS]   -K, --kill-on-bad-exit[=0|1]\n"
        "  -k, --no-kill[=off]      --jobid=JOBID\n"
        "Outside a job srun first gets one (as salloc does):\n"
        "  -p, --partition=PART     -A, --account=ACCOUNT  -q, --qos=QOS\n"
        "      and sbatch's other job options (-C, --exclusive, --comment,\n"
        "      --mail-type, --reservation, --gpus, ...; see sbatch --help)\n"
        "  -Q, --quiet              -v, --verbose\n"
        "  -h, --help               --usage              -V, --version\n"
        "Patterns: %%j job, %%s step, %%t task, %%n node id, %%N node name,\n"
        "%%x job name, %%u user, %%A array job, %%a array task.\n");
    slurmopts_help(srun_table());
}

void srun_opts_clear(struct srun_opts *o)
{
    free(o->alloc_args);
    free(o->name);
    free(o->nodelist);
    free(o->exclude);
    free(o->distribution);
    free(o->chdir);
    free(o->input_file);
    free(o->out_pattern);
    free(o->err_pattern);
    json_decref(o->notes);
    memset(o, 0, sizeof(*o));
}

static void sr_replace(char **dst, const char *s)
{
    free(*dst);
    *dst = s != NULL ? xstrdup(s) : NULL;
}

static int sr_count(const char *arg, uint32_t max, uint32_t *out, struct err *e)
{
    uint64_t v;

    if (value_parse_u64(arg, 1, max, &v, e) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* --gpus-per-task / --gpus-per-node=[TYPE:]N: the count (the job's GPUs
 * were chosen when it started; a type only has to name them). */
static int sr_gpus(const char *arg, uint32_t *out, struct err *e)
{
    char type[GRES_NAME_MAX];
    uint64_t n;

    if (optval_gpus(arg, type, sizeof(type), &n, e) < 0)
        return -1;
    if (n < 1 || n > SRUN_MAX_GPUS)
        return err_inval(e, "expected a GPU count from 1 to %u", SRUN_MAX_GPUS);
    *out = (uint32_t)n;
    return 0;
}

/* --gres=gpu[:TYPE]:N[,...] or "none": the GPUs per node. */
static int sr_gres(struct srun_opts *o, const char *arg, struct err *e)
{
    struct gres_list l;

    if (strcmp(arg, "none") == 0) {
        o->gpus_per_node = 0;
        return 0;
    }
    if (gres_parse(arg, &l, e) < 0)
        return -1;
    for (size_t i = 0; i < l.n; i++)
        if (strcmp(l.items[i].name, "gpu") != 0)
            return err_inval(e,
                             "only GPUs can be asked for per step "
                             "(gpu:N or gpu:TYPE:N), not %s",
                             l.items[i].name);
    if (gres_count(&l, "gpu", NULL) > SRUN_MAX_GPUS)
        return err_inval(e, "more than %u GPUs per node", SRUN_MAX_GPUS);
    o->gpus_per_node = (uint32_t)gres_count(&l, "gpu", NULL);
    return 0;
}

static int sr_hosts(char **dst, const char *arg, struct err *e)
{
    char *s = optval_hosts(arg, e);

    if (s == NULL)
        return -1;
    free(*dst);
    *dst = s;
    return 0;
}

/* -m block|cyclic, with Slurm's socket and core levels ("block:cyclic")
 * accepted and left to the node; "*" is the default, block.  plane=N and
 * arbitrary (which sbatch takes, and which may come in
 * SLURM_DISTRIBUTION) lay tasks out as block, with a warning. */
static int sr_distribution(struct srun_opts *o, const char *arg, struct err *e)
{
    size_t n = strcspn(arg, ":,");
    uint64_t plane;
    char buf[160];

    if (n == 1 && arg[0] == '*')
        sr_replace(&o->distribution, "block");
    else if (n == 5 && strncmp(arg, "block", 5) == 0)
        sr_replace(&o->distribution, "block");
    else if (n == 6 && strncmp(arg, "cyclic", 6) == 0)
        sr_replace(&o->distribution, "cyclic");
    else if ((n == 9 && strncmp(arg, "arbitrary", 9) == 0) ||
             (n > 6 && n < 16 && strncmp(arg, "plane=", 6) == 0 &&
              (snprintf(buf, sizeof(buf), "%.*s", (int)(n - 6), arg + 6),
               value_parse_u64(buf, 1, SRUN_MAX_COUNT, &plane, e) == 0))) {
        sr_replace(&o->distribution, "block");
        snprintf(buf, sizeof(buf),
                 "--distribution=%.*s is laid out as block in Sluice (no "
                 "plane or arbitrary step layout)",
                 (int)n, arg);
        if (o->notes != NULL)
            json_array_append_new(o->notes, json_string(buf));
    } else
        return err_inval(e, "expected block, cyclic, plane=N or arbitrary");
    return 0;
}

static int sr_input(struct srun_opts *o, const char *arg, struct err *e)
{
    uint64_t task;

    sr_replace(&o->input_file, NULL);
    if (strcmp(arg, "all") == 0) {
        o->input_task = SRUN_INPUT_ALL;
    } else if (strcmp(arg, "none") == 0) {
        o->input_task = SRUN_INPUT_NONE;
    } else if (arg[0] >= '0' && arg[0] <= '9') {
        if (value_parse_u64(arg, 0, SRUN_MAX_COUNT - 1, &task, e) < 0)
            return -1;
        o->input_task = (int)task;
    } else if (arg[0] == '\0') {
        return err_inval(e, "expected all, none, a task id or a file");
    } else {
        o->input_task = SRUN_INPUT_ALL;
        sr_replace(&o->input_file, arg);
    }
    return 0;
}

static int sr_string(char **dst, const char *arg, struct err *e)
{
    if (arg[0] == '\0')
        return err_inval(e, "empty value");
    sr_replace(dst, arg);
    return 0;
}

/* -I[SECS]: no value fails at once when the step does not fit now. */
static int sr_immediate(struct srun_opts *o, const char *arg, struct err *e)
{
    uint64_t secs = 0;

    if (arg != NULL && arg[0] != '\0' &&
        value_parse_u64(arg, 0, 65535, &secs, e) < 0)
        return -1;
    o->immediate_s = (int)secs;
    return 0;
}

static int sr_bool_arg(const char *arg, const char *off, bool *out,
                       struct err *e)
{
    if (arg == NULL || strcmp(arg, "1") == 0) {
        *out = true;
        return 0;
    }
    if (strcmp(arg, off) == 0) {
        *out = false;
        return 0;
    }
    return err_inval(e, "expected no value, 1 or %s", off);
}

static int sr_job_id(struct srun_opts *o, const char *arg, struct err *e)
{
    uint64_t v;

    if (value_parse_u64(arg, 1, 4294967290u, &v, e) < 0)
        return -1;
    o->job_id = (uint32_t)v;
    return 0;
}

/* Options without a value, and the ones srun keeps for itself. */
static int sr_set_local(struct srun_opts *o, int id, const char *arg,
                        struct err *e)
{
    switch (id) {
    case SR_LABEL:
        o->label = true;
        return 0;
    case SR_UNBUFFERED:
        o->unbuffered = true;
        return 0;
    case SR_PTY:
        o->pty = true;
        return 0;
    case SR_EXACT:
        o->exact = true;
        return 0;
    case SR_OVERLAP:
        o->overlap = true;
        return 0;
    case SR_IMMEDIATE:
        return sr_immediate(o, arg, e);
    case SR_KILL_BAD_EXIT:
        return sr_bool_arg(arg, "0", &o->kill_on_bad_exit, e);
    case SR_NO_KILL:
        return sr_bool_arg(arg, "off", &o->no_kill, e);
    case SR_INTERACTIVE:
        o->interactive = true;
        return 0;
    case SR_PRESERVE_ENV:
        o->preserve_env = true;
        return 0;
    case SR_QUIET:
        o->quiet = true;
        return 0;
    case SR_VERBOSE:
        o->verbose++;
        return 0;
    case SR_HELP:
        o->help = true;
        return 0;
    case SR_USAGE:
        o->usage = true;
        return 0;
    case SR_VERSION:
        o->version = true;
        return 0;
    default:
        return err_inval(e, "unknown option id %d", id);
    }
}

static int sr_set_value(struct srun_opts *o, int id, const char *arg,
                        struct err *e)
{
    switch (id) {
    case SR_NTASKS:
        return sr_count(arg, SRUN_MAX_COUNT, &o->ntasks, e);
    case SR_NODES:
        return optval_nodes(arg, &o->nodes_min, &o->nodes_max, e);
    case SR_NTASKS_PER_NODE:
        return sr_count(arg, SRUN_MAX_COUNT, &o->ntasks_per_node, e);
    case SR_CPUS_PER_TASK:
        return sr_count(arg, SRUN_MAX_COUNT, &o->cpus_per_task, e);
    case SR_GPUS_PER_TASK:
        return sr_gpus(arg, &o->gpus_per_task, e);
    case SR_GPUS_PER_NODE:
        return sr_gpus(arg, &o->gpus_per_node, e);
    case SR_GRES:
        return sr_gres(o, arg, e);
    case SR_MEM:
        return value_parse_mem_mib(arg, &o->mem_mib, e);
    case SR_NODELIST:
        return sr_hosts(&o->nodelist, arg, e);
    case SR_EXCLUDE:
        return sr_hosts(&o->exclude, arg, e);
    case SR_DISTRIBUTION:
        return sr_distribution(o, arg, e);
    case SR_OUTPUT:
        return sr_string(&o->out_pattern, arg, e);
    case SR_ERROR:
        return sr_string(&o->err_pattern, arg, e);
    case SR_INPUT:
        return sr_input(o, arg, e);
    case SR_NAME:
        return sr_string(&o->name, arg, e);
    case SR_TIME:
        return optval_time_limit(arg, &o->time_limit_s, e);
    case SR_JOBID:
        return sr_job_id(o, arg, e);
    case SR_CHDIR:
        return sr_string(&o->chdir, arg, e);
    case SR_PARTITION:
    case SR_ACCOUNT:
    case SR_QOS:
        /* only for the allocation: read by sbatch's parser there */
        return arg[0] == '\0' ? err_inval(e, "empty value") : 0;
    default:
        return sr_set_local(o, id, arg, e);
    }
}

/* sbatch's options that Slurm applies to a step, which a step here does
 * not: inside a job they warn (once); for srun's own job they go to it. */
static const struct {
    int js_id;
    const char *what;
} srun_step_ignored[] = {
    {JS_CPU_BIND, "--cpu-bind has no effect on a step in Sluice (tasks are "
                  "not bound to CPUs)"},
    {JS_GPU_BIND, "--gpu-bind has no effect on a step in Sluice (GPUs are "
                  "given per task with --gpus-per-task)"},
    {JS_HINT, "--hint has no effect on a step in Sluice (tasks are not bound "
              "to CPUs)"},
    {JS_NTASKS_PER_GPU, "--ntasks-per-gpu has no effect on a step in Sluice "
                        "(use --gpus-per-task)"},
    {JS_EXTRA_NODE_INFO, "--extra-node-info has no effect on a step in "
                         "Sluice (no socket or core layout)"},
    {JS_SOCKETS_PER_NODE, "--sockets-per-node has no effect on a step in "
                          "Sluice (no socket or core layout)"},
    {JS_CORES_PER_SOCKET, "--cores-per-socket has no effect on a step in "
                          "Sluice (no socket or core layout)"},
    {JS_THREADS_PER_CORE, "--threads-per-core has no effect on a step in "
                          "Sluice (no socket or core layout)"},
};

static void sr_note(struct srun_opts *o, const char *line)
{
    size_t i;
    json_t *v;

    json_array_foreach(o->notes, i, v)
    {
        if (strcmp(json_string_value(v), line) == 0)
            return;
    }
    json_array_append_new(o->notes, json_string(line));
}

/* An option of sbatch's for srun's allocation: checked now (the words
 * are sbatch's: "--mail-type=x: invalid mail type ..."); --exclusive
 * also makes a step in a job --exact, as in Slurm 22.05. */
static int sr_set_alloc(struct srun_opts *o, int js_id, const char *arg,
                        struct err *e)
{
    struct jobspec js;
    int rc;

    jobspec_init(&js);
    rc = jobspec_set(&js, js_id, arg, 0, e);
    jobspec_clear(&js);
    if (rc == 0 && js_id == JS_OPEN_MODE)
        o->out_append = arg[0] == 'a' || arg[0] == 'A';
    if (rc == 0 && js_id == JS_EXCLUSIVE)
        o->exact = true;
    for (size_t i = 0;
         rc == 0 && o->job_id != 0 &&
         i < sizeof(srun_step_ignored) / sizeof(*srun_step_ignored);
         i++)
        if (srun_step_ignored[i].js_id == js_id)
            sr_note(o, srun_step_ignored[i].what);
    return rc;
}

/* One option; a mistake is named "--ntasks=abc: ...". */
static int sr_set(struct srun_opts *o, int id, const char *arg, struct err *e)
{
    char name[64];

    if (slurmopts_is_warn(id)) {
        slurmopts_note(o->notes, id);
        return 0;
    }
    if (id >= SR_JS_BASE && id < SR_JS_BASE + JS_N_OPTS)
        return sr_set_alloc(o, id - SR_JS_BASE, arg, e);
    if (sr_set_value(o, id, arg, e) == 0)
        return 0;
    opt_name(srun_opt_defs, id, name, sizeof(name));
    if (arg != NULL)
        return err_prefix(e, "%s=%s", name, arg);
    return err_prefix(e, "%s", name);
}

static const char *sr_env(char *const *envp, const char *var)
{
    size_t n = strlen(var);

    for (char *const *p = envp; p != NULL && *p != NULL; p++)
        if (strncmp(*p, var, n) == 0 && (*p)[n] == '=')
            return *p + n + 1;
    return NULL;
}

/*
 * Whether the job's shape variable for option id applies, given which
 * options the command line has (given[id]).  Slurm 22.05: -n alone lets
 * the step choose its nodes; SLURM_NTASKS only fills a step the command
 * line did not size (no -n, --ntasks-per-node or -N: "srun -N1 hostname"
 * in an 8-task job runs one task, not 8 on one node); a per-node count
 * from the job goes with the job's node count.
 */
static bool srun_env_applies(int id, const bool *given)
{
    switch (id) {
    case SR_NODES:
        return !(given[SR_NTASKS] && !given[SR_NODES]);
    case SR_NTASKS:
        return !given[SR_NTASKS] && !given[SR_NTASKS_PER_NODE] &&
               !given[SR_NODES];
    case SR_NTASKS_PER_NODE:
        return !given[SR_NTASKS] && !given[SR_NTASKS_PER_NODE];
    default:
        return true;
    }
}

static int sr_apply_env(struct srun_opts *o, char *const *envp,
                        const bool *given, struct err *e)
{
    const char *v = sr_env(envp, "SLURM_JOB_ID");

    if (v == NULL)
        v = sr_env(envp, "SLURM_JOBID");
    if (v != NULL && v[0] != '\0' && sr_job_id(o, v, e) < 0)
        return err_prefix(e, "SLURM_JOB_ID=%s", v);
    for (size_t i = 0; i < sizeof(srun_env_opts) / sizeof(*srun_env_opts);
         i++) {
        int id = srun_env_opts[i].id;
        v = sr_env(envp, srun_env_opts[i].var);
        if (v == NULL || v[0] == '\0' || !srun_env_applies(id, given))
            continue;
        if (sr_set_value(o, id, srun_env_opts[i].flag ? NULL : v, e) < 0)
            return err_prefix(e, "%s=%s", srun_env_opts[i].var, v);
    }
    return 0;
}

/* Slurm 22.05's srun input variables for sbatch's job options (used for
 * srun's own allocation) and for options without effect here (one
 * warning each), by option name; a flag option is set whatever the
 * value. */
static const struct {
    const char *var;
    const char *opt;
} srun_env_more[] = {
    {"SLURM_ACCTG_FREQ", "acctg-freq"},
    {"SLURM_CONSTRAINT", "constraint"},
    {"SLURM_CORE_SPEC", "core-spec"},
    {"SLURM_CPUS_PER_GPU", "cpus-per-gpu"},
    {"SLURM_GPU_BIND", "gpu-bind"},
    {"SLURM_GRES_FLAGS", "gres-flags"},
    {"SLURM_HINT", "hint"},
    {"SLURM_MEM_BIND", "mem-bind"},
    {"SLURM_MEM_PER_GPU", "mem-per-gpu"},
    {"SLURM_MPI_TYPE", "mpi"},
    {"SLURM_NETWORK", "network"},
    {"SLURM_OPEN_MODE", "open-mode"},
    {"SLURM_OVERCOMMIT", "overcommit"},
    {"SLURM_POWER", "power"},
    {"SLURM_PROFILE", "profile"},
    {"SLURM_REQ_SWITCH", "switches"},
    {"SLURM_RESERVATION", "reservation"},
    {"SLURM_RESV_PORTS", "resv-ports"},
    {"SLURM_SPREAD_JOB", "spread-job"},
    {"SLURM_THREAD_SPEC", "thread-spec"},
    {"SLURM_THREADS", "threads"},
    {"SLURM_USE_MIN_NODES", "use-min-nodes"},
    {"SLURM_WCKEY", "wckey"},
};

static void sr_keep_alloc_arg(struct srun_opts *o, int id, const char *arg);

static int sr_apply_env_more(struct srun_opts *o, char *const *envp,
                             struct err *e)
{
    for (size_t i = 0; i < sizeof(srun_env_more) / sizeof(*srun_env_more);
         i++) {
        const char *v = sr_env(envp, srun_env_more[i].var);
        const struct opt_def *d = srun_table();
        while (d->id != 0 && (d->long_name == NULL ||
                              strcmp(d->long_name, srun_env_more[i].opt) != 0))
            d++;
        if (v == NULL || d->id == 0)
            continue;
        if (d->arg == OPT_NOARG || (d->arg == OPT_OPTARG && v[0] == '\0'))
            v = NULL;
        else if (v[0] == '\0')
            continue;
        if (sr_set(o, d->id, v, e) < 0)
            return err_prefix(e, "%s", srun_env_more[i].var);
        sr_keep_alloc_arg(o, d->id, v);
    }
    return 0;
}

/* 0 when s is all well-formed UTF-8. */
static int sr_utf8(const char *s)
{
    size_t n = strlen(s), k;

    for (; n > 0; s += k, n -= k)
        if ((k = utf8_seq(s, n, NULL)) == 0)
            return -1;
    return 0;
}

/* An option from argv, applied after the variables. */
/* --pty: -u, and stdin to task 0 alone; no -o/-e/-i (Slurm's rule). */
static int sr_pty(struct srun_opts *o, struct err *e)
{
    if (o->out_pattern != NULL || o->err_pattern != NULL ||
        o->input_file != NULL || o->input_task != SRUN_INPUT_ALL)
        return err_inval(e, "--error/--input/--output are incompatible with "
                            "--pty");
    o->unbuffered = true;
    o->input_task = 0;
    return 0;
}

struct sr_arg {
    int id;
    const char *arg;
};

/* srun's options that are also sbatch's, for srun's own allocation. */
static const struct {
    int id, js_id;
} srun_alloc_opts[] = {
    {SR_NTASKS, JS_NTASKS},
    {SR_NODES, JS_NODES},
    {SR_NTASKS_PER_NODE, JS_NTASKS_PER_NODE},
    {SR_CPUS_PER_TASK, JS_CPUS_PER_TASK},
    {SR_GPUS_PER_TASK, JS_GPUS_PER_TASK},
    {SR_GPUS_PER_NODE, JS_GPUS_PER_NODE},
    {SR_GRES, JS_GRES},
    {SR_MEM, JS_MEM},
    {SR_NODELIST, JS_NODELIST},
    {SR_EXCLUDE, JS_EXCLUDE},
    {SR_NAME, JS_NAME},
    {SR_TIME, JS_TIME},
    {SR_CHDIR, JS_CHDIR},
    {SR_PARTITION, JS_PARTITION},
    {SR_ACCOUNT, JS_ACCOUNT},
    {SR_QOS, JS_QOS},
};

static void sr_keep_alloc_arg(struct srun_opts *o, int id, const char *arg)
{
    if (id >= SR_JS_BASE && id < SR_JS_BASE + JS_N_OPTS) {
        o->alloc_args = xreallocarray(o->alloc_args, o->n_alloc_args + 1,
                                      sizeof(*o->alloc_args));
        o->alloc_args[o->n_alloc_args++] =
            (struct srun_alloc_arg){id - SR_JS_BASE, arg};
        return;
    }
    for (size_t i = 0; i < sizeof(srun_alloc_opts) / sizeof(*srun_alloc_opts);
         i++) {
        if (srun_alloc_opts[i].id != id)
            continue;
        o->alloc_args = xreallocarray(o->alloc_args, o->n_alloc_args + 1,
                                      sizeof(*o->alloc_args));
        o->alloc_args[o->n_alloc_args++] =
            (struct srun_alloc_arg){srun_alloc_opts[i].js_id, arg};
        return;
    }
}

/* --interactive: salloc's step: one task on the job's first node, holding
 * nothing, whatever the job's shape variables say. */
static void sr_interactive(struct srun_opts *o)
{
    o->ntasks = 1;
    o->nodes_min = o->nodes_max = 1;
    o->ntasks_per_node = 0;
    o->overlap = true;
    o->exact = false;
}

int srun_opts_parse(struct srun_opts *o, int argc, char **argv,
                    char *const *envp, struct err *e)
{
    struct sr_arg *args = NULL;
    bool given[SR_N_OPTS] = {false};
    struct opt_state st;
    const char *arg;
    size_t n = 0;
    int id, rc;

    memset(o, 0, sizeof(*o));
    o->notes = json_array();
    o->time_limit_s = -1;
    o->immediate_s = -1;
    o->input_task = SRUN_INPUT_ALL;
    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, srun_table(), &id, &arg, e)) > 0) {
        args = xreallocarray(args, n + 1, sizeof(*args));
        args[n++] = (struct sr_arg){id, arg};
        if (id < SR_N_OPTS)
            given[id] = true;
    }
    opt_free(&st);
    memcpy(o->unknown, st.unknown, sizeof(o->unknown));
    if (rc == 0)
        rc = sr_apply_env(o, envp, given, e);
    if (rc == 0)
        rc = sr_apply_env_more(o, envp, e);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = sr_set(o, args[i].id, args[i].arg, e);
        sr_keep_alloc_arg(o, args[i].id, args[i].arg);
    }
    free(args);
    if (o->interactive)
        sr_interactive(o);
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    if (o->pty && sr_pty(o, e) < 0)
        return -1;
    o->cmd = argv + st.ind;
    o->n_cmd = argc - st.ind;
    for (int i = 0; i < o->n_cmd; i++)
        if (sr_utf8(o->cmd[i]) < 0)
            return err_inval(e, "argument %d of the command is not UTF-8",
                             i + 1);
    return 0;
}

static void req_count(json_t *req, const char *key, uint64_t v)
{
    if (v != 0)
        json_object_set_new(req, key, json_integer((json_int_t)v));
}

static void req_string(json_t *req, const char *key, const char *v)
{
    if (v != NULL)
        json_object_set_new(req, key, json_string(v));
}

/* The command's words (checked UTF-8 by srun_opts_parse) and the
 * environment, of which entries that are not UTF-8 cannot travel in JSON
 * and are left out (as sbatch does). */
static void req_words(json_t *req, const struct srun_opts *o, char *const *envp)
{
    json_t *argv = json_array(), *env = json_array();

    for (int i = 0; i < o->n_cmd; i++)
        json_array_append_new(argv, json_string(o->cmd[i]));
    for (char *const *p = envp; p != NULL && *p != NULL; p++) {
        json_t *v = json_string(*p);
        if (v != NULL)
            json_array_append_new(env, v);
    }
    json_object_set_new(req, "argv", argv);
    json_object_set_new(req, "env", env);
}

/* The step's name: -J, else the command's base name (Slurm names steps
 * after their command; SLURM_JOB_NAME is the job's), "interactive" for
 * salloc's step. */
static const char *req_name(const struct srun_opts *o)
{
    const char *base;

    if (o->name != NULL)
        return o->name;
    if (o->interactive)
        return "interactive";
    base = strrchr(o->cmd[0], '/');
    return base != NULL && base[1] != '\0' ? base + 1 : o->cmd[0];
}

json_t *srun_opts_request(const struct srun_opts *o, char *const *envp,
                          const char *cwd, const char *host, uint16_t port)
{
    json_t *req = json_object();
    char *dir = NULL;

    json_object_set_new(req, "job_id", json_integer(o->job_id));
    if (o->interactive)
        json_object_set_new(req, "step_id", json_string("interactive"));
    json_object_set_new(req, "name", json_string(req_name(o)));
    req_words(req, o, envp);
    if (o->chdir != NULL && o->chdir[0] != '/')
        dir = xasprintf("%s/%s", cwd, o->chdir);
    json_object_set_new(req, "cwd",
                        json_string(dir        ? dir
                                    : o->chdir ? o->chdir
                                               : cwd));
    free(dir);
    req_count(req, "ntasks", o->ntasks);
    req_count(req, "nodes_min", o->nodes_min);
    req_count(req, "nodes_max", o->nodes_max);
    req_count(req, "ntasks_per_node", o->ntasks_per_node);
    req_count(req, "cpus_per_task", o->cpus_per_task);
    req_count(req, "gpus_per_task", o->gpus_per_task);
    req_count(req, "gpus_per_node", o->gpus_per_node);
    req_count(req, "mem_mib", o->mem_mib);
    req_string(req, "nodelist", o->nodelist);
    req_string(req, "exclude", o->exclude);
    req_string(req, "distribution", o->distribution);
    json_object_set_new(req, "exact", json_boolean(o->exact));
    json_object_set_new(req, "overlap", json_boolean(o->overlap));
    json_object_set_new(req, "time_limit_s", json_integer(o->time_limit_s));
    json_object_set_new(req, "kill_on_bad_exit",
                        json_boolean(o->kill_on_bad_exit));
    json_object_set_new(req, "no_kill", json_boolean(o->no_kill));
    json_object_set_new(req, "input_task", json_integer(o->input_task));
    if (o->preserve_env)
        json_object_set_new(req, "preserve_env", json_true());
    if (o->pty)
        json_object_set_new(req, "pty", json_true());
    json_object_set_new(req, "srun_host", json_string(host));
    json_object_set_new(req, "srun_port", json_integer(port));
    return req;
}
