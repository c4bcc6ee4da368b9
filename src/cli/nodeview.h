/*
 * Nodes and partitions as sinfo shows them: node states in sinfo's short
 * and long words, sinfo's format letters, and the grouping of nodes into
 * rows (one per partition and set of equal shown attributes).
 */
#ifndef SLUICE_CLI_NODEVIEW_H
#define SLUICE_CLI_NODEVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cli/fmt.h"

#define NODEVIEW_LETTERS "aCcDEFGHlmNPRTtu"
#define NODEVIEW_FORMAT "%9P %.5a %.10l %.6D %.6t %N"
#define NODEVIEW_FORMAT_LONG "%9P %.5a %.10l %.6D %.11T %N"
#define NODEVIEW_FORMAT_SUMMARY "%9P %.5a %.10l %.16F  %N"
#define NODEVIEW_FORMAT_REASONS "%20E %9u %19H %N"

/* nodeview_state_short: sinfo's %t ("idle", "mix", "drain", "down*"). */
const char *nodeview_state_short(json_t *node);
/* nodeview_state_long: sinfo's %T ("idle", "mixed", "drained"). */
const char *nodeview_state_long(json_t *node);
/* nodeview_state_match: whether node is in state word s as sinfo -t takes
 * it (short or long, any case; "drain" also matches draining). */
bool nodeview_state_match(json_t *node, const char *s);
/* nodeview_state_valid: s is a state word sinfo -t knows. */
bool nodeview_state_valid(const char *s);

/* nodeview_header: the column title of a letter ("PARTITION"). */
const char *nodeview_header(char letter);

/* One row: a partition (NULL for -R) and the nodes it covers. */
struct nodeview_row {
    json_t *part;  /* borrowed PART, or NULL */
    json_t *nodes; /* array of borrowed NODEs */
};

/* nodeview_value: the text of letter for a struct nodeview_row (ctx);
 * fits fmt_value_fn. */
const char *nodeview_value(char letter, const void *ctx, char *buf, size_t len);

/*
 * nodeview_group: append to rows (an array of rows, each a JSON object
 * {"part": PART|null, "nodes": [NODE..]}) the groups of nodes that show
 * the same text for every non-aggregate field of sp; per_node puts each
 * node in its own row.  Order: as the nodes come.
 */
void nodeview_group(json_t *rows, json_t *part, json_t *nodes,
                    const struct fmt_spec *sp, bool per_node);

#endif
