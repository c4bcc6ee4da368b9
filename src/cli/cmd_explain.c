/*
 * sluice explain [--json] JOBID: why a job is not running, node by node,
 * its place in the queue, its estimated start and what would let it start
 * sooner (JOB_EXPLAIN; the text is explainview.c's).
 */
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

int cmd_explain(int argc, char **argv)
{
    const char *id_arg = NULL;
    bool json = false;
    json_t *req, *reply = NULL;
    struct err e;
    uint64_t id;
    int rc = 0;

    cli_set_prog(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout, 0);
        else if (argv[i][0] == '-' || id_arg != NULL) {
            cli_error("explain: unexpected argument '%s'", argv[i]);
            return usage(stderr, 2);
        } else
            id_arg = argv[i];
    }
    cli_set_raw(json); /* exact JSON out */
    if (id_arg == NULL)
        return usage(stderr, 2);
    if (value_parse_u64(id_arg, 1, INT64_MAX, &id, &e) < 0) {
        cli_error("explain: job id '%s': %s", id_arg, e.text);
        return 2;
    }
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
