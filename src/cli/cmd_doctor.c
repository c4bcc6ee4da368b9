/*
 * sluice doctor [--json]: the running cluster checked for the seed's
 * pitfalls and their relatives (docs/doctor.md).  The facts come from the
 * controller through the queries every client may send (PING, CONFIG,
 * NODE, PART, JOB, ACCT_LIST qos, SHARE, SCHED_DIAG, JOB_ACCT); the
 * judgement is common/doctor.c's; the findings print as check-config's
 * do.  Exit 1 when there is an error-level finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/opt.h"
#include "common/conf.h"
#include "common/doctor.h"
#include "common/preempt_report.h"
#include "common/proto.h"

enum { DOC_JSON = 1, DOC_HELP };

static const struct opt_def doctor_opts[] = {
    {"json", 0, OPT_NOARG, DOC_JSON},
    {"help", 'h', OPT_NOARG, DOC_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

/*
 * One query whose reply member key goes into facts as name.  A refusal
 * (an ordinary user may not see everything) skips the checks that need
 * it, with a note on stderr.
 */
static void gather(json_t *facts, uint16_t type, json_t *req, const char *key,
                   const char *name)
{
    json_t *reply = NULL;
    struct err e;

    if (cli_call(type, req, &reply, &e) < 0)
        cli_warn("%s refused (%s): the checks that need it are skipped",
                 proto_type_name(type), e.text);
    else if (json_object_get(reply, key) != NULL)
        json_object_set(facts, name, json_object_get(reply, key));
    json_decref(reply);
    json_decref(req);
}

/* CONFIG_QUERY's [["Key", "value"], ...] as {"Key": "value"}. */
static void gather_config(json_t *facts)
{
    json_t *req = json_object(), *reply = NULL, *conf = json_object(), *kv;
    struct err e;
    size_t i;

    if (cli_call(PROTO_MSG_CONFIG_QUERY, req, &reply, &e) < 0)
        cli_warn("CONFIG_QUERY refused (%s): the checks that need it are "
                 "skipped",
                 e.text);
    json_array_foreach(json_object_get(reply, "config"), i, kv)
    {
        json_t *k = json_array_get(kv, 0), *v = json_array_get(kv, 1);
        if (json_is_string(k) && json_is_string(v))
            json_object_set(conf, json_string_value(k), v);
    }
    json_object_set_new(facts, "config", conf);
    json_decref(reply);
    json_decref(req);
}

/* The controller's clock and state directory (PING), this host's clock. */
static void gather_ping(json_t *facts)
{
    json_t *req = json_object(), *reply = NULL;
    struct err e;
    int rc = cli_call(PROTO_MSG_PING, req, &reply, &e);

    json_decref(req);
    if (rc < 0) {
        cli_warn("PING refused (%s)", e.text);
        return;
    }
    json_object_set_new(facts, "client_now",
                        json_integer((json_int_t)time(NULL)));
    if (json_object_get(reply, "now") != NULL)
        json_object_set(facts, "now", json_object_get(reply, "now"));
    if (json_object_get(reply, "state") != NULL)
        json_object_set(facts, "state", json_object_get(reply, "state"));
    json_decref(reply);
}

static void gather_jobs(json_t *facts)
{
    json_t *req = json_pack("{s:[s, s]}", "states", "PENDING", "RUNNING");
    json_t *jobs;
    struct err e;

    if (cli_job_query(req, &jobs, &e) < 0)
        cli_warn("JOB_QUERY refused (%s): the checks of jobs are skipped",
                 e.text);
    else
        json_object_set_new(facts, "jobs", jobs);
    json_decref(req);
}

/* The preemption review of the last DOCTOR_PREEMPT_WINDOW_S, with the
 * threshold of PreemptParameters. */
static void gather_preemptions(json_t *facts)
{
    json_t *conf = json_object_get(facts, "config"), *jobs;
    const char *pp =
        json_string_value(json_object_get(conf, "PreemptParameters"));
    json_t *req =
        json_pack("{s:b, s:b, s:I}", "all_users", 1, "events", 1, "start_time",
                  (json_int_t)time(NULL) - DOCTOR_PREEMPT_WINDOW_S);
    struct err e;

    if (cli_paged_query(PROTO_MSG_JOB_ACCT, req, &jobs, &e) < 0) {
        cli_warn("JOB_ACCT refused (%s): the preemption review is skipped",
                 e.text);
    } else {
        json_object_set_new(
            facts, "preemptions",
            preempt_report_build(jobs, preempt_report_share(pp)));
        json_object_set_new(facts, "preempt_window_s",
                            json_integer(DOCTOR_PREEMPT_WINDOW_S));
        json_decref(jobs);
    }
    json_decref(req);
}

static json_t *gather_all(void)
{
    json_t *facts = json_object();

    gather_ping(facts);
    gather_config(facts);
    gather(facts, PROTO_MSG_NODE_QUERY, json_object(), "nodes", "nodes");
    gather(facts, PROTO_MSG_PART_QUERY, json_object(), "partitions",
           "partitions");
    gather_jobs(facts);
    gather(facts, PROTO_MSG_ACCT_LIST, json_pack("{s:s}", "entity", "qos"),
           "qos", "qos");
    gather(facts, PROTO_MSG_SHARE_QUERY, json_object(), "shares", "shares");
    gather(facts, PROTO_MSG_SCHED_DIAG, json_object(), "auth_refused",
           "auth_refused");
    gather_preemptions(facts);
    return facts;
}

/* "4 nodes, 3 partitions, 2 jobs" of facts. */
static void print_summary(json_t *facts, const struct conf_diag *d)
{
    size_t nn = json_array_size(json_object_get(facts, "nodes"));
    size_t np = json_array_size(json_object_get(facts, "partitions"));
    size_t nj = json_array_size(json_object_get(facts, "jobs"));

    if (d->n == 0)
        printf("doctor: no findings");
    else
        printf("doctor: %zu error%s, %zu warning%s", d->n_errors,
               d->n_errors == 1 ? "" : "s", d->n_warnings,
               d->n_warnings == 1 ? "" : "s");
    printf(" (%zu node%s, %zu partition%s, %zu pending or running job%s "
           "checked)\n",
           nn, nn == 1 ? "" : "s", np, np == 1 ? "" : "s", nj,
           nj == 1 ? "" : "s");
}

static void print_json(const struct conf_diag *d)
{
    json_t *o = doctor_json(d), *checks = json_array();

    for (size_t i = 0; doctor_checks[i] != NULL; i++)
        json_array_append_new(checks, json_string(doctor_checks[i]));
    json_object_set_new(o, "checks", checks);
    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

int cmd_doctor(int argc, char **argv)
{
    struct opt_state st;
    struct conf_diag d;
    const char *arg;
    bool json = false;
    json_t *facts;
    struct err e;
    int opt, id;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, false);
    while ((opt = opt_next(&st, doctor_opts, &id, &arg, &e)) > 0) {
        if (id == DOC_HELP) {
            opt_free(&st);
            printf("usage: sluice doctor [--json]\n");
            return 0;
        }
        json = true;
    }
    if (cli_opt_end(&st, opt, &e) < 0) {
        fprintf(stderr, "usage: sluice doctor [--json]\n");
        return 2;
    }
    if (json)
        cli_set_raw(true); /* exact strings in the JSON out */
    facts = gather_all();
    conf_diag_init(&d);
    doctor_judge(facts, &d);
    if (json) {
        print_json(&d);
    } else {
        conf_diag_print(&d, stdout);
        print_summary(facts, &d);
    }
    opt = d.n_errors > 0 ? 1 : 0;
    conf_diag_free(&d);
    json_decref(facts);
    cli_close();
    return opt;
}
