/*
 * The per-job verbs that take job ids and answer one result per job:
 * hold/release (cmd_hold.c) and suspend/resume (cmd_suspend.c).  Each
 * refused job gets a line.
 */
#include "cli/jobverb.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"

int jobverb_run(const struct jobverb *v, int argc, char **argv)
{
    struct jobfilter f = {0};
    json_t *req, *reply = NULL, *r;
    struct err e;
    size_t i;
    int rc = 0;

    if (argc < 1) {
        cli_error("usage: %s JOBID[,JOBID...] ...", v->verb);
        return 2;
    }
    for (int k = 0; k < argc; k++)
        if (jobfilter_add(&f, JOBFILTER_IDS, argv[k], &e) < 0) {
            cli_error("%s", e.text);
            jobfilter_clear(&f);
            return 1;
        }
    req = json_pack("{s:O}", "job_ids", f.job_ids);
    if (cli_call(v->type, req, &reply, &e) < 0) {
        cli_error("%s failed: %s", v->noun, e.text);
        rc = 1;
    }
    json_array_foreach(json_object_get(reply, "results"), i, r)
    {
        const char *err = json_string_value(json_object_get(r, "error"));
        if (err == NULL)
            continue;
        cli_error("%s of job %lld failed: %s", v->noun,
                  (long long)json_integer_value(json_object_get(r, "job_id")),
                  err);
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    jobfilter_clear(&f);
    return rc;
}

static const struct opt_def jobverb_opts[] = {
    {"help", 'h', OPT_NOARG, 1},
    {NULL, 0, OPT_NOARG, 0},
};

int jobverb_cmd(const struct jobverb *v, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, true);
    if ((rc = opt_next(&st, jobverb_opts, &id, &arg, &e)) > 0) {
        printf("usage: sluice %s JOBID[,JOBID...] ...\n", v->verb);
        opt_free(&st);
        return 0;
    }
    if (rc < 0) {
        cli_opt_end(&st, rc, &e);
        return 2;
    }
    rc = jobverb_run(v, st.n_operands, st.operands);
    opt_free(&st);
    cli_close();
    return rc;
}
