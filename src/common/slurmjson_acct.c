/*
 * The accounting objects (QOS, ASSOC, USER, ACCOUNT of docs/protocol.md)
 * in slurmdbd's dbv0.0.38 shapes, for slurmrestd's /slurmdb/v0.0.38 API
 * (slurmjson.h).  Limits Slurm has a place for go there; Sluice's own
 * record of them is kept whole under "sluice".
 */
#include <stdio.h>
#include <string.h>

#include "common/slurmjson.h"
#include "common/slurmjson_int.h"

/* Slurm's raw shares of an association that takes its parent's. */
#define SLURMJSON_SHARES_PARENT 2147483647

/* A count, or null when unset. */
static json_t *count_or_null(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? json_integer(json_integer_value(v))
                              : json_null();
}

/* Seconds as minutes, or null when unset. */
static json_t *minutes_or_null(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? json_integer(minutes(json_integer_value(v)))
                              : json_null();
}

/* A TRES object of LIMITS ({"cpu": 8, "gres/gpu": 2}) as Slurm's TRES
 * list; anything else gives []. */
static json_t *tres_of(json_t *o, const char *key)
{
    json_t *t = json_object_get(o, key), *out = json_array(), *v, *one;
    const char *k;
    char buf[160];

    json_object_foreach(t, k, v)
    {
        if (!json_is_integer(v) || strlen(k) > 100)
            continue;
        snprintf(buf, sizeof(buf), "%s=%lld", k,
                 (long long)json_integer_value(v));
        one = slurmjson_tres_list(buf);
        json_array_extend(out, one);
        json_decref(one);
    }
    return out;
}

/* An array of strings copied (other members dropped); [] for a non-array. */
static json_t *strings_of(json_t *o, const char *key)
{
    json_t *a = json_object_get(o, key), *out = json_array(), *v;
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (json_is_string(v))
            json_array_append(out, v);
    }
    return out;
}

/* A member copied under sluice (nothing when absent). */
static void keep(json_t *sluice, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (v != NULL)
        json_object_set(sluice, key, v);
}

json_t *slurmjson_qos(json_t *qos)
{
    json_t *l = json_object_get(qos, "limits"), *s = json_object();
    const char *pm = str_of(qos, "preempt_mode");
    json_t *uf = json_object_get(qos, "usage_factor");

    keep(s, qos, "limits");
    keep(s, qos, "grace_time");
    keep(s, qos, "preempt_mode");
    return json_pack(
        "{s:o, s:o, s:I, s:{s:n, s:{s:{s:{s:n, s:o}}, s:{s:{s:{s:o, s:o}}},"
        " s:{s:{s:n, s:n}}, s:{s:{s:{s:[], s:[], s:[], s:[]}},"
        " s:{s:[], s:o, s:[], s:o}}}, s:{s:o, s:{s:{s:[]}}}},"
        " s:{s:o, s:[s], s:o}, s:I, s:f, s:n, s:o, s:o}",
        "description", jstr(qos, "description"), "flags",
        strings_of(qos, "flags"), "id", int_of(qos, "id", 0), "limits",
        "factor", "max", "wall_clock", "per", "qos", "job",
        minutes_or_null(l, "max_wall"), "jobs", "active_jobs", "per", "account",
        count_or_null(l, "max_jobs_per_account"), "user",
        count_or_null(l, "max_jobs_per_user"), "accruing", "per", "account",
        "user", "tres", "minutes", "per", "job", "account", "user", "qos",
        "per", "account", "job", tres_of(l, "max_tres_per_job"), "node", "user",
        tres_of(l, "max_tres_per_user"), "min", "priority_threshold",
        count_or_null(l, "min_prio_threshold"), "tres", "per", "job", "preempt",
        "list", strings_of(qos, "preempt"), "mode", pm ? pm : "cluster",
        "exempt_time", count_or_null(qos, "preempt_exempt_time"), "priority",
        int_of(qos, "priority", 0), "usage_factor",
        json_is_number(uf) ? json_number_value(uf) : 1.0, "usage_threshold",
        "name", jstr(qos, "name"), "sluice", s);
}

/* The association with this id in all, or NULL. */
static json_t *assoc_by_id(json_t *all, json_t *id)
{
    json_t *a;
    size_t i;

    if (!json_is_integer(id))
        return NULL;
    json_array_foreach(all, i, a)
    {
        if (json_equal(json_object_get(a, "id"), id))
            return a;
    }
    return NULL;
}

json_t *slurmjson_assoc(json_t *assoc, json_t *all)
{
    json_t *l = json_object_get(assoc, "limits"), *s = json_object();
    json_t *fs = json_object_get(assoc, "fairshare");
    json_t *parent = assoc_by_id(all, json_object_get(assoc, "parent_id"));
    const char *dq = str_of(assoc, "default_qos");

    keep(s, assoc, "id");
    keep(s, assoc, "parent_id");
    keep(s, assoc, "fairshare");
    keep(s, assoc, "qos");
    keep(s, assoc, "effective_default_qos");
    keep(s, assoc, "effective_fairshare");
    keep(s, assoc, "limits");
    return json_pack(
        "{s:o, s:o, s:{s:s}, s:[], s:{s:{s:{s:o}}, s:{s:{s:n}},"
        " s:{s:{s:o, s:[]}, s:o, s:{s:{s:[]}, s:[]}}}, s:{s:o}, s:o, s:o,"
        " s:n, s:I, s:o, s:o, s:o}",
        "account", jstr(assoc, "account"), "cluster", jstr(assoc, "cluster"),
        "default", "qos", dq ? dq : "", "flags", "max", "jobs", "per",
        "wall_clock", minutes_or_null(l, "max_wall"), "per", "account",
        "wall_clock", "tres", "per", "job", tres_of(l, "max_tres_per_job"),
        "node", "total", tres_of(l, "grp_tres"), "minutes", "per", "job",
        "total", "min", "priority_threshold",
        count_or_null(l, "min_prio_threshold"), "parent_account",
        jstr(parent, "account"), "partition", jstr(assoc, "partition"),
        "priority", "shares_raw",
        json_is_integer(fs) ? json_integer_value(fs)
                            : (json_int_t)SLURMJSON_SHARES_PARENT,
        "user", jstr(assoc, "user"), "QOS", strings_of(assoc, "effective_qos"),
        "sluice", s);
}

/* dbv0.0.38_association_short_info of an ASSOC. */
static json_t *assoc_short(json_t *a)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "account", jstr(a, "account"),
                     "cluster", jstr(a, "cluster"), "partition",
                     jstr(a, "partition"), "user", jstr(a, "user"));
}

json_t *slurmjson_user(json_t *user, json_t *assocs)
{
    const char *name = str_of(user, "name");
    json_t *mine = json_array(), *a, *s = json_object();
    size_t i;

    json_array_foreach(assocs, i, a)
    {
        const char *u = str_of(a, "user");
        if (name != NULL && u != NULL && strcmp(u, name) == 0)
            json_array_append_new(mine, assoc_short(a));
    }
    keep(s, user, "accounts");
    return json_pack("{s:o, s:o, s:[], s:{s:o, s:s}, s:[], s:o, s:o}",
                     "administrator_level", jstr(user, "admin_level"),
                     "associations", mine, "coordinators", "default", "account",
                     jstr(user, "default_account"), "wckey", "", "flags",
                     "name", jstr(user, "name"), "sluice", s);
}

json_t *slurmjson_account(json_t *account, json_t *assocs)
{
    const char *name = str_of(account, "name");
    json_t *own = json_array(), *a, *s = json_object();
    size_t i;

    json_array_foreach(assocs, i, a)
    {
        const char *acc = str_of(a, "account");
        if (name != NULL && acc != NULL && strcmp(acc, name) == 0 &&
            str_of(a, "user") == NULL)
            json_array_append_new(own, assoc_short(a));
    }
    keep(s, account, "parent");
    return json_pack("{s:o, s:[], s:o, s:o, s:o, s:[], s:o}", "associations",
                     own, "coordinators", "description",
                     jstr(account, "description"), "name",
                     jstr(account, "name"), "organization",
                     jstr(account, "organization"), "flags", "sluice", s);
}
