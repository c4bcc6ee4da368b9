/*
 * The controller's requests to node daemons about jobs (nodecmd.h):
 * JOB_LAUNCH with its reply, JOB_SIGNAL, JOB_FREEZE and JOB_KILL.  The
 * node daemon's side is noded/jobreq.c.
 */
#include "ctld/queue/nodecmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <jansson.h>

#include "common/log.h"
#include "common/proto.h"
#include "common/timefmt.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ctld/cluster/nodes.h"
#include "ctld/core/persist.h"
#include "ctld/job/job.h"
#include "ctld/net/listen.h"
#include "ctld/queue/jobs.h"
#include "sched/steplayout.h"

struct nodecmd {
    const struct conf *conf;
    struct nodes *nodes;
    struct persist *persist;
    struct jobs *jobs;
    nodecmd_step_reply_fn step_reply; /* nodecmd_set_step_reply's */
    void *step_ctx;
    /* Tests only (SLUICE_TEST_DOUBLE_START=ID, warned at start): job ID is
     * also launched on a second node, so that bench/chaos_check.py can be
     * shown to catch a job run twice.  0: never. */
    uint64_t test_double_start;
};

/* SLUICE_TEST_DOUBLE_START (struct nodecmd): a job id, or 0. */
static uint64_t test_double_start(void)
{
    const char *s = getenv("SLUICE_TEST_DOUBLE_START");
    char *end;
    unsigned long long v;

    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0 || v == 0) {
        log_warnx("SLUICE_TEST_DOUBLE_START=%.32s ignored: a job id", s);
        return 0;
    }
    log_warnx("SLUICE_TEST_DOUBLE_START=%llu: that job will run twice (a "
              "planted fault, for tests only)",
              v);
    return v;
}

struct nodecmd *nodecmd_create(const struct conf *conf, struct nodes *ns,
                               struct persist *p, struct jobs *js)
{
    struct nodecmd *nc = xcalloc(1, sizeof(*nc));

    nc->conf = conf;
    nc->nodes = ns;
    nc->persist = p;
    nc->jobs = js;
    nc->test_double_start = test_double_start();
    return nc;
}

void nodecmd_destroy(struct nodecmd *nc)
{
    free(nc);
}

/* j's batch host, the first node of its allocation. */
static struct node *batch_host(struct nodecmd *nc, const struct job *j)
{
    return nodes_get(nc->nodes, j->alloc[0]);
}

/* The connection to j's batch host, or NULL with EHOSTUNREACH and e. */
static struct conn *conn_of(struct nodecmd *nc, const struct job *j,
                            struct err *e)
{
    struct node *n = batch_host(nc, j);

    if (n->conn == NULL) {
        errno = EHOSTUNREACH;
        err_set(e, "node %s is not connected", n->cf->name);
    }
    return n->conn;
}

/* --- JOB_LAUNCH ------------------------------------------------------ */

/* j, not launched, ends FAILED with reason "launch failed: why". */
static void launch_failed(struct nodecmd *nc, struct job *j, const char *why)
{
    char reason[ERR_TEXT_MAX + 32];
    struct err e;

    snprintf(reason, sizeof(reason), "launch failed: %s", why);
    utf8_fix(reason);
    jobs_fail(nc->jobs, j, JOB_FAILED, reason, time(NULL), &e);
}

static void launch_reply(void *ctx, struct conn *conn, uint64_t id,
                         const struct proto_frame *reply)
{
    struct nodecmd *nc = ctx;
    struct job *j = jobs_find(nc->jobs, id);
    const char *msg = "no reason given";
    struct err e;
    int code;

    if (reply == NULL)
        return; /* a lost connection is settled by registration or timeout */
    if (j == NULL || j->state != JOB_RUNNING ||
        (long)j->alloc[0] != listen_conn_node(conn)) {
        /* The launch was delivered after its run was given up (lost with
         * the node while the request waited on the connection): the job
         * must not run there. */
        if (!(reply->flags & PROTO_F_ERROR) && listen_conn_node(conn) >= 0) {
            log_warnx("job=%" PRIu64 " launched on %s after its run there "
                      "was given up: killed",
                      id, nc->conf->nodes[listen_conn_node(conn)].name);
            nodecmd_kill_on(nc, (size_t)listen_conn_node(conn), id, "node_down",
                            nc->conf->kill_wait_s);
        }
        return;
    }
    if (!(reply->flags & PROTO_F_ERROR)) {
        jobs_launched(nc->jobs, j);
        return;
    }
    proto_error_parse(reply->body, &code, &msg);
    if (code == EAGAIN) {
        /* the node holds an earlier run's unacknowledged end: nothing
         * started, the job waits again and starts once that is taken */
        log_info("job=%" PRIu64 " launch deferred by %s: %s", id,
                 nc->conf->nodes[j->alloc[0]].name, msg);
        jobs_unstart(nc->jobs, j, msg, &e);
        return;
    }
    log_warnx("job=%" PRIu64 " launch failed on %s: %s", id,
              nc->conf->nodes[j->alloc[0]].name, msg);
    /* Failing (not requeueing) keeps a job that cannot start on that
     * node (bad work_dir, unknown user) from looping.  The reason is
     * cut at ERR_TEXT_MAX, the node's text being up to that long. */
    char reason[ERR_TEXT_MAX];
    snprintf(reason, sizeof(reason), "launch failed: %s", msg);
    utf8_fix(reason);
    j->exit_code = 1;
    jobs_fail(nc->jobs, j, JOB_FAILED, reason, time(NULL), &e);
}

/* The GPU indices on the batch host, the first node of the allocation. */
static json_t *launch_gpus(const struct job *j)
{
    json_t *a = json_array();

    for (uint32_t i = 0; j->gpu_alloc != NULL && i < j->gpus_per_node; i++)
        json_array_append_new(a, json_integer(j->gpu_alloc[i]));
    return a;
}

/* The job's tasks for its environment (SLURM_NTASKS and the like): -n,
 * --ntasks-per-node and -c only when given, as Slurm sets them; the
 * tasks spread over the nodes as srun's block layout does ("3,2"). */
static void launch_tasks(json_t *o, const struct job *j)
{
    uint32_t *counts = xcalloc(j->n_alloc, sizeof(*counts));
    char *tpn;

    for (size_t i = 0; i < j->n_alloc; i++)
        counts[i] = j->ntasks / (uint32_t)j->n_alloc +
                    (i < j->ntasks % j->n_alloc ? 1 : 0);
    tpn = steplayout_counts(counts, j->n_alloc);
    if (j->ntasks_set)
        json_object_set_new(o, "ntasks", json_integer(j->ntasks));
    if (j->ntasks_per_node != 0)
        json_object_set_new(o, "ntasks_per_node",
                            json_integer(j->ntasks_per_node));
    if (j->cpus_per_task_set)
        json_object_set_new(o, "cpus_per_task", json_integer(j->cpus_per_task));
    json_object_set_new(o, "num_nodes", json_integer((json_int_t)j->n_alloc));
    json_object_set_new(o, "tasks_per_node", json_string(tpn));
    free(tpn);
    free(counts);
}

static json_t *launch_body(const struct conf *conf, const struct job *j,
                           json_t *payload)
{
    char *nl = job_alloc_list(j, conf);
    json_t *o = json_object();

#define S(k, v) json_object_set_new(o, k, v)
    S("job_id", json_integer((json_int_t)j->id));
    S("name", json_string(j->name));
    S("user_id", json_integer(j->user_id));
    S("group_id", json_integer(j->group_id));
    S("user_name", json_string(j->user_name));
    S("partition", json_string(conf->parts[j->part].name));
    S("script", json_incref(json_object_get(payload, "script")));
    S("argv", json_incref(json_object_get(payload, "argv")));
    S("environment", json_incref(json_object_get(payload, "environment")));
    S("work_dir", json_string(j->work_dir));
    S("std_out", j->std_out ? json_string(j->std_out) : json_null());
    S("std_err", j->std_err ? json_string(j->std_err) : json_null());
    S("cpus", json_integer(j->cpus_per_node));
    launch_tasks(o, j);
    S("nodes", json_integer(j->nodes));
    S("mem_mib", json_integer((json_int_t)job_mem_per_node(j)));
    S("node_list", json_string(nl));
    S("time_limit_s", j->time_limit_s == TIMEFMT_INFINITE
                          ? json_null()
                          : json_integer(j->time_limit_s));
    S("gpus", launch_gpus(j));
    S("restart_count", json_integer(j->restart_count));
    /* the batch environment's and the output's (docs/noded.md) */
    if (j->open_mode != NULL)
        S("open_mode", json_string(j->open_mode));
    if (j->submit_host != NULL)
        S("submit_host", json_string(j->submit_host));
    if (j->submit_dir != NULL)
        S("submit_dir", json_string(j->submit_dir));
    if (j->get_user_env != NULL)
        S("get_user_env", json_string(j->get_user_env));
    if (j->propagate != NULL)
        S("propagate", json_string(j->propagate));
    if (j->account != NULL)
        S("account", json_string(j->account));
    if (j->qos != NULL)
        S("qos", json_string(j->qos));
    if (j->mem_per_cpu_mib > 0)
        S("mem_per_cpu_mib", json_integer((json_int_t)j->mem_per_cpu_mib));
    if (j->mem_per_gpu_mib > 0)
        S("mem_per_gpu_mib", json_integer((json_int_t)j->mem_per_gpu_mib));
    if (j->gpus != NULL)
        S("req_gpus", json_string(j->gpus));
    if (j->req_gpus_per_node != NULL)
        S("req_gpus_per_node", json_string(j->req_gpus_per_node));
    /* what srun inside inherits (SLURM_GPUS_PER_TASK, SLURM_DISTRIBUTION) */
    if (j->req_gpus_per_task != NULL)
        S("req_gpus_per_task", json_string(j->req_gpus_per_task));
    if (j->opt.distribution != NULL)
        S("distribution", json_string(j->opt.distribution));
    S("cluster_name", json_string(conf->cluster_name));
    S("start_time", json_integer((json_int_t)j->start_time));
    if (j->time_limit_s != TIMEFMT_INFINITE)
        S("end_time",
          json_integer((json_int_t)(j->start_time + j->time_limit_s)));
    S("nice", json_integer(j->nice));
    S("submit_time", json_integer((json_int_t)j->submit_time));
    if (j->reservation != NULL) /* SLURM_JOB_RESERVATION */
        S("reservation", json_string(j->reservation));
    if (j->array_job_id != 0 && j->array_task_id >= 0) {
        S("array_job_id", json_integer((json_int_t)j->array_job_id));
        S("array_task_id", json_integer(j->array_task_id));
        S("array_task_count", json_integer(j->array_count));
        S("array_task_min", json_integer(j->array_min));
        S("array_task_max", json_integer(j->array_max));
        S("array_task_step", json_integer(j->array_step));
    }
#undef S
    free(nl);
    return o;
}

/* The script, argv and environment stored at submit; NULL with e. */
static json_t *launch_payload(struct nodecmd *nc, const struct job *j,
                              struct err *e)
{
    json_t *payload = NULL;
    json_error_t jerr;
    char *text;

    /* an array's tasks share the script stored with its first record */
    text = persist_job_payload(nc->persist,
                               j->array_job_id ? j->array_job_id : j->id, e);
    if (text != NULL && (payload = json_loads(text, 0, &jerr)) == NULL)
        err_set(e, "stored payload unreadable: %s", jerr.text);
    free(text);
    return payload;
}

/* The planted fault (test_double_start): body to the first other node
 * that is connected, its reply ignored. */
static void launch_twice(struct nodecmd *nc, const struct job *j, json_t *body)
{
    for (size_t i = 0; i < nodes_count(nc->nodes); i++) {
        struct node *n = nodes_get(nc->nodes, i);
        struct err e;
        if (i == j->alloc[0] || n->conn == NULL)
            continue;
        if (listen_request(n->conn, PROTO_MSG_JOB_LAUNCH, body, NULL, NULL,
                           j->id, &e) == 0)
            log_warnx("job=%" PRIu64 " launched again on %s "
                      "(SLUICE_TEST_DOUBLE_START)",
                      j->id, n->cf->name);
        return;
    }
}

void nodecmd_launch(struct nodecmd *nc, struct job *j)
{
    struct conn *conn = batch_host(nc, j)->conn;
    json_t *payload, *body;
    struct err e;

    err_clear(&e);
    payload = launch_payload(nc, j, &e);
    if (payload == NULL || conn == NULL) {
        launch_failed(nc, j, payload ? "node not connected" : e.text);
        json_decref(payload);
        return;
    }
    body = json_pack("{s:o}", "job", launch_body(nc->conf, j, payload));
    if (listen_request(conn, PROTO_MSG_JOB_LAUNCH, body, launch_reply, nc,
                       j->id, &e) < 0)
        launch_failed(nc, j, e.text);
    else if (j->id == nc->test_double_start)
        launch_twice(nc, j, body);
    json_decref(body);
    json_decref(payload);
}

/* --- JOB_SIGNAL, JOB_FREEZE ------------------------------------------ */

int nodecmd_signal(struct nodecmd *nc, const struct job *j, int signal,
                   bool batch_only, struct err *e)
{
    struct conn *conn = conn_of(nc, j, e);
    json_t *body;
    int rc;

    if (conn == NULL)
        return -1;
    body = json_pack("{s:I, s:i, s:b}", "job_id", (json_int_t)j->id, "signal",
                     signal, "batch_only", batch_only);
    rc = listen_request(conn, PROTO_MSG_JOB_SIGNAL, body, NULL, NULL, j->id, e);
    json_decref(body);
    if (rc == 0)
        log_info("job=%" PRIu64 " signal=%d batch_only=%d", j->id, signal,
                 batch_only);
    return rc;
}

int nodecmd_freeze(struct nodecmd *nc, const struct job *j, bool on,
                   struct err *e)
{
    struct conn *conn = conn_of(nc, j, e);
    json_t *body;
    struct err oe;
    int rc;

    if (conn == NULL)
        return -1;
    body = json_pack("{s:I, s:b}", "job_id", (json_int_t)j->id, "freeze", on);
    rc = listen_request(conn, PROTO_MSG_JOB_FREEZE, body, NULL, NULL, j->id, e);
    /* the other nodes run only the job's steps; their replies (ESRCH
     * where none runs) are not waited for */
    for (size_t i = 1; rc == 0 && i < j->n_alloc; i++) {
        struct node *n = nodes_get(nc->nodes, j->alloc[i]);
        if (n->conn == NULL)
            log_info("job=%" PRIu64 " %s not sent: node %s not connected",
                     j->id, on ? "suspend" : "resume", n->cf->name);
        else if (listen_request(n->conn, PROTO_MSG_JOB_FREEZE, body, NULL, NULL,
                                j->id, &oe) < 0)
            log_warnx("job=%" PRIu64 " %s not sent to %s: %s", j->id,
                      on ? "suspend" : "resume", n->cf->name, oe.text);
    }
    json_decref(body);
    return rc;
}

/* --- JOB_KILL -------------------------------------------------------- */

/* JOB_KILL body to node idx; -1 when not connected or not encodable. */
static int kill_one(struct nodecmd *nc, const struct job *j, size_t idx,
                    json_t *body, bool quiet)
{
    struct node *n = nodes_get(nc->nodes, idx);
    struct err e;
    int rc;

    if (n->conn == NULL) {
        if (!quiet)
            log_info("job=%" PRIu64 " kill deferred: node %s not connected",
                     j->id, n->cf->name);
        return -1;
    }
    rc = listen_request(n->conn, PROTO_MSG_JOB_KILL, body, NULL, NULL, j->id,
                        &e);
    if (rc < 0)
        log_warnx("job=%" PRIu64 " kill not sent to %s: %s", j->id, n->cf->name,
                  e.text);
    return rc;
}

int nodecmd_kill(struct nodecmd *nc, const struct job *j, const char *reason,
                 uint32_t wait_s)
{
    json_t *body;
    int rc;

    body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)j->id,
                     "kill_wait_s", (int)wait_s, "reason", reason);
    rc = kill_one(nc, j, j->alloc[0], body, false);
    /* the other nodes run only the job's steps, which end with it; one
     * that is gone is settled by the node timeout */
    for (size_t i = 1; i < j->n_alloc; i++)
        kill_one(nc, j, j->alloc[i], body, true);
    json_decref(body);
    return rc;
}

int nodecmd_kill_on(struct nodecmd *nc, size_t idx, uint64_t job_id,
                    const char *reason, uint32_t wait_s)
{
    struct node *n = nodes_get(nc->nodes, idx);
    json_t *body;
    struct err e;
    int rc;

    if (n->conn == NULL) {
        errno = EHOSTUNREACH;
        return -1;
    }
    body = json_pack("{s:I, s:i, s:s}", "job_id", (json_int_t)job_id,
                     "kill_wait_s", (int)wait_s, "reason", reason);
    rc = listen_request(n->conn, PROTO_MSG_JOB_KILL, body, NULL, NULL, job_id,
                        &e);
    if (rc < 0)
        log_warnx("job=%" PRIu64 " kill not sent to %s: %s", job_id,
                  n->cf->name, e.text);
    json_decref(body);
    return rc;
}

/* --- STEP_LAUNCH, STEP_SIGNAL, STEP_KILL ----------------------------- */

void nodecmd_set_step_reply(struct nodecmd *nc, nodecmd_step_reply_fn fn,
                            void *ctx)
{
    nc->step_reply = fn;
    nc->step_ctx = ctx;
}

/* The connection to node idx, or NULL with EHOSTUNREACH and e. */
static struct conn *node_conn(struct nodecmd *nc, size_t idx, struct err *e)
{
    struct node *n = nodes_get(nc->nodes, idx);

    if (n->conn == NULL) {
        errno = EHOSTUNREACH;
        err_set(e, "node %s is not connected", n->cf->name);
    }
    return n->conn;
}

static void step_launch_reply(void *ctx, struct conn *conn, uint64_t arg,
                              const struct proto_frame *reply)
{
    struct nodecmd *nc = ctx;
    const char *msg = "no reason given";
    long node = listen_conn_node(conn);
    int code;

    if (reply == NULL || node < 0 || nc->step_reply == NULL)
        return;
    if (!(reply->flags & PROTO_F_ERROR)) {
        nc->step_reply(nc->step_ctx, arg, (size_t)node, NULL);
        return;
    }
    proto_error_parse(reply->body, &code, &msg);
    nc->step_reply(nc->step_ctx, arg, (size_t)node, msg);
}

int nodecmd_step_launch(struct nodecmd *nc, size_t node, json_t *body,
                        uint64_t arg, struct err *e)
{
    struct conn *conn = node_conn(nc, node, e);

    if (conn == NULL)
        return -1;
    return listen_request(conn, PROTO_MSG_STEP_LAUNCH, body, step_launch_reply,
                          nc, arg, e);
}

int nodecmd_step_signal(struct nodecmd *nc, size_t node, uint64_t job_id,
                        uint32_t step_id, int signal, struct err *e)
{
    struct conn *conn = node_conn(nc, node, e);
    json_t *body;
    int rc;

    if (conn == NULL)
        return -1;
    body = json_pack("{s:I, s:I, s:i}", "job_id", (json_int_t)job_id, "step_id",
                     (json_int_t)step_id, "signal", signal);
    rc = listen_request(conn, PROTO_MSG_STEP_SIGNAL, body, NULL, NULL, job_id,
                        e);
    json_decref(body);
    return rc;
}

int nodecmd_step_kill(struct nodecmd *nc, size_t node, uint64_t job_id,
                      uint32_t step_id, const char *reason, uint32_t wait_s)
{
    struct conn *conn;
    json_t *body;
    struct err e;
    int rc;

    if ((conn = node_conn(nc, node, &e)) == NULL) {
        log_info("step=%" PRIu64 ".%u kill not sent: %s", job_id, step_id,
                 e.text);
        return -1;
    }
    body = json_pack("{s:I, s:I, s:s, s:i}", "job_id", (json_int_t)job_id,
                     "step_id", (json_int_t)step_id, "reason", reason,
                     "kill_wait_s", (int)wait_s);
    rc =
        listen_request(conn, PROTO_MSG_STEP_KILL, body, NULL, NULL, job_id, &e);
    if (rc < 0)
        log_warnx("step=%" PRIu64 ".%u kill not sent to %s: %s", job_id,
                  step_id, nc->conf->nodes[node].name, e.text);
    json_decref(body);
    return rc;
}
