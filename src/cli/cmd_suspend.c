/*
 * sluice suspend|resume JOBID... / scontrol suspend|resume: stop running
 * jobs where they are and let them run on again (operators only).  Each
 * refused job gets a line.
 */
#include "cli/cli.h"
#include "cli/jobverb.h"
#include "common/proto.h"

static const struct jobverb suspend = {PROTO_MSG_JOB_SUSPEND, "suspend",
                                       "Suspend"};
static const struct jobverb resume = {PROTO_MSG_JOB_RESUME, "resume", "Resume"};

int suspend_run(bool res, int argc, char **argv)
{
    return jobverb_run(res ? &resume : &suspend, argc, argv);
}

int cmd_suspend(int argc, char **argv)
{
    return jobverb_cmd(&suspend, argc, argv);
}

int cmd_resume(int argc, char **argv)
{
    return jobverb_cmd(&resume, argc, argv);
}
