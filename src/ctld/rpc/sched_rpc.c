/*
 * PRIO_QUERY (sprio), SHARE_QUERY (sshare) and SCHED_DIAG (sdiag, with
 * whether StateSaveLocation takes writes), as docs/protocol.md describes
 * them.  Everyone may ask; nothing changes.
 */
#include <errno.h>
#include <time.h>

#include "ctld/sched/prio_drv.h"
#include "ctld/core/statedir.h"
#include "ctld/core/stats.h"
#include "ctld/rpc/rpc.h"
#include "ctld/sched/sched_drv.h"

/* Filters are matched against every job (jobs x elements): bounded. */
#define FILTER_LIST_MAX 1000

static int check_filters(json_t *body, struct err *e)
{
    static const char *const keys[] = {"job_ids", "users", "accounts"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_t *v = json_object_get(body, keys[i]);
        if (v != NULL && !json_is_null(v) && !json_is_array(v)) {
            errno = EINVAL;
            return err_set(e, "%s: expected an array", keys[i]);
        }
        if (json_array_size(v) > FILTER_LIST_MAX) {
            errno = EINVAL;
            return err_set(e, "%s: %zu elements, at most %d", keys[i],
                           json_array_size(v), FILTER_LIST_MAX);
        }
    }
    return 0;
}

int rpc_prio_query(struct rpc *r, json_t **reply, struct err *e)
{
    if (check_filters(r->req->body, e) < 0)
        return -1;
    *reply = prio_drv_prio_json(r->env->prio, r->req->body, time(NULL));
    return 0;
}

int rpc_share_query(struct rpc *r, json_t **reply, struct err *e)
{
    if (check_filters(r->req->body, e) < 0)
        return -1;
    *reply = prio_drv_share_json(r->env->prio, r->req->body);
    return 0;
}

int rpc_sched_diag(struct rpc *r, json_t **reply, struct err *e)
{
    (void)e;
    *reply = sched_drv_diag(r->env->sched, time(NULL));
    if (r->env->statedir != NULL)
        json_object_set_new(*reply, "state", statedir_json(r->env->statedir));
    json_object_set_new(*reply, "auth_refused",
                        stats_refused_json(r->env->stats));
    return 0;
}
