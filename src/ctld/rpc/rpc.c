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
#include "ctld/core/stats.h"
#include "ctld/net/listen.h"

static const rpc_fn handlers[] = {
    [PROTO_MSG_SUBMIT] = rpc_submit,
    [PROTO_MSG_JOB_QUERY] = rpc_job_query,
    [PROTO_MSG_JOB_CANCEL] = rpc_job_cancel,
    [PROTO_MSG_JOB_HOLD] = rpc_job_hold,
    [PROTO_MSG_JOB_RELEASE] = rpc_job_release,
    [PROTO_MSG_JOB_SUSPEND] = rpc_job_suspend,
    [PROTO_MSG_JOB_RESUME] = rpc_job_resume,
    [PROTO_MSG_JOB_UPDATE] = rpc_job_update,
    [PROTO_MSG_JOB_REQUEUE] = rpc_job_requeue,
    [PROTO_MSG_RECONFIGURE] = rpc_reconfigure,
    [PROTO_MSG_CONFIG_QUERY] = rpc_config_query,
    [PROTO_MSG_JOB_ACCT] = rpc_job_acct,
    [PROTO_MSG_JOB_EXPLAIN] = rpc_job_explain,
    [PROTO_MSG_NODE_QUERY] = rpc_node_query,
    [PROTO_MSG_PART_QUERY] = rpc_part_query,
    [PROTO_MSG_NODE_UPDATE] = rpc_node_update,
    [PROTO_MSG_PART_UPDATE] = rpc_part_update,
    [PROTO_MSG_NODE_REGISTER] = rpc_node_register,
    [PROTO_MSG_NODE_HEARTBEAT] = rpc_node_heartbeat,
    [PROTO_MSG_JOB_END] = rpc_job_end,
    [PROTO_MSG_ACCT_ADD] = rpc_acct_add,
    [PROTO_MSG_ACCT_MODIFY] = rpc_acct_modify,
    [PROTO_MSG_ACCT_DELETE] = rpc_acct_delete,
    [PROTO_MSG_ACCT_LIST] = rpc_acct_list,
    [PROTO_MSG_PRIO_QUERY] = rpc_prio_query,
    [PROTO_MSG_SHARE_QUERY] = rpc_share_query,
    [PROTO_MSG_SCHED_DIAG] = rpc_sched_diag,
    [PROTO_MSG_JOB_CHECKPOINT] = rpc_job_checkpoint,
    [PROTO_MSG_STEP_CREATE] = rpc_step_create,
    [PROTO_MSG_STEP_END] = rpc_step_end,
    [PROTO_MSG_STEP_USAGE] = rpc_step_usage,
    [PROTO_MSG_STEP_QUERY] = rpc_step_query,
    [PROTO_MSG_STEP_CANCEL] = rpc_step_cancel,
    [PROTO_MSG_JOB_COMPLETE] = rpc_job_complete,
    [PROTO_MSG_RESV_CREATE] = rpc_resv_create,
    [PROTO_MSG_RESV_UPDATE] = rpc_resv_update,
    [PROTO_MSG_RESV_DELETE] = rpc_resv_delete,
    [PROTO_MSG_RESV_QUERY] = rpc_resv_query,
    [PROTO_MSG_AUTH_TOKEN] = rpc_auth_token,
};

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
        fn = handlers[req->type];
    if (fn == NULL && name == NULL) {
        errno = ENOSYS;
        return err_set(e, "unknown message type %u", req->type);
    }
    if (fn == NULL) {
        errno = EOPNOTSUPP;
        return err_set(e, "sluicectld does not serve %s requests", name);
    }
    t0 = clock_mono_us();
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
