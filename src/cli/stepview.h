/*
 * Job steps as the CLI shows them: the JOBID[.STEP] ids that scancel,
 * sacct and sstat take, squeue --steps's format letters over STEP objects
 * (docs/protocol.md, "Steps"), and scontrol show step's Key=Value record.
 */
#ifndef SLUICE_CLI_STEPVIEW_H
#define SLUICE_CLI_STEPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"

/* squeue --steps's default format, and the letters it knows for steps. */
#define STEPVIEW_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"
#define STEPVIEW_LETTERS "AiIjlMNPSuU"

/* No step given ("12"): the whole job. */
#define STEPVIEW_NONE (-1)

/* A parsed "12", "12.3", "12.batch", "12_4.1". */
struct stepview_id {
    char job[48];       /* the job part as given: "12", "12_4" */
    uint64_t job_id;    /* 12 */
    int64_t array_task; /* 4, or -1 */
    int64_t step_id;    /* 3, STEP_BATCH_ID, or STEPVIEW_NONE */
};

/*
 * stepview_id_parse: s as JOBID[_TASK][.STEP] where STEP is a number or
 * "batch".  -1 with EINVAL and e: "Invalid job id: 12.x" (the "extern"
 * step of Slurm does not exist here and says so).
 */
int stepview_id_parse(const char *s, struct stepview_id *out, struct err *e);
/* stepview_step_str: a step id as shown after the dot, "3" or "batch",
 * written into buf; returns buf. */
const char *stepview_step_str(int64_t step_id, char *buf, size_t len);

/* stepview_header: the squeue --steps column title of a letter. */
const char *stepview_header(char letter);

/* What one row of squeue --steps shows. */
struct stepview_row {
    json_t *step; /* borrowed STEP object */
    time_t now;
};
/* stepview_value: letter of a struct stepview_row (ctx); fits
 * fmt_value_fn. */
const char *stepview_value(char letter, const void *ctx, char *buf, size_t len);

/* stepview_sort: by job id, then step id (the batch step after srun's). */
void stepview_sort(json_t *steps);

/* stepview_elapsed: seconds the step has run (to its end, or now). */
long long stepview_elapsed(json_t *step, time_t now);

/* stepview_show: one STEP as "StepId=12.0 UserId=...\n   State=...". */
void stepview_show(FILE *fp, json_t *step, bool oneliner);

#endif
