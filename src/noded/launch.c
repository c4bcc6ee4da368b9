/*
 * JOB_LAUNCH on the node: read and check the LAUNCH object, write the
 * job's spool directory, fork the supervisor (supervisor.c) in its own
 * session so that it outlives sluiced.
 */
#include "noded/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xalloc.h"
#include "noded/jget.h"
#include "noded/spool.h"
#include "noded/supervisor.h"
#include "noded/ucache.h"

static int bad(struct err *e, const char *key, const char *what)
{
    return jget_bad(e, "LAUNCH", key, what);
}

static int get_str(json_t *o, const char *key, const char *def, char **out,
                   struct err *e)
{
    return jget_str(o, "LAUNCH", key, def, out, e);
}

static int get_int(json_t *o, const char *key, int64_t min, int64_t max,
                   int64_t def, int64_t *out, struct err *e)
{
    return jget_int(o, "LAUNCH", key, min, max, def, out, e);
}

static int get_argv(json_t *o, struct launch *l, struct err *e)
{
    return jget_strv(o, "LAUNCH", "argv", &l->argv, &l->argc, e);
}

static int get_env(json_t *o, struct launch *l, struct err *e)
{
    json_t *env = json_object_get(o, "environment"), *v;
    const char *k;

    if (env == NULL || json_is_null(env))
        return 0;
    if (!json_is_object(env))
        return bad(e, "environment", "an object of strings");
    l->env = xcalloc(json_object_size(env) + 1, sizeof(*l->env));
    json_object_foreach(env, k, v)
    {
        if (!json_is_string(v))
            return bad(e, "environment", "an object of strings");
        if (k[0] == '\0' || strchr(k, '=') != NULL) {
            errno = EINVAL;
            return err_set(
                e, "LAUNCH: environment: bad variable name \"%.64s\"", k);
        }
        l->env[l->n_env++] = xasprintf("%s=%s", k, json_string_value(v));
    }
    return 0;
}

/* array_task_count/min/max/step: optional, all four or none used. */
static int get_array_shape(json_t *job, struct launch *l, struct err *e)
{
    int64_t c, lo, hi, st;

    if (get_int(job, "array_task_count", 0, UINT32_MAX, 0, &c, e) < 0 ||
        get_int(job, "array_task_min", 0, UINT32_MAX, 0, &lo, e) < 0 ||
        get_int(job, "array_task_max", 0, UINT32_MAX, 0, &hi, e) < 0 ||
        get_int(job, "array_task_step", 0, UINT32_MAX, 1, &st, e) < 0)
        return -1;
    l->array_task_count = (uint32_t)c;
    l->array_task_min = (uint32_t)lo;
    l->array_task_max = (uint32_t)hi;
    l->array_task_step = (uint32_t)st;
    return 0;
}

static int get_ids(json_t *job, struct launch *l, struct err *e)
{
    int64_t v, w;

    if (get_int(job, "job_id", 1, UINT32_MAX, -1, &v, e) < 0)
        return -1;
    l->job_id = (uint32_t)v;
    if (get_int(job, "user_id", 0, UINT32_MAX - 1, -1, &v, e) < 0)
        return -1;
    l->uid = (uid_t)v;
    if (get_int(job, "group_id", 0, UINT32_MAX - 1, -1, &v, e) < 0)
        return -1;
    l->gid = (gid_t)v;
    if (json_object_get(job, "array_job_id") != NULL &&
        !json_is_null(json_object_get(job, "array_job_id"))) {
        if (get_int(job, "array_job_id", 1, UINT32_MAX, 0, &v, e) < 0 ||
            get_int(job, "array_task_id", 0, UINT32_MAX - 1, -1, &w, e) < 0)
            return -1;
        l->is_array = true;
        l->array_job_id = (uint32_t)v;
        l->array_task_id = (uint32_t)w;
        return get_array_shape(job, l, e);
    }
    return 0;
}

static int get_sizes(json_t *job, struct launch *l, struct err *e)
{
    int64_t v;

    if (get_int(job, "cpus", 1, UINT32_MAX, 1, &v, e) < 0)
        return -1;
    l->cpus = (uint32_t)v;
    if (get_int(job, "mem_mib", 0, INT64_MAX, 0, &v, e) < 0)
        return -1;
    l->mem_mib = (uint64_t)v;
    if (get_int(job, "restart_count", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->restart_count = (uint32_t)v;
    if (get_int(job, "ntasks", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->ntasks = (uint32_t)v;
    if (get_int(job, "ntasks_per_node", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->ntasks_per_node = (uint32_t)v;
    if (get_int(job, "cpus_per_task", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->cpus_per_task = (uint32_t)v;
    if (get_int(job, "num_nodes", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->num_nodes = (uint32_t)v;
    l->time_limit_s = -1;
    if (json_is_integer(json_object_get(job, "time_limit_s")) &&
        get_int(job, "time_limit_s", 0, INT64_MAX, 0, &l->time_limit_s, e) < 0)
        return -1;
    return 0;
}

/* The batch environment's extras: strings default "", numbers 0;
 * get_user_env and propagate stay NULL when absent. */
static int get_extras(json_t *job, struct launch *l, struct err *e)
{
    int64_t v;

    if (get_str(job, "open_mode", "", &l->open_mode, e) < 0 ||
        get_str(job, "submit_host", "", &l->submit_host, e) < 0 ||
        get_str(job, "submit_dir", "", &l->submit_dir, e) < 0 ||
        get_str(job, "get_user_env", NULL, &l->get_user_env, e) < 0 ||
        get_str(job, "propagate", NULL, &l->propagate, e) < 0 ||
        get_str(job, "account", "", &l->account, e) < 0 ||
        get_str(job, "qos", "", &l->qos, e) < 0 ||
        get_str(job, "cluster_name", "", &l->cluster_name, e) < 0 ||
        get_str(job, "req_gpus", "", &l->req_gpus, e) < 0 ||
        get_str(job, "req_gpus_per_node", "", &l->req_gpus_per_node, e) < 0 ||
        get_str(job, "req_gpus_per_task", "", &l->req_gpus_per_task, e) < 0 ||
        get_str(job, "distribution", "", &l->distribution, e) < 0 ||
        get_str(job, "reservation", "", &l->reservation, e) < 0)
        return -1;
    if (get_int(job, "mem_per_cpu_mib", 0, INT64_MAX, 0, &v, e) < 0)
        return -1;
    l->mem_per_cpu_mib = (uint64_t)v;
    if (get_int(job, "mem_per_gpu_mib", 0, INT64_MAX, 0, &v, e) < 0)
        return -1;
    l->mem_per_gpu_mib = (uint64_t)v;
    if (get_int(job, "gpus_per_node", 0, UINT32_MAX, 0, &v, e) < 0)
        return -1;
    l->gpus_per_node = (uint32_t)v;
    if (get_int(job, "start_time", 0, INT64_MAX, 0, &l->start_time, e) < 0 ||
        get_int(job, "end_time", 0, INT64_MAX, 0, &l->end_time, e) < 0 ||
        get_int(job, "nice", INT32_MIN, INT32_MAX, 0, &l->nice, e) < 0)
        return -1;
    return 0;
}

int launch_parse(json_t *job, struct launch *l, struct err *e)
{
    memset(l, 0, sizeof(*l));
    if (!json_is_object(job)) {
        bad(e, "job", "an object");
        goto error;
    }
    if (get_ids(job, l, e) < 0 || get_sizes(job, l, e) < 0)
        goto error;
    if (get_str(job, "script", NULL, &l->script, e) < 0)
        goto error;
    if (l->script == NULL) {
        bad(e, "script", "a string");
        goto error;
    }
    if (strncmp(l->script, "#!", 2) != 0) {
        errno = EINVAL;
        err_set(e, "script has no interpreter line (#!...)");
        goto error;
    }
    if (get_str(job, "name", "", &l->name, e) < 0 ||
        get_str(job, "user_name", "", &l->user_name, e) < 0 ||
        get_str(job, "partition", "", &l->partition, e) < 0 ||
        get_str(job, "work_dir", "", &l->work_dir, e) < 0 ||
        get_str(job, "std_out", "", &l->std_out, e) < 0 ||
        get_str(job, "std_err", "", &l->std_err, e) < 0 ||
        get_str(job, "node_list", "", &l->node_list, e) < 0 ||
        get_str(job, "tasks_per_node", "", &l->tasks_per_node, e) < 0 ||
        jget_gpus(job, "LAUNCH", "gpus", &l->gpus, &l->n_gpus, e) < 0 ||
        get_argv(job, l, e) < 0 || get_env(job, l, e) < 0 ||
        get_extras(job, l, e) < 0)
        goto error;
    l->json = json_incref(job);
    return 0;
error:
    launch_clear(l);
    errno = EINVAL;
    return -1;
}

void launch_clear(struct launch *l)
{
    int saved = errno;

    free(l->name);
    free(l->user_name);
    free(l->partition);
    free(l->script);
    for (size_t i = 0; i < l->argc; i++)
        free(l->argv[i]);
    free(l->argv);
    free(l->work_dir);
    free(l->std_out);
    free(l->std_err);
    free(l->open_mode);
    free(l->submit_host);
    free(l->submit_dir);
    free(l->get_user_env);
    free(l->propagate);
    free(l->account);
    free(l->qos);
    free(l->cluster_name);
    free(l->req_gpus);
    free(l->req_gpus_per_node);
    free(l->req_gpus_per_task);
    free(l->distribution);
    free(l->reservation);
    for (size_t i = 0; i < l->n_env; i++)
        free(l->env[i]);
    free(l->env);
    free(l->node_list);
    free(l->tasks_per_node);
    free(l->gpus);
    json_decref(l->json);
    memset(l, 0, sizeof(*l));
    errno = saved;
}

int launch_check_user(const struct launch *l, const char *node,
                      struct ucache *users, const struct ucache_user **user,
                      struct err *e)
{
    uid_t self = geteuid();
    struct err ue;

    if ((*user = ucache_get(users, l->uid, l->gid, time(NULL), &ue)) == NULL) {
        if (errno != ENOENT)
            return err_set(e, "user %s: %s on %s",
                           l->user_name[0] ? l->user_name : "?", ue.text, node);
        return err_set(e, "user %s (uid %u) is unknown on %s",
                       l->user_name[0] ? l->user_name : "?", (unsigned)l->uid,
                       node);
    }
    if (self != 0 && self != l->uid) {
        errno = EPERM;
        return err_set(e,
                       "sluiced on %s runs as uid %u, not root, and cannot "
                       "run jobs of uid %u",
                       node, (unsigned)self, (unsigned)l->uid);
    }
    return 0;
}

int launch_spool_dir(const char *dir, json_t *json, const char *boot_id,
                     int *lock_fd, struct err *e)
{
    char *text;
    int rc;

    /* 0711 whatever the umask: the user reaches their files by name */
    if (mkdir(dir, 0700) < 0 || chmod(dir, 0711) < 0)
        return err_set(e, "cannot create %s: %s", dir, strerror(errno));
    if ((*lock_fd = spool_lock(dir, 0, e)) < 0)
        return -1;
    if (json == NULL)
        return 0;
    text = json_dumps(json, JSON_COMPACT);
    if (text == NULL) {
        errno = ENOMEM;
        return err_set(e, "cannot encode launch.json");
    }
    /* no fsync: these live only as long as the processes (spool.h) */
    rc = spool_write_volatile(dir, "launch.json", text, strlen(text), 0600,
                              (uid_t)-1, (gid_t)-1, e);
    free(text);
    /* what the pids and pgids mean only on this boot (spool.h) */
    if (rc == 0 && boot_id != NULL && boot_id[0] != '\0')
        rc = spool_write_volatile(dir, "boot_id", boot_id, strlen(boot_id),
                                  0600, (uid_t)-1, (gid_t)-1, e);
    return rc;
}

/* The job's directory, locked (*lock_fd) until its supervisor has
 * recorded itself, with launch.json and the script. */
static int write_spool(const char *jobdir, const struct launch *l, int *lock_fd,
                       struct err *e)
{
    /* no launch.json (nothing reads a job's: the supervisor has the
     * launch in memory, adoption needs only supervisor.pid) and the boot
     * id goes with the pids: each file is an inode made and freed per job
     * (spool.h) */
    if (launch_spool_dir(jobdir, NULL, NULL, lock_fd, e) < 0)
        return -1;
    return spool_write_volatile(jobdir, "script", l->script, strlen(l->script),
                                0700, geteuid() == 0 ? l->uid : (uid_t)-1,
                                l->gid, e);
}

int launch_nice(const struct conf *c, const char *node, const char *partition)
{
    const struct conf_node *n = conf_node_find(c, node);
    const struct conf_part *p = conf_part_find(c, partition);
    uint32_t lo = UINT32_MAX, hi = 0;

    if (n == NULL || p == NULL || c->sluice_daemon_nice >= 0)
        return 0;
    for (size_t i = 0; i < c->n_parts; i++) {
        const struct conf_part *q = &c->parts[i];
        for (size_t k = 0; k < q->n_nodes; k++) {
            if (&c->nodes[q->node_idx[k]] != n)
                continue;
            lo = q->priority_tier < lo ? q->priority_tier : lo;
            hi = q->priority_tier > hi ? q->priority_tier : hi;
        }
    }
    return lo < hi && p->priority_tier == hi ? c->sluice_daemon_nice : 0;
}

/* Fork once: the child destroys auth, starts a session of its own and runs
 * fn. */
static pid_t launch_fork(struct auth *auth, launch_main_fn fn, const void *arg,
                         int wfd, struct err *e)
{
    pid_t pid = fork();

    if (pid < 0) {
        err_set(e, "cannot fork a supervisor: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* Neither the supervisor nor the processes it forks (running as
         * the user until their execve) need sluiced's key: wipe it from
         * this copy of the heap before anything else (audit 19). */
        auth_destroy(auth);
        setsid();
        fn(arg, wfd);
        _exit(1);
    }
    return pid;
}

static void job_supervisor(const void *arg, int wfd)
{
    supervisor_main(arg, wfd);
}

int launch_start(const struct launch_ctx *ctx, const struct launch *l,
                 pid_t *sup_pid, struct err *e)
{
    char *jobdir = spool_job_dir(ctx->spool, l->job_id);
    struct supervisor_args sa = {
        .launch = l,
        .jobdir = jobdir,
        .node = ctx->node,
        .notify = ctx->notify,
        .conf_path = ctx->conf_path,
        .gpus = ctx->gpus,
        .cg = ctx->cg,
        .cgs = ctx->cgs,
        .user = ctx->user,
        .boot_id = ctx->boot_id,
        .lock_fd = -1,
        .auth = ctx->auth,
        .launch_nice = ctx->launch_nice,
    };
    int written = write_spool(jobdir, l, &sa.lock_fd, e);
    int fd = launch_spawn(jobdir, written, &sa.lock_fd, ctx->auth,
                          job_supervisor, &sa, sup_pid, e);

    free(jobdir);
    return fd;
}

int launch_spawn(const char *dir, int written, int *lock_fd, struct auth *auth,
                 launch_main_fn fn, const void *arg, pid_t *sup_pid,
                 struct err *e)
{
    int fds[2] = {-1, -1}, saved;

    if (written < 0)
        goto error;
    if (pipe2(fds, O_CLOEXEC) < 0) {
        err_set(e, "pipe: %s", strerror(errno));
        goto error;
    }
    if ((*sup_pid = launch_fork(auth, fn, arg, fds[1], e)) < 0)
        goto error;
    close(*lock_fd); /* the supervisor holds it now */
    *lock_fd = -1;
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    return fds[0];
error:
    saved = errno;
    if (*lock_fd >= 0)
        close(*lock_fd);
    *lock_fd = -1;
    if (fds[0] >= 0) {
        close(fds[0]);
        close(fds[1]);
    }
    if (saved != EEXIST)
        spool_remove(dir);
    errno = saved;
    return -1;
}
