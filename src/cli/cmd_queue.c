/*
 * sluice queue / squeue: the jobs the controller knows, in squeue's
 * columns (or -o FORMAT, --json).  Like squeue, pending, running and
 * completing jobs only unless -t or -j says otherwise.  -s/--steps lists
 * the running steps instead (STEP_QUERY), in squeue's step columns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobfilter.h"
#include "cli/jobview.h"
#include "common/arrayspec.h"
#include "cli/opt.h"
#include "cli/stepview.h"
#include "common/proto.h"
#include "common/slurmjson.h"
#include "common/xalloc.h"

enum {
    Q_USER = 1,
    Q_ME,
    Q_PARTITION,
    Q_STATES,
    Q_JOBS,
    Q_NODELIST,
    Q_NAME,
    Q_FORMAT,
    Q_NOHEADER,
    Q_LONG,
    Q_JSON,
    Q_ALL,
    Q_ARRAY,
    Q_START,
    Q_STEPS,
    Q_FORMAT_LONG,
    Q_NOCONVERT,
    Q_SORT,
    Q_ITERATE,
    Q_HELP,
    Q_VERSION,
};

static const struct opt_def queue_opts[] = {
    {"user", 'u', OPT_ARG, Q_USER},
    {"me", 0, OPT_NOARG, Q_ME},
    {"partition", 'p', OPT_ARG, Q_PARTITION},
    {"states", 't', OPT_ARG, Q_STATES},
    {"state", 0, OPT_ARG, Q_STATES},
    {"jobs", 'j', OPT_ARG, Q_JOBS},
    {"nodelist", 'w', OPT_ARG, Q_NODELIST},
    {"name", 'n', OPT_ARG, Q_NAME},
    {"format", 'o', OPT_ARG, Q_FORMAT},
    {"Format", 'O', OPT_ARG, Q_FORMAT_LONG},
    {"noconvert", 0, OPT_NOARG, Q_NOCONVERT},
    {"sort", 'S', OPT_ARG, Q_SORT},
    {"iterate", 'i', OPT_ARG, Q_ITERATE},
    {"noheader", 'h', OPT_NOARG, Q_NOHEADER},
    {"long", 'l', OPT_NOARG, Q_LONG},
    {"json", 0, OPT_OPTARG, Q_JSON},
    {"all", 'a', OPT_NOARG, Q_ALL},
    {"array", 'r', OPT_NOARG, Q_ARRAY},
    {"start", 0, OPT_NOARG, Q_START},
    {"steps", 's', OPT_OPTARG, Q_STEPS},
    {"help", 0, OPT_NOARG, Q_HELP},
    {"usage", 0, OPT_NOARG, Q_HELP},
    {"version", 'V', OPT_NOARG, Q_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

/* squeue --start: the scheduler's estimate in START_TIME (N/A when it has
 * none yet: beyond the backfill window or not reached). */
#define QUEUE_FORMAT_START "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %R"

/* squeue -O's width of a field given without one. */
#define QUEUE_FORMAT_WIDTH 20

struct queue {
    struct jobfilter f;
    const char *format;
    const char *named; /* -O FIELDS */
    const char *sort;  /* -S KEYS */
    long iterate_s;    /* -i SECONDS, 0: once */
    char *all;         /* the format %all stands for */
    bool noheader, json, json_sluice, lng;
    bool expand;             /* -r: one line per array task */
    bool steps;              /* -s: steps instead of jobs */
    struct stepview_id *sel; /* -s LIST: these steps (or jobs' steps) */
    size_t n_sel;
};

static void queue_help(void)
{
    printf("Usage: %s [OPTIONS]\n"
           "  -u, --user=LIST       -p, --partition=LIST   -t, --states=LIST\n"
           "  -j, --jobs=LIST       -w, --nodelist=HOSTS   -n, --name=LIST\n"
           "  -o, --format=FORMAT   -l, --long             -h, --noheader\n"
           "      --me              --json                 -a, --all\n"
           "  -r, --array           --start                --noconvert\n"
           "  -O, --Format=FIELDS   -S, --sort=KEYS        -i, --iterate=SECS\n"
           "  -s, --steps[=LIST]    (running steps: JOBID.STEP,...)\n"
           "Format letters: %s (steps: %s)\n",
           cli_slurm_face() ? "squeue" : "sluice queue", JOBVIEW_LETTERS,
           STEPVIEW_LETTERS);
}

/* -s LIST: "12.0,13" (a job alone: all its steps). */
static int queue_steps_opt(struct queue *q, const char *arg, struct err *e)
{
    char *copy, *save = NULL;
    int rc = 0;

    q->steps = true;
    if (arg == NULL)
        return 0;
    copy = xstrdup(arg);
    for (char *t = strtok_r(copy, ",", &save); t != NULL && rc == 0;
         t = strtok_r(NULL, ",", &save)) {
        q->sel = xreallocarray(q->sel, q->n_sel + 1, sizeof(*q->sel));
        rc = stepview_id_parse(t, &q->sel[q->n_sel++], e);
    }
    free(copy);
    return rc;
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int queue_parse(struct queue *q, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;
    char uid[32];

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, queue_opts, &id, &arg, &e)) > 0) {
        switch (id) {
        case Q_USER:
            rc = jobfilter_add(&q->f, JOBFILTER_USERS, arg, &e);
            break;
        case Q_ME:
            snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
            rc = jobfilter_add(&q->f, JOBFILTER_USERS, uid, &e);
            break;
        case Q_PARTITION:
            rc = jobfilter_add(&q->f, JOBFILTER_PARTITIONS, arg, &e);
            break;
        case Q_STATES:
            rc = jobfilter_add(&q->f, JOBFILTER_STATES, arg, &e);
            break;
        case Q_JOBS:
            rc = jobfilter_add(&q->f, JOBFILTER_IDS, arg, &e);
            break;
        case Q_NODELIST:
            rc = jobfilter_add(&q->f, JOBFILTER_NODES, arg, &e);
            break;
        case Q_NAME:
            rc = jobfilter_add(&q->f, JOBFILTER_NAMES, arg, &e);
            break;
        case Q_FORMAT:
            q->format = arg;
            q->named = NULL;
            break;
        case Q_FORMAT_LONG:
            q->named = arg;
            break;
        case Q_NOCONVERT:
            fmt_set_noconvert(true);
            break;
        case Q_SORT:
            q->sort = arg;
            break;
        case Q_ITERATE:
            q->iterate_s = strtol(arg, NULL, 10);
            if (q->iterate_s <= 0) {
                rc = err_set(&e, "invalid --iterate value \"%s\"", arg);
                errno = EINVAL;
            }
            break;
        case Q_NOHEADER:
            q->noheader = true;
            break;
        case Q_LONG:
            q->format = JOBVIEW_FORMAT_LONG;
            q->lng = true;
            break;
        case Q_JSON:
            rc = cli_json_schema(arg, &q->json_sluice, &e);
            q->json = true;
            cli_set_raw(true); /* exact JSON out */
            break;
        case Q_ALL:
            break;
        case Q_ARRAY:
            q->expand = true;
            break;
        case Q_START: /* pending jobs with their estimated start */
            q->format = QUEUE_FORMAT_START;
            rc = jobfilter_add(&q->f, JOBFILTER_STATES, "PENDING", &e);
            break;
        case Q_STEPS:
            rc = queue_steps_opt(q, arg, &e);
            break;
        case Q_HELP:
            queue_help();
            return 0;
        case Q_VERSION:
            printf("sluice %s\n", SLUICE_VERSION);
            return 0;
        }
        if (rc < 0)
            break;
    }
    return cli_opt_end(&st, rc, &e);
}

/* -r: a pending array's record as one job per task. */
static void expand_tasks(json_t *out, json_t *job)
{
    const char *pend = jobview_str(job, "array_task_str", NULL);
    struct arrayset set;

    if (pend == NULL ||
        arrayset_parse(pend,
                       (uint32_t)jobview_int(job, "array_task_max", 0) + 1,
                       &set, NULL) < 0) {
        json_array_append(out, job);
        return;
    }
    for (int64_t t = arrayset_next(&set, 0); t >= 0;
         t = arrayset_next(&set, (uint32_t)t + 1)) {
        json_t *c = json_deep_copy(job);
        json_object_set_new(c, "array_task_id", json_integer(t));
        json_object_set_new(c, "array_task_str", json_null());
        json_array_append_new(out, c);
    }
    arrayset_clear(&set);
}

static int queue_spec(struct queue *q, struct fmt_spec *sp, struct err *e);

/* The JOB fields the columns and -S keys need (jobview_fields), or NULL
 * for all of them (--json; a letter not known; a format that does not
 * parse, which queue_print reports). */
static json_t *queue_fields(struct queue *q)
{
    struct fmt_spec sp;
    struct err e;
    char *codes;
    size_t n = 0;
    json_t *fields;

    if (q->json || queue_spec(q, &sp, &e) < 0)
        return NULL;
    codes = xmalloc(sp.n + (q->sort ? strlen(q->sort) : 0) + 1);
    for (size_t i = 0; i < sp.n; i++)
        codes[n++] = sp.fields[i].letter;
    for (const char *p = q->sort; p != NULL && *p != '\0'; p++)
        if (strchr(JOBVIEW_LETTERS, *p) != NULL)
            codes[n++] = *p;
    fields = jobview_fields(codes, n);
    free(codes);
    fmt_spec_free(&sp);
    return fields;
}

/* The jobs to show, filtered; new reference.  *unknown: one job id was
 * asked for and the controller knows no such job (squeue's "Invalid job
 * id specified"). */
static json_t *queue_fetch(struct queue *q, bool *unknown)
{
    json_t *req = jobfilter_request(&q->f), *jobs = NULL, *out;
    /* squeue's default states hold with -j too: a finished job is not
     * shown without -t */
    bool by_default = q->f.states == NULL && !q->f.all_states;
    struct err e;
    size_t i;
    json_t *job, *fields = queue_fields(q);

    *unknown = false;
    if (fields != NULL)
        json_object_set_new(req, "fields", fields);
    if (by_default && q->f.job_ids == NULL)
        json_object_set_new(req, "states",
                            json_pack("[ssss]", "PENDING", "RUNNING",
                                      "SUSPENDED", "COMPLETING"));
    if (cli_job_query(req, &jobs, &e) < 0) {
        cli_error("cannot load jobs: %s", e.text);
        json_decref(req);
        return NULL;
    }
    json_decref(req);
    *unknown = json_array_size(q->f.job_ids) == 1 &&
               json_array_size(jobs) == 0 && q->f.users == NULL &&
               q->f.partitions == NULL && q->f.names == NULL &&
               q->f.nodes == NULL;
    out = json_array();
    json_array_foreach(jobs, i, job)
    {
        if (!jobfilter_match(&q->f, job))
            continue;
        if (by_default &&
            !jobview_state_active(jobview_str(job, "job_state", "")))
            continue;
        if (q->expand)
            expand_tasks(out, job);
        else
            json_array_append(out, job);
    }
    json_decref(jobs);
    return out;
}

static const char *queue_header(char letter, const void *ctx, char *buf,
                                size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return jobview_header(letter);
}

/* "%all": every letter, a to z then A to Z, separated by '|'. */
static const char *queue_all_format(struct queue *q)
{
    size_t n = 0, cap = 4 * sizeof(JOBVIEW_LETTERS);

    if (q->all == NULL) {
        q->all = xmalloc(cap);
        q->all[0] = '\0';
        for (int pass = 0; pass < 2; pass++)
            for (const char *c = JOBVIEW_LETTERS; *c != '\0'; c++)
                if ((pass == 0) == (*c >= 'a' && *c <= 'z'))
                    n += (size_t)snprintf(q->all + n, cap - n, "%s%%%c",
                                          n > 0 ? "|" : "", *c);
    }
    return q->all;
}

/* The columns: -O FIELDS, -o FORMAT ("%all"), or squeue's default. */
static int queue_spec(struct queue *q, struct fmt_spec *sp, struct err *e)
{
    const char *format = q->format ? q->format : JOBVIEW_FORMAT;

    if (q->named != NULL) {
        if (fmt_spec_parse_names(q->named, jobview_field_code,
                                 QUEUE_FORMAT_WIDTH, sp, e) < 0)
            return err_prefix(e, "--Format");
        return 0;
    }
    if (strcasecmp(format, "%all") == 0)
        format = queue_all_format(q);
    if (fmt_spec_parse(format, JOBVIEW_LETTERS, sp, e) < 0)
        return err_prefix(e, "--format");
    return 0;
}

/* One -S key: "P", "-t" (descending), "+i". */
struct queue_key {
    char letter;
    bool desc;
};

static struct queue_key queue_keys[32];
static size_t queue_nkeys;
static time_t queue_now;

static int queue_value_cmp(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);

    if (*a != '\0' && *b != '\0' && *ea == '\0' && *eb == '\0')
        return x < y ? -1 : x > y;
    return strcmp(a, b);
}

static int queue_key_cmp(const void *pa, const void *pb)
{
    json_t *x = *(json_t *const *)pa, *y = *(json_t *const *)pb;
    struct jobview_row rx = {x, queue_now}, ry = {y, queue_now};
    char bx[1024], by[1024];

    for (size_t i = 0; i < queue_nkeys; i++) {
        int c = queue_value_cmp(
            jobview_value(queue_keys[i].letter, &rx, bx, sizeof(bx)),
            jobview_value(queue_keys[i].letter, &ry, by, sizeof(by)));
        if (c != 0)
            return queue_keys[i].desc ? -c : c;
    }
    return 0;
}

/* -S KEYS: sort by those letters; ties keep squeue's default order. */
static int queue_sort(const char *keys, json_t *jobs, struct err *e)
{
    size_t n = json_array_size(jobs);
    json_t **v;

    queue_nkeys = 0;
    for (const char *p = keys; *p != '\0';) {
        bool desc = *p == '-';
        if (*p == '-' || *p == '+')
            p++;
        if (*p == '%')
            p++;
        if (*p == '\0' || strchr(JOBVIEW_LETTERS, *p) == NULL ||
            queue_nkeys == sizeof(queue_keys) / sizeof(*queue_keys)) {
            errno = EINVAL;
            return err_set(e, "--sort: invalid sort key \"%s\"", p);
        }
        queue_keys[queue_nkeys++] = (struct queue_key){*p++, desc};
        if (*p == ',')
            p++;
    }
    queue_now = time(NULL);
    v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(jobs, i));
    /* a merge-free stable sort: insertion, fine for squeue's sizes */
    for (size_t i = 1; i < n; i++) {
        json_t *t = v[i];
        size_t k = i;
        while (k > 0 && queue_key_cmp(&v[k - 1], &t) > 0) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = t;
    }
    json_array_clear(jobs);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
    return 0;
}

static int queue_print(struct queue *q, json_t *jobs)
{
    struct fmt_spec sp;
    struct err e;
    size_t i;
    json_t *job;

    if (q->json && q->json_sluice) {
        cli_print_json(json_pack("{s:O}", "jobs", jobs));
        return 0;
    }
    if (q->json) { /* Slurm's v0.0.38 schema (docs/json.md) */
        struct slurmjson_ctx ctx = {cli_cluster_name(), time(NULL)};
        json_t *out = json_array();
        json_array_foreach(jobs, i, job)
            json_array_append_new(out, slurmjson_job(job, &ctx));
        cli_print_json(slurmjson_response(SLURMJSON_CTLD, "jobs", out));
        return 0;
    }
    if (queue_spec(q, &sp, &e) < 0) {
        cli_error("%s", e.text);
        return 1;
    }
    jobview_sort(jobs);
    if (q->sort != NULL && queue_sort(q->sort, jobs, &e) < 0) {
        cli_error("%s", e.text);
        fmt_spec_free(&sp);
        return 1;
    }
    if (q->lng || q->iterate_s > 0) {
        char buf[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
        printf("%s\n", buf);
    }
    if (!q->noheader)
        fmt_spec_print(stdout, &sp, queue_header, NULL);
    json_array_foreach(jobs, i, job)
    {
        struct jobview_row row = {job, time(NULL)};
        fmt_spec_print(stdout, &sp, jobview_value, &row);
    }
    fmt_spec_free(&sp);
    return 0;
}

/* Whether -s LIST names step (a job alone names all its steps). */
static bool queue_step_selected(const struct queue *q, json_t *step)
{
    if (q->n_sel == 0)
        return true;
    for (size_t i = 0; i < q->n_sel; i++)
        if (jobview_int(step, "job_id", 0) == (long long)q->sel[i].job_id &&
            (q->sel[i].step_id == STEPVIEW_NONE ||
             jobview_int(step, "step_id", -1) == q->sel[i].step_id))
            return true;
    return false;
}

/* Drop repeated ids: the controller answers each id's steps once per
 * mention. */
static void queue_ids_unique(json_t *ids)
{
    for (size_t i = 0; i < json_array_size(ids); i++)
        for (size_t k = i + 1; k < json_array_size(ids);)
            if (json_integer_value(json_array_get(ids, k)) ==
                json_integer_value(json_array_get(ids, i)))
                json_array_remove(ids, k);
            else
                k++;
}

/* STEP_QUERY's job_ids: -j's plain ids and -s LIST's jobs; NULL when
 * none (or when -j names array tasks, which are matched here). */
static json_t *queue_step_ids(const struct queue *q)
{
    json_t *ids = json_array(), *v;
    size_t i;

    json_array_foreach(q->f.job_ids, i, v)
    {
        if (!json_is_integer(v)) {
            json_decref(ids);
            return NULL;
        }
        json_array_append(ids, v);
    }
    for (size_t k = 0; k < q->n_sel; k++)
        json_array_append_new(ids, json_integer((json_int_t)q->sel[k].job_id));
    queue_ids_unique(ids);
    if (json_array_size(ids) == 0) {
        json_decref(ids);
        return NULL;
    }
    return ids;
}

/* The running steps to show, filtered (-j -u -p -n apply to steps as in
 * squeue; -t does not) and sorted; new reference. */
static json_t *queue_fetch_steps(const struct queue *q)
{
    json_t *req = json_pack("{s:b}", "running", 1), *reply = NULL, *out, *st;
    json_t *ids = queue_step_ids(q);
    struct jobfilter sf = {.job_ids = q->f.job_ids,
                           .users = q->f.users,
                           .partitions = q->f.partitions,
                           .names = q->f.names};
    struct err e;
    size_t i;

    if (ids != NULL)
        json_object_set_new(req, "job_ids", ids);
    if (cli_call(PROTO_MSG_STEP_QUERY, req, &reply, &e) < 0) {
        cli_error("cannot load job steps: %s", e.text);
        json_decref(req);
        return NULL;
    }
    json_decref(req);
    out = json_array();
    json_array_foreach(json_object_get(reply, "steps"), i, st)
    {
        if (jobfilter_match(&sf, st) && queue_step_selected(q, st))
            json_array_append(out, st);
    }
    json_decref(reply);
    stepview_sort(out);
    return out;
}

static const char *queue_step_header(char letter, const void *ctx, char *buf,
                                     size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return stepview_header(letter);
}

static int queue_print_steps(const struct queue *q, json_t *steps)
{
    struct fmt_spec sp;
    time_t now = time(NULL);
    struct err e;
    size_t i;
    json_t *st;

    if (q->json) {
        json_t *o = json_pack("{s:O}", "steps", steps);
        json_dumpf(o, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(o);
        return 0;
    }
    if (fmt_spec_parse(q->format ? q->format : STEPVIEW_FORMAT,
                       STEPVIEW_LETTERS, &sp, &e) < 0) {
        cli_error("--format: %s", e.text);
        return 1;
    }
    if (!q->noheader)
        fmt_spec_print(stdout, &sp, queue_step_header, NULL);
    json_array_foreach(steps, i, st)
    {
        struct stepview_row row = {st, now};
        fmt_spec_print(stdout, &sp, stepview_value, &row);
    }
    fmt_spec_free(&sp);
    return 0;
}

/* squeue without -s: once, or every -i seconds until interrupted. */
static int queue_jobs(struct queue *q)
{
    bool unknown;
    json_t *jobs;
    int rc;

    for (;;) {
        if ((jobs = queue_fetch(q, &unknown)) == NULL)
            return 1;
        if (unknown && q->iterate_s == 0) {
            /* squeue's words exactly, for the scripts that look for them */
            fflush(stdout);
            fputs("slurm_load_jobs error: Invalid job id specified\n", stderr);
            json_decref(jobs);
            return 1;
        }
        rc = queue_print(q, jobs);
        json_decref(jobs);
        if (rc != 0 || q->iterate_s == 0)
            return rc;
        putchar('\n');
        fflush(stdout);
        sleep((unsigned)q->iterate_s);
    }
}

int cmd_queue(int argc, char **argv)
{
    struct queue q = {0};
    json_t *jobs;
    int rc;

    cli_set_prog(argv[0]);
    fmt_set_noconvert(false);
    rc = queue_parse(&q, argc, argv);
    if (rc <= 0) {
        rc = rc < 0 ? 1 : 0;
        goto out;
    }
    /* squeue has one step format: -l does not change it */
    if (q.steps && q.format != NULL &&
        strcmp(q.format, JOBVIEW_FORMAT_LONG) == 0)
        q.format = NULL;
    /* Check the format before asking the controller anything. */
    if ((q.format != NULL || q.named != NULL) && !q.json) {
        struct fmt_spec sp;
        struct err e;
        int prc = q.steps ? fmt_spec_parse(q.format ? q.format : "",
                                           STEPVIEW_LETTERS, &sp, &e)
                          : queue_spec(&q, &sp, &e);
        if (prc < 0) {
            cli_error(q.steps ? "--format: %s" : "%s", e.text);
            rc = 1;
            goto out;
        }
        fmt_spec_free(&sp);
    }
    if (q.steps) {
        jobs = queue_fetch_steps(&q);
        rc = jobs != NULL ? queue_print_steps(&q, jobs) : 1;
        json_decref(jobs);
    } else {
        rc = queue_jobs(&q);
    }
    cli_close();
out:
    jobfilter_clear(&q.f);
    free(q.sel);
    free(q.all);
    return rc;
}
