/*
 * sluice report preemptions [-S START] [-E END] [--share X] [--json]:
 * the preemption review (preempt_report.h) over every user's jobs whose
 * life overlaps the window (all history by default), from JOB_ACCT with
 * events.  The flag threshold is PreemptParameters' report_share (0.3
 * by default), or --share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/acctview.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/opt.h"
#include "common/preempt_report.h"
#include "cli/when.h"
#include "common/conf.h"
#include "common/proto.h"

enum { R_START = 1, R_END, R_SHARE, R_JSON, R_HELP };

static const struct opt_def report_opts[] = {
    {"starttime", 'S', OPT_ARG, R_START}, {"endtime", 'E', OPT_ARG, R_END},
    {"share", 0, OPT_ARG, R_SHARE},       {"json", 0, OPT_NOARG, R_JSON},
    {"help", 'h', OPT_NOARG, R_HELP},     {NULL, 0, OPT_NOARG, 0},
};

struct report_q {
    json_t *req;
    double share;
    bool share_set, json;
};

/* Every page of JOB_ACCT for req; new array, or NULL after an error. */
static json_t *fetch(json_t *req)
{
    json_t *all;
    struct err e;

    if (cli_paged_query(PROTO_MSG_JOB_ACCT, req, &all, &e) < 0) {
        cli_error("%s", e.text);
        return NULL;
    }
    return all;
}

static void print_table(const char *title, json_t *rows, bool flag)
{
    json_t *g;
    size_t i;

    printf("%-16s %6s %9s %6s %8s %14s %11s %6s%s\n", title, "RUNS",
           "PREEMPTED", "CAUSED", "REQUEUES", "GPU-HOURS-LOST", "MEDIAN-WAIT",
           "SHARE", flag ? " FLAG" : "");
    json_array_foreach(rows, i, g)
    {
        json_t *med = json_object_get(g, "median_requeue_wait_s");
        char w[FMT_BUFLEN];
        printf("%-16s %6lld %9lld %6lld %8lld %14.3f %11s %6.2f%s\n",
               json_string_value(json_object_get(g, "name")),
               json_integer_value(json_object_get(g, "runs")),
               json_integer_value(json_object_get(g, "preempted")),
               json_integer_value(json_object_get(g, "caused")),
               json_integer_value(json_object_get(g, "requeues")),
               json_real_value(json_object_get(g, "gpu_hours_lost")),
               json_is_integer(med)
                   ? fmt_hms(json_integer_value(med), w, sizeof(w))
                   : "-",
               json_real_value(json_object_get(g, "preempted_share")),
               flag ? (json_is_true(json_object_get(g, "flagged")) ? "  *" : "")
                    : "");
    }
}

static void print_report(json_t *rep)
{
    json_t *tot = json_array();

    json_array_append(tot, json_object_get(rep, "totals"));
    printf("Preemptions (users preempted in more than %.0f%% of their runs "
           "are flagged *)\n\n",
           json_real_value(json_object_get(rep, "share")) * 100);
    print_table("USER", json_object_get(rep, "users"), true);
    printf("\n");
    print_table("QOS", json_object_get(rep, "qos"), false);
    printf("\n");
    print_table("PARTITION", json_object_get(rep, "partitions"), false);
    printf("\n");
    print_table("ALL", tot, false);
    json_decref(tot);
}

static int report_opt(struct report_q *q, int id, const char *arg,
                      struct err *e)
{
    time_t t;
    char *end;

    switch (id) {
    case R_START:
    case R_END:
        if (when_parse(arg, time(NULL), WHEN_TODAY, &t, e) < 0)
            return -1;
        json_object_set_new(q->req, id == R_START ? "start_time" : "end_time",
                            json_integer((json_int_t)t));
        return 0;
    case R_SHARE:
        q->share = strtod(arg, &end);
        q->share_set = true;
        if (end == arg || *end != '\0' || !(q->share > 0 && q->share <= 1))
            return err_set(e, "--share=%s: expected a number in (0, 1]", arg);
        return 0;
    case R_JSON:
        q->json = true;
        cli_set_raw(true); /* exact JSON out */
        return 0;
    }
    return 0;
}

/* The report's jobs: the window's, and the preemptors outside it. */
static json_t *report_jobs(struct report_q *q)
{
    json_t *jobs = fetch(q->req), *missing, *more, *req;

    if (jobs == NULL)
        return NULL;
    missing = preempt_report_missing(jobs);
    if (json_array_size(missing) > 0) {
        req = json_pack("{s:O, s:b, s:b}", "job_ids", missing, "all_users", 1,
                        "events", 0);
        if ((more = fetch(req)) != NULL)
            json_array_extend(jobs, more);
        json_decref(more);
        json_decref(req);
    }
    json_decref(missing);
    return jobs;
}

static int report_preemptions(int argc, char **argv)
{
    struct report_q q = {
        .req = json_pack("{s:b, s:b}", "all_users", 1, "events", 1)};
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;
    json_t *jobs, *rep;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, report_opts, &id, &arg, &e)) > 0) {
        if (id == R_HELP) {
            printf("usage: sluice report preemptions [-S START] [-E END] "
                   "[--share X] [--json]\n");
            break;
        }
        if ((rc = report_opt(&q, id, arg, &e)) < 0)
            break;
    }
    if (rc > 0) { /* --help */
        opt_free(&st);
        json_decref(q.req);
        return 0;
    }
    if (cli_opt_end(&st, rc, &e) < 0) {
        json_decref(q.req);
        return 2;
    }
    if (!q.share_set) {
        struct conf *conf = conf_load(cli_conf_path(), NULL, &e);
        q.share = preempt_report_share(conf ? conf->preempt_parameters : NULL);
        conf_destroy(conf);
    }
    if ((jobs = report_jobs(&q)) == NULL) {
        json_decref(q.req);
        return 1;
    }
    rep = preempt_report_build(jobs, q.share);
    if (q.json) {
        char *s = json_dumps(rep, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", s);
        free(s);
    } else {
        print_report(rep);
    }
    json_decref(rep);
    json_decref(jobs);
    json_decref(q.req);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    int rc;

    cli_set_prog(argv[0]);
    if (argc < 2 || strcmp(argv[1], "preemptions") != 0) {
        cli_error("usage: report preemptions [-S START] [-E END] [--share X] "
                  "[--json]");
        return 2;
    }
    rc = report_preemptions(argc - 1, argv + 1);
    cli_close();
    return rc;
}
