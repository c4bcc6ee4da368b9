/*
 * STEP_LAUNCH on the node: read and check the step object, write the
 * step's spool directory, fork its supervisor (stepd.c) in a session of
 * its own.
 */
#include "noded/steplaunch.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/jget.h"
#include "noded/launch.h"
#include "noded/spool.h"
#include "noded/stepd.h"

#define WHERE "STEP_LAUNCH"

static int get_u32(json_t *o, const char *key, int64_t min, int64_t def,
                   uint32_t *out, struct err *e)
{
    int64_t v;

    if (jget_int(o, WHERE, key, min, UINT32_MAX, def, &v, e) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "tasks": this node's global task ids, at least one, each below ntasks. */
static int get_tasks(json_t *o, struct step_launch *s, struct err *e)
{
    json_t *a = json_object_get(o, "tasks"), *v;
    size_t i;

    if (!json_is_array(a) || json_array_size(a) == 0)
        return jget_bad(e, WHERE, "tasks", "a non-empty array of task ids");
    s->tasks = xcalloc(json_array_size(a), sizeof(*s->tasks));
    json_array_foreach(a, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= s->ntasks)
            return jget_bad(e, WHERE, "tasks", "task ids 0..ntasks-1");
        s->tasks[s->n_tasks++] = (uint32_t)json_integer_value(v);
    }
    return 0;
}

static int get_ids(json_t *o, struct step_launch *s, struct err *e)
{
    int64_t v;

    if (get_u32(o, "job_id", 1, -1, &s->job_id, e) < 0 ||
        get_u32(o, "step_id", 0, -1, &s->step_id, e) < 0)
        return -1;
    if (jget_int(o, WHERE, "user_id", 0, UINT32_MAX - 1, -1, &v, e) < 0)
        return -1;
    s->uid = (uid_t)v;
    if (jget_int(o, WHERE, "group_id", 0, UINT32_MAX - 1, -1, &v, e) < 0)
        return -1;
    s->gid = (gid_t)v;
    if (json_is_integer(json_object_get(o, "array_job_id"))) {
        s->is_array = true;
        if (get_u32(o, "array_job_id", 1, -1, &s->array_job_id, e) < 0 ||
            get_u32(o, "array_task_id", 0, -1, &s->array_task_id, e) < 0)
            return -1;
    }
    return 0;
}

static int get_layout(json_t *o, struct step_launch *s, struct err *e)
{
    if (get_u32(o, "ntasks", 1, -1, &s->ntasks, e) < 0 ||
        get_u32(o, "num_nodes", 1, 1, &s->num_nodes, e) < 0 ||
        get_u32(o, "node_id", 0, 0, &s->node_id, e) < 0 ||
        get_u32(o, "cpus_per_task", 1, 1, &s->cpus_per_task, e) < 0 ||
        get_u32(o, "cpus", 0, 0, &s->cpus, e) < 0 ||
        get_u32(o, "gpus_per_task", 0, 0, &s->gpus_per_task, e) < 0 ||
        get_u32(o, "job_cpus", 0, 0, &s->job_cpus, e) < 0 ||
        get_u32(o, "job_num_nodes", 0, 0, &s->job_num_nodes, e) < 0 ||
        get_u32(o, "kill_wait_s", 0, 30, &s->kill_wait_s, e) < 0)
        return -1;
    if (s->node_id >= s->num_nodes)
        return jget_bad(e, WHERE, "node_id", "an index below num_nodes");
    if (get_tasks(o, s, e) < 0)
        return -1;
    if (jget_gpus(o, WHERE, "gpus", &s->gpus, &s->n_gpus, e) < 0 ||
        jget_gpus(o, WHERE, "job_gpus", &s->job_gpus, &s->n_job_gpus, e) < 0)
        return -1;
    s->gpus_given = json_is_array(json_object_get(o, "gpus"));
    if (!s->gpus_given && s->n_job_gpus > 0) {
        s->gpus = xcalloc(s->n_job_gpus, sizeof(*s->gpus));
        memcpy(s->gpus, s->job_gpus, s->n_job_gpus * sizeof(*s->gpus));
        s->n_gpus = s->n_job_gpus;
    }
    if (s->gpus_per_task > 0 &&
        (uint64_t)s->gpus_per_task * s->n_tasks > s->n_gpus)
        return jget_bad(e, WHERE, "gpus_per_task",
                        "at most gpus / the node's tasks");
    return 0;
}

static int get_limits(json_t *o, struct step_launch *s, struct err *e)
{
    json_t *pty;
    int64_t v;

    if (jget_int(o, WHERE, "mem_mib", 0, INT64_MAX, 0, &v, e) < 0)
        return -1;
    s->mem_mib = (uint64_t)v;
    if (jget_int(o, WHERE, "job_mem_mib", 0, INT64_MAX, 0, &v, e) < 0)
        return -1;
    s->job_mem_mib = (uint64_t)v;
    if (jget_int(o, WHERE, "time_limit_s", -1, INT64_MAX, 0, &v, e) < 0)
        return -1;
    s->time_limit_s =
        json_is_integer(json_object_get(o, "time_limit_s")) && v > 0 ? v : -1;
    if (jget_int(o, WHERE, "input_task", -2, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    s->input_task = json_is_integer(json_object_get(o, "input_task")) ? v : -1;
    if (jget_int(o, WHERE, "srun_port", 1, 65535, -1, &v, e) < 0)
        return -1;
    s->srun_port = (uint16_t)v;
    s->kill_on_bad_exit = json_is_true(json_object_get(o, "kill_on_bad_exit"));
    pty = json_object_get(o, "pty");
    if (pty != NULL && !json_is_boolean(pty) && !json_is_null(pty))
        return jget_bad(e, WHERE, "pty", "true or false");
    s->pty = json_is_true(pty);
    pty = json_object_get(o, "preserve_env");
    if (pty != NULL && !json_is_boolean(pty) && !json_is_null(pty))
        return jget_bad(e, WHERE, "preserve_env", "true or false");
    s->preserve_env = json_is_true(pty);
    return 0;
}

/* The string members: absent is def. */
static const struct {
    const char *key, *def;
    size_t off;
} strings[] = {
    {"name", "", offsetof(struct step_launch, name)},
    {"user_name", "", offsetof(struct step_launch, user_name)},
    {"partition", "", offsetof(struct step_launch, partition)},
    {"account", "", offsetof(struct step_launch, account)},
    {"cwd", "", offsetof(struct step_launch, cwd)},
    {"node_list", "", offsetof(struct step_launch, node_list)},
    {"tasks_per_node", "", offsetof(struct step_launch, tasks_per_node)},
    {"srun_host", "127.0.0.1", offsetof(struct step_launch, srun_host)},
    {"distribution", "block", offsetof(struct step_launch, distribution)},
    {"job_node_list", "", offsetof(struct step_launch, job_node_list)},
    {"submit_dir", "", offsetof(struct step_launch, submit_dir)},
    {"job_name", "", offsetof(struct step_launch, job_name)},
};

static int get_strings(json_t *o, struct step_launch *s, struct err *e)
{
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
        if (jget_str(o, WHERE, strings[i].key, strings[i].def,
                     (char **)((char *)s + strings[i].off), e) < 0)
            return -1;
    return 0;
}

/* argv (at least one), env ("K=V" each), the key. */
static int get_command(json_t *o, struct step_launch *s, struct err *e)
{
    json_t *k = json_object_get(o, "key");
    struct err ke;

    if (jget_strv(o, WHERE, "argv", &s->argv, &s->argc, e) < 0)
        return -1;
    if (s->argc == 0 || s->argv[0][0] == '\0')
        return jget_bad(e, WHERE, "argv", "at least one string");
    if (jget_strv(o, WHERE, "env", &s->env, &s->n_env, e) < 0)
        return -1;
    for (size_t i = 0; i < s->n_env; i++)
        if (s->env[i][0] == '=' || strchr(s->env[i], '=') == NULL)
            return jget_bad(e, WHERE, "env", "strings KEY=VALUE");
    if (!json_is_string(k) ||
        stepio_key_parse(json_string_value(k), s->key, &ke) < 0)
        return jget_bad(e, WHERE, "key", "64 hex digits");
    return 0;
}

int step_launch_parse(json_t *step, struct step_launch *s, struct err *e)
{
    memset(s, 0, sizeof(*s));
    if (!json_is_object(step)) {
        jget_bad(e, WHERE, "step", "an object");
        goto error;
    }
    if (get_ids(step, s, e) < 0 || get_layout(step, s, e) < 0 ||
        get_limits(step, s, e) < 0 || get_strings(step, s, e) < 0 ||
        get_command(step, s, e) < 0)
        goto error;
    s->json = json_incref(step);
    return 0;
error:
    step_launch_clear(s);
    errno = EINVAL;
    return -1;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void step_launch_clear(struct step_launch *s)
{
    int saved = errno;

    free(s->name);
    free(s->user_name);
    free(s->partition);
    free(s->account);
    free_strv(s->argv, s->argc);
    free_strv(s->env, s->n_env);
    free(s->cwd);
    free(s->node_list);
    free(s->tasks);
    free(s->tasks_per_node);
    free(s->gpus);
    free(s->job_gpus);
    free(s->srun_host);
    free(s->distribution);
    free(s->job_node_list);
    free(s->submit_dir);
    free(s->job_name);
    json_decref(s->json);
    explicit_bzero(s->key, sizeof(s->key));
    memset(s, 0, sizeof(*s));
    errno = saved;
}

static void step_supervisor(const void *arg, int wfd)
{
    stepd_main(arg, wfd);
}

int step_launch_start(const struct step_launch_ctx *ctx,
                      const struct step_launch *s, pid_t *sup_pid,
                      struct err *e)
{
    char *dir = spool_step_dir(ctx->spool, s->job_id, s->step_id);
    struct stepd_args sa = {.step = s, .dir = dir, .ctx = ctx, .lock_fd = -1};
    int written = launch_spool_dir(dir, s->json, ctx->boot_id, &sa.lock_fd, e);
    int fd = launch_spawn(dir, written, &sa.lock_fd, ctx->auth, step_supervisor,
                          &sa, sup_pid, e);

    free(dir);
    return fd;
}
