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

static const struct opt_def checkpoint_opts[] = {
    {"help", 'h', OPT_NOARG, 1},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_checkpoint(int argc, char **argv)
{
    const char *arg;
    json_t *req, *reply = NULL;
    struct opt_state st;
    long long id;
    struct err e;
    int oid, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, false);
    if ((rc = opt_next(&st, checkpoint_opts, &oid, &arg, &e)) > 0) {
        printf("usage: sluice checkpoint [JOBID]\n"
               "Record that the job (default: $SLURM_JOB_ID) has just "
               "written a checkpoint.\n");
        opt_free(&st);
        return 0;
    }
    arg = st.ind < argc ? argv[st.ind++] : getenv("SLURM_JOB_ID");
    if (cli_opt_end(&st, rc, &e) < 0)
        return 2;
    if (arg == NULL) {
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
