/*
 * Allocation jobs' ends (joballoc.h): JOB_COMPLETE, the end of an srun
 * allocation's step 0, and the settling of an allocation being killed
 * once its steps are gone.
 */
#include "ctld/queue/joballoc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "common/log.h"
#include "ctld/queue/jobs.h"

int joballoc_settle(struct jobs *js, struct job *j, time_t now, struct err *e)
{
    struct job_end r = {.end = now};

    if (j->alloc_kind == JOB_ALLOC_NONE || !job_on_node(j->state) ||
        j->kill == JOB_KILL_NONE)
        return 0;
    if (j->steps_live > 0 && (j->kill_deadline == 0 || now < j->kill_deadline))
        return 0;
    if (j->steps_live > 0)
        log_warnx("job=%" PRIu64 " allocation ends with %u steps not "
                  "reported ended",
                  j->id, j->steps_live);
    if (j->kill == JOB_KILL_COMPLETE) {
        r.exit_code = j->exit_code;
        r.signal = j->exit_signal;
    }
    return jobs_ended(js, j, &r, e);
}

/* Kill j (being ended as how says) on its nodes when a step of it still
 * runs there, save it, and end it when nothing runs. */
static int kill_and_settle(struct jobs *js, struct job *j, const char *why,
                           struct err *e)
{
    if (j->steps_live > 0)
        jobs_kill(js, j, why);
    log_info("job=%" PRIu64 " allocation ending why=%s steps=%u", j->id, why,
             j->steps_live);
    if (jobs_save_event(js, j, NULL, NULL, e) < 0)
        return -1;
    return joballoc_settle(js, j, time(NULL), e);
}

int joballoc_complete(struct jobs *js, struct job *j, uid_t uid, int exit_code,
                      struct err *e)
{
    if (!jobs_may_act(js, j, uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (j->alloc_kind == JOB_ALLOC_NONE)
        return err_inval(e,
                         "job %" PRIu64 " is not an allocation: it ends "
                         "with its batch script",
                         j->id);
    if (exit_code < -64 || exit_code > 255)
        return err_inval(e,
                         "JOB_COMPLETE: exit_code %d is not 0..255 or a "
                         "signal -1..-64",
                         exit_code);
    if (job_state_final(j->state) ||
        (job_on_node(j->state) && j->kill != JOB_KILL_NONE))
        return 0;
    if (j->state == JOB_PENDING)
        return jobs_cancel(js, j, uid, 0, e);
    j->kill = JOB_KILL_COMPLETE;
    j->exit_code = exit_code >= 0 ? exit_code : 0;
    j->exit_signal = exit_code >= 0 ? 0 : -exit_code;
    return kill_and_settle(js, j, "completed", e);
}

void joballoc_step0_ended(struct jobs *js, struct job *j, enum job_state st,
                          int exit_code, int signal, const char *reason)
{
    const char *why = "completed";
    struct err e;

    if (j->alloc_kind != JOB_ALLOC_SRUN || !job_on_node(j->state))
        return;
    if (j->kill != JOB_KILL_NONE) { /* its own end wins */
        joballoc_settle(js, j, time(NULL), &e);
        return;
    }
    switch (st) {
    case JOB_NODE_FAIL:
    case JOB_OUT_OF_MEMORY:
        j->exit_code = exit_code;
        j->exit_signal = signal;
        jobs_fail(js, j, st,
                  reason && *reason     ? reason
                  : st == JOB_NODE_FAIL ? "step 0 ended NODE_FAIL"
                                        : "OutOfMemory",
                  time(NULL), &e);
        return;
    case JOB_CANCELLED:
        j->kill = JOB_KILL_CANCEL;
        why = "cancelled";
        break;
    case JOB_TIMEOUT:
        j->kill = JOB_KILL_TIMEOUT;
        why = "timeout";
        break;
    default: /* COMPLETED, FAILED */
        j->kill = JOB_KILL_COMPLETE;
        j->exit_code = exit_code;
        j->exit_signal = signal;
        if (st == JOB_FAILED && exit_code == 0 && signal == 0)
            j->exit_code = 1;
        break;
    }
    kill_and_settle(js, j, why, &e);
}
