/*
 * sacctmgr show/list: each entity's columns with Slurm's names, headers
 * and widths, right-justified and cut with '+' as sacctmgr does, or
 * '|'-separated with -p/-P.  Values come from the JSON objects of
 * docs/protocol.md.
 */
#include "cli/acctmgr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/fmt.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

enum kind { K_STR, K_INT, K_TIME, K_LIST, K_TRES, K_FLOAT, K_SHARE, K_EPOCH };

struct col {
    const char *name; /* the format= name */
    const char *alias1, *alias2;
    const char *header;
    int width;
    const char *path; /* "limits.max_jobs_per_user" */
    enum kind kind;
};

static const struct col qos_cols[] = {
    {"Name", NULL, NULL, "Name", 10, "name", K_STR},
    {"Priority", NULL, NULL, "Priority", 10, "priority", K_INT},
    {"GraceTime", NULL, NULL, "GraceTime", 10, "grace_time", K_TIME},
    {"Preempt", NULL, NULL, "Preempt", 10, "preempt", K_LIST},
    {"PreemptExemptTime", NULL, NULL, "PreemptExemptTime", 19,
     "preempt_exempt_time", K_TIME},
    {"PreemptMode", NULL, NULL, "PreemptMode", 11, "preempt_mode", K_STR},
    {"Flags", NULL, NULL, "Flags", 10, "flags", K_LIST},
    {"UsageFactor", NULL, NULL, "UsageFactor", 11, "usage_factor", K_FLOAT},
    {"GrpTRES", NULL, NULL, "GrpTRES", 13, "limits.grp_tres", K_TRES},
    {"GrpJobs", NULL, NULL, "GrpJobs", 7, "limits.grp_jobs", K_INT},
    {"GrpSubmit", "GrpSubmitJobs", NULL, "GrpSubmit", 9,
     "limits.grp_submit_jobs", K_INT},
    {"MaxTRES", "MaxTRESPerJob", NULL, "MaxTRES", 13, "limits.max_tres_per_job",
     K_TRES},
    {"MaxWall", "MaxWallDurationPerJob", NULL, "MaxWall", 11, "limits.max_wall",
     K_TIME},
    {"MaxTRESPU", "MaxTRESPerUser", NULL, "MaxTRESPU", 13,
     "limits.max_tres_per_user", K_TRES},
    {"MaxJobsPU", "MaxJobsPerUser", NULL, "MaxJobsPU", 9,
     "limits.max_jobs_per_user", K_INT},
    {"MaxSubmitPU", "MaxSubmitJobsPerUser", "MaxSubmitJobsPU", "MaxSubmitPU",
     11, "limits.max_submit_jobs_per_user", K_INT},
    {"MaxJobsPA", "MaxJobsPerAccount", NULL, "MaxJobsPA", 9,
     "limits.max_jobs_per_account", K_INT},
    {"MaxSubmitPA", "MaxSubmitJobsPerAccount", "MaxSubmitJobsPA", "MaxSubmitPA",
     11, "limits.max_submit_jobs_per_account", K_INT},
    {"MinPrioThreshold", "MinPrioThres", NULL, "MinPrioThres", 12,
     "limits.min_prio_threshold", K_INT},
    {"Description", "Descr", NULL, "Descr", 20, "description", K_STR},
    {"ID", NULL, NULL, "ID", 6, "id", K_INT},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};
static const char qos_default[] =
    "Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,Flags,"
    "UsageFactor,GrpTRES,GrpJobs,GrpSubmit,MaxTRES,MaxWall,MaxTRESPU,"
    "MaxJobsPU,MaxSubmitPU,MaxJobsPA,MaxSubmitPA";

static const struct col user_cols[] = {
    {"User", "Name", NULL, "User", 10, "name", K_STR},
    {"DefaultAccount", "DefAcct", "Def Acct", "Def Acct", 10, "default_account",
     K_STR},
    {"AdminLevel", "Admin", NULL, "Admin", 9, "admin_level", K_STR},
    {"Accounts", "Account", NULL, "Accounts", 20, "accounts", K_LIST},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};
static const char user_default[] = "User,DefaultAccount,AdminLevel";

static const struct col account_cols[] = {
    {"Account", "Name", NULL, "Account", 10, "name", K_STR},
    {"Description", "Descr", NULL, "Descr", 20, "description", K_STR},
    {"Organization", "Org", NULL, "Org", 20, "organization", K_STR},
    {"ParentName", "Parent", NULL, "Par Name", 10, "parent", K_STR},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};
static const char account_default[] = "Account,Description,Organization";

static const struct col assoc_cols[] = {
    {"Cluster", NULL, NULL, "Cluster", 10, "cluster", K_STR},
    {"Account", NULL, NULL, "Account", 10, "account", K_STR},
    {"User", NULL, NULL, "User", 10, "user", K_STR},
    {"Partition", NULL, NULL, "Partition", 10, "partition", K_STR},
    {"Share", "Fairshare", "Shares", "Share", 9, "fairshare", K_SHARE},
    {"GrpJobs", NULL, NULL, "GrpJobs", 7, "limits.grp_jobs", K_INT},
    {"GrpTRES", NULL, NULL, "GrpTRES", 13, "limits.grp_tres", K_TRES},
    {"GrpSubmit", "GrpSubmitJobs", NULL, "GrpSubmit", 9,
     "limits.grp_submit_jobs", K_INT},
    {"MaxJobs", NULL, NULL, "MaxJobs", 7, "limits.max_jobs_per_user", K_INT},
    {"MaxTRES", "MaxTRESPerJob", NULL, "MaxTRES", 13, "limits.max_tres_per_job",
     K_TRES},
    {"MaxSubmit", "MaxSubmitJobs", NULL, "MaxSubmit", 9,
     "limits.max_submit_jobs_per_user", K_INT},
    {"MaxWall", "MaxWallDurationPerJob", NULL, "MaxWall", 11, "limits.max_wall",
     K_TIME},
    {"QOS", NULL, NULL, "QOS", 20, "effective_qos", K_LIST},
    {"DefaultQOS", "Def QOS", "DefQOS", "Def QOS", 9, "effective_default_qos",
     K_STR},
    {"ID", NULL, NULL, "ID", 6, "id", K_INT},
    {"ParentID", "Par ID", NULL, "Par ID", 6, "parent_id", K_INT},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};
static const char assoc_default[] =
    "Cluster,Account,User,Partition,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,"
    "MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS";

/* sacctmgr show events: a node's DOWN or DRAIN, TimeEnd Unknown while it
 * lasts. */
static const struct col event_cols[] = {
    {"Cluster", NULL, NULL, "Cluster", 10, "cluster", K_STR},
    {"NodeName", "Node", "Nodes", "NodeName", 15, "node", K_STR},
    {"TimeStart", "Start", NULL, "TimeStart", 19, "time_start", K_EPOCH},
    {"TimeEnd", "End", NULL, "TimeEnd", 19, "time_end", K_EPOCH},
    {"State", NULL, NULL, "State", 6, "state", K_STR},
    {"Reason", NULL, NULL, "Reason", 30, "reason", K_STR},
    {"User", NULL, NULL, "User", 10, "user", K_STR},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};

static const struct col cluster_cols[] = {
    {"Cluster", "Name", NULL, "Cluster", 10, "name", K_STR},
    {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
};

const char *acctmgr_entity(const char *w)
{
    static const struct {
        const char *word, *entity;
    } map[] = {
        {"qos", "qos"},
        {"account", "account"},
        {"accounts", "account"},
        {"user", "user"},
        {"users", "user"},
        {"association", "association"},
        {"associations", "association"},
        {"assoc", "association"},
        {"cluster", "cluster"},
        {"clusters", "cluster"},
        {"tres", "tres"},
        {"event", "events"},
        {"events", "events"},
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcasecmp(w, map[i].word) == 0)
            return map[i].entity;
    return NULL;
}

/* Slurm's columns of "list user withassoc" / "list account withassoc". */
static const char user_assoc_default[] =
    "User,DefaultAccount,AdminLevel,Cluster,Account,Partition,Share,MaxJobs,"
    "MaxSubmit,MaxWall,QOS,DefaultQOS";
static const char account_assoc_default[] =
    "Account,Description,Organization,Cluster,ParentName,User,Share,MaxJobs,"
    "MaxSubmit,MaxWall,QOS,DefaultQOS";

static const struct col *cols_of(const char *entity, const char **def,
                                 const char **key)
{
    *def = "Cluster";
    *key = "clusters";
    if (strcmp(entity, "qos") == 0) {
        *def = qos_default;
        *key = "qos";
        return qos_cols;
    }
    if (strcmp(entity, "user") == 0) {
        *def = user_default;
        *key = "users";
        return user_cols;
    }
    if (strcmp(entity, "account") == 0) {
        *def = account_default;
        *key = "accounts";
        return account_cols;
    }
    if (strcmp(entity, "association") == 0) {
        *def = assoc_default;
        *key = "associations";
        return assoc_cols;
    }
    if (strcmp(entity, "events") == 0) {
        *def = "Cluster,NodeName,TimeStart,TimeEnd,State,Reason,User";
        *key = "events";
        return event_cols;
    }
    return cluster_cols;
}

static json_t *path_get(json_t *o, const char *path)
{
    char buf[128];
    const char *dot = strchr(path, '.');

    if (dot == NULL)
        return json_object_get(o, path);
    snprintf(buf, sizeof(buf), "%.*s", (int)(dot - path), path);
    return json_object_get(json_object_get(o, buf), dot + 1);
}

static void value_of(const struct col *c, json_t *o, char *buf, size_t len)
{
    json_t *v = path_get(o, c->path), *x;
    const char *k;
    size_t i, used = 0;

    buf[0] = '\0';
    if (v == NULL || json_is_null(v))
        return;
    switch (c->kind) {
    case K_STR:
    case K_SHARE:
        if (json_is_string(v))
            snprintf(buf, len, "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case K_INT:
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case K_FLOAT:
        snprintf(buf, len, "%f", json_number_value(v));
        break;
    case K_TIME:
        timefmt_format(json_integer_value(v), buf, len);
        break;
    case K_EPOCH:
        fmt_time((time_t)json_integer_value(v), "Unknown", buf, len);
        break;
    case K_LIST:
        json_array_foreach(v, i, x)
        {
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     i ? "," : "", json_string_value(x));
            if (used >= len)
                break;
        }
        break;
    case K_TRES:
        i = 0;
        json_object_foreach(v, k, x)
        {
            used += (size_t)snprintf(buf + used, len - used,
                                     "%s%s=%" JSON_INTEGER_FORMAT,
                                     i++ ? "," : "", k, json_integer_value(x));
            if (used >= len)
                break;
        }
        break;
    }
}

struct field {
    const struct col *col;
    int width;
};

static const struct col *find_col1(const struct col *cols, const char *name)
{
    for (; cols->name != NULL; cols++)
        if (strcasecmp(name, cols->name) == 0 ||
            (cols->alias1 && strcasecmp(name, cols->alias1) == 0) ||
            (cols->alias2 && strcasecmp(name, cols->alias2) == 0))
            return cols;
    return NULL;
}

/* With withassoc the association's columns come first ("Account" is the
 * association's account, not the user's list of them). */
static const struct col *find_col(const struct col *cols, const char *name,
                                  bool withassoc)
{
    const struct col *c = withassoc ? find_col1(assoc_cols, name) : NULL;

    return c != NULL ? c : find_col1(cols, name);
}

/* "Name,Priority%20" into fields; -1 with e on an unknown column. */
static int parse_format(const struct col *cols, const char *entity,
                        bool withassoc, const char *format, struct field **out,
                        size_t *n, struct err *e)
{
    char *copy = xstrdup(format), *save = NULL, *it;
    int rc = 0;

    *out = NULL;
    *n = 0;
    for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *pct = strchr(it, '%');
        const struct col *c;
        int width = 0;
        if (pct != NULL) {
            *pct = '\0';
            width = atoi(pct + 1);
        }
        c = find_col(cols, it, withassoc);
        if (c == NULL) {
            errno = EINVAL;
            rc = err_set(e, "Unknown field for %s format: %s", entity, it);
            break;
        }
        *out = xreallocarray(*out, *n + 1, sizeof(**out));
        (*out)[(*n)++] = (struct field){c, width > 0 ? width : c->width};
    }
    free(copy);
    if (rc == 0 && *n == 0) {
        errno = EINVAL;
        rc = err_set(e, "no field in format \"%s\"", format);
    }
    if (rc < 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* The objects under key of reply in the columns of format (NULL: def). */
static int print_cols(const struct col *cols, const char *entity,
                      const char *key, const char *def, json_t *reply,
                      const char *format, const struct acctmgr_out *out,
                      struct err *e)
{
    struct field *f;
    size_t n, i;
    json_t *items = json_object_get(reply, key), *o;
    struct fmt_col *tc;
    struct fmt_tab t;
    char buf[4096];
    bool wa = out->withassoc && (cols == user_cols || cols == account_cols);

    if (wa)
        def = cols == user_cols ? user_assoc_default : account_assoc_default;
    if (parse_format(cols, entity, wa, format ? format : def, &f, &n, e) < 0)
        return -1;
    /* Right-justified columns, no blank after the last; -p wins over -P.
     * The tree's indented Account is left-justified. */
    tc = xcalloc(n, sizeof(*tc));
    for (size_t k = 0; k < n; k++)
        tc[k] = (struct fmt_col){f[k].width,
                                 out->tree && cols == assoc_cols &&
                                     strcmp(f[k].col->name, "Account") == 0,
                                 FMT_CUT_PLUS};
    t = (struct fmt_tab){stdout,
                         out->parsable    ? FMT_TAB_PARSABLE
                         : out->parsable2 ? FMT_TAB_PARSABLE2
                                          : FMT_TAB_COLUMNS,
                         tc, n, false};
    if (!out->noheader) {
        for (size_t k = 0; k < n; k++)
            fmt_tab_cell(&t, k, f[k].col->header);
        fmt_tab_rule(&t);
    }
    json_array_foreach(items, i, o)
    {
        for (size_t k = 0; k < n; k++) {
            value_of(f[k].col, o, buf, sizeof(buf));
            fmt_tab_cell(&t, k, buf);
        }
    }
    free(tc);
    free(f);
    return 0;
}

int acctmgr_print(const char *entity, json_t *reply, const char *format,
                  const struct acctmgr_out *out, struct err *e)
{
    const char *def, *key;
    const struct col *cols = cols_of(entity, &def, &key);

    return print_cols(cols, entity, key, def, reply, format, out, e);
}

bool acctmgr_flag_word(const char *w, struct acctmgr_out *out)
{
    static const char *const ignored[] = {
        "withcoordinator", "withcoord", "withdeleted",     "wopinfo",
        "woplimits",       "wolimits",  "withrawqoslevel", "withsubaccounts",
        "onlydefaults",    "withusage",
    };

    if (strcasecmp(w, "withassoc") == 0 || strcasecmp(w, "withassocs") == 0) {
        out->withassoc = true;
        return true;
    }
    if (strcasecmp(w, "tree") == 0) {
        out->tree = true;
        return true;
    }
    for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
        if (strcasecmp(w, ignored[i]) == 0)
            return true;
    return false;
}

static const char *ostr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Whether the condition of where named by one of keys (absent: any) lists
 * the value s. */
static bool where_ok(json_t *where, const char *const *keys, const char *s)
{
    const char *k;
    json_t *v;

    json_object_foreach(where, k, v)
    {
        for (size_t i = 0; keys[i] != NULL; i++) {
            if (strcasecmp(k, keys[i]) != 0)
                continue;
            const char *list = json_string_value(v);
            size_t n = s ? strlen(s) : 0;
            if (s == NULL || list == NULL)
                return false;
            for (const char *p = list; *p != '\0';) {
                size_t len = strcspn(p, ",");
                if (len == n && strncmp(p, s, n) == 0)
                    return true;
                p += len + (p[len] == ',');
            }
            return false;
        }
    }
    return true;
}

json_t *acctmgr_with_assoc(const char *entity, json_t *items, json_t *assocs,
                           json_t *where)
{
    static const char *const k_acct[] = {"Account", "Accounts", "Acct", NULL};
    static const char *const k_part[] = {"Partition", "Partitions", NULL};
    static const char *const k_clus[] = {"Cluster", "Clusters", NULL};
    bool user = strcmp(entity, "user") == 0;
    json_t *rows = json_array(), *it, *as;
    size_t i, j;

    json_array_foreach(items, i, it)
    {
        const char *name = ostr(it, "name");
        json_array_foreach(assocs, j, as)
        {
            const char *mine = ostr(as, user ? "user" : "account");
            json_t *row;
            if (name == NULL || mine == NULL || strcmp(name, mine) != 0 ||
                (user && !where_ok(where, k_acct, ostr(as, "account"))) ||
                !where_ok(where, k_part, ostr(as, "partition")) ||
                !where_ok(where, k_clus, ostr(as, "cluster")))
                continue;
            row = json_deep_copy(as);
            if (user) {
                json_object_set(row, "name", json_object_get(it, "name"));
                json_object_set(row, "default_account",
                                json_object_get(it, "default_account"));
                json_object_set(row, "admin_level",
                                json_object_get(it, "admin_level"));
            } else {
                json_object_set(row, "name", json_object_get(it, "name"));
                json_object_set(row, "description",
                                json_object_get(it, "description"));
                json_object_set(row, "organization",
                                json_object_get(it, "organization"));
                json_object_set(row, "parent", json_object_get(it, "parent"));
            }
            json_array_append_new(rows, row);
        }
    }
    return rows;
}

static json_int_t oint(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* Appends the association at index i and, depth-first, those whose parent
 * it is: the account's users first, then its sub-accounts, in list order
 * (Slurm lists a user's association under its account). */
static void tree_walk(json_t *assocs, size_t i, int depth, json_t *out,
                      char *seen)
{
    json_t *as = json_array_get(assocs, i), *row = json_deep_copy(as), *c;
    char buf[512];
    size_t k;

    seen[i] = 1;
    snprintf(buf, sizeof(buf), "%*s%s", depth, "", ostr(as, "account"));
    json_object_set_new(row, "account", json_string(buf));
    json_array_append_new(out, row);
    for (int pass = 0; pass < 2; pass++)
        json_array_foreach(assocs, k, c)
        {
            bool is_user = ostr(c, "user") != NULL;
            if (!seen[k] && oint(c, "parent_id") == oint(as, "id") &&
                is_user == (pass == 0))
                tree_walk(assocs, k, depth + 1, out, seen);
        }
}

json_t *acctmgr_tree(json_t *assocs)
{
    size_t n = json_array_size(assocs), i;
    char *seen = xcalloc(n ? n : 1, 1);
    json_t *out = json_array(), *as;

    /* roots: no parent among the listed ones */
    json_array_foreach(assocs, i, as)
    {
        json_t *p;
        size_t k;
        bool has_parent = false;
        json_array_foreach(
            assocs, k, p) if (k != i && oint(p, "id") == oint(as, "parent_id"))
            has_parent = true;
        if (!seen[i] && !has_parent)
            tree_walk(assocs, i, 0, out, seen);
    }
    json_array_foreach(assocs, i, as) /* a cycle: never, but keep them */
        if (!seen[i]) tree_walk(assocs, i, 0, out, seen);
    free(seen);
    return out;
}

/* Slurm's TRES ids; gres/gpu is the first GRES TRES. */
static const struct {
    const char *type, *name;
    int id;
} tres_table[] = {
    {"cpu", "", 1},  {"mem", "", 2},     {"energy", "", 3},
    {"node", "", 4}, {"billing", "", 5}, {"fs", "disk", 6},
    {"vmem", "", 7}, {"pages", "", 8},   {"gres", "gpu", 1001},
};

int acctmgr_print_tres(const char *format, const struct acctmgr_out *out,
                       struct err *e)
{
    static const struct col tres_cols[] = {
        {"Type", NULL, NULL, "Type", 8, "type", K_STR},
        {"Name", NULL, NULL, "Name", 15, "name", K_STR},
        {"ID", NULL, NULL, "ID", 6, "id", K_INT},
        {NULL, NULL, NULL, NULL, 0, NULL, K_STR},
    };
    json_t *items = json_array(), *reply;
    struct field *f;
    size_t n;
    int rc;

    if (parse_format(tres_cols, "tres", false, format ? format : "Type,Name,ID",
                     &f, &n, e) < 0) {
        json_decref(items);
        return -1;
    }
    free(f);
    for (size_t i = 0; i < sizeof(tres_table) / sizeof(tres_table[0]); i++)
        json_array_append_new(items, json_pack("{s:s, s:s, s:i}", "type",
                                               tres_table[i].type, "name",
                                               tres_table[i].name, "id",
                                               tres_table[i].id));
    reply = json_pack("{s:o}", "tres", items);
    rc = print_cols(tres_cols, "tres", "tres", "Type,Name,ID", reply, format,
                    out, e);
    json_decref(reply);
    return rc;
}
