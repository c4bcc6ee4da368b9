/*
 * The job's account and QOS at submit (jobacct.h): resolved from the
 * request and the accounting model, checked as AccountingStorageEnforce
 * asks, and held against the partition's Allow and Deny lists.
 */
#include "ctld/job/jobacct.h"

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/job.h"

static int fail(struct err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct err *e, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    errno = code;
    return -1;
}

/* Is s one of the comma list's items (case-insensitive)? */
static bool in_list(const char *list, const char *s)
{
    size_t n = strlen(s);

    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncasecmp(p, s, n) == 0)
            return true;
        p += len + (end != NULL);
    }
    return false;
}

unsigned jobacct_enforce(const struct conf *conf)
{
    const char *s = conf->accounting_storage_enforce;
    unsigned f = 0;

    if (s == NULL)
        return 0;
    if (in_list(s, "all"))
        f |= JOBACCT_ENFORCE_SAFE | JOBACCT_ENFORCE_QOS;
    if (in_list(s, "safe"))
        f |= JOBACCT_ENFORCE_SAFE;
    if (in_list(s, "qos"))
        f |= JOBACCT_ENFORCE_QOS;
    if (in_list(s, "limits") || (f & JOBACCT_ENFORCE_SAFE))
        f |= JOBACCT_ENFORCE_LIMITS;
    if (in_list(s, "associations") || f != 0)
        f |= JOBACCT_ENFORCE_ASSOC;
    return f;
}

static bool user_in_group(const char *user, gid_t user_gid, const char *grp)
{
    struct group g, *res = NULL;
    char buf[16384];

    if (getgrnam_r(grp, &g, buf, sizeof(buf), &res) != 0 || res == NULL)
        return false;
    if (g.gr_gid == user_gid)
        return true;
    for (char **m = g.gr_mem; m && *m; m++)
        if (strcmp(*m, user) == 0)
            return true;
    return false;
}

static bool groups_allow(const char *list, const struct job *j)
{
    char *copy, *save = NULL, *it;
    bool ok = false;

    if (list == NULL || strcasecmp(list, "ALL") == 0 || j->user_id == 0)
        return true;
    copy = xstrdup(list);
    for (it = strtok_r(copy, ",", &save); it && !ok;
         it = strtok_r(NULL, ",", &save))
        ok = user_in_group(j->user_name, (gid_t)j->group_id, it);
    free(copy);
    return ok;
}

static int check_partition(const struct conf_part *p, const struct job *j,
                           struct err *e)
{
    const char *acc = j->account ? j->account : "";
    const char *qos = j->qos ? j->qos : "";

    if (strcasecmp(p->allow_accounts, "ALL") != 0 &&
        !in_list(p->allow_accounts, acc))
        return fail(e, EPERM,
                    "Job's account (%s) not permitted to use partition %s "
                    "(AllowAccounts=%s)",
                    acc, p->name, p->allow_accounts);
    if (in_list(p->deny_accounts, acc))
        return fail(e, EPERM,
                    "Job's account (%s) not permitted to use partition %s "
                    "(DenyAccounts=%s)",
                    acc, p->name, p->deny_accounts);
    if (strcasecmp(p->allow_qos, "ALL") != 0 && !in_list(p->allow_qos, qos))
        return fail(e, EPERM,
                    "Job's QOS (%s) not permitted to use partition %s "
                    "(AllowQos=%s)",
                    qos, p->name, p->allow_qos);
    if (in_list(p->deny_qos, qos))
        return fail(e, EPERM,
                    "Job's QOS (%s) not permitted to use partition %s "
                    "(DenyQos=%s)",
                    qos, p->name, p->deny_qos);
    if (!groups_allow(p->allow_groups, j))
        return fail(e, EPERM,
                    "User %s is in none of the groups allowed to use "
                    "partition %s (AllowGroups=%s)",
                    j->user_name, p->name, p->allow_groups);
    return 0;
}

static int check_qos(const struct acct_assoc *as, const char *user,
                     const char *qos, struct err *e)
{
    size_t n;
    char *const *v = acct_assoc_qos_list(as, &n);
    char list[400];
    size_t used = 0;

    if (acct_assoc_qos_allowed(as, qos))
        return 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                 i ? "," : "", v[i]);
    return fail(e, EINVAL, "Invalid qos specification: %s may use %s", user,
                n ? list : "no QOS");
}

int jobacct_resolve(const struct acct *a, const struct conf *conf,
                    struct job *j, struct err *e)
{
    unsigned enforce = jobacct_enforce(conf);
    const struct conf_part *p = &conf->parts[j->part];
    const struct acct_user *u = acct_user_find(a, j->user_name);
    const struct acct_assoc *as;
    const char *dq;

    if (j->account == NULL && u != NULL)
        j->account = xstrdup(u->default_account);
    as = acct_assoc_find(a, j->user_name, j->account, p->name);
    if ((enforce & JOBACCT_ENFORCE_ASSOC) && as == NULL)
        return fail(e, EINVAL,
                    "Invalid account or account/partition combination "
                    "specified: user %s has no association with account %s "
                    "(partition %s)",
                    j->user_name, j->account ? j->account : "(none)", p->name);
    if (j->qos == NULL) {
        dq = as ? acct_assoc_default_qos(as) : NULL;
        j->qos = xstrdup(dq ? dq : "normal");
    }
    if (acct_qos_find(a, j->qos) == NULL)
        return fail(e, EINVAL, "Invalid qos specification: no QOS named %s",
                    j->qos);
    if ((enforce & JOBACCT_ENFORCE_QOS) &&
        check_qos(as, j->user_name, j->qos, e) < 0)
        return -1;
    return check_partition(p, j, e);
}
