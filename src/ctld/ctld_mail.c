/*
 * Job mail wired into the controller: a subscriber of the job table that
 * runs MailProg for the events a job's --mail-type asks for (job/mail.c),
 * and the tick's share (TIME_LIMIT_50/80/90, INVALID_DEPEND).
 */
#include "ctld/ctld_mail.h"

#include <inttypes.h>
#include <string.h>

#include "common/log.h"
#include "ctld/job/job.h"
#include "ctld/job/mail.h"
#include "ctld/queue/jobs.h"

/* Whether no other task of j's array has started: j speaks for the
 * array's BEGIN. */
static bool array_first(struct jobs *js, const struct job *j)
{
    for (struct job *k = jobs_first(js); k != NULL; k = k->next)
        if (k != j && k->array_job_id == j->array_job_id && k->start_time != 0)
            return false;
    return true;
}

/* Whether every other task of j's array is final: j speaks for its END. */
static bool array_last(struct jobs *js, const struct job *j)
{
    for (struct job *k = jobs_first(js); k != NULL; k = k->next)
        if (k != j && k->array_job_id == j->array_job_id &&
            !job_state_final(k->state))
            return false;
    return true;
}

static void send_one(struct ctld *c, struct job *j, unsigned event, time_t when,
                     bool summary)
{
    struct err e;

    j->mail_sent |= (uint16_t)event;
    if (mail_send(c->conf, j, event, when, summary, &e) < 0)
        log_warnx("job=%" PRIu64 " mail not sent: %s", j->id, e.text);
    else
        log_info("job=%" PRIu64 " mail=%s to=%s", j->id,
                 event == JOB_MAIL_BEGIN     ? "BEGIN"
                 : event == JOB_MAIL_END     ? "END"
                 : event == JOB_MAIL_FAIL    ? "FAIL"
                 : event == JOB_MAIL_REQUEUE ? "REQUEUE"
                                             : "TIME_LIMIT",
                 j->mail_user ? j->mail_user : j->user_name);
}

static void on_job_event(void *arg, struct job *j, const char *what,
                         time_t when)
{
    struct ctld *c = arg;
    bool task = j->array_job_id != 0, first = false, last = false;
    unsigned ev;

    if (j->mail_type == NULL || what == NULL)
        return;
    if (task && strcmp(what, "start") == 0)
        first = array_first(c->jobs, j);
    else if (task)
        last = array_last(c->jobs, j);
    if ((ev = mail_wanted(j, what, first, last)) == 0)
        return;
    if (ev == JOB_MAIL_BEGIN && (j->mail_sent & JOB_MAIL_BEGIN))
        return; /* once a run */
    send_one(c, j, ev, when,
             task && !(mail_type_flags(j->mail_type) & JOB_MAIL_ARRAY_TASKS));
}

const struct jobs_events ctld_mail_events = {.job_event = on_job_event};

void ctld_mail_tick(struct ctld *c, time_t now)
{
    uint32_t div = c->time_divisor ? c->time_divisor : 1;
    unsigned ev;

    mail_reap();
    for (struct job *j = jobs_first(c->jobs); j != NULL; j = j->next) {
        if (j->mail_type == NULL)
            continue;
        if (j->state == JOB_PENDING && j->dep_state == DEP_NEVER &&
            (mail_type_flags(j->mail_type) & JOB_MAIL_INVALID_DEPEND) &&
            !(j->mail_sent & JOB_MAIL_INVALID_DEPEND)) {
            send_one(c, j, JOB_MAIL_INVALID_DEPEND, now, false);
            continue;
        }
        if ((ev = mail_time_due(j, now, div)) != 0)
            send_one(c, j, ev, now, false);
    }
}
