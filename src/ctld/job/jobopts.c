/*
 * The job options of struct job_opts to and from the JOB object: strings
 * and numbers by their JOBSPEC names, written only when given, so that a
 * record restores exactly what was submitted.
 */
#include "ctld/job/jobopts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/features.h"

static const char *const excl_names[] = {
    [JOB_EXCL_NONE] = NULL,
    [JOB_EXCL_NODE] = "node",
    [JOB_EXCL_USER] = "user",
    [JOB_EXCL_MCS] = "mcs",
};

const char *jobopts_excl_name(enum job_excl x)
{
    if ((unsigned)x >= sizeof(excl_names) / sizeof(excl_names[0]))
        return NULL;
    return excl_names[x];
}

int jobopts_excl_parse(const char *s, enum job_excl *out)
{
    for (size_t i = 1; i < sizeof(excl_names) / sizeof(excl_names[0]); i++) {
        if (strcmp(s, excl_names[i]) == 0) {
            *out = (enum job_excl)i;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

/* The string options, by key and offset in struct job_opts. */
static const struct {
    const char *key;
    size_t off;
} str_opts[] = {
    {"comment", offsetof(struct job_opts, comment)},
    {"wckey", offsetof(struct job_opts, wckey)},
    {"constraint", offsetof(struct job_opts, constraint)},
    {"gres_flags", offsetof(struct job_opts, gres_flags)},
    {"gpu_bind", offsetof(struct job_opts, gpu_bind)},
    {"cpu_bind", offsetof(struct job_opts, cpu_bind)},
    {"hint", offsetof(struct job_opts, hint)},
    {"distribution", offsetof(struct job_opts, distribution)},
};

#define N_STR (sizeof(str_opts) / sizeof(str_opts[0]))

static char **str_field(struct job_opts *opt, size_t i)
{
    return (char **)((char *)opt + str_opts[i].off);
}

static void put_int(json_t *o, const char *key, json_int_t v)
{
    if (v != 0)
        json_object_set_new(o, key, json_integer(v));
}

static void put_true(json_t *o, const char *key, bool v)
{
    if (v)
        json_object_set_new(o, key, json_true());
}

void jobopts_to_json(json_t *o, const struct job_opts *opt)
{
    for (size_t i = 0; i < N_STR; i++) {
        const char *s = *str_field((struct job_opts *)opt, i);
        if (s != NULL)
            json_object_set_new(o, str_opts[i].key, json_string(s));
    }
    put_int(o, "deadline", (json_int_t)opt->deadline);
    put_int(o, "time_min_s", opt->time_min_s);
    put_int(o, "tmp_mib", (json_int_t)opt->tmp_mib);
    put_int(o, "mincpus", opt->mincpus);
    if (opt->exclusive != JOB_EXCL_NONE)
        json_object_set_new(o, "exclusive",
                            json_string(jobopts_excl_name(opt->exclusive)));
    put_true(o, "oversubscribe", opt->oversubscribe);
    put_int(o, "sockets_per_node", opt->sockets_per_node);
    put_int(o, "cores_per_socket", opt->cores_per_socket);
    put_int(o, "threads_per_core", opt->threads_per_core);
    put_int(o, "ntasks_per_gpu", opt->ntasks_per_gpu);
    put_true(o, "spread_job", opt->spread_job);
    put_true(o, "use_min_nodes", opt->use_min_nodes);
}

static json_int_t get_int(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) && json_integer_value(v) > 0
               ? json_integer_value(v)
               : 0;
}

void jobopts_from_json(struct job_opts *opt, json_t *o)
{
    const char *x = json_string_value(json_object_get(o, "exclusive"));

    for (size_t i = 0; i < N_STR; i++) {
        const char *s = json_string_value(json_object_get(o, str_opts[i].key));
        *str_field(opt, i) = s != NULL ? xstrdup(s) : NULL;
    }
    opt->deadline = (time_t)get_int(o, "deadline");
    opt->time_min_s = get_int(o, "time_min_s");
    opt->tmp_mib = (uint64_t)get_int(o, "tmp_mib");
    opt->mincpus = (uint32_t)get_int(o, "mincpus");
    opt->exclusive = JOB_EXCL_NONE;
    if (x != NULL && jobopts_excl_parse(x, &opt->exclusive) < 0)
        opt->exclusive = JOB_EXCL_NODE;
    opt->oversubscribe = json_is_true(json_object_get(o, "oversubscribe"));
    opt->sockets_per_node = (uint32_t)get_int(o, "sockets_per_node");
    opt->cores_per_socket = (uint32_t)get_int(o, "cores_per_socket");
    opt->threads_per_core = (uint32_t)get_int(o, "threads_per_core");
    opt->ntasks_per_gpu = (uint32_t)get_int(o, "ntasks_per_gpu");
    opt->spread_job = json_is_true(json_object_get(o, "spread_job"));
    opt->use_min_nodes = json_is_true(json_object_get(o, "use_min_nodes"));
}

bool jobopts_node_ok(const struct job_opts *opt, const struct conf_node *n,
                     char *why, size_t len)
{
    char dummy[8];

    if (why == NULL) {
        why = dummy;
        len = sizeof(dummy);
    }
    if (opt->tmp_mib > n->tmp_disk_mib)
        snprintf(why, len, "TmpDisk=%" PRIu64 " < tmp_mib %" PRIu64,
                 n->tmp_disk_mib, opt->tmp_mib);
    else if (opt->mincpus > n->cpus)
        snprintf(why, len, "CPUs=%u < mincpus %u", n->cpus, opt->mincpus);
    else if (opt->sockets_per_node > n->sockets)
        snprintf(why, len, "Sockets=%u < sockets_per_node %u", n->sockets,
                 opt->sockets_per_node);
    else if (opt->cores_per_socket > n->cores_per_socket)
        snprintf(why, len, "CoresPerSocket=%u < cores_per_socket %u",
                 n->cores_per_socket, opt->cores_per_socket);
    else if (opt->threads_per_core > n->threads_per_core)
        snprintf(why, len, "ThreadsPerCore=%u < threads_per_core %u",
                 n->threads_per_core, opt->threads_per_core);
    else if (opt->feat != NULL && !features_node_ok(opt->feat, n->features))
        snprintf(why, len, "Features=%s do not match constraint %s",
                 n->features, opt->constraint);
    else
        return true;
    return false;
}

int jobopts_resolve(struct job_opts *opt, const struct conf *conf,
                    struct err *e)
{
    bool all = true;

    features_free(opt->feat);
    opt->feat = NULL;
    free(opt->node_ok);
    opt->node_ok = NULL;
    free(opt->node_use);
    opt->node_use = NULL;
    if (opt->constraint != NULL &&
        (opt->feat = features_parse(opt->constraint, e)) == NULL)
        return -1;
    opt->node_ok = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(bool));
    for (size_t i = 0; i < conf->n_nodes; i++) {
        opt->node_ok[i] = jobopts_node_ok(opt, &conf->nodes[i], NULL, 0);
        all &= opt->node_ok[i];
    }
    if (all) {
        free(opt->node_ok);
        opt->node_ok = NULL;
    }
    return 0;
}

void jobopts_take_whole(struct job *j, const struct conf *conf,
                        const size_t *nodes, size_t nnodes)
{
    uint32_t cpus = UINT32_MAX;
    uint64_t mem = UINT64_MAX;

    if (j->opt.exclusive != JOB_EXCL_NODE || nnodes == 0)
        return;
    for (size_t i = 0; i < nnodes; i++) {
        const struct conf_node *n = &conf->nodes[nodes[i]];
        cpus = n->cpus < cpus ? n->cpus : cpus;
        mem = n->mem_mib < mem ? n->mem_mib : mem;
    }
    if (cpus > j->cpus_per_node)
        j->cpus_per_node = cpus;
    j->mem_mib = mem; /* all of it, whatever it asked for */
    j->mem_per_cpu_mib = 0;
    j->mem_per_gpu_mib = 0;
}

void jobopts_clear(struct job_opts *opt)
{
    features_free(opt->feat);
    opt->feat = NULL;
    free(opt->node_ok);
    opt->node_ok = NULL;
    free(opt->node_use);
    opt->node_use = NULL;
    for (size_t i = 0; i < N_STR; i++) {
        free(*str_field(opt, i));
        *str_field(opt, i) = NULL;
    }
}
