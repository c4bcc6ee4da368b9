/*
 * The preemption review behind `sluice report preemptions` and the
 * dashboard's /sluice/v1/preemptions (docs/rest-sluice.md): from
 * accounting jobs with their events (JOB_ACCT), per user, QOS and
 * partition: preemptions suffered and caused, GPU-hours (and CPU-hours)
 * lost between the last checkpoint (or start) and the kill, requeues,
 * the median time a requeued victim waited before running again, and the
 * users preempted in more than a share of their runs.  Pure: JSON in,
 * JSON out (docs/preemption.md).
 */
#ifndef SLUICE_PREEMPT_REPORT_H
#define SLUICE_PREEMPT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The default share of runs preempted above which a user is flagged. */
#define PREEMPT_REPORT_SHARE 0.3

/*
 * preempt_report_share: report_share=X of PreemptParameters (0 < X <= 1),
 * else PREEMPT_REPORT_SHARE.
 */
double preempt_report_share(const char *preempt_parameters);

/*
 * preempt_report_missing: the ids of preemptors named by the events of
 * jobs (an array of ACCT_JOB with events) that are not in jobs, as a new
 * array (possibly empty).
 */
json_t *preempt_report_missing(json_t *jobs);

/*
 * preempt_report_build: the report over jobs (ACCT_JOB objects with
 * events; preemptors are looked up among them), a new reference:
 * {"share": X, "totals": GROUP, "users": [GROUP...], "qos": [...],
 *  "partitions": [...]} where GROUP is {"name", "runs", "preempted",
 *  "caused", "requeues", "gpu_hours_lost", "cpu_hours_lost",
 *  "median_requeue_wait_s" (null when none), "preempted_share",
 *  "flagged" (users only)}, sorted by name.
 */
json_t *preempt_report_build(json_t *jobs, double share);

#endif
