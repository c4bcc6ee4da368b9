/*
 * The limit keys of sacctmgr (MaxJobsPerUser, GrpTRES, MaxWall ...) and
 * their values as Slurm spells them, set on a struct limits: what the
 * controller's accounting (ctld/acct/acct_set.c) and the simulator's QOS
 * file (src/sim) both read.  AccountingStorageEnforce's words, and the
 * levels of a chain they enforce.
 */
#include "sched/limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

bool limits_key_is(const char *key, const char *const *aliases)
{
    for (; *aliases != NULL; aliases++)
        if (strcasecmp(key, *aliases) == 0)
            return true;
    return false;
}

#define KEY(...) limits_key_is(key, (const char *const[]){__VA_ARGS__, NULL})

bool limits_value_clears(const char *val)
{
    return strcmp(val, "-1") == 0 || val[0] == '\0';
}

int limits_key_assign_only(const char *key, const char *op, struct err *e)
{
    if (strcmp(op, "=") != 0)
        return err_inval(e, "%s: %s is only for lists; use %s=", key, op, key);
    return 0;
}

/* A count limit: "-1" clears it. */
static int set_count(const char *key, const char *op, const char *val,
                     uint64_t *out, struct err *e)
{
    struct err ve;

    if (limits_key_assign_only(key, op, e) < 0)
        return -1;
    if (limits_value_clears(val)) {
        *out = LIMITS_UNSET;
        return 0;
    }
    if (value_parse_u64(val, 0, LIMITS_UNSET - 1, out, &ve) < 0)
        return err_inval(e, "%s=%.64s: %s (-1 clears the limit)", key, val,
                         ve.text);
    return 0;
}

static int set_wall(const char *key, const char *op, const char *val,
                    uint64_t *out, struct err *e)
{
    int64_t secs;
    struct err ve;

    if (limits_key_assign_only(key, op, e) < 0)
        return -1;
    if (limits_value_clears(val)) {
        *out = LIMITS_UNSET;
        return 0;
    }
    if (timefmt_parse(val, &secs, &ve) < 0)
        return err_inval(e, "%s=%.64s: %s", key, val, ve.text);
    *out = secs == TIMEFMT_INFINITE ? LIMITS_UNSET : (uint64_t)secs;
    return 0;
}

static int tres_index(const char *name)
{
    for (int t = 0; t < LIMITS_TRES_COUNT; t++)
        if (strcasecmp(name, limits_tres_name((enum limits_tres)t)) == 0)
            return t;
    return -1;
}

/* One "name=value" of a TRES list into t. */
static int set_tres_one(const char *key, char *item, uint64_t *t, struct err *e)
{
    char *eq = strchr(item, '='), *v;
    struct err ve;
    int idx;
    uint64_t n;

    if (eq == NULL)
        return err_inval(e,
                         "%s: \"%.64s\" is not TRES=COUNT (cpu, mem, node, "
                         "billing, gres/gpu)",
                         key, item);
    *eq = '\0';
    v = eq + 1;
    idx = tres_index(item);
    if (idx < 0)
        return err_inval(e,
                         "%s: unknown TRES \"%.64s\" (cpu, mem, node, billing, "
                         "gres/gpu)",
                         key, item);
    if (limits_value_clears(v)) {
        t[idx] = LIMITS_UNSET;
        return 0;
    }
    if (idx == LIMITS_TRES_MEM
            ? value_parse_mem_mib(v, &n, &ve)
            : value_parse_u64(v, 0, LIMITS_UNSET - 1, &n, &ve))
        return err_inval(e, "%s: %s=%.64s: %s", key, item, v, ve.text);
    t[idx] = n;
    return 0;
}

/* "gres/gpu=2,cpu=8": only the TRES named change; "=-1" clears one. */
static int set_tres(const char *key, const char *op, const char *val,
                    uint64_t *t, struct err *e)
{
    uint64_t tmp[LIMITS_TRES_COUNT];
    char *copy, *save = NULL, *item;
    int rc = 0;

    if (limits_key_assign_only(key, op, e) < 0)
        return -1;
    memcpy(tmp, t, sizeof(tmp));
    if (strcmp(val, "-1") == 0) {
        for (int i = 0; i < LIMITS_TRES_COUNT; i++)
            t[i] = LIMITS_UNSET;
        return 0;
    }
    copy = xstrdup(val);
    for (item = strtok_r(copy, ",", &save); item && rc == 0;
         item = strtok_r(NULL, ",", &save))
        rc = set_tres_one(key, item, tmp, e);
    free(copy);
    if (rc == 0)
        memcpy(t, tmp, sizeof(tmp));
    return rc;
}

int limits_set_key(struct limits *l, bool qos, const char *key, const char *op,
                   const char *val, struct err *e)
{
    int rc = 1;

    if (qos ? KEY("MaxSubmitJobsPerUser", "MaxSubmitJobsPU", "MaxSubmitPU")
            : KEY("MaxSubmitJobs", "MaxSubmit"))
        rc = set_count(key, op, val, &l->max_submit_jobs_pu, e);
    else if (qos ? KEY("MaxJobsPerUser", "MaxJobsPU") : KEY("MaxJobs"))
        rc = set_count(key, op, val, &l->max_jobs_pu, e);
    else if (qos &&
             KEY("MaxSubmitJobsPerAccount", "MaxSubmitJobsPA", "MaxSubmitPA"))
        rc = set_count(key, op, val, &l->max_submit_jobs_pa, e);
    else if (qos && KEY("MaxJobsPerAccount", "MaxJobsPA"))
        rc = set_count(key, op, val, &l->max_jobs_pa, e);
    else if (KEY("GrpJobs"))
        rc = set_count(key, op, val, &l->grp_jobs, e);
    else if (KEY("GrpSubmitJobs", "GrpSubmit"))
        rc = set_count(key, op, val, &l->grp_submit_jobs, e);
    else if (KEY("MaxWall", "MaxWallDurationPerJob"))
        rc = set_wall(key, op, val, &l->max_wall_s, e);
    else if (KEY("MaxTRESPerJob", "MaxTRES"))
        rc = set_tres(key, op, val, l->max_tres_per_job, e);
    else if (qos && KEY("MaxTRESPerUser", "MaxTRESPU"))
        rc = set_tres(key, op, val, l->max_tres_per_user, e);
    else if (KEY("GrpTRES"))
        rc = set_tres(key, op, val, l->grp_tres, e);
    else if (qos && KEY("MinPrioThreshold"))
        rc = set_count(key, op, val, &l->min_prio_threshold, e);
    else
        return 0;
    return rc < 0 ? -1 : 1;
}

/* Does the comma list s name word (case-insensitive)? */
static bool names(const char *s, const char *word)
{
    size_t n = strlen(word);

    while (s != NULL && *s != '\0') {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && strncasecmp(s, word, n) == 0)
            return true;
        s = end ? end + 1 : NULL;
    }
    return false;
}

void limits_enforce_parse(const char *enforce, bool *limits, bool *qos)
{
    *limits = names(enforce, "limits") || names(enforce, "safe");
    *qos = *limits && names(enforce, "qos");
}

size_t limits_levels_enforced(const struct limits_level *all, size_t n,
                              bool enforce_qos, struct limits_level *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (enforce_qos || all[i].kind != LIMITS_QOS)
            out[k++] = all[i];
    return k;
}
