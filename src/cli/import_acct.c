/*
 * sluice import-slurm --accounting DUMP: the accounts, users and
 * associations of a `sacctmgr dump` file (Slurm's flat file: "Cluster -
 * 'c':...", "Parent - 'a'", "Account - 'b':Key=Value:...", "User - 'u':...")
 * as a shell script of `sluice acctmgr` commands, with each key that
 * Sluice's sacctmgr cannot take reported.  A dump names QOS but does not
 * define them: each QOS it names is added with Sluice's defaults, and
 * reported so that its settings are carried by hand.
 */
#include "cli/import_acct.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"

#define ACCT_LINE_MAX 65536

/* Keys Sluice's sacctmgr takes as Slurm writes them: all entities. */
static const char *const assoc_keys[] = {
    "Fairshare",
    "QOS",
    "DefaultQOS",
    "MaxJobs",
    "MaxSubmitJobs",
    "GrpJobs",
    "GrpTRES",
    "MaxTRES",
    "MaxTRESPerJob",
    "GrpSubmitJobs",
    "MaxWallDurationPerJob",
    NULL,
};
static const char *const account_keys[] = {"Description", "Organization", NULL};
static const char *const user_keys[] = {"DefaultAccount", "AdminLevel", NULL};

/* Slurm's older single-TRES limits, as the TRES limit Sluice takes. */
static const struct {
    const char *key, *to, *tres;
} tres_keys[] = {
    {"MaxNodesPerJob", "MaxTRES", "node"}, {"MaxCPUsPerJob", "MaxTRES", "cpu"},
    {"GrpCPUs", "GrpTRES", "cpu"},         {"GrpNodes", "GrpTRES", "node"},
    {"GrpMemory", "GrpTRES", "mem"},       {"GrpMem", "GrpTRES", "mem"},
};

/* One "Kind - 'name':K=V:..." line, split. */
struct acct_line {
    char kind[32];
    char *name;
    char **keys, **vals;
    size_t n;
};

static void acct_line_free(struct acct_line *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->keys[i]);
        free(l->vals[i]);
    }
    free(l->keys);
    free(l->vals);
    free(l->name);
    memset(l, 0, sizeof(*l));
}

/* The next ':'-separated field of *p, quotes removed; NULL at the end. */
static char *field(const char **p)
{
    const char *s = *p;
    char *out, *o;
    bool q = false;

    if (*s == '\0')
        return NULL;
    out = o = xmalloc(strlen(s) + 1);
    for (; *s != '\0' && (q || *s != ':'); s++) {
        if (*s == '\'')
            q = !q;
        else
            *o++ = *s;
    }
    *o = '\0';
    *p = *s == ':' ? s + 1 : s;
    return out;
}

/* 0 with l filled, -1 with e for a line that is not "Kind - 'name'...". */
static int acct_line_parse(const char *line, struct acct_line *l, struct err *e)
{
    const char *dash = strstr(line, " - "), *p;
    char *f;

    memset(l, 0, sizeof(*l));
    if (dash == NULL || (size_t)(dash - line) >= sizeof(l->kind))
        return err_set(e, "expected \"Kind - 'name':Key=Value...\"");
    memcpy(l->kind, line, (size_t)(dash - line));
    p = dash + 3;
    l->name = field(&p);
    if (l->name == NULL || l->name[0] == '\0')
        return err_set(e, "%s without a name", l->kind);
    while ((f = field(&p)) != NULL) {
        char *eq = strchr(f, '=');
        if (eq == NULL || eq == f) {
            err_set(e, "\"%.64s\": expected Key=Value", f);
            free(f);
            return -1;
        }
        *eq = '\0';
        l->keys = xreallocarray(l->keys, l->n + 1, sizeof(*l->keys));
        l->vals = xreallocarray(l->vals, l->n + 1, sizeof(*l->vals));
        l->keys[l->n] = xstrdup(f);
        l->vals[l->n++] = xstrdup(eq + 1);
        free(f);
    }
    return 0;
}

static bool in(const char *const *list, const char *key)
{
    for (; *list != NULL; list++)
        if (strcasecmp(*list, key) == 0)
            return true;
    return false;
}

/* The script, and what the import knows while writing it. */
struct acct_out {
    FILE *fp;
    const char *file;
    int line;
    struct import_report *r;
    char **qos; /* every QOS named, in order */
    size_t n_qos;
    char **users; /* users added so far */
    size_t n_users;
};

/* 'value' for the shell. */
static void shq(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", fp);
        else
            fputc(*s, fp);
    fputc('\'', fp);
}

static void note_qos(struct acct_out *o, const char *list)
{
    char *copy = xstrdup(list), *save = NULL;

    for (char *q = strtok_r(copy, ",", &save); q != NULL;
         q = strtok_r(NULL, ",", &save)) {
        bool seen = strcasecmp(q, "normal") == 0;
        for (size_t i = 0; i < o->n_qos && !seen; i++)
            seen = strcmp(o->qos[i], q) == 0;
        if (seen)
            continue;
        o->qos = xreallocarray(o->qos, o->n_qos + 1, sizeof(*o->qos));
        o->qos[o->n_qos++] = xstrdup(q);
    }
    free(copy);
}

/* The keys of l that Sluice takes for an entity with its own keys own,
 * as " Key='value'" words; the others reported. */
static void put_keys(struct acct_out *o, FILE *fp, const struct acct_line *l,
                     const char *const *own)
{
    for (size_t i = 0; i < l->n; i++) {
        const char *k = l->keys[i], *v = l->vals[i];
        size_t t;

        for (t = 0; t < sizeof(tres_keys) / sizeof(tres_keys[0]); t++)
            if (strcasecmp(k, tres_keys[t].key) == 0)
                break;
        if (t < sizeof(tres_keys) / sizeof(tres_keys[0])) {
            fprintf(fp, " %s=%s=", tres_keys[t].to, tres_keys[t].tres);
            shq(fp, v);
            import_report_add(o->r, IMPORT_CHANGED, o->file, o->line, 0,
                              "%s %s: %s=%s written %s=%s=%s: the TRES limit "
                              "Slurm reads it as",
                              l->kind, l->name, k, v, tres_keys[t].to,
                              tres_keys[t].tres, v);
            continue;
        }
        if (!in(assoc_keys, k) && !in(own, k)) {
            import_report_add(o->r, IMPORT_UNMAPPED, o->file, o->line, 0,
                              "%s %s: %s=%s: Sluice's associations have no "
                              "such limit (docs/accounting.md); left out",
                              l->kind, l->name, k, v);
            continue;
        }
        if (strcasecmp(k, "QOS") == 0 || strcasecmp(k, "DefaultQOS") == 0)
            note_qos(o, v);
        if (strcasecmp(k, "AdminLevel") == 0 && strcasecmp(v, "None") == 0)
            continue;
        fprintf(fp, " %s=", k);
        shq(fp, v);
        o->r->kept++;
    }
}

static bool user_seen(struct acct_out *o, const char *name)
{
    for (size_t i = 0; i < o->n_users; i++)
        if (strcmp(o->users[i], name) == 0)
            return true;
    o->users = xreallocarray(o->users, o->n_users + 1, sizeof(*o->users));
    o->users[o->n_users++] = xstrdup(name);
    return false;
}

/* The Cluster line: what differs from Sluice's root association
 * (Fairshare=1, QOS normal) goes to it. */
static void put_cluster(struct acct_out *o, FILE *fp, const struct acct_line *l)
{
    bool any = false;

    for (size_t i = 0; i < l->n; i++) {
        const char *k = l->keys[i], *v = l->vals[i];
        if ((strcasecmp(k, "Fairshare") == 0 && strcmp(v, "1") == 0) ||
            (strcasecmp(k, "QOS") == 0 && strcasecmp(v, "normal") == 0)) {
            o->r->kept++; /* Sluice's root association says the same */
            continue;
        }
        if (!in(assoc_keys, k)) {
            import_report_add(o->r, IMPORT_UNMAPPED, o->file, o->line, 0,
                              "Cluster %s: %s=%s: Sluice's associations have "
                              "no such limit; left out",
                              l->name, k, v);
            continue;
        }
        if (!any) {
            fprintf(fp, "acct modify cluster ");
            shq(fp, l->name);
            fprintf(fp, " set");
        }
        any = true;
        if (strcasecmp(k, "QOS") == 0 || strcasecmp(k, "DefaultQOS") == 0)
            note_qos(o, v);
        fprintf(fp, " %s=", k);
        shq(fp, v);
        o->r->kept++;
    }
    if (any)
        fputc('\n', fp);
}

/* "acct add account|user NAME Parent|Account=PARENT KEYS...": the line
 * of the script that makes l under parent. */
static void put_add(struct acct_out *o, FILE *fp, const struct acct_line *l,
                    const char *parent_key, const char *parent,
                    const char *const *own)
{
    fprintf(fp, "acct add %s ",
            strcasecmp(l->kind, "User") == 0 ? "user" : "account");
    shq(fp, l->name);
    fprintf(fp, " %s=", parent_key);
    shq(fp, parent);
    put_keys(o, fp, l, own);
    fputc('\n', fp);
}

/* One line of the dump into fp (the body of the script). */
static int put_line(struct acct_out *o, FILE *fp, const struct acct_line *l,
                    char **parent, struct err *e)
{
    if (strcasecmp(l->kind, "Cluster") == 0) {
        put_cluster(o, fp, l);
    } else if (strcasecmp(l->kind, "Parent") == 0) {
        free(*parent);
        *parent = xstrdup(l->name);
    } else if (strcasecmp(l->kind, "Account") == 0) {
        put_add(o, fp, l, "Parent", *parent, account_keys);
    } else if (strcasecmp(l->kind, "User") == 0) {
        if (strcmp(l->name, "root") == 0 && strcmp(*parent, "root") == 0) {
            import_report_add(o->r, IMPORT_IGNORED, o->file, o->line, 0,
                              "User root: Sluice has it already, an "
                              "Administrator in account root");
            return 0;
        }
        if (user_seen(o, l->name))
            import_report_add(o->r, IMPORT_CHANGED, o->file, o->line, 0,
                              "User %s again: an association with account "
                              "%s is added to the user",
                              l->name, *parent);
        put_add(o, fp, l, "Account", *parent, user_keys);
    } else {
        return err_set(e,
                       "unknown line kind \"%s\" (Cluster, Parent, "
                       "Account or User)",
                       l->kind);
    }
    return 0;
}

static const char script_head[] =
    "#!/bin/sh\n"
    "# The accounts, users and associations of %s (sacctmgr dump),\n"
    "# for Sluice, written by sluice import-slurm; what it changed or could\n"
    "# not carry is in import-report.txt beside this file.  Run it once\n"
    "# the controller runs, as root or a Sluice administrator:\n"
    "#     sh accounting.sh\n"
    "# It may be run again: a command whose account, user or QOS is there\n"
    "# already is passed over.\n"
    "set -u\n"
    "acct() {\n"
    "    out=$(sluice acctmgr -i \"$@\" 2>&1) && return 0\n"
    "    case $out in *already*|*\"nothing new\"*) return 0 ;; esac\n"
    "    printf 'sluice acctmgr %%s: %%s\\n' \"$*\" \"$out\" >&2\n"
    "    exit 1\n"
    "}\n";

static void put_qos(struct acct_out *o, FILE *fp, const char *base)
{
    if (o->n_qos == 0)
        return;
    fprintf(fp, "\n# QOS the dump names (a dump does not define them): add "
                "their settings,\n# as on Slurm: sacctmgr show qos "
                "format=Name,Priority,MaxSubmitPU,...\n");
    for (size_t i = 0; i < o->n_qos; i++) {
        fprintf(fp, "acct add qos ");
        shq(fp, o->qos[i]);
        fputc('\n', fp);
        import_report_add(o->r, IMPORT_UNMAPPED, o->file, 0, 0,
                          "QOS %s: named in %s but not defined there (a "
                          "dump lists no QOS): added with Sluice's defaults; "
                          "carry its Priority and limits by hand (sluice "
                          "acctmgr modify qos %s set Priority=...)",
                          o->qos[i], base, o->qos[i]);
    }
}

int import_acct_dump(const char *path, struct import_report *r, char **out,
                     struct err *e)
{
    FILE *in = fopen(path, "r"), *body;
    struct acct_out o = {.file = path, .r = r};
    char *line = xmalloc(ACCT_LINE_MAX), *text = NULL, *parent;
    char *script = NULL;
    size_t tlen = 0, slen = 0;
    const char *base = strrchr(path, '/');
    int rc = -1;

    *out = NULL;
    if (in == NULL) {
        free(line);
        return err_set(e, "cannot read %s: %s", path, strerror(errno));
    }
    base = base ? base + 1 : path;
    parent = xstrdup("root");
    if ((body = open_memstream(&text, &tlen)) == NULL)
        fatal("open_memstream");
    while (fgets(line, ACCT_LINE_MAX, in) != NULL) {
        struct acct_line l;
        struct err le;
        o.line++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
            continue;
        if (acct_line_parse(line, &l, &le) < 0 ||
            put_line(&o, body, &l, &parent, &le) < 0)
            import_report_add(r, IMPORT_ERROR, path, o.line, 0, "%s", le.text);
        acct_line_free(&l);
    }
    fclose(body);
    if (ferror(in)) {
        err_set(e, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    if ((body = open_memstream(&script, &slen)) == NULL)
        fatal("open_memstream");
    fprintf(body, script_head, base);
    put_qos(&o, body, base);
    fprintf(body, "\n# Accounts and users, each under its parent\n%s",
            text ? text : "");
    fclose(body);
    *out = script;
    rc = 0;
out:
    fclose(in);
    free(text);
    free(line);
    free(parent);
    for (size_t i = 0; i < o.n_qos; i++)
        free(o.qos[i]);
    free(o.qos);
    for (size_t i = 0; i < o.n_users; i++)
        free(o.users[i]);
    free(o.users);
    return rc;
}
