/*
 * Fair-share usage in the controller: the decayed usage of each user
 * association (a sorted array keyed "account/user") and of each QOS
 * ("qos:NAME"; Flags=NoDecay: never decayed nor reset), charged from jobs'
 * allocations, saved in the fs_usage table (schema 4), and the association
 * tree built from the accounting model for fs_compute.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/job.h"
#include "ctld/core/persist.h"
#include "ctld/sched/prio_int.h"

#define KEY_MAX 512

static int db_error(sqlite3 *db, const char *what, struct err *e)
{
    errno = EIO;
    return err_set(e, "fair-share usage: %s: %s", what, sqlite3_errmsg(db));
}

/* Index of key in the usage array, or where it would go (*found false). */
static size_t usage_pos(const struct prio_drv *p, const char *key, bool *found)
{
    size_t lo = 0, hi = p->nusage;

    *found = false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(p->usage[mid].key, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void prio_usage_add(struct prio_drv *p, const char *key, double amount)
{
    bool found;
    size_t i = usage_pos(p, key, &found);

    if (!found) {
        if (p->nusage == p->capusage) {
            p->capusage = p->capusage ? 2 * p->capusage : 64;
            p->usage = xrealloc(p->usage, p->capusage * sizeof(*p->usage));
        }
        memmove(&p->usage[i + 1], &p->usage[i],
                (p->nusage - i) * sizeof(*p->usage));
        p->usage[i] = (struct prio_usage){xstrdup(key), 0};
        p->nusage++;
    }
    p->usage[i].usage += amount;
}

double prio_usage_get(const struct prio_drv *p, const char *key)
{
    bool found;
    size_t i = usage_pos(p, key, &found);

    return found ? p->usage[i].usage : 0;
}

int prio_usage_open(struct prio_drv *p, struct err *e)
{
    sqlite3 *db = persist_sqlite(p->src.persist);
    uint64_t last = 0, reset = 0;
    int rc;

    if (sqlite3_prepare_v3(db,
                           "INSERT INTO fs_usage(key, usage) VALUES (?1, ?2) "
                           "ON CONFLICT(key) DO UPDATE SET usage = "
                           "excluded.usage",
                           -1, SQLITE_PREPARE_PERSISTENT, &p->put,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, "SELECT key, usage FROM fs_usage", -1,
                           SQLITE_PREPARE_PERSISTENT, &p->load,
                           NULL) != SQLITE_OK)
        return db_error(db, "prepare", e);
    while ((rc = sqlite3_step(p->load)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(p->load, 0);
        if (k != NULL)
            prio_usage_add(p, k, sqlite3_column_double(p->load, 1));
    }
    sqlite3_reset(p->load);
    if (rc != SQLITE_DONE)
        return db_error(db, "load", e);
    if (persist_meta_get(p->src.persist, "fs_last_calc", &last, e) < 0 ||
        persist_meta_get(p->src.persist, "fs_next_reset", &reset, e) < 0)
        return -1;
    p->last_calc = (time_t)last;
    p->next_reset = (time_t)reset;
    log_info("fairshare usage loaded=%zu last_calc=%lld", p->nusage,
             (long long)p->last_calc);
    return 0;
}

void prio_usage_close(struct prio_drv *p)
{
    sqlite3_finalize(p->put);
    sqlite3_finalize(p->load);
    for (size_t i = 0; i < p->nusage; i++)
        free(p->usage[i].key);
    free(p->usage);
}

static int put_one(struct prio_drv *p, const struct prio_usage *u,
                   struct err *e)
{
    int rc;

    sqlite3_bind_text(p->put, 1, u->key, -1, SQLITE_STATIC);
    sqlite3_bind_double(p->put, 2, u->usage);
    rc = sqlite3_step(p->put);
    sqlite3_reset(p->put);
    if (rc != SQLITE_DONE) {
        persist_note_error(p->src.persist, rc);
        return db_error(persist_sqlite(p->src.persist), "save", e);
    }
    return 0;
}

int prio_usage_save_one(struct prio_drv *p, const char *key, struct err *e)
{
    bool found;
    size_t i = usage_pos(p, key, &found);

    return found ? put_one(p, &p->usage[i], e) : 0;
}

int prio_usage_save(struct prio_drv *p, struct err *e)
{
    for (size_t i = 0; i < p->nusage; i++)
        if (put_one(p, &p->usage[i], e) < 0)
            return -1;
    if (persist_meta_set(p->src.persist, "fs_last_calc", (uint64_t)p->last_calc,
                         e) < 0 ||
        persist_meta_set(p->src.persist, "fs_next_reset",
                         (uint64_t)p->next_reset, e) < 0)
        return -1;
    return 0;
}

bool prio_job_key(const struct prio_drv *p, const struct job *j, char *buf,
                  size_t len)
{
    const char *acc = j->account;

    if (acc == NULL && j->user_name != NULL) {
        const struct acct_user *u = acct_user_find(p->src.acct, j->user_name);
        acc = u != NULL ? u->default_account : NULL;
    }
    if (acc == NULL || j->user_name == NULL) {
        if (len > 0)
            buf[0] = '\0';
        return false;
    }
    snprintf(buf, len, "%s/%s", acc, j->user_name);
    return true;
}

void prio_usage_charge(struct prio_drv *p, const struct job *j, time_t from,
                       time_t to)
{
    const struct acct_qos *q = NULL;
    double amount;
    char key[KEY_MAX];

    if (to <= from || !prio_job_key(p, j, key, sizeof(key)))
        return;
    if (j->qos != NULL)
        q = acct_qos_find(p->src.acct, j->qos);
    amount = prio_usage_rate(p, j, q != NULL ? q->usage_factor : 1.0, from, to);
    prio_usage_add(p, key, amount);
    /* the QOS's own usage (its UsageRaw), kept beside the associations' */
    if (q != NULL) {
        prio_usage_qos_key(q->name, key, sizeof(key));
        prio_usage_add(p, key, amount);
    }
}

void prio_usage_qos_key(const char *qos, char *buf, size_t len)
{
    /* ':' is in no account name, so "qos:NAME" never meets "acct/user" */
    snprintf(buf, len, "%s%s", PRIO_QOS_KEY, qos);
}

bool prio_usage_no_decay(const struct prio_drv *p, const char *key)
{
    const struct acct_qos *q;

    if (strncmp(key, PRIO_QOS_KEY, strlen(PRIO_QOS_KEY)) != 0)
        return false;
    q = acct_qos_find(p->src.acct, key + strlen(PRIO_QOS_KEY));
    return q != NULL && (q->flags & ACCT_QOS_NO_DECAY);
}

/* ---- the association tree -------------------------------------------- */

static void tree_free(struct prio_drv *p)
{
    for (size_t i = 0; i < p->nfs; i++)
        free(p->fs_key[i]);
    free(p->fs_key);
    free(p->fs);
    free(p->byname);
    p->fs_key = NULL;
    p->fs = NULL;
    p->byname = NULL;
    p->nfs = 0;
}

static int by_key(const void *a, const void *b, void *arg)
{
    const struct prio_drv *p = arg;

    return strcmp(p->fs_key[*(const size_t *)a], p->fs_key[*(const size_t *)b]);
}

size_t prio_tree_find(const struct prio_drv *p, const char *key)
{
    size_t lo = 0, hi = p->nfs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(p->fs_key[p->byname[mid]], key);
        if (c == 0)
            return p->byname[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

/* The cluster's associations without a partition: accounts and users. */
static bool in_tree(const struct prio_drv *p, const struct acct_assoc *as)
{
    return as->partition == NULL &&
           strcmp(as->cluster, acct_cluster_name(p->src.acct)) == 0;
}

static void tree_keys(struct prio_drv *p, const struct acct_assoc **src)
{
    const struct acct *a = p->src.acct;
    char key[KEY_MAX];

    for (size_t i = 0; acct_assoc_at(a, i) != NULL; i++) {
        const struct acct_assoc *as = acct_assoc_at(a, i);
        if (!in_tree(p, as))
            continue;
        if (as->user != NULL)
            snprintf(key, sizeof(key), "%s/%s", as->account, as->user);
        else
            snprintf(key, sizeof(key), "%s", as->account);
        src[p->nfs] = as;
        p->fs_key[p->nfs] = xstrdup(key);
        p->fs[p->nfs] = (struct fs_assoc){
            .name = as->user ? as->user : as->account,
            .parent = FS_NO_PARENT,
            .is_user = as->user != NULL,
            .shares_raw = acct_assoc_shares(as),
            .usage_raw = as->user ? prio_usage_get(p, key) : 0,
        };
        p->byname[p->nfs] = p->nfs;
        p->nfs++;
    }
}

void prio_tree_build(struct prio_drv *p)
{
    const struct acct *a = p->src.acct;
    const struct acct_assoc **src;
    size_t n = 0;

    tree_free(p);
    while (acct_assoc_at(a, n) != NULL)
        n++;
    p->fs = xcalloc(n ? n : 1, sizeof(*p->fs));
    p->fs_key = xcalloc(n ? n : 1, sizeof(*p->fs_key));
    p->byname = xcalloc(n ? n : 1, sizeof(*p->byname));
    src = xcalloc(n ? n : 1, sizeof(*src));
    tree_keys(p, src);
    qsort_r(p->byname, p->nfs, sizeof(*p->byname), by_key, p);
    for (size_t i = 0; i < p->nfs; i++) {
        const struct acct_assoc *par = src[i]->parent;
        size_t k = SIZE_MAX;
        if (par != NULL)
            k = prio_tree_find(p, par->user ? "" : par->account);
        p->fs[i].parent = k == SIZE_MAX ? FS_NO_PARENT : k;
        if (p->fs[i].shares_raw == ACCT_SHARES_PARENT)
            p->fs[i].shares_raw = 1;
    }
    free(src);
    if (p->nfs > 0 && fs_compute(p->fs, p->nfs, p->ps.fair_tree) < 0) {
        log_warnx("fairshare tree malformed (%zu associations); factors "
                  "left at 0",
                  p->nfs);
        for (size_t i = 0; i < p->nfs; i++)
            p->fs[i].factor = 0;
    }
}

void prio_tree_free(struct prio_drv *p)
{
    tree_free(p);
}
