/*
 * STEP_CREATE (steps_new, steps.h): srun's request checked, laid out in
 * the job's allocation by src/sched/steplayout.c against what the job's
 * running steps hold, recorded, answered, and launched with STEP_LAUNCH on
 * each node of the step; a node that refuses fails the step.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/stepio.h"
#include "common/timefmt.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ctld/cluster/nodes.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/queue/steps.h"
#include "sched/steplayout.h"

/* Bounds on what one request may carry. */
#define REQ_MAX_ARGS 4096
#define REQ_MAX_STR 4096

/* STEP_CREATE's fields beyond the layout's. */
struct step_req {
    uint64_t job_id;
    const char *name, *cwd, *srun_host;
    json_t *argv, *env;
    int64_t time_limit_s; /* -1: none */
    int64_t input_task;   /* -1: all, -2: none */
    int64_t srun_port;
    bool kill_on_bad_exit, no_kill;
    bool pty;          /* task 0 on a pseudo-terminal (srun --pty) */
    bool preserve_env; /* srun -E: SLURM_NNODES, SLURM_NTASKS as srun's */
    bool interactive;  /* "step_id": "interactive": STEP_INTERACTIVE_ID */
    struct sl_req lay;
};

/* ---- the request ------------------------------------------------------ */

static int req_int(json_t *body, const char *key, int64_t min, int64_t max,
                   int64_t dflt, int64_t *out, struct err *e)
{
    json_t *v = json_object_get(body, key);

    *out = dflt;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < min ||
        json_integer_value(v) > max)
        return err_inval(
            e, "STEP_CREATE: %s must be an integer in %" PRId64 "-%" PRId64,
            key, min, max);
    *out = json_integer_value(v);
    return 0;
}

static int req_u32(json_t *body, const char *key, uint32_t *out, struct err *e)
{
    int64_t v;

    if (req_int(body, key, 0, 65535, 0, &v, e) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int req_str(json_t *body, const char *key, const char **out,
                   struct err *e)
{
    json_t *v = json_object_get(body, key);

    *out = NULL;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v) || strlen(json_string_value(v)) > REQ_MAX_STR)
        return err_inval(e,
                         "STEP_CREATE: %s must be a string of at most %d "
                         "bytes",
                         key, REQ_MAX_STR);
    *out = json_string_value(v);
    if (**out == '\0')
        *out = NULL;
    return 0;
}

static int req_bool(json_t *body, const char *key, bool *out, struct err *e)
{
    json_t *v = json_object_get(body, key);

    *out = false;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return err_inval(e, "STEP_CREATE: %s must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

static int req_strings(json_t *body, const char *key, bool need, json_t **out,
                       struct err *e)
{
    json_t *a = json_object_get(body, key), *v;
    size_t i;

    *out = a;
    if ((a == NULL || json_is_null(a)) && !need) {
        *out = NULL;
        return 0;
    }
    if (!json_is_array(a) || (need && json_array_size(a) == 0) ||
        json_array_size(a) > REQ_MAX_ARGS)
        return err_inval(e,
                         "STEP_CREATE: %s must be %san array of at most "
                         "%d strings",
                         key, need ? "a non-empty " : "", REQ_MAX_ARGS);
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v))
            return err_inval(e, "STEP_CREATE: %s[%zu] must be a string", key,
                             i);
    }
    return 0;
}

static int req_layout(json_t *body, struct sl_req *l, struct err *e)
{
    const char *dist;
    int64_t mem;

    if (req_u32(body, "ntasks", &l->ntasks, e) < 0 ||
        req_u32(body, "nodes_min", &l->nodes_min, e) < 0 ||
        req_u32(body, "nodes_max", &l->nodes_max, e) < 0 ||
        req_u32(body, "ntasks_per_node", &l->ntasks_per_node, e) < 0 ||
        req_u32(body, "cpus_per_task", &l->cpus_per_task, e) < 0 ||
        req_u32(body, "gpus_per_task", &l->gpus_per_task, e) < 0 ||
        req_u32(body, "gpus_per_node", &l->gpus_per_node, e) < 0 ||
        req_str(body, "nodelist", &l->nodelist, e) < 0 ||
        req_str(body, "exclude", &l->exclude, e) < 0 ||
        req_str(body, "distribution", &dist, e) < 0 ||
        req_bool(body, "exact", &l->exact, e) < 0 ||
        req_bool(body, "overlap", &l->overlap, e) < 0)
        return -1;
    if (req_int(body, "mem_mib", 0, INT64_C(1) << 40, 0, &mem, e) < 0)
        return -1;
    l->mem_mib = (uint64_t)mem;
    if (dist == NULL || strcmp(dist, "block") == 0)
        l->dist = SL_DIST_BLOCK;
    else if (strcmp(dist, "cyclic") == 0)
        l->dist = SL_DIST_CYCLIC;
    else
        return err_inval(e,
                         "STEP_CREATE: distribution \"%.32s\" is not "
                         "block or cyclic",
                         dist);
    return 0;
}

/* "step_id": absent (the next number) or "interactive". */
static int req_step_id(json_t *body, bool *interactive, struct err *e)
{
    json_t *v = json_object_get(body, "step_id");

    *interactive = false;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v) || strcmp(json_string_value(v), "interactive") != 0)
        return err_inval(e, "STEP_CREATE: step_id must be \"interactive\" "
                            "or absent");
    *interactive = true;
    return 0;
}

static int req_parse(json_t *body, struct step_req *r, struct err *e)
{
    int64_t job;

    memset(r, 0, sizeof(*r));
    if (!json_is_integer(json_object_get(body, "job_id")))
        return err_inval(e, "STEP_CREATE: job_id must be an integer");
    if (req_int(body, "job_id", 1, INT64_C(0xffffffff), 0, &job, e) < 0 ||
        req_str(body, "name", &r->name, e) < 0 ||
        req_str(body, "cwd", &r->cwd, e) < 0 ||
        req_str(body, "srun_host", &r->srun_host, e) < 0 ||
        req_strings(body, "argv", true, &r->argv, e) < 0 ||
        req_strings(body, "env", false, &r->env, e) < 0 ||
        req_int(body, "time_limit_s", -1, INT32_MAX, -1, &r->time_limit_s, e) <
            0 ||
        req_int(body, "input_task", -2, INT32_MAX, -1, &r->input_task, e) < 0 ||
        req_int(body, "srun_port", 1, 65535, 0, &r->srun_port, e) < 0 ||
        req_bool(body, "kill_on_bad_exit", &r->kill_on_bad_exit, e) < 0 ||
        req_bool(body, "no_kill", &r->no_kill, e) < 0 ||
        req_bool(body, "pty", &r->pty, e) < 0 ||
        req_bool(body, "preserve_env", &r->preserve_env, e) < 0 ||
        req_step_id(body, &r->interactive, e) < 0 ||
        req_layout(body, &r->lay, e) < 0)
        return -1;
    if (r->srun_host == NULL || r->srun_port == 0)
        return err_inval(e, "STEP_CREATE: srun_host and srun_port are needed "
                            "(where the step's nodes reach srun)");
    if (r->time_limit_s == 0)
        r->time_limit_s = -1;
    r->job_id = (uint64_t)job;
    if (r->name == NULL)
        r->name = json_string_value(json_array_get(r->argv, 0));
    return 0;
}

/* ---- the job ---------------------------------------------------------- */

/* Whether who may add a step to j, and j can take one now. */
static int job_ready(struct steps *ss, const struct job *j, uid_t uid,
                     struct err *e)
{
    if (!jobs_may_act(steps_env(ss)->jobs, j, uid)) {
        errno = EPERM;
        return err_set(e, "Access denied: job %" PRIu64 " belongs to %s", j->id,
                       j->user_name);
    }
    errno = EBUSY;
    if (j->state == JOB_SUSPENDED)
        return err_set(e, "Job %" PRIu64 " is suspended", j->id);
    if (job_state_final(j->state) ||
        (j->state == JOB_RUNNING && j->kill != JOB_KILL_NONE))
        return err_set(e, "Job/step already completing or completed");
    if (j->state != JOB_RUNNING)
        return err_set(e, "Job %" PRIu64 " is not running (state %s)", j->id,
                       job_state_name(j->state));
    for (size_t i = 0; i < j->n_alloc; i++)
        if (nodes_get(steps_env(ss)->nodes, j->alloc[i])->conn == NULL) {
            errno = EHOSTUNREACH;
            return err_set(e, "node %s of job %" PRIu64 " is not connected",
                           steps_env(ss)->conf->nodes[j->alloc[i]].name, j->id);
        }
    return 0;
}

/* The job's nodes as the layout sees them: scratch arrays for nodes. */
struct job_nodes {
    struct sl_node *n;
    uint32_t *gpus; /* the job's GPUs, per node, ascending */
    bool *gpu_free;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* Take what s holds on the job's node i out of jn. */
static void take_held(struct job_nodes *jn, size_t i, uint32_t g,
                      const struct step_node *sn)
{
    struct sl_node *n = &jn->n[i];

    n->cpus_free = sn->cpus < n->cpus_free ? n->cpus_free - sn->cpus : 0;
    for (uint32_t k = 0; sn->gpus_held && k < sn->n_gpus; k++)
        for (uint32_t m = 0; m < g; m++)
            if (jn->gpus[i * g + m] == sn->gpus[k])
                jn->gpu_free[i * g + m] = false;
}

static void job_nodes_make(struct steps *ss, const struct job *j,
                           struct job_nodes *jn)
{
    const struct conf *conf = steps_env(ss)->conf;
    uint32_t g = j->gpu_alloc ? j->gpus_per_node : 0;

    jn->n = xcalloc(j->n_alloc, sizeof(*jn->n));
    jn->gpus = xcalloc(j->n_alloc * g + 1, sizeof(*jn->gpus));
    jn->gpu_free = xcalloc(j->n_alloc * g + 1, sizeof(*jn->gpu_free));
    for (size_t i = 0; i < j->n_alloc; i++) {
        if (g > 0)
            memcpy(jn->gpus + i * g, j->gpu_alloc + i * g,
                   g * sizeof(uint32_t));
        qsort(jn->gpus + i * g, g, sizeof(uint32_t), cmp_u32);
        for (uint32_t m = 0; m < g; m++)
            jn->gpu_free[i * g + m] = true;
        jn->n[i] = (struct sl_node){
            .name = conf->nodes[j->alloc[i]].name,
            .cpus = j->cpus_per_node,
            .cpus_free = j->cpus_per_node,
            .n_gpus = g,
            .gpus = g ? jn->gpus + i * g : NULL,
            .gpu_free = g ? jn->gpu_free + i * g : NULL,
            .mem_mib = job_mem_per_node(j),
        };
    }
    for (struct step *s = steps_first(ss, j->id); s != NULL; s = s->next) {
        if (s->state != STEP_RUNNING)
            continue;
        for (size_t k = 0; k < s->n_nodes; k++)
            for (size_t i = 0; i < j->n_alloc; i++)
                if (j->alloc[i] == s->nodes[k].node)
                    take_held(jn, i, g, &s->nodes[k]);
    }
}

static void job_nodes_clear(struct job_nodes *jn)
{
    free(jn->n);
    free(jn->gpus);
    free(jn->gpu_free);
}

/* ---- the step --------------------------------------------------------- */

/* The step's own limit, capped at what is left of its job's (both in the
 * job's seconds, before the test divisor); -1: none of its own. */
static int64_t step_limit(struct steps *ss, const struct job *j, int64_t req,
                          time_t now)
{
    uint32_t div = jobs_env(steps_env(ss)->jobs)->time_divisor;
    int64_t used, left;

    if (req < 0 || j->time_limit_s == TIMEFMT_INFINITE)
        return req;
    used = (int64_t)(now - j->start_time - j->suspended_s) * (div ? div : 1);
    left = j->time_limit_s - used;
    return req < left ? req : (left > 0 ? left : 1);
}

static struct step *step_make(struct steps *ss, const struct job *j,
                              const struct step_req *r,
                              const struct sl_layout *l)
{
    const struct conf *conf = steps_env(ss)->conf;
    struct step *s = xcalloc(1, sizeof(*s));
    uint32_t *counts = xcalloc(l->n_nodes + 1, sizeof(*counts));
    time_t now = time(NULL);

    s->job_id = j->id;
    s->step_id =
        r->interactive ? STEP_INTERACTIVE_ID : steps_next_id(ss, j->id);
    s->name = xstrdup(r->interactive ? "interactive" : r->name);
    s->state = STEP_RUNNING;
    s->user_id = j->user_id;
    s->user_name = xstrdup(j->user_name);
    s->partition = xstrdup(conf->parts[j->part].name);
    s->account = xstrdup(j->account ? j->account : "");
    s->start_time = now;
    s->time_limit_s = step_limit(ss, j, r->time_limit_s, now);
    s->ntasks = l->ntasks;
    s->cpus_per_task = l->cpus_per_task;
    s->mem_mib = r->lay.mem_mib;
    s->kill_on_bad_exit = r->kill_on_bad_exit;
    s->no_kill = r->no_kill;
    s->reason = xstrdup("");
    s->n_nodes = l->n_nodes;
    s->nodes = xcalloc(l->n_nodes, sizeof(*s->nodes));
    for (size_t i = 0; i < l->n_nodes; i++) {
        const struct sl_node_out *o = &l->nodes[i];
        struct step_node *n = &s->nodes[i];
        n->node = j->alloc[o->node];
        n->ntasks = o->ntasks;
        n->cpus = o->cpus;
        n->n_gpus = o->n_gpus;
        n->gpus = xcalloc(o->n_gpus + 1, sizeof(*n->gpus));
        if (o->n_gpus > 0)
            memcpy(n->gpus, o->gpus, o->n_gpus * sizeof(*n->gpus));
        n->gpus_held = o->gpus_held;
        counts[i] = o->ntasks;
    }
    s->tasks_per_node = steplayout_counts(counts, l->n_nodes);
    free(counts);
    return s;
}

static json_t *u32_array(const uint32_t *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *node_names(const struct step *s, const struct conf *conf)
{
    json_t *a = json_array();

    for (size_t i = 0; i < s->n_nodes; i++)
        json_array_append_new(a,
                              json_string(conf->nodes[s->nodes[i].node].name));
    return a;
}

static json_t *reply_make(const struct job *j, const struct step *s,
                          const struct sl_layout *l, const char *key,
                          const struct conf *conf)
{
    json_t *tasks = json_array(), *o;
    json_t *st = step_to_json(s, conf, false);

    for (size_t i = 0; i < l->n_nodes; i++)
        json_array_append_new(tasks,
                              u32_array(l->nodes[i].tasks, l->nodes[i].ntasks));
    o = json_pack(
        "{s:I, s:I, s:s, s:o, s:O, s:o, s:i, s:s, s:i, s:i}", "job_id",
        (json_int_t)s->job_id, "step_id", (json_int_t)s->step_id, "key", key,
        "nodes", node_names(s, conf), "node_list", json_object_get(st, "nodes"),
        "tasks", tasks, "ntasks", (int)s->ntasks, "tasks_per_node",
        s->tasks_per_node, "cpus_per_task", (int)s->cpus_per_task,
        "kill_wait_s", (int)conf->kill_wait_s);
    if (l->warning != NULL)
        json_object_set_new(o, "warning", json_string(l->warning));
    /* srun's %x outside a job's environment */
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "job_name", json_string(j->name));
    json_decref(st);
    return o;
}

/* ---- STEP_LAUNCH ------------------------------------------------------ */

/* What every node of the step is told alike. */
static json_t *launch_common(struct steps *ss, const struct job *j,
                             const struct step *s, const struct step_req *r,
                             const char *key)
{
    const struct conf *conf = steps_env(ss)->conf;
    uint32_t div = jobs_env(steps_env(ss)->jobs)->time_divisor;
    char *jnl = job_alloc_list(j, conf);
    json_t *st = step_to_json(s, conf, false), *o = json_object();

    div = div ? div : 1;
#define S(k, v) json_object_set_new(o, k, v)
    S("job_id", json_integer((json_int_t)j->id));
    S("step_id", json_integer((json_int_t)s->step_id));
    S("name", json_string(s->name));
    S("user_id", json_integer(j->user_id));
    S("group_id", json_integer(j->group_id));
    S("user_name", json_string(j->user_name));
    S("partition", json_string(s->partition));
    S("account", json_string(s->account));
    S("argv", json_incref(r->argv));
    S("env", r->env ? json_incref(r->env) : json_array());
    S("cwd", json_string(r->cwd ? r->cwd : (j->work_dir ? j->work_dir : "/")));
    S("nodes", node_names(s, conf));
    S("node_list", json_incref(json_object_get(st, "nodes")));
    S("num_nodes", json_integer((json_int_t)s->n_nodes));
    S("ntasks", json_integer(s->ntasks));
    S("tasks_per_node", json_string(s->tasks_per_node));
    S("cpus_per_task", json_integer(s->cpus_per_task));
    S("gpus_per_task", json_integer(r->lay.gpus_per_task));
    S("job_cpus", json_integer(j->cpus_per_node));
    S("mem_mib", json_integer((json_int_t)s->mem_mib));
    S("job_mem_mib", json_integer((json_int_t)job_mem_per_node(j)));
    S("time_limit_s",
      json_integer(s->time_limit_s < 0 ? -1
                                       : (s->time_limit_s + div - 1) / div));
    S("kill_wait_s", json_integer(conf->kill_wait_s));
    S("srun_host", json_string(r->srun_host));
    S("srun_port", json_integer(r->srun_port));
    S("key", json_string(key));
    S("input_task", json_integer(r->input_task));
    S("kill_on_bad_exit", json_boolean(r->kill_on_bad_exit));
    if (r->pty)
        S("pty", json_true());
    if (r->preserve_env)
        S("preserve_env", json_true());
    S("distribution",
      json_string(r->lay.dist == SL_DIST_CYCLIC ? "cyclic" : "block"));
    S("job_node_list", json_string(jnl));
    S("job_num_nodes", json_integer((json_int_t)j->n_alloc));
    S("submit_dir", json_string(j->submit_dir ? j->submit_dir
                                : j->work_dir ? j->work_dir
                                              : "/"));
    S("job_name", json_string(j->name));
    if (j->array_job_id != 0 && j->array_task_id >= 0) {
        S("array_job_id", json_integer((json_int_t)j->array_job_id));
        S("array_task_id", json_integer(j->array_task_id));
    }
#undef S
    json_decref(st);
    free(jnl);
    return o;
}

/* The step on its node i (the layout's nodes[i]). */
static json_t *launch_node(json_t *common, const struct job *j,
                           const struct sl_layout *l, size_t i,
                           const struct job_nodes *jn)
{
    const struct sl_node_out *o = &l->nodes[i];
    json_t *b = json_deep_copy(common);
    uint32_t g = jn->n[o->node].n_gpus;

    json_object_set_new(b, "node_id", json_integer((json_int_t)i));
    json_object_set_new(b, "tasks", u32_array(o->tasks, o->ntasks));
    json_object_set_new(b, "cpus",
                        json_integer(o->cpus ? o->cpus : j->cpus_per_node));
    json_object_set_new(b, "gpus", u32_array(o->gpus, o->n_gpus));
    json_object_set_new(b, "job_gpus",
                        u32_array(g ? jn->n[o->node].gpus : NULL, g));
    return json_pack("{s:o}", "step", b);
}

void steps_launch_reply(void *ctx, uint64_t arg, size_t node, const char *error)
{
    struct steps *ss = ctx;
    struct step *s = steps_find(ss, arg >> 32, (uint32_t)arg);
    char reason[ERR_TEXT_MAX + 64], id[48];

    if (s == NULL || s->state != STEP_RUNNING)
        return;
    if (error == NULL) {
        log_debug("step=%s launched on %s", step_id_str(s, id, sizeof(id)),
                  steps_env(ss)->conf->nodes[node].name);
        return;
    }
    snprintf(reason, sizeof(reason), "launch failed on %s: %s",
             steps_env(ss)->conf->nodes[node].name, error);
    utf8_fix(reason);
    log_warnx("step=%s %s", step_id_str(s, id, sizeof(id)), reason);
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].node == node)
            s->nodes[i].reported = true; /* it runs nothing of the step */
    if (s->exit_code == 0)
        s->exit_code = 1;
    steps_kill(ss, s, "launch_failed", node);
    steps_finish(ss, s, STEP_FAILED, reason, time(NULL));
}

static void launch(struct steps *ss, const struct job *j, struct step *s,
                   const struct step_req *r, const struct sl_layout *l,
                   const struct job_nodes *jn, const char *key)
{
    json_t *common = launch_common(ss, j, s, r, key);
    uint64_t arg = (s->job_id << 32) | s->step_id;
    struct err e;

    for (size_t i = 0; i < l->n_nodes; i++) {
        json_t *body = launch_node(common, j, l, i, jn);
        int rc = nodecmd_step_launch(steps_env(ss)->nodecmd, s->nodes[i].node,
                                     body, arg, &e);
        json_decref(body);
        if (rc < 0) {
            steps_launch_reply(ss, arg, s->nodes[i].node, e.text);
            break;
        }
    }
    json_decref(common);
}

/* A fresh key for the step, as 64 hex digits. */
static int key_new(char hex[STEPIO_KEY_HEX_LEN + 1], struct err *e)
{
    uint8_t key[STEPIO_KEY_LEN];

    if (stepio_key_new(key, e) < 0)
        return err_prefix(e, "cannot make the step's key");
    stepio_key_hex(key, hex);
    return 0;
}

int steps_new(struct steps *ss, json_t *body, const struct auth_id *who,
              json_t **reply, struct err *e)
{
    struct step_req r;
    struct job_nodes jn = {0};
    struct sl_layout l = {0};
    struct step *s;
    struct job *j;
    char key[STEPIO_KEY_HEX_LEN + 1], id[48];
    int rc = -1;

    if (req_parse(body, &r, e) < 0)
        return -1;
    j = jobs_find(steps_env(ss)->jobs, r.job_id);
    if (j == NULL) {
        errno = ENOENT;
        return err_set(e, "Invalid job id specified");
    }
    if (job_ready(ss, j, who->uid, e) < 0 || key_new(key, e) < 0)
        return -1;
    if (r.interactive && steps_find(ss, j->id, STEP_INTERACTIVE_ID) != NULL) {
        errno = EEXIST;
        return err_set(e, "job %" PRIu64 " has an interactive step already",
                       j->id);
    }
    job_nodes_make(ss, j, &jn);
    if (steplayout_plan(jn.n, j->n_alloc, &r.lay, &l, e) < 0)
        goto out;
    s = step_make(ss, j, &r, &l);
    steps_add(ss, s);
    if (steps_save(ss, s, e) < 0)
        goto out; /* stays in memory: its id is not given again */
    log_info("step=%s state=RUNNING nodes=%zu tasks=%s uid=%u",
             step_id_str(s, id, sizeof(id)), s->n_nodes, s->tasks_per_node,
             (unsigned)who->uid);
    *reply = reply_make(j, s, &l, key, steps_env(ss)->conf);
    launch(ss, j, s, &r, &l, &jn, key);
    rc = 0;
out:
    steplayout_clear(&l);
    job_nodes_clear(&jn);
    return rc;
}
