/*
 * The controller's request table: which handler serves each message type
 * (rpc.h), and the dispatch that listen.c calls (through the root's
 * listen_ops.dispatch, with the handlers' rpc_env) for every request but
 * PING.
 */
#include "ctld/rpc/rpc.h"

#include <errno.h>

#include "common/clock.h"
#include "common/log.h"
#include "ctld/core/loop.h"
#include "ctld/core/stats.h"
#include "ctld/net/listen.h"

/*
 * Each message type: its handler, and whether it may change state.  A
 * request that may (W) is admitted first (loop_admit, core/loop.h): while
 * StateSaveLocation cannot take writes it is refused, ENOSPC or EROFS
 * with the reason, before its handler has changed anything in memory, and
 * node daemons send again what was refused (JOB_END, STEP_END,
 * NODE_REGISTER: docs/noded.md).  Reads, heartbeats (they record nothing)
 * and RECONFIGURE (a rebuild from the database, which writes nothing; it
 * may lower SluiceStateMinFree) are served all the same (R).
 * NODE_REGISTER admits itself (A) once it knows the node, so that the
 * refusal is signed for that node and reaches it.
 */
enum { R, W, A };

static const struct {
    rpc_fn fn;
    unsigned char writes;
} handlers[] = {
    [PROTO_MSG_SUBMIT] = {rpc_submit, W},
    [PROTO_MSG_JOB_QUERY] = {rpc_job_query, R},
    [PROTO_MSG_JOB_CANCEL] = {rpc_job_cancel, W},
    [PROTO_MSG_JOB_HOLD] = {rpc_job_hold, W},
    [PROTO_MSG_JOB_RELEASE] = {rpc_job_release, W},
    [PROTO_MSG_JOB_SUSPEND] = {rpc_job_suspend, W},
    [PROTO_MSG_JOB_RESUME] = {rpc_job_resume, W},
    [PROTO_MSG_JOB_UPDATE] = {rpc_job_update, W},
    [PROTO_MSG_JOB_REQUEUE] = {rpc_job_requeue, W},
    [PROTO_MSG_RECONFIGURE] = {rpc_reconfigure, R},
    [PROTO_MSG_CONFIG_QUERY] = {rpc_config_query, R},
    [PROTO_MSG_SET_DEBUG] = {rpc_set_debug, R},
    [PROTO_MSG_JOB_ACCT] = {rpc_job_acct, R},
    [PROTO_MSG_JOB_EXPLAIN] = {rpc_job_explain, R},
    [PROTO_MSG_NODE_QUERY] = {rpc_node_query, R},
    [PROTO_MSG_PART_QUERY] = {rpc_part_query, R},
    [PROTO_MSG_NODE_UPDATE] = {rpc_node_update, W},
    [PROTO_MSG_PART_UPDATE] = {rpc_part_update, W},
    [PROTO_MSG_NODE_REGISTER] = {rpc_node_register, A},
    [PROTO_MSG_NODE_HEARTBEAT] = {rpc_node_heartbeat, R},
    [PROTO_MSG_JOB_END] = {rpc_job_end, W},
    [PROTO_MSG_ACCT_ADD] = {rpc_acct_add, W},
    [PROTO_MSG_ACCT_MODIFY] = {rpc_acct_modify, W},
    [PROTO_MSG_ACCT_DELETE] = {rpc_acct_delete, W},
    [PROTO_MSG_ACCT_LIST] = {rpc_acct_list, R},
    [PROTO_MSG_PRIO_QUERY] = {rpc_prio_query, R},
    [PROTO_MSG_SHARE_QUERY] = {rpc_share_query, R},
    [PROTO_MSG_SCHED_DIAG] = {rpc_sched_diag, R},
    [PROTO_MSG_JOB_CHECKPOINT] = {rpc_job_checkpoint, W},
    [PROTO_MSG_STEP_CREATE] = {rpc_step_create, W},
    [PROTO_MSG_STEP_END] = {rpc_step_end, W},
    [PROTO_MSG_STEP_USAGE] = {rpc_step_usage, W},
    [PROTO_MSG_STEP_QUERY] = {rpc_step_query, R},
    [PROTO_MSG_STEP_CANCEL] = {rpc_step_cancel, W},
    [PROTO_MSG_JOB_COMPLETE] = {rpc_job_complete, W},
    [PROTO_MSG_RESV_CREATE] = {rpc_resv_create, W},
    [PROTO_MSG_RESV_UPDATE] = {rpc_resv_update, W},
    [PROTO_MSG_RESV_DELETE] = {rpc_resv_delete, W},
    [PROTO_MSG_RESV_QUERY] = {rpc_resv_query, R},
    [PROTO_MSG_AUTH_TOKEN] = {rpc_auth_token, R},
};

/* Whether req may change state: its type may, and it is not a trial
 * (sbatch --test-only, sacctmgr's dry run) or a signal (scancel -s: the
 * job's processes get it, nothing is recorded). */
static bool writes(const struct proto_frame *req)
{
    json_t *body = req->body;

    if (handlers[req->type].writes != W)
        return false;
    switch (req->type) {
    case PROTO_MSG_SUBMIT:
        return !json_is_true(
            json_object_get(json_object_get(body, "job"), "test_only"));
    case PROTO_MSG_ACCT_ADD:
    case PROTO_MSG_ACCT_MODIFY:
    case PROTO_MSG_ACCT_DELETE:
        return !json_is_true(json_object_get(body, "dry_run"));
    case PROTO_MSG_JOB_CANCEL:
        return json_integer_value(json_object_get(body, "signal")) == 0;
    default:
        return true;
    }
}

int rpc_dispatch(const struct rpc_env *env, struct conn *conn,
                 const struct proto_frame *req, const struct auth_id *who,
                 json_t **reply, struct err *e)
{
    struct rpc r = {.env = env, .conn = conn, .req = req, .who = *who};
    const char *name = proto_type_name(req->type);
    rpc_fn fn = NULL;
    int64_t t0;
    int rc, code;

    if (req->type < sizeof(handlers) / sizeof(handlers[0]))
        fn = handlers[req->type].fn;
    if (fn == NULL && name == NULL) {
        errno = ENOSYS;
        return err_set(e, "unknown message type %u", req->type);
    }
    if (fn == NULL) {
        errno = EOPNOTSUPP;
        return err_set(e, "sluicectld does not serve %s requests", name);
    }
    t0 = clock_mono_us();
    if (writes(req) && loop_admit(env->loop, e) < 0)
        rc = -1;
    else
        rc = fn(&r, reply, e);
    code = errno ? errno : EINVAL;
    stats_rpc(env->stats, req->type, clock_mono_us() - t0, rc < 0);
    if (rc < 0) {
        log_debug("peer=%s uid=%u type=%s error=\"%s\"",
                  conn != NULL ? listen_conn_peer(conn) : "http", r.who.uid,
                  name, e->text);
        errno = code;
        return -1;
    }
    return 0;
}
