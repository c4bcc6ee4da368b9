/*
 * Job mail: --mail-type names and MailProg, run for a job's events the
 * way Slurm's controller runs it, without ever waiting on it.
 */
#include "ctld/job/mail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/job/job.h"

static const struct {
    const char *name;
    unsigned bit;
} mail_names[] = {
    {"BEGIN", JOB_MAIL_BEGIN},
    {"END", JOB_MAIL_END},
    {"FAIL", JOB_MAIL_FAIL},
    {"REQUEUE", JOB_MAIL_REQUEUE},
    {"INVALID_DEPEND", JOB_MAIL_INVALID_DEPEND},
    {"STAGE_OUT", JOB_MAIL_STAGE_OUT},
    {"TIME_LIMIT", JOB_MAIL_TIME_LIMIT},
    {"TIME_LIMIT_90", JOB_MAIL_TIME_LIMIT_90},
    {"TIME_LIMIT_80", JOB_MAIL_TIME_LIMIT_80},
    {"TIME_LIMIT_50", JOB_MAIL_TIME_LIMIT_50},
    {"ARRAY_TASKS", JOB_MAIL_ARRAY_TASKS},
};
#define N_NAMES (sizeof(mail_names) / sizeof(mail_names[0]))

/* ALL, as Slurm means it: every event but the array and time fractions */
#define MAIL_ALL                                                               \
    (JOB_MAIL_BEGIN | JOB_MAIL_END | JOB_MAIL_FAIL | JOB_MAIL_REQUEUE |        \
     JOB_MAIL_INVALID_DEPEND | JOB_MAIL_STAGE_OUT)

static int word_flags(const char *w, size_t n, unsigned *bits)
{
    if (n == 3 && strncasecmp(w, "ALL", 3) == 0) {
        *bits |= MAIL_ALL;
        return 0;
    }
    if (n == 4 && strncasecmp(w, "NONE", 4) == 0)
        return 0;
    for (size_t i = 0; i < N_NAMES; i++)
        if (strlen(mail_names[i].name) == n &&
            strncasecmp(w, mail_names[i].name, n) == 0) {
            *bits |= mail_names[i].bit;
            return 0;
        }
    return -1;
}

int mail_type_parse(const char *text, char **canon, struct err *e)
{
    unsigned bits = 0;
    size_t len = 0;
    char *out;

    *canon = NULL;
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n == 0 || word_flags(p, n, &bits) < 0) {
            errno = EINVAL;
            return err_set(e,
                           "invalid mail type \"%.*s\" (expected NONE, BEGIN, "
                           "END, FAIL, REQUEUE, ALL, INVALID_DEPEND, "
                           "STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, "
                           "TIME_LIMIT_80, TIME_LIMIT_50 or ARRAY_TASKS)",
                           (int)(n > 64 ? 64 : n), p);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (bits == 0)
        return 0;
    out = xcalloc(1, 200);
    for (size_t i = 0; i < N_NAMES; i++)
        if (bits & mail_names[i].bit)
            len += (size_t)sprintf(out + len, "%s%s", len ? "," : "",
                                   mail_names[i].name);
    *canon = out;
    return 0;
}

unsigned mail_type_flags(const char *canon)
{
    unsigned bits = 0;

    if (canon == NULL)
        return 0;
    for (const char *p = canon; *p != '\0';) {
        size_t n = strcspn(p, ",");
        (void)word_flags(p, n, &bits);
        p += n;
        if (*p == ',')
            p++;
    }
    return bits;
}

static bool failed(const struct job *j)
{
    return j->state != JOB_COMPLETED;
}

unsigned mail_wanted(const struct job *j, const char *what, bool array_first,
                     bool array_last)
{
    unsigned f = mail_type_flags(j->mail_type);
    bool task = j->array_job_id != 0, per_task = f & JOB_MAIL_ARRAY_TASKS;

    if (f == 0 || what == NULL)
        return 0;
    if (strcmp(what, "start") == 0)
        return (f & JOB_MAIL_BEGIN) && (!task || per_task || array_first)
                   ? JOB_MAIL_BEGIN
                   : 0;
    if (strcmp(what, "requeue") == 0)
        return f & JOB_MAIL_REQUEUE;
    if (strcmp(what, "timeout") == 0)
        return f & JOB_MAIL_TIME_LIMIT;
    if (!job_state_final(j->state))
        return 0;
    if (strcmp(what, "end") != 0 && strcmp(what, "fail") != 0 &&
        strcmp(what, "node_fail") != 0 && strcmp(what, "cancel") != 0)
        return 0;
    if (task && !per_task && !array_last)
        return 0;
    if ((f & JOB_MAIL_FAIL) && failed(j))
        return JOB_MAIL_FAIL;
    return f & JOB_MAIL_END;
}

unsigned mail_time_due(const struct job *j, time_t now, uint32_t div)
{
    static const struct {
        unsigned bit, pct;
    } marks[] = {{JOB_MAIL_TIME_LIMIT_90, 90},
                 {JOB_MAIL_TIME_LIMIT_80, 80},
                 {JOB_MAIL_TIME_LIMIT_50, 50}};
    unsigned f = mail_type_flags(j->mail_type);
    int64_t lim, ran;

    if (j->state != JOB_RUNNING || j->start_time == 0 ||
        j->time_limit_s == TIMEFMT_INFINITE || j->time_limit_s <= 0 ||
        (f & (JOB_MAIL_TIME_LIMIT_90 | JOB_MAIL_TIME_LIMIT_80 |
              JOB_MAIL_TIME_LIMIT_50)) == 0)
        return 0;
    lim = (j->time_limit_s + (div ? div : 1) - 1) / (div ? div : 1);
    ran = (int64_t)(now - j->start_time) - j->suspended_s;
    for (size_t i = 0; i < 3; i++) {
        if (!(f & marks[i].bit) || ran * 100 < lim * (int64_t)marks[i].pct)
            continue;
        /* one mail per mark; a higher mark sent covers the lower ones */
        for (size_t k = 0; k <= i; k++)
            if (j->mail_sent & marks[k].bit)
                return 0;
        return marks[i].bit;
    }
    return 0;
}

/* "Job_id=12", "Array Task Job_id=12_3 (14)", "Array Summary Job_id=12_*
 * (12)" */
static void who(const struct job *j, bool summary, char *buf, size_t len)
{
    if (j->array_job_id != 0 && summary)
        snprintf(buf, len, "Array Summary Job_id=%" PRIu64 "_* (%" PRIu64 ")",
                 j->array_job_id, j->array_job_id);
    else if (j->array_job_id != 0 && j->array_task_id >= 0)
        snprintf(buf, len,
                 "Array Task Job_id=%" PRIu64 "_%" PRId64 " (%" PRIu64 ")",
                 j->array_job_id, (int64_t)j->array_task_id, j->id);
    else
        snprintf(buf, len, "Job_id=%" PRIu64, j->id);
}

char *mail_subject(const struct job *j, unsigned event, time_t now,
                   bool array_summary)
{
    char id[96], t[TIMEFMT_BUFLEN];
    const char *name = j->name ? j->name : "";
    time_t start = j->start_time ? j->start_time : now;
    time_t end = j->end_time ? j->end_time : now;
    int64_t run = (int64_t)(end - start) - j->suspended_s;

    who(j, array_summary, id, sizeof(id));
    if (run < 0)
        run = 0;
    switch (event) {
    case JOB_MAIL_BEGIN:
        timefmt_format((int64_t)(start - j->submit_time), t, sizeof(t));
        return xasprintf("Slurm %s Name=%s Began, Queued time %s", id, name, t);
    case JOB_MAIL_END:
    case JOB_MAIL_FAIL:
        timefmt_format(run, t, sizeof(t));
        return xasprintf("Slurm %s Name=%s %s, Run time %s, %s, ExitCode %d",
                         id, name, event == JOB_MAIL_END ? "Ended" : "Failed",
                         t, job_state_name(j->state), j->exit_code);
    case JOB_MAIL_REQUEUE:
        timefmt_format(run, t, sizeof(t));
        return xasprintf("Slurm %s Name=%s Requeued, Run time %s", id, name, t);
    case JOB_MAIL_INVALID_DEPEND:
        return xasprintf("Slurm %s Name=%s Failed, Invalid dependency", id,
                         name);
    case JOB_MAIL_TIME_LIMIT:
        timefmt_format(run, t, sizeof(t));
        return xasprintf("Slurm %s Name=%s Reached time limit, Run time %s", id,
                         name, t);
    default: {
        int pct = event == JOB_MAIL_TIME_LIMIT_90   ? 90
                  : event == JOB_MAIL_TIME_LIMIT_80 ? 80
                                                    : 50;
        timefmt_format(run, t, sizeof(t));
        return xasprintf("Slurm %s Name=%s Reached %d%% of time limit, Run "
                         "time %s",
                         id, name, pct, t);
    }
    }
}

static const char *event_word(unsigned event)
{
    for (size_t i = 0; i < N_NAMES; i++)
        if (mail_names[i].bit == event)
            return mail_names[i].name;
    return "";
}

/* In the grandchild: the job's facts for MailProg, then exec it. */
static void mail_exec(const char *prog, const char *subject, const char *to,
                      const struct job *j, unsigned event)
{
    char *argv[] = {(char *)prog, (char *)"-s", (char *)subject, (char *)to,
                    NULL};
    char buf[64];
    int fd = open("/dev/null", O_RDWR);

    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
    }
    close_range(3, ~0U, 0);
    snprintf(buf, sizeof(buf), "%" PRIu64, j->id);
    setenv("SLURM_JOB_ID", buf, 1);
    setenv("SLURM_JOB_NAME", j->name ? j->name : "", 1);
    setenv("SLURM_JOB_USER", j->user_name ? j->user_name : "", 1);
    setenv("SLURM_JOB_STATE", job_state_name(j->state), 1);
    setenv("SLURM_JOB_MAIL_TYPE", event_word(event), 1);
    snprintf(buf, sizeof(buf), "%d", j->exit_code);
    setenv("SLURM_JOB_EXIT_CODE_MAX", buf, 1);
    execv(prog, argv);
    _exit(127);
}

int mail_send(const struct conf *conf, const struct job *j, unsigned event,
              time_t now, bool array_summary, struct err *e)
{
    const char *prog = conf->mail_prog != NULL && conf->mail_prog[0] != '\0'
                           ? conf->mail_prog
                           : CONF_MAIL_PROG_DEFAULT;
    const char *to = j->mail_user != NULL ? j->mail_user : j->user_name;
    char *subject = mail_subject(j, event, now, array_summary);
    pid_t pid;

    if (to == NULL || to[0] == '\0') {
        free(subject);
        errno = EINVAL;
        return err_set(e, "job %" PRIu64 " has no mail user", j->id);
    }
    /* the program is the controller's child, reaped by mail_reap on the
     * tick: never waited for here, and no orphan left for an init that
     * may not reap it */
    if ((pid = fork()) < 0) {
        free(subject);
        return err_set(e, "cannot fork for MailProg %s: %s", prog,
                       strerror(errno));
    }
    if (pid == 0) {
        setsid();
        mail_exec(prog, subject, to, j, event);
    }
    free(subject);
    return 0;
}

void mail_reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}
