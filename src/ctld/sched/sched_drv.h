/*
 * Drives the pure scheduler core (src/sched) from the controller's state:
 * builds a struct sched_cluster from nodes, partitions and pending jobs,
 * calls sched_pass, and applies the decisions: started jobs go RUNNING and
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

#include "sched/sched.h"

struct ctld;
struct job;
struct sched_drv;

struct sched_drv *sched_drv_create(struct ctld *c);
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

/*
 * sched_drv_test: for --test-only: could j start now on the nodes as they
 * are?  {"job_id": 0, "would_start": bool, "node_list": .., "reason": ..,
 * "partition": ..}, a new reference.
 */
json_t *sched_drv_test(struct sched_drv *s, const struct job *j);

/* sched_drv_diag: the SCHED_DIAG reply (docs/protocol.md), a new
 * reference. */
json_t *sched_drv_diag(struct sched_drv *s, time_t now);

/*
 * The model a pass is built from, for passes that only ask "what if"
 * (explain_sim.c).  sched_drv_model_parts: the partitions as they are now
 * (owned by s, valid until the next pass); sched_drv_model_nodes: the
 * nodes, *used their GPU bitmaps (the caller frees both);
 * sched_drv_model_job: j as the pass sees it.
 */
const struct sched_part *sched_drv_model_parts(struct sched_drv *s);
struct sched_node *sched_drv_model_nodes(struct sched_drv *s, uint64_t **used);
struct sched_job sched_drv_model_job(struct sched_drv *s, const struct job *j);
/* sched_drv_model_hold: what the real pass does to its model before it
 * runs: resources freed by preemption victims kept for their preemptors
 * (preempt_drv_hold; changes only cl and sj). */
void sched_drv_model_hold(struct sched_drv *s, struct sched_cluster *cl,
                          struct sched_job *sj, size_t n);
/* sched_drv_victims: the jobs preempted for job and not yet gone (ids, a
 * new array; empty when none). */
json_t *sched_drv_victims(struct sched_drv *s, uint64_t job);

#endif
