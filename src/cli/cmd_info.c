/*
 * sluice info / sinfo: partitions and their nodes, one row per partition
 * and node state (or per node with -N, per reason with -R), in sinfo's
 * columns, -o FORMAT, or --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobview.h"
#include "cli/nodeview.h"
#include "cli/opt.h"
#include "common/hostlist.h"
#include "common/proto.h"
#include "common/slurmjson.h"
#include "common/xalloc.h"

enum {
    I_NODE = 1,
    I_LONG,
    I_REASONS,
    I_SUMMARY,
    I_PARTITION,
    I_NODES,
    I_STATES,
    I_FORMAT,
    I_NOHEADER,
    I_JSON,
    I_RESPONDING,
    I_DEAD,
    I_ALL,
    I_HELP,
    I_VERSION,
};

static const struct opt_def info_opts[] = {
    {"Node", 'N', OPT_NOARG, I_NODE},
    {"long", 'l', OPT_NOARG, I_LONG},
    {"list-reasons", 'R', OPT_NOARG, I_REASONS},
    {"summarize", 's', OPT_NOARG, I_SUMMARY},
    {"partition", 'p', OPT_ARG, I_PARTITION},
    {"nodes", 'n', OPT_ARG, I_NODES},
    {"states", 't', OPT_ARG, I_STATES},
    {"format", 'o', OPT_ARG, I_FORMAT},
    {"noheader", 'h', OPT_NOARG, I_NOHEADER},
    {"json", 0, OPT_OPTARG, I_JSON},
    {"responding", 'r', OPT_NOARG, I_RESPONDING},
    {"dead", 'd', OPT_NOARG, I_DEAD},
    {"all", 'a', OPT_NOARG, I_ALL},
    {"help", 0, OPT_NOARG, I_HELP},
    {"usage", 0, OPT_NOARG, I_HELP},
    {"version", 'V', OPT_NOARG, I_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

struct info {
    bool per_node, lng, reasons, summary, noheader, json, responding, dead;
    bool json_sluice; /* --json=sluice */
    const char *format;
    json_t *partitions; /* names, or NULL */
    struct hostlist *nodes;
    json_t *states; /* state words, or NULL */
};

static void info_help(void)
{
    printf("Usage: %s [OPTIONS]\n"
           "  -N, --Node            -l, --long          -R, --list-reasons\n"
           "  -s, --summarize       -p, --partition=LIST -n, --nodes=HOSTS\n"
           "  -t, --states=LIST     -o, --format=FORMAT -h, --noheader\n"
           "  -r, --responding      -d, --dead          --json\n"
           "Format letters: %s\n",
           cli_slurm_face() ? "sinfo" : "sluice info", NODEVIEW_LETTERS);
}

static void info_clear(struct info *in)
{
    json_decref(in->partitions);
    json_decref(in->states);
    hostlist_destroy(in->nodes);
}

/* Comma-separated items of arg appended to *list (created on demand). */
static void info_list(json_t **list, const char *arg)
{
    const char *p = arg;

    if (*list == NULL)
        *list = json_array();
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 0)
            json_array_append_new(*list, json_stringn(p, len));
        p += len + (p[len] == ',');
    }
}

static int info_option(struct info *in, int id, const char *arg, struct err *e)
{
    size_t i;
    json_t *v;

    switch (id) {
    case I_NODE:
        in->per_node = true;
        return 0;
    case I_LONG:
        in->lng = true;
        return 0;
    case I_REASONS:
        in->reasons = true;
        return 0;
    case I_SUMMARY:
        in->summary = true;
        return 0;
    case I_PARTITION:
        info_list(&in->partitions, arg);
        return 0;
    case I_NODES:
        if (in->nodes == NULL)
            in->nodes = hostlist_create();
        return hostlist_push(in->nodes, arg, e);
    case I_STATES:
        info_list(&in->states, arg);
        json_array_foreach(in->states, i, v)
        {
            if (!nodeview_state_valid(json_string_value(v)))
                return err_set(e,
                               "invalid node state \"%s\" (expected "
                               "idle, alloc, mix, down, drain, drng, "
                               "inval or unk, or their long names)",
                               json_string_value(v));
        }
        return 0;
    case I_FORMAT:
        in->format = arg;
        return 0;
    case I_NOHEADER:
        in->noheader = true;
        return 0;
    case I_JSON:
        in->json = true;
        cli_set_raw(true); /* exact JSON out */
        return cli_json_schema(arg, &in->json_sluice, e);
    case I_RESPONDING:
        in->responding = true;
        return 0;
    case I_DEAD:
        in->dead = true;
        return 0;
    default:
        return 0;
    }
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int info_parse(struct info *in, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, info_opts, &id, &arg, &e)) > 0) {
        if (id == I_HELP || id == I_VERSION) {
            if (id == I_HELP)
                info_help();
            else
                printf("sluice %s\n", SLUICE_VERSION);
            return 0;
        }
        if ((rc = info_option(in, id, arg, &e)) < 0)
            break;
    }
    return cli_opt_end(&st, rc, &e);
}

/* The format string for the options given; caller frees. */
static char *info_format(const struct info *in, json_t *nodes)
{
    size_t w = 8, i;
    json_t *n;

    if (in->format != NULL)
        return xstrdup(in->format);
    if (in->reasons)
        return xstrdup(NODEVIEW_FORMAT_REASONS);
    if (in->summary)
        return xstrdup(NODEVIEW_FORMAT_SUMMARY);
    if (!in->per_node)
        return xstrdup(in->lng ? NODEVIEW_FORMAT_LONG : NODEVIEW_FORMAT);
    json_array_foreach(nodes, i, n)
    {
        size_t l = strlen(jobview_str(n, "name", ""));
        w = l > w ? l : w;
    }
    if (in->lng)
        return xasprintf("%%-%zuN %%.6D %%.9P %%.11T %%.4c %%.8m %%.10G "
                         "%%20E",
                         w + 2);
    return xasprintf("%%-%zuN %%.6D %%.9P %%6t", w + 2);
}

/* Whether a node passes -n, -t, -r, -d (and -R: has a reason). */
static bool info_node_ok(const struct info *in, json_t *node)
{
    const char *st = jobview_str(node, "state", "UNKNOWN");
    bool dead = strcmp(st, "DOWN") == 0 || strcmp(st, "UNKNOWN") == 0;
    size_t i;
    json_t *v;

    if (in->nodes != NULL &&
        hostlist_find(in->nodes, jobview_str(node, "name", "")) < 0)
        return false;
    if ((in->responding && dead) || (in->dead && !dead))
        return false;
    if (in->reasons && (jobview_str(node, "reason", "")[0] == '\0' ||
                        strcmp(st, "IDLE") == 0 || strcmp(st, "MIXED") == 0 ||
                        strcmp(st, "ALLOCATED") == 0))
        return false;
    if (in->states == NULL)
        return true;
    json_array_foreach(in->states, i, v)
    {
        if (nodeview_state_match(node, json_string_value(v)))
            return true;
    }
    return false;
}

static bool info_part_ok(const struct info *in, json_t *part)
{
    size_t i;
    json_t *v;

    if (in->partitions == NULL)
        return true;
    json_array_foreach(in->partitions, i, v)
    {
        if (strcmp(json_string_value(v), jobview_str(part, "name", "")) == 0)
            return true;
    }
    return false;
}

/* The nodes of part (by its compressed list) that pass the filters. */
static json_t *info_part_nodes(const struct info *in, json_t *part,
                               json_t *nodes)
{
    struct hostlist *hl = hostlist_expand(jobview_str(part, "nodes", ""), NULL);
    json_t *out = json_array(), *n;
    size_t i;

    json_array_foreach(nodes, i, n)
    {
        if (hl != NULL && hostlist_find(hl, jobview_str(n, "name", "")) >= 0 &&
            info_node_ok(in, n))
            json_array_append(out, n);
    }
    hostlist_destroy(hl);
    return out;
}

static int info_row_cmp(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_t *nx = json_array_get(json_object_get(x, "nodes"), 0);
    json_t *ny = json_array_get(json_object_get(y, "nodes"), 0);
    int c = strcmp(jobview_str(nx, "name", ""), jobview_str(ny, "name", ""));

    if (c != 0)
        return c;
    return (int)(jobview_int(x, "order", 0) - jobview_int(y, "order", 0));
}

/* -N: rows by node name, then in partition order. */
static void info_sort_rows(json_t *rows)
{
    size_t n = json_array_size(rows);
    json_t **v = xcalloc(n + 1, sizeof(*v));

    for (size_t i = 0; i < n; i++) {
        v[i] = json_incref(json_array_get(rows, i));
        json_object_set_new(v[i], "order", json_integer((json_int_t)i));
    }
    qsort(v, n, sizeof(*v), info_row_cmp);
    json_array_clear(rows);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(rows, v[i]);
    free(v);
}

static json_t *info_rows(const struct info *in, json_t *parts, json_t *nodes,
                         const struct fmt_spec *sp)
{
    json_t *rows = json_array(), *p, *n;
    bool node_filter = in->nodes || in->states || in->responding || in->dead;
    size_t i;

    if (in->reasons) {
        json_t *sel = json_array();
        json_array_foreach(nodes, i, n)
        {
            if (info_node_ok(in, n))
                json_array_append(sel, n);
        }
        nodeview_group(rows, NULL, sel, sp, false);
        json_decref(sel);
        return rows;
    }
    json_array_foreach(parts, i, p)
    {
        json_t *pn;
        if (!info_part_ok(in, p))
            continue;
        pn = info_part_nodes(in, p, nodes);
        if (json_array_size(pn) > 0)
            nodeview_group(rows, p, pn, sp, in->per_node);
        else if (!node_filter)
            json_array_append_new(rows,
                                  json_pack("{s:O, s:[]}", "part", p, "nodes"));
        json_decref(pn);
    }
    if (in->per_node)
        info_sort_rows(rows);
    return rows;
}

static const char *info_header(char letter, const void *ctx, char *buf,
                               size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return nodeview_header(letter);
}

static void info_print_json(const struct info *in, json_t *parts, json_t *nodes)
{
    json_t *o = json_object(), *po = json_array(), *no = json_array(), *v;
    size_t i;

    json_array_foreach(parts, i, v)
    {
        if (info_part_ok(in, v))
            json_array_append(po, v);
    }
    json_array_foreach(nodes, i, v)
    {
        if (info_node_ok(in, v))
            json_array_append(no, v);
    }
    if (in->json_sluice) {
        json_object_set_new(o, "partitions", po);
        json_object_set_new(o, "nodes", no);
        cli_print_json(o);
        return;
    }
    json_decref(o); /* Slurm's v0.0.38 schema (docs/json.md) */
    {
        struct slurmjson_ctx ctx = {cli_cluster_name(), time(NULL)};
        json_t *sn = json_array(), *sp = json_array();
        json_array_foreach(no, i, v)
            json_array_append_new(sn, slurmjson_node(v, &ctx));
        json_array_foreach(po, i, v)
            json_array_append_new(sp, slurmjson_partition(v, &ctx));
        o = slurmjson_response(SLURMJSON_CTLD, "nodes", sn);
        json_object_set_new(o, "partitions", sp);
        json_decref(no);
        json_decref(po);
        cli_print_json(o);
    }
}

static int info_print(const struct info *in, json_t *parts, json_t *nodes)
{
    char *format = info_format(in, nodes);
    struct fmt_spec sp;
    struct err e;
    json_t *rows, *row;
    size_t i;

    if (fmt_spec_parse(format, NODEVIEW_LETTERS, &sp, &e) < 0) {
        cli_error("--format: %s", e.text);
        free(format);
        return 1;
    }
    free(format);
    if (in->lng) {
        char buf[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
        printf("%s\n", buf);
    }
    if (!in->noheader)
        fmt_spec_print(stdout, &sp, info_header, NULL);
    rows = info_rows(in, parts, nodes, &sp);
    json_array_foreach(rows, i, row)
    {
        json_t *part = json_object_get(row, "part");
        struct nodeview_row r = {json_is_object(part) ? part : NULL,
                                 json_object_get(row, "nodes")};
        fmt_spec_print(stdout, &sp, nodeview_value, &r);
    }
    json_decref(rows);
    fmt_spec_free(&sp);
    return 0;
}

/* PART_QUERY and NODE_QUERY; -1 after printing why. */
static int info_fetch(json_t **parts, json_t **nodes)
{
    json_t *pr = NULL, *nr = NULL;
    struct err e;

    if (cli_call(PROTO_MSG_PART_QUERY, NULL, &pr, &e) < 0 ||
        cli_call(PROTO_MSG_NODE_QUERY, NULL, &nr, &e) < 0) {
        cli_error("cannot load partitions and nodes: %s", e.text);
        json_decref(pr);
        return -1;
    }
    *parts = json_incref(json_object_get(pr, "partitions"));
    *nodes = json_incref(json_object_get(nr, "nodes"));
    json_decref(pr);
    json_decref(nr);
    if (*parts == NULL)
        *parts = json_array();
    if (*nodes == NULL)
        *nodes = json_array();
    return 0;
}

int cmd_info(int argc, char **argv)
{
    struct info in = {0};
    json_t *parts = NULL, *nodes = NULL;
    int rc;

    cli_set_prog(argv[0]);
    rc = info_parse(&in, argc, argv);
    if (rc <= 0) {
        info_clear(&in);
        return rc < 0 ? 1 : 0;
    }
    if (in.format != NULL) {
        struct fmt_spec sp;
        struct err e;
        if (fmt_spec_parse(in.format, NODEVIEW_LETTERS, &sp, &e) < 0) {
            cli_error("--format: %s", e.text);
            info_clear(&in);
            return 1;
        }
        fmt_spec_free(&sp);
    }
    if (info_fetch(&parts, &nodes) < 0) {
        rc = 1;
    } else if (in.json) {
        info_print_json(&in, parts, nodes);
        rc = 0;
    } else {
        rc = info_print(&in, parts, nodes);
    }
    json_decref(parts);
    json_decref(nodes);
    info_clear(&in);
    cli_close();
    return rc;
}
