/*
 * The simulator's QOS, accounts, users and associations (acct.h), from a
 * sacctmgr dump with QOS lines.
 */
#include "sim/acct.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

#define LINE_MAX_BYTES 8192
#define SHARES_PARENT UINT32_MAX

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void qos_free(struct sim_qos *q)
{
    free(q->name);
    strv_free((char **)q->pq.preempt, q->pq.npreempt);
}

void sim_acct_free(struct sim_acct *a)
{
    for (size_t i = 0; i < a->nqos; i++)
        qos_free(&a->qos[i]);
    for (size_t i = 0; i < a->nassoc; i++) {
        free(a->assoc[i].account);
        free(a->assoc[i].user);
        strv_free(a->assoc[i].qos, a->assoc[i].nqos);
        free(a->assoc[i].default_qos);
    }
    for (size_t i = 0; i < a->nusers; i++) {
        free(a->users[i].name);
        free(a->users[i].default_account);
    }
    free(a->qos);
    free(a->assoc);
    free(a->users);
    memset(a, 0, sizeof(*a));
}

static size_t qos_add(struct sim_acct *a, const char *name)
{
    struct sim_qos *q;

    a->qos = xreallocarray(a->qos, a->nqos + 1, sizeof(*a->qos));
    q = &a->qos[a->nqos];
    memset(q, 0, sizeof(*q));
    q->name = xstrdup(name);
    q->usage_factor = 1.0;
    q->pq.name = q->name;
    q->pq.exempt_time_s = -1;
    limits_init(&q->lim);
    return a->nqos++;
}

static size_t assoc_add(struct sim_acct *a, const char *account,
                        const char *user, size_t parent)
{
    struct sim_assoc *as;

    a->assoc = xreallocarray(a->assoc, a->nassoc + 1, sizeof(*a->assoc));
    as = &a->assoc[a->nassoc];
    memset(as, 0, sizeof(*as));
    as->account = xstrdup(account);
    as->user = user ? xstrdup(user) : NULL;
    as->parent = parent;
    as->shares = 1;
    limits_init(&as->lim);
    snprintf(as->key, sizeof(as->key), "%zu", a->nassoc + 1);
    return a->nassoc++;
}

static size_t user_find(const struct sim_acct *a, const char *name)
{
    for (size_t i = 0; i < a->nusers; i++)
        if (strcmp(a->users[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

static size_t user_add(struct sim_acct *a, const char *name,
                       const char *account)
{
    size_t i = user_find(a, name);

    if (i != SIZE_MAX)
        return i;
    a->users = xreallocarray(a->users, a->nusers + 1, sizeof(*a->users));
    a->users[a->nusers] = (struct sim_user){xstrdup(name), xstrdup(account)};
    return a->nusers++;
}

void sim_acct_init(struct sim_acct *a)
{
    size_t root;

    memset(a, 0, sizeof(*a));
    qos_add(a, "normal");
    root = assoc_add(a, "root", NULL, SIM_NO_PARENT);
    a->assoc[root].qos = xcalloc(1, sizeof(char *));
    a->assoc[root].qos[0] = xstrdup("normal");
    a->assoc[root].nqos = 1;
    a->assoc[root].default_qos = xstrdup("normal");
    assoc_add(a, "root", "root", root);
    user_add(a, "root", "root");
}

size_t sim_acct_qos(const struct sim_acct *a, const char *name)
{
    for (size_t i = 0; name != NULL && i < a->nqos; i++)
        if (strcmp(a->qos[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

size_t sim_acct_account(const struct sim_acct *a, const char *account)
{
    for (size_t i = 0; i < a->nassoc; i++)
        if (a->assoc[i].user == NULL &&
            strcmp(a->assoc[i].account, account) == 0)
            return i;
    return SIZE_MAX;
}

size_t sim_acct_user_assoc(const struct sim_acct *a, const char *user,
                           const char *account)
{
    for (size_t i = 0; i < a->nassoc; i++)
        if (a->assoc[i].user != NULL && strcmp(a->assoc[i].user, user) == 0 &&
            strcmp(a->assoc[i].account, account) == 0)
            return i;
    return SIZE_MAX;
}

size_t sim_acct_ensure(struct sim_acct *a, const char *user,
                       const char *account)
{
    size_t u = user_find(a, user), acc, as;

    if (account == NULL)
        account = u != SIZE_MAX ? a->users[u].default_account : "default";
    if ((as = sim_acct_user_assoc(a, user, account)) != SIZE_MAX)
        return as;
    if ((acc = sim_acct_account(a, account)) == SIZE_MAX)
        acc = assoc_add(a, account, NULL, sim_acct_account(a, "root"));
    user_add(a, user, account);
    return assoc_add(a, account, user, acc);
}

char *const *sim_acct_qos_list(const struct sim_acct *a, size_t as, size_t *n)
{
    for (; as != SIM_NO_PARENT; as = a->assoc[as].parent)
        if (a->assoc[as].nqos > 0) {
            *n = a->assoc[as].nqos;
            return a->assoc[as].qos;
        }
    *n = 0;
    return NULL;
}

const char *sim_acct_default_qos(const struct sim_acct *a, size_t as)
{
    for (; as != SIM_NO_PARENT; as = a->assoc[as].parent)
        if (a->assoc[as].default_qos != NULL)
            return a->assoc[as].default_qos;
    return NULL;
}

uint32_t sim_acct_shares(const struct sim_acct *a, size_t as)
{
    for (; as != SIM_NO_PARENT; as = a->assoc[as].parent)
        if (a->assoc[as].shares != SHARES_PARENT)
            return a->assoc[as].shares;
    return 1;
}

uint32_t sim_acct_max_qos_prio(const struct sim_acct *a)
{
    uint32_t m = 0;

    for (size_t i = 0; i < a->nqos; i++)
        if (a->qos[i].priority > m)
            m = a->qos[i].priority;
    return m;
}

/* ---- the file ------------------------------------------------------------ */

/* A comma list of QOS names, each defined already, into *v (replaced). */
static int qos_names(const struct sim_acct *a, const char *key, const char *val,
                     char ***v, size_t *n, struct err *e)
{
    char **nv = NULL, *copy = xstrdup(val), *save = NULL;
    size_t nn = 0;

    for (char *it = strtok_r(copy, ",", &save); it != NULL;
         it = strtok_r(NULL, ",", &save)) {
        if (sim_acct_qos(a, it) == SIZE_MAX) {
            err_inval(e, "%s='%.64s': no QOS %.64s defined above", key, val,
                      it);
            strv_free(nv, nn);
            free(copy);
            return -1;
        }
        nv = xreallocarray(nv, nn + 1, sizeof(*nv));
        nv[nn++] = xstrdup(it);
    }
    free(copy);
    strv_free(*v, *n);
    *v = nv;
    *n = nn;
    return 0;
}

static int time_val(const char *key, const char *val, bool plain_secs,
                    int64_t *out, struct err *e)
{
    struct err ve;
    uint64_t u;

    if (plain_secs && value_parse_u64(val, 0, INT32_MAX, &u, NULL) == 0) {
        *out = (int64_t)u;
        return 0;
    }
    if (timefmt_parse(val, out, &ve) < 0 || *out == TIMEFMT_INFINITE)
        return err_inval(e, "%s=%.64s: %s", key, val,
                         *out == TIMEFMT_INFINITE ? "must be finite" : ve.text);
    return 0;
}

static int qos_flags(struct sim_qos *q, const char *val, struct err *e)
{
    static const struct {
        const char *name;
        unsigned bit;
    } flags[] = {
        {"DenyOnLimit", SIM_QOS_DENY_ON_LIMIT},
        {"OverPartQOS", SIM_QOS_OVER_PART_QOS},
        {"NoDecay", SIM_QOS_NO_DECAY},
        {"ExemptUntilCheckpoint", 0},
        {"PartitionMinNodes", 0},
        {"PartitionMaxNodes", 0},
        {"PartitionTimeLimit", 0},
        {"NoReserve", 0},
        {"EnforceUsageThreshold", 0},
        {"UsageFactorSafe", 0},
        {"Relative", 0},
    };
    char *copy = xstrdup(val), *save = NULL;
    int rc = 0;

    q->flags = 0;
    for (char *it = strtok_r(copy, ",", &save); it != NULL && rc == 0;
         it = strtok_r(NULL, ",", &save)) {
        size_t k;
        for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
            if (strcasecmp(it, flags[k].name) == 0)
                break;
        if (k == sizeof(flags) / sizeof(flags[0]))
            rc = err_inval(e, "Flags=%.64s: unknown QOS flag \"%.64s\"", val,
                           it);
        else if (strcasecmp(it, "ExemptUntilCheckpoint") == 0)
            q->pq.exempt_until_checkpoint = true;
        else
            q->flags |= flags[k].bit;
    }
    free(copy);
    return rc;
}

static int preempt_mode(struct sim_qos *q, const char *val, struct err *e)
{
    static const struct {
        const char *name;
        bool set;
        enum conf_preempt_mode m;
    } modes[] = {
        {"cluster", false, CONF_PREEMPT_MODE_OFF},
        {"off", true, CONF_PREEMPT_MODE_OFF},
        {"cancel", true, CONF_PREEMPT_MODE_CANCEL},
        {"requeue", true, CONF_PREEMPT_MODE_REQUEUE},
        {"suspend", true, CONF_PREEMPT_MODE_SUSPEND},
    };

    for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
        if (strcasecmp(val, modes[k].name) == 0) {
            q->pq.mode_set = modes[k].set;
            q->pq.mode = modes[k].m;
            return 0;
        }
    return err_inval(e,
                     "PreemptMode=%.64s: expected cluster, off, cancel, "
                     "requeue or suspend",
                     val);
}

/* One key of a QOS line. */
static int qos_key(struct sim_acct *a, struct sim_qos *q, const char *key,
                   const char *val, struct err *e)
{
    uint64_t u;
    char *end;
    int rc;

    if (strcasecmp(key, "Description") == 0)
        return 0;
    if (strcasecmp(key, "Priority") == 0) {
        if (value_parse_u64(val, 0, UINT32_MAX - 1, &u, NULL) < 0)
            return err_inval(e, "Priority=%.64s: expected a number", val);
        q->priority = (uint32_t)u;
        return 0;
    }
    if (strcasecmp(key, "Preempt") == 0)
        return qos_names(a, key, val, (char ***)&q->pq.preempt, &q->pq.npreempt,
                         e);
    if (strcasecmp(key, "PreemptMode") == 0)
        return preempt_mode(q, val, e);
    if (strcasecmp(key, "PreemptExemptTime") == 0)
        return time_val(key, val, false, &q->pq.exempt_time_s, e);
    if (strcasecmp(key, "GraceTime") == 0)
        return time_val(key, val, true, &q->pq.grace_time_s, e);
    if (strcasecmp(key, "UsageFactor") == 0) {
        q->usage_factor = strtod(val, &end);
        if (end == val || *end != '\0' || !(q->usage_factor >= 0))
            return err_inval(e, "UsageFactor=%.64s: expected a number >= 0",
                             val);
        return 0;
    }
    if (strcasecmp(key, "Flags") == 0)
        return qos_flags(q, val, e);
    rc = limits_set_key(&q->lim, true, key, "=", val, e);
    if (rc == 0)
        return err_inval(e, "unknown QOS key %.64s", key);
    return rc < 0 ? -1 : 0;
}

/* One key of an Account, User or Cluster line (its association). */
static int assoc_key(struct sim_acct *a, size_t as, const char *key,
                     const char *val, struct err *e)
{
    struct sim_assoc *s = &a->assoc[as];
    uint64_t u;
    int rc;

    if (strcasecmp(key, "Description") == 0 ||
        strcasecmp(key, "Organization") == 0 ||
        strcasecmp(key, "AdminLevel") == 0 ||
        strcasecmp(key, "DefaultAccount") == 0)
        return 0;
    if (strcasecmp(key, "Fairshare") == 0 || strcasecmp(key, "Shares") == 0) {
        if (strcasecmp(val, "parent") == 0)
            s->shares = SHARES_PARENT;
        else if (value_parse_u64(val, 0, UINT32_MAX - 1, &u, NULL) < 0)
            return err_inval(e,
                             "Fairshare=%.64s: expected a number or "
                             "\"parent\"",
                             val);
        else
            s->shares = (uint32_t)u;
        return 0;
    }
    if (strcasecmp(key, "QOS") == 0 || strcasecmp(key, "QOSLevel") == 0)
        return qos_names(a, key, val, &s->qos, &s->nqos, e);
    if (strcasecmp(key, "DefaultQOS") == 0 || strcasecmp(key, "DefQOS") == 0) {
        if (sim_acct_qos(a, val) == SIZE_MAX)
            return err_inval(e, "DefaultQOS=%.64s: no QOS %.64s defined above",
                             val, val);
        free(s->default_qos);
        s->default_qos = xstrdup(val);
        return 0;
    }
    rc = limits_set_key(&s->lim, false, key, "=", val, e);
    if (rc == 0)
        return err_inval(e, "unknown key %.64s", key);
    return rc < 0 ? -1 : 0;
}

/* The end of the token at p: the first ':' outside quotes, or the end. */
static const char *token_end(const char *p)
{
    bool q = false;

    for (; *p != '\0' && (q || *p != ':'); p++)
        if (*p == '\'')
            q = !q;
    return p;
}

/*
 * "Kind - 'name':Key=V:Key='V, with: colon'": kind, name and the
 * key/value pairs (kv[2*i], kv[2*i+1]), unquoted into out (as long as
 * line).  A piece without '=' continues the value before it, so that
 * times keep their colons unquoted (PreemptExemptTime=00:05:00).  How
 * many pairs, -1 when the line has not that shape.
 */
static int split_line(char *line, char *out, char **kind, char **name,
                      char **kv, int max)
{
    char *dash = strstr(line, " - "), *o = out;
    const char *p;
    int n = 0;
    bool first = true;

    if (dash == NULL)
        return -1;
    *dash = '\0';
    *kind = line;
    for (p = dash + 3; *p != '\0';) {
        const char *end = token_end(p);
        bool cont =
            !first && n > 0 && memchr(p, '=', (size_t)(end - p)) == NULL;
        char *tok;
        if (cont)
            o[-1] = ':'; /* the value before goes on */
        tok = o;
        for (; p < end; p++)
            if (*p != '\'')
                *o++ = *p;
        *o++ = '\0';
        if (*p == ':')
            p++;
        if (first) {
            *name = tok;
            first = false;
            continue;
        }
        if (cont)
            continue;
        char *eq = strchr(tok, '=');
        if (eq == NULL || eq == tok || n == max)
            return -1;
        *eq = '\0';
        kv[2 * n] = tok;
        kv[2 * n + 1] = eq + 1;
        n++;
    }
    return first || **name == '\0' ? -1 : n;
}

/* What one line (split) adds; parent is the current Parent account. */
static int apply(struct sim_acct *a, const char *kind, const char *name,
                 char **kv, int n, char *parent, size_t plen, struct err *e)
{
    size_t target;

    if (strcasecmp(kind, "Parent") == 0) {
        if (sim_acct_account(a, name) == SIZE_MAX)
            return err_inval(e,
                             "Parent - '%.64s': no account %.64s defined "
                             "above",
                             name, name);
        if (strlen(name) >= plen)
            return err_inval(e, "Parent - '%.64s...': too long", name);
        memcpy(parent, name, strlen(name) + 1);
        return 0;
    }
    if (strcasecmp(kind, "QOS") == 0) {
        target = sim_acct_qos(a, name);
        if (target == SIZE_MAX)
            target = qos_add(a, name);
        for (int i = 0; i < n; i++)
            if (qos_key(a, &a->qos[target], kv[2 * i], kv[2 * i + 1], e) < 0)
                return -1;
        return 0;
    }
    if (strcasecmp(kind, "Cluster") == 0) {
        target = sim_acct_account(a, "root");
    } else if (strcasecmp(kind, "Account") == 0) {
        target = sim_acct_account(a, name);
        if (target == SIZE_MAX)
            target = assoc_add(a, name, NULL, sim_acct_account(a, parent));
    } else if (strcasecmp(kind, "User") == 0) {
        const char *dflt = parent;
        for (int i = 0; i < n; i++)
            if (strcasecmp(kv[2 * i], "DefaultAccount") == 0)
                dflt = kv[2 * i + 1];
        user_add(a, name, dflt);
        target = sim_acct_user_assoc(a, name, parent);
        if (target == SIZE_MAX)
            target = assoc_add(a, parent, name, sim_acct_account(a, parent));
    } else {
        return err_inval(e,
                         "unknown line kind \"%.32s\" (Cluster, Parent, "
                         "Account, User, QOS)",
                         kind);
    }
    for (int i = 0; i < n; i++)
        if (assoc_key(a, target, kv[2 * i], kv[2 * i + 1], e) < 0)
            return -1;
    return 0;
}

int sim_acct_load(struct sim_acct *a, const char *buf, size_t len,
                  const char *name, struct err *e)
{
    const char *p = buf, *end = buf + len;
    char line[LINE_MAX_BYTES], out[LINE_MAX_BYTES], parent[256] = "root";
    char *kind, *nm, *kv[128];
    unsigned lineno = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ll = (size_t)((nl ? nl : end) - p);
        int n;
        lineno++;
        if (ll >= sizeof(line) || memchr(p, '\0', ll) != NULL)
            return err_inval(e,
                             "%s:%u: a line of more than %d bytes, or a "
                             "NUL byte",
                             name, lineno, LINE_MAX_BYTES - 1);
        memcpy(line, p, ll);
        line[ll] = '\0';
        p = nl ? nl + 1 : end;
        line[strcspn(line, "\r")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        if ((n = split_line(line, out, &kind, &nm, kv, 64)) < 0)
            return err_inval(e,
                             "%s:%u: expected \"Kind - 'name':Key=Value"
                             "...\"",
                             name, lineno);
        if (apply(a, kind, nm, kv, n, parent, sizeof(parent), e) < 0)
            return err_prefix(e, "%s:%u", name, lineno);
    }
    return 0;
}
