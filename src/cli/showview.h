/*
 * scontrol show's Key=Value layout for jobs, nodes and partitions: the
 * first line at the margin, the rest indented three spaces, or all on one
 * line with -o.
 */
#ifndef SLUICE_CLI_SHOWVIEW_H
#define SLUICE_CLI_SHOWVIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

/* showview_job: one JOB as "JobId=42 JobName=x\n   UserId=..."; detail
 * (scontrol -d) adds DerivedExitCode. */
void showview_job(FILE *fp, json_t *job, time_t now, bool oneliner, int detail);
/* showview_node: one NODE ("NodeName=node01 ..."). */
void showview_node(FILE *fp, json_t *node, bool oneliner);
/* showview_part: one PART ("PartitionName=prod ..."). */
void showview_part(FILE *fp, json_t *part, bool oneliner);

/*
 * showview_stdpath: a job's output path as scontrol shows it: pattern
 * (NULL: "slurm-%j.out") with %j %A (id), %x (name), %u (user), %N (batch
 * host) and %% replaced, made absolute against the work directory.
 * Writes into buf; returns buf.
 */
char *showview_stdpath(json_t *job, const char *pattern, char *buf, size_t len);

/* showview_underscores: s with each blank as '_' (scontrol's Reason=),
 * into buf (cut to len); returns buf. */
char *showview_underscores(const char *s, char *buf, size_t len);
/* showview_upper: s in capitals into buf (cut to len); returns buf. */
char *showview_upper(const char *s, char *buf, size_t len);

#endif
