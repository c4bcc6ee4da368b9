/*
 * Drives the pure scheduler core (src/sched) from the controller's state:
 * builds the pass model (model.h) from nodes, partitions and jobs, calls
 * sched_pass, and applies the decisions: started jobs go RUNNING and
 * their JOB_LAUNCH goes to the batch node; waiting jobs get their reason.
 *
 * Passes are asked for by events (loop_want_pass) and run in the flush
 * event, at most one per loop iteration.  When passes get expensive (over
 * 5 ms, a long queue), a pass waits until four times its predecessor's
 * duration has passed, so that scheduling never takes more than a fifth of
 * the controller's time.
 */
#ifndef SLUICE_CTLD_SCHED_DRV_H
#define SLUICE_CTLD_SCHED_DRV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"
#include "sched/sched.h"

struct conf;
struct event_base;
struct jlimits;
struct job;
struct jobs;
struct loop;
struct model;
struct nodecmd;
struct nodes;
struct parts;
struct preempt_drv;
struct prio_drv;
struct sched_drv;
struct sched_stats;

/* What the driver works on: all borrowed, all outliving it. */
struct sched_drv_src {
    const struct conf *conf;
    struct event_base *base;
    struct loop *loop; /* kicked for deferred passes and slices */
    struct parts *parts;
    struct nodes *nodes;
    struct jobs *jobs;
    struct jlimits *limits;
    struct nodecmd *nodecmd; /* JOB_LAUNCH of started jobs */
    struct model *model;     /* what a pass is built from */
    struct preempt_drv *preempt;
    struct prio_drv *prio;
};

/* sched_drv_create: never NULL; src is copied (the root makes the model,
 * the preemption and the priorities first). */
struct sched_drv *sched_drv_create(const struct sched_drv_src *src);
void sched_drv_destroy(struct sched_drv *s);

/* sched_drv_want: a pass is needed (run by the next sched_drv_run). */
void sched_drv_want(struct sched_drv *s);
bool sched_drv_wanted(const struct sched_drv *s);
/* sched_drv_run: run the pass if one is wanted and due. */
void sched_drv_run(struct sched_drv *s, time_t now);
/* sched_drv_unpaced: from now on every wanted pass runs at once (no pause
 * after an expensive pass) and a backfill slice is bounded by jobs only,
 * never by time — for in-process tests, whose outcome must not depend on
 * how fast the machine is at the moment. */
void sched_drv_unpaced(struct sched_drv *s);
/* sched_drv_pace_us: how long (µs) a pass wanted at now_us waits after
 * one that ended at last_end_us having used last_cpu_us of CPU: 0 after
 * a cheap one (5 ms or less), else until four times its CPU time has
 * passed since it ended, so that passes keep at most a fifth of the
 * controller's CPU.  CPU time, not wall time: on a busy host a pass's
 * wall time also counts the other processes that had the CPU meanwhile,
 * and holding passes back the more the busier the host delays every
 * start (a prod job's among them) for nothing. */
int64_t sched_drv_pace_us(int64_t last_end_us, int64_t last_cpu_us,
                          int64_t now_us);

/*
 * sched_drv_test: for --test-only: could j start now on the nodes as they
 * are?  {"job_id": 0, "would_start": bool, "node_list": .., "reason": ..,
 * "partition": ..}, a new reference.
 */
json_t *sched_drv_test(struct sched_drv *s, const struct job *j);

/* Where a job submitted with "immediate" starts (sched_drv_place). */
struct sched_drv_place {
    size_t *nodes; /* conf node indices, the batch host first */
    size_t nnodes;
    uint32_t *gpus; /* registered GPU indices per node; NULL: none */
};

/*
 * sched_drv_place: SUBMIT "immediate": could j (pending, parsed, not yet
 * in the table) start now?  One pass over the model a real pass would
 * see (limits, what preemptors hold, suspended jobs about to resume) with
 * j alone in it and first in line; it preempts nobody.  0 with *pl
 * filled (free with sched_drv_place_clear), or -1 with EAGAIN and e
 * "Unable to allocate resources: Requested nodes are busy" (or the
 * reason: JobHeldUser, BeginTime, Dependency, PartitionTimeLimit, a
 * limit, PartitionDown...).
 */
int sched_drv_place(struct sched_drv *s, struct job *j, time_t now,
                    struct sched_drv_place *pl, struct err *e);
void sched_drv_place_clear(struct sched_drv_place *pl);
/* sched_drv_start: start j (now in the table, pending) where pl says, in
 * this iteration, and launch it as a pass does (JOB_LAUNCH, or nothing
 * for an allocation). */
void sched_drv_start(struct sched_drv *s, struct job *j,
                     const struct sched_drv_place *pl, time_t now);

/* sched_drv_stats: the statistics sdiag shows, for GET /metrics
 * (borrowed). */
const struct sched_stats *sched_drv_stats(const struct sched_drv *s);

/* sched_drv_diag: the SCHED_DIAG reply (docs/protocol.md), a new
 * reference. */
json_t *sched_drv_diag(struct sched_drv *s, time_t now);

#endif
