/*
 * Job priorities and fair-share usage in the controller (docs/scheduling.md,
 * "In the daemon"): drives the pure core of src/sched/prio.h and
 * fairshare.h from the jobs, the configuration and the accounting model.
 *
 * Each pending job carries its priority and its factors (struct job
 * .priority, .factors), recomputed on the job table's events (submit,
 * hold, release, requeue, update...: prio_drv_events; a change of the
 * accounting model, seen by acct_generation at the next pass:
 * prio_drv_sync) and on the PriorityCalcPeriod timer, never per
 * scheduling decision.  Usage, billed
 * TRES x seconds x the QOS UsageFactor, is charged from running jobs on
 * the timer and when a job ends, decayed by PriorityDecayHalfLife, reset
 * by PriorityUsageResetPeriod, and kept in the fs_usage table.
 */
#ifndef SLUICE_CTLD_PRIO_DRV_H
#define SLUICE_CTLD_PRIO_DRV_H

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"
#include "ctld/queue/jobs.h"

struct acct;
struct conf;
struct event_base;
struct job;
struct loop;
struct persist;
struct prio_drv;

/* What the priorities work on: all borrowed, all outliving it. */
struct prio_drv_src {
    const struct conf *conf;
    struct event_base *base; /* the PriorityCalcPeriod timer */
    struct loop *loop;       /* usage writes; passes asked for */
    struct persist *persist; /* the usage rows */
    struct acct *acct;       /* associations and QOS */
    struct jobs *jobs;
};

/*
 * prio_drv_create: from src->conf (PriorityWeight*, PriorityFlags,
 * partitions' TRESBillingWeights) with usage loaded from src->persist;
 * computes the priority of every pending job in src->jobs once and arms
 * the PriorityCalcPeriod timer; src is copied.  NULL with e naming the
 * bad setting.  prio_drv_destroy accepts NULL.
 */
struct prio_drv *prio_drv_create(const struct prio_drv_src *src, struct err *e);
void prio_drv_destroy(struct prio_drv *p);

/* prio_drv_eligible: j accrues age now (pending, not held, past its
 * begin time, not stuck over a partition's MaxTime, its dependency met). */
bool prio_drv_eligible(const struct job *j, time_t now);

/*
 * prio_drv_events: what a prio_drv hears of the job table, subscribed
 * with jobs_subscribe(js, &prio_drv_events, p) once the jobs are loaded
 * (prio_drv_create has computed their priorities).  job_event (any change
 * of a job: submit, hold, release, start, requeue, begin time reached,
 * update...) folds the job's accrual and, if it is pending, recomputes its
 * priority, which is saved with the job's record; job_ended charges the
 * usage of a job leaving its nodes.
 */
extern const struct jobs_events prio_drv_events;

/* prio_drv_sync: before a pass: recompute every pending job's priority if
 * the accounting model changed since the last computation. */
void prio_drv_sync(struct prio_drv *p, time_t now);

/* prio_drv_refresh: the timer's work (charge, decay, reset, save, recompute
 * all, schedule; the first four wait while the state directory takes no
 * writes); public for tests. */
void prio_drv_refresh(struct prio_drv *p, time_t now);

/*
 * The replies of PRIO_QUERY and SHARE_QUERY (docs/protocol.md), new
 * references.  req may filter: "job_ids", "users" (arrays), "accounts".
 */
json_t *prio_drv_prio_json(struct prio_drv *p, json_t *req, time_t now);
json_t *prio_drv_share_json(struct prio_drv *p, json_t *req);

/* One association of the fair-share tree as sshare shows it. */
struct prio_share {
    const char *account; /* a user's association: the account it is under */
    const char *user;    /* NULL for an account */
    double shares_norm;  /* its share of the machine, [0,1] */
    double usage_raw;    /* decayed billed seconds, its own and its
                            descendants' */
    double usage_eff;    /* effective usage (Fair Tree: normalised) */
    double fairshare;    /* a user's fair-share factor, [0,1]; NAN for an
                            account */
    double level_fs;     /* Fair Tree's level (INFINITY without usage);
                            NAN with the classic algorithm */
};

/*
 * prio_drv_share_each: fn(arg, s) for every association of the tree,
 * after prio_drv_sync (s and its strings borrowed for the call).
 */
void prio_drv_share_each(struct prio_drv *p, time_t now,
                         void (*fn)(void *arg, const struct prio_share *s),
                         void *arg);

#endif
