/*
 * What salloc's command gets: the allocation's SLURM_* variables (and
 * their SLUICE_* twins) built from the running job, so that srun inside
 * uses the allocation; the command line itself (the user's, the
 * interactive step's, or a shell); and the words for how it ended.
 * Pure functions.
 */
#include "cli/salloc.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/alloc.h"
#include "cli/opt.h"
#include "common/envlist.h"
#include "common/hostlist.h"
#include "common/xalloc.h"
#include "sched/steplayout.h"

static uint64_t jint(json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v > 0 ? (uint64_t)v : 0;
}

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL ? s : "";
}

static size_t count_nodes(const char *list)
{
    struct hostlist *hl = hostlist_expand(list, NULL);
    size_t n = hl ? hostlist_count(hl) : 1;

    hostlist_destroy(hl);
    return n > 0 ? n : 1;
}

/* The job's CPUs per node, "4" or "4(x2)" (the same on every node). */
static void senv_cpus(struct envlist *b, json_t *job, size_t n_nodes)
{
    uint64_t cpn = jint(job, "cpus") / n_nodes;
    char buf[48];

    if (n_nodes > 1)
        snprintf(buf, sizeof(buf), "%" PRIu64 "(x%zu)", cpn, n_nodes);
    else
        snprintf(buf, sizeof(buf), "%" PRIu64, cpn);
    envlist_twin(b, "SLURM_JOB_CPUS_PER_NODE", buf);
}

/* The job's tasks in blocks over its nodes, as the batch job sees them;
 * the counts only where they were asked for (as Slurm sets them). */
static void senv_tasks(struct envlist *b, json_t *job, json_t *spec,
                       size_t n_nodes)
{
    uint64_t ntasks = jint(job, "ntasks");
    uint32_t *counts = xcalloc(n_nodes, sizeof(*counts));
    char *tpn;

    if (ntasks == 0)
        ntasks = n_nodes;
    for (size_t i = 0; i < n_nodes; i++)
        counts[i] = (uint32_t)(ntasks / n_nodes + (i < ntasks % n_nodes));
    tpn = steplayout_counts(counts, n_nodes);
    envlist_twin(b, "SLURM_TASKS_PER_NODE", tpn);
    free(tpn);
    free(counts);
    if (json_object_get(spec, "ntasks") != NULL ||
        json_object_get(spec, "ntasks_per_node") != NULL) {
        envlist_twin_u64(b, "SLURM_NTASKS", ntasks);
        envlist_twin_u64(b, "SLURM_NPROCS", ntasks);
    }
    if (json_object_get(spec, "ntasks_per_node") != NULL)
        envlist_twin_u64(b, "SLURM_NTASKS_PER_NODE",
                         jint(spec, "ntasks_per_node"));
    if (json_object_get(spec, "cpus_per_task") != NULL)
        envlist_twin_u64(b, "SLURM_CPUS_PER_TASK", jint(job, "cpus_per_task"));
    if (jint(spec, "mem_mib") > 0)
        envlist_twin_u64(b, "SLURM_MEM_PER_NODE",
                         jint(job, "mem_mib") ? jint(job, "mem_mib")
                                              : jint(spec, "mem_mib"));
}

char **salloc_env(json_t *job, json_t *spec, char *const *envp, const char *cwd,
                  const char *host)
{
    struct envlist b = {0};
    const char *nodes = jstr(job, "node_list");
    size_t n_nodes = count_nodes(nodes);

    for (char *const *p = envp; p != NULL && *p != NULL; p++)
        if (strchr(*p, '=') != NULL)
            envlist_put(&b, xstrdup(*p));
    envlist_twin_u64(&b, "SLURM_JOB_ID", jint(job, "job_id"));
    envlist_twin_u64(&b, "SLURM_JOBID", jint(job, "job_id"));
    envlist_twin(&b, "SLURM_JOB_NAME", jstr(job, "name"));
    envlist_twin(&b, "SLURM_JOB_PARTITION", jstr(job, "partition"));
    envlist_twin(&b, "SLURM_JOB_NODELIST", nodes);
    envlist_twin(&b, "SLURM_NODELIST", nodes);
    envlist_twin_u64(&b, "SLURM_JOB_NUM_NODES", n_nodes);
    envlist_twin_u64(&b, "SLURM_NNODES", n_nodes);
    senv_cpus(&b, job, n_nodes);
    senv_tasks(&b, job, spec, n_nodes);
    envlist_twin(&b, "SLURM_SUBMIT_DIR", cwd);
    envlist_twin(&b, "SLURM_SUBMIT_HOST", host);
    return b.v;
}

void salloc_env_free(char **env)
{
    if (env == NULL)
        return;
    for (char **p = env; *p != NULL; p++)
        free(*p);
    free(env);
}

const char *salloc_env_get(char *const *env, const char *key)
{
    size_t kl = strlen(key);

    for (char *const *p = env; p != NULL && *p != NULL; p++)
        if (strncmp(*p, key, kl) == 0 && (*p)[kl] == '=')
            return *p + kl + 1;
    return NULL;
}

static char **words_dup(char *const *w, int n)
{
    char **v = xcalloc((size_t)n + 1, sizeof(*v));

    for (int i = 0; i < n; i++)
        v[i] = xstrdup(w[i]);
    return v;
}

char **salloc_command(const struct salloc_opts *o, const struct conf *conf,
                      const char *shell, struct err *e)
{
    char **words, **v;
    int n;

    if (o->n_cmd > 0)
        return words_dup(o->cmd, o->n_cmd);
    if (conf == NULL || !conf->use_interactive_step)
        return words_dup((char *const[]){(char *)shell}, 1);
    words = opt_split(conf_interactive_step_options(conf), &n, e);
    if (words == NULL)
        return NULL;
    v = xcalloc((size_t)n + 2, sizeof(*v));
    v[0] = xstrdup("srun");
    for (int i = 0; i < n; i++)
        v[i + 1] = xstrdup(strcmp(words[i], "$SHELL") == 0 ? shell : words[i]);
    opt_split_free(words);
    return v;
}

char *salloc_end_lines(json_t *job, unsigned job_id, char *line1, size_t len1,
                       char *line2, size_t len2)
{
    const char *state = json_string_value(json_object_get(job, "job_state"));

    if (state != NULL && strcmp(state, "TIMEOUT") == 0)
        snprintf(line1, len1,
                 "Job %u has exceeded its time limit and its allocation has "
                 "been revoked.",
                 job_id);
    else
        snprintf(line1, len1, "Job allocation %u has been revoked.", job_id);
    if (job == NULL || alloc_preempted_line(job, line2, len2) == NULL)
        line2[0] = '\0';
    return line1;
}

int salloc_exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (!WIFSIGNALED(status))
        return 1;
    switch (WTERMSIG(status)) {
    case SIGHUP:
    case SIGINT:
    case SIGQUIT:
    case SIGKILL:
        return 0;
    default:
        return 1;
    }
}

int salloc_complete_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return -WTERMSIG(status);
    return 1;
}
