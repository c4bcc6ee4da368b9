/*
 * Preemption as the controller runs it (docs/preemption.md): after each
 * scheduling pass, for every job left waiting for Resources, the victims
 * it may preempt (PreemptType, PreemptMode of the victim's QOS or
 * partition, PreemptExemptTime) go to the pure core (sched/preempt.h),
 * and the chosen ones are signalled (GraceTime) to end PREEMPTED or be
 * requeued.  Until its victims have released their resources the
 * preemptor holds them: before each pass, what a dead victim freed is
 * marked used in the model so that no other job takes it, and the
 * preemptor preempts nothing more.  The pass that learns of the last
 * victim's end places the preemptor (the fast lane).
 */
#ifndef SLUICE_CTLD_PREEMPT_DRV_H
#define SLUICE_CTLD_PREEMPT_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"

struct acct;
struct conf;
struct event_base;
struct job;
struct jobs;
struct loop;
struct nodecmd;
struct nodes;
struct parts;
struct persist;
struct preempt_drv;
struct sched_cluster;
struct sched_node;
struct sched_job;
struct sched_result;
struct stats;

/* preempt_drv_exempt_until: when running job v may first be preempted
 * (0: at once; INT64_MAX: never). */
time_t preempt_drv_exempt_until(const struct preempt_drv *p,
                                const struct job *v);

/* What preemption works on: all borrowed, all outliving it. */
struct preempt_drv_src {
    const struct conf *conf;
    struct event_base *base;
    struct loop *loop;       /* passes asked for; the holds' writes */
    struct persist *persist; /* the holds' rows */
    struct acct *acct;       /* the QOS of victims and preemptors */
    struct parts *parts;
    struct nodes *nodes;
    struct jobs *jobs;
    struct nodecmd *nodecmd; /* the victims' warning signals */
    struct stats *stats;     /* preemptions counted (core/stats.h); may be
                                NULL */
};

/* preempt_drv_create: never NULL; src is copied; the holds are loaded
 * from src->persist.  A bad PreemptParameters is logged and the defaults
 * used.  preempt_drv_destroy accepts NULL. */
struct preempt_drv *preempt_drv_create(const struct preempt_drv_src *src);
void preempt_drv_destroy(struct preempt_drv *p);

/*
 * preempt_drv_reserve: for the resume scheduler: count the CPUs of
 * every preemptor still pending as used on the nodes it took victims on
 * (nodes, n of them), so that a suspended job does not resume onto what
 * its preemptor is about to take.
 */
void preempt_drv_reserve(struct preempt_drv *p, struct sched_node *nodes,
                         size_t n);

/*
 * preempt_drv_hold: before a pass on cl over the pending jobs sj (n, the
 * model of cl->jobs; task: per entry, the array task it stands for, -1
 * for a plain job; NULL: no tasks): mark what dead victims freed for preemptors still
 * waiting on other victims as used, and put preemptors whose victims
 * are all gone first in the pass (tier UINT32_MAX), so that they, and
 * nobody else, get what was taken for them.
 */
void preempt_drv_hold(struct preempt_drv *p, struct sched_cluster *cl,
                      struct sched_job *sj, const int64_t *task, size_t n);

/*
 * preempt_drv_due: some preemptor's victims are all gone and it waits for
 * the pass that starts it.  That pass skips the pause the controller
 * takes after an expensive pass (the fast lane), so the victim's end and
 * the preemptor's start go into one commit.
 */
bool preempt_drv_due(struct preempt_drv *p);

/*
 * preempt_drv_run: after the pass r on cl (the model as the pass left
 * it) over the pending jobs pend (cl->jobs is their model; task as for
 * preempt_drv_hold): preempt for the jobs that wait for Resources.  Holds
 * are per job, or per array task: each task of an array preempts for
 * itself.
 */
void preempt_drv_run(struct preempt_drv *p, struct sched_cluster *cl,
                     struct job **pend, const int64_t *task,
                     const struct sched_result *r, time_t now);

/* preempt_drv_victims: the ids of the jobs preempted for job that still
 * hold what it waits for (for sluice explain), a new array. */
json_t *preempt_drv_victims(struct preempt_drv *p, uint64_t job);

#endif
