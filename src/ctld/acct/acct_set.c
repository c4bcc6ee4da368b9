/*
 * sacctmgr's settable keys and their values, as Slurm spells them: QOS
 * fields, association fields and limits, user and account fields.  Each
 * setter checks one value and applies it to a record the caller owns (a
 * copy, swapped in only when every key of the request applied).
 */
#include "ctld/acct/acct_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

#define KEY(...) limits_key_is(key, (const char *const[]){__VA_ARGS__, NULL})

/* A list of QOS names with =, += or -=; every name must exist. */
static int set_qos_list(const struct acct *a, const char *key, const char *op,
                        const char *val, char ***v, size_t *n, struct err *e)
{
    char **nv = NULL, *copy, *save = NULL, *item;
    size_t nn = 0;
    int rc = 0;

    if (strcmp(op, "=") != 0) {
        nv = acct_strv_dup(*v, *n);
        nn = *n;
    }
    copy = xstrdup(limits_value_clears(val) && strcmp(op, "=") == 0 ? "" : val);
    for (item = strtok_r(copy, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        if (acct_qos_find(a, item) == NULL) {
            rc = err_inval(e, "%s%s%.64s: no such QOS \"%.64s\"", key, op, val,
                           item);
            break;
        }
        if (strcmp(op, "-=") == 0)
            acct_strv_del(nv, &nn, item);
        else
            acct_strv_add(&nv, &nn, item);
    }
    free(copy);
    if (rc < 0) {
        acct_strv_free(nv, nn);
        return -1;
    }
    acct_strv_free(*v, *n);
    *v = nv;
    *n = nn;
    return 0;
}

static int set_time(const char *key, const char *op, const char *val,
                    bool secs_plain, int64_t *out, struct err *e)
{
    struct err ve;
    uint64_t u;

    if (limits_key_assign_only(key, op, e) < 0)
        return -1;
    if (limits_value_clears(val)) {
        *out = ACCT_TIME_UNSET;
        return 0;
    }
    if (secs_plain && value_parse_u64(val, 0, INT32_MAX, &u, NULL) == 0) {
        *out = (int64_t)u;
        return 0;
    }
    if (timefmt_parse(val, out, &ve) < 0 || *out == TIMEFMT_INFINITE)
        return err_inval(e, "%s=%.64s: %s", key, val,
                         *out == TIMEFMT_INFINITE ? "must be finite" : ve.text);
    return 0;
}

static int set_flags(const char *key, const char *op, const char *val,
                     uint32_t *flags, struct err *e)
{
    uint32_t f = strcmp(op, "=") == 0 ? 0 : *flags, one;
    char *copy, *save = NULL, *item;
    int rc = 0;

    if (strcmp(val, "-1") == 0 && strcmp(op, "=") == 0) {
        *flags = 0;
        return 0;
    }
    copy = xstrdup(val);
    for (item = strtok_r(copy, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        if (acct_qos_flag_parse(item, &one) < 0) {
            rc = err_inval(e,
                           "%s=%.64s: unknown QOS flag \"%.64s\" (DenyOnLimit, "
                           "NoDecay, OverPartQOS, PartitionMinNodes, "
                           "PartitionMaxNodes, PartitionTimeLimit, NoReserve, "
                           "EnforceUsageThreshold, UsageFactorSafe, Relative)",
                           key, val, item);
            break;
        }
        f = strcmp(op, "-=") == 0 ? f & ~one : f | one;
    }
    free(copy);
    if (rc == 0)
        *flags = f;
    return rc;
}

static int set_string(const char *key, const char *op, const char *val,
                      char **out, struct err *e)
{
    if (limits_key_assign_only(key, op, e) < 0)
        return -1;
    if (strlen(val) > 1024)
        return err_inval(e, "%s is %zu bytes, the limit is 1024", key,
                         strlen(val));
    free(*out);
    *out = xstrdup(val);
    return 0;
}

int acct_set_qos(const struct acct *a, struct acct_qos *q, const char *key,
                 const char *op, const char *val, struct err *e)
{
    uint64_t u;
    char *end;
    int rc;

    if (KEY("Description"))
        rc = set_string(key, op, val, &q->description, e);
    else if (KEY("Priority")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && limits_value_clears(val))
            q->priority = 0;
        else if (rc == 0 &&
                 value_parse_u64(val, 0, UINT32_MAX - 1, &u, NULL) < 0)
            rc = err_inval(e, "Priority=%.64s: expected a number 0-%u", val,
                           UINT32_MAX - 1);
        else if (rc == 0)
            q->priority = (uint32_t)u;
    } else if (KEY("Preempt"))
        rc = set_qos_list(a, key, op, val, &q->preempt, &q->n_preempt, e);
    else if (KEY("PreemptMode")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && acct_preempt_mode_parse(val, &q->preempt_mode) < 0)
            rc = err_inval(e,
                           "PreemptMode=%.64s: expected cluster, off, cancel, "
                           "requeue or suspend",
                           val);
    } else if (KEY("PreemptExemptTime"))
        rc = set_time(key, op, val, false, &q->preempt_exempt_time_s, e);
    else if (KEY("GraceTime")) {
        rc = set_time(key, op, val, true, &q->grace_time_s, e);
        if (q->grace_time_s < 0)
            q->grace_time_s = 0;
    } else if (KEY("UsageFactor")) {
        double d = strtod(val, &end);
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && limits_value_clears(val))
            q->usage_factor = 1.0;
        else if (rc == 0 && (end == val || *end != '\0' || !(d >= 0)))
            rc = err_inval(e, "UsageFactor=%.64s: expected a number >= 0", val);
        else if (rc == 0)
            q->usage_factor = d;
    } else if (KEY("Flags"))
        rc = set_flags(key, op, val, &q->flags, e);
    else
        return limits_set_key(&q->limits, true, key, op, val, e);
    return rc < 0 ? -1 : 1;
}

int acct_set_assoc(const struct acct *a, struct acct_assoc *as, const char *key,
                   const char *op, const char *val, struct err *e)
{
    uint64_t u;
    int rc;

    if (KEY("Fairshare", "Shares")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && strcasecmp(val, "parent") == 0)
            as->shares = ACCT_SHARES_PARENT;
        else if (rc == 0 && limits_value_clears(val))
            as->shares = 1;
        else if (rc == 0 &&
                 value_parse_u64(val, 0, UINT32_MAX - 1, &u, NULL) < 0)
            rc = err_inval(
                e, "Fairshare=%.64s: expected a number or \"parent\"", val);
        else if (rc == 0)
            as->shares = (uint32_t)u;
    } else if (KEY("DefaultQOS", "DefQOS")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && limits_value_clears(val)) {
            free(as->default_qos);
            as->default_qos = NULL;
        } else if (rc == 0 && acct_qos_find(a, val) == NULL) {
            rc = err_inval(e, "DefaultQOS=%.64s: no such QOS", val);
        } else if (rc == 0) {
            free(as->default_qos);
            as->default_qos = xstrdup(val);
        }
    } else if (KEY("QOS", "QOSLevel")) {
        rc = set_qos_list(a, key, op, val, &as->qos, &as->n_qos, e);
    } else {
        return limits_set_key(&as->limits, false, key, op, val, e);
    }
    return rc < 0 ? -1 : 1;
}

int acct_set_user(const struct acct *a, struct acct_user *u, const char *key,
                  const char *op, const char *val, unsigned flags,
                  struct err *e)
{
    int rc;

    if (KEY("DefaultAccount", "DefAccount", "DefAcct")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && acct_account_find(a, val) == NULL)
            rc = err_inval(e, "DefaultAccount=%.64s: no such account", val);
        else if (rc == 0)
            rc = set_string(key, op, val, &u->default_account, e);
    } else if (KEY("AdminLevel", "Admin")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && !(flags & ACCT_REQ_ADMIN_LEVEL))
            rc = err_inval(e, "AdminLevel: only administrators may set it "
                              "(operators may not)");
        else if (rc == 0 && acct_admin_parse(val, &u->admin) < 0)
            rc = err_inval(e,
                           "AdminLevel=%.64s: expected None, Operator or "
                           "Administrator",
                           val);
    } else {
        return 0;
    }
    return rc < 0 ? -1 : 1;
}

int acct_set_account(const struct acct *a, struct acct_account *ac,
                     const char *key, const char *op, const char *val,
                     struct err *e)
{
    int rc;

    if (KEY("Description"))
        rc = set_string(key, op, val, &ac->description, e);
    else if (KEY("Organization"))
        rc = set_string(key, op, val, &ac->organization, e);
    else if (KEY("Parent")) {
        rc = limits_key_assign_only(key, op, e);
        if (rc == 0 && acct_account_find(a, val) == NULL)
            rc = err_inval(e, "Parent=%.64s: no such account", val);
        else if (rc == 0 && strcmp(ac->name, "root") == 0)
            rc = err_inval(e, "Parent: account root has no parent");
        else if (rc == 0)
            rc = set_string(key, op, val, &ac->parent, e);
    } else {
        return 0;
    }
    return rc < 0 ? -1 : 1;
}
