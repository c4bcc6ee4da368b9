/*
 * The accounting store on SQLite: one table per kind (acct_clusters, ...),
 * each (seq, key, record), created by schema migration 2 in persist.c.
 * Statements are prepared once; writes join the controller's transaction.
 */
#include "ctld/acct/acct_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "common/xalloc.h"
#include "ctld/core/persist.h"

enum { OP_PUT, OP_DEL, OP_LOAD, OP_COUNT };

static const char *const tables[ACCT_KIND_COUNT] = {
    [ACCT_KIND_CLUSTER] = "acct_clusters",
    [ACCT_KIND_ACCOUNT] = "acct_accounts",
    [ACCT_KIND_USER] = "acct_users",
    [ACCT_KIND_ASSOC] = "acct_assocs",
    [ACCT_KIND_QOS] = "acct_qos",
};

struct acct_store {
    struct persist *p;
    sqlite3 *db;
    sqlite3_stmt *st[ACCT_KIND_COUNT][OP_COUNT];
};

static int db_error(struct acct_store *s, int rc, const char *what,
                    struct err *e)
{
    persist_note_error(s->p, rc);
    errno = rc == SQLITE_FULL ? ENOSPC : EIO;
    return err_set(e, "accounting store: %s: %s", what,
                   s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

static int prepare(struct acct_store *s, enum acct_kind k, struct err *e)
{
    char sql[3][192];

    /* The key keeps its first rowid on replace, so loads keep the order
     * in which things were made. */
    snprintf(sql[OP_PUT], sizeof(sql[OP_PUT]),
             "INSERT INTO %s(key, record) VALUES (?1, ?2) ON CONFLICT(key) "
             "DO UPDATE SET record = excluded.record",
             tables[k]);
    snprintf(sql[OP_DEL], sizeof(sql[OP_DEL]), "DELETE FROM %s WHERE key = ?1",
             tables[k]);
    snprintf(sql[OP_LOAD], sizeof(sql[OP_LOAD]),
             "SELECT key, record FROM %s ORDER BY seq", tables[k]);
    for (int op = 0; op < OP_COUNT; op++) {
        int rc = sqlite3_prepare_v3(
            s->db, sql[op], -1, SQLITE_PREPARE_PERSISTENT, &s->st[k][op], NULL);
        if (rc != SQLITE_OK)
            return db_error(s, rc, sql[op], e);
    }
    return 0;
}

struct acct_store *acct_store_open(struct persist *p, struct err *e)
{
    struct acct_store *s = xcalloc(1, sizeof(*s));

    s->p = p;
    s->db = persist_sqlite(p);
    for (int k = 0; k < ACCT_KIND_COUNT; k++)
        if (prepare(s, (enum acct_kind)k, e) < 0)
            goto error;
    return s;
error:
    acct_store_close(s);
    return NULL;
}

void acct_store_close(struct acct_store *s)
{
    int saved = errno;

    if (s == NULL)
        return;
    for (int k = 0; k < ACCT_KIND_COUNT; k++)
        for (int op = 0; op < OP_COUNT; op++)
            sqlite3_finalize(s->st[k][op]);
    free(s);
    errno = saved;
}

static int step_done(struct acct_store *s, sqlite3_stmt *st, const char *what,
                     struct err *e)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return db_error(s, rc, what, e);
    return 0;
}

int acct_store_put(struct acct_store *s, enum acct_kind kind, const char *key,
                   const char *record, struct err *e)
{
    sqlite3_stmt *st = s->st[kind][OP_PUT];

    if (persist_begin(s->p, e) < 0)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, record, -1, SQLITE_STATIC);
    return step_done(s, st, "saving", e);
}

int acct_store_del(struct acct_store *s, enum acct_kind kind, const char *key,
                   struct err *e)
{
    sqlite3_stmt *st = s->st[kind][OP_DEL];

    if (persist_begin(s->p, e) < 0)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    return step_done(s, st, "deleting", e);
}

int acct_store_load(struct acct_store *s, enum acct_kind kind, acct_store_fn fn,
                    void *arg, struct err *e)
{
    sqlite3_stmt *st = s->st[kind][OP_LOAD];
    int rc, ret = 0;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (fn(arg, (const char *)sqlite3_column_text(st, 0),
               (const char *)sqlite3_column_text(st, 1)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(s, rc, "loading", e);
    sqlite3_reset(st);
    return ret;
}
