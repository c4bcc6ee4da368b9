/*
 * sluice acct / sacct: the accounting history of jobs (JOB_ACCT), in
 * sacct's columns, -p/-P, or --json; --events JOBID shows one job's
 * timeline.  Slurm's defaults: since midnight today unless -j (or -s), the
 * caller's own jobs unless -a or -u (root and the controller's user see
 * everyone's), and the lines of its steps (12.batch, 12.0, ...) under
 * each job unless -X; -j 12.0 selects one step.  --noconvert prints the
 * usage fields' memory in KiB and disk in bytes, as measured.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/acctview.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobfilter.h"
#include "cli/jobview.h"
#include "cli/opt.h"
#include "cli/stepview.h"
#include "cli/usageview.h"
#include "cli/when.h"
#include "common/proto.h"
#include "common/slurmjson.h"
#include "common/xalloc.h"

enum {
    A_JOBS = 1,
    A_USER,
    A_ACCOUNTS,
    A_PARTITION,
    A_STATE,
    A_START,
    A_END,
    A_ALLUSERS,
    A_ALLOCATIONS,
    A_FORMAT,
    A_PARSABLE2,
    A_PARSABLE,
    A_NOHEADER,
    A_NOCONVERT,
    A_LONG,
    A_JSON,
    A_EVENTS,
    A_HELPFORMAT,
    A_NAME,
    A_DELIMITER,
    A_BRIEF,
    A_DUPLICATES,
    A_UNITS,
    A_IGNORED,
    A_HELP,
    A_VERSION,
};

static const struct opt_def acct_opts[] = {
    {"jobs", 'j', OPT_ARG, A_JOBS},
    {"user", 'u', OPT_ARG, A_USER},
    {"uid", 0, OPT_ARG, A_USER},
    {"accounts", 'A', OPT_ARG, A_ACCOUNTS},
    {"partition", 'r', OPT_ARG, A_PARTITION},
    {"state", 's', OPT_ARG, A_STATE},
    {"starttime", 'S', OPT_ARG, A_START},
    {"endtime", 'E', OPT_ARG, A_END},
    {"allusers", 'a', OPT_NOARG, A_ALLUSERS},
    {"allocations", 'X', OPT_NOARG, A_ALLOCATIONS},
    {"format", 'o', OPT_ARG, A_FORMAT},
    {"parsable2", 'P', OPT_NOARG, A_PARSABLE2},
    {"parsable", 'p', OPT_NOARG, A_PARSABLE},
    {"noheader", 'n', OPT_NOARG, A_NOHEADER},
    {"noconvert", 0, OPT_NOARG, A_NOCONVERT},
    {"long", 'l', OPT_NOARG, A_LONG},
    {"json", 0, OPT_OPTARG, A_JSON},
    {"events", 0, OPT_ARG, A_EVENTS},
    {"helpformat", 'e', OPT_NOARG, A_HELPFORMAT},
    {"name", 0, OPT_ARG, A_NAME},
    {"jobname", 0, OPT_ARG, A_NAME},
    {"delimiter", 0, OPT_ARG, A_DELIMITER},
    {"brief", 'b', OPT_NOARG, A_BRIEF},
    {"duplicates", 'D', OPT_NOARG, A_DUPLICATES},
    {"units", 0, OPT_ARG, A_UNITS},
    {"clusters", 'M', OPT_ARG, A_IGNORED},
    {"allclusters", 'L', OPT_NOARG, A_IGNORED},
    {"verbose", 'v', OPT_NOARG, A_IGNORED},
    {"array", 0, OPT_NOARG, A_IGNORED},
    {"help", 'h', OPT_NOARG, A_HELP},
    {"usage", 0, OPT_NOARG, A_HELP},
    {"version", 'V', OPT_NOARG, A_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

struct acct {
    struct jobfilter f;      /* ids, users, partitions, states */
    struct jobfilter whole;  /* the ids of -j given without a step */
    struct stepview_id *sel; /* the steps of -j 12.0 */
    size_t n_sel;
    json_t *accounts, *names;
    const char *format, *events, *delim;
    time_t start, end;
    bool start_set, end_set, all_users, alloc_only, noheader, json, noconvert;
    bool dups;
    bool json_sluice; /* --json=sluice */
    enum fmt_tab_mode mode;
};

static void acct_help(void)
{
    printf(
        "Usage: %s [OPTIONS]\n"
        "  -j, --jobs=LIST        -u, --user=LIST        -A, --accounts=LIST\n"
        "  -r, --partition=LIST   -s, --state=LIST       -S, --starttime=TIME\n"
        "  -E, --endtime=TIME     -a, --allusers         -X, --allocations\n"
        "  -o, --format=FIELDS    -P, --parsable2        -p, --parsable\n"
        "  -n, --noheader         -l, --long             --json\n"
        "  --noconvert (MaxRSS in K, disk in bytes, as measured)\n"
        "  --events=JOBID (the job's timeline)           -e, --helpformat\n",
        cli_slurm_face() ? "sacct" : "sluice acct");
}

static void add_list(json_t **a, const char *arg)
{
    char *copy = strdup(arg), *save = NULL;

    if (*a == NULL)
        *a = json_array();
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
        json_array_append_new(*a, json_string(t));
    free(copy);
}

/* One item of -j: "12" or "12_4" selects the job, "12.0" one step. */
static int acct_job_item(struct acct *q, const char *item, struct err *e)
{
    struct stepview_id id;

    if (strchr(item, '.') == NULL)
        return jobfilter_add(&q->f, JOBFILTER_IDS, item, e) < 0
                   ? -1
                   : jobfilter_add(&q->whole, JOBFILTER_IDS, item, e);
    if (stepview_id_parse(item, &id, e) < 0 ||
        jobfilter_add(&q->f, JOBFILTER_IDS, id.job, e) < 0)
        return -1;
    q->sel = xreallocarray(q->sel, q->n_sel + 1, sizeof(*q->sel));
    q->sel[q->n_sel++] = id;
    return 0;
}

/* -j LIST; the commas inside "123_[1,3]" belong to the id. */
static int acct_jobs(struct acct *q, const char *arg, struct err *e)
{
    const char *p = arg;
    int rc = 0;

    while (*p != '\0' && rc == 0) {
        size_t len = strcspn(p, ",");
        const char *br = strchr(p, '[');
        if (br != NULL && br < p + len && strchr(br, ']') != NULL)
            len = (size_t)(strchr(br, ']') - p) + 1;
        if (len > 0) {
            char *item = xstrndup(p, len);
            rc = acct_job_item(q, item, e);
            free(item);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return rc;
}

static int acct_opt(struct acct *q, int id, const char *arg, struct err *e)
{
    time_t now = time(NULL);

    switch (id) {
    case A_JOBS:
        return acct_jobs(q, arg, e);
    case A_USER:
        return jobfilter_add(&q->f, JOBFILTER_USERS, arg, e);
    case A_PARTITION:
        return jobfilter_add(&q->f, JOBFILTER_PARTITIONS, arg, e);
    case A_STATE:
        return jobfilter_add(&q->f, JOBFILTER_STATES, arg, e);
    case A_ACCOUNTS:
        add_list(&q->accounts, arg);
        return 0;
    case A_NAME:
        add_list(&q->names, arg);
        return 0;
    case A_DELIMITER:
        q->delim = arg;
        return 0;
    case A_BRIEF:
        q->format = ACCTVIEW_BRIEF;
        return 0;
    case A_DUPLICATES:
        q->dups = true;
        return 0;
    case A_UNITS:
        if (strlen(arg) != 1 || strchr("KMGTPkmgtp", arg[0]) == NULL) {
            errno = EINVAL;
            return err_set(e, "Invalid unit type: %s (K, M, G, T or P)", arg);
        }
        usageview_set_units((char)toupper((unsigned char)arg[0]));
        return 0;
    case A_IGNORED:
        return 0;
    case A_START:
        q->start_set = true;
        return when_parse(arg, now, WHEN_TODAY, &q->start, e) < 0
                   ? err_prefix(e, "--starttime")
                   : 0;
    case A_END:
        q->end_set = true;
        return when_parse(arg, now, WHEN_TODAY, &q->end, e) < 0
                   ? err_prefix(e, "--endtime")
                   : 0;
    case A_ALLUSERS:
        q->all_users = true;
        return 0;
    case A_ALLOCATIONS:
        q->alloc_only = true;
        return 0;
    case A_FORMAT:
        q->format = arg;
        return 0;
    case A_LONG:
        q->format = ACCTVIEW_LONG;
        return 0;
    case A_PARSABLE2:
        q->mode = FMT_TAB_PARSABLE2;
        return 0;
    case A_PARSABLE:
        q->mode = FMT_TAB_PARSABLE;
        return 0;
    case A_NOHEADER:
        q->noheader = true;
        return 0;
    case A_NOCONVERT:
        q->noconvert = true;
        return 0;
    case A_JSON:
        q->json = true;
        cli_set_raw(true); /* exact JSON out */
        return cli_json_schema(arg, &q->json_sluice, e);
    case A_EVENTS:
        q->events = arg;
        return jobfilter_add(&q->f, JOBFILTER_IDS, arg, e);
    }
    return 0;
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int acct_parse(struct acct *q, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, acct_opts, &id, &arg, &e)) > 0) {
        if (id == A_HELP || id == A_VERSION || id == A_HELPFORMAT) {
            if (id == A_HELP)
                acct_help();
            else if (id == A_VERSION)
                printf("sluice %s\n", SLUICE_VERSION);
            else
                printf("%s\n", acctview_fields());
            opt_free(&st);
            return 0;
        }
        if ((rc = acct_opt(q, id, arg, &e)) < 0)
            break;
    }
    return cli_opt_end(&st, rc, &e);
}

static json_t *acct_request(const struct acct *q)
{
    json_t *req = jobfilter_request(&q->f);
    time_t now = time(NULL), start = q->start;

    if (!q->start_set)
        start = q->f.job_ids != NULL || q->f.states != NULL
                    ? 0
                    : when_midnight(now, 0);
    json_object_set_new(req, "start_time", json_integer((json_int_t)start));
    if (q->end_set)
        json_object_set_new(req, "end_time", json_integer((json_int_t)q->end));
    if (q->accounts != NULL)
        json_object_set(req, "accounts", q->accounts);
    json_object_set_new(req, "all_users", json_boolean(q->all_users));
    json_object_set_new(req, "events",
                        json_boolean(q->json || q->events || q->dups));
    return req;
}

/* Every page of JOB_ACCT; new array, or NULL after an error printed. */
static json_t *acct_fetch(const struct acct *q)
{
    json_t *req = acct_request(q), *all = json_array();
    struct err e;

    for (;;) {
        json_t *reply = NULL, *next;
        if (cli_call(PROTO_MSG_JOB_ACCT, req, &reply, &e) < 0) {
            cli_error("%s", e.text);
            json_decref(req);
            json_decref(all);
            return NULL;
        }
        json_array_extend(all, json_object_get(reply, "jobs"));
        next = json_object_get(reply, "next_after_job_id");
        if (!json_is_integer(next)) {
            json_decref(reply);
            break;
        }
        json_object_set(req, "after_job_id", next);
        json_decref(reply);
    }
    json_decref(req);
    return all;
}

/* -j ARRAY_ID selects every task of the array, as in Slurm: the tasks
 * other than the one that kept the array's id are looked up from the
 * array's submit time on.  jobs changes; -1 after an error printed. */
static int acct_array_tasks(const struct acct *q, json_t *jobs)
{
    json_t *masters = json_array(), *m, *job;
    size_t i, k;
    int rc = 0;

    json_array_foreach(jobs, i, job)
    {
        long long id = jobview_int(job, "job_id", 0);
        if (jobview_int(job, "array_job_id", 0) == id && id > 0)
            json_array_append(masters, job);
    }
    json_array_foreach(masters, i, m)
    {
        struct acct all = *q;
        json_t *more;
        all.f.job_ids = NULL;
        all.start_set = true;
        all.start = (time_t)jobview_int(m, "submit_time", 0);
        all.end_set = false;
        if ((more = acct_fetch(&all)) == NULL) {
            rc = -1;
            break;
        }
        json_array_foreach(more, k, job)
        {
            if (jobview_int(job, "array_job_id", 0) ==
                    jobview_int(m, "job_id", 0) &&
                jobview_int(job, "job_id", 0) != jobview_int(m, "job_id", 0))
                json_array_append(jobs, job);
        }
        json_decref(more);
    }
    json_decref(masters);
    return rc;
}

static int print_events(json_t *jobs)
{
    json_t *job = json_array_get(jobs, 0), *ev;
    char t[FMT_BUFLEN];
    size_t i;

    if (job == NULL) {
        cli_error("no such job (or not yours)");
        return 1;
    }
    printf("%-19s %-10s %s\n", "Time", "Event", "Detail");
    json_array_foreach(json_object_get(job, "events"), i, ev)
    {
        printf("%-19s %-10s %s\n",
               fmt_time((time_t)json_integer_value(json_object_get(ev, "time")),
                        "Unknown", t, sizeof(t)),
               json_string_value(json_object_get(ev, "event")),
               json_string_value(json_object_get(ev, "detail")));
    }
    return 0;
}

/* Whether -j selected the step rec of job (as 12.0 or 12_4.0). */
static bool acct_sel_step(const struct acct *q, json_t *job, json_t *rec)
{
    long long step = jobview_int(rec, "step_id", -2);

    for (size_t i = 0; i < q->n_sel; i++) {
        const struct stepview_id *s = &q->sel[i];
        bool jm =
            s->array_task < 0
                ? jobview_int(job, "job_id", 0) == (long long)s->job_id
                : jobview_int(job, "array_job_id", 0) == (long long)s->job_id &&
                      jobview_int(job, "array_task_id", -1) == s->array_task;
        if (jm && s->step_id == step)
            return true;
    }
    return false;
}

/* Whether a step's state is among -s's (a job's states name steps too). */
static bool acct_state_ok(const struct acct *q, json_t *rec)
{
    const char *st = jobview_str(rec, "state", "");
    size_t i;
    json_t *v;

    if (q->f.states == NULL || q->f.all_states)
        return true;
    json_array_foreach(q->f.states, i, v)
    {
        if (strcmp(json_string_value(v), st) == 0)
            return true;
    }
    return false;
}

/* The step lines under a job: all of them for a job selected whole,
 * else those -j named. */
static void acct_print_steps(const struct acct *q,
                             const struct acctview_spec *sp, json_t *job,
                             bool whole, time_t now)
{
    json_t *recs = acctview_steps(job), *rec;
    size_t i;

    if (recs == NULL) { /* a record from before job steps */
        struct acctview_row r = {job, "batch", now, NULL, q->noconvert};
        if (whole && acctview_has_batch(job))
            acctview_print(stdout, sp, q->mode, &r);
        return;
    }
    json_array_foreach(recs, i, rec)
    {
        struct acctview_row r = {job, NULL, now, rec, q->noconvert};
        if ((whole || acct_sel_step(q, job, rec)) && acct_state_ok(q, rec))
            acctview_print(stdout, sp, q->mode, &r);
    }
}

/* --name: the job's name is one of them (Slurm compares whole names). */
static bool acct_name_ok(const struct acct *q, json_t *job)
{
    const char *name = jobview_str(job, "name", "");
    json_t *v;
    size_t i;

    if (q->names == NULL)
        return true;
    json_array_foreach(q->names, i, v)
    {
        if (strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

static int acct_print(const struct acct *q, json_t *jobs)
{
    struct acctview_spec sp;
    time_t now = time(NULL);
    struct err e;
    json_t *job;
    size_t i;

    if (q->events != NULL)
        return print_events(jobs);
    if (q->json && q->json_sluice) {
        json_t *out = json_array();
        json_array_foreach(jobs, i, job)
            json_array_append_new(out, acctview_json(job, now));
        cli_print_json(json_pack("{s:o}", "jobs", out));
        return 0;
    }
    if (q->json) { /* Slurm's dbv0.0.38 schema (docs/json.md) */
        struct slurmjson_ctx ctx = {cli_cluster_name(), now};
        json_t *out = json_array();
        json_array_foreach(jobs, i, job)
            json_array_append_new(out, slurmjson_acct_job(job, &ctx));
        cli_print_json(slurmjson_response(SLURMJSON_DBD, "jobs", out));
        return 0;
    }
    if (acctview_spec_parse(q->format ? q->format : ACCTVIEW_DEFAULT, &sp, &e) <
        0) {
        cli_error("%s", e.text);
        return 1;
    }
    sp.delim = q->delim;
    if (!q->noheader)
        acctview_header(stdout, &sp, q->mode);
    json_array_foreach(jobs, i, job)
    {
        json_t *runs, *run;
        size_t k;
        if (!acct_name_ok(q, job))
            continue;
        runs = acctview_incarnations(job, q->dups);
        json_array_foreach(runs, k, run)
        {
            struct acctview_row r = {run, NULL, now, NULL, q->noconvert};
            /* -X shows the job's line even where -j named one of its
             * steps */
            bool whole =
                q->n_sel == 0 || q->alloc_only ||
                (q->whole.job_ids != NULL && jobfilter_match(&q->whole, job));
            if (whole)
                acctview_print(stdout, &sp, q->mode, &r);
            if (!q->alloc_only)
                acct_print_steps(q, &sp, run, whole, now);
        }
        json_decref(runs);
    }
    acctview_spec_free(&sp);
    return 0;
}

int cmd_acct(int argc, char **argv)
{
    struct acct q = {.mode = FMT_TAB_COLUMNS};
    json_t *jobs = NULL;
    int rc;

    cli_set_prog(argv[0]);
    rc = acct_parse(&q, argc, argv);
    if (rc > 0 && q.format != NULL && !q.json) {
        struct acctview_spec sp;
        struct err e;
        if (acctview_spec_parse(q.format, &sp, &e) < 0) {
            cli_error("%s", e.text);
            rc = -1;
        }
        acctview_spec_free(&sp);
    }
    if (rc > 0) {
        jobs = acct_fetch(&q);
        if (jobs != NULL && q.f.job_ids != NULL && q.events == NULL &&
            acct_array_tasks(&q, jobs) < 0) {
            json_decref(jobs);
            jobs = NULL;
        }
        rc = jobs != NULL ? acct_print(&q, jobs) : 1;
        cli_close();
    } else {
        rc = rc < 0 ? 1 : 0;
    }
    json_decref(jobs);
    json_decref(q.accounts);
    json_decref(q.names);
    jobfilter_clear(&q.f);
    jobfilter_clear(&q.whole);
    free(q.sel);
    return rc;
}
