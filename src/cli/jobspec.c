/*
 * sbatch options and #SBATCH directives into a JOBSPEC.  Each value is
 * checked with the shared parsers (optval, value, gres, arrayspec) and a
 * mistake is named with the option that carried it.
 */
#include "cli/jobspec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/optval.h"
#include "cli/slurmopts.h"
#include "cli/when.h"
#include "common/arrayspec.h"
#include "common/gres.h"
#include "common/value.h"
#include "common/xalloc.h"
#include "sched/depend.h"
#include "sched/prio.h"

#define JS_MAX_COUNT 1048576u /* CPUs or tasks one job may ask for */

const struct opt_def jobspec_opts[] = {
    {"job-name", 'J', OPT_ARG, JS_NAME},
    {"partition", 'p', OPT_ARG, JS_PARTITION},
    {"time", 't', OPT_ARG, JS_TIME},
    {"cpus-per-task", 'c', OPT_ARG, JS_CPUS_PER_TASK},
    {"ntasks", 'n', OPT_ARG, JS_NTASKS},
    {"nodes", 'N', OPT_ARG, JS_NODES},
    {"ntasks-per-node", 0, OPT_ARG, JS_NTASKS_PER_NODE},
    {"tasks-per-node", 0, OPT_ARG, JS_NTASKS_PER_NODE}, /* Slurm's other name */
    {"mem", 0, OPT_ARG, JS_MEM},
    {"mem-per-cpu", 0, OPT_ARG, JS_MEM_PER_CPU},
    {"output", 'o', OPT_ARG, JS_OUTPUT},
    {"error", 'e', OPT_ARG, JS_ERROR},
    {"chdir", 'D', OPT_ARG, JS_CHDIR},
    {"export", 0, OPT_ARG, JS_EXPORT},
    {"qos", 'q', OPT_ARG, JS_QOS},
    {"account", 'A', OPT_ARG, JS_ACCOUNT},
    {"nodelist", 'w', OPT_ARG, JS_NODELIST},
    {"exclude", 'x', OPT_ARG, JS_EXCLUDE},
    {"gres", 0, OPT_ARG, JS_GRES},
    {"gpus", 'G', OPT_ARG, JS_GPUS},
    {"gpus-per-node", 0, OPT_ARG, JS_GPUS_PER_NODE},
    {"gpus-per-task", 0, OPT_ARG, JS_GPUS_PER_TASK},
    {"cpus-per-gpu", 0, OPT_ARG, JS_CPUS_PER_GPU},
    {"mem-per-gpu", 0, OPT_ARG, JS_MEM_PER_GPU},
    {"hold", 'H', OPT_NOARG, JS_HOLD},
    {"requeue", 0, OPT_NOARG, JS_REQUEUE},
    {"no-requeue", 0, OPT_NOARG, JS_NO_REQUEUE},
    {"no-kill", 'k', OPT_OPTARG, JS_NO_KILL},
    {"begin", 'b', OPT_ARG, JS_BEGIN},
    {"array", 'a', OPT_ARG, JS_ARRAY},
    {"dependency", 'd', OPT_ARG, JS_DEPENDENCY},
    {"kill-on-invalid-dep", 0, OPT_ARG, JS_KILL_INVALID_DEP},
    {"signal", 0, OPT_ARG, JS_SIGNAL},
    {"nice", 0, OPT_OPTARG, JS_NICE},
    {"parsable", 0, OPT_NOARG, JS_PARSABLE},
    {"test-only", 0, OPT_NOARG, JS_TEST_ONLY},
    {"wrap", 0, OPT_ARG, JS_WRAP},
    {"help", 'h', OPT_NOARG, JS_HELP},
    {"usage", 0, OPT_NOARG, JS_USAGE},
    {"version", 'V', OPT_NOARG, JS_VERSION},
    {"quiet", 'Q', OPT_NOARG, JS_QUIET},
    {"comment", 0, OPT_ARG, JS_COMMENT},
    {"wckey", 0, OPT_ARG, JS_WCKEY},
    {"deadline", 0, OPT_ARG, JS_DEADLINE},
    {"time-min", 0, OPT_ARG, JS_TIME_MIN},
    {"tmp", 0, OPT_ARG, JS_TMP},
    {"mincpus", 0, OPT_ARG, JS_MINCPUS},
    {"exclusive", 0, OPT_OPTARG, JS_EXCLUSIVE},
    {"oversubscribe", 's', OPT_NOARG, JS_OVERSUBSCRIBE},
    {"constraint", 'C', OPT_ARG, JS_CONSTRAINT},
    {"extra-node-info", 'B', OPT_ARG, JS_EXTRA_NODE_INFO},
    {"sockets-per-node", 0, OPT_ARG, JS_SOCKETS_PER_NODE},
    {"cores-per-socket", 0, OPT_ARG, JS_CORES_PER_SOCKET},
    {"threads-per-core", 0, OPT_ARG, JS_THREADS_PER_CORE},
    {"ntasks-per-gpu", 0, OPT_ARG, JS_NTASKS_PER_GPU},
    {"gres-flags", 0, OPT_ARG, JS_GRES_FLAGS},
    {"gpu-bind", 0, OPT_ARG, JS_GPU_BIND},
    {"cpu-bind", 0, OPT_ARG, JS_CPU_BIND},
    {"hint", 0, OPT_ARG, JS_HINT},
    {"distribution", 'm', OPT_ARG, JS_DISTRIBUTION},
    {"spread-job", 0, OPT_NOARG, JS_SPREAD_JOB},
    {"use-min-nodes", 0, OPT_NOARG, JS_USE_MIN_NODES},
    {"priority", 0, OPT_ARG, JS_PRIORITY},
    {"uid", 0, OPT_ARG, JS_UID},
    {"gid", 0, OPT_ARG, JS_GID},
    {"reservation", 0, OPT_ARG, JS_RESERVATION},
    {"mail-type", 0, OPT_ARG, JS_MAIL_TYPE},
    {"mail-user", 0, OPT_ARG, JS_MAIL_USER},
    {"open-mode", 0, OPT_ARG, JS_OPEN_MODE},
    {"get-user-env", 0, OPT_OPTARG, JS_GET_USER_ENV},
    {"propagate", 0, OPT_OPTARG, JS_PROPAGATE},
    {"wait", 'W', OPT_NOARG, JS_WAIT},
    {NULL, 0, OPT_NOARG, 0},
};

/* jobspec_opts plus the warn-only options: room for both. */
#define JS_TABLE_MAX 200

const struct opt_def *jobspec_table(void)
{
    static struct opt_def tab[JS_TABLE_MAX];

    if (tab[0].id == 0)
        slurmopts_table(jobspec_opts, SLURMOPTS_SBATCH, tab, JS_TABLE_MAX);
    return tab;
}

void jobspec_init(struct jobspec *js)
{
    memset(js, 0, sizeof(*js));
    js->job = json_object();
    js->notes = json_array();
}

void jobspec_clear(struct jobspec *js)
{
    json_decref(js->job);
    json_decref(js->notes);
    free(js->export);
    free(js->wrap);
    free(js->chdir);
    memset(js, 0, sizeof(*js));
}

static void js_replace(char **dst, const char *s)
{
    free(*dst);
    *dst = xstrdup(s);
}

/* A count in [1, max] into key. */
static int js_count(struct jobspec *js, const char *key, const char *arg,
                    uint64_t max, struct err *e)
{
    uint64_t v;

    if (value_parse_u64(arg, 1, max, &v, e) < 0)
        return -1;
    json_object_set_new(js->job, key, json_integer((json_int_t)v));
    return 0;
}

static int js_time(struct jobspec *js, const char *arg, struct err *e)
{
    int64_t secs;

    if (optval_time_limit(arg, &secs, e) < 0)
        return -1;
    if (secs < 0)
        json_object_set_new(js->job, "time_limit_s", json_string("INFINITE"));
    else
        json_object_set_new(js->job, "time_limit_s", json_integer(secs));
    return 0;
}

static int js_nodes(struct jobspec *js, const char *arg, struct err *e)
{
    uint32_t min, max;

    if (optval_nodes(arg, &min, &max, e) < 0)
        return -1;
    json_object_set_new(js->job, "nodes", json_integer(min));
    if (max != min) {
        /* Slurm may give any count in the range: Sluice gives MIN */
        char line[160];
        snprintf(line, sizeof(line),
                 "--nodes=%s: Sluice allocates the minimum, %" PRIu32 " node%s",
                 arg, min, min == 1 ? "" : "s");
        json_array_append_new(js->notes, json_string(line));
    }
    return 0;
}

static int js_mem(struct jobspec *js, const char *key, const char *arg,
                  struct err *e)
{
    uint64_t mib;

    if (value_parse_mem_mib(arg, &mib, e) < 0)
        return -1;
    json_object_set_new(js->job, key, json_integer((json_int_t)mib));
    return 0;
}

static int js_string(struct jobspec *js, const char *key, const char *arg,
                     struct err *e)
{
    if (arg[0] == '\0') {
        errno = EINVAL;
        return err_set(e, "empty value");
    }
    json_object_set_new(js->job, key, json_string(arg));
    return 0;
}

/* --array: checked here (the controller applies MaxArraySize). */
static int js_array(struct jobspec *js, const char *arg, struct err *e)
{
    struct arrayspec a;

    if (arrayspec_parse(arg, ARRAYSPEC_MAX_SIZE, &a, e) < 0)
        return -1;
    arrayspec_clear(&a);
    return js_string(js, "array", arg, e);
}

static int js_dependency(struct jobspec *js, const char *arg, struct err *e)
{
    struct depend d;
    char *canon;

    if (depend_parse(arg, &d, e) < 0)
        return -1;
    canon = depend_format(&d);
    depend_clear(&d);
    json_object_set_new(js->job, "dependency", json_string(canon));
    free(canon);
    return 0;
}

static int js_yes_no(struct jobspec *js, const char *key, const char *arg,
                     struct err *e)
{
    if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0) {
        errno = EINVAL;
        return err_set(e, "expected yes or no");
    }
    json_object_set_new(js->job, key, json_boolean(arg[0] == 'y'));
    return 0;
}

static int js_hosts(struct jobspec *js, const char *key, const char *arg,
                    struct err *e)
{
    char *s = optval_hosts(arg, e);

    if (s == NULL)
        return -1;
    json_object_set_new(js->job, key, json_string(s));
    free(s);
    return 0;
}

/* --gres=gpu:2 in canonical form; --gpus, --gpus-per-node and
 * --gpus-per-task=[type:]N as "N" or "TYPE:N". */
static int js_gres(struct jobspec *js, const char *key, const char *arg,
                   bool gpus, struct err *e)
{
    struct gres_list l;
    char type[GRES_NAME_MAX], buf[1024];
    uint64_t n;

    if (gpus) {
        if (optval_gpus(arg, type, sizeof(type), &n, e) < 0)
            return -1;
        if (type[0] != '\0')
            snprintf(buf, sizeof(buf), "%s:%llu", type, (unsigned long long)n);
        else
            snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
    } else {
        if (gres_parse(arg, &l, e) < 0)
            return -1;
        gres_format(&l, buf, sizeof(buf));
    }
    json_object_set_new(js->job, key, json_string(buf));
    return 0;
}

static int js_begin(struct jobspec *js, const char *arg, time_t now,
                    struct err *e)
{
    time_t t;

    if (when_parse(arg, now, WHEN_NEXT, &t, e) < 0)
        return -1;
    json_object_set_new(js->job, "begin_time", json_integer((json_int_t)t));
    return 0;
}

/* --nice[=ADJ]: no value means 100, as in Slurm; whether a negative one
 * is allowed is the controller's decision (operators only). */
static int js_nice(struct jobspec *js, const char *arg, struct err *e)
{
    char *end;
    long long v;

    if (arg == NULL) {
        json_object_set_new(js->job, "nice", json_integer(100));
        return 0;
    }
    errno = 0;
    v = strtoll(arg, &end, 10);
    if (arg[0] == '\0' || *end != '\0' || errno != 0 || v < -PRIO_NICE_MAX ||
        v > PRIO_NICE_MAX) {
        errno = EINVAL;
        return err_set(e, "expected an integer from %d to %d", -PRIO_NICE_MAX,
                       PRIO_NICE_MAX);
    }
    json_object_set_new(js->job, "nice", json_integer(v));
    return 0;
}

static int js_signal(struct jobspec *js, const char *arg, struct err *e)
{
    unsigned secs;
    bool batch;
    int sig;

    if (jobspec_signal_parse(arg, &sig, &secs, &batch, e) < 0)
        return -1;
    json_object_set_new(js->job, "warn_signal", json_integer(sig));
    json_object_set_new(js->job, "warn_time_s", json_integer(secs));
    json_object_set_new(js->job, "warn_batch", json_boolean(batch));
    return 0;
}

static int js_export(struct jobspec *js, const char *arg, struct err *e)
{
    char *const none[] = {NULL};
    json_t *env = jobspec_export_env(arg, none, e);

    if (env == NULL)
        return -1;
    json_decref(env);
    js_replace(&js->export, arg);
    return 0;
}

/* Options that set a flag or keep a string for jobspec_finish. */
static int js_set_local(struct jobspec *js, int id, const char *arg, time_t now,
                        struct err *e)
{
    switch (id) {
    case JS_HOLD:
        json_object_set_new(js->job, "hold", json_true());
        return 0;
    case JS_REQUEUE:
    case JS_NO_REQUEUE:
        json_object_set_new(js->job, "requeue", json_boolean(id == JS_REQUEUE));
        return 0;
    case JS_NO_KILL: /* -k, --no-kill[=off] */
        if (arg != NULL && strcasecmp(arg, "off") != 0)
            return err_inval(e, "expected off or nothing");
        json_object_set_new(js->job, "no_kill", json_boolean(arg == NULL));
        return 0;
    case JS_TEST_ONLY:
        json_object_set_new(js->job, "test_only", json_true());
        return 0;
    case JS_PARSABLE:
        js->parsable = true;
        return 0;
    case JS_QUIET:
        js->quiet = true;
        return 0;
    case JS_HELP:
        js->help = true;
        return 0;
    case JS_USAGE:
        js->usage = true;
        return 0;
    case JS_VERSION:
        js->version = true;
        return 0;
    case JS_WRAP:
        if (arg[0] == '\0') {
            errno = EINVAL;
            return err_set(e, "empty command");
        }
        js_replace(&js->wrap, arg);
        return 0;
    case JS_CHDIR:
        if (arg[0] == '\0') {
            errno = EINVAL;
            return err_set(e, "empty directory");
        }
        js_replace(&js->chdir, arg);
        return 0;
    case JS_EXPORT:
        return js_export(js, arg, e);
    default:
        if (id >= JS_COMMENT && id < JS_N_OPTS)
            return jobspec_set_slurm(js, id, arg, now, e);
        errno = EINVAL;
        return err_set(e, "unknown option id %d", id);
    }
}

static int js_set_value(struct jobspec *js, int id, const char *arg, time_t now,
                        struct err *e)
{
    switch (id) {
    case JS_NAME:
        return js_string(js, "name", arg, e);
    case JS_PARTITION:
        return js_string(js, "partition", arg, e);
    case JS_TIME:
        return js_time(js, arg, e);
    case JS_CPUS_PER_TASK:
        return js_count(js, "cpus_per_task", arg, JS_MAX_COUNT, e);
    case JS_NTASKS:
        return js_count(js, "ntasks", arg, JS_MAX_COUNT, e);
    case JS_NODES:
        return js_nodes(js, arg, e);
    case JS_NTASKS_PER_NODE:
        return js_count(js, "ntasks_per_node", arg, JS_MAX_COUNT, e);
    case JS_MEM:
        return js_mem(js, "mem_mib", arg, e);
    case JS_MEM_PER_CPU:
        return js_mem(js, "mem_per_cpu_mib", arg, e);
    case JS_OUTPUT:
        return js_string(js, "std_out", arg, e);
    case JS_ERROR:
        return js_string(js, "std_err", arg, e);
    case JS_QOS:
        return js_string(js, "qos", arg, e);
    case JS_ACCOUNT:
        return js_string(js, "account", arg, e);
    case JS_NODELIST:
        return js_hosts(js, "nodelist", arg, e);
    case JS_EXCLUDE:
        return js_hosts(js, "exclude", arg, e);
    case JS_GRES:
        return js_gres(js, "gres", arg, false, e);
    case JS_GPUS:
        return js_gres(js, "gpus", arg, true, e);
    case JS_GPUS_PER_NODE:
        return js_gres(js, "gpus_per_node", arg, true, e);
    case JS_GPUS_PER_TASK:
        return js_gres(js, "gpus_per_task", arg, true, e);
    case JS_CPUS_PER_GPU:
        return js_count(js, "cpus_per_gpu", arg, 65535, e);
    case JS_MEM_PER_GPU:
        return js_mem(js, "mem_per_gpu_mib", arg, e);
    case JS_BEGIN:
        return js_begin(js, arg, now, e);
    case JS_ARRAY:
        return js_array(js, arg, e);
    case JS_DEPENDENCY:
        return js_dependency(js, arg, e);
    case JS_KILL_INVALID_DEP:
        return js_yes_no(js, "kill_on_invalid_dep", arg, e);
    case JS_SIGNAL:
        return js_signal(js, arg, e);
    case JS_NICE:
        return js_nice(js, arg, e);
    default:
        return js_set_local(js, id, arg, now, e);
    }
}

int jobspec_set(struct jobspec *js, int id, const char *arg, time_t now,
                struct err *e)
{
    char name[64];

    if (slurmopts_is_warn(id)) {
        slurmopts_note(js->notes, id);
        return 0;
    }
    if (js_set_value(js, id, arg, now, e) == 0)
        return 0;
    opt_name(jobspec_table(), id, name, sizeof(name));
    if (arg != NULL)
        return err_prefix(e, "%s=%s", name, arg);
    return err_prefix(e, "%s", name);
}

/* Apply the words of one "#SBATCH ..." line. */
static int js_directive(struct jobspec *js, const char *line, time_t now,
                        struct err *e)
{
    struct opt_state st;
    const char *arg;
    char **words;
    int n, id, rc = 0;

    if ((words = opt_split(line, &n, e)) == NULL)
        return -1;
    opt_init(&st, n, words, 0, false);
    while (rc == 0 && (rc = opt_next(&st, jobspec_table(), &id, &arg, e)) > 0)
        rc = jobspec_set(js, id, arg, now, e) < 0 ? -1 : 0;
    if (rc == 0 && st.ind < n) {
        errno = EINVAL;
        rc = err_set(e, "unexpected argument \"%s\"", words[st.ind]);
    }
    if (rc < 0 && st.unknown[0] != '\0') {
        const char *near = slurmopts_nearest(jobspec_table(), st.unknown);
        char text[sizeof(e->text)];
        if (near != NULL) {
            snprintf(text, sizeof(text), "%s", e->text);
            err_inval(e, "%s; did you mean '--%s'?", text, near);
        }
    }
    opt_free(&st);
    opt_split_free(words);
    return rc < 0 ? -1 : 0;
}

int jobspec_directives(struct jobspec *js, const char *script, const char *name,
                       time_t now, struct err *e)
{
    const char *p = script;
    int lineno = 1;

    /* The first line is the interpreter's. */
    p = strchr(p, '\n');
    while (p != NULL && *++p != '\0') {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *q = p;
        lineno++;
        while (q < p + len && (*q == ' ' || *q == '\t'))
            q++;
        if (q < p + len && *q != '#')
            break;
        if (len > 7 && strncmp(p, "#SBATCH", 7) == 0 &&
            (p[7] == ' ' || p[7] == '\t')) {
            char *line = xstrndup(p + 7, len - 7);
            int rc = js_directive(js, line, now, e);
            if (rc < 0) {
                err_prefix(e, "%s:%d", name, lineno);
                free(line);
                return -1;
            }
            free(line);
        }
        p = end;
    }
    return 0;
}

int jobspec_check_script(const char *script, size_t len, struct err *e)
{
    size_t i;

    errno = EINVAL;
    if (len == 0)
        return err_set(e, "Batch script is empty!");
    if (len > JOBSPEC_MAX_SCRIPT)
        return err_set(e,
                       "Batch script is too large (%zu bytes; the limit "
                       "is %u)",
                       len, JOBSPEC_MAX_SCRIPT);
    for (i = 0; i < len && strchr(" \t\r\n", script[i]) != NULL; i++)
        ;
    if (i == len)
        return err_set(e, "Batch script contains only whitespace!");
    if (len < 2 || script[0] != '#' || script[1] != '!')
        return err_set(e, "This does not look like a batch script.  The "
                          "first line must start with #! followed by the "
                          "path to an interpreter.");
    if (memchr(script, '\0', len) != NULL)
        return err_set(
            e, "Batch script contains a NUL byte at offset %zu",
            (size_t)((const char *)memchr(script, '\0', len) - script));
    if (memmem(script, len, "\r\n", 2) != NULL)
        return err_set(e, "Batch script contains DOS line breaks (\\r\\n) "
                          "instead of expected UNIX line breaks (\\n).");
    return 0;
}
