/*
 * A job's environment and output file names, built from its LAUNCH: the
 * variables a Slurm batch job sees (with SLUICE_* twins) and Slurm's
 * filename patterns (%j %x %u %N %A %a ...).
 */
#include "noded/jobenv.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/stdpath.h"
#include "common/envlist.h"
#include "common/xalloc.h"

static size_t count_nodes(const char *list)
{
    struct hostlist *hl = hostlist_expand(list, NULL);
    size_t n = hl ? hostlist_count(hl) : 1;

    hostlist_destroy(hl);
    return n > 0 ? n : 1;
}

/* "1,3": the ordinals of the job's GPUs, or 0..n-1 when renumbered. */
static char *gpu_list(const struct launch *l, const struct jobenv_gpus *g,
                      bool local)
{
    char *s = xcalloc(l->n_gpus + 1, 12), *p = s;

    for (size_t i = 0; i < l->n_gpus; i++) {
        long v = local                              ? (long)i
                 : g != NULL && g->ordinals != NULL ? g->ordinals[i]
                                                    : (long)l->gpus[i];
        p += sprintf(p, "%s%ld", i ? "," : "", v);
    }
    return s;
}

static void env_gpus(struct envlist *b, const struct launch *l,
                     const struct jobenv_gpus *g)
{
    char *global = gpu_list(l, g, false);
    char *local = gpu_list(l, g, g != NULL && g->renumber);

    envlist_twin(b, "SLURM_JOB_GPUS", global);
    envlist_twin_u64(b, "SLURM_GPUS_ON_NODE", l->n_gpus);
    envlist_put(b, xasprintf("CUDA_VISIBLE_DEVICES=%s", local));
    envlist_put(b, xasprintf("GPU_DEVICE_ORDINAL=%s", local));
    free(global);
    free(local);
}

/* The job's tasks, as the controller laid them out (absent: one task per
 * node, "1(xN)", as Slurm says of a job without -n). */
static void env_tasks(struct envlist *b, const struct launch *l, size_t n_nodes)
{
    char *tpn;

    if (l->ntasks > 0) {
        envlist_twin_u64(b, "SLURM_NTASKS", l->ntasks);
        envlist_twin_u64(b, "SLURM_NPROCS", l->ntasks);
    }
    if (l->ntasks_per_node > 0)
        envlist_twin_u64(b, "SLURM_NTASKS_PER_NODE", l->ntasks_per_node);
    if (l->cpus_per_task > 0)
        envlist_twin_u64(b, "SLURM_CPUS_PER_TASK", l->cpus_per_task);
    if (l->tasks_per_node != NULL && l->tasks_per_node[0] != '\0')
        tpn = xstrdup(l->tasks_per_node);
    else if (n_nodes > 1)
        tpn = xasprintf("1(x%zu)", n_nodes);
    else
        tpn = xstrdup("1");
    envlist_twin(b, "SLURM_TASKS_PER_NODE", tpn);
    free(tpn);
}

/* "16" or "16(x2)": CPUs on each of the job's nodes, as Slurm compresses
 * them (one count for all here: the controller gives each node the
 * same). */
static void env_cpus(struct envlist *b, const struct launch *l, size_t n_nodes)
{
    char *v = n_nodes > 1 ? xasprintf("%u(x%zu)", l->cpus, n_nodes)
                          : xasprintf("%u", l->cpus);

    envlist_twin(b, "SLURM_JOB_CPUS_PER_NODE", v);
    free(v);
}

static void twin_if(struct envlist *b, const char *key, const char *v)
{
    if (v != NULL && v[0] != '\0')
        envlist_twin(b, key, v);
}

/* Slurm 22.05's other batch variables (docs/environment.md): memory, GPUs
 * as requested, account, QOS, cluster, submit host, reservation, times,
 * topology, and the batch task's own ids. */
static void env_extras(struct envlist *b, const struct launch *l,
                       const char *node)
{
    if (l->mem_per_cpu_mib > 0)
        envlist_twin_u64(b, "SLURM_MEM_PER_CPU", l->mem_per_cpu_mib);
    else if (l->mem_mib > 0)
        envlist_twin_u64(b, "SLURM_MEM_PER_NODE", l->mem_mib);
    if (l->mem_per_gpu_mib > 0)
        envlist_twin_u64(b, "SLURM_MEM_PER_GPU", l->mem_per_gpu_mib);
    twin_if(b, "SLURM_GPUS", l->req_gpus);
    twin_if(b, "SLURM_GPUS_PER_NODE", l->req_gpus_per_node);
    twin_if(b, "SLURM_GPUS_PER_TASK", l->req_gpus_per_task);
    twin_if(b, "SLURM_DISTRIBUTION", l->distribution);
    if (l->open_mode != NULL && l->open_mode[0] != '\0') /* a or t */
        envlist_twin(b, "SLURM_OPEN_MODE",
                     strcmp(l->open_mode, "append") == 0 ? "a" : "t");
    twin_if(b, "SLURM_JOB_ACCOUNT", l->account);
    twin_if(b, "SLURM_JOB_QOS", l->qos);
    twin_if(b, "SLURM_CLUSTER_NAME", l->cluster_name);
    twin_if(b, "SLURM_SUBMIT_HOST", l->submit_host);
    twin_if(b, "SLURM_JOB_RESERVATION", l->reservation);
    if (l->start_time > 0)
        envlist_twin_u64(b, "SLURM_JOB_START_TIME", (uint64_t)l->start_time);
    if (l->end_time > 0)
        envlist_twin_u64(b, "SLURM_JOB_END_TIME", (uint64_t)l->end_time);
    if (l->get_user_env != NULL)
        envlist_twin(b, "SLURM_GET_USER_ENV", "1");
    /* sbatch's own scheduling priority when it sent one, else 0 */
    if (b->v == NULL || jobenv_get(b->v, "SLURM_PRIO_PROCESS") == NULL)
        envlist_twin(b, "SLURM_PRIO_PROCESS", "0");
    envlist_twin(b, "SLURM_TOPOLOGY_ADDR", node);
    envlist_twin(b, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
    envlist_twin(b, "SLURM_PROCID", "0");
    envlist_twin(b, "SLURM_LOCALID", "0");
    envlist_twin(b, "SLURM_GTIDS", "0");
    envlist_put(b, xstrdup("ENVIRONMENT=BATCH"));
}

char **jobenv_build(const struct launch *l, const struct jobenv_gpus *g,
                    const char *user, const char *node)
{
    struct envlist b = {0};
    const char *nodes = l->node_list[0] ? l->node_list : node;
    size_t n_nodes = l->num_nodes > 0 ? l->num_nodes : count_nodes(nodes);

    for (size_t i = 0; i < l->n_env; i++)
        envlist_put(&b, xstrdup(l->env[i]));
    envlist_twin_u64(&b, "SLURM_JOB_ID", l->job_id);
    envlist_twin_u64(&b, "SLURM_JOBID", l->job_id);
    envlist_twin(&b, "SLURM_JOB_NAME", l->name);
    envlist_twin(&b, "SLURM_JOB_PARTITION", l->partition);
    envlist_twin(&b, "SLURM_JOB_NODELIST", nodes);
    envlist_twin(&b, "SLURM_NODELIST", nodes);
    envlist_twin_u64(&b, "SLURM_JOB_NUM_NODES", n_nodes);
    envlist_twin_u64(&b, "SLURM_NNODES", n_nodes);
    envlist_twin(&b, "SLURM_SUBMIT_DIR",
                 l->submit_dir && l->submit_dir[0] ? l->submit_dir
                                                   : l->work_dir);
    envlist_twin_u64(&b, "SLURM_CPUS_ON_NODE", l->cpus);
    env_cpus(&b, l, n_nodes);
    envlist_twin(&b, "SLURM_JOB_USER", user);
    envlist_twin_u64(&b, "SLURM_JOB_UID", l->uid);
    envlist_twin_u64(&b, "SLURM_JOB_GID", l->gid);
    envlist_twin(&b, "SLURM_NODEID", "0");
    envlist_twin(&b, "SLURMD_NODENAME", node);
    if (l->restart_count > 0)
        envlist_twin_u64(&b, "SLURM_RESTART_COUNT", l->restart_count);
    if (l->is_array) {
        envlist_twin_u64(&b, "SLURM_ARRAY_JOB_ID", l->array_job_id);
        envlist_twin_u64(&b, "SLURM_ARRAY_TASK_ID", l->array_task_id);
        if (l->array_task_count > 0) {
            envlist_twin_u64(&b, "SLURM_ARRAY_TASK_COUNT", l->array_task_count);
            envlist_twin_u64(&b, "SLURM_ARRAY_TASK_MIN", l->array_task_min);
            envlist_twin_u64(&b, "SLURM_ARRAY_TASK_MAX", l->array_task_max);
            envlist_twin_u64(&b, "SLURM_ARRAY_TASK_STEP", l->array_task_step);
        }
    }
    env_tasks(&b, l, n_nodes);
    env_extras(&b, l, node);
    if (l->n_gpus > 0)
        env_gpus(&b, l, g);
    return b.v;
}

char **jobenv_set(char **env, const char *key, const char *value)
{
    struct envlist b = envlist_adopt(env);

    envlist_put(&b, xasprintf("%s=%s", key, value));
    return b.v;
}

char **jobenv_set_slurm(char **env, const char *key, const char *value)
{
    struct envlist b = envlist_adopt(env);

    envlist_twin(&b, key, value);
    return b.v;
}

void jobenv_free(char **env)
{
    if (env == NULL)
        return;
    for (char **p = env; *p != NULL; p++)
        free(*p);
    free(env);
}

const char *jobenv_get(char *const *env, const char *key)
{
    size_t kl = strlen(key);

    for (char *const *p = env; *p != NULL; p++)
        if (strncmp(*p, key, kl) == 0 && (*p)[kl] == '=')
            return *p + kl + 1;
    return NULL;
}

mode_t jobenv_umask_env(char *const *env, size_t n)
{
    const char *v = NULL;
    char *end;
    long m;

    for (size_t i = 0; i < n; i++) /* later duplicates win */
        if (strncmp(env[i], "SLURM_UMASK=", 12) == 0)
            v = env[i] + 12;
    if (v == NULL || *v < '0' || *v > '7')
        return 022;
    m = strtol(v, &end, 8);
    if (*end != '\0' || m < 0 || m > 0777)
        return 022;
    return (mode_t)m;
}

mode_t jobenv_umask(const struct launch *l)
{
    return jobenv_umask_env(l->env, l->n_env);
}

/* The letters of the output patterns, from the launch. */
static struct stdpath_job stdpath_of(const struct launch *l, const char *user,
                                     const char *node)
{
    return (struct stdpath_job){.job_id = l->job_id,
                                .is_array = l->is_array,
                                .array_job_id = l->array_job_id,
                                .array_task_id = l->array_task_id,
                                .name = l->name,
                                .user = user,
                                .node = node};
}

char *jobenv_expand(const char *pattern, const struct launch *l,
                    const char *user, const char *node)
{
    struct stdpath_job j = stdpath_of(l, user, node);

    return stdpath_expand(pattern, &j);
}

char *jobenv_output_path(const struct launch *l, int err, const char *user,
                         const char *node, const char *work_dir)
{
    struct stdpath_job j = stdpath_of(l, user, node);
    const char *pattern = l->std_out;

    if (err && l->std_err[0] != '\0')
        pattern = l->std_err;
    return stdpath_resolve(pattern, &j, work_dir);
}

size_t jobenv_cancel_line(uint32_t job_id, const char *node, const char *reason,
                          int64_t t, char *buf, size_t len)
{
    const char *why = strcmp(reason, "timeout") == 0     ? " DUE TO TIME LIMIT"
                      : strcmp(reason, "preempted") == 0 ? " DUE TO PREEMPTION"
                      : strcmp(reason, "node_down") == 0
                          ? " DUE TO NODE FAILURE"
                      : strcmp(reason, "requeued") == 0  ? " DUE TO JOB REQUEUE"
                      : strcmp(reason, "cancelled") == 0 ? ""
                                                         : NULL;
    time_t tt = (time_t)t;
    char stamp[32];
    struct tm tm;
    int n;

    if (len > 0)
        buf[0] = '\0';
    if (why == NULL)
        return 0;
    localtime_r(&tt, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    n = snprintf(buf, len,
                 "slurmstepd: error: *** JOB %u ON %s CANCELLED AT %s%s ***\n",
                 (unsigned)job_id, node, stamp, why);
    return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

bool jobenv_append(const struct launch *l)
{
    return l->restart_count > 0 ||
           (l->open_mode != NULL && strcmp(l->open_mode, "append") == 0);
}

static const struct {
    const char *name;
    int resource;
} rlimit_names[] = {
    {"AS", RLIMIT_AS},         {"CORE", RLIMIT_CORE},
    {"CPU", RLIMIT_CPU},       {"DATA", RLIMIT_DATA},
    {"FSIZE", RLIMIT_FSIZE},   {"MEMLOCK", RLIMIT_MEMLOCK},
    {"NOFILE", RLIMIT_NOFILE}, {"NPROC", RLIMIT_NPROC},
    {"RSS", RLIMIT_RSS},       {"STACK", RLIMIT_STACK},
};
#define N_RLIMITS (sizeof(rlimit_names) / sizeof(rlimit_names[0]))

static bool list_has_word(const char *list, const char *w)
{
    size_t n = strlen(w);

    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncasecmp(p, w, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

size_t jobenv_rlimits(const struct launch *l, struct jobenv_rlimit *out,
                      size_t out_len)
{
    bool all;
    size_t k = 0;

    if (l->propagate == NULL || list_has_word(l->propagate, "NONE"))
        return 0;
    all = l->propagate[0] == '\0' || list_has_word(l->propagate, "ALL");
    for (size_t i = 0; i < N_RLIMITS && k < out_len; i++) {
        char key[32], *end;
        const char *v;
        unsigned long long n;

        if (!all && !list_has_word(l->propagate, rlimit_names[i].name))
            continue;
        snprintf(key, sizeof(key), "SLURM_RLIMIT_%s", rlimit_names[i].name);
        v = NULL;
        for (size_t e = 0; e < l->n_env; e++) /* later duplicates win */
            if (strncmp(l->env[e], key, strlen(key)) == 0 &&
                l->env[e][strlen(key)] == '=')
                v = l->env[e] + strlen(key) + 1;
        if (v == NULL || *v == '\0')
            continue;
        if (strcasecmp(v, "unlimited") == 0 || strcasecmp(v, "infinity") == 0) {
            out[k].resource = rlimit_names[i].resource;
            out[k++].soft = (uint64_t)RLIM_INFINITY;
            continue;
        }
        if (*v < '0' || *v > '9')
            continue;
        n = strtoull(v, &end, 10);
        if (*end != '\0')
            continue;
        out[k].resource = rlimit_names[i].resource;
        out[k++].soft = (uint64_t)n;
    }
    return k;
}
