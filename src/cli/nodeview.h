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

#define NODEVIEW_LETTERS "aAbBcCdDeEfFgGhHIlLmMnNoOpPrRsStTuUvVwXYZz"
/* sinfo's formats ("%#P": as wide as the widest name, fmt_spec_fit) */
#define NODEVIEW_FORMAT "%#P %.5a %.10l %.6D %.6t %N"
#define NODEVIEW_FORMAT_LONG                                                   \
    "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define NODEVIEW_FORMAT_SUMMARY "%#P %.5a %.10l %.16F %N"
#define NODEVIEW_FORMAT_NODE "%#N %.6D %#P %6t"
#define NODEVIEW_FORMAT_NODE_LONG                                              \
    "%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
#define NODEVIEW_FORMAT_REASONS "%20E %9u %19H %N"
#define NODEVIEW_FORMAT_REASONS_LONG "%20E %12U %19H %6t %N"

/* sinfo -O fields without a letter (codes below ' '). */
enum {
    NV_X_ALLOC_MEM = 1,
    NV_X_GRES_USED,
    NV_X_PORT,
    NV_X_COMMENT,
};

/* nodeview_field_code: sinfo -O's name ("GresUsed", any case; len bytes)
 * to the letter or code nodeview_value takes, -1 when unknown.  Fits
 * fmt_name_fn. */
int nodeview_field_code(const char *name, size_t len);

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
