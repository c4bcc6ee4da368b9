/*
 * JOB_EXPLAIN (`sluice explain JOBID`): the job from memory or, once
 * finished and gone from it, from the database; the EXPLAIN object is
 * built by explain_job (sched/explain.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "ctld/core/persist.h"
#include "ctld/job/job.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"
#include "ctld/sched/explain.h"

/* A finished job the controller no longer holds in memory. */
static struct job *from_history(const struct rpc_env *env, uint64_t id)
{
    char *rec = persist_job_record(env->persist, id, NULL);
    json_t *o = rec ? json_loads(rec, 0, NULL) : NULL;
    struct job *j = o ? job_from_json(o, env->conf, NULL) : NULL;

    json_decref(o);
    free(rec);
    return j;
}

int rpc_job_explain(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *v = json_object_get(r->req->body, "job_id");
    struct job *j, *old = NULL;
    uint64_t id;

    if (!json_is_integer(v) || json_integer_value(v) < 1) {
        err_set(e, "job_id: expected a job id (integer >= 1)");
        errno = EINVAL;
        return -1;
    }
    id = (uint64_t)json_integer_value(v);
    j = jobs_find(r->env->jobs, id);
    if (j == NULL)
        j = old = from_history(r->env, id);
    if (j == NULL) {
        err_set(e, "Invalid job id specified");
        errno = ENOENT;
        return -1;
    }
    *reply = explain_job(r->env->explain, j, time(NULL));
    job_free(old);
    return 0;
}
