/*
 * Job dependencies (sbatch -d/--dependency): the expression parsed, and
 * judged from facts about the jobs it names.  Pure: the controller
 * gathers the facts (job states) when a job it indexes changes state and
 * asks here what they mean; singleton is left to a scheduler counter.
 */
#ifndef SLUICE_SCHED_DEPEND_H
#define SLUICE_SCHED_DEPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

enum dep_type {
    DEP_AFTER,      /* the jobs began (or were cancelled), + minutes */
    DEP_AFTERANY,   /* the jobs ended, in any state */
    DEP_AFTEROK,    /* the jobs ended COMPLETED */
    DEP_AFTERNOTOK, /* the jobs ended, not all COMPLETED */
    DEP_AFTERCORR,  /* task N after task N of the other array, OK */
    DEP_SINGLETON,  /* one running job per name and user */
};

#define DEP_ALL_TASKS (-1)

struct dep_clause {
    enum dep_type type;
    uint64_t job_id;  /* 0 for singleton */
    int64_t task;     /* "123_4": 4; DEP_ALL_TASKS for "123" */
    uint32_t minutes; /* after:ID+minutes */
};

struct depend {
    struct dep_clause *v; /* owned */
    size_t n;
    bool any; /* '?': any clause suffices; ',': all must hold */
};

/*
 * depend_parse: "afterok:12:13_4,afterany:14", "after:5+10?afternotok:6",
 * "singleton".  -1 with EINVAL and e naming the bad part; out untouched
 * then.  Free with depend_clear.
 */
int depend_parse(const char *s, struct depend *out, struct err *e);
void depend_clear(struct depend *d);
/* depend_format: the canonical text (caller frees). */
char *depend_format(const struct depend *d);
bool depend_has(const struct depend *d, enum dep_type type);
const char *depend_type_name(enum dep_type t);

/* What is known of the jobs (or array tasks) one clause names. */
struct dep_facts {
    bool known;        /* false: gone from the controller (counts as met) */
    uint32_t total;    /* jobs or tasks named */
    uint32_t begun;    /* started, or ended without starting */
    uint32_t ended;    /* in a final state */
    uint32_t ok;       /* ended COMPLETED */
    time_t last_begin; /* the latest start (or end) among the begun */
};

enum dep_result { DEP_WAIT, DEP_MET, DEP_NEVER };

/*
 * depend_clause_eval: what f means for c at now.  An after+minutes whose
 * jobs have begun but whose minutes have not passed waits, and *recheck
 * (when not NULL) is lowered to when it will be met.
 */
enum dep_result depend_clause_eval(const struct dep_clause *c,
                                   const struct dep_facts *f, time_t now,
                                   time_t *recheck);
/* depend_combine: the clauses' results (n of them, d's order) joined by
 * d's operator. */
enum dep_result depend_combine(const struct depend *d,
                               const enum dep_result *each);

#endif
