/*
 * sluice explain [--json] JOBID: why a job is not running, node by node,
 * its place in the queue, its estimated start and what would let it start
 * sooner (JOB_EXPLAIN; the text is explainview.c's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/explainview.h"
#include "common/proto.h"
#include "common/value.h"

static int usage(FILE *fp, int rc)
{
    fprintf(fp, "usage: sluice explain [--json] JOBID\n");
    return rc;
}

enum { X_JSON = 1, X_HELP };

static const struct opt_def explain_opts[] = {
    {"json", 0, OPT_NOARG, X_JSON},
    {"help", 'h', OPT_NOARG, X_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_explain(int argc, char **argv)
{
    const char *id_arg = NULL, *arg;
    bool json = false;
    json_t *req, *reply = NULL;
    struct opt_state st;
    struct err e;
    uint64_t id;
    int oid, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, explain_opts, &oid, &arg, &e)) > 0) {
        if (oid == X_HELP) {
            opt_free(&st);
            return usage(stdout, 0);
        }
        json = true;
    }
    if (rc == 0 && st.n_operands > 1) {
        errno = EINVAL;
        rc = err_set(&e, "unexpected argument \"%s\"", st.operands[1]);
    }
    id_arg = rc == 0 && st.n_operands == 1 ? st.operands[0] : NULL;
    if (cli_opt_end(&st, rc, &e) < 0)
        return usage(stderr, 2);
    cli_set_raw(json); /* exact JSON out */
    if (id_arg == NULL)
        return usage(stderr, 2);
    if (value_parse_u64(id_arg, 1, INT64_MAX, &id, &e) < 0) {
        cli_error("explain: job id '%s': %s", id_arg, e.text);
        return 2;
    }
    rc = 0;
    req = json_pack("{s:I}", "job_id", (json_int_t)id);
    if (cli_call(PROTO_MSG_JOB_EXPLAIN, req, &reply, &e) < 0) {
        cli_error("explain: job %s: %s", id_arg, e.text);
        rc = 1;
    } else if (json) {
        json_dumpf(reply, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
    } else {
        explainview_print(stdout, reply, time(NULL));
    }
    json_decref(req);
    json_decref(reply);
    cli_close();
    return rc;
}
