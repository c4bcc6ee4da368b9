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
 * slurmjson_tres_list: "cpu=2,mem=1G,node=1,gres/gpu=1" as Slurm's TRES
 * list [{"type": "cpu", "name": "", "id": 1, "count": 2}, ...] (mem in
 * MiB).  NULL or "" gives [].  New reference.
 */
json_t *slurmjson_tres_list(const char *tres);

/* slurmjson_exit_code: {"status", "return_code"[, "signal"]} of a
 * process's exit code and terminating signal (0: none). */
json_t *slurmjson_exit_code(int return_code, int signal);

#endif
