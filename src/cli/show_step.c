/*
 * scontrol show step [JOBID[.STEP]] / sluice show step: the running steps
 * (STEP_QUERY) in scontrol's Key=Value layout, -o on one line, or --json.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/stepview.h"
#include "common/proto.h"

/* The request for id (NULL: every running step); -1 after an error. */
static int step_request(const char *id, json_t *req, struct stepview_id *sid)
{
    struct err e;

    if (id == NULL)
        return 0;
    if (stepview_id_parse(id, sid, &e) < 0 || sid->array_task >= 0) {
        cli_error("Invalid job id specified: %s", id);
        return -1;
    }
    json_object_set_new(req, "job_ids",
                        json_pack("[I]", (json_int_t)sid->job_id));
    if (sid->step_id != STEPVIEW_NONE)
        json_object_set_new(req, "step_id", json_integer(sid->step_id));
    return 0;
}

/* Nothing found: scontrol's words; an error when something was named. */
static int step_none(const char *id, const struct stepview_id *sid)
{
    char step[32];

    if (id == NULL) {
        printf("No job steps in the system\n");
        return 0;
    }
    if (sid->step_id == STEPVIEW_NONE)
        cli_error("No job steps running for job %llu",
                  (unsigned long long)sid->job_id);
    else
        cli_error("Job step %llu.%s not found", (unsigned long long)sid->job_id,
                  stepview_step_str(sid->step_id, step, sizeof(step)));
    return 1;
}

int show_step_run(int argc, char **argv, bool json, bool oneliner)
{
    json_t *req = json_pack("{s:b}", "running", 1), *reply = NULL, *steps, *st;
    struct stepview_id sid = {.step_id = STEPVIEW_NONE};
    const char *id = argc > 0 ? argv[0] : NULL;
    struct err e;
    size_t i;
    int rc = 1;

    if (argc > 1) {
        cli_error("usage: show step [JOBID[.STEP]]");
        json_decref(req);
        return 2;
    }
    if (step_request(id, req, &sid) < 0)
        goto out;
    if (cli_call(PROTO_MSG_STEP_QUERY, req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        goto out;
    }
    steps = json_object_get(reply, "steps");
    stepview_sort(steps);
    if (json) {
        json_t *o = json_pack("{s:o}", "steps",
                              steps ? json_incref(steps) : json_array());
        json_dumpf(o, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(o);
        rc = 0;
    } else if (json_array_size(steps) == 0) {
        rc = step_none(id, &sid);
    } else {
        json_array_foreach(steps, i, st)
        {
            stepview_show(stdout, st, oneliner);
            if (!oneliner)
                putchar('\n');
        }
        rc = 0;
    }
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}
