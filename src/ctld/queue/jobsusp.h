/*
 * Suspend and resume of running jobs: scontrol suspend/resume, the
 * SUSPEND preemption mode and the resume scheduler (jobsusp.c).
 *
 *   RUNNING --suspend (operator, or preempted)--> SUSPENDED
 *   SUSPENDED --resume (its CPUs free again)--> RUNNING
 *
 * A SUSPENDED job keeps its memory and GPUs on its nodes and gives back
 * its CPUs; the time it spends suspended extends its time limit.  It may
 * be cancelled, and ends as any running job when its node reports so.
 */
#ifndef SLUICE_CTLD_JOBSUSP_H
#define SLUICE_CTLD_JOBSUSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "ctld/queue/jobs.h"
#include "sched/sched.h"

/*
 * jobs_suspend: an operator (uid) suspends running j: JOB_FREEZE to its
 * node, its CPUs released, a "suspend" event.  Only an operator resumes
 * it.  -1 with EPERM (not an operator), EBUSY (not running, being killed
 * or not yet launched), EALREADY or EHOSTUNREACH and e.
 */
int jobs_suspend(struct jobs *js, struct job *j, uid_t uid, struct err *e);

/*
 * jobs_resume: an operator asks for suspended j to run again: it is
 * resumed by the resume scheduler in this loop iteration when its CPUs
 * are free, else as soon as they are, before any pending job starts on
 * them.  -1 with EPERM or EBUSY (not suspended) and e.
 */
int jobs_resume(struct jobs *js, struct job *j, uid_t uid, struct err *e);

/*
 * jobs_preempt_suspend: preemption with PreemptMode=SUSPEND: j is
 * suspended for job by_job ("suspend" and "preempt" events) and resumed
 * automatically once its CPUs are free again.  -1 with errno and e as
 * jobs_suspend.
 */
int jobs_preempt_suspend(struct jobs *js, struct job *j, uint64_t by_job,
                         struct err *e);

/*
 * jobs_resume_due: the resume scheduler: resume every suspended job that
 * may resume (preempted, or asked for by an operator) whose CPUs are free
 * in the model nodes (n of them, indexed as the controller's nodes, with
 * the preemptors' holds applied), highest tier and priority first; the
 * CPUs of those resumed are charged to nodes.  How many were resumed.
 * With would (a what-if), nobody is resumed: *would gets those that
 * would be, a new array the caller frees (NULL when none).
 */
size_t jobs_resume_due(struct jobs *js, struct sched_node *nodes, size_t n,
                       struct job ***would);

/* jobs_any_resumable: some suspended job waits for its CPUs. */
bool jobs_any_resumable(struct jobs *js);

/* jobs_refreeze: j is SUSPENDED and its node registered: freeze it again
 * (the node may have lost the freeze across a restart; harmless if not). */
void jobs_refreeze(struct jobs *js, struct job *j);

#endif
