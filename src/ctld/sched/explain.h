/*
 * `sluice explain JOBID` (JOB_EXPLAIN): why a job is not running, in full.
 * For a pending job every obstacle — node by node of its partition (busy
 * until when, what it lacks, down or drained and why, excluded by -x, not
 * in the partition), its place in the queue and who is ahead, a limit
 * with the numbers, holds, begin time — its estimated start, and what
 * would let it start sooner, each found by running the scheduler's own
 * pass with that one change (explain_sim.h).  For a running job where and
 * since when; for a finished one its end.  The EXPLAIN object is in
 * docs/protocol.md; the CLI turns it into text.
 */
#ifndef SLUICE_CTLD_EXPLAIN_H
#define SLUICE_CTLD_EXPLAIN_H

#include <stdint.h>
#include <time.h>

#include <jansson.h>

struct acct;
struct conf;
struct explain;
struct job;
struct jobs;
struct model;
struct nodes;
struct parts;
struct preempt_drv;
struct resvs;

/* How many jobs ahead, nodes' causes and suggested partitions are listed
 * at most (the counts are always complete). */
#define EXPLAIN_AHEAD_MAX 5

/* What explain reads: all borrowed, all outliving it. */
struct explain_src {
    const struct conf *conf;
    struct acct *acct; /* may j's user use another partition */
    struct parts *parts;
    struct nodes *nodes;
    struct jobs *jobs;
    struct model *model;         /* the what-if passes (explain_sim.h) */
    struct preempt_drv *preempt; /* whom a pending job is preempting */
    struct resvs *resv;          /* reservations keeping nodes (may be NULL) */
    uint32_t time_divisor;       /* tests only: time limits divided by it
                                    (0 counts as 1) */
};

/* explain_create: never NULL; src is copied.  explain_destroy accepts
 * NULL. */
struct explain *explain_create(const struct explain_src *src);
void explain_destroy(struct explain *x);

/* explain_job: the EXPLAIN object for j at now (new reference). */
json_t *explain_job(struct explain *x, struct job *j, time_t now);

/*
 * explain_nodes (explain_node.c): the "nodes" array of a pending job's
 * EXPLAIN object: each node of its partition, and each -w node outside
 * it, with its status and what it lacks (new reference).
 */
json_t *explain_nodes(struct explain *x, const struct job *j);

#endif
