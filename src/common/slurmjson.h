/*
 * Sluice's JSON objects (JOB, NODE, PART, ACCT_JOB of docs/protocol.md)
 * in Slurm 22.05's data_parser v0.0.38 shapes, the ones slurmrestd's
 * OpenAPI documents and squeue/sinfo/sacct/scontrol --json print, so that
 * tools written for Slurm's JSON read Sluice's.  Pure: no I/O, no CLI;
 * docs/json.md says which field comes from where.
 */
#ifndef SLUICE_COMMON_SLURMJSON_H
#define SLUICE_COMMON_SLURMJSON_H

#include <jansson.h>
#include <time.h>

#include "common/err.h"

/* What the objects do not carry themselves. */
struct slurmjson_ctx {
    const char *cluster; /* ClusterName; NULL or "" when unset */
    time_t now;          /* for the elapsed time of what still runs */
};

/* Which response: the controller's (openapi/v0.0.38) or slurmdbd's
 * (openapi/dbv0.0.38, sacct). */
enum slurmjson_plugin {
    SLURMJSON_CTLD,
    SLURMJSON_DBD,
};

/* slurmjson_meta: the response's "meta" object (new reference). */
json_t *slurmjson_meta(enum slurmjson_plugin plugin);

/*
 * slurmjson_response: {"meta", "errors": [], key: items}; items is
 * stolen (NULL: an empty array).  New reference.
 */
json_t *slurmjson_response(enum slurmjson_plugin plugin, const char *key,
                           json_t *items);

/*
 * The converters: job, node, part and acct_job are borrowed and not
 * changed; the result is a new reference.  Keys the Sluice object lacks
 * get Slurm's empty value of the field's type; what Slurm has no field
 * for goes under "sluice".
 */
/* slurmjson_job: a JOB as v0.0.38_job_info (squeue, scontrol show job). */
json_t *slurmjson_job(json_t *job, const struct slurmjson_ctx *ctx);
/* slurmjson_node: a NODE as v0.0.38_node (sinfo, scontrol show node). */
json_t *slurmjson_node(json_t *node, const struct slurmjson_ctx *ctx);
/* slurmjson_partition: a PART as v0.0.38_partition. */
json_t *slurmjson_partition(json_t *part, const struct slurmjson_ctx *ctx);
/* slurmjson_acct_job: an ACCT_JOB (with its steps) as dbv0.0.38_job. */
json_t *slurmjson_acct_job(json_t *job, const struct slurmjson_ctx *ctx);

/*
 * The controller's other objects (slurmjson_ctld.c), borrowed, into new
 * references.  slurmjson_reservation: a RESV as v0.0.38_reservation.
 */
json_t *slurmjson_reservation(json_t *resv);

/* The jobs' counts of v0.0.38_diag, counted over JOB objects. */
struct slurmjson_jobcount {
    json_int_t submitted, completed, canceled, failed, pending, running;
};
/* slurmjson_diag_count: count job (a JOB object) into c: pending,
 * running (also suspended), and, since `since` (the controller's start),
 * submitted, completed, cancelled and failed (every other final state). */
void slurmjson_diag_count(struct slurmjson_jobcount *c, json_t *job,
                          time_t since);
/* slurmjson_diag: SCHED_DIAG's reply and the counts as v0.0.38_diag's
 * "statistics" (the reply itself under "sluice"). */
json_t *slurmjson_diag(json_t *diag, const struct slurmjson_jobcount *c);

/*
 * The accounting objects of ACCT_LIST (slurmjson_acct.c) in slurmdbd's
 * dbv0.0.38 shapes; arguments borrowed, results new.  Limits go where
 * Slurm has a field for them (minutes for wall clocks, TRES lists), and
 * the Sluice record's own limits whole under "sluice".
 *
 * slurmjson_qos: a QOS as dbv0.0.38_qos.
 * slurmjson_assoc: an ASSOC as dbv0.0.38_association; all is the list it
 * came in (its parent's account is looked up there by parent_id).
 * slurmjson_user: a USER as dbv0.0.38_user, with its associations from
 * assocs (the ASSOC list).
 * slurmjson_account: an ACCOUNT as dbv0.0.38_account, with the account's
 * own associations (no user) from assocs.
 */
json_t *slurmjson_qos(json_t *qos);
json_t *slurmjson_assoc(json_t *assoc, json_t *all);
json_t *slurmjson_user(json_t *user, json_t *assocs);
json_t *slurmjson_account(json_t *account, json_t *assocs);

/*
 * slurmjson_tres_list: "cpu=2,mem=1G,node=1,gres/gpu=1" as Slurm's TRES
 * list [{"type": "cpu", "name": "", "id": 1, "count": 2}, ...] (mem in
 * MiB).  NULL or "" gives [].  New reference.
 */
json_t *slurmjson_tres_list(const char *tres);

/* slurmjson_comma_list: "MAINT,SPEC_NODES" as ["MAINT", "SPEC_NODES"]
 * (empty items left out; NULL is []).  New reference. */
json_t *slurmjson_comma_list(const char *s);

/* slurmjson_exit_code: {"status", "return_code"[, "signal"]} of a
 * process's exit code and terminating signal (0: none). */
json_t *slurmjson_exit_code(int return_code, int signal);

/* slurmjson_signal_name: Slurm's name of a signal without "SIG" ("USR1"),
 * or NULL for a number without one. */
const char *slurmjson_signal_name(int sig);
/* slurmjson_signal_parse: "USR1", "SIGUSR1", "sigusr1" or "10" as the
 * signal's number (1-64), or -1. */
int slurmjson_signal_parse(const char *s);

/*
 * The other way (slurmjson_desc.c): slurmrestd's requests into the
 * messages the CLI sends, field by field (docs/rest.md lists them).
 *
 * slurmjson_job_submission: the body of POST job/submit ({"script",
 * "job": v0.0.38_job_properties}, or "jobs" with one job) as SUBMIT's
 * JOBSPEC (new reference).  Warnings for what Sluice does differently go
 * to notes (an array of strings; NULL: none wanted).  NULL with EINVAL and
 * e naming the field: "job.time_limit: expected minutes (at least 1) or
 * \"INFINITE\"", "job.licenses: not supported by Sluice ...",
 * "job.foo: unknown field of a job description".  Fields Sluice does not
 * have are taken when they hold Slurm's unset values (null, "", 0, false).
 */
json_t *slurmjson_job_submission(json_t *body, json_t *notes, struct err *e);
/*
 * slurmjson_job_update: the body of POST job/{job_id} (job properties,
 * or {"job": {...}}) as JOB_UPDATE's "set" (*set, a new reference, maybe
 * empty) and a hold change (*hold: -1 none, 1 hold, 0 release).  -1 with
 * EINVAL and e naming the field, or when there is nothing to change.
 */
int slurmjson_job_update(json_t *props, json_t **set, int *hold, struct err *e);
/* slurmjson_time_parse: a point in time of slurmdbd's query parameters:
 * Unix seconds, or local "YYYY-MM-DD[THH:MM[:SS]]".  0, or -1. */
int slurmjson_time_parse(const char *s, time_t *out);

#endif
