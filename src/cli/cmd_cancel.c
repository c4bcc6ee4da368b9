/*
 * sluice cancel / scancel: cancel jobs by id and/or by filter (-u -p -t
 * -n -w), or send them a signal (-s); JOBID.STEP ends (or signals) one
 * step and leaves the job running.  Each job or step the controller
 * refuses gets its own line, as scancel prints them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"
#include "cli/opt.h"
#include "cli/stepview.h"
#include "common/proto.h"
#include "common/value.h"
#include "common/xalloc.h"

enum {
    C_USER = 1,
    C_ME,
    C_PARTITION,
    C_STATE,
    C_NAME,
    C_NODELIST,
    C_SIGNAL,
    C_QUIET,
    C_VERBOSE,
    C_HELP,
    C_VERSION,
};

static const struct opt_def cancel_opts[] = {
    {"user", 'u', OPT_ARG, C_USER},
    {"me", 0, OPT_NOARG, C_ME},
    {"partition", 'p', OPT_ARG, C_PARTITION},
    {"state", 't', OPT_ARG, C_STATE},
    {"states", 0, OPT_ARG, C_STATE},
    {"name", 'n', OPT_ARG, C_NAME},
    {"jobname", 0, OPT_ARG, C_NAME},
    {"nodelist", 'w', OPT_ARG, C_NODELIST},
    {"signal", 's', OPT_ARG, C_SIGNAL},
    {"quiet", 'Q', OPT_NOARG, C_QUIET},
    {"verbose", 'v', OPT_NOARG, C_VERBOSE},
    {"help", 'h', OPT_NOARG, C_HELP},
    {"usage", 0, OPT_NOARG, C_HELP},
    {"version", 'V', OPT_NOARG, C_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

static const struct {
    const char *name;
    int sig;
} cancel_signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT},
    {"ABRT", SIGABRT}, {"KILL", SIGKILL},   {"ALRM", SIGALRM},
    {"TERM", SIGTERM}, {"USR1", SIGUSR1},   {"USR2", SIGUSR2},
    {"CONT", SIGCONT}, {"STOP", SIGSTOP},   {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},   {"URG", SIGURG},
    {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},   {"VTALRM", SIGVTALRM},
    {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
};

struct cancel {
    struct jobfilter f;
    struct stepview_id *steps; /* the JOBID.STEP operands */
    size_t n_steps;
    int signal; /* 0: cancel */
    bool quiet, verbose;
};

/* "TERM", "SIGTERM", "15", any case; 0 when unknown. */
static int cancel_signal_parse(const char *s)
{
    uint64_t n;

    if (value_parse_u64(s, 1, 64, &n, NULL) == 0)
        return (int)n;
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof(cancel_signals) / sizeof(*cancel_signals);
         i++)
        if (strcasecmp(s, cancel_signals[i].name) == 0)
            return cancel_signals[i].sig;
    return 0;
}

static void cancel_help(void)
{
    printf("Usage: %s [OPTIONS] [JOBID...]\n"
           "  -u, --user=LIST      -p, --partition=LIST  -t, --state=LIST\n"
           "  -n, --name=LIST      -w, --nodelist=HOSTS  -s, --signal=SIG\n"
           "      --me             -Q, --quiet           -v, --verbose\n",
           cli_slurm_face() ? "scancel" : "sluice cancel");
}

static int cancel_option(struct cancel *c, int id, const char *arg,
                         struct err *e)
{
    char uid[32];

    switch (id) {
    case C_USER:
        return jobfilter_add(&c->f, JOBFILTER_USERS, arg, e);
    case C_ME:
        snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
        return jobfilter_add(&c->f, JOBFILTER_USERS, uid, e);
    case C_PARTITION:
        return jobfilter_add(&c->f, JOBFILTER_PARTITIONS, arg, e);
    case C_STATE:
        return jobfilter_add(&c->f, JOBFILTER_STATES, arg, e);
    case C_NAME:
        return jobfilter_add(&c->f, JOBFILTER_NAMES, arg, e);
    case C_NODELIST:
        return jobfilter_add(&c->f, JOBFILTER_NODES, arg, e);
    case C_SIGNAL:
        if ((c->signal = cancel_signal_parse(arg)) == 0)
            return err_set(e, "Invalid job signal: %s", arg);
        return 0;
    case C_QUIET:
        c->quiet = true;
        return 0;
    case C_VERBOSE:
        c->verbose = true;
        return 0;
    default:
        return 0;
    }
}

/* "12", "12_4", "12_[1-3]": jobs; "12.3", "12.batch", "12_4.1": a step. */
static int cancel_operand(struct cancel *c, const char *s, struct err *e)
{
    struct stepview_id id;

    if (strchr(s, '.') == NULL)
        return jobfilter_add(&c->f, JOBFILTER_IDS, s, e);
    if (stepview_id_parse(s, &id, e) < 0)
        return -1;
    c->steps = xreallocarray(c->steps, c->n_steps + 1, sizeof(*c->steps));
    c->steps[c->n_steps++] = id;
    return 0;
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int cancel_parse(struct cancel *c, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, cancel_opts, &id, &arg, &e)) > 0) {
        if (id == C_HELP || id == C_VERSION) {
            if (id == C_HELP)
                cancel_help();
            else
                printf("sluice %s\n", SLUICE_VERSION);
            opt_free(&st);
            return 0;
        }
        if ((rc = cancel_option(c, id, arg, &e)) < 0)
            break;
    }
    for (int i = 0; rc == 0 && i < st.n_operands; i++)
        rc = cancel_operand(c, st.operands[i], &e);
    if (cli_opt_end(&st, rc, &e) < 0)
        return -1;
    if (jobfilter_empty(&c->f) && c->n_steps == 0) {
        cli_error("No job identification provided");
        return -1;
    }
    /* a filter with step ids would otherwise reach every job it matches */
    if (c->n_steps > 0 && c->f.job_ids == NULL && !jobfilter_empty(&c->f)) {
        cli_error("job step ids (JOBID.STEP) cannot be combined with "
                  "-u, -p, -t, -n or -w");
        return -1;
    }
    return 1;
}

/* One line per refused job; returns how many were refused. */
static int cancel_report(const struct cancel *c, json_t *reply)
{
    json_t *results = json_object_get(reply, "results"), *r;
    int refused = 0;
    size_t i;

    json_array_foreach(results, i, r)
    {
        long long id = json_integer_value(json_object_get(r, "job_id"));
        const char *err = json_string_value(json_object_get(r, "error"));
        if (err != NULL) {
            if (!c->quiet)
                cli_error("Kill job error on job id %lld: %s", id, err);
            refused++;
        } else if (c->verbose) {
            fprintf(stderr, "%s: %s job %lld\n", cli_prog(),
                    c->signal ? "Signalled" : "Terminating", id);
        }
    }
    return refused;
}

/* The job id of array task "12_4" (the task's own); -1 with e. */
static long long cancel_task_job(const struct stepview_id *id, struct err *e)
{
    struct jobfilter f = {0};
    json_t *req, *jobs = NULL, *job;
    long long found = -1;
    size_t i;

    if (jobfilter_add(&f, JOBFILTER_IDS, id->job, e) < 0)
        return -1;
    req = jobfilter_request(&f);
    if (cli_job_query(req, &jobs, e) == 0) {
        json_array_foreach(jobs, i, job)
        {
            if (found < 0 && jobfilter_match(&f, job))
                found = json_integer_value(json_object_get(job, "job_id"));
        }
        if (found < 0)
            err_set(e, "Invalid job id specified");
    }
    json_decref(req);
    json_decref(jobs);
    jobfilter_clear(&f);
    return found;
}

/* STEP_CANCEL of one step; 0, or -1 after its line was printed. */
static int cancel_step(const struct cancel *c, const struct stepview_id *id)
{
    long long job = (long long)id->job_id;
    json_t *req, *reply = NULL;
    char step[32];
    struct err e;
    int rc = 0;

    stepview_step_str(id->step_id, step, sizeof(step)); /* for messages */
    if (id->array_task >= 0 && (job = cancel_task_job(id, &e)) < 0) {
        rc = -1;
    } else {
        req = json_pack("{s:I, s:I, s:i}", "job_id", (json_int_t)job, "step_id",
                        (json_int_t)id->step_id, "signal", c->signal);
        rc = cli_call(PROTO_MSG_STEP_CANCEL, req, &reply, &e);
        json_decref(req);
        json_decref(reply);
    }
    if (rc < 0 && !c->quiet)
        cli_error("Kill job error on job step id %s.%s: %s", id->job, step,
                  e.text);
    else if (rc == 0 && c->verbose)
        fprintf(stderr, "%s: %s job step %s.%s\n", cli_prog(),
                c->signal ? "Signalled" : "Terminating", id->job, step);
    return rc;
}

/* JOB_CANCEL of the selected jobs; the number refused, or -1. */
static int cancel_jobs(const struct cancel *c)
{
    json_t *req = jobfilter_request(&c->f), *reply = NULL;
    struct err e;
    int rc;

    if (c->signal != 0)
        json_object_set_new(req, "signal", json_integer(c->signal));
    if (cli_call(PROTO_MSG_JOB_CANCEL, req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = -1;
    } else {
        rc = cancel_report(c, reply);
    }
    json_decref(req);
    json_decref(reply);
    return rc;
}

int cmd_cancel(int argc, char **argv)
{
    struct cancel c = {0};
    int rc, failed = 0;

    cli_set_prog(argv[0]);
    rc = cancel_parse(&c, argc, argv);
    if (rc > 0) {
        if (!jobfilter_empty(&c.f))
            failed += cancel_jobs(&c) != 0;
        for (size_t i = 0; i < c.n_steps; i++)
            failed += cancel_step(&c, &c.steps[i]) < 0;
        cli_close();
        rc = failed > 0 ? 1 : 0;
    } else {
        rc = rc < 0 ? 1 : 0;
    }
    jobfilter_clear(&c.f);
    free(c.steps);
    return rc;
}
