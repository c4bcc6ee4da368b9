/*
 * RESV_CREATE, RESV_UPDATE, RESV_DELETE (operators only) and RESV_QUERY
 * (anyone): scontrol's reservations over the table of cluster/resv.h,
 * which learns here, from the job table, which nodes run jobs that will
 * still run at a reservation's start.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/acct/acct.h"
#include "ctld/cluster/resv.h"
#include "ctld/job/job.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"

/* resv_busy.busy: a job not of reservation resv holds node at time at
 * (its start plus its time limit and the time it spent suspended). */
static bool node_busy(void *arg, size_t node, time_t at, const char *resv)
{
    struct jobs *js = arg;

    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        bool here = false;
        if (!job_on_node(j->state))
            continue;
        if (resv != NULL && j->reservation != NULL &&
            strcmp(j->reservation, resv) == 0)
            continue;
        for (size_t i = 0; i < j->n_alloc && !here; i++)
            here = j->alloc[i] == node;
        if (!here)
            continue;
        if (j->time_limit_s == TIMEFMT_INFINITE ||
            j->start_time + job_suspended_s(j, at) + j->time_limit_s > at)
            return true;
    }
    return false;
}

static int operator_only(struct rpc *r, const char *what, struct err *e)
{
    if (acct_is_operator(r->env->acct, r->who.uid))
        return 0;
    errno = EPERM;
    log_info("uid=%u %s refused: not an operator", r->who.uid, what);
    return err_set(e,
                   "Access/permission denied: only an operator may %s a "
                   "reservation",
                   what);
}

int rpc_resv_create(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *spec = json_object_get(r->req->body, "reservation");
    struct resv_busy busy = {node_busy, r->env->jobs};
    const char *name;

    if (operator_only(r, "create", e) < 0)
        return -1;
    if (!json_is_object(spec))
        return err_inval(e, "RESV_CREATE: expected {\"reservation\": {...}}");
    if (resvs_add(r->env->resv, spec, &busy, time(NULL), &name, e) < 0)
        return -1;
    log_info("reservation=%s created by uid=%u", name, r->who.uid);
    *reply = json_pack("{s:s}", "name", name);
    return 0;
}

int rpc_resv_update(struct rpc *r, json_t **reply, struct err *e)
{
    const char *name = json_string_value(json_object_get(r->req->body, "name"));
    json_t *set = json_object_get(r->req->body, "set");
    struct resv_busy busy = {node_busy, r->env->jobs};

    (void)reply;
    if (operator_only(r, "update", e) < 0)
        return -1;
    if (name == NULL)
        return err_inval(e, "RESV_UPDATE: expected {\"name\": NAME, \"set\": "
                            "{...}}");
    if (resvs_update(r->env->resv, name, set, &busy, time(NULL), e) < 0)
        return -1;
    log_info("reservation=%s updated by uid=%u", name, r->who.uid);
    return 0;
}

int rpc_resv_delete(struct rpc *r, json_t **reply, struct err *e)
{
    const char *name = json_string_value(json_object_get(r->req->body, "name"));

    (void)reply;
    if (operator_only(r, "delete", e) < 0)
        return -1;
    if (name == NULL)
        return err_inval(e, "RESV_DELETE: expected {\"name\": NAME}");
    if (resvs_delete(r->env->resv, name, e) < 0)
        return -1;
    log_info("reservation=%s deleted by uid=%u", name, r->who.uid);
    return 0;
}

int rpc_resv_query(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *nv = json_object_get(r->req->body, "name");
    const char *name = json_string_value(nv);
    struct resvs *rs = r->env->resv;
    time_t now = time(NULL);
    json_t *out = json_array();

    if (nv != NULL && !json_is_null(nv) && name == NULL) {
        json_decref(out);
        return err_inval(e, "RESV_QUERY: \"name\" must be a string");
    }
    for (size_t i = 0; i < resvs_count(rs); i++) {
        const struct resv *v = resvs_get(rs, i);
        if (name == NULL || strcmp(name, v->name) == 0)
            json_array_append_new(out, resvs_to_json(rs, v, now));
    }
    if (name != NULL && json_array_size(out) == 0) {
        json_decref(out);
        errno = ENOENT;
        return err_set(e, "Reservation %.64s not found", name);
    }
    *reply = json_pack("{s:o}", "reservations", out);
    return 0;
}
