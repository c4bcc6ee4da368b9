/*
 * Request handlers, one per message type, called through rpc_dispatch
 * (rpc.c, which the root's listen_ops.dispatch calls) with the decoded frame
 * and the sender's identity (from its credential or, on the unix socket,
 * SO_PEERCRED; never from the body).  A handler returns 0 with *reply set
 * (a new reference; NULL means "{}"), or -1 with errno as the error code
 * and e as the message of the error reply.  conn is NULL for a request
 * that came over HTTP (web/), which sends only the types a user sends
 * with the CLI (web.c's list).  Handlers reach the
 * controller's subsystems only through struct rpc_env, which the root
 * fills.
 */
#ifndef SLUICE_CTLD_RPC_H
#define SLUICE_CTLD_RPC_H

#include <sys/types.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "common/log.h"
#include "common/proto.h"

struct acct;
struct conf;
struct conn;
struct explain;
struct jobs;
struct jwt_key;
struct loop;
struct nodes;
struct parts;
struct persist;
struct prio_drv;
struct resvs;
struct sched_drv;
struct statedir;
struct stats;
struct steps;

/* scontrol setdebug's level, which lasts until the next reconfigure or
 * restart (as in Slurm): level -1 when SlurmctldDebug's is in force. */
struct rpc_debug {
    int level;             /* enum conf_debug, or -1 */
    enum log_level before; /* the log level it replaced */
};

/*
 * rpc_env: what the handlers use, filled once by the root after it has
 * created the subsystems (every pointer borrowed, none NULL while
 * requests are served) and passed to rpc_dispatch by the root's dispatch
 * callback.
 */
struct rpc_env {
    const struct conf *conf;
    struct loop *loop; /* loop_write before a change (core/loop.h) */
    struct persist *persist;
    struct acct *acct;
    struct parts *parts;
    struct nodes *nodes;
    struct jobs *jobs;
    struct steps *steps; /* job steps (queue/steps.h) */
    struct sched_drv *sched;
    struct prio_drv *prio;
    struct explain *explain; /* explain_job's context (sched/explain.h) */
    struct resvs *resv;      /* reservations (cluster/resv.h) */
    /* the controller's counters (core/stats.h): rpc_dispatch counts each
     * request and its time; GET /metrics reads them */
    struct stats *stats;
    /* whether StateSaveLocation takes writes (core/statedir.h): sdiag and
     * GET /metrics show it */
    struct statedir *statedir;
    uid_t self_uid; /* the controller's own uid: an operator */
    /* auth/jwt's key (AuthAltParameters=jwt_key=): scontrol token and
     * REST requests; NULL when AuthAltTypes has no auth/jwt */
    const struct jwt_key *jwt;
    const char *conf_path; /* the file read at start (RECONFIGURE) */
    /* reconfigure: hand next (owned) to the root, which rebuilds the
     * controller on it once the current replies are out; NULL: no
     * reconfiguring */
    void (*reconfigure)(void *arg, struct conf *next);
    void *reconf_arg;
    struct rpc_debug *debug; /* SET_DEBUG's, reset by RECONFIGURE */
};

struct rpc {
    const struct rpc_env *env;
    struct conn *conn;
    const struct proto_frame *req;
    struct auth_id who;
    /* Per-job requests (job_rpc.c): refusals are counted and logged once
     * per request, so that "scancel -u other" over many jobs is one line,
     * not one per job. */
    size_t n_refused;
    uint64_t first_refused; /* the first refused job's id */
    struct err first_refusal;
};

typedef int (*rpc_fn)(struct rpc *r, json_t **reply, struct err *e);

/* job_rpc.c */
int rpc_submit(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_cancel(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_hold(struct rpc *r, json_t **reply, struct err *e);
/* JOB_SUSPEND, JOB_RESUME: scontrol suspend/resume (operators only). */
int rpc_job_suspend(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_resume(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_release(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_update(struct rpc *r, json_t **reply, struct err *e);
/* JOB_REQUEUE: scontrol requeue/requeuehold. */
int rpc_job_requeue(struct rpc *r, json_t **reply, struct err *e);
/* conf_rpc.c: CONFIG_QUERY, RECONFIGURE */
int rpc_config_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_reconfigure(struct rpc *r, json_t **reply, struct err *e);
/* SET_DEBUG: scontrol setdebug LEVEL (administrators). */
int rpc_set_debug(struct rpc *r, json_t **reply, struct err *e);
/* JOB_COMPLETE: an allocation's end from its owner or an operator. */
int rpc_job_complete(struct rpc *r, json_t **reply, struct err *e);
/* preempt_rpc.c */
int rpc_job_checkpoint(struct rpc *r, json_t **reply, struct err *e);

/* jobacct_rpc.c */
int rpc_job_acct(struct rpc *r, json_t **reply, struct err *e);

/* explain_rpc.c */
int rpc_job_explain(struct rpc *r, json_t **reply, struct err *e);

/* node_rpc.c */
int rpc_node_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_part_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_node_update(struct rpc *r, json_t **reply, struct err *e);
int rpc_part_update(struct rpc *r, json_t **reply, struct err *e);
int rpc_node_register(struct rpc *r, json_t **reply, struct err *e);
int rpc_node_heartbeat(struct rpc *r, json_t **reply, struct err *e);
int rpc_job_end(struct rpc *r, json_t **reply, struct err *e);

/* step_rpc.c */
int rpc_step_create(struct rpc *r, json_t **reply, struct err *e);
int rpc_step_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_step_cancel(struct rpc *r, json_t **reply, struct err *e);
int rpc_step_end(struct rpc *r, json_t **reply, struct err *e);
int rpc_step_usage(struct rpc *r, json_t **reply, struct err *e);

/* acct_rpc.c */
int rpc_acct_add(struct rpc *r, json_t **reply, struct err *e);
int rpc_acct_modify(struct rpc *r, json_t **reply, struct err *e);
int rpc_acct_delete(struct rpc *r, json_t **reply, struct err *e);
int rpc_acct_list(struct rpc *r, json_t **reply, struct err *e);

/* resv_rpc.c: scontrol create/update/delete (operators) and show
 * reservation */
int rpc_resv_create(struct rpc *r, json_t **reply, struct err *e);
int rpc_resv_update(struct rpc *r, json_t **reply, struct err *e);
int rpc_resv_delete(struct rpc *r, json_t **reply, struct err *e);
int rpc_resv_query(struct rpc *r, json_t **reply, struct err *e);

/* token_rpc.c: AUTH_TOKEN (scontrol token) */
int rpc_auth_token(struct rpc *r, json_t **reply, struct err *e);

/* sched_rpc.c */
int rpc_prio_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_share_query(struct rpc *r, json_t **reply, struct err *e);
int rpc_sched_diag(struct rpc *r, json_t **reply, struct err *e);

/*
 * rpc_dispatch: serves listen_ops.dispatch (net/listen.h; the root's
 * dispatch callback passes its env): the handler of req->type called with
 * env, req, conn and who.  An unknown or unserved type is refused with
 * ENOSYS or EOPNOTSUPP.
 */
int rpc_dispatch(const struct rpc_env *env, struct conn *conn,
                 const struct proto_frame *req, const struct auth_id *who,
                 json_t **reply, struct err *e);

#endif
