/*
 * sluice prio / sprio: the factors of each pending job's priority, weighted
 * (default) or normalised (-n), in sprio's columns and format letters, or
 * --json.  Notes on factors that are switched off while their inputs
 * differ go to stderr, so that the table stays parsable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/opt.h"
#include "cli/prioview.h"
#include "common/proto.h"

#define PRIO_LETTERS "aAfFiIjJNopPqQrtTuyY"

enum {
    P_JOBS = 1,
    P_USER,
    P_LONG,
    P_NORM,
    P_WEIGHTS,
    P_NOHEADER,
    P_FORMAT,
    P_JSON,
    P_PARTITION,
    P_SORT,
    P_HELP
};

static const struct opt_def prio_opts[] = {
    {"jobs", 'j', OPT_ARG, P_JOBS},
    {"user", 'u', OPT_ARG, P_USER},
    {"long", 'l', OPT_NOARG, P_LONG},
    {"norm", 'n', OPT_NOARG, P_NORM},
    {"weights", 'w', OPT_NOARG, P_WEIGHTS},
    {"noheader", 'h', OPT_NOARG, P_NOHEADER},
    {"format", 'o', OPT_ARG, P_FORMAT},
    {"json", 0, OPT_NOARG, P_JSON},
    {"partition", 'p', OPT_ARG, P_PARTITION},
    {"sort", 'S', OPT_ARG, P_SORT},
    {"help", 0, OPT_NOARG, P_HELP},
    {"usage", 0, OPT_NOARG, P_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

struct prio_args {
    json_t *req;
    const char *format, *parts, *sort;
    bool lng, norm, weights, noheader, json;
};

/* The factor a letter shows, or NULL. */
static const char *letter_factor(char l)
{
    switch (l) {
    case 'a':
    case 'A':
        return "age";
    case 'f':
    case 'F':
        return "fairshare";
    case 'j':
    case 'J':
        return "jobsize";
    case 'p':
    case 'P':
        return "partition";
    case 'q':
    case 'Q':
        return "qos";
    case 't':
    case 'T':
        return "tres";
    default:
        return NULL;
    }
}

static const char *prio_header(char l, const void *ctx, char *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    switch (l) {
    case 'i':
        return "JOBID";
    case 'r':
        return "PARTITION";
    case 'u':
        return "USER";
    case 'o':
        return "ACCOUNT";
    case 'N':
        return "NICE";
    case 'y':
    case 'Y':
        return "PRIORITY";
    case 'a':
    case 'A':
        return "AGE";
    case 'f':
    case 'F':
        return "FAIRSHARE";
    case 'j':
    case 'J':
        return "JOBSIZE";
    case 'p':
    case 'P':
        return "PARTITION";
    case 'q':
    case 'Q':
        return "QOS";
    case 't':
    case 'T':
        return "TRES";
    case 'I':
        return "QOSNAME";
    default:
        return "";
    }
}

struct row {
    json_t *job;     /* NULL: the weights row */
    json_t *weights; /* from the reply */
    bool norm;       /* -n: upper-case letters print normalised values */
};

static double factor(json_t *job, const char *name, const char *kind)
{
    return json_number_value(json_object_get(
        json_object_get(json_object_get(job, "factors"), name), kind));
}

static const char *weights_value(char l, const struct row *r, char *buf,
                                 size_t len)
{
    const char *f = letter_factor(l);

    if (l == 'i')
        return "Weights";
    if (f != NULL && strcmp(f, "tres") == 0)
        return json_string_value(json_object_get(r->weights, "tres"));
    if (f == NULL)
        return "";
    snprintf(buf, len, "%lld",
             (long long)json_integer_value(json_object_get(r->weights, f)));
    return buf;
}

static const char *prio_value(char l, const void *ctx, char *buf, size_t len)
{
    const struct row *r = ctx;
    json_t *j = r->job;
    const char *f = letter_factor(l);
    const char *s;

    if (j == NULL)
        return weights_value(l, r, buf, len);
    if (f != NULL) {
        bool normalized = r->norm || (l >= 'a' && l <= 'z');
        if (normalized)
            snprintf(buf, len, "%.7f", factor(j, f, "normalized"));
        else
            snprintf(buf, len, "%.0f", factor(j, f, "weighted"));
        return buf;
    }
    switch (l) {
    case 'i':
        snprintf(buf, len, "%lld",
                 (long long)json_integer_value(json_object_get(j, "job_id")));
        return buf;
    case 'y':
    case 'Y': {
        double p = (double)json_integer_value(json_object_get(j, "priority"));
        if (r->norm || l == 'y')
            snprintf(buf, len, "%.10f", p / 4294967295.0);
        else
            snprintf(buf, len, "%.0f", p);
        return buf;
    }
    case 'N':
        snprintf(buf, len, "%lld",
                 (long long)json_integer_value(json_object_get(j, "nice")));
        return buf;
    case 'r':
        s = json_string_value(json_object_get(j, "partition"));
        break;
    case 'u':
        s = json_string_value(json_object_get(j, "user_name"));
        break;
    case 'o':
        s = json_string_value(json_object_get(j, "account"));
        break;
    case 'I':
        s = json_string_value(json_object_get(j, "qos"));
        break;
    default:
        s = "";
    }
    return s ? s : "";
}

static int add_filter(json_t *req, const char *key, const char *list,
                      bool numbers)
{
    json_t *a = json_object_get(req, key);
    char *copy = strdup(list), *save = NULL;

    if (a == NULL) {
        a = json_array();
        json_object_set_new(req, key, a);
    }
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char *end;
        long long v = numbers ? strtoll(t, &end, 10) : 0;
        if (numbers && (*end != '\0' || v <= 0)) {
            cli_error("invalid job id \"%s\"", t);
            free(copy);
            return -1;
        }
        json_array_append_new(a, numbers ? json_integer(v) : json_string(t));
    }
    free(copy);
    return 0;
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int prio_parse(struct prio_args *a, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, prio_opts, &id, &arg, &e)) > 0) {
        switch (id) {
        case P_JOBS:
            rc = add_filter(a->req, "job_ids", arg, true);
            break;
        case P_USER:
            rc = add_filter(a->req, "users", arg, false);
            break;
        case P_LONG:
            a->lng = true;
            break;
        case P_NORM:
            a->norm = true;
            break;
        case P_WEIGHTS:
            a->weights = true;
            break;
        case P_NOHEADER:
            a->noheader = true;
            break;
        case P_FORMAT:
            a->format = arg;
            break;
        case P_PARTITION:
            a->parts = arg;
            break;
        case P_SORT:
            a->sort = arg;
            break;
        case P_JSON:
            a->json = true;
            cli_set_raw(true); /* exact JSON out */
            break;
        case P_HELP:
            printf("Usage: %s [-j JOBS] [-u USERS] [-p PARTITIONS] [-l] [-n] "
                   "[-w] [-h] [-o FORMAT] [-S SORT] [--json]\nFormat "
                   "letters: %s\n",
                   cli_slurm_face() ? "sprio" : "sluice prio", PRIO_LETTERS);
            opt_free(&st);
            return 0;
        }
        if (rc < 0) {
            opt_free(&st);
            return -1; /* printed */
        }
    }
    return cli_opt_end(&st, rc, &e);
}

static void print_notes(json_t *reply)
{
    size_t i;
    json_t *n;

    json_array_foreach(json_object_get(reply, "notes"), i, n)
        fprintf(stderr, "%s\n", json_string_value(n));
}

static const char *sort_keys;
static json_t *sort_weights;

/* -S: letters, each optionally after '-' (descending); numbers compare
 * as numbers. */
static int sort_cmp(const void *pa, const void *pb)
{
    json_t *ja = *(json_t *const *)pa, *jb = *(json_t *const *)pb;

    for (const char *k = sort_keys; *k != '\0'; k++) {
        bool desc = false;
        char ba[128], bb[128], *ea, *eb;
        if (*k == ',' || *k == '%')
            continue;
        if (*k == '-' || *k == '+') {
            desc = *k == '-';
            if (*++k == '\0')
                break;
        }
        struct row ra = {ja, sort_weights, false},
                   rb = {jb, sort_weights, false};
        const char *va = prio_value(*k, &ra, ba, sizeof(ba));
        const char *vb = prio_value(*k, &rb, bb, sizeof(bb));
        double da = strtod(va, &ea), db = strtod(vb, &eb);
        int c = *ea == '\0' && *eb == '\0' && *va && *vb ? (da > db) - (da < db)
                                                         : strcmp(va, vb);
        if (c != 0)
            return desc ? -c : c;
    }
    return 0;
}

static void sort_jobs(const char *keys, json_t *w, json_t *jobs)
{
    size_t n = json_array_size(jobs);
    json_t **v = calloc(n ? n : 1, sizeof(*v));

    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(jobs, i));
    sort_keys = keys;
    sort_weights = w;
    qsort(v, n, sizeof(*v), sort_cmp);
    json_array_clear(jobs);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
}

static int prio_print(struct prio_args *a, json_t *reply)
{
    struct fmt_spec sp;
    struct err e;
    size_t i;
    json_t *job, *w = json_object_get(reply, "weights"), *jobs;
    char def[256];

    if (a->json) {
        json_dumpf(reply, stdout, JSON_INDENT(2));
        putchar('\n');
        return 0;
    }
    prioview_default_format(a->lng, a->norm, w, def, sizeof(def));
    if (fmt_spec_parse(a->format ? a->format : def, PRIO_LETTERS, &sp, &e) <
        0) {
        cli_error("--format: %s", e.text);
        return 1;
    }
    if (!a->noheader)
        fmt_spec_print(stdout, &sp, prio_header, NULL);
    if (a->weights) {
        struct row r = {NULL, w, a->norm};
        fmt_spec_print(stdout, &sp, prio_value, &r);
    } else {
        jobs = prioview_listed(a->parts, reply);
        if (a->sort != NULL)
            sort_jobs(a->sort, w, jobs);
        json_array_foreach(jobs, i, job)
        {
            struct row r = {job, w, a->norm};
            fmt_spec_print(stdout, &sp, prio_value, &r);
        }
        json_decref(jobs);
    }
    fmt_spec_free(&sp);
    print_notes(reply);
    return 0;
}

int cmd_prio(int argc, char **argv)
{
    struct prio_args a = {.req = json_object()};
    json_t *reply = NULL;
    struct err e;
    int rc;

    cli_set_prog(argv[0]);
    rc = prio_parse(&a, argc, argv);
    if (rc <= 0) {
        json_decref(a.req);
        return rc < 0 ? 1 : 0;
    }
    if (cli_call(PROTO_MSG_PRIO_QUERY, a.req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else {
        rc = prio_print(&a, reply);
    }
    json_decref(reply);
    json_decref(a.req);
    cli_close();
    return rc;
}
