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

enum kind { K_STR, K_INT, K_TIME, K_LIST, K_TRES, K_FLOAT, K_SHARE };

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
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcasecmp(w, map[i].word) == 0)
            return map[i].entity;
    return NULL;
}

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

static const struct col *find_col(const struct col *cols, const char *name)
{
    for (; cols->name != NULL; cols++)
        if (strcasecmp(name, cols->name) == 0 ||
            (cols->alias1 && strcasecmp(name, cols->alias1) == 0) ||
            (cols->alias2 && strcasecmp(name, cols->alias2) == 0))
            return cols;
    return NULL;
}

/* "Name,Priority%20" into fields; -1 with e on an unknown column. */
static int parse_format(const struct col *cols, const char *entity,
                        const char *format, struct field **out, size_t *n,
                        struct err *e)
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
        c = find_col(cols, it);
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

int acctmgr_print(const char *entity, json_t *reply, const char *format,
                  const struct acctmgr_out *out, struct err *e)
{
    const char *def, *key;
    const struct col *cols = cols_of(entity, &def, &key);
    struct field *f;
    size_t n, i;
    json_t *items = json_object_get(reply, key), *o;
    struct fmt_col *tc;
    struct fmt_tab t;
    char buf[4096];

    if (parse_format(cols, entity, format ? format : def, &f, &n, e) < 0)
        return -1;
    /* Right-justified columns, no blank after the last; -p wins over -P. */
    tc = xcalloc(n, sizeof(*tc));
    for (size_t k = 0; k < n; k++)
        tc[k] = (struct fmt_col){f[k].width, false, FMT_CUT_PLUS};
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
