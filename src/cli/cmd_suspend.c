/*
 * sluice suspend|resume JOBID... / scontrol suspend|resume: stop running
 * jobs where they are and let them run on again (operators only).  Each
 * refused job gets a line.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"
#include "common/proto.h"

int suspend_run(bool resume, int argc, char **argv)
{
    const char *what = resume ? "Resume" : "Suspend";
    struct jobfilter f = {0};
    json_t *req, *reply = NULL, *r;
    struct err e;
    size_t i;
    int rc = 0;

    if (argc < 1) {
        cli_error("usage: %s JOBID[,JOBID...] ...",
                  resume ? "resume" : "suspend");
        return 2;
    }
    for (int k = 0; k < argc; k++)
        if (jobfilter_add(&f, JOBFILTER_IDS, argv[k], &e) < 0) {
            cli_error("%s", e.text);
            jobfilter_clear(&f);
            return 1;
        }
    req = json_pack("{s:O}", "job_ids", f.job_ids);
    if (cli_call(resume ? PROTO_MSG_JOB_RESUME : PROTO_MSG_JOB_SUSPEND, req,
                 &reply, &e) < 0) {
        cli_error("%s failed: %s", what, e.text);
        rc = 1;
    }
    json_array_foreach(json_object_get(reply, "results"), i, r)
    {
        const char *err = json_string_value(json_object_get(r, "error"));
        if (err == NULL)
            continue;
        cli_error("%s of job %lld failed: %s", what,
                  (long long)json_integer_value(json_object_get(r, "job_id")),
                  err);
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    jobfilter_clear(&f);
    return rc;
}

static int suspend_cmd(bool resume, int argc, char **argv)
{
    int rc;

    cli_set_prog(argv[0]);
    if (argc > 1 &&
        (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: sluice %s JOBID[,JOBID...] ...\n",
               resume ? "resume" : "suspend");
        return 0;
    }
    rc = suspend_run(resume, argc - 1, argv + 1);
    cli_close();
    return rc;
}

int cmd_suspend(int argc, char **argv)
{
    return suspend_cmd(false, argc, argv);
}

int cmd_resume(int argc, char **argv)
{
    return suspend_cmd(true, argc, argv);
}
