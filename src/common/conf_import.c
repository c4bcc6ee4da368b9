/*
 * sluice import-slurm's translation: a Slurm file is lexed as Sluice lexes
 * its own (Includes followed), each Key=Value is kept, changed or left out
 * by the rules of conf_import_rules.c, and the result is parsed by Sluice's
 * own parser; whatever that parser refuses is left out too and reported,
 * until the text parses.  Every decision goes into the report with the
 * place of the key in the Slurm file.
 */
#include "common/conf_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cgroupconf.h"
#include "common/conf.h"
#include "common/conf_import_int.h"
#include "common/conf_int.h"
#include "common/gresconf.h"
#include "common/log.h"
#include "common/xalloc.h"

/* One Key=Value of the Slurm file, and what became of it. */
struct ipair {
    char *key, *val;  /* owned; val is rewritten by a rule */
    const char *file; /* in the doc's name pool; NULL: added by the import */
    int line, col;
    bool drop;    /* not written */
    bool changed; /* written with another key or value */
    int out_col;  /* 1-based column in the text written; 0: not written */
};

struct iline {
    struct ipair *p;
    size_t n, cap;
    unsigned scope; /* enum import_scope */
    bool gap;       /* a blank line before it, as in the Slurm file */
    int out_line;   /* 0: not written (every pair left out) */
};

struct idoc {
    struct iline *l;
    size_t n, cap;
    unsigned scope; /* GRES or CGROUP; 0: slurm.conf (per line) */
    struct conf_strs names;
    struct conf_diag lexdiag;
    const char *prev_file;
    int prev_line;
    const struct import_opts *o;
    struct import_report *r;
    size_t first_item; /* the report's items from this file on */
};

/* --- the report ------------------------------------------------------- */

void import_report_init(struct import_report *r)
{
    memset(r, 0, sizeof(*r));
}

void import_report_free(struct import_report *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].file);
        free(r->items[i].text);
    }
    free(r->items);
    import_report_init(r);
}

void import_report_add(struct import_report *r, enum import_what what,
                       const char *file, int line, int col, const char *fmt,
                       ...)
{
    struct import_item *it;
    va_list ap;

    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        r->items = xreallocarray(r->items, r->cap, sizeof(*r->items));
    }
    it = &r->items[r->n++];
    it->what = what;
    it->file = xstrdup(file ? file : "");
    it->line = line;
    it->col = col;
    va_start(ap, fmt);
    if (vasprintf(&it->text, fmt, ap) < 0)
        it->text = xstrdup("(out of memory)");
    va_end(ap);
}

const char *import_what_name(enum import_what what)
{
    static const char *const names[] = {"changed", "ignored", "not mapped",
                                        "warning", "error"};

    return what <= IMPORT_ERROR ? names[what] : "?";
}

size_t import_report_count(const struct import_report *r, enum import_what what)
{
    size_t n = 0;

    for (size_t i = 0; i < r->n; i++)
        n += r->items[i].what == what;
    return n;
}

/* --- the Slurm file as lines of pairs ---------------------------------- */

static struct ipair *line_add(struct iline *ln, const char *key,
                              const char *val, const char *file, int line,
                              int col)
{
    struct ipair *p;

    if (ln->n == ln->cap) {
        ln->cap = ln->cap ? 2 * ln->cap : 8;
        ln->p = xreallocarray(ln->p, ln->cap, sizeof(*ln->p));
    }
    p = &ln->p[ln->n++];
    memset(p, 0, sizeof(*p));
    p->key = xstrdup(key);
    p->val = xstrdup(val);
    p->file = file;
    p->line = line;
    p->col = col;
    return p;
}

static struct iline *doc_add(struct idoc *d, unsigned scope)
{
    struct iline *ln;

    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->l = xreallocarray(d->l, d->cap, sizeof(*d->l));
    }
    ln = &d->l[d->n++];
    memset(ln, 0, sizeof(*ln));
    ln->scope = scope;
    return ln;
}

static void doc_on_line(void *arg, const struct conf_line *cl)
{
    struct idoc *d = arg;
    const char *first = cl->pairs[0].key;
    unsigned scope = d->scope;
    struct iline *ln;

    if (scope == 0)
        scope = strcasecmp(first, "NodeName") == 0 ? IMPORT_SCOPE_NODE
                : strcasecmp(first, "PartitionName") == 0
                    ? IMPORT_SCOPE_PART
                    : IMPORT_SCOPE_CLUSTER;
    ln = doc_add(d, scope);
    ln->gap = d->n > 1 && (cl->file != d->prev_file ||
                           cl->pairs[0].line > d->prev_line + 1);
    for (size_t i = 0; i < cl->n; i++)
        line_add(ln, cl->pairs[i].key, cl->pairs[i].value, cl->file,
                 cl->pairs[i].line, cl->pairs[i].col);
    d->prev_file = cl->file;
    d->prev_line = cl->pairs[cl->n - 1].line;
}

static void doc_free(struct idoc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        for (size_t k = 0; k < d->l[i].n; k++) {
            free(d->l[i].p[k].key);
            free(d->l[i].p[k].val);
        }
        free(d->l[i].p);
    }
    free(d->l);
    conf_strs_free(&d->names);
    conf_diag_free(&d->lexdiag);
}

/* Lex path into d; -1 with e when it cannot be read.  The lexer's own
 * complaints (a quote not closed, binary data) are errors of the report. */
static int doc_read(struct idoc *d, const char *path, struct err *e)
{
    struct conf_lex lx = {
        .diag = &d->lexdiag, .names = &d->names, .fn = doc_on_line, .arg = d};

    conf_diag_init(&d->lexdiag);
    if (conf_lex_file(&lx, path, NULL) < 0)
        return err_set(e, "cannot read %s: %s", path, strerror(errno));
    /* the files Included: their lines are written in place */
    for (size_t i = 1; i < d->names.n; i++)
        import_report_add(d->r, IMPORT_CHANGED, d->names.v[i], 0, 0,
                          "included by %s (Include): its lines are written "
                          "in place, in the one file",
                          d->names.v[0]);
    for (size_t i = 0; i < d->lexdiag.n; i++) {
        const struct conf_diag_item *it = &d->lexdiag.items[i];
        import_report_add(
            d->r, it->severity == CONF_ERROR ? IMPORT_ERROR : IMPORT_WARNING,
            it->file, it->line, it->col, "%s", it->text);
    }
    return 0;
}

/* --- deciding ---------------------------------------------------------- */

static void decide_drop(struct idoc *d, struct ipair *p, enum import_what w,
                        const char *why)
{
    p->drop = true;
    import_report_add(d->r, w, p->file, p->line, p->col, "%s=%s: %s", p->key,
                      p->val, why);
}

static void decide_set(struct idoc *d, struct ipair *p, const char *val,
                       const char *why)
{
    if (strcasecmp(p->val, val) == 0)
        return;
    import_report_add(d->r, IMPORT_CHANGED, p->file, p->line, p->col,
                      "%s=%s: written %s=%s: %s", p->key, p->val, p->key, val,
                      why);
    free(p->val);
    p->val = xstrdup(val);
    p->changed = true;
}

/* SlurmUser: the user sluicectld will run as, whatever Slurm's was. */
static void decide_slurm_user(struct idoc *d, struct ipair *p)
{
    if (d->o->slurm_user[0] == '\0')
        decide_drop(d, p, IMPORT_CHANGED,
                    "left out (--slurm-user=''): sluicectld runs as whoever "
                    "starts it, and node daemons trust only root");
    else
        decide_set(d, p, d->o->slurm_user,
                   "the user sluicectld runs as (the Debian package's unit "
                   "says User=sluice); node daemons trust it as root");
}

static void decide(struct idoc *d, struct iline *ln, struct ipair *p)
{
    const struct import_rule *r = import_rule_find(ln->scope, p->key);

    if (ln->scope == IMPORT_SCOPE_CLUSTER &&
        strcasecmp(p->key, "SlurmUser") == 0) {
        decide_slurm_user(d, p);
        return;
    }
    if (r == NULL) {
        if (!import_key_known(ln->scope, p->key))
            decide_drop(d, p, IMPORT_UNMAPPED, import_unknown_why(ln->scope));
        return;
    }
    switch (r->act) {
    case IMPORT_ACT_DEFAULT:
        p->drop = true;
        import_report_add(d->r, IMPORT_CHANGED, p->file, p->line, p->col,
                          "%s=%s: left out, so that Sluice's %s applies: %s",
                          p->key, p->val, r->arg, r->why);
        return;
    case IMPORT_ACT_SET:
        decide_set(d, p, r->arg, r->why);
        return;
    case IMPORT_ACT_IGNORE:
        decide_drop(d, p, IMPORT_IGNORED, r->why);
        return;
    case IMPORT_ACT_UNMAP:
        decide_drop(d, p, IMPORT_UNMAPPED, r->why);
        return;
    case IMPORT_ACT_NONE_OK:
        decide_drop(d, p,
                    strcasecmp(p->val, r->arg) == 0 ? IMPORT_IGNORED
                                                    : IMPORT_UNMAPPED,
                    r->why);
        return;
    }
}

static struct ipair *find_key(struct idoc *d, unsigned scope, const char *key)
{
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; d->l[i].scope == scope && k < d->l[i].n; k++)
            if (strcasecmp(d->l[i].p[k].key, key) == 0)
                return &d->l[i].p[k];
    return NULL;
}

/*
 * Slurm's old controller keys: ControlMachine with ControlAddr, and
 * BackupController with BackupAddr, become SlurmctldHost=HOST(ADDR)
 * lines, as Slurm itself reads them.
 */
static void decide_old_hosts(struct idoc *d)
{
    static const char *const pairs[2][2] = {
        {"ControlMachine", "ControlAddr"},
        {"BackupController", "BackupAddr"},
    };

    for (int i = 0; i < 2; i++) {
        struct ipair *h = find_key(d, IMPORT_SCOPE_CLUSTER, pairs[i][0]);
        struct ipair *a = find_key(d, IMPORT_SCOPE_CLUSTER, pairs[i][1]);
        char *v;

        if (h == NULL) {
            if (a != NULL)
                decide_drop(d, a, IMPORT_UNMAPPED,
                            i ? "BackupAddr without BackupController"
                              : "ControlAddr without ControlMachine");
            continue;
        }
        v = a ? xasprintf("%s(%s)", h->val, a->val) : xstrdup(h->val);
        import_report_add(d->r, IMPORT_CHANGED, h->file, h->line, h->col,
                          "%s=%s: written SlurmctldHost=%s: Slurm's newer "
                          "name for it%s",
                          h->key, h->val, v, i ? ", after the primary" : "");
        free(h->key);
        h->key = xstrdup("SlurmctldHost");
        free(h->val);
        h->val = v;
        h->changed = true;
        if (a != NULL) {
            a->drop = true;
            import_report_add(d->r, IMPORT_CHANGED, a->file, a->line, a->col,
                              "%s=%s: written into SlurmctldHost=%s", a->key,
                              a->val, v);
        }
    }
}

static void decide_all(struct idoc *d)
{
    if (d->scope == 0)
        decide_old_hosts(d);
    for (size_t i = 0; i < d->n; i++) {
        struct iline *ln = &d->l[i];
        /* a NodeName= or PartitionName= word names what the line defines */
        bool head =
            ln->scope == IMPORT_SCOPE_NODE || ln->scope == IMPORT_SCOPE_PART;
        for (size_t k = head ? 1 : 0; k < ln->n; k++)
            if (!ln->p[k].drop && !ln->p[k].changed)
                decide(d, ln, &ln->p[k]);
    }
}

/* A key the import adds, on a line of its own: before the others
 * (first) or after them. */
static void add_line(struct idoc *d, unsigned scope, const char *key,
                     const char *val, bool first)
{
    struct iline *ln = doc_add(d, scope);

    if (first) { /* room at the end, moved to the front */
        memmove(&d->l[1], &d->l[0], (d->n - 1) * sizeof(*d->l));
        ln = &d->l[0];
        memset(ln, 0, sizeof(*ln));
        ln->scope = scope;
    } else {
        ln->gap = d->n == 1 || d->l[d->n - 2].p[0].file != NULL;
    }
    line_add(ln, key, val, NULL, 0, 0)->changed = true;
}

/* --- writing and checking ---------------------------------------------- */

static void put_value(FILE *fp, const char *val)
{
    conf_print_value(fp, val);
}

/* The text of d after header; each written pair's column and line noted. */
static char *render(struct idoc *d, const char *header)
{
    char *text = NULL, *row = NULL;
    size_t len = 0, rlen = 0;
    FILE *fp = open_memstream(&text, &len);
    int out = 1;
    bool gap = false, any = false;

    if (fp == NULL)
        fatal("open_memstream");
    for (const char *c = header; *c; c++)
        out += *c == '\n';
    fputs(header, fp);
    for (size_t i = 0; i < d->n; i++) {
        struct iline *ln = &d->l[i];
        FILE *rf = open_memstream(&row, &rlen);
        if (rf == NULL)
            fatal("open_memstream");
        gap = gap || ln->gap;
        ln->out_line = 0;
        for (size_t k = 0; k < ln->n; k++) {
            struct ipair *p = &ln->p[k];
            p->out_col = 0;
            if (p->drop)
                continue;
            fflush(rf);
            if (rlen > 0)
                fputc(' ', rf), rlen++;
            p->out_col = (int)rlen + 1;
            fprintf(rf, "%s=", p->key);
            put_value(rf, p->val);
            fflush(rf);
        }
        fclose(rf);
        if (rlen > 0) {
            if (gap && any)
                fputc('\n', fp), out++;
            gap = false;
            any = true;
            ln->out_line = out++;
            fprintf(fp, "%s\n", row);
        }
        free(row);
        row = NULL;
    }
    fclose(fp);
    return text;
}

/* The pair written at line:col of the text, or NULL; *head: it starts a
 * NodeName= or PartitionName= line (leaving it out would lose the whole
 * definition). */
static struct ipair *written_at(struct idoc *d, int line, int col,
                                struct iline **in)
{
    for (size_t i = 0; i < d->n; i++) {
        struct iline *ln = &d->l[i];
        if (ln->out_line != line)
            continue;
        *in = ln;
        for (size_t k = 0; k < ln->n; k++)
            if (!ln->p[k].drop && ln->p[k].out_col == col)
                return &ln->p[k];
        return NULL;
    }
    *in = NULL;
    return NULL;
}

enum check_kind { CHECK_CONF, CHECK_GRES, CHECK_CGROUP };

static void check_text(enum check_kind kind, const char *text, const char *name,
                       struct conf_diag *diag)
{
    struct cgroupconf cg;

    if (kind == CHECK_CONF)
        conf_destroy(conf_parse_string(text, name, diag, NULL));
    else if (kind == CHECK_GRES)
        gresconf_destroy(gresconf_parse_string(text, name, NULL, diag, NULL));
    else
        cgroupconf_parse_string(text, name, &cg, diag, NULL);
}

/* Leave out each pair Sluice's parser refuses; 1 when one was. */
static int drop_refused(struct idoc *d, const struct conf_diag *diag)
{
    int dropped = 0;

    for (size_t i = 0; i < diag->n; i++) {
        const struct conf_diag_item *it = &diag->items[i];
        struct iline *ln;
        struct ipair *p = written_at(d, it->line, it->col, &ln);
        bool head =
            p != NULL && p == &ln->p[0] &&
            (ln->scope == IMPORT_SCOPE_NODE || ln->scope == IMPORT_SCOPE_PART);
        if (it->severity != CONF_ERROR || p == NULL || head)
            continue;
        p->drop = true;
        dropped = 1;
        if (p->file == NULL)
            continue; /* added by the import: said already */
        import_report_add(d->r, IMPORT_UNMAPPED, p->file, p->line, p->col,
                          "%s=%s: Sluice refuses it (%s), so it was left out",
                          p->key, p->val, it->text);
    }
    return dropped;
}

/* What the final check still says, at the place in the Slurm file. */
static void report_check(struct idoc *d, const struct conf_diag *diag)
{
    for (size_t i = 0; i < diag->n; i++) {
        const struct conf_diag_item *it = &diag->items[i];
        struct iline *ln;
        struct ipair *p = written_at(d, it->line, it->col, &ln);
        enum import_what w =
            it->severity == CONF_ERROR ? IMPORT_ERROR : IMPORT_WARNING;

        if (p == NULL && ln != NULL)
            p = &ln->p[0];
        if (p != NULL && p->file != NULL)
            import_report_add(d->r, w, p->file, p->line, p->col, "%s",
                              it->text);
        else
            import_report_add(d->r, w, d->o->out_name, it->line, it->col, "%s",
                              it->text);
    }
}

/* The lines added by the import, in the report at their place in the
 * file written. */
static void report_added(struct idoc *d, const char *why)
{
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->l[i].n; k++) {
            struct ipair *p = &d->l[i].p[k];
            if (p->file == NULL && !p->drop)
                import_report_add(d->r, IMPORT_CHANGED, d->o->out_name,
                                  d->l[i].out_line, p->out_col,
                                  "%s=%s added: %s", p->key, p->val, why);
        }
}

/* The place of an item's file: the Slurm files in the order read, then
 * the file written. */
static size_t file_rank(const struct idoc *d, const char *file)
{
    for (size_t i = 0; i < d->names.n; i++)
        if (strcmp(d->names.v[i], file) == 0)
            return i;
    return d->names.n;
}

static bool item_before(const struct idoc *d, const struct import_item *x,
                        const struct import_item *y)
{
    size_t rx = file_rank(d, x->file), ry = file_rank(d, y->file);

    if (rx != ry)
        return rx < ry;
    if (x->line != y->line)
        return x->line < y->line;
    return x->col < y->col;
}

/* This file's items in order of file, line and column; items at one
 * place keep the order they were found in (an insertion sort). */
static void sort_items(struct idoc *d)
{
    struct import_item *it = d->r->items;

    for (size_t i = d->first_item + 1; i < d->r->n; i++) {
        struct import_item t = it[i];
        size_t j = i;
        while (j > d->first_item && item_before(d, &t, &it[j - 1])) {
            it[j] = it[j - 1];
            j--;
        }
        it[j] = t;
    }
}

/* Check, leave out what is refused, check again; then the report. */
static char *finish(struct idoc *d, enum check_kind kind, const char *header)
{
    struct conf_diag diag;
    char *text;

    for (;;) {
        text = render(d, header);
        conf_diag_init(&diag);
        check_text(kind, text, d->o->out_name, &diag);
        if (!drop_refused(d, &diag))
            break;
        conf_diag_free(&diag);
        free(text);
    }
    report_check(d, &diag);
    conf_diag_free(&diag);
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->l[i].n; k++) {
            const struct ipair *p = &d->l[i].p[k];
            d->r->kept += !p->drop && !p->changed && p->file != NULL;
        }
    return text;
}

static char *header_for(const char *path, const char *what)
{
    const char *base = strrchr(path, '/');

    return xasprintf("# %s, written by sluice import-slurm from %s\n"
                     "# (its comments are not carried).  What it changed or "
                     "left out, and why,\n# is in import-report.txt beside "
                     "this file.\n",
                     what, base ? base + 1 : path);
}

/* Read path into d and decide every key (no path: an empty document);
 * -1 with e when it cannot be read. */
static int doc_begin(struct idoc *d, const char *path, struct err *e)
{
    d->first_item = d->r->n;
    conf_diag_init(&d->lexdiag);
    if (path != NULL && doc_read(d, path, e) < 0) {
        doc_free(d);
        return -1;
    }
    decide_all(d);
    return 0;
}

/* The text to write, under header (freed here); the lines the import
 * added reported with why (NULL: none can be); d freed. */
static char *doc_end(struct idoc *d, enum check_kind kind, char *header,
                     const char *why)
{
    char *out = finish(d, kind, header);

    if (why != NULL)
        report_added(d, why);
    sort_items(d);
    free(header);
    doc_free(d);
    return out;
}

int import_slurm_conf(const char *path, const struct import_opts *o,
                      struct import_report *r, char **out, struct err *e)
{
    struct idoc d = {.o = o, .r = r};

    *out = NULL;
    if (doc_begin(&d, path, e) < 0)
        return -1;
    if (o->slurm_user[0] != '\0' &&
        find_key(&d, IMPORT_SCOPE_CLUSTER, "SlurmUser") == NULL)
        add_line(&d, IMPORT_SCOPE_CLUSTER, "SlurmUser", o->slurm_user, true);
    *out = doc_end(&d, CHECK_CONF, header_for(path, "Sluice configuration"),
                   "the user sluicectld runs as (the Debian package's unit "
                   "says User=sluice); node daemons trust it as root");
    return 0;
}

int import_gres_conf(const char *path, const struct import_opts *o,
                     struct import_report *r, char **out, struct err *e)
{
    struct idoc d = {.o = o, .r = r, .scope = IMPORT_SCOPE_GRES};

    *out = NULL;
    if (doc_begin(&d, path, e) < 0)
        return -1;
    *out = doc_end(&d, CHECK_GRES, header_for(path, "gres.conf"), NULL);
    return 0;
}

int import_cgroup_conf(const char *path, const struct import_opts *o,
                       struct import_report *r, char **out, struct err *e)
{
    /* Slurm's defaults where Sluice's differ (Sluice fences by default) */
    static const char *const off[] = {"ConstrainCores", "ConstrainRAMSpace",
                                      "ConstrainSwapSpace"};
    struct idoc d = {.o = o, .r = r, .scope = IMPORT_SCOPE_CGROUP};
    char *header;

    *out = NULL;
    if (doc_begin(&d, path, e) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
        if (find_key(&d, IMPORT_SCOPE_CGROUP, off[i]) == NULL)
            add_line(&d, IMPORT_SCOPE_CGROUP, off[i], "no", false);
    header = path ? header_for(path, "cgroup.conf")
                  : xstrdup("# cgroup.conf, written by sluice import-slurm: "
                            "Slurm had none, so its defaults\n# are "
                            "written where Sluice's differ.  Why is in "
                            "import-report.txt beside\n# this file.\n");
    *out = doc_end(&d, CHECK_CGROUP, header,
                   "Slurm's default, where Sluice's is yes: jobs are fenced "
                   "as they were under Slurm (remove the line to let Sluice "
                   "fence them, docs/configuration.md, cgroup.conf)");
    return 0;
}
