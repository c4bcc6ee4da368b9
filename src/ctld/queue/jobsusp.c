/*
 * Suspending and resuming running jobs (docs/preemption.md): by an
 * operator (scontrol suspend/resume) or by preemption (PreemptMode=
 * SUSPEND), and the resume scheduler that wakes preempted jobs again as
 * soon as their CPUs are free.  A suspended job keeps its memory and GPUs
 * on its nodes and gives back its CPUs; its node freezes it (JOB_FREEZE).
 */
#include "ctld/acct/acct.h"
#include "ctld/queue/jobsusp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/queue/nodecmd.h"

/* Give back (suspend) or take again (resume) j's CPUs on its nodes. */
static void cpus(struct jobs *js, const struct job *j, bool take)
{
    struct nodes *ns = jobs_env(js)->nodes;

    for (size_t i = 0; i < j->n_alloc; i++) {
        if (take)
            nodes_alloc(ns, j->alloc[i], j->cpus_per_node, 0);
        else
            nodes_release(ns, j->alloc[i], j->cpus_per_node, 0);
    }
}

static int suspend(struct jobs *js, struct job *j, enum job_susp by,
                   uint64_t for_job, const char *detail, struct err *e)
{
    if (j->state != JOB_RUNNING || j->kill != JOB_KILL_NONE || !j->launched ||
        j->n_alloc == 0) {
        errno = EBUSY;
        return err_set(e, "Job is not running (or is being killed)");
    }
    if (nodecmd_freeze(jobs_nodecmd(js), j, true, e) < 0)
        return -1;
    cpus(js, j, false);
    j->state = JOB_SUSPENDED;
    jobs_suspended_add(js, 1);
    j->suspend_time = time(NULL);
    j->susp_by = by;
    j->susp_for = for_job;
    if (for_job != 0)
        job_set_reason_text(j, "Preempted by job %" PRIu64 "%s", for_job,
                            j->gpu_alloc ? ", keeps its GPUs" : "");
    else
        job_set_reason(j, "JobSuspended");
    log_info("job=%" PRIu64 " state=SUSPENDED %s", j->id, detail);
    loop_want_pass(jobs_env(js)->loop);
    return jobs_save_event(js, j, "suspend", detail, e);
}

static int resume(struct jobs *js, struct job *j, const char *detail,
                  struct err *e)
{
    time_t now = time(NULL);

    if (nodecmd_freeze(jobs_nodecmd(js), j, false, e) < 0)
        return -1;
    cpus(js, j, true);
    j->suspended_s = job_suspended_s(j, now);
    j->suspend_time = 0;
    j->state = JOB_RUNNING;
    jobs_suspended_add(js, -1);
    j->susp_by = JOB_SUSP_NONE;
    j->susp_for = 0;
    job_set_reason(j, NULL);
    log_info("job=%" PRIu64 " state=RUNNING resumed %s suspended_s=%" PRId64,
             j->id, detail, j->suspended_s);
    return jobs_save_event(js, j, "resume", detail, e);
}

int jobs_suspend(struct jobs *js, struct job *j, uid_t uid, struct err *e)
{
    char detail[48];

    if (!acct_is_operator(jobs_env(js)->acct, uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied: only an operator or "
                          "administrator may suspend jobs");
    }
    if (j->state == JOB_SUSPENDED) {
        errno = EALREADY;
        return err_set(e, "Job is already suspended");
    }
    snprintf(detail, sizeof(detail), "by uid %u", (unsigned)uid);
    return suspend(js, j, JOB_SUSP_ADMIN, 0, detail, e);
}

/* Whether j's CPUs are free again on every node of its allocation in
 * the model nodes (n of them), and its batch host is connected. */
static bool fits(struct jobs *js, const struct job *j,
                 const struct sched_node *nodes, size_t n)
{
    struct node *bh = nodes_get(jobs_env(js)->nodes, j->alloc[0]);

    if (bh->conn == NULL)
        return false;
    for (size_t i = 0; i < j->n_alloc; i++) {
        const struct sched_node *sn;
        if (j->alloc[i] >= n)
            return false;
        sn = &nodes[j->alloc[i]];
        if (sn->cpus_alloc + j->cpus_per_node > sn->cpus)
            return false;
    }
    return true;
}

int jobs_resume(struct jobs *js, struct job *j, uid_t uid, struct err *e)
{
    const struct jobs_env *env = jobs_env(js);
    char detail[48];

    if (!acct_is_operator(env->acct, uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied: only an operator or "
                          "administrator may resume jobs");
    }
    if (j->state != JOB_SUSPENDED) {
        errno = EBUSY;
        return err_set(e, "Job is not suspended");
    }
    /* the resume scheduler takes it from here, at once if its CPUs are
     * free, else as soon as they are (before pending jobs) */
    j->susp_by = JOB_SUSP_AUTO;
    job_set_reason(j, "Resuming");
    snprintf(detail, sizeof(detail), "resume asked by uid %u", (unsigned)uid);
    log_info("job=%" PRIu64 " %s", j->id, detail);
    loop_want_pass(env->loop);
    return jobs_save_event(js, j, NULL, NULL, e);
}

int jobs_preempt_suspend(struct jobs *js, struct job *j, uint64_t by_job,
                         struct err *e)
{
    char detail[96];

    snprintf(detail, sizeof(detail), "by job %" PRIu64 " mode=SUSPEND", by_job);
    if (suspend(js, j, JOB_SUSP_AUTO, by_job, detail, e) < 0)
        return -1;
    jobs_preempted_by(js, j, by_job);
    return jobs_save_event(js, j, "preempt", detail, e);
}

/* Resume order: partition tier, then priority (higher first), then the
 * one suspended first. */
static int resume_order(const void *a, const void *b, void *arg)
{
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;
    struct parts *ps = arg;
    uint32_t tx = parts_get(ps, x->part)->priority_tier;
    uint32_t ty = parts_get(ps, y->part)->priority_tier;

    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->suspend_time != y->suspend_time)
        return x->suspend_time < y->suspend_time ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

size_t jobs_resume_due(struct jobs *js, struct sched_node *nodes, size_t n,
                       struct job ***would)
{
    const struct jobs_env *env = jobs_env(js);
    struct job **list = NULL;
    size_t cnt = 0, cap = 0, done = 0;
    struct err e;

    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        if (j->state != JOB_SUSPENDED || j->susp_by != JOB_SUSP_AUTO ||
            j->n_alloc == 0)
            continue;
        if (cnt == cap)
            list = xreallocarray(list, cap = cap ? cap * 2 : 8, sizeof(*list));
        list[cnt++] = j;
    }
    if (cnt > 1)
        qsort_r(list, cnt, sizeof(*list), resume_order, env->parts);
    for (size_t k = 0; k < cnt; k++) {
        struct job *j = list[k];
        if (!fits(js, j, nodes, n))
            continue;
        if (would != NULL) {
            list[done] = j; /* done <= k: the list is reused */
        } else if (resume(js, j, "its CPUs are free again", &e) < 0) {
            log_warnx("job=%" PRIu64 " resume: %s", j->id, e.text);
            continue;
        }
        for (size_t i = 0; i < j->n_alloc; i++)
            nodes[j->alloc[i]].cpus_alloc += j->cpus_per_node;
        done++;
    }
    if (would != NULL && done > 0) {
        *would = list;
        return done;
    }
    if (would != NULL)
        *would = NULL;
    free(list);
    return done;
}

bool jobs_any_resumable(struct jobs *js)
{
    if (jobs_suspended(js) == 0)
        return false;
    for (struct job *j = jobs_first(js); j != NULL; j = j->next)
        if (j->state == JOB_SUSPENDED && j->susp_by == JOB_SUSP_AUTO)
            return true;
    return false;
}

void jobs_refreeze(struct jobs *js, struct job *j)
{
    struct err e;

    if (j->state == JOB_SUSPENDED &&
        nodecmd_freeze(jobs_nodecmd(js), j, true, &e) < 0)
        log_warnx("job=%" PRIu64 " freeze again: %s", j->id, e.text);
}
