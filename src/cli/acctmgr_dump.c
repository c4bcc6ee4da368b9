/*
 * sacctmgr dump / load: the accounts, users and associations of the
 * cluster as Slurm's flat file ("Cluster - 'c'", "Parent - 'p'", "Account
 * - 'a':Description='...'", "User - 'u':DefaultAccount='a'"), and such a
 * file added back: each account and user under the Parent line before
 * it, what exists already left as it is.  Limits are not carried.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/acctmgr.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "common/proto.h"
#include "common/xalloc.h"

static json_t *list(const char *entity, struct err *e)
{
    json_t *req = json_pack("{s:s, s:{}}", "entity", entity, "where");
    json_t *reply = NULL;

    if (cli_call(PROTO_MSG_ACCT_LIST, req, &reply, e) < 0)
        reply = NULL;
    json_decref(req);
    return reply;
}

static const char *ostr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ":Fairshare=N:QOS='a,b':DefaultQOS='q'" of an association. */
static void assoc_attrs(FILE *fp, json_t *as)
{
    json_t *fs = json_object_get(as, "fairshare"), *q;
    size_t i;

    if (json_is_integer(fs))
        fprintf(fp, ":Fairshare=%lld", (long long)json_integer_value(fs));
    else if (json_is_string(fs))
        fprintf(fp, ":Fairshare=%s", json_string_value(fs));
    if (json_array_size(json_object_get(as, "qos")) > 0) {
        fprintf(fp, ":QOS='");
        json_array_foreach(json_object_get(as, "qos"), i, q)
            fprintf(fp, "%s%s", i ? "," : "", json_string_value(q));
        fprintf(fp, "'");
    }
    if (ostr(as, "default_qos") != NULL)
        fprintf(fp, ":DefaultQOS='%s'", ostr(as, "default_qos"));
}

static json_t *find_named(json_t *items, const char *name)
{
    json_t *o;
    size_t i;

    json_array_foreach(items, i, o)
    {
        if (ostr(o, "name") && strcmp(ostr(o, "name"), name) == 0)
            return o;
    }
    return NULL;
}

/* The "Parent - 'acct'" block: its users, its sub-accounts, then the
 * blocks of the sub-accounts. */
static void dump_parent(FILE *fp, const char *acct, json_t *assocs,
                        json_t *accounts, json_t *users, int depth)
{
    json_t *as;
    size_t i;
    bool any = false;

    if (depth > 64)
        return;
    json_array_foreach(assocs, i, as)
    {
        const char *u = ostr(as, "user"), *a = ostr(as, "account");
        json_t *pa;
        if (ostr(as, "partition") != NULL)
            continue;
        if (u != NULL && strcmp(a, acct) == 0) {
            json_t *uo = find_named(users, u);
            if (!any)
                fprintf(fp, "Parent - '%s'\n", acct);
            any = true;
            fprintf(fp, "User - '%s'", u);
            if (uo && ostr(uo, "default_account"))
                fprintf(fp, ":DefaultAccount='%s'",
                        ostr(uo, "default_account"));
            if (uo && ostr(uo, "admin_level") &&
                strcasecmp(ostr(uo, "admin_level"), "None") != 0)
                fprintf(fp, ":AdminLevel='%s'", ostr(uo, "admin_level"));
            assoc_attrs(fp, as);
            fputc('\n', fp);
            continue;
        }
        pa = u == NULL ? find_named(accounts, a) : NULL;
        if (pa == NULL || ostr(pa, "parent") == NULL ||
            strcmp(ostr(pa, "parent"), acct) != 0)
            continue;
        if (!any)
            fprintf(fp, "Parent - '%s'\n", acct);
        any = true;
        fprintf(fp, "Account - '%s':Description='%s':Organization='%s'", a,
                ostr(pa, "description") ? ostr(pa, "description") : a,
                ostr(pa, "organization") ? ostr(pa, "organization") : acct);
        assoc_attrs(fp, as);
        fputc('\n', fp);
    }
    json_array_foreach(assocs, i, as)
    {
        json_t *pa = ostr(as, "user") == NULL && !ostr(as, "partition")
                         ? find_named(accounts, ostr(as, "account"))
                         : NULL;
        if (pa != NULL && ostr(pa, "parent") != NULL &&
            strcmp(ostr(pa, "parent"), acct) == 0)
            dump_parent(fp, ostr(pa, "name"), assocs, accounts, users,
                        depth + 1);
    }
}

int acctmgr_dump(const char *cluster, const char *file, struct err *e)
{
    json_t *acc = list("account", e), *usr = NULL, *as = NULL, *cl = NULL;
    FILE *fp = stdout;
    int rc = -1;

    if (acc == NULL || (usr = list("user", e)) == NULL ||
        (as = list("association", e)) == NULL ||
        (cl = list("cluster", e)) == NULL)
        goto out;
    if (cluster == NULL)
        cluster =
            ostr(json_array_get(json_object_get(cl, "clusters"), 0), "name");
    if (file != NULL && (fp = fopen(file, "w")) == NULL) {
        err_set(e, "%s: %s", file, strerror(errno));
        goto out;
    }
    fprintf(fp,
            "# The accounts and users of cluster %s, as sacctmgr dump "
            "writes them;\n# sacctmgr load file=FILE adds them back.\n",
            cluster ? cluster : "");
    fprintf(fp, "Cluster - '%s':Fairshare=1:QOS='normal'\n",
            cluster ? cluster : "");
    dump_parent(fp, "root", json_object_get(as, "associations"),
                json_object_get(acc, "accounts"), json_object_get(usr, "users"),
                0);
    rc = 0;
    if (fp != stdout && fclose(fp) != 0)
        rc = err_set(e, "%s: %s", file, strerror(errno));
out:
    json_decref(acc);
    json_decref(usr);
    json_decref(as);
    json_decref(cl);
    return rc;
}

/* "Kind - 'name':Key=V:Key='V, with: colon'" into kind, name and set. */
static int parse_line(char *line, char **kind, char **name, json_t *set)
{
    char *dash = strstr(line, " - "), *p, *out;
    bool first = true;

    if (dash == NULL)
        return -1;
    *dash = '\0';
    *kind = line;
    p = dash + 3;
    while (*p != '\0') {
        char *tok = p;
        bool q = false;
        for (out = p; *p != '\0' && (q || *p != ':'); p++)
            if (*p == '\'')
                q = !q;
            else
                *out++ = *p;
        if (*p == ':')
            p++;
        *out = '\0';
        if (first) {
            *name = tok;
            first = false;
            continue;
        }
        char *eq = strchr(tok, '=');
        if (eq == NULL || eq == tok)
            return -1;
        *eq = '\0';
        json_array_append_new(set, json_pack("{s:s, s:s, s:s}", "key", tok,
                                             "op", "=", "value", eq + 1));
    }
    return first ? -1 : 0;
}

/* One Account or User line under parent: added unless it is there. */
static int load_one(const char *entity, const char *name, const char *parent,
                    json_t *set, int *added, struct err *e)
{
    json_t *req, *reply = NULL;
    int rc;

    json_array_append_new(
        set, json_pack("{s:s, s:s, s:s}", "key",
                       strcmp(entity, "user") == 0 ? "Account" : "Parent", "op",
                       "=", "value", parent));
    req = json_pack("{s:s, s:[s], s:O, s:{}, s:b}", "entity", entity, "names",
                    name, "set", set, "where", "dry_run", 0);
    rc = cli_call(PROTO_MSG_ACCT_ADD, req, &reply, e);
    json_decref(req);
    json_decref(reply);
    if (rc == 0)
        (*added)++;
    else if (strstr(e->text, "already") != NULL ||
             strstr(e->text, "nothing new") != NULL)
        rc = 0;
    return rc;
}

int acctmgr_load(const char *file, struct err *e)
{
    FILE *fp = fopen(file, "r");
    char line[4096], parent[256] = "root";
    int lineno = 0, added = 0, rc = 0;

    if (fp == NULL)
        return err_set(e, "%s: %s", file, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), fp) != NULL) {
        char *kind, *name = NULL;
        json_t *set = json_array();
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0') {
            json_decref(set);
            continue;
        }
        if (parse_line(line, &kind, &name, set) < 0) {
            rc = err_set(e, "%s:%d: expected \"Kind - 'name':Key=Value...\"",
                         file, lineno);
        } else if (strcasecmp(kind, "Parent") == 0) {
            snprintf(parent, sizeof(parent), "%s", name);
        } else if (strcasecmp(kind, "Account") == 0 ||
                   strcasecmp(kind, "User") == 0) {
            bool user = strcasecmp(kind, "User") == 0;
            if (load_one(user ? "user" : "account", name, parent, set, &added,
                         e) < 0)
                rc = err_prefix(e, "%s:%d", file, lineno);
        } else if (strcasecmp(kind, "Cluster") != 0) {
            rc = err_set(e, "%s:%d: unknown line kind \"%s\"", file, lineno,
                         kind);
        }
        json_decref(set);
    }
    fclose(fp);
    if (rc == 0)
        printf("sacctmgr load: %d added from %s\n", added, file);
    return rc;
}
