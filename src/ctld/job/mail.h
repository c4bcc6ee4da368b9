/*
 * Job mail (--mail-type, --mail-user): the Slurm mail type names, and
 * MailProg run for a job's events as Slurm runs it ("MailProg -s SUBJECT
 * USER"), detached from the controller's loop.
 */
#ifndef SLUICE_CTLD_JOB_MAIL_H
#define SLUICE_CTLD_JOB_MAIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

struct conf;
struct job;

/* The mail types, as bits of job->mail_sent and of mail_type_flags. */
enum {
    JOB_MAIL_BEGIN = 1u << 0,
    JOB_MAIL_END = 1u << 1,
    JOB_MAIL_FAIL = 1u << 2,
    JOB_MAIL_REQUEUE = 1u << 3,
    JOB_MAIL_INVALID_DEPEND = 1u << 4,
    JOB_MAIL_STAGE_OUT = 1u << 5,
    JOB_MAIL_TIME_LIMIT = 1u << 6,
    JOB_MAIL_TIME_LIMIT_90 = 1u << 7,
    JOB_MAIL_TIME_LIMIT_80 = 1u << 8,
    JOB_MAIL_TIME_LIMIT_50 = 1u << 9,
    JOB_MAIL_ARRAY_TASKS = 1u << 10,
};

/*
 * mail_type_parse: a --mail-type value ("BEGIN,end", "ALL", "NONE") into
 * *canon, Slurm's names in Slurm's order, comma-separated ("BEGIN,END";
 * NULL for NONE; caller frees).  -1 with EINVAL and e naming the word
 * that is not a mail type.
 */
int mail_type_parse(const char *text, char **canon, struct err *e);

/* mail_type_flags: the JOB_MAIL_* bits of a canonical list (NULL: 0). */
unsigned mail_type_flags(const char *canon);

/*
 * mail_subject: the subject of the mail for event (one JOB_MAIL_* bit)
 * of j at now, as Slurm words it: "Slurm Job_id=12 Name=train Began,
 * Queued time 00:00:01".  array_summary: the mail speaks for the whole
 * array ("Slurm Array Summary Job_id=12_* (12) ...").  Caller frees.
 */
char *mail_subject(const struct job *j, unsigned event, time_t now,
                   bool array_summary);

/*
 * mail_send: run conf's MailProg (CONF_MAIL_PROG_DEFAULT when unset) as
 * "MailProg -s SUBJECT RECIPIENT" for event of j, the recipient being
 * j's mail_user or else its user's name, with SLURM_JOB_* in its
 * environment.  The program runs in a session of its own and nothing
 * waits for it: mail_reap collects it once it has ended.  0, or -1 with
 * e when the fork failed.
 */
int mail_send(const struct conf *conf, const struct job *j, unsigned event,
              time_t now, bool array_summary, struct err *e);

/*
 * mail_wanted: the events of j's transition "what" (a jobs_events
 * name) that j's mail types ask for, given whether j is an array task
 * that speaks for its array (first to start, last to end).  0: none.
 */
unsigned mail_wanted(const struct job *j, const char *what, bool array_first,
                     bool array_last);

/*
 * mail_time_due: the TIME_LIMIT_50/80/90 bit j has reached at now (the
 * highest one not yet in j->mail_sent that its mail types ask for), or 0.
 * div shortens the limit as the controller's test divisor does.
 */
unsigned mail_time_due(const struct job *j, time_t now, uint32_t div);

/* mail_reap: collect the MailProg processes that have ended (the
 * controller has no other children); called on the controller's tick. */
void mail_reap(void);

#endif
