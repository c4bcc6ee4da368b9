/*
 * Job selections as squeue and scancel take them (-j, -u, -p, -t, -n, -w),
 * checked here, sent as the lists of JOB_QUERY and JOB_CANCEL, and
 * applied again to the reply so that the CLI shows exactly what was asked.
 */
#ifndef SLUICE_CLI_JOBFILTER_H
#define SLUICE_CLI_JOBFILTER_H

#include <stdbool.h>

#include <jansson.h>

#include "common/err.h"

enum jobfilter_kind {
    JOBFILTER_IDS,        /* "5,7": integers */
    JOBFILTER_USERS,      /* names, or uids for numeric arguments */
    JOBFILTER_PARTITIONS, /* names */
    JOBFILTER_STATES,     /* PD,R,... or long names; "all" */
    JOBFILTER_NAMES,      /* job names */
    JOBFILTER_NODES,      /* a hostlist expression */
};

/* Lists are NULL until something is added; all owned by the filter. */
struct jobfilter {
    json_t *job_ids, *users, *partitions, *states, *names, *nodes;
    bool all_states; /* -t all */
};

/* jobfilter_clear: release every list (the filter may be reused). */
void jobfilter_clear(struct jobfilter *f);

/*
 * jobfilter_add: add the comma-separated items of arg to the list of
 * kind.  -1 with EINVAL and e: "invalid job id \"x\"", "invalid user
 * \"nobody2\"", an invalid state or hostlist.
 */
int jobfilter_add(struct jobfilter *f, enum jobfilter_kind kind,
                  const char *arg, struct err *e);

/* jobfilter_empty: nothing selected (no list, no -t all). */
bool jobfilter_empty(const struct jobfilter *f);

/* jobfilter_request: the lists as a request body ("job_ids", "users",
 * ...); new object. */
json_t *jobfilter_request(const struct jobfilter *f);

/* jobfilter_match: whether job passes every list of f. */
bool jobfilter_match(const struct jobfilter *f, json_t *job);

#endif
