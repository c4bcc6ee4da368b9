/*
 * Where the accounting model is kept: one record (the entity's JSON text,
 * docs/protocol.md) per cluster, account, user, association and QOS, under
 * a key unique within its kind.  This is the whole interface between the
 * model and SQL, narrow so that PostgreSQL could back it later; this
 * implementation uses the controller's SQLite database and writes inside
 * its open transaction (the iteration's group commit).
 */
#ifndef SLUICE_CTLD_ACCT_STORE_H
#define SLUICE_CTLD_ACCT_STORE_H

#include "common/err.h"

struct persist;
struct acct_store;

enum acct_kind {
    ACCT_KIND_CLUSTER,
    ACCT_KIND_ACCOUNT,
    ACCT_KIND_USER,
    ACCT_KIND_ASSOC,
    ACCT_KIND_QOS,
    ACCT_KIND_COUNT
};

/*
 * acct_store_open: the store in p's database (borrowed; it must outlive
 * the store).  NULL with e on failure.  acct_store_close accepts NULL.
 */
struct acct_store *acct_store_open(struct persist *p, struct err *e);
void acct_store_close(struct acct_store *s);

/* acct_store_put: insert or replace kind/key with record (borrowed),
 * inside the open transaction (which it opens when none is). */
int acct_store_put(struct acct_store *s, enum acct_kind kind, const char *key,
                   const char *record, struct err *e);
/* acct_store_del: remove kind/key (absent is not an error). */
int acct_store_del(struct acct_store *s, enum acct_kind kind, const char *key,
                   struct err *e);

/* acct_store_load: fn(arg, key, record) for every record of kind in the
 * order they were first put; fn's -1 stops the load and is returned. */
typedef int (*acct_store_fn)(void *arg, const char *key, const char *record);
int acct_store_load(struct acct_store *s, enum acct_kind kind, acct_store_fn fn,
                    void *arg, struct err *e);

#endif
