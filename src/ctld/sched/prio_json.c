/*
 * What sprio and sshare are answered (PRIO_QUERY, SHARE_QUERY in
 * docs/protocol.md): every pending job's factors, weighted and
 * normalised, the association tree with its usage and fair-share, and the
 * notes that say when a factor is switched off while its inputs differ.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/queue/jobs.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/prio_int.h"

#define NOTE_MAX 512
#define NOTE_ITEMS 4 /* names listed in a note before "…" */

static json_t *weights_json(const struct prio_drv *p)
{
    const struct conf *cf = p->src.conf;
    json_t *o = json_object();

    for (int f = 0; f < PRIO_TRES; f++)
        json_object_set_new(o, prio_factor_name((enum prio_factor)f),
                            json_integer(p->ps.pc.weight[f]));
    json_object_set_new(o, "tres", json_string(cf->priority_weight_tres));
    return o;
}

static json_t *factors_json(const struct prio_result *r)
{
    json_t *o = json_object();

    for (int f = 0; f < PRIO_NFACTORS; f++)
        json_object_set_new(o, prio_factor_name((enum prio_factor)f),
                            json_pack("{s:f, s:f}", "normalized",
                                      r ? r->norm[f] : 0.0, "weighted",
                                      r ? r->weighted[f] : 0.0));
    return o;
}

static bool wanted(json_t *req, const struct job *j)
{
    json_t *ids = json_object_get(req, "job_ids"),
           *users = json_object_get(req, "users"), *v;
    size_t i;
    bool hit;

    if (json_array_size(ids) > 0) {
        hit = false;
        json_array_foreach(ids, i, v) hit =
            hit || (uint64_t)json_integer_value(v) == j->id;
        if (!hit)
            return false;
    }
    if (json_array_size(users) > 0) {
        hit = false;
        json_array_foreach(users, i, v) hit =
            hit || (json_is_string(v) && j->user_name &&
                    strcmp(json_string_value(v), j->user_name) == 0);
        if (!hit)
            return false;
    }
    return true;
}

/* A named value for a note's list, sorted by value, highest first. */
struct item {
    const char *name;
    double v;
};

static int by_value(const void *a, const void *b)
{
    double x = ((const struct item *)a)->v, y = ((const struct item *)b)->v;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* "note: WHAT differ (a 1000, b 500 … c 100) but KEY=0: TAIL", when the
 * values differ; fmt_int prints them as integers. */
static void note_differ(json_t *notes, struct item *it, size_t n,
                        const char *what, const char *key, const char *tail,
                        bool fmt_int)
{
    char buf[NOTE_MAX];
    size_t len = 0;

    if (n < 2)
        return;
    qsort(it, n, sizeof(*it), by_value);
    if (it[0].v == it[n - 1].v)
        return;
    len += (size_t)snprintf(buf, sizeof(buf), "note: %s differ (", what);
    for (size_t i = 0; i < n && len < sizeof(buf); i++) {
        if (i == NOTE_ITEMS - 1 && n > NOTE_ITEMS)
            i = n - 1; /* the lowest closes the list */
        const char *sep = i == 0                         ? ""
                          : i == n - 1 && n > NOTE_ITEMS ? " … "
                                                         : ", ";
        len +=
            (size_t)(fmt_int ? snprintf(buf + len, sizeof(buf) - len,
                                        "%s%s %.0f", sep, it[i].name, it[i].v)
                             : snprintf(buf + len, sizeof(buf) - len,
                                        "%s%s %.3f", sep, it[i].name, it[i].v));
    }
    if (len < sizeof(buf))
        snprintf(buf + len, sizeof(buf) - len, ") but %s=0: %s", key, tail);
    json_array_append_new(notes, json_string(buf));
}

static void note_qos(const struct prio_drv *p, json_t *notes)
{
    const struct acct *a = p->src.acct;
    size_t n = 0;
    struct item *it;

    while (acct_qos_at(a, n) != NULL)
        n++;
    it = xcalloc(n ? n : 1, sizeof(*it));
    for (size_t i = 0; i < n; i++)
        it[i] =
            (struct item){acct_qos_at(a, i)->name, acct_qos_at(a, i)->priority};
    note_differ(notes, it, n, "QOS priorities", "PriorityWeightQOS",
                "QOS does not affect priority", true);
    free(it);
}

static void note_parts(const struct prio_drv *p, json_t *notes)
{
    const struct conf *cf = p->src.conf;
    struct item *it = xcalloc(cf->n_parts ? cf->n_parts : 1, sizeof(*it));

    for (size_t i = 0; i < cf->n_parts; i++)
        it[i] =
            (struct item){cf->parts[i].name, cf->parts[i].priority_job_factor};
    note_differ(notes, it, cf->n_parts, "partitions' PriorityJobFactor",
                "PriorityWeightPartition",
                "the partition factor does not affect priority (PriorityTier "
                "still orders the partitions)",
                true);
    free(it);
}

static void note_fairshare(const struct prio_drv *p, json_t *notes)
{
    struct item *it = xcalloc(p->nfs ? p->nfs : 1, sizeof(*it));
    size_t n = 0;

    for (size_t i = 0; i < p->nfs; i++)
        if (p->fs[i].is_user)
            it[n++] = (struct item){p->fs_key[i], p->fs[i].factor};
    note_differ(notes, it, n, "fair-share factors", "PriorityWeightFairshare",
                "usage does not affect priority", false);
    free(it);
}

static json_t *notes_json(const struct prio_drv *p)
{
    const struct conf *cf = p->src.conf;
    json_t *notes = json_array();

    if (!p->ps.pc.multifactor) {
        if (cf->priority_weight_age || cf->priority_weight_fairshare ||
            cf->priority_weight_qos || cf->priority_weight_partition ||
            cf->priority_weight_job_size)
            json_array_append_new(
                notes, json_string("note: PriorityType=priority/basic: the "
                                   "PriorityWeight* settings are ignored and "
                                   "jobs run in submit order"));
        return notes;
    }
    if (p->ps.pc.weight[PRIO_QOS] == 0)
        note_qos(p, notes);
    if (p->ps.pc.weight[PRIO_PARTITION] == 0)
        note_parts(p, notes);
    if (p->ps.pc.weight[PRIO_FAIRSHARE] == 0)
        note_fairshare(p, notes);
    return notes;
}

json_t *prio_drv_prio_json(struct prio_drv *p, json_t *req, time_t now)
{
    const struct conf *cf = p->src.conf;
    json_t *jobs = json_array();
    char key[512];

    prio_drv_sync(p, now);
    for (struct job *j = jobs_first_active(p->src.jobs); j != NULL;
         j = j->anext) {
        /* sprio leaves out held jobs, as Slurm does (priority 0) */
        if (j->state != JOB_PENDING || j->held_user || j->held_admin ||
            !wanted(req, j))
            continue;
        if (prio_job_key(p, j, key, sizeof(key)))
            *strchr(key, '/') = '\0'; /* the account */
        json_array_append_new(
            jobs,
            json_pack("{s:I, s:s?, s:s?, s:s, s:s?, s:I, s:b, s:i, s:o}",
                      "job_id", (json_int_t)j->id, "user_name", j->user_name,
                      "account", key[0] ? key : NULL, "partition",
                      cf->parts[j->part].name, "qos", j->qos, "priority",
                      (json_int_t)j->priority, "fixed", j->prio_fixed, "nice",
                      (int)j->nice, "factors", factors_json(j->factors)));
    }
    return json_pack(
        "{s:s, s:o, s:o, s:o}", "priority_type",
        p->ps.pc.multifactor ? "priority/multifactor" : "priority/basic",
        "weights", weights_json(p), "jobs", jobs, "notes", notes_json(p));
}

/* Depth-first from i, children in creation order. */
static void share_walk(const struct prio_drv *p, size_t i, int depth,
                       json_t *out)
{
    const struct fs_assoc *a = &p->fs[i];
    const char *slash = strchr(p->fs_key[i], '/');
    char account[256];

    snprintf(account, sizeof(account), "%.*s",
             slash ? (int)(slash - p->fs_key[i]) : (int)strlen(p->fs_key[i]),
             p->fs_key[i]);
    json_array_append_new(
        out,
        json_pack(
            "{s:s, s:s?, s:s?, s:i, s:I, s:f, s:f, s:f, s:o, s:o}", "account",
            account, "user", a->is_user ? a->name : NULL, "parent",
            a->parent == FS_NO_PARENT ? NULL : p->fs[a->parent].name, "depth",
            depth, "raw_shares", (json_int_t)a->shares_raw, "norm_shares",
            a->shares_norm, "raw_usage", a->usage_tree, "effective_usage",
            p->ps.fair_tree ? a->usage_norm : a->usage_eff, "fairshare",
            a->is_user ? json_real(a->factor) : json_null(), "level_fs",
            isfinite(a->level_fs) ? json_real(a->level_fs) : json_null()));
    for (size_t k = 0; k < p->nfs; k++)
        if (p->fs[k].parent == i && k != i)
            share_walk(p, k, depth + 1, out);
}

/* Each QOS's own usage (Slurm's UsageRaw), decayed unless NoDecay. */
static json_t *qos_usage_json(const struct prio_drv *p)
{
    json_t *out = json_array();
    const struct acct_qos *q;
    char key[512];

    for (size_t i = 0; (q = acct_qos_at(p->src.acct, i)) != NULL; i++) {
        prio_usage_qos_key(q->name, key, sizeof(key));
        json_array_append_new(
            out, json_pack("{s:s, s:f, s:b}", "name", q->name, "raw_usage",
                           prio_usage_get(p, key), "no_decay",
                           (q->flags & ACCT_QOS_NO_DECAY) != 0));
    }
    return out;
}

json_t *prio_drv_share_json(struct prio_drv *p, json_t *req)
{
    json_t *out = json_array();

    (void)req;
    prio_drv_sync(p, time(NULL));
    for (size_t i = 0; i < p->nfs; i++)
        if (p->fs[i].parent == FS_NO_PARENT)
            share_walk(p, i, 0, out);
    return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "algorithm",
                     p->ps.fair_tree ? "fair_tree" : "classic", "half_life_s",
                     (json_int_t)p->ps.half_life_s, "last_calc",
                     (json_int_t)p->last_calc, "shares", out, "qos",
                     qos_usage_json(p), "notes", notes_json(p));
}

void prio_drv_share_each(struct prio_drv *p, time_t now,
                         void (*fn)(void *arg, const struct prio_share *s),
                         void *arg)
{
    char account[256];

    prio_drv_sync(p, now);
    for (size_t i = 0; i < p->nfs; i++) {
        const struct fs_assoc *a = &p->fs[i];
        const char *slash = strchr(p->fs_key[i], '/');
        int len =
            slash ? (int)(slash - p->fs_key[i]) : (int)strlen(p->fs_key[i]);

        snprintf(account, sizeof(account), "%.*s", len, p->fs_key[i]);
        fn(arg, &(struct prio_share){
                    .account = account,
                    .user = a->is_user ? a->name : NULL,
                    .shares_norm = a->shares_norm,
                    .usage_raw = a->usage_tree,
                    .usage_eff = p->ps.fair_tree ? a->usage_norm : a->usage_eff,
                    .fairshare = a->is_user ? a->factor : NAN,
                    .level_fs = p->ps.fair_tree ? a->level_fs : NAN,
                });
    }
}
