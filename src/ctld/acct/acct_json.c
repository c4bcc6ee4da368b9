/*
 * The JSON objects of the accounting model (docs/protocol.md: QOS, ACCOUNT,
 * USER, ASSOC, CLUSTER), which are also the records the store keeps, and
 * their decoders for loading.  Unset limits are null.
 */
#include "ctld/acct/acct_int.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

static const struct {
    uint32_t flag;
    const char *name;
} qos_flags[] = {
    {ACCT_QOS_DENY_ON_LIMIT, "DenyOnLimit"},
    {ACCT_QOS_NO_DECAY, "NoDecay"},
    {ACCT_QOS_OVER_PART_QOS, "OverPartQOS"},
    {ACCT_QOS_PART_MIN_NODE, "PartitionMinNodes"},
    {ACCT_QOS_PART_MAX_NODE, "PartitionMaxNodes"},
    {ACCT_QOS_PART_TIME_LIMIT, "PartitionTimeLimit"},
    {ACCT_QOS_NO_RESERVE, "NoReserve"},
    {ACCT_QOS_ENFORCE_USAGE_THRES, "EnforceUsageThreshold"},
    {ACCT_QOS_USAGE_FACTOR_SAFE, "UsageFactorSafe"},
    {ACCT_QOS_RELATIVE, "Relative"},
    {ACCT_QOS_EXEMPT_UNTIL_CHECKPOINT, "ExemptUntilCheckpoint"},
};
#define N_QOS_FLAGS (sizeof(qos_flags) / sizeof(qos_flags[0]))

const char *acct_qos_flag_name(uint32_t flag)
{
    for (size_t i = 0; i < N_QOS_FLAGS; i++)
        if (qos_flags[i].flag == flag)
            return qos_flags[i].name;
    return NULL;
}

int acct_qos_flag_parse(const char *s, uint32_t *flag)
{
    for (size_t i = 0; i < N_QOS_FLAGS; i++) {
        if (strcasecmp(s, qos_flags[i].name) == 0) {
            *flag = qos_flags[i].flag;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

static const char *const pm_names[] = {
    [ACCT_PREEMPT_CLUSTER] = "cluster", [ACCT_PREEMPT_OFF] = "off",
    [ACCT_PREEMPT_CANCEL] = "cancel",   [ACCT_PREEMPT_REQUEUE] = "requeue",
    [ACCT_PREEMPT_SUSPEND] = "suspend",
};

const char *acct_preempt_mode_name(enum acct_preempt_mode m)
{
    return (unsigned)m <= ACCT_PREEMPT_SUSPEND ? pm_names[m] : "?";
}

int acct_preempt_mode_parse(const char *s, enum acct_preempt_mode *m)
{
    for (int i = 0; i <= ACCT_PREEMPT_SUSPEND; i++) {
        if (strcasecmp(s, pm_names[i]) == 0) {
            *m = (enum acct_preempt_mode)i;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

/* ---- limits --------------------------------------------------------------- */

static json_t *num(uint64_t v)
{
    return v == LIMITS_UNSET ? json_null() : json_integer((json_int_t)v);
}

static json_t *tres_json(const uint64_t *t)
{
    json_t *o = json_object();

    for (int i = 0; i < LIMITS_TRES_COUNT; i++)
        if (t[i] != LIMITS_UNSET)
            json_object_set_new(o, limits_tres_name((enum limits_tres)i),
                                json_integer((json_int_t)t[i]));
    return o;
}

json_t *acct_limits_to_json(const struct limits *l, bool qos)
{
    json_t *o = json_object();

    json_object_set_new(o, "max_submit_jobs_per_user",
                        num(l->max_submit_jobs_pu));
    json_object_set_new(o, "max_jobs_per_user", num(l->max_jobs_pu));
    if (qos) {
        json_object_set_new(o, "max_submit_jobs_per_account",
                            num(l->max_submit_jobs_pa));
        json_object_set_new(o, "max_jobs_per_account", num(l->max_jobs_pa));
        json_object_set_new(o, "max_tres_per_user",
                            tres_json(l->max_tres_per_user));
        json_object_set_new(o, "min_prio_threshold",
                            num(l->min_prio_threshold));
    }
    json_object_set_new(o, "grp_jobs", num(l->grp_jobs));
    json_object_set_new(o, "grp_submit_jobs", num(l->grp_submit_jobs));
    json_object_set_new(o, "max_wall", num(l->max_wall_s));
    json_object_set_new(o, "max_tres_per_job", tres_json(l->max_tres_per_job));
    json_object_set_new(o, "grp_tres", tres_json(l->grp_tres));
    return o;
}

static int get_num(json_t *o, const char *key, uint64_t *out, struct err *e)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        errno = EINVAL;
        return err_set(e, "%s: expected a count or null", key);
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_tres(json_t *o, const char *key, uint64_t *t, struct err *e)
{
    json_t *m = json_object_get(o, key);

    if (m == NULL || json_is_null(m))
        return 0;
    for (int i = 0; i < LIMITS_TRES_COUNT; i++)
        if (get_num(m, limits_tres_name((enum limits_tres)i), &t[i], e) < 0)
            return err_prefix(e, "%s", key);
    return 0;
}

int acct_limits_from_json(json_t *o, struct limits *l, struct err *e)
{
    limits_init(l);
    if (o == NULL || json_is_null(o))
        return 0;
    if (get_num(o, "max_submit_jobs_per_user", &l->max_submit_jobs_pu, e) < 0 ||
        get_num(o, "max_jobs_per_user", &l->max_jobs_pu, e) < 0 ||
        get_num(o, "max_submit_jobs_per_account", &l->max_submit_jobs_pa, e) <
            0 ||
        get_num(o, "max_jobs_per_account", &l->max_jobs_pa, e) < 0 ||
        get_num(o, "min_prio_threshold", &l->min_prio_threshold, e) < 0 ||
        get_num(o, "grp_jobs", &l->grp_jobs, e) < 0 ||
        get_num(o, "grp_submit_jobs", &l->grp_submit_jobs, e) < 0 ||
        get_num(o, "max_wall", &l->max_wall_s, e) < 0 ||
        get_tres(o, "max_tres_per_user", l->max_tres_per_user, e) < 0 ||
        get_tres(o, "max_tres_per_job", l->max_tres_per_job, e) < 0 ||
        get_tres(o, "grp_tres", l->grp_tres, e) < 0)
        return -1;
    return 0;
}

/* ---- records --------------------------------------------------------------- */

static json_t *strv_json(char *const *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *acct_qos_to_json(const struct acct_qos *q)
{
    json_t *flags = json_array();

    for (size_t i = 0; i < N_QOS_FLAGS; i++)
        if (q->flags & qos_flags[i].flag)
            json_array_append_new(flags, json_string(qos_flags[i].name));
    return json_pack("{s:I, s:s, s:s, s:I, s:o, s:s, s:o, s:I, s:f, s:o, s:o}",
                     "id", (json_int_t)q->id, "name", q->name, "description",
                     q->description, "priority", (json_int_t)q->priority,
                     "preempt", strv_json(q->preempt, q->n_preempt),
                     "preempt_mode", acct_preempt_mode_name(q->preempt_mode),
                     "preempt_exempt_time",
                     q->preempt_exempt_time_s < 0
                         ? json_null()
                         : json_integer((json_int_t)q->preempt_exempt_time_s),
                     "grace_time", (json_int_t)q->grace_time_s, "usage_factor",
                     q->usage_factor, "flags", flags, "limits",
                     acct_limits_to_json(&q->limits, true));
}

json_t *acct_assoc_to_json(const struct acct_assoc *as)
{
    size_t n;
    char *const *eq = acct_assoc_qos_list(as, &n);
    const char *edq = acct_assoc_default_qos(as);

    return json_pack(
        "{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
        "id", (json_int_t)as->id, "cluster", as->cluster, "account",
        as->account, "user", str_or_null(as->user), "partition",
        str_or_null(as->partition), "fairshare",
        as->shares == ACCT_SHARES_PARENT ? json_string("parent")
                                         : json_integer(as->shares),
        "default_qos", str_or_null(as->default_qos), "qos",
        strv_json(as->qos, as->n_qos), "effective_qos", strv_json(eq, n),
        "effective_default_qos", str_or_null(edq), "parent_id",
        as->parent ? json_integer(as->parent->id) : json_null(),
        "effective_fairshare", (json_int_t)acct_assoc_shares(as), "limits",
        acct_limits_to_json(&as->limits, false));
}

json_t *acct_user_to_json(const struct acct *a, const struct acct_user *u)
{
    json_t *accounts = json_array();

    for (size_t i = 0; a != NULL && acct_assoc_at(a, i) != NULL; i++) {
        const struct acct_assoc *as = acct_assoc_at(a, i);
        size_t n = json_array_size(accounts);
        if (as->user == NULL || strcmp(as->user, u->name) != 0)
            continue;
        if (n == 0 || strcmp(json_string_value(json_array_get(accounts, n - 1)),
                             as->account) != 0)
            json_array_append_new(accounts, json_string(as->account));
    }
    return json_pack("{s:s, s:s, s:s, s:o}", "name", u->name, "default_account",
                     u->default_account, "admin_level",
                     acct_admin_name(u->admin), "accounts", accounts);
}

json_t *acct_account_to_json(const struct acct_account *ac)
{
    return json_pack("{s:s, s:s, s:s, s:o}", "name", ac->name, "description",
                     ac->description, "organization", ac->organization,
                     "parent", str_or_null(ac->parent));
}

json_t *acct_cluster_to_json(const struct acct_cluster *c)
{
    return json_pack("{s:s}", "name", c->name);
}

static int bad_record(struct err *e, const char *what)
{
    errno = EINVAL;
    return err_set(e, "%s", what);
}

/* A string member; absent or null gives NULL (jansson's "s?s" refuses
 * null). */
static const char *ostr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int strv_from_json(json_t *a, char ***v, size_t *n, struct err *e)
{
    json_t *x;
    size_t i;

    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return bad_record(e, "expected an array of names");
    json_array_foreach(a, i, x)
    {
        if (!json_is_string(x))
            return bad_record(e, "expected an array of names");
        acct_strv_add(v, n, json_string_value(x));
    }
    return 0;
}

struct acct_qos *acct_qos_from_json(json_t *o, struct err *e)
{
    const char *name = NULL, *descr = "", *pm = "cluster";
    json_int_t id = 0, prio = 0, grace = 0;
    json_t *preempt = NULL, *flags = NULL, *limits = NULL, *pet = NULL, *f;
    double uf = 1.0;
    struct acct_qos *q;
    size_t i;

    if (json_unpack(
            o, "{s:I, s:s, s?s, s?I, s?o, s?s, s?o, s?I, s?F, s?o, s?o}", "id",
            &id, "name", &name, "description", &descr, "priority", &prio,
            "preempt", &preempt, "preempt_mode", &pm, "preempt_exempt_time",
            &pet, "grace_time", &grace, "usage_factor", &uf, "flags", &flags,
            "limits", &limits) < 0) {
        bad_record(e, "not a QOS object");
        return NULL;
    }
    q = acct_qos_new(name);
    q->id = (uint32_t)id;
    free(q->description);
    q->description = xstrdup(descr);
    q->priority = (uint32_t)prio;
    q->grace_time_s = grace;
    q->usage_factor = uf;
    if (json_is_integer(pet))
        q->preempt_exempt_time_s = json_integer_value(pet);
    if (acct_preempt_mode_parse(pm, &q->preempt_mode) < 0 ||
        strv_from_json(preempt, &q->preempt, &q->n_preempt, e) < 0 ||
        acct_limits_from_json(limits, &q->limits, e) < 0)
        goto error;
    json_array_foreach(flags, i, f)
    {
        uint32_t fl;
        if (json_is_string(f) &&
            acct_qos_flag_parse(json_string_value(f), &fl) == 0)
            q->flags |= fl;
    }
    return q;
error:
    acct_qos_free(q);
    return NULL;
}

struct acct_assoc *acct_assoc_from_json(json_t *o, struct err *e)
{
    const char *cluster, *account, *user = ostr(o, "user");
    const char *part = ostr(o, "partition"), *dq = ostr(o, "default_qos");
    json_int_t id;
    json_t *fs = NULL, *qos = NULL, *limits = NULL;
    struct acct_assoc *as;

    if (json_unpack(o, "{s:I, s:s, s:s, s?o, s?o, s?o}", "id", &id, "cluster",
                    &cluster, "account", &account, "fairshare", &fs, "qos",
                    &qos, "limits", &limits) < 0) {
        bad_record(e, "not an association object");
        return NULL;
    }
    as = acct_assoc_new(cluster, account, user, part);
    as->id = (uint32_t)id;
    as->default_qos = dq ? xstrdup(dq) : NULL;
    if (json_is_integer(fs))
        as->shares = (uint32_t)json_integer_value(fs);
    else if (json_is_string(fs))
        as->shares = ACCT_SHARES_PARENT;
    if (strv_from_json(qos, &as->qos, &as->n_qos, e) < 0 ||
        acct_limits_from_json(limits, &as->limits, e) < 0) {
        acct_assoc_free(as);
        return NULL;
    }
    return as;
}

struct acct_user *acct_user_from_json(json_t *o, struct err *e)
{
    const char *name, *def, *admin = "None";
    struct acct_user *u;

    if (json_unpack(o, "{s:s, s:s, s?s}", "name", &name, "default_account",
                    &def, "admin_level", &admin) < 0) {
        bad_record(e, "not a user object");
        return NULL;
    }
    u = acct_user_new(name, def);
    if (acct_admin_parse(admin, &u->admin) < 0) {
        acct_user_free(u);
        bad_record(e, "bad admin_level");
        return NULL;
    }
    return u;
}

struct acct_account *acct_account_from_json(json_t *o, struct err *e)
{
    const char *name = ostr(o, "name"), *descr = ostr(o, "description");
    const char *org = ostr(o, "organization"), *parent = ostr(o, "parent");
    struct acct_account *ac;

    if (name == NULL) {
        bad_record(e, "not an account object");
        return NULL;
    }
    ac = acct_account_new(name, parent);
    if (descr) {
        free(ac->description);
        ac->description = xstrdup(descr);
    }
    if (org) {
        free(ac->organization);
        ac->organization = xstrdup(org);
    }
    return ac;
}

struct acct_cluster *acct_cluster_from_json(json_t *o, struct err *e)
{
    const char *name;

    if (json_unpack(o, "{s:s}", "name", &name) < 0) {
        bad_record(e, "not a cluster object");
        return NULL;
    }
    return acct_cluster_new(name);
}
