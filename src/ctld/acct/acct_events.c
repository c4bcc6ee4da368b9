/*
 * Node events (acct_events.h) in SQLite: one row per event, its end 0
 * while open.  Events are rare (an admin's DRAIN or DOWN), so the table
 * is made if missing at each write and the statements are not kept.
 */
#include "ctld/acct/acct_events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "ctld/core/persist.h"

#define EVENTS_TABLE                                                           \
    "CREATE TABLE IF NOT EXISTS acct_events(seq INTEGER PRIMARY KEY, "         \
    "node TEXT NOT NULL, time_start INTEGER NOT NULL, time_end INTEGER NOT "   \
    "NULL, state TEXT NOT NULL, reason TEXT, user TEXT)"

static int db_error(struct persist *p, int rc, const char *what, struct err *e)
{
    persist_note_error(p, rc);
    errno = rc == SQLITE_FULL ? ENOSPC : EIO;
    return err_set(e, "node events: %s: %s", what,
                   sqlite3_errmsg(persist_sqlite(p)));
}

/* Runs sql with its ? bound to the texts and integers given, in order:
 * types "s" (text, NULL allowed) or "i" (int64). */
static int run(struct persist *p, const char *sql, const char *types,
               const void *const *args, struct err *e)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(persist_sqlite(p), sql, -1, &st, NULL);

    for (int i = 0; rc == SQLITE_OK && types[i] != '\0'; i++)
        rc = types[i] == 's'
                 ? sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC)
                 : sqlite3_bind_int64(st, i + 1, *(const long long *)args[i]);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_OK && rc != SQLITE_ROW)
        return db_error(p, rc, "write", e);
    return 0;
}

int acct_events_node(struct persist *p, const char *node, const char *state,
                     const char *reason, const char *user, time_t now,
                     struct err *e)
{
    long long t = (long long)now;
    const void *close_args[] = {&t, node};
    const void *open_args[] = {node, &t, state, reason, user};

    if (persist_begin(p, e) < 0 || run(p, EVENTS_TABLE, "", NULL, e) < 0 ||
        run(p,
            "UPDATE acct_events SET time_end = ?1 WHERE node = ?2 AND "
            "time_end = 0",
            "is", close_args, e) < 0)
        return -1;
    if (state == NULL || state[0] == '\0')
        return 0;
    return run(p,
               "INSERT INTO acct_events(node, time_start, time_end, state, "
               "reason, user) VALUES (?1, ?2, 0, ?3, ?4, ?5)",
               "sisss", open_args, e);
}

/* Whether the comma list (NULL: any) has s, case-insensitively. */
static bool listed(const char *list, const char *s)
{
    size_t n = strlen(s);

    if (list == NULL)
        return true;
    for (const char *q = list; *q != '\0';) {
        size_t len = strcspn(q, ",");
        if (len == n && strncasecmp(q, s, n) == 0)
            return true;
        q += len + (q[len] == ',');
    }
    return false;
}

static const char *where_get(json_t *where, const char *const *keys)
{
    const char *k;
    json_t *v;

    json_object_foreach(where, k, v)
    {
        for (size_t i = 0; keys[i] != NULL; i++)
            if (strcasecmp(k, keys[i]) == 0)
                return json_string_value(v);
    }
    return NULL;
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);

    return s ? (const char *)s : "";
}

json_t *acct_events_list(struct persist *p, const char *cluster, json_t *where,
                         struct err *e)
{
    static const char *const k_nodes[] = {"Nodes", "Node", "NodeName",
                                          "NodeNames", NULL};
    static const char *const k_states[] = {"States", "State", NULL};
    const char *nodes = where_get(where, k_nodes);
    const char *states = where_get(where, k_states);
    json_t *out = json_array();
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(persist_sqlite(p),
                            "SELECT node, time_start, time_end, state, "
                            "reason, user FROM acct_events ORDER BY seq",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) { /* no event yet: no table */
        sqlite3_finalize(st);
        return json_pack("{s:o}", "events", out);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!listed(nodes, col(st, 0)) || !listed(states, col(st, 3)))
            continue;
        json_array_append_new(
            out,
            json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:s}", "cluster",
                      cluster ? cluster : "", "node", col(st, 0), "time_start",
                      (json_int_t)sqlite3_column_int64(st, 1), "time_end",
                      (json_int_t)sqlite3_column_int64(st, 2), "state",
                      col(st, 3), "reason", col(st, 4), "user", col(st, 5)));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        json_decref(out);
        db_error(p, rc, "read", e);
        return NULL;
    }
    return json_pack("{s:o}", "events", out);
}
