/*
 * gres.conf parsing with the slurm.conf lexer: every line is checked, and
 * the ones that apply to the requested node are kept as records with their
 * device files expanded ("/dev/nvidia[0-3]" -> four names).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/gresconf.h"
#include "common/hostlist.h"
#include "common/value.h"
#include "common/xalloc.h"

struct gc_build {
    struct gresconf *g;
    struct conf_diag *diag;
};

static void gc_files_free(char **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
}

static void gc_rec_free(struct gresconf_rec *r)
{
    gc_files_free(r->files, r->n_files);
    free(r->cores);
    free(r->links);
}

static void gc_push(char ***files, size_t *n, char *s)
{
    *files = xreallocarray(*files, *n + 1, sizeof(char *));
    (*files)[(*n)++] = s;
}

/* One "prefix[0-3,5]suffix" item into files. */
static int gc_expand_one(const char *item, size_t len, char ***files, size_t *n,
                         struct err *e)
{
    const char *lb = memchr(item, '[', len), *rb, *p;
    unsigned long lo, hi;
    char *end;
    int width;

    if (lb == NULL) {
        gc_push(files, n, xstrndup(item, len));
        return 0;
    }
    rb = memchr(lb, ']', len - (size_t)(lb - item));
    if (rb == NULL)
        return err_set(e, "unterminated bracket in '%.*s'", (int)len, item);
    if (memchr(rb, '[', len - (size_t)(rb - item)) != NULL)
        return err_set(e, "only one [range] per file name");
    for (p = lb + 1; p < rb;) {
        if (!isdigit((unsigned char)*p))
            return err_set(e, "expected N or N-M in '%.*s'", (int)len, item);
        width = (int)strspn(p, "0123456789");
        lo = hi = strtoul(p, &end, 10);
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return err_set(e, "expected N-M in '%.*s'", (int)len, item);
            hi = strtoul(end + 1, &end, 10);
        }
        if (hi < lo)
            return err_set(e, "descending range in '%.*s'", (int)len, item);
        if (hi - lo >= GRESCONF_MAX_FILES ||
            *n + (hi - lo) >= GRESCONF_MAX_FILES)
            return err_set(e, "more than %d files", GRESCONF_MAX_FILES);
        for (unsigned long v = lo; v <= hi; v++)
            gc_push(files, n,
                    xasprintf("%.*s%0*lu%.*s", (int)(lb - item), item, width, v,
                              (int)(len - (size_t)(rb + 1 - item)), rb + 1));
        if (end < rb && *end != ',')
            return err_set(e, "expected ',' or ']' in '%.*s'", (int)len, item);
        p = end < rb ? end + 1 : end;
    }
    return 0;
}

/* File=/dev/nvidia[0-3],/dev/nvidia7: comma lists outside brackets. */
static int gc_expand_files(const char *val, char ***out, size_t *n_out,
                           struct err *e)
{
    char **files = NULL;
    size_t n = 0, start = 0, depth = 0, i;

    for (i = 0;; i++) {
        if (val[i] == '[')
            depth++;
        else if (val[i] == ']' && depth > 0)
            depth--;
        if ((val[i] != ',' || depth > 0) && val[i] != '\0')
            continue;
        if (i == start) {
            err_set(e, "empty file name");
            goto error;
        }
        if (gc_expand_one(val + start, i - start, &files, &n, e) < 0)
            goto error;
        if (val[i] == '\0')
            break;
        start = i + 1;
    }
    *out = files;
    *n_out = n;
    return 0;
error:
    gc_files_free(files, n);
    errno = EINVAL;
    return -1;
}

static int gc_name(const char *key, const char *val, char *out, struct err *e)
{
    size_t n = strlen(val);

    if (n == 0 || n >= GRES_NAME_MAX ||
        strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_-.") != n)
        return err_set(e,
                       "%s=%.64s: expected a name of letters, digits, "
                       "'_', '-' or '.', at most %d long",
                       key, val, GRES_NAME_MAX - 1);
    memcpy(out, val, n + 1);
    return 0;
}

/* The fields of one line; *nodes and *autodetect set when given. */
struct gc_line {
    struct gresconf_rec r;
    bool has_name, has_count;
    uint64_t count;
    char *nodes;
    int autodetect; /* -1 when not given */
};

/* gc_key: 0, -1 with e, or 1 for a key gres.conf does not have. */
static int gc_key(struct gc_line *gl, const struct conf_pair *p, struct err *e)
{
    struct gresconf_rec *r = &gl->r;

    if (strcasecmp(p->key, "NodeName") == 0) {
        struct hostlist *hl = hostlist_expand(p->value, e);
        if (hl == NULL)
            return err_prefix(e, "NodeName=%.64s", p->value);
        hostlist_destroy(hl);
        free(gl->nodes);
        gl->nodes = xstrdup(p->value);
    } else if (strcasecmp(p->key, "Name") == 0) {
        gl->has_name = true;
        return gc_name("Name", p->value, r->name, e);
    } else if (strcasecmp(p->key, "Type") == 0) {
        return gc_name("Type", p->value, r->type, e);
    } else if (strcasecmp(p->key, "File") == 0 ||
               strcasecmp(p->key, "Files") == 0) {
        gc_files_free(r->files, r->n_files);
        r->files = NULL;
        r->n_files = 0;
        if (gc_expand_files(p->value, &r->files, &r->n_files, e) < 0)
            return err_prefix(e, "File=%.64s", p->value);
    } else if (strcasecmp(p->key, "Count") == 0) {
        gl->has_count = true;
        if (value_parse_u64(p->value, 1, UINT32_MAX, &gl->count, e) < 0)
            return err_prefix(e, "Count=%.64s", p->value);
    } else if (strcasecmp(p->key, "Cores") == 0) {
        free(r->cores);
        r->cores = xstrdup(p->value);
    } else if (strcasecmp(p->key, "Links") == 0) {
        free(r->links);
        r->links = xstrdup(p->value);
    } else if (strcasecmp(p->key, "AutoDetect") == 0) {
        if (strcasecmp(p->value, "nvml") == 0)
            gl->autodetect = GRESCONF_AUTODETECT_NVML;
        else if (strcasecmp(p->value, "off") == 0)
            gl->autodetect = GRESCONF_AUTODETECT_OFF;
        else
            return err_set(e, "AutoDetect=%.64s: expected nvml or off",
                           p->value);
    } else {
        return 1; /* unknown key */
    }
    return 0;
}

static bool gc_applies(const struct gresconf *g, const char *nodes)
{
    struct hostlist *hl;
    bool hit;

    if (nodes == NULL || g->node[0] == '\0')
        return true;
    hl = hostlist_expand(nodes, NULL);
    hit = hl != NULL && hostlist_find(hl, g->node) >= 0;
    hostlist_destroy(hl);
    return hit;
}

/* Count and File agree; the record kept if it is for our node. */
static void gc_finish(struct gc_build *b, struct gc_line *gl,
                      const struct conf_loc *loc)
{
    struct gresconf *g = b->g;
    struct gresconf_rec *r = &gl->r;

    if (gl->autodetect >= 0 && gc_applies(g, gl->nodes) &&
        (gl->nodes != NULL || !g->autodetect_for_node)) {
        g->autodetect = (enum gresconf_autodetect)gl->autodetect;
        g->autodetect_for_node = gl->nodes != NULL;
    }
    if (!gl->has_name) {
        if (gl->autodetect < 0)
            conf_diag_add(b->diag, CONF_ERROR, loc->file, loc->line, loc->col,
                          "Name= is missing (e.g. Name=gpu)");
        return;
    }
    r->count = gl->has_count ? gl->count : r->n_files ? r->n_files : 1;
    if (gl->has_count && r->n_files > 0 && gl->count != r->n_files) {
        conf_diag_add(b->diag, CONF_ERROR, loc->file, loc->line, loc->col,
                      "Count=%llu but File= names %zu devices",
                      (unsigned long long)gl->count, r->n_files);
        return;
    }
    if (!gc_applies(g, gl->nodes))
        return;
    r->loc = *loc;
    g->recs = xreallocarray(g->recs, g->n + 1, sizeof(*g->recs));
    g->recs[g->n++] = *r;
    memset(r, 0, sizeof(*r));
}

static void gc_on_line(void *arg, const struct conf_line *ln)
{
    struct gc_build *b = arg;
    struct gc_line gl = {.autodetect = -1};
    struct conf_loc loc = {ln->file, ln->pairs[0].line, ln->pairs[0].col};
    bool bad = false;
    struct err e;

    gl.r.cores = xstrdup("");
    gl.r.links = xstrdup("");
    for (size_t i = 0; i < ln->n; i++) {
        const struct conf_pair *p = &ln->pairs[i];
        int rc = gc_key(&gl, p, &e);
        if (rc == 0)
            continue;
        if (rc > 0) {
            conf_diag_add(b->diag, CONF_WARNING, ln->file, p->line, p->col,
                          "unknown gres.conf key '%.64s' ignored", p->key);
            continue;
        }
        conf_diag_add(b->diag, CONF_ERROR, ln->file, p->line, p->col, "%s",
                      e.text);
        bad = true;
    }
    if (!bad)
        gc_finish(b, &gl, &loc);
    gc_rec_free(&gl.r);
    free(gl.nodes);
}

void gresconf_destroy(struct gresconf *g)
{
    int saved = errno;

    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n; i++)
        gc_rec_free(&g->recs[i]);
    free(g->recs);
    free(g->node);
    if (g->names != NULL)
        conf_strs_free(g->names);
    free(g->names);
    free(g);
    errno = saved;
}

static struct gresconf *gc_run(const char *path, const char *text,
                               const char *node, struct conf_diag *diag,
                               struct err *e)
{
    struct conf_diag local;
    struct gresconf *g = xcalloc(1, sizeof(*g));
    struct gc_build b = {g, diag ? diag : &local};
    struct conf_lex lx = {.diag = b.diag, .fn = gc_on_line, .arg = &b};
    size_t errs0, first;
    int saved = EINVAL;

    conf_diag_init(&local);
    g->node = xstrdup(node ? node : "");
    g->names = xcalloc(1, sizeof(*g->names));
    lx.names = g->names;
    errs0 = b.diag->n_errors;
    first = b.diag->n;
    if (text == NULL) {
        if (conf_lex_file(&lx, path, NULL) < 0)
            saved = errno;
    } else {
        conf_lex_text(&lx, text, strlen(text), path);
    }
    if (b.diag->n_errors == errs0) {
        conf_diag_free(&local);
        return g;
    }
    for (size_t i = first; i < b.diag->n; i++)
        if (b.diag->items[i].severity == CONF_ERROR) {
            const struct conf_diag_item *it = &b.diag->items[i];
            err_set(e, "%s:%d:%d: %s", it->file, it->line, it->col, it->text);
            break;
        }
    gresconf_destroy(g);
    conf_diag_free(&local);
    errno = saved;
    return NULL;
}

struct gresconf *gresconf_load(const char *path, const char *node,
                               struct conf_diag *diag, struct err *e)
{
    return gc_run(path, NULL, node, diag, e);
}

struct gresconf *gresconf_parse_string(const char *text, const char *name,
                                       const char *node, struct conf_diag *diag,
                                       struct err *e)
{
    return gc_run(name, text, node, diag, e);
}

uint64_t gresconf_count(const struct gresconf *g, const char *name,
                        const char *type)
{
    uint64_t n = 0;

    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->recs[i].name, name) == 0 &&
            (type == NULL || type[0] == '\0' ||
             strcmp(g->recs[i].type, type) == 0))
            n += g->recs[i].count;
    return n;
}

void gresconf_print(const struct gresconf *g, FILE *fp, const char *prefix)
{
    if (g->autodetect != GRESCONF_AUTODETECT_OFF)
        fprintf(fp, "%sAutoDetect=nvml\n", prefix);
    for (size_t i = 0; i < g->n; i++) {
        const struct gresconf_rec *r = &g->recs[i];
        fprintf(fp, "%sName=%s", prefix, r->name);
        if (r->type[0] != '\0')
            fprintf(fp, " Type=%s", r->type);
        for (size_t k = 0; k < r->n_files; k++)
            fprintf(fp, "%s%s", k ? "," : " File=", r->files[k]);
        fprintf(fp, " Count=%llu", (unsigned long long)r->count);
        if (r->cores[0] != '\0')
            fprintf(fp, " Cores=%s", r->cores);
        if (r->links[0] != '\0')
            fprintf(fp, " Links=%s", r->links);
        fputc('\n', fp);
    }
}

json_t *gresconf_to_json(const struct gresconf *g)
{
    json_t *a = json_array();

    for (size_t i = 0; i < g->n; i++) {
        const struct gresconf_rec *r = &g->recs[i];
        json_t *files = json_array();
        for (size_t k = 0; k < r->n_files; k++)
            json_array_append_new(files, json_string(r->files[k]));
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:I, s:o, s:s, s:s}", "name", r->name,
                         "type", r->type, "count", (json_int_t)r->count,
                         "files", files, "cores", r->cores, "links", r->links));
    }
    return a;
}
