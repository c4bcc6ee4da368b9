/*
 * sluice cancel / scancel: cancel jobs by id and/or by filter (-u -p -t
 * -n -w), or send them a signal (-s).  Each job the controller refuses
 * gets its own line, as scancel prints them.
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
#include "common/proto.h"
#include "common/value.h"

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
        rc = jobfilter_add(&c->f, JOBFILTER_IDS, st.operands[i], &e);
    if (cli_opt_end(&st, rc, &e) < 0)
        return -1;
    if (jobfilter_empty(&c->f)) {
        cli_error("No job identification provided");
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

int cmd_cancel(int argc, char **argv)
{
    struct cancel c = {0};
    json_t *req, *reply = NULL;
    struct err e;
    int rc;

    cli_set_prog(argv[0]);
    rc = cancel_parse(&c, argc, argv);
    if (rc <= 0) {
        jobfilter_clear(&c.f);
        return rc < 0 ? 1 : 0;
    }
    req = jobfilter_request(&c.f);
    if (c.signal != 0)
        json_object_set_new(req, "signal", json_integer(c.signal));
    if (cli_call(PROTO_MSG_JOB_CANCEL, req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else {
        rc = cancel_report(&c, reply) > 0 ? 1 : 0;
    }
    json_decref(req);
    json_decref(reply);
    jobfilter_clear(&c.f);
    cli_close();
    return rc;
}
