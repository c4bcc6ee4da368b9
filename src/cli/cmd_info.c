/*
 * sluice info / sinfo: partitions and their nodes, one row per partition
 * and node state (or per node with -N, per reason with -R), in sinfo's
 * columns, -o FORMAT, or --json.
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
    I_FORMAT_LONG,
    I_NOCONVERT,
    I_EXACT,
    I_ITERATE,
    I_SORT,
    I_HELP,
    I_VERSION,
    I_RESV,
};

/* sinfo -O's width of a field given without one. */
#define INFO_FORMAT_WIDTH 20

static const struct opt_def info_opts[] = {
    {"Node", 'N', OPT_NOARG, I_NODE},
    {"long", 'l', OPT_NOARG, I_LONG},
    {"list-reasons", 'R', OPT_NOARG, I_REASONS},
    {"summarize", 's', OPT_NOARG, I_SUMMARY},
    {"partition", 'p', OPT_ARG, I_PARTITION},
    {"nodes", 'n', OPT_ARG, I_NODES},
    {"states", 't', OPT_ARG, I_STATES},
    {"format", 'o', OPT_ARG, I_FORMAT},
    {"Format", 'O', OPT_ARG, I_FORMAT_LONG},
    {"noconvert", 0, OPT_NOARG, I_NOCONVERT},
    {"exact", 'e', OPT_NOARG, I_EXACT},
    {"iterate", 'i', OPT_ARG, I_ITERATE},
    {"sort", 'S', OPT_ARG, I_SORT},
    {"noheader", 'h', OPT_NOARG, I_NOHEADER},
    {"json", 0, OPT_OPTARG, I_JSON},
    {"responding", 'r', OPT_NOARG, I_RESPONDING},
    {"dead", 'd', OPT_NOARG, I_DEAD},
    {"all", 'a', OPT_NOARG, I_ALL},
    {"help", 0, OPT_NOARG, I_HELP},
    {"usage", 0, OPT_NOARG, I_HELP},
    {"version", 'V', OPT_NOARG, I_VERSION},
    {"reservation", 'T', OPT_NOARG, I_RESV},
    {NULL, 0, OPT_NOARG, 0},
};

struct info {
    bool per_node, lng, reasons, summary, noheader, json, responding, dead;
    bool resv;        /* -T, --reservation (cmd_resv.c) */
    bool json_sluice; /* --json=sluice */
    const char *format;
    const char *named;  /* -O FIELDS */
    const char *sort;   /* -S KEYS */
    long iterate_s;     /* -i SECONDS, 0: once */
    char *all;          /* what "%all" stands for */
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
           "  -O, --Format=FIELDS   -e, --exact         -i, --iterate=SECS\n"
           "  -S, --sort=KEYS       --noconvert\n"
           "Format letters: %s\n",
           cli_slurm_face() ? "sinfo" : "sluice info", NODEVIEW_LETTERS);
}

static void info_clear(struct info *in)
{
    json_decref(in->partitions);
    json_decref(in->states);
    hostlist_destroy(in->nodes);
    free(in->all);
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
        in->named = NULL;
        return 0;
    case I_FORMAT_LONG:
        in->named = arg;
        return 0;
    case I_NOCONVERT: /* sinfo's sizes are MiB numbers already */
    case I_EXACT:     /* rows group only equal nodes already */
        return 0;
    case I_SORT:
        in->sort = arg;
        return 0;
    case I_ITERATE:
        in->iterate_s = strtol(arg, NULL, 10);
        if (in->iterate_s <= 0) {
            errno = EINVAL;
            return err_set(e, "invalid --iterate value \"%s\"", arg);
        }
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
    case I_RESV:
        in->resv = true;
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

/* "%all": every letter, a to z then A to Z, separated by '|'. */
static const char *info_all_format(struct info *in)
{
    size_t n = 0, cap = 4 * sizeof(NODEVIEW_LETTERS);

    if (in->all == NULL) {
        in->all = xmalloc(cap);
        in->all[0] = '\0';
        for (int pass = 0; pass < 2; pass++)
            for (const char *c = NODEVIEW_LETTERS; *c != '\0'; c++)
                if ((pass == 0) == (*c >= 'a' && *c <= 'z'))
                    n += (size_t)snprintf(in->all + n, cap - n, "%s%%%c",
                                          n > 0 ? "|" : "", *c);
    }
    return in->all;
}

/* The format string for the options given (sinfo's own for -l, -N, -R,
 * -s and their mixes). */
static const char *info_format(struct info *in)
{
    if (in->format != NULL)
        return strcasecmp(in->format, "%all") == 0 ? info_all_format(in)
                                                   : in->format;
    if (in->reasons)
        return in->lng ? NODEVIEW_FORMAT_REASONS_LONG : NODEVIEW_FORMAT_REASONS;
    if (in->summary)
        return NODEVIEW_FORMAT_SUMMARY;
    if (in->per_node)
        return in->lng ? NODEVIEW_FORMAT_NODE_LONG : NODEVIEW_FORMAT_NODE;
    return in->lng ? NODEVIEW_FORMAT_LONG : NODEVIEW_FORMAT;
}

/* The columns: -O FIELDS or a format string. */
static int info_spec(struct info *in, struct fmt_spec *sp, struct err *e)
{
    if (in->named != NULL) {
        if (fmt_spec_parse_names(in->named, nodeview_field_code,
                                 INFO_FORMAT_WIDTH, sp, e) < 0)
            return err_prefix(e, "--Format");
        return 0;
    }
    if (fmt_spec_parse(info_format(in), NODEVIEW_LETTERS, sp, e) < 0)
        return err_prefix(e, "--format");
    return 0;
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

/* One row's text of letter. */
static const char *info_row_value(json_t *row, char letter, char *buf,
                                  size_t len)
{
    json_t *part = json_object_get(row, "part");
    struct nodeview_row r = {json_is_object(part) ? part : NULL,
                             json_object_get(row, "nodes")};

    return nodeview_value(letter, &r, buf, len);
}

/* Numbers as numbers, the rest as text. */
static int info_value_cmp(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);

    if (*a != '\0' && *b != '\0' && *ea == '\0' && *eb == '\0')
        return x < y ? -1 : x > y;
    return strcmp(a, b);
}

/* -S KEYS ("P,-t", "#P" as sinfo allows): a stable sort of the rows by
 * those letters, "-" descending.  -1 with e on a bad key. */
static int info_sort_keys(const char *keys, json_t *rows, struct err *e)
{
    size_t n = json_array_size(rows);
    json_t **v;

    for (const char *p = keys; *p != '\0'; p++)
        if (strchr("+-#%,", *p) == NULL &&
            strchr(NODEVIEW_LETTERS, *p) == NULL) {
            errno = EINVAL;
            return err_set(e, "--sort: invalid sort key \"%s\"", keys);
        }
    v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(rows, i));
    for (size_t i = 1; i < n; i++) { /* insertion: stable, rows are few */
        json_t *t = v[i];
        size_t k = i;
        while (k > 0) {
            int c = 0;
            for (const char *p = keys; *p != '\0' && c == 0;) {
                bool desc = *p == '-';
                char ba[1024], bb[1024];
                while (*p != '\0' && strchr("+-#%", *p) != NULL)
                    p++;
                if (*p == '\0')
                    break;
                c = info_value_cmp(info_row_value(v[k - 1], *p, ba, sizeof(ba)),
                                   info_row_value(t, *p, bb, sizeof(bb)));
                c = desc ? -c : c;
                p++;
                if (*p == ',')
                    p++;
            }
            if (c <= 0)
                break;
            v[k] = v[k - 1];
            k--;
        }
        v[k] = t;
    }
    json_array_clear(rows);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(rows, v[i]);
    free(v);
    return 0;
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

static int info_print(struct info *in, json_t *parts, json_t *nodes)
{
    struct fmt_spec sp;
    struct err e;
    json_t *rows, *row;
    size_t i;

    if (info_spec(in, &sp, &e) < 0) {
        cli_error("%s", e.text);
        return 1;
    }
    rows = info_rows(in, parts, nodes, &sp);
    if (in->sort != NULL && info_sort_keys(in->sort, rows, &e) < 0) {
        cli_error("%s", e.text);
        json_decref(rows);
        fmt_spec_free(&sp);
        return 1;
    }
    /* "%#N", "%#P": as wide as the widest value (or the title) */
    fmt_spec_fit(&sp, info_header, NULL);
    json_array_foreach(rows, i, row)
    {
        json_t *part = json_object_get(row, "part");
        struct nodeview_row r = {json_is_object(part) ? part : NULL,
                                 json_object_get(row, "nodes")};
        fmt_spec_fit(&sp, nodeview_value, &r);
    }
    if (in->lng || in->iterate_s > 0) {
        char buf[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
        printf("%s\n", buf);
    }
    if (!in->noheader)
        fmt_spec_print(stdout, &sp, info_header, NULL);
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
    if (in.format != NULL || in.named != NULL) {
        struct fmt_spec sp;
        struct err e;
        if (info_spec(&in, &sp, &e) < 0) {
            cli_error("%s", e.text);
            info_clear(&in);
            return 1;
        }
        fmt_spec_free(&sp);
    }
    for (;;) {
        if (in.resv && !in.json) {
            rc = resv_sinfo_run(in.noheader);
            parts = nodes = NULL;
        } else if (info_fetch(&parts, &nodes) < 0) {
            rc = 1;
        } else if (in.json) {
            info_print_json(&in, parts, nodes);
            rc = 0;
        } else {
            rc = info_print(&in, parts, nodes);
        }
        json_decref(parts);
        json_decref(nodes);
        if (rc != 0 || in.iterate_s == 0)
            break;
        putchar('\n');
        fflush(stdout);
        sleep((unsigned)in.iterate_s);
    }
    info_clear(&in);
    cli_close();
    return rc;
}
