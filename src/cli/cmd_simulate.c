/*
 * sluice simulate: a workload (an SWF trace, the Alibaba GPU trace, or
 * Sluice's own accounting history) replayed through the scheduler core
 * against a candidate configuration in simulated time (src/sim,
 * docs/simulate.md); the report as text or --json, SVG plots, and two
 * configurations side by side with --compare.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/acctview.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/opt.h"
#include "cli/when.h"
#include "common/conf.h"
#include "common/proto.h"
#include "common/value.h"
#include "common/xalloc.h"
#include "sim/acct.h"
#include "sim/alibaba.h"
#include "sim/history.h"
#include "sim/map.h"
#include "sim/plots.h"
#include "sim/report.h"
#include "sim/sim.h"
#include "sim/swf.h"

/* The largest workload, configuration or QOS file read (bytes). */
#define SIM_FILE_MAX ((size_t)1 << 30)

enum {
    S_WORKLOAD = 1,
    S_FORMAT,
    S_CONFIG,
    S_QOS,
    S_NODES,
    S_START,
    S_END,
    S_SCALE,
    S_PLOTS,
    S_JSON,
    S_SEED,
    S_COMPARE,
    S_MAP,
    S_ACCT,
    S_GRACE,
    S_JOBS,
    S_HELP,
};

static const struct opt_def sim_opts[] = {
    {"workload", 'w', OPT_ARG, S_WORKLOAD},
    {"format", 0, OPT_ARG, S_FORMAT},
    {"config", 'c', OPT_ARG, S_CONFIG},
    {"qos", 0, OPT_ARG, S_QOS},
    {"nodes", 0, OPT_ARG, S_NODES},
    {"starttime", 'S', OPT_ARG, S_START},
    {"endtime", 'E', OPT_ARG, S_END},
    {"time-scale", 0, OPT_ARG, S_SCALE},
    {"plots", 0, OPT_ARG, S_PLOTS},
    {"json", 0, OPT_NOARG, S_JSON},
    {"seed", 0, OPT_ARG, S_SEED},
    {"compare", 0, OPT_ARG, S_COMPARE},
    {"map", 0, OPT_ARG, S_MAP},
    {"from-accounting", 0, OPT_NOARG, S_ACCT},
    {"use-grace", 0, OPT_NOARG, S_GRACE},
    {"jobs", 0, OPT_NOARG, S_JOBS},
    {"help", 'h', OPT_NOARG, S_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

static const char usage[] =
    "usage: sluice simulate -w WORKLOAD [--format swf|alibaba|sacct] "
    "[-c CONFIG] [--qos FILE]\n"
    "         [--map FROM=PART[:gpu[=N]|:nogpu][:qos=Q],...] [--nodes FILE] "
    "[-S START] [-E END]\n"
    "         [--time-scale F] [--seed N] [--use-grace] [--plots DIR] "
    "[--json [--jobs]]\n"
    "       sluice simulate --from-accounting [-S START] [-E END] ...\n"
    "       sluice simulate ... --compare A.conf B.conf\n";

enum sim_format { FMT_NONE, FMT_SWF, FMT_ALIBABA, FMT_SACCT };

struct simq {
    const char *workload, *config, *qos, *nodes, *plots, *map, *start, *end;
    const char *cmp[2];
    enum sim_format format;
    double scale;
    uint64_t seed;
    bool json, acct, grace, jobs;
};

/* The raw workload, read once and mapped onto each configuration. */
struct raw {
    enum sim_format format;
    const char *name;
    struct sim_swf swf;
    struct sim_alibaba ali;
    char *nodes_conf; /* a configuration made from the Alibaba node list */
    json_t *hist;     /* the accounting history's jobs */
};

static int format_of(const char *s, enum sim_format *out, struct err *e)
{
    if (strcasecmp(s, "swf") == 0)
        *out = FMT_SWF;
    else if (strcasecmp(s, "alibaba") == 0)
        *out = FMT_ALIBABA;
    else if (strcasecmp(s, "sacct") == 0 || strcasecmp(s, "json") == 0)
        *out = FMT_SACCT;
    else
        return err_inval(e, "--format=%s: expected swf, alibaba or sacct", s);
    return 0;
}

/* The format a file name suggests (.swf, .csv, .json). */
static enum sim_format guess(const char *path)
{
    const char *dot = strrchr(path, '.');

    if (dot == NULL)
        return FMT_NONE;
    if (strcasecmp(dot, ".swf") == 0)
        return FMT_SWF;
    if (strcasecmp(dot, ".csv") == 0)
        return FMT_ALIBABA;
    if (strcasecmp(dot, ".json") == 0)
        return FMT_SACCT;
    return FMT_NONE;
}

static int opt(struct simq *q, int id, const char *arg, struct err *e)
{
    char *end;

    switch (id) {
    case S_WORKLOAD:
        q->workload = arg;
        return 0;
    case S_FORMAT:
        return format_of(arg, &q->format, e);
    case S_CONFIG:
        q->config = arg;
        return 0;
    case S_QOS:
        q->qos = arg;
        return 0;
    case S_NODES:
        q->nodes = arg;
        return 0;
    case S_START:
        q->start = arg;
        return 0;
    case S_END:
        q->end = arg;
        return 0;
    case S_SCALE:
        q->scale = strtod(arg, &end);
        if (end == arg || *end != '\0' || !(q->scale > 0 && q->scale <= 1e6))
            return err_inval(e, "--time-scale=%s: expected a number > 0", arg);
        return 0;
    case S_PLOTS:
        q->plots = arg;
        return 0;
    case S_JSON:
        q->json = true;
        return 0;
    case S_SEED:
        return value_parse_u64(arg, 0, UINT64_MAX, &q->seed, e) < 0
                   ? err_prefix(e, "--seed")
                   : 0;
    case S_COMPARE:
        q->cmp[0] = arg;
        return 0;
    case S_MAP:
        q->map = arg;
        return 0;
    case S_ACCT:
        q->acct = true;
        return 0;
    case S_GRACE:
        q->grace = true;
        return 0;
    case S_JOBS:
        q->jobs = true;
        return 0;
    }
    return 0;
}

/* The options and operands (--compare's second file); 1 parsed, 0 after
 * --help, -1 after an error. */
static int parse(struct simq *q, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;
    char *b = NULL;

    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, sim_opts, &id, &arg, &e)) > 0) {
        if (id == S_HELP) {
            fputs(usage, stdout);
            opt_free(&st);
            return 0;
        }
        if ((rc = opt(q, id, arg, &e)) < 0)
            break;
    }
    if (rc == 0 && q->cmp[0] != NULL && st.n_operands == 1)
        b = st.operands[0];
    else if (rc == 0 && st.n_operands > 0)
        rc = err_inval(&e, "unexpected argument \"%s\"%s", st.operands[0],
                       q->cmp[0] ? "" : " (--compare takes two files)");
    else if (rc == 0 && q->cmp[0] != NULL)
        rc = err_inval(&e, "--compare A.conf B.conf: the second file is "
                           "missing");
    if (cli_opt_end(&st, rc, &e) < 0)
        return -1;
    q->cmp[1] = b;
    if (q->workload == NULL && !q->acct) {
        cli_error("a workload is needed: -w FILE, or --from-accounting");
        return -1;
    }
    if (q->format == FMT_NONE)
        q->format = q->acct ? FMT_SACCT : guess(q->workload);
    if (q->format == FMT_NONE) {
        cli_error("%s: which format? --format swf, alibaba or sacct",
                  q->workload);
        return -1;
    }
    return 1;
}

/* ---- the workload ------------------------------------------------------------ */

/* Every page of JOB_ACCT for req, each job as sacct --json=sluice shows
 * it; NULL after an error (printed). */
static json_t *fetch_history(json_t *req)
{
    json_t *all = json_array();
    time_t now = time(NULL);
    struct err e;

    for (;;) {
        json_t *reply = NULL, *next, *j;
        size_t i;
        if (cli_call(PROTO_MSG_JOB_ACCT, req, &reply, &e) < 0) {
            cli_error("%s", e.text);
            json_decref(all);
            return NULL;
        }
        json_array_foreach(json_object_get(reply, "jobs"), i, j)
        {
            json_array_append_new(all, acctview_json(j, now));
        }
        next = json_object_get(reply, "next_after_job_id");
        if (!json_is_integer(next)) {
            json_decref(reply);
            return all;
        }
        json_object_set(req, "after_job_id", next);
        json_decref(reply);
    }
}

/* A node list beside an Alibaba pod list (the trace's file names). */
static char *sibling_nodes(const char *pods)
{
    const char *p = strstr(pods, "pod_list");
    char *path;

    if (p == NULL)
        return NULL;
    path = xasprintf("%.*snode_list_gpu_node.csv", (int)(p - pods), pods);
    if (access(path, R_OK) == 0)
        return path;
    free(path);
    return NULL;
}

static int read_alibaba(const struct simq *q, struct raw *r, const char *buf,
                        size_t len, struct err *e)
{
    char *nodes = q->nodes ? xstrdup(q->nodes) : NULL, *nb;
    size_t nlen;
    int rc = sim_alibaba_parse(buf, len, q->workload, &r->ali, e);

    if (rc == 0 && nodes == NULL && q->config == NULL)
        nodes = sibling_nodes(q->workload);
    if (rc == 0 && nodes != NULL) {
        if ((nb = sim_read_file(nodes, SIM_FILE_MAX, &nlen, e)) == NULL)
            rc = -1;
        else if ((r->nodes_conf = sim_alibaba_conf(nb, nlen, nodes, e)) == NULL)
            rc = -1;
        free(nb);
    }
    free(nodes);
    return rc;
}

static int read_raw(const struct simq *q, struct raw *r, struct err *e)
{
    json_t *req;
    char *buf;
    size_t len;
    int rc = -1;

    r->format = q->format;
    r->name = q->workload ? q->workload : "accounting";
    if (q->acct) {
        time_t t;
        req = json_pack("{s:b, s:b}", "all_users", 1, "events", 1);
        if (q->start != NULL &&
            when_parse(q->start, time(NULL), WHEN_TODAY, &t, e) == 0)
            json_object_set_new(req, "start_time", json_integer(t));
        if (q->end != NULL &&
            when_parse(q->end, time(NULL), WHEN_TODAY, &t, e) == 0)
            json_object_set_new(req, "end_time", json_integer(t));
        r->hist = fetch_history(req);
        json_decref(req);
        if (r->hist == NULL)
            return err_set(e, "the accounting history could not be read");
        return 0;
    }
    if ((buf = sim_read_file(q->workload, SIM_FILE_MAX, &len, e)) == NULL)
        return -1;
    switch (q->format) {
    case FMT_SWF:
        rc = sim_swf_parse(buf, len, q->workload, &r->swf, e);
        break;
    case FMT_ALIBABA:
        rc = read_alibaba(q, r, buf, len, e);
        break;
    case FMT_SACCT: {
        json_error_t je;
        json_t *root = json_loadb(buf, len, 0, &je);
        if (root == NULL) {
            rc = err_inval(e, "%s:%d: %s", q->workload, je.line, je.text);
            break;
        }
        r->hist = json_incref(
            json_is_array(root) ? root : json_object_get(root, "jobs"));
        json_decref(root);
        rc = r->hist != NULL
                 ? 0
                 : err_inval(e, "%s: expected {\"jobs\": [...]}", q->workload);
        break;
    }
    case FMT_NONE:
        break;
    }
    free(buf);
    return rc;
}

static void raw_free(struct raw *r)
{
    sim_swf_free(&r->swf);
    sim_alibaba_free(&r->ali);
    free(r->nodes_conf);
    json_decref(r->hist);
}

/* A point in the trace for -S/-E: "+DURATION" after the first
 * submission, a number of seconds (the trace's own time), or a date. */
static int trace_time(const char *s, const struct sim_trace *t, time_t *out,
                      struct err *e)
{
    time_t first = t->n > 0 ? t->jobs[0].submit : 0;
    uint64_t v;
    char *end;

    for (size_t i = 1; i < t->n; i++)
        if (t->jobs[i].submit < first)
            first = t->jobs[i].submit;
    if (s[0] == '+') {
        double d = strtod(s + 1, &end);
        double unit = *end == 'd'   ? 86400
                      : *end == 'h' ? 3600
                      : *end == 'm' ? 60
                                    : 1;
        if (end == s + 1 || !(d >= 0) ||
            (*end != '\0' && (strchr("smhd", *end) == NULL || end[1] != '\0')))
            return err_inval(e,
                             "\"%s\": expected +N[s|m|h|d] after the first "
                             "submission",
                             s);
        *out = first + (time_t)(d * unit);
        return 0;
    }
    if (value_parse_u64(s, 0, INT64_MAX / 2, &v, NULL) == 0) {
        *out = (time_t)v;
        return 0;
    }
    return when_parse(s, time(NULL), WHEN_TODAY, out, e);
}

/* The workload as jobs on conf: mapped, windowed, scaled. */
static int trace_for(const struct simq *q, const struct raw *r,
                     const struct conf *conf, struct sim_trace *t,
                     struct err *e)
{
    struct sim_map map = {0};
    time_t start = 0, end = 0;
    size_t dropped = 0;
    int rc = -1;

    sim_trace_init(t, r->name);
    if (sim_map_parse(q->map, &map, e) < 0)
        return -1;
    switch (r->format) {
    case FMT_SWF:
        rc = sim_swf_jobs(&r->swf, conf, &map, q->seed, t, e);
        break;
    case FMT_ALIBABA:
        rc = sim_alibaba_jobs(&r->ali, conf, &map, t, e);
        break;
    case FMT_SACCT:
        rc = sim_history_jobs(r->hist, t, e);
        break;
    case FMT_NONE:
        break;
    }
    sim_map_free(&map);
    if (rc < 0)
        return -1;
    sim_trace_sort(t);
    if (!q->acct && ((q->start && trace_time(q->start, t, &start, e) < 0) ||
                     (q->end && trace_time(q->end, t, &end, e) < 0)))
        return -1;
    sim_trace_window(t, start, end, &dropped);
    if (q->scale > 0 && q->scale != 1)
        sim_trace_scale(t, q->scale);
    return 0;
}

/* ---- runs ---------------------------------------------------------------------- */

static struct conf *conf_for(const struct raw *r, const char *path,
                             struct err *e)
{
    if (path == NULL && r->nodes_conf != NULL)
        return conf_parse_string(r->nodes_conf, "alibaba-nodes.conf", NULL, e);
    return conf_load(path ? path : cli_conf_path(), NULL, e);
}

/* The stem of a configuration's file name, for titles and plot files. */
static char *stem(const char *path, const struct raw *r)
{
    char *copy = xstrdup(path            ? path
                         : r->nodes_conf ? "alibaba-nodes.conf"
                                         : cli_conf_path());
    char *base = xstrdup(basename(copy)), *dot = strrchr(base, '.');

    if (dot != NULL && dot != base)
        *dot = '\0';
    free(copy);
    return base;
}

static int run_one(const struct simq *q, const struct raw *r,
                   struct sim_acct *acct, const char *path,
                   struct sim_report *rep, json_t **jobs, struct err *e)
{
    struct conf *conf = conf_for(r, path, e);
    struct sim_opts o = {.conf = conf, .use_grace = q->grace};
    struct sim_trace t;
    struct sim_result res;
    char *name;
    int rc = -1;

    if (conf == NULL)
        return -1;
    memset(&res, 0, sizeof(res));
    if (trace_for(q, r, conf, &t, e) == 0 &&
        sim_run(&o, &t, acct, &res, e) == 0) {
        char *tn = xstrdup(r->name);
        name = stem(path, r);
        sim_report_build(&res, basename(tn), name, rep);
        free(tn);
        free(name);
        if (jobs != NULL) {
            *jobs = json_array();
            for (size_t i = 0; i < res.nstarts; i++) {
                const struct sim_job_out *j = &res.jobs[res.starts[i].job];
                json_array_append_new(*jobs,
                                      json_pack("{s:I, s:I}", "job_id",
                                                (json_int_t)j->in->id, "start",
                                                (json_int_t)res.starts[i].t));
            }
        }
        rc = 0;
    }
    sim_result_free(&res);
    sim_trace_free(&t);
    conf_destroy(conf);
    return rc;
}

static void print_json(json_t *o)
{
    char *s =
        json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));

    printf("%s\n", s);
    free(s);
}

static int load_acct(const struct simq *q, struct sim_acct *a, struct err *e)
{
    char *buf;
    size_t len;
    int rc;

    sim_acct_init(a);
    if (q->qos == NULL)
        return 0;
    if ((buf = sim_read_file(q->qos, SIM_FILE_MAX, &len, e)) == NULL)
        return -1;
    rc = sim_acct_load(a, buf, len, q->qos, e);
    free(buf);
    return rc;
}

static int simulate(const struct simq *q)
{
    struct raw r = {0};
    struct sim_acct acct;
    struct sim_report rep[2];
    json_t *starts[2] = {NULL, NULL};
    size_t nrun = q->cmp[0] ? 2 : 1;
    struct err e;
    int rc = 1;

    memset(rep, 0, sizeof(rep));
    if (load_acct(q, &acct, &e) < 0 || read_raw(q, &r, &e) < 0) {
        cli_error("%s", e.text);
        goto out;
    }
    for (size_t i = 0; i < nrun; i++)
        if (run_one(q, &r, &acct, q->cmp[0] ? q->cmp[i] : q->config, &rep[i],
                    q->jobs ? &starts[i] : NULL, &e) < 0) {
            cli_error("%s", e.text);
            goto out;
        }
    if (nrun == 2 && strcmp(rep[0].config, rep[1].config) == 0) {
        free(rep[1].config);
        rep[1].config = xasprintf("%s-b", rep[0].config);
    }
    for (size_t i = 0; q->plots != NULL && i < nrun; i++) {
        char *prefix =
            nrun == 2 ? xasprintf("%s-", rep[i].config) : xstrdup("");
        int prc = sim_plots_write(&rep[i], q->plots, prefix, &e);
        free(prefix);
        if (prc < 0) {
            cli_error("%s", e.text);
            goto out;
        }
    }
    if (q->json) {
        json_t *o[2];
        for (size_t i = 0; i < nrun; i++) {
            o[i] = sim_report_json(&rep[i]);
            if (starts[i] != NULL)
                json_object_set(o[i], "starts", starts[i]);
        }
        if (nrun == 2) {
            json_t *c = json_pack("{s:o, s:o}", "a", o[0], "b", o[1]);
            print_json(c);
            json_decref(c);
        } else {
            print_json(o[0]);
            json_decref(o[0]);
        }
    } else if (nrun == 2) {
        sim_report_compare(stdout, &rep[0], &rep[1]);
    } else {
        sim_report_print(stdout, &rep[0]);
    }
    rc = 0;
out:
    for (size_t i = 0; i < 2; i++) {
        sim_report_free(&rep[i]);
        json_decref(starts[i]);
    }
    raw_free(&r);
    sim_acct_free(&acct);
    return rc;
}

int cmd_simulate(int argc, char **argv)
{
    struct simq q = {.seed = 1};
    int rc;

    cli_set_prog(argv[0]);
    rc = parse(&q, argc, argv);
    if (rc <= 0)
        return rc < 0 ? 2 : 0;
    if (q.acct)
        cli_set_raw(true);
    rc = simulate(&q);
    cli_close();
    return rc;
}
