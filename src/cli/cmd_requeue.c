/*
 * scontrol requeue|requeuehold [State=SpecialExit] JOBID...: a running or
 * suspended batch job goes back to the queue (held, for requeuehold).
 * Refusals are printed per job as Slurm prints them ("Requested
 * operation is presently disabled for job 5").
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"
#include "common/proto.h"

int requeue_run(bool hold, int argc, char **argv)
{
    struct jobfilter f = {0};
    json_t *req, *reply = NULL, *r;
    struct err e;
    size_t i;
    int rc = 0, n = 0;

    for (int k = 0; k < argc; k++) {
        if (strncasecmp(argv[k], "State=", 6) == 0) {
            if (!hold || strcasecmp(argv[k] + 6, "SpecialExit") != 0) {
                cli_error("invalid %s option \"%s\" (only requeuehold takes "
                          "State=SpecialExit)",
                          hold ? "requeuehold" : "requeue", argv[k]);
                jobfilter_clear(&f);
                return 1;
            }
            cli_warn("State=SpecialExit: the job is requeued held "
                     "(JobHeldUser), without the SPECIAL_EXIT state");
            continue;
        }
        if (strcasecmp(argv[k], "Incomplete") == 0) {
            cli_warn("Incomplete: every named job is requeued");
            continue;
        }
        if (jobfilter_add(&f, JOBFILTER_IDS, argv[k], &e) < 0) {
            cli_error("%s", e.text);
            jobfilter_clear(&f);
            return 1;
        }
        n++;
    }
    if (n == 0) {
        cli_error("usage: %s [State=SpecialExit] JOBID[,JOBID...] ...",
                  hold ? "requeuehold" : "requeue");
        jobfilter_clear(&f);
        return 2;
    }
    req = json_pack("{s:O, s:b}", "job_ids", f.job_ids, "hold", hold);
    if (cli_call(PROTO_MSG_JOB_REQUEUE, req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    }
    json_array_foreach(json_object_get(reply, "results"), i, r)
    {
        const char *err = json_string_value(json_object_get(r, "error"));
        if (err == NULL)
            continue;
        fprintf(stderr, "%s for job %lld\n", err,
                (long long)json_integer_value(json_object_get(r, "job_id")));
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    jobfilter_clear(&f);
    return rc;
}
