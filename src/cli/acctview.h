/*
 * sacct's view of a job: its fields by Slurm's names and widths (JobID,
 * State, ExitCode, AllocTRES, MaxRSS, TotalCPU, ...), the rows of a job
 * and of its steps (12.batch, 12.0, ...), in Slurm's columns or -p/-P
 * (printed by fmt_tab, fmt.h).
 */
#ifndef SLUICE_CLI_ACCTVIEW_H
#define SLUICE_CLI_ACCTVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "cli/fmt.h"
#include "common/err.h"

#define ACCTVIEW_DEFAULT                                                       \
    "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define ACCTVIEW_BRIEF "JobID,State,ExitCode"
#define ACCTVIEW_LONG                                                          \
    "JobID,JobIDRaw,JobName,Partition,Account,QOS,User,Submit,Eligible,"       \
    "Start,End,Elapsed,Timelimit,NNodes,AllocCPUS,ReqTRES,AllocTRES,State,"    \
    "ExitCode,Restarts,NodeList"

/*
 * One row at time now: a job (step and rec NULL), one of its STEP records
 * (rec, from the job's "steps"), or, for a record without "steps" (a
 * controller before job steps), its batch step made from the job's own
 * values (step "batch").
 */
struct acctview_row {
    json_t *job; /* a record of JOB_ACCT */
    const char *step;
    time_t now;
    json_t *rec;    /* a STEP of the job's "steps", or NULL */
    bool noconvert; /* --noconvert: usage memory in KiB, disk in bytes */
};

struct acctview_col {
    int field; /* index into the field table */
    int width;
};

struct acctview_spec {
    struct acctview_col *cols;
    struct fmt_col *tab; /* the same columns for fmt_tab */
    size_t n;
    const char *delim; /* --delimiter with -p/-P (NULL: "|") */
};

/*
 * acctview_spec_parse: "JobID,State%20,..." (names any case; %N sets the
 * width).  -1 with EINVAL and e naming an unknown field.  Free with
 * acctview_spec_free.
 */
int acctview_spec_parse(const char *s, struct acctview_spec *out,
                        struct err *e);
void acctview_spec_free(struct acctview_spec *sp);

/* acctview_fields: the field names, comma-separated (for --helpformat). */
const char *acctview_fields(void);

/* acctview_header: the header line (and, in columns, the dashes). */
void acctview_header(FILE *fp, const struct acctview_spec *sp,
                     enum fmt_tab_mode mode);
/* acctview_print: one row. */
void acctview_print(FILE *fp, const struct acctview_spec *sp,
                    enum fmt_tab_mode mode, const struct acctview_row *r);

/* acctview_value: field f of row r as text (buf or a constant). */
const char *acctview_value(int f, const struct acctview_row *r, char *buf,
                           size_t len);
/* acctview_field: the index of a field name, or -1. */
int acctview_field(const char *name);

/* acctview_state: "COMPLETED", "CANCELLED by 0", ... of a row. */
const char *acctview_state(const struct acctview_row *r, char *buf, size_t len);

/* acctview_has_batch: whether the job ran a batch step (it started). */
bool acctview_has_batch(json_t *job);
/* acctview_steps: the job's STEP records (borrowed), or NULL when the
 * record has none ("steps" absent). */
json_t *acctview_steps(json_t *job);

/*
 * acctview_incarnations: the job as sacct -D shows it: one record per run
 * ended by a requeue (its state PREEMPTED, NODE_FAIL or REQUEUED, its
 * start, end, nodes and exit status from the job's "start" and "requeue"
 * events, the steps that ran then), then the job itself with only the
 * steps of its last run; without dups only that last one.  New array of
 * new objects.
 */
json_t *acctview_incarnations(json_t *job, bool dups);

/* acctview_json: the --json object of one job (docs/cli.md); new. */
json_t *acctview_json(json_t *job, time_t now);

#endif
