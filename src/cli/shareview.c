/*
 * sshare's view (shareview.h): the fields by Slurm's names and widths,
 * the rows of SHARE_REPLY that the options select, each account indented
 * one blank per level below root.
 */
#include "cli/shareview.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

/* sshare's fields: Slurm's names, headers and widths (Account left). */
enum sf {
    SF_ACCOUNT,
    SF_USER,
    SF_RAWSHARES,
    SF_NORMSHARES,
    SF_RAWUSAGE,
    SF_NORMUSAGE,
    SF_EFFUSAGE,
    SF_FAIRSHARE,
    SF_LEVELFS,
    SF_GRPTRESMINS,
    SF_TRESRUNMINS,
    SF_CLUSTER,
    SF_PARTITION,
    SF_COUNT
};

static const struct {
    const char *name;
    int width;
} share_fields[SF_COUNT] = {
    [SF_ACCOUNT] = {"Account", -20},
    [SF_USER] = {"User", 10},
    [SF_RAWSHARES] = {"RawShares", 10},
    [SF_NORMSHARES] = {"NormShares", 11},
    [SF_RAWUSAGE] = {"RawUsage", 11},
    [SF_NORMUSAGE] = {"NormUsage", 11},
    [SF_EFFUSAGE] = {"EffectvUsage", 13},
    [SF_FAIRSHARE] = {"FairShare", 10},
    [SF_LEVELFS] = {"LevelFS", 10},
    [SF_GRPTRESMINS] = {"GrpTRESMins", 30},
    [SF_TRESRUNMINS] = {"TRESRunMins", 30},
    [SF_CLUSTER] = {"Cluster", 10},
    [SF_PARTITION] = {"Partition", 12},
};

#define SHARE_DEFAULT                                                          \
    "Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare"
#define SHARE_LONG                                                             \
    "Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,"       \
    "FairShare,LevelFS,GrpTRESMins,TRESRunMins"

struct share_spec {
    int f[32];
    struct fmt_col col[32];
    size_t n;
};

/* "Account,User%12,..." (any case; %N sets the width, %-N left); the
 * partition column follows User with -m.  -1 with e naming a bad field. */
static int share_spec_parse(const char *fmt, bool partition,
                            struct share_spec *sp, struct err *e)
{
    char *copy = xstrdup(fmt), *save = NULL, *tok;
    int rc = 0;

    sp->n = 0;
    for (tok = strtok_r(copy, ", ", &save); tok && rc == 0;
         tok = strtok_r(NULL, ", ", &save)) {
        char *pct = strchr(tok, '%');
        int f, w;
        if (pct != NULL)
            *pct = '\0';
        for (f = 0; f < SF_COUNT; f++)
            if (strcasecmp(tok, share_fields[f].name) == 0)
                break;
        if (f == SF_COUNT || sp->n >= 31) {
            rc = err_set(e, "Invalid field requested: \"%s\"", tok);
            break;
        }
        w = pct ? atoi(pct + 1) : share_fields[f].width;
        sp->f[sp->n] = f;
        sp->col[sp->n++] = (struct fmt_col){
            w < 0 ? -w : w, w < 0,
            f <= SF_USER || f >= SF_CLUSTER ? FMT_CUT_PLUS : FMT_CUT_NONE};
        if (f == SF_USER && partition) {
            sp->f[sp->n] = SF_PARTITION;
            sp->col[sp->n++] = (struct fmt_col){
                share_fields[SF_PARTITION].width, false, FMT_CUT_PLUS};
        }
    }
    free(copy);
    if (rc == 0 && sp->n == 0)
        rc = err_set(e, "no fields given");
    return rc;
}

static bool in_list(const char *list, const char *s)
{
    size_t n = strlen(s);

    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, s, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static bool shown(const struct shareview_args *a, json_t *row)
{
    const char *acc = json_string_value(json_object_get(row, "account"));
    const char *user = json_string_value(json_object_get(row, "user"));

    if (a->accounts != NULL && !in_list(a->accounts, acc))
        return false;
    if (user == NULL)
        return !a->users_only;
    if (a->users != NULL)
        return in_list(a->users, user);
    return a->all || strcmp(user, a->me) == 0;
}

/* v with digits decimals, or "" when it is not a number. */
static void num(char *buf, size_t len, json_t *v, int digits)
{
    if (json_is_number(v))
        snprintf(buf, len, "%.*f", digits, json_number_value(v));
    else
        buf[0] = '\0';
}

/* One cell; total: root's raw usage, for NormUsage. */
static const char *share_value(int f, json_t *row, double total, char *buf,
                               size_t len)
{
    const char *user = json_string_value(json_object_get(row, "user"));
    int depth = (int)json_integer_value(json_object_get(row, "depth"));
    json_t *ru = json_object_get(row, "raw_usage");

    switch (f) {
    case SF_ACCOUNT:
        snprintf(buf, len, "%*s%s", depth, "",
                 json_string_value(json_object_get(row, "account")));
        return buf;
    case SF_USER:
        return user ? user : "";
    case SF_RAWSHARES:
        if (!json_is_string(json_object_get(row, "parent")) && user == NULL)
            return ""; /* root's own */
        snprintf(
            buf, len, "%lld",
            (long long)json_integer_value(json_object_get(row, "raw_shares")));
        return buf;
    case SF_NORMSHARES:
        num(buf, len, json_object_get(row, "norm_shares"), 6);
        return buf;
    case SF_RAWUSAGE:
        num(buf, len, ru, 0);
        return buf;
    case SF_NORMUSAGE:
        snprintf(buf, len, "%.6f",
                 total > 0 ? json_number_value(ru) / total : 0.0);
        return buf;
    case SF_EFFUSAGE:
        num(buf, len, json_object_get(row, "effective_usage"), 6);
        return buf;
    case SF_FAIRSHARE:
        num(buf, len, json_object_get(row, "fairshare"), 6);
        return buf;
    case SF_LEVELFS:
        num(buf, len, json_object_get(row, "level_fs"), 6);
        return buf;
    case SF_TRESRUNMINS:
        return "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,"
               "pages=0";
    default: /* GrpTRESMins, Cluster, Partition: none here */
        return "";
    }
}

int shareview_print(FILE *fp, const struct shareview_args *a, json_t *reply,
                    struct err *e)
{
    const char *fmt = a->format ? a->format
                      : a->lng  ? SHARE_LONG
                                : SHARE_DEFAULT;
    json_t *rows = json_object_get(reply, "shares"), *row;
    struct share_spec sp;
    struct fmt_tab t;
    double total = 0;
    char buf[512];
    size_t i;

    if (share_spec_parse(fmt, a->partition, &sp, e) < 0)
        return -1;
    t = (struct fmt_tab){fp, a->mode, sp.col, sp.n, true};
    if (!a->noheader) {
        for (i = 0; i < sp.n; i++)
            fmt_tab_cell(&t, i, share_fields[sp.f[i]].name);
        fmt_tab_rule(&t);
    }
    json_array_foreach(rows, i, row)
    {
        if (json_integer_value(json_object_get(row, "depth")) == 0)
            total += json_number_value(json_object_get(row, "raw_usage"));
    }
    json_array_foreach(rows, i, row)
    {
        if (!shown(a, row))
            continue;
        for (size_t k = 0; k < sp.n; k++)
            fmt_tab_cell(&t, k,
                         share_value(sp.f[k], row, total, buf, sizeof(buf)));
    }
    return 0;
}

void shareview_helpformat(FILE *fp)
{
    for (int f = 0; f < SF_COUNT; f++)
        fprintf(fp, "%s%s", share_fields[f].name,
                f + 1 < SF_COUNT ? " " : "\n");
}
