/*
 * The node events behind "sacctmgr show events": each time a node is set
 * DOWN or DRAIN an event opens (its state, reason, who and when), and
 * closes when the node is resumed or changes again, as Slurm's
 * accounting records them.  Kept in the controller's database (table
 * acct_events, made on first use) so that they survive restarts.
 */
#ifndef SLUICE_CTLD_ACCT_EVENTS_H
#define SLUICE_CTLD_ACCT_EVENTS_H

#include <time.h>

#include <jansson.h>

#include "common/err.h"

struct persist;

/*
 * acct_events_node: node's admin state became state ("DOWN", "DRAIN";
 * "" for resumed) at now: its open event ends, and a new one opens unless
 * state is "".  user may be NULL (unknown).  Writes join the open
 * transaction (opened when none is).  -1 with e on a database error.
 */
int acct_events_node(struct persist *p, const char *node, const char *state,
                     const char *reason, const char *user, time_t now,
                     struct err *e);

/*
 * acct_events_list: {"events": [{"cluster", "node", "time_start",
 * "time_end" (0: still open), "state", "reason", "user"}]} oldest first,
 * those of where's Nodes= (a comma list) and States= only; new object,
 * or NULL with e.
 */
json_t *acct_events_list(struct persist *p, const char *cluster, json_t *where,
                         struct err *e);

#endif
