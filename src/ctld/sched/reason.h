/*
 * Why a pending job waits, in words a user can act on.  The scheduler core
 * says "Resources" or "every node that could run it is down"; this module
 * names the nodes of the job's partition that could hold the job but are
 * unavailable, and why (the node's reason: "gres/gpu count reported 0 <
 * configured 4 (...)", "Not responding", an admin's drain reason).  The
 * short form (state_reason, squeue's %R) stays Slurm's:
 * "ReqNodeNotAvail, UnavailableNodes:node04" or "Resources"; the long
 * form (state_description, scontrol show job's Reason=) adds the causes.
 */
#ifndef SLUICE_CTLD_REASON_H
#define SLUICE_CTLD_REASON_H

#include "sched/sched.h"

struct job;
struct nodes;
struct parts;
struct reason;

/* reason_create: parts and nodes are borrowed (they outlive it). */
struct reason *reason_create(struct parts *parts, struct nodes *nodes);
/* reason_destroy: accepts NULL. */
void reason_destroy(struct reason *w);

/* reason_begin: a new pass (the nodes may have changed): forget the
 * texts computed for the last one. */
void reason_begin(struct reason *w);

/* reason_set: give waiting job j the reason for r, with the unavailable
 * nodes named for SCHED_REASON_RESOURCES and SCHED_REASON_NODE_DOWN. */
void reason_set(struct reason *w, struct job *j, enum sched_reason r);

#endif
