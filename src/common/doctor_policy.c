/*
 * sluice doctor's checks of the controller's state directory and of the
 * cluster's policies (doctor.h): partitions that partition_prio can never
 * let preempt each other, priority factors weighted 0 while they differ,
 * running jobs without a time limit, users preempted more often than
 * the review's threshold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/doctor.h"
#include "common/doctor_int.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

/* ---- the state directory ------------------------------------------------ */

/* The permission bits of an octal string ("0711"), or -1. */
static long mode_of(json_t *o, const char *k)
{
    const char *s = doctor_jstr(o, k, NULL);
    char *end;
    long m;

    if (s == NULL)
        return -1;
    m = strtol(s, &end, 8);
    return *end == '\0' ? m : -1;
}

static void state_modes(json_t *st, const char *dir, const char *where,
                        struct conf_diag *d)
{
    long mode = mode_of(st, "mode"), db = mode_of(st, "db_mode");
    long long owner, self, db_owner;
    char *fix;

    if (mode >= 0 && (mode & 022) != 0) {
        fix = xasprintf("chmod go-w %s", dir);
        conf_diag_add_fix(d, CONF_ERROR, where, "state_dir", fix,
                          "it is writable by group or others (mode %04lo): "
                          "they could replace the database and every job in "
                          "it",
                          mode);
        free(fix);
    }
    if (doctor_jint(st, "owner_uid", &owner) &&
        doctor_jint(st, "controller_uid", &self) && owner != self) {
        fix = xasprintf("chown %lld %s (the controller's user)", self, dir);
        conf_diag_add_fix(d, CONF_ERROR, where, "state_dir", fix,
                          "it belongs to uid %lld, not to the controller's "
                          "uid %lld",
                          owner, self);
        free(fix);
    }
    if (db >= 0 && (db & 077) != 0) {
        fix = xasprintf("chmod 600 %s/sluice.db", dir);
        conf_diag_add_fix(d, CONF_ERROR, where, "state_dir", fix,
                          "sluice.db is open to group or others (mode "
                          "%04lo): it holds every job's script and "
                          "environment",
                          db);
        free(fix);
    }
    if (doctor_jint(st, "db_owner_uid", &db_owner) &&
        doctor_jint(st, "controller_uid", &self) && db_owner != self) {
        fix = xasprintf("chown %lld %s/sluice.db", self, dir);
        conf_diag_add_fix(d, CONF_ERROR, where, "state_dir", fix,
                          "sluice.db belongs to uid %lld, not to the "
                          "controller's uid %lld",
                          db_owner, self);
        free(fix);
    }
}

static void state_space(json_t *st, const char *where, struct conf_diag *d)
{
    long long free_b, min_b;
    char a[32], b[32];

    if (!doctor_jint(st, "free_bytes", &free_b) ||
        !doctor_jint(st, "min_free_bytes", &min_b))
        return;
    if (min_b == 0)
        conf_diag_add_fix(d, CONF_WARNING, where, "state_dir",
                          "set SluiceStateMinFree (64M by default), so that "
                          "changes are refused before the disk is full",
                          "SluiceStateMinFree=0: its free space (%s) is not "
                          "watched; when the file system fills up, a commit "
                          "fails and the controller stops",
                          doctor_size(free_b, a, sizeof(a)));
    else if (free_b < DOCTOR_FREE_FACTOR * min_b)
        conf_diag_add_fix(d, CONF_WARNING, where, "state_dir",
                          "free space on that file system, or move "
                          "StateSaveLocation to a larger one",
                          "only %s free: submissions and every other change "
                          "are refused below %s (SluiceStateMinFree)",
                          doctor_size(free_b, a, sizeof(a)),
                          doctor_size(min_b, b, sizeof(b)));
}

void doctor_state_dir(json_t *facts, struct conf_diag *d)
{
    json_t *st = json_object_get(facts, "state");
    const char *dir = doctor_jstr(st, "dir", NULL);
    char *where;

    if (dir == NULL)
        return;
    where = xasprintf("StateSaveLocation %s", dir);
    if (json_is_false(json_object_get(st, "writable")))
        conf_diag_add_fix(d, CONF_ERROR, where, "state_dir",
                          "free space on its file system (or lower "
                          "SluiceStateMinFree), or make it writable again: "
                          "the controller resumes by itself",
                          "%s", doctor_jstr(st, "reason", "not writable"));
    else
        state_space(st, where, d);
    state_modes(st, dir, where, d);
    free(where);
}

/* ---- preemption between partitions --------------------------------------- */

/* Whether the node lists a and b (compressed hostlists) share a node. */
static bool share_node(const char *a, const char *b)
{
    struct err e;
    struct hostlist *x = hostlist_expand(a, &e), *y;
    bool hit = false;

    if (x == NULL)
        return false;
    if ((y = hostlist_expand(b, &e)) != NULL) {
        for (size_t i = 0; i < hostlist_count(x) && !hit; i++)
            hit = hostlist_find(y, hostlist_nth(x, i)) >= 0;
        hostlist_destroy(y);
    }
    hostlist_destroy(x);
    return hit;
}

/* p cannot reach any partition of a lower tier: the finding. */
static void unreachable(json_t *p, json_t *parts, long long tier,
                        struct conf_diag *d)
{
    const char *name = doctor_jstr(p, "name", "?");
    char *lower = NULL, *where, *fix;
    json_t *q;
    size_t i;
    long long t;

    json_array_foreach(parts, i, q)
    {
        if (doctor_jint(q, "priority_tier", &t) && t < tier)
            lower = doctor_cat(lower, "%s%s (%s)", lower ? ", " : "",
                               doctor_jstr(q, "name", "?"),
                               doctor_jstr(q, "nodes", ""));
    }
    where = xasprintf("partition %s", name);
    fix = xasprintf("let %s's Nodes= overlap the lower partitions' nodes "
                    "(e.g. all of them), or preempt by QOS "
                    "(PreemptType=preempt/qos)",
                    name);
    conf_diag_add_fix(d, CONF_WARNING, where, "preempt_reach", fix,
                      "PreemptType=preempt/partition_prio, but %s "
                      "(PriorityTier %lld, %s) shares no node with a "
                      "partition of a lower tier (%s): its jobs can never "
                      "preempt theirs",
                      name, tier, doctor_jstr(p, "nodes", ""), lower);
    free(lower);
    free(where);
    free(fix);
}

void doctor_preempt_reach(json_t *facts, struct conf_diag *d)
{
    const char *type = doctor_conf(facts, "PreemptType");
    const char *mode = doctor_conf(facts, "PreemptMode");
    json_t *parts = json_object_get(facts, "partitions"), *p, *q;
    size_t i, k;

    if (type == NULL || strcmp(type, "preempt/partition_prio") != 0 ||
        (mode != NULL && strcasecmp(mode, "OFF") == 0))
        return;
    json_array_foreach(parts, i, p)
    {
        long long tier, t;
        bool any_lower = false, reach = false;
        if (!doctor_jint(p, "priority_tier", &tier))
            continue;
        json_array_foreach(parts, k, q)
        {
            if (!doctor_jint(q, "priority_tier", &t) || t >= tier)
                continue;
            any_lower = true;
            reach = reach || share_node(doctor_jstr(p, "nodes", ""),
                                        doctor_jstr(q, "nodes", ""));
        }
        if (any_lower && !reach)
            unreachable(p, parts, tier, d);
    }
}

/* ---- priority weights -------------------------------------------------- */

struct item {
    const char *name;
    double v;
};

static int by_value(const void *a, const void *b)
{
    double x = ((const struct item *)a)->v, y = ((const struct item *)b)->v;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* When the n values differ: "prod_qos 1000, backtest_qos 500 ... normal
 * 0" (four at most, the lowest last), else NULL. */
static char *differ(struct item *it, size_t n, bool as_int)
{
    char *s = NULL;

    if (n < 2)
        return NULL;
    qsort(it, n, sizeof(*it), by_value);
    if (it[0].v == it[n - 1].v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i == 3 && n > 4)
            i = n - 1; /* the lowest closes the list */
        s = doctor_cat(s, as_int ? "%s%s %.0f" : "%s%s %.3f",
                       i == 0                ? ""
                       : i == n - 1 && n > 4 ? " ... "
                                             : ", ",
                       it[i].name, it[i].v);
    }
    return s;
}

/* The numbers under key of each object of a (those with "user" when
 * users), named by name_key; a new array of n items. */
static struct item *items(json_t *a, const char *name_key, const char *key,
                          bool users, size_t *n)
{
    struct item *it = xcalloc(json_array_size(a) + 1, sizeof(*it));
    json_t *o, *v;
    size_t i;

    *n = 0;
    json_array_foreach(a, i, o)
    {
        v = json_object_get(o, key);
        if (!json_is_number(v) ||
            (users && !json_is_string(json_object_get(o, "user"))))
            continue;
        it[*n].name = doctor_jstr(o, name_key, "?");
        it[(*n)++].v = json_number_value(v);
    }
    return it;
}

/* One factor: weight key 0 while the values of a differ. */
static void weight_zero(json_t *facts, const char *key, json_t *a,
                        const char *name_key, const char *vkey, bool users,
                        const char *what, const char *tail, struct conf_diag *d)
{
    long long w;
    size_t n;
    struct item *it;
    char *list, *fix;

    if (a == NULL || !doctor_conf_int(facts, key, &w) || w != 0)
        return;
    it = items(a, name_key, vkey, users, &n);
    list = differ(it, n, !users);
    if (list != NULL) {
        fix = xasprintf("give %s a weight (%s=1000 or more; "
                        "etc/quant-cluster.conf shows one set) and run "
                        "scontrol reconfigure",
                        what, key);
        conf_diag_add_fix(d, CONF_WARNING, key, "prio_weights", fix,
                          "%s differ (%s), but %s=0: %s", what, list, key,
                          tail);
        free(fix);
    }
    free(list);
    free(it);
}

void doctor_prio_weights(json_t *facts, struct conf_diag *d)
{
    static const char *const weights[] = {
        "PriorityWeightAge", "PriorityWeightFairshare", "PriorityWeightJobSize",
        "PriorityWeightPartition", "PriorityWeightQOS"};
    const char *type = doctor_conf(facts, "PriorityType");
    long long w;

    if (type != NULL && strcmp(type, "priority/basic") == 0) {
        for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
            if (doctor_conf_int(facts, weights[i], &w) && w != 0) {
                conf_diag_add_fix(d, CONF_WARNING, "PriorityType",
                                  "prio_weights",
                                  "PriorityType=priority/multifactor",
                                  "priority/basic ignores %s=%lld and the "
                                  "other PriorityWeight* settings: jobs run "
                                  "in submit order",
                                  weights[i], w);
                break;
            }
        return;
    }
    if (type == NULL || strcmp(type, "priority/multifactor") != 0)
        return;
    weight_zero(facts, "PriorityWeightQOS", json_object_get(facts, "qos"),
                "name", "priority", false, "QOS priorities",
                "a job's QOS does not change its priority", d);
    weight_zero(facts, "PriorityWeightPartition",
                json_object_get(facts, "partitions"), "name",
                "priority_job_factor", false, "partitions' PriorityJobFactor",
                "the partition does not change a job's priority (PriorityTier "
                "still orders the partitions)",
                d);
    weight_zero(facts, "PriorityWeightFairshare",
                json_object_get(facts, "shares"), "user", "fairshare", true,
                "users' fair-share factors",
                "past usage does not change a job's priority", d);
}

/* ---- time limits ------------------------------------------------------- */

void doctor_time_limit(json_t *facts, struct conf_diag *d)
{
    json_t *p, *j;
    size_t i, k;

    json_array_foreach(json_object_get(facts, "partitions"), i, p)
    {
        const char *name = doctor_jstr(p, "name", "?");
        json_t *ids = json_array();
        json_t *mt = json_object_get(p, "max_time_s");
        if (mt == NULL || !json_is_null(mt)) {
            json_decref(ids);
            continue;
        }
        json_array_foreach(json_object_get(facts, "jobs"), k, j)
        {
            json_t *tl = json_object_get(j, "time_limit_s");
            if (strcmp(doctor_jstr(j, "partition", ""), name) == 0 &&
                strcmp(doctor_jstr(j, "job_state", ""), "RUNNING") == 0 &&
                tl != NULL && json_is_null(tl))
                json_array_append(ids, json_object_get(j, "job_id"));
        }
        if (json_array_size(ids) > 0) {
            char *list = doctor_ids(ids, 8);
            char *where = xasprintf("partition %s", name);
            char *fix = xasprintf(
                "set DefaultTime= and a finite MaxTime= on "
                "PartitionName=%s, and give the jobs a "
                "limit (scontrol update JobId=%lld "
                "TimeLimit=...)",
                name, (long long)json_integer_value(json_array_get(ids, 0)));
            bool one = json_array_size(ids) == 1;
            conf_diag_add_fix(d, CONF_WARNING, where, "time_limit", fix,
                              "%zu running job%s without a time limit (%s), "
                              "in a partition with MaxTime=INFINITE: %s "
                              "until %s (the seed's job that held GPUs for "
                              "two weeks)",
                              json_array_size(ids), one ? "" : "s", list,
                              one ? "it holds its nodes and GPUs"
                                  : "they hold their nodes and GPUs",
                              one ? "it ends" : "they end");
            free(list);
            free(where);
            free(fix);
        }
        json_decref(ids);
    }
}

/* ---- users preempted too often ----------------------------------------- */

void doctor_preempted_users(json_t *facts, struct conf_diag *d)
{
    json_t *rep = json_object_get(facts, "preemptions"), *u;
    double share = json_number_value(json_object_get(rep, "share"));
    long long window = 0;
    char span[64] = "";
    size_t i;

    if (doctor_jint(facts, "preempt_window_s", &window) && window >= 86400)
        snprintf(span, sizeof(span), " in the last %lld day%s", window / 86400,
                 window / 86400 == 1 ? "" : "s");
    json_array_foreach(json_object_get(rep, "users"), i, u)
    {
        long long runs = 0, pre = 0;
        char *where;
        if (!json_is_true(json_object_get(u, "flagged")))
            continue;
        doctor_jint(u, "runs", &runs);
        doctor_jint(u, "preempted", &pre);
        where = xasprintf("user %s", doctor_jstr(u, "name", "?"));
        conf_diag_add_fix(
            d, CONF_WARNING, where, "preempted_users",
            "adjust the user's QOS or give them resources of their own, as "
            "the seed advises (sluice report preemptions shows the review)",
            "preempted in %lld of %lld runs (%.0f%%)%s, more than "
            "PreemptParameters report_share=%.2f allows; %.2f GPU-hours lost",
            pre, runs,
            100 * json_number_value(json_object_get(u, "preempted_share")),
            span, share,
            json_number_value(json_object_get(u, "gpu_hours_lost")));
        free(where);
    }
}
