/*
 * Job step requests (docs/protocol.md, "Steps"): STEP_CREATE from srun,
 * STEP_QUERY and STEP_CANCEL from clients, STEP_END and STEP_USAGE from
 * node daemons.  The step table (queue/steps.h) does the work.
 */
#include <errno.h>
#include <inttypes.h>

#include "common/log.h"
#include "ctld/cluster/nodes.h"
#include "ctld/net/listen.h"
#include "ctld/queue/steps.h"
#include "ctld/rpc/rpc.h"

int rpc_step_create(struct rpc *r, json_t **reply, struct err *e)
{
    return steps_new(r->env->steps, r->req->body, &r->who, reply, e);
}

int rpc_step_query(struct rpc *r, json_t **reply, struct err *e)
{
    return steps_query(r->env->steps, r->req->body, reply, e);
}

int rpc_step_cancel(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *body = r->req->body;
    json_t *job = json_object_get(body, "job_id");
    json_t *step = json_object_get(body, "step_id");
    json_t *sig = json_object_get(body, "signal");

    (void)reply;
    if (!json_is_integer(job) || !json_is_integer(step) ||
        json_integer_value(step) < 0 || json_integer_value(step) > UINT32_MAX ||
        (sig != NULL && !json_is_integer(sig)) || json_integer_value(sig) < 0 ||
        json_integer_value(sig) > 64)
        return err_inval(e, "STEP_CANCEL: job_id and step_id must be "
                            "integers, signal 0-64");
    return steps_cancel(r->env->steps, (uint64_t)json_integer_value(job),
                        (uint32_t)json_integer_value(step),
                        (int)json_integer_value(sig), r->who.uid, e);
}

/* A node daemon's report: from uid 0 or the controller's uid, on the
 * connection of the node it names (as JOB_END).  The node, seen now when
 * the report came on its own connection, or NULL. */
static struct node *reporting_node(struct rpc *r, struct err *e)
{
    const char *name = json_string_value(json_object_get(r->req->body, "node"));
    struct node *n;

    if (r->who.uid != 0 && r->who.uid != r->env->self_uid) {
        errno = EPERM;
        err_set(e,
                "Access/permission denied: %s messages are accepted only "
                "from uid 0 or the controller's uid",
                proto_type_name(r->req->type));
        return NULL;
    }
    if (name == NULL) {
        err_inval(e, "%s: \"node\" is missing", proto_type_name(r->req->type));
        return NULL;
    }
    if ((n = nodes_find(r->env->nodes, name)) == NULL) {
        errno = ENOENT;
        err_set(e, "node \"%.64s\" is not in the configuration", name);
        return NULL;
    }
    if (listen_conn_node(r->conn) >= 0 &&
        (size_t)listen_conn_node(r->conn) != n->idx) {
        errno = EPERM;
        err_set(e,
                "%s for node %.64s refused: this connection is another "
                "node's",
                proto_type_name(r->req->type), name);
        return NULL;
    }
    if (n->conn == r->conn)
        nodes_seen(r->env->nodes, n, time(NULL));
    return n;
}

int rpc_step_end(struct rpc *r, json_t **reply, struct err *e)
{
    struct node *n = reporting_node(r, e);

    (void)reply;
    if (n == NULL)
        return -1;
    return steps_end(r->env->steps, n->idx, r->req->body, e);
}

int rpc_step_usage(struct rpc *r, json_t **reply, struct err *e)
{
    struct node *n = reporting_node(r, e);

    (void)reply;
    if (n == NULL)
        return -1;
    return steps_usage(r->env->steps, n->idx, r->req->body, e);
}
