/*
 * sluice hold|release JOBID... / scontrol hold|release: keep pending jobs
 * from starting, or let them go again.  Each refused job gets a line.
 */
#include "cli/cli.h"
#include "cli/jobverb.h"
#include "common/proto.h"

static const struct jobverb hold = {PROTO_MSG_JOB_HOLD, "hold", "Hold"};
static const struct jobverb release = {PROTO_MSG_JOB_RELEASE, "release",
                                       "Release"};

int hold_run(bool rel, int argc, char **argv)
{
    return jobverb_run(rel ? &release : &hold, argc, argv);
}

int cmd_hold(int argc, char **argv)
{
    return jobverb_cmd(&hold, argc, argv);
}

int cmd_release(int argc, char **argv)
{
    return jobverb_cmd(&release, argc, argv);
}
