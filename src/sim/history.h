/*
 * Sluice's own accounting history as a workload: the jobs of `sacct
 * --json=sluice` ({"jobs": [...]}) or of JOB_ACCT replies (the same JOB
 * objects), each submitted when it was, asking for what it asked, and
 * running as long as its last run lasted (a preempted and requeued job
 * ran to its end the last time).  Jobs that never ran, or still run, are
 * skipped.
 */
#ifndef SLUICE_SIM_HISTORY_H
#define SLUICE_SIM_HISTORY_H

#include <jansson.h>

#include "common/err.h"
#include "sim/trace.h"

/*
 * sim_history_jobs: the JOB objects of jobs (an array) into out, with
 * every start recorded (events) kept for the fidelity comparison
 * (sim_history_starts).  Returns 0; -1 with EINVAL and e "NAME: job 12:
 * submit_time: expected a number" for an object without what the replay
 * needs.
 */
int sim_history_jobs(json_t *jobs, struct sim_trace *out, struct err *e);

/* sim_history_parse: the text buf of the file name ({"jobs": [...]}, or
 * the array itself) into out. */
int sim_history_parse(const char *buf, size_t len, const char *name,
                      struct sim_trace *out, struct err *e);

#endif
