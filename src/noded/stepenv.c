/*
 * A step's task environment: the job's variables through jobenv.c, then
 * the step's and the task's (Slurm's names, SLUICE_* twins).
 */
#include "noded/stepenv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "noded/jobenv.h"
#include "noded/launch.h"

/* The batch-job view of the step's job, borrowing s's memory, for
 * jobenv_build. */
static void job_view(const struct step_launch *s, const char *node,
                     struct launch *l)
{
    memset(l, 0, sizeof(*l));
    l->job_id = s->job_id;
    l->name = s->job_name;
    l->uid = s->uid;
    l->gid = s->gid;
    l->user_name = s->user_name;
    l->partition = s->partition;
    l->work_dir = s->submit_dir;
    l->env = s->env;
    l->n_env = s->n_env;
    l->cpus = s->job_cpus > 0 ? s->job_cpus : s->cpus;
    l->mem_mib = s->job_mem_mib;
    l->node_list = s->job_node_list[0] ? s->job_node_list : (char *)node;
    l->gpus = s->job_gpus;
    l->n_gpus = s->n_job_gpus;
    l->is_array = s->is_array;
    l->array_job_id = s->array_job_id;
    l->array_task_id = s->array_task_id;
}

static char **set_u64(char **env, const char *key, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return jobenv_set_slurm(env, key, buf);
}

/* How GPU index x is named: its place among the job's GPUs when fenced,
 * else its device number. */
static long gpu_name(const struct step_launch *s, const struct stepenv_gpus *g,
                     uint32_t x)
{
    if (g != NULL && g->renumber)
        for (size_t i = 0; i < s->n_job_gpus; i++)
            if (s->job_gpus[i] == x)
                return (long)i;
    if (g != NULL && g->ordinals != NULL && x < g->n_ordinals)
        return g->ordinals[x];
    return (long)x;
}

/* "a,b,c" of gpus[from..to), named (local) or by device number. */
static char *gpu_list(const struct step_launch *s, const struct stepenv_gpus *g,
                      size_t from, size_t to, bool local)
{
    char *out = xcalloc(to - from + 1, 12), *p = out;
    struct stepenv_gpus plain = {g ? g->ordinals : NULL, g ? g->n_ordinals : 0,
                                 false};

    for (size_t i = from; i < to; i++)
        p += sprintf(p, "%s%ld", i > from ? "," : "",
                     gpu_name(s, local ? g : &plain, s->gpus[i]));
    return out;
}

static char **task_gpus(char **env, const struct step_launch *s, size_t local,
                        const struct stepenv_gpus *g)
{
    size_t from = 0, to = s->n_gpus;
    char *step, *mine;

    if (s->n_gpus == 0 && s->n_job_gpus == 0)
        return env;
    if (s->gpus_per_task > 0) {
        from = local * s->gpus_per_task;
        to = from + s->gpus_per_task;
        if (to > s->n_gpus) /* checked by the parser; never past the end */
            from = to = s->n_gpus;
    }
    step = gpu_list(s, g, 0, s->n_gpus, false);
    mine = gpu_list(s, g, from, to, true);
    env = jobenv_set_slurm(env, "SLURM_STEP_GPUS", step);
    env = set_u64(env, "SLURM_GPUS_ON_NODE", s->n_gpus);
    env = jobenv_set(env, "CUDA_VISIBLE_DEVICES", mine);
    env = jobenv_set(env, "GPU_DEVICE_ORDINAL", mine);
    free(step);
    free(mine);
    return env;
}

/* key (SLURM_X, and its SLUICE_X twin) as srun had it: its value in
 * srun's environment, or not set when srun had none (srun -E). */
static char **preserved(char **env, const struct step_launch *s,
                        const char *key)
{
    const char *v = jobenv_get(s->env, key);
    size_t k = 0, len = strlen(key);
    char twin[64];

    if (v != NULL)
        return jobenv_set_slurm(env, key, v);
    snprintf(twin, sizeof(twin), "SLUICE_%s", key + strlen("SLURM_"));
    for (size_t i = 0; env[i] != NULL; i++) {
        if ((strncmp(env[i], key, len) == 0 && env[i][len] == '=') ||
            (strncmp(env[i], twin, strlen(twin)) == 0 &&
             env[i][strlen(twin)] == '=')) {
            free(env[i]);
            continue;
        }
        env[k++] = env[i];
    }
    env[k] = NULL;
    return env;
}

/* The step's layout and srun's address. */
static char **step_vars(char **env, const struct step_launch *s)
{
    const char *nodes = s->node_list;

    env = set_u64(env, "SLURM_STEP_ID", s->step_id);
    env = set_u64(env, "SLURM_STEPID", s->step_id);
    env = set_u64(env, "SLURM_NODEID", s->node_id);
    env = set_u64(env, "SLURM_NTASKS", s->ntasks);
    env = set_u64(env, "SLURM_NPROCS", s->ntasks);
    env = set_u64(env, "SLURM_NNODES", s->num_nodes);
    if (s->preserve_env) {
        env = preserved(env, s, "SLURM_NTASKS");
        env = preserved(env, s, "SLURM_NPROCS");
        env = preserved(env, s, "SLURM_NNODES");
    }
    env = jobenv_set_slurm(env, "SLURM_NODELIST", nodes);
    env = jobenv_set_slurm(env, "SLURM_STEP_NODELIST", nodes);
    env = set_u64(env, "SLURM_STEP_NUM_NODES", s->num_nodes);
    env = set_u64(env, "SLURM_STEP_NUM_TASKS", s->ntasks);
    env = jobenv_set_slurm(env, "SLURM_STEP_TASKS_PER_NODE", s->tasks_per_node);
    env = jobenv_set_slurm(env, "SLURM_TASKS_PER_NODE", s->tasks_per_node);
    env = set_u64(env, "SLURM_CPUS_PER_TASK", s->cpus_per_task);
    if (s->cpus > 0)
        env = set_u64(env, "SLURM_CPUS_ON_NODE", s->cpus);
    env = jobenv_set_slurm(env, "SLURM_LAUNCH_NODE_IPADDR", s->srun_host);
    env = jobenv_set_slurm(env, "SLURM_SRUN_COMM_HOST", s->srun_host);
    env = set_u64(env, "SLURM_SRUN_COMM_PORT", s->srun_port);
    return jobenv_set_slurm(env, "SLURM_DISTRIBUTION", s->distribution);
}

char **stepenv_build(const struct step_launch *s, size_t local,
                     const struct stepenv_gpus *g, const char *user,
                     const char *node)
{
    struct jobenv_gpus jg = {NULL, g != NULL && g->renumber};
    int *ordinals = xcalloc(s->n_job_gpus + 1, sizeof(int));
    struct launch l;
    char **env;

    job_view(s, node, &l);
    for (size_t i = 0; i < s->n_job_gpus; i++)
        ordinals[i] =
            g != NULL && g->ordinals != NULL && s->job_gpus[i] < g->n_ordinals
                ? g->ordinals[s->job_gpus[i]]
                : (int)s->job_gpus[i];
    jg.ordinals = ordinals;
    env = jobenv_build(&l, &jg, user, node);
    free(ordinals);
    env = step_vars(env, s);
    env = set_u64(env, "SLURM_PROCID", s->tasks[local]);
    env = set_u64(env, "SLURM_LOCALID", local);
    return task_gpus(env, s, local, g);
}
