/*
 * Jobs as squeue and scontrol show them: Slurm's state names and codes,
 * squeue's format letters over JOB objects (docs/protocol.md), the
 * default order, and the filters of squeue and scancel.
 */
#ifndef SLUICE_CLI_JOBVIEW_H
#define SLUICE_CLI_JOBVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"

/* The format letters squeue knows here. */
#define JOBVIEW_LETTERS "aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
/* squeue's default and --long formats. */
#define JOBVIEW_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define JOBVIEW_FORMAT_LONG "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"

/* jobview_state_code: "PD" for "PENDING" and so on; the name itself when
 * unknown. */
const char *jobview_state_code(const char *state);
/*
 * jobview_state_parse: a state as squeue -t and scancel -t take it ("pd",
 * "R", "pending", "completed", case-insensitive) to its JOB name
 * ("PENDING"), static.  NULL with EINVAL and e listing the valid ones.
 */
const char *jobview_state_parse(const char *s, struct err *e);
/* jobview_state_active: PENDING, RUNNING, COMPLETING, SUSPENDED: the
 * states squeue shows by default. */
bool jobview_state_active(const char *state);

/* jobview_header: the column title of a letter ("JOBID"). */
const char *jobview_header(char letter);

/* What one row of squeue shows. */
struct jobview_row {
    json_t *job; /* borrowed JOB object */
    time_t now;
};

/* jobview_value: the text of letter for a struct jobview_row (ctx); buf
 * holds it unless a static string is returned.  Fits fmt_value_fn. */
const char *jobview_value(char letter, const void *ctx, char *buf, size_t len);

/* jobview_field_code: squeue -O's name ("JobID", "tres-alloc", any case;
 * name is len bytes) to the code jobview_value and jobview_header take;
 * -1 when unknown.  Fits fmt_name_fn. */
int jobview_field_code(const char *name, size_t len);

/* jobview_oversubscribe: OverSubscribe= / %h: "OK", "NO" (--exclusive),
 * "USER", "MCS", "YES" (-s). */
const char *jobview_oversubscribe(json_t *job);
/* jobview_priority: the job's priority, 0 while it is held. */
long long jobview_priority(json_t *job);

/*
 * jobview_fields: the names of the JOB fields (a new array) that squeue
 * needs to show, sort and filter by the n codes (format letters and -O
 * codes of jobview_value): JOB_QUERY's "fields", so that the controller
 * sends those alone.  NULL when a code is not known here (then ask for
 * every field).
 */
json_t *jobview_fields(const char *codes, size_t n);

/* jobview_sort: sort the JOB array squeue's default way: partition, state
 * (pending first), priority (highest first), then job id. */
void jobview_sort(json_t *jobs);

/* Accessors that tolerate missing or null fields. */
const char *jobview_str(json_t *job, const char *key, const char *dflt);
long long jobview_int(json_t *job, const char *key, long long dflt);
/* jobview_elapsed: seconds the job has run (0 when it has not started). */
long long jobview_elapsed(json_t *job, time_t now);

/*
 * jobview_dependency: squeue's %E and scontrol's Dependency=: each job of
 * the canonical dependency with its state, "afterok:12(unfulfilled)",
 * "(failed)" once it can never be met; "(null)" when there is none left
 * (the job no longer waits for it).  In buf unless static.
 */
const char *jobview_dependency(json_t *job, char *buf, size_t len);

/* jobview_id: squeue's %i: "42", "123_4", "123_[5-99%10]" (in buf). */
const char *jobview_id(json_t *job, char *buf, size_t len);

#endif
