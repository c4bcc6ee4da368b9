/*
 * sluice check-config [-f FILE] [--json]: parse and check a configuration
 * (and the gres.conf beside it), print it in canonical form or as JSON,
 * with every warning and error as FILE:LINE:COL.  Exit 0 when valid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "common/cgroupconf.h"
#include "common/conf.h"
#include "common/gres.h"
#include "common/gresconf.h"
#include "common/xalloc.h"

/* name (gres.conf, cgroup.conf) in the directory of the config; caller
 * frees. */
static char *cc_beside(const char *conf_path, const char *name)
{
    const char *slash = strrchr(conf_path, '/');

    if (slash == NULL)
        return xstrdup(name);
    return xasprintf("%.*s/%s", (int)(slash - conf_path), conf_path, name);
}

/* With ConstrainRAMSpace=yes in the cgroup.conf beside the config (when
 * there is one), a job without --mem gets no memory limit unless
 * DefMemPerCPU or DefMemPerNode gives it one. */
static void cc_cgroup_check(const struct conf *c, const char *path,
                            struct conf_diag *d)
{
    char *cpath = cc_beside(path, "cgroup.conf");
    struct cgroupconf cg;
    struct err e;
    bool def = c->mem.def_per_cpu_mib || c->mem.def_per_node_mib;

    for (size_t i = 0; i < c->n_parts && !def; i++)
        def =
            c->parts[i].mem.def_per_cpu_mib || c->parts[i].mem.def_per_node_mib;
    if (!def && access(cpath, F_OK) == 0 &&
        cgroupconf_load(cpath, &cg, NULL, &e) == 0 && cg.constrain_ram &&
        cg.plugin != CGROUPCONF_DISABLED)
        conf_diag_add(d, CONF_WARNING, cpath, 0, 0,
                      "ConstrainRAMSpace=yes, but neither DefMemPerCPU nor "
                      "DefMemPerNode is set in %s: a job submitted without "
                      "--mem gets no memory limit and may take all of its "
                      "node's memory",
                      path);
    free(cpath);
}

/* A node's GRES counts against what gres.conf declares for it. */
static void cc_gres_compare(const struct conf_node *n, const struct gresconf *g,
                            const char *gpath, struct conf_diag *d)
{
    if (g->autodetect != GRESCONF_AUTODETECT_OFF)
        return;
    for (size_t k = 0; k < n->gres->n; k++) {
        const char *name = n->gres->items[k].name;
        uint64_t want = gres_count(n->gres, name, NULL);
        uint64_t have = gresconf_count(g, name, NULL);
        if (k > 0 && strcmp(n->gres->items[k - 1].name, name) == 0)
            continue;
        if (want != have)
            conf_diag_add(d, CONF_WARNING, n->loc.file, n->loc.line, n->loc.col,
                          "%s has Gres=%s:%llu but %s declares %llu for "
                          "it: sluiced will report %llu",
                          n->name, name, (unsigned long long)want, gpath,
                          (unsigned long long)have, (unsigned long long)have);
    }
}

/* Each node's gres.conf lines, checked and kept for printing. */
static struct gresconf **cc_gres_load(const struct conf *c, const char *gpath,
                                      struct conf_diag *d)
{
    struct gresconf **per = xcalloc(c->n_nodes + 1, sizeof(*per));
    struct gresconf *all = gresconf_load(gpath, NULL, d, NULL);

    if (all == NULL)
        return per;
    gresconf_destroy(all);
    for (size_t i = 0; i < c->n_nodes; i++) {
        per[i] = gresconf_load(gpath, c->nodes[i].name, NULL, NULL);
        if (per[i] != NULL)
            cc_gres_compare(&c->nodes[i], per[i], gpath, d);
    }
    return per;
}

void check_config_extra(const struct conf *c, const char *path,
                        struct conf_diag *d)
{
    char *gpath = cc_beside(path, "gres.conf");
    struct gresconf **per = NULL;

    cc_cgroup_check(c, path, d);
    if (access(gpath, F_OK) == 0)
        per = cc_gres_load(c, gpath, d);
    for (size_t i = 0; per && i < c->n_nodes; i++)
        gresconf_destroy(per[i]);
    free(per);
    free(gpath);
}

static json_t *cc_diag_json(const struct conf_diag *d, enum conf_severity s)
{
    json_t *a = json_array();

    for (size_t i = 0; i < d->n; i++) {
        const struct conf_diag_item *it = &d->items[i];
        if (it->severity == s)
            json_array_append_new(
                a, json_pack("{s:s, s:i, s:i, s:s}", "file", it->file, "line",
                             it->line, "column", it->col, "message", it->text));
    }
    return a;
}

static void cc_print_json(const struct conf *c, struct gresconf **per,
                          const struct conf_diag *d)
{
    json_t *o = json_object(), *g = json_object();

    json_object_set_new(o, "valid", json_boolean(d->n_errors == 0));
    json_object_set_new(o, "errors", cc_diag_json(d, CONF_ERROR));
    json_object_set_new(o, "warnings", cc_diag_json(d, CONF_WARNING));
    json_object_set_new(o, "config",
                        c && d->n_errors == 0 ? conf_to_json(c) : json_null());
    for (size_t i = 0; c && per && i < c->n_nodes; i++)
        if (per[i] != NULL && per[i]->n > 0)
            json_object_set_new(g, c->nodes[i].name, gresconf_to_json(per[i]));
    json_object_set_new(o, "gres_conf", g);
    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

static void cc_print_text(const struct conf *c, struct gresconf **per,
                          const char *gpath)
{
    char prefix[512];
    bool any = false;

    conf_print(c, stdout);
    for (size_t i = 0; per && i < c->n_nodes; i++) {
        if (per[i] == NULL ||
            (per[i]->n == 0 && per[i]->autodetect == GRESCONF_AUTODETECT_OFF))
            continue;
        if (!any)
            printf("\n# %s, as sluiced on each node reads it:\n", gpath);
        any = true;
        snprintf(prefix, sizeof(prefix), "# NodeName=%s ", c->nodes[i].name);
        gresconf_print(per[i], stdout, prefix);
    }
}

static int cc_usage(FILE *fp, int rc)
{
    fprintf(fp,
            "usage: sluice check-config [-f FILE] [--json]\n"
            "  FILE defaults to $SLUICE_CONF, else %s\n",
            CONF_DEFAULT_PATH);
    return rc;
}

enum { CC_FILE = 1, CC_JSON, CC_HELP };

static const struct opt_def cc_opts[] = {
    {"file", 'f', OPT_ARG, CC_FILE},
    {"json", 0, OPT_NOARG, CC_JSON},
    {"help", 'h', OPT_NOARG, CC_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_check_config(int argc, char **argv)
{
    const char *path = getenv("SLUICE_CONF"), *arg;
    bool json = false;
    struct conf_diag d;
    struct gresconf **per = NULL;
    struct opt_state st;
    struct conf *c;
    struct err e;
    char *gpath;
    int opt, id;

    if (path == NULL || path[0] == '\0')
        path = CONF_DEFAULT_PATH;
    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, false);
    while ((opt = opt_next(&st, cc_opts, &id, &arg, &e)) > 0) {
        if (id == CC_HELP) {
            opt_free(&st);
            return cc_usage(stdout, 0);
        }
        if (id == CC_FILE)
            path = arg;
        else
            json = true;
    }
    if (cli_opt_end(&st, opt, &e) < 0)
        return cc_usage(stderr, 2);
    conf_diag_init(&d);
    c = conf_load(path, &d, NULL);
    gpath = cc_beside(path, "gres.conf");
    if (c != NULL)
        cc_cgroup_check(c, path, &d);
    if (c != NULL && access(gpath, F_OK) == 0)
        per = cc_gres_load(c, gpath, &d);
    if (json) {
        cc_print_json(c, per, &d);
    } else {
        conf_diag_print(&d, stderr);
        if (c != NULL && d.n_errors == 0)
            cc_print_text(c, per, gpath);
    }
    opt = d.n_errors == 0 ? 0 : 1;
    for (size_t i = 0; per && i < c->n_nodes; i++)
        gresconf_destroy(per[i]);
    free(per);
    free(gpath);
    conf_destroy(c);
    conf_diag_free(&d);
    return opt;
}
