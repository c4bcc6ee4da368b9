/*
 * Node and partition requests: queries and admin updates from clients;
 * registration, heartbeats and job ends from node daemons, including the
 * reconciliation of a registering node's job list with ours.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/acct/acct_events.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobfence.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/jobsusp.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/queue/steps.h"
#include "ctld/net/listen.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/cluster/resv.h"
#include "ctld/rpc/rpc.h"

/* Node daemons' messages come from uid 0 or the controller's uid, never
 * from sacctmgr Operators or Administrators: a node connection receives
 * other users' scripts and environment, and its JOB_END frees resources. */
static int node_sender(struct rpc *r, struct err *e)
{
    if (r->who.uid == 0 || r->who.uid == r->env->self_uid)
        return 0;
    errno = EPERM;
    return err_set(e,
                   "Access/permission denied: %s messages are accepted "
                   "only from uid 0 or the controller's uid",
                   proto_type_name(r->req->type));
}

/* A list filter: NULL (absent) or an array of strings. */
static int str_filter(json_t *body, const char *key, json_t **out,
                      struct err *e)
{
    json_t *a = json_object_get(body, key), *v;
    size_t i;

    *out = NULL;
    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return err_inval(e, "%s: expected an array of strings", key);
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v))
            return err_inval(e, "%s[%zu]: expected a string", key, i);
    }
    *out = a;
    return 0;
}

static bool in_filter(json_t *filter, const char *name)
{
    json_t *v;
    size_t i;

    if (filter == NULL)
        return true;
    json_array_foreach(filter, i, v)
    {
        if (strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

/* The ids of the jobs running on node idx, for its NODE object. */
static json_t *node_jobs(struct jobs *js, size_t idx)
{
    json_t *a = json_array();
    size_t nj;
    struct job **list = jobs_on_node(js, idx, false, &nj);

    for (size_t i = 0; i < nj; i++)
        json_array_append_new(a, json_integer((json_int_t)list[i]->id));
    free(list);
    return a;
}

int rpc_node_query(struct rpc *r, json_t **reply, struct err *e)
{
    struct nodes *ns = r->env->nodes;
    json_t *filter, *out;

    if (str_filter(r->req->body, "nodes", &filter, e) < 0)
        return -1;
    out = json_array();
    for (size_t i = 0; i < nodes_count(ns); i++) {
        const struct node *n = nodes_get(ns, i);
        if (in_filter(filter, n->cf->name)) {
            json_t *o = node_to_json(ns, n, node_jobs(r->env->jobs, n->idx));
            resvs_node_json(r->env->resv, n->idx, time(NULL), o);
            json_array_append_new(out, o);
        }
    }
    *reply = json_pack("{s:o}", "nodes", out);
    return 0;
}

int rpc_part_query(struct rpc *r, json_t **reply, struct err *e)
{
    const struct conf *conf = r->env->conf;
    json_t *filter, *out;

    if (str_filter(r->req->body, "partitions", &filter, e) < 0)
        return -1;
    out = json_array();
    for (size_t i = 0; i < conf->n_parts; i++)
        if (in_filter(filter, conf->parts[i].name))
            json_array_append_new(out, parts_to_json(r->env->parts, i));
    *reply = json_pack("{s:o}", "partitions", out);
    return 0;
}

int rpc_node_update(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *body = r->req->body, *names;
    const char *state = json_string_value(json_object_get(body, "state"));
    const char *reason = json_string_value(json_object_get(body, "reason"));
    enum node_admin admin;
    struct node **todo;
    char who[256];
    size_t n;
    int rc = 0;

    (void)reply;
    if (!acct_is_operator(r->env->acct, r->who.uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (str_filter(body, "nodes", &names, e) < 0)
        return -1;
    if (names == NULL || json_array_size(names) == 0)
        return err_inval(e, "NODE_UPDATE: no nodes named");
    if (state == NULL)
        return err_inval(e, "NODE_UPDATE: state must be DRAIN, RESUME or DOWN");
    if (strcasecmp(state, "DRAIN") == 0)
        admin = NODE_ADMIN_DRAIN;
    else if (strcasecmp(state, "DOWN") == 0)
        admin = NODE_ADMIN_DOWN;
    else if (strcasecmp(state, "RESUME") == 0 ||
             strcasecmp(state, "UNDRAIN") == 0 ||
             strcasecmp(state, "IDLE") == 0)
        admin = NODE_ADMIN_NONE; /* Slurm's UNDRAIN and IDLE: back in use */
    else
        return err_inval(e,
                         "NODE_UPDATE: invalid state \"%.32s\" (DRAIN, DOWN, "
                         "RESUME, UNDRAIN or IDLE)",
                         state);
    if (admin != NODE_ADMIN_NONE && (reason == NULL || reason[0] == '\0'))
        return err_inval(e, "NODE_UPDATE: %s needs a reason", state);
    /* all names first, so that a bad one changes nothing */
    n = json_array_size(names);
    todo = xcalloc(n, sizeof(*todo));
    for (size_t i = 0; i < n; i++) {
        const char *name = json_string_value(json_array_get(names, i));
        todo[i] = nodes_find(r->env->nodes, name);
        if (todo[i] == NULL) {
            free(todo);
            return err_inval(e, "invalid node name \"%.64s\"", name);
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        time_t now = time(NULL);
        rc = nodes_set_admin_by(r->env->nodes, todo[i], admin, reason,
                                (int64_t)r->who.uid, now, e);
        /* sacctmgr show events: the change, and who made it */
        if (rc == 0)
            rc = acct_events_node(
                r->env->persist, todo[i]->cf->name,
                admin == NODE_ADMIN_DRAIN  ? "DRAIN"
                : admin == NODE_ADMIN_DOWN ? "DOWN"
                                           : "",
                reason, auth_uid_name(r->who.uid, who, sizeof(who)), now, e);
    }
    free(todo);
    return rc;
}

/* ---- node daemons ----------------------------------------------------- */

static struct node *sender_node(struct rpc *r, struct err *e)
{
    const char *name = json_string_value(json_object_get(r->req->body, "node"));
    struct node *n;
    long bound;

    if (name == NULL) {
        err_inval(e, "%s: \"node\" is missing", proto_type_name(r->req->type));
        return NULL;
    }
    n = nodes_find(r->env->nodes, name);
    if (n == NULL) {
        errno = ENOENT;
        err_set(e, "node \"%.64s\" is not in the configuration", name);
        return NULL;
    }
    /* one connection speaks for one node only */
    bound = listen_conn_node(r->conn);
    if (bound >= 0 && (size_t)bound != n->idx) {
        errno = EPERM;
        err_set(e, "%s for node %.64s refused: this connection is node %s's",
                proto_type_name(r->req->type), name,
                nodes_get(r->env->nodes, (size_t)bound)->cf->name);
        return NULL;
    }
    return n;
}

/* The end of j that node n reports in o (JOB_END, or an ended entry of
 * its registration).  A run the node reports lost with the machine
 * ("node_lost": its spool is of an earlier boot) did not end of itself:
 * it is lost with the node (queue/jobfence.h), which vouches that nothing
 * of it is left. */
static int end_from(struct jobs *js, struct steps *ss, struct job *j,
                    const struct node *n, json_t *o, struct err *e)
{
    json_t *ec = json_object_get(o, "exit_code");
    json_t *sig = json_object_get(o, "signal");
    json_t *end = json_object_get(o, "end_time");
    json_t *oom = json_object_get(o, "oom");
    struct job_end r;

    if ((ec != NULL && !json_is_integer(ec)) ||
        (sig != NULL && !json_is_integer(sig)) ||
        (end != NULL && !json_is_null(end) && !json_is_integer(end)))
        return err_inval(e, "job end: exit_code, signal and end_time must be "
                            "integers");
    if (oom != NULL && !json_is_boolean(oom))
        return err_inval(e, "job end: oom must be true or false");
    if (json_is_true(json_object_get(o, "node_lost"))) {
        steps_job_node_lost(ss, j->id, n->idx, time(NULL));
        return jobfence_lost(js, j, n->idx, "node rebooted under it", true,
                             time(NULL), e);
    }
    r = (struct job_end){
        .exit_code = (int)json_integer_value(ec),
        .signal = (int)json_integer_value(sig),
        .end = (time_t)json_integer_value(end),
        .oom = json_is_true(oom),
    };
    return jobs_ended(js, j, &r, e);
}

/* The state ("running", "ended") a registration lists job id in, or
 * NULL when it does not list it. */
static const char *listed_as(json_t *jobs, uint64_t id)
{
    json_t *v;
    size_t i;

    json_array_foreach(jobs, i, v)
    {
        if ((uint64_t)json_integer_value(json_object_get(v, "job_id")) == id)
            return json_string_value(json_object_get(v, "state"));
    }
    return NULL;
}

static bool listed(json_t *jobs, uint64_t id)
{
    return listed_as(jobs, id) != NULL;
}

/* Whether batch job j runs on node idx, its batch host. */
static bool runs_there(const struct job *j, size_t idx)
{
    return j != NULL && job_on_node(j->state) && j->n_alloc > 0 &&
           j->alloc[0] == idx && j->alloc_kind == JOB_ALLOC_NONE;
}

/* Whether node idx is one of running j's nodes other than its batch
 * host (any node of an allocation): it may list j for the job's steps it
 * runs there. */
static bool step_node_of(const struct job *j, size_t idx)
{
    if (j == NULL || !job_on_node(j->state))
        return false;
    for (size_t i = j->alloc_kind != JOB_ALLOC_NONE ? 0 : 1; i < j->n_alloc;
         i++)
        if (j->alloc[i] == idx)
            return true;
    return false;
}

/* The jobs requeued behind a fence on n (queue/jobfence.h): a job n
 * registers without, or lists as ended (its end is taken with this
 * registration), has nothing left there; one it lists as running was just
 * told to die (kill_jobs) and keeps its fence until n reports its end. */
static void settle_fences(struct jobs *js, const struct node *n, json_t *jobs)
{
    size_t nf;
    struct job **fenced = jobfence_on_node(js, n->idx, &nf);

    for (size_t k = 0; k < nf; k++) {
        const char *st = listed_as(jobs, fenced[k]->id);
        if (st == NULL)
            jobfence_lift(js, fenced[k], "its node registered without it");
        else if (strcmp(st, "ended") == 0)
            jobfence_lift(js, fenced[k],
                          "its node registered its last run as ended");
    }
    free(fenced);
}

/* docs/protocol.md "Reconciling on registration"; fills kill. */
static void reconcile(struct jobs *js, struct steps *ss, struct node *n,
                      json_t *jobs, json_t *kill)
{
    size_t nj, i;
    struct job **ours = jobs_on_node(js, n->idx, true, &nj);
    json_t *v;
    struct err e;

    json_array_foreach(jobs, i, v)
    {
        uint64_t id =
            (uint64_t)json_integer_value(json_object_get(v, "job_id"));
        const char *st = json_string_value(json_object_get(v, "state"));
        struct job *j = jobs_find(js, id);
        /* an allocation has no batch script on any node: a node that
         * lists it runs its steps */
        bool here = runs_there(j, n->idx);
        bool ended = st != NULL && strcmp(st, "ended") == 0;

        if (here && !ended)
            jobs_launched(js, j);
        if (here && !ended && j->state == JOB_SUSPENDED)
            jobs_refreeze(js, j);
        if (here && ended) {
            steps_batch_usage(ss, id, n->idx, json_object_get(v, "usage"));
            if (end_from(js, ss, j, n, v, &e) < 0)
                log_warnx("node=%s job=%" PRIu64 " end: %s", n->cf->name, id,
                          e.text);
        } else if (here && j->kill != JOB_KILL_NONE) {
            jobs_kill(js, j,
                      j->kill == JOB_KILL_TIMEOUT ? "timeout" : "cancelled");
        } else if (!here && !ended && !step_node_of(j, n->idx)) {
            log_info("node=%s job=%" PRIu64 " not ours there: killed",
                     n->cf->name, id);
            json_array_append_new(kill, json_integer((json_int_t)id));
        }
    }
    for (size_t k = 0; k < nj; k++) {
        /* an allocation: nothing of it need be there but its steps,
         * which the step table settles */
        if (listed(jobs, ours[k]->id) || ours[k]->alloc_kind != JOB_ALLOC_NONE)
            continue;
        /* Never confirmed: the launch was lost with the connection (or
         * with the controller, between its commit and the send). */
        if (!ours[k]->launched)
            jobs_unstart(js, ours[k],
                         "launch unconfirmed and the node registered "
                         "without the job",
                         &e);
        else {
            steps_job_node_lost(ss, ours[k]->id, n->idx, time(NULL));
            jobfence_lost(js, ours[k], n->idx,
                          "node registered without the job", true, time(NULL),
                          &e);
        }
    }
    free(ours);
    settle_fences(js, n, jobs);
}

static int check_job_list(json_t *jobs, struct err *e)
{
    json_t *v;
    size_t i;

    if (!json_is_array(jobs))
        return err_inval(e, "NODE_REGISTER: \"jobs\" must be an array");
    json_array_foreach(jobs, i, v)
    {
        if (!json_is_integer(json_object_get(v, "job_id")) ||
            !json_is_string(json_object_get(v, "state")))
            return err_inval(e,
                             "NODE_REGISTER: jobs[%zu] needs job_id and "
                             "state",
                             i);
    }
    return 0;
}

/* A string member of at most max bytes, or absent/null (NULL). */
static int opt_str(json_t *o, const char *key, size_t max, const char **out,
                   struct err *e)
{
    json_t *v = json_object_get(o, key);

    *out = NULL;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v) || json_string_length(v) > max)
        return err_inval(e,
                         "NODE_REGISTER: %s must be a string of at most "
                         "%zu bytes",
                         key, max);
    *out = json_string_value(v);
    return 0;
}

/* What the node says of itself for sluice doctor (docs/protocol.md): its
 * host name, clock, cgroup and GPU fence; all optional (an older sluiced
 * sends none of them). */
static int register_health(json_t *body, struct nodes_report *rep,
                           struct err *e)
{
    json_t *t = json_object_get(body, "time");
    json_t *fence = json_object_get(body, "gpu_fence");

    if (opt_str(body, "hostname", 255, &rep->hostname, e) < 0 ||
        opt_str(body, "cgroup", 16, &rep->cgroup, e) < 0)
        return -1;
    if (t != NULL && !json_is_null(t) && !json_is_integer(t))
        return err_inval(e, "NODE_REGISTER: time must be an integer");
    rep->has_time = json_is_integer(t);
    rep->time = (int64_t)json_integer_value(t);
    if (fence != NULL && !json_is_null(fence) && !json_is_object(fence))
        return err_inval(e, "NODE_REGISTER: gpu_fence must be an object");
    if (opt_str(fence, "state", 16, &rep->fence, e) < 0 ||
        opt_str(fence, "reason", 1024, &rep->fence_why, e) < 0)
        return -1;
    return 0;
}

/*
 * The report of a registration whose cpus and mem_mib were checked.  A GPU
 * list that cannot be read counts as no GPUs, with the reason as the
 * node's gres_note (in bad), so that the node shows why instead of
 * registering again and again.
 */
static int register_report(json_t *body, struct nodes_report *rep,
                           struct nodegpu_inv *gpus, char *bad, size_t len,
                           struct err *e)
{
    json_t *gres = json_object_get(body, "gres");
    json_t *note = json_object_get(body, "gres_note");
    const char *note_s = json_string_value(note);
    struct err pe;

    if ((gres != NULL && !json_is_null(gres) && !json_is_string(gres)) ||
        (note != NULL && !json_is_null(note) && !json_is_string(note)))
        return err_inval(e,
                         "NODE_REGISTER: gres and gres_note must be strings");
    if (nodegpu_parse(json_object_get(body, "gpus"), json_string_value(gres),
                      gpus, &pe) < 0) {
        snprintf(bad, len, "unreadable GPU list: %s", pe.text);
        log_warnx("node=%s %s",
                  json_string_value(json_object_get(body, "node")), bad);
        nodegpu_parse(NULL, NULL, gpus, &pe);
        note_s = bad;
    }
    *rep = (struct nodes_report){
        .cpus = (uint32_t)json_integer_value(json_object_get(body, "cpus")),
        .mem_mib =
            (uint64_t)json_integer_value(json_object_get(body, "mem_mib")),
        .gres = json_string_value(gres),
        .gres_note = note_s,
        .gpus = gpus,
        .boot_time =
            (time_t)json_integer_value(json_object_get(body, "boot_time")),
    };
    if (register_health(body, rep, e) < 0) {
        nodegpu_fini(gpus);
        return -1;
    }
    return 0;
}

int rpc_node_register(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *body = r->req->body, *kill, *jobs;
    json_t *cpus = json_object_get(body, "cpus");
    json_t *mem = json_object_get(body, "mem_mib");
    struct nodegpu_inv gpus;
    struct nodes_report rep;
    char bad[ERR_TEXT_MAX + 32];
    struct node *n;

    if (node_sender(r, e) < 0)
        return -1;
    n = sender_node(r, e);
    if (n == NULL) {
        *reply = json_pack("{s:b, s:s}", "accepted", 0, "reason", e->text);
        log_warnx("peer=%s register refused: %s", listen_conn_peer(r->conn),
                  e->text);
        return 0;
    }
    /* The connection speaks for n from here, so that every answer, a
     * refusal too, is signed for n's daemon (one for another receiver it
     * would not read).  Admitted here rather than by rpc_dispatch for
     * that reason: while the state directory takes no writes (the
     * reconciliation records ends and failures) the daemon is refused
     * and registers again later (docs/noded.md). */
    listen_conn_set_node(r->conn, (long)n->idx);
    if (loop_admit(r->env->loop, e) < 0)
        return -1;
    jobs = json_object_get(body, "jobs");
    if (jobs == NULL)
        jobs = json_array();
    else
        json_incref(jobs);
    if (!json_is_integer(cpus) || !json_is_integer(mem) ||
        json_integer_value(cpus) < 0 || json_integer_value(mem) < 0 ||
        check_job_list(jobs, e) < 0) {
        json_decref(jobs);
        if (errno != EINVAL || e->text[0] == '\0')
            err_inval(e, "NODE_REGISTER: cpus and mem_mib must be integers");
        return -1;
    }
    if (register_report(body, &rep, &gpus, bad, sizeof(bad), e) < 0) {
        json_decref(jobs);
        log_warnx("node=%s register refused: %s", n->cf->name, e->text);
        return -1;
    }
    nodes_register(r->env->nodes, n, r->conn, &rep, time(NULL));
    kill = json_array();
    reconcile(r->env->jobs, r->env->steps, n, jobs, kill);
    json_decref(jobs);
    *reply = json_pack("{s:b, s:o, s:i, s:o}", "accepted", 1, "reason",
                       n->invalid ? json_string(n->auto_reason) : json_null(),
                       "heartbeat_s", (int)nodes_heartbeat_s(r->env->nodes),
                       "kill_jobs", kill);
    return 0;
}

/* A node marked DOWN for silence that still holds its connection comes
 * back with its next heartbeat; the jobs it still runs were ended
 * NODE_FAIL or requeued meanwhile (and may run elsewhere by now), so what
 * it lists that does not run there is killed there. */
static void kill_ended(struct jobs *js, struct node *n, json_t *running)
{
    json_t *v;
    size_t i;

    json_array_foreach(running, i, v)
    {
        uint64_t id = (uint64_t)json_integer_value(v);
        struct job *j = jobs_find(js, id);
        if (!json_is_integer(v) || runs_there(j, n->idx) ||
            step_node_of(j, n->idx))
            continue;
        log_info("node=%s job=%" PRIu64 " not running there: killed",
                 n->cf->name, id);
        nodecmd_kill_on(jobs_nodecmd(js), n->idx, id, "node_down",
                        jobs_env(js)->conf->kill_wait_s);
    }
}

int rpc_node_heartbeat(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *running = json_object_get(r->req->body, "jobs");
    json_t *t = json_object_get(r->req->body, "time");
    struct node *n;

    (void)reply;
    if (node_sender(r, e) < 0 || (n = sender_node(r, e)) == NULL)
        return -1;
    if (!n->registered || n->conn != r->conn) {
        errno = EAGAIN;
        return err_set(e,
                       "node %s is not registered on this connection: "
                       "register again",
                       n->cf->name);
    }
    if (json_is_integer(t))
        nodes_clock(r->env->nodes, n, (int64_t)json_integer_value(t),
                    time(NULL));
    if (nodes_seen(r->env->nodes, n, time(NULL)))
        kill_ended(r->env->jobs, n, json_is_array(running) ? running : NULL);
    return 0;
}

int rpc_job_end(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *id = json_object_get(r->req->body, "job_id");
    struct node *n;
    struct job *j;

    (void)reply;
    if (node_sender(r, e) < 0 || (n = sender_node(r, e)) == NULL)
        return -1;
    if (!json_is_integer(id))
        return err_inval(e, "JOB_END: job_id must be an integer");
    if (n->conn == r->conn)
        nodes_seen(r->env->nodes, n, time(NULL));
    j = jobs_find(r->env->jobs, (uint64_t)json_integer_value(id));
    /* the end of a run lost with the node: the requeued job may start */
    if (j != NULL && j->fenced && j->fence_node == n->idx)
        jobfence_lift(r->env->jobs, j, "its node reported its last run's end");
    /* An end we no longer wait for is acknowledged all the same, so
     * that the node can forget it. */
    if (j == NULL || !job_on_node(j->state) || j->n_alloc == 0 ||
        j->alloc[0] != n->idx || j->alloc_kind != JOB_ALLOC_NONE) {
        log_info("node=%s job=%" JSON_INTEGER_FORMAT " end ignored: not "
                 "running there",
                 n->cf->name, json_integer_value(id));
        return 0;
    }
    /* the batch script's usage goes to its batch step, which ends with
     * the job */
    steps_batch_usage(r->env->steps, j->id, n->idx,
                      json_object_get(r->req->body, "usage"));
    return end_from(r->env->jobs, r->env->steps, j, n, r->req->body, e);
}

int rpc_part_update(struct rpc *r, json_t **reply, struct err *e)
{
    const char *name =
        json_string_value(json_object_get(r->req->body, "partition"));
    const struct conf_part *cp;

    (void)reply;
    if (!acct_is_administrator(r->env->acct, r->who.uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied: only an administrator "
                          "(not an operator) may update a partition");
    }
    if (name == NULL) {
        errno = EINVAL;
        return err_set(e, "PART_UPDATE: expected \"partition\": NAME");
    }
    if ((cp = conf_part_find(r->env->conf, name)) == NULL) {
        errno = ENOENT;
        return err_set(e, "Invalid partition name specified: %.64s", name);
    }
    if (parts_update(r->env->parts, (size_t)(cp - r->env->conf->parts),
                     json_object_get(r->req->body, "set"), e) < 0)
        return -1;
    jobs_part_changed(r->env->jobs, (size_t)(cp - r->env->conf->parts));
    loop_want_pass(r->env->loop);
    return 0;
}
