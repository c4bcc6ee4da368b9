/*
 * sluice checkpoint [JOBID]: tell the controller that the job (by
 * default the one this runs in: SLURM_JOB_ID) has just written a
 * checkpoint, so that preemption counts its lost work from now
 * (docs/preemption.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "common/proto.h"

static int parse_id(const char *s, long long *id)
{
    char *end;

    errno = 0;
    *id = strtoll(s, &end, 10);
    return s[0] != '\0' && *end == '\0' && errno == 0 && *id > 0 ? 0 : -1;
}

int cmd_checkpoint(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : getenv("SLURM_JOB_ID");
    json_t *req, *reply = NULL;
    long long id;
    struct err e;
    int rc = 0;

    cli_set_prog(argv[0]);
    if (argc > 1 &&
        (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: sluice checkpoint [JOBID]\n"
               "Record that the job (default: $SLURM_JOB_ID) has just "
               "written a checkpoint.\n");
        return 0;
    }
    if (argc > 2 || arg == NULL) {
        cli_error("usage: checkpoint [JOBID] (outside a job, name the job; "
                  "SLURM_JOB_ID is not set)");
        return 2;
    }
    if (parse_id(arg, &id) < 0) {
        cli_error("invalid job id %s: expected a positive integer", arg);
        return 2;
    }
    req = json_pack("{s:I}", "job_id", (json_int_t)id);
    if (cli_call(PROTO_MSG_JOB_CHECKPOINT, req, &reply, &e) < 0) {
        cli_error("checkpoint of job %lld failed: %s", id, e.text);
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    cli_close();
    return rc;
}
