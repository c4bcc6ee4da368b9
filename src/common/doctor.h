/*
 * sluice doctor's judgement (docs/doctor.md): facts about the running
 * cluster in, findings out.  The facts are the controller's replies,
 * gathered by the CLI into one object:
 *
 *   {"now": T,               the controller's clock (PING)
 *    "client_now": T,        this host's clock at the same moment
 *    "config": {"Key": "value", ...},  CONFIG_QUERY's pairs
 *    "state": {...},         PING's StateSaveLocation status
 *    "auth_refused": [...],  SCHED_DIAG's refused credentials
 *    "nodes": [NODE...], "partitions": [PART...],
 *    "jobs": [JOB...],       the pending and running jobs
 *    "qos": [QOS...],        ACCT_LIST qos
 *    "shares": [...],        SHARE_QUERY's shares
 *    "preemptions": REPORT,  preempt_report_build over the window
 *    "preempt_window_s": N}  that window
 *
 * A member that is absent skips the checks that need it, so that unit
 * tests drive each check with a small table of JSON.  Pure: no I/O, no
 * clock.
 */
#ifndef SLUICE_DOCTOR_H
#define SLUICE_DOCTOR_H

#include <jansson.h>

#include "common/conf.h"

/* A clock this many seconds off the controller's is a warning; this many
 * an error (credentials issued more than 60 s ahead are refused). */
#define DOCTOR_CLOCK_WARN_S 5
#define DOCTOR_CLOCK_ERROR_S 30
/* Free space under this many times SluiceStateMinFree is a warning. */
#define DOCTOR_FREE_FACTOR 4
/* The preemption review's window: PriorityDecayHalfLife's default. */
#define DOCTOR_PREEMPT_WINDOW_S (7 * 86400)

/* The checks in the order they run (a finding's "check"); NULL ends it. */
extern const char *const doctor_checks[];

/*
 * doctor_judge: the findings of facts appended to d, each with its
 * severity, where it is ("node node04", "partition prod",
 * "StateSaveLocation /var/spool/sluice/ctld", "peer 10.0.0.4", "user
 * zhangsan", "PriorityWeightQOS", "this host"), its check, what is wrong
 * and how to fix it (conf_diag_add_fix).
 */
void doctor_judge(json_t *facts, struct conf_diag *d);

/*
 * doctor_json: d as {"ok": bool (no error), "errors": [F..], "warnings":
 * [F..]}, F = {"check", "where", "message", "fix"}, the shape of
 * check-config's --json; a new reference.
 */
json_t *doctor_json(const struct conf_diag *d);

#endif
