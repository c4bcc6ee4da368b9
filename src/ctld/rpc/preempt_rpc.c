/*
 * JOB_CHECKPOINT: a running job (its owner or an administrator, usually
 * `sluice checkpoint` inside the job) says it has just written a
 * checkpoint.  The time is kept with the job (persisted) and recorded as
 * a "checkpoint" event; victim choice counts lost work from it, and a
 * QOS with ExemptUntilCheckpoint stays exempt until the first one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"

int rpc_job_checkpoint(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *id = json_object_get(r->req->body, "job_id");
    time_t now = time(NULL);
    char detail[48];
    struct job *j;

    if (!json_is_integer(id) || json_integer_value(id) < 1) {
        errno = EINVAL;
        return err_set(e, "JOB_CHECKPOINT: job_id must be a positive integer");
    }
    j = jobs_find(r->env->jobs, (uint64_t)json_integer_value(id));
    if (j == NULL) {
        errno = ENOENT;
        return err_set(e, "Invalid job id specified");
    }
    if (!jobs_may_act(r->env->jobs, j, r->who.uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (j->state != JOB_RUNNING) {
        errno = EBUSY;
        return err_set(e, "Job %" PRIu64 " is not running (%s)", j->id,
                       job_state_name(j->state));
    }
    j->last_checkpoint = now;
    snprintf(detail, sizeof(detail), "by uid %u", (unsigned)r->who.uid);
    log_info("job=%" PRIu64 " checkpoint %s", j->id, detail);
    if (jobs_save_event(r->env->jobs, j, "checkpoint", detail, e) < 0)
        return -1;
    loop_want_pass(r->env->loop); /* a waiting job may preempt it now */
    *reply = json_pack("{s:I, s:I}", "job_id", (json_int_t)j->id,
                       "last_checkpoint", (json_int_t)now);
    return 0;
}
