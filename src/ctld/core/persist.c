/*
 * SQLite behind persist.h: WAL with synchronous=FULL, prepared statements
 * kept for the life of the handle, schema versions applied in order by
 * migrations[], and one transaction per controller loop iteration.
 */
#include "ctld/core/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/log.h"
#include "common/xalloc.h"

enum stmt_id {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_META_GET,
    ST_META_SET,
    ST_JOB_INSERT,
    ST_JOB_UPDATE,
    ST_JOB_EVENT,
    ST_JOB_PAYLOAD,
    ST_JOB_PURGE,
    ST_JOB_RECORD,
    ST_JOB_EVENTS,
    ST_NODE_SAVE,
    ST_NODE_LOAD,
    ST_PART_SAVE,
    ST_PART_LOAD,
    ST_HOLD_SAVE,
    ST_HOLD_DELETE,
    ST_HOLD_LOAD,
    ST_STEP_SAVE,
    ST_STEP_LOAD_JOB,
    ST_RESV_SAVE,
    ST_RESV_DELETE,
    ST_RESV_LOAD,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [ST_META_SET] = "INSERT INTO meta(key, value) VALUES (?1, ?2) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [ST_JOB_INSERT] = "INSERT INTO jobs(id, state, finished, user_id, "
                      "partition, submit_time, end_time, record, payload) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_JOB_UPDATE] = "UPDATE jobs SET state = ?2, finished = ?3, "
                      "user_id = ?4, partition = ?5, submit_time = ?6, "
                      "end_time = ?7, record = ?8 WHERE id = ?1",
    [ST_JOB_EVENT] = "INSERT INTO job_events(job_id, time, event, detail) "
                     "VALUES (?1, ?2, ?3, ?4)",
    [ST_JOB_PAYLOAD] = "SELECT payload FROM jobs WHERE id = ?1",
    [ST_JOB_PURGE] = "UPDATE jobs SET payload = '' WHERE id = ?1",
    [ST_JOB_RECORD] = "SELECT record FROM jobs WHERE id = ?1",
    [ST_JOB_EVENTS] = "SELECT time, event, detail FROM job_events "
                      "WHERE job_id = ?1 ORDER BY time, rowid",
    [ST_NODE_SAVE] = "INSERT INTO nodes(name, state, reason, reason_time) "
                     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT(name) DO UPDATE "
                     "SET state = excluded.state, reason = excluded.reason, "
                     "reason_time = excluded.reason_time",
    [ST_NODE_LOAD] = "SELECT name, state, reason, reason_time FROM nodes",
    [ST_PART_SAVE] = "INSERT INTO partitions(name, settings) VALUES (?1, ?2) "
                     "ON CONFLICT(name) DO UPDATE SET settings = "
                     "excluded.settings",
    [ST_PART_LOAD] = "SELECT name, settings FROM partitions",
    [ST_HOLD_SAVE] = "INSERT INTO preempt_holds(job, task, record) "
                     "VALUES (?1, ?2, ?3) ON CONFLICT(job, task) DO UPDATE "
                     "SET record = excluded.record",
    [ST_HOLD_DELETE] = "DELETE FROM preempt_holds WHERE job = ?1 AND task = ?2",
    [ST_HOLD_LOAD] = "SELECT job, task, record FROM preempt_holds "
                     "ORDER BY job, task",
    [ST_STEP_SAVE] = "INSERT INTO steps(job_id, step_id, record) "
                     "VALUES (?1, ?2, ?3) ON CONFLICT(job_id, step_id) DO "
                     "UPDATE SET record = excluded.record",
    [ST_STEP_LOAD_JOB] = "SELECT job_id, step_id, record FROM steps "
                         "WHERE job_id = ?1 ORDER BY step_id",
    [ST_RESV_SAVE] = "INSERT INTO reservations(name, record) VALUES (?1, ?2) "
                     "ON CONFLICT(name) DO UPDATE SET record = excluded.record",
    [ST_RESV_DELETE] = "DELETE FROM reservations WHERE name = ?1",
    [ST_RESV_LOAD] = "SELECT name, record FROM reservations ORDER BY name",
};

/* migrations[v] takes the schema from version v to v + 1. */
static const char *const migrations[PERSIST_SCHEMA_VERSION] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT NOT NULL,"
    " finished INTEGER NOT NULL, user_id INTEGER NOT NULL,"
    " partition TEXT NOT NULL, submit_time INTEGER NOT NULL,"
    " end_time INTEGER NOT NULL, record TEXT NOT NULL,"
    " payload TEXT NOT NULL);"
    "CREATE INDEX jobs_unfinished ON jobs(finished, id);"
    "CREATE INDEX jobs_user ON jobs(user_id);"
    "CREATE INDEX jobs_partition ON jobs(partition);"
    "CREATE TABLE job_events (job_id INTEGER NOT NULL, time INTEGER NOT NULL,"
    " event TEXT NOT NULL, detail TEXT NOT NULL);"
    "CREATE INDEX job_events_job ON job_events(job_id, time);"
    "CREATE INDEX job_events_time ON job_events(time);"
    "CREATE TABLE nodes (name TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " reason TEXT NOT NULL, reason_time INTEGER NOT NULL);",
    /* 2: the accounting store (acct_store.c): one table per kind */
    "CREATE TABLE acct_clusters (seq INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL UNIQUE, record TEXT NOT NULL);"
    "CREATE TABLE acct_accounts (seq INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL UNIQUE, record TEXT NOT NULL);"
    "CREATE TABLE acct_users (seq INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL UNIQUE, record TEXT NOT NULL);"
    "CREATE TABLE acct_assocs (seq INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL UNIQUE, record TEXT NOT NULL);"
    "CREATE TABLE acct_qos (seq INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL UNIQUE, record TEXT NOT NULL);",
    /* 3: partitions changed at run time (scontrol update PartitionName=) */
    "CREATE TABLE partitions (name TEXT PRIMARY KEY, settings TEXT NOT NULL);",
    /* 4: fair-share usage per user association (prio_usage.c) */
    "CREATE TABLE fs_usage (key TEXT PRIMARY KEY, usage REAL NOT NULL);",
    /* 5: what preemptors hold of their victims' resources (preempt_drv.c) */
    "CREATE TABLE preempt_holds (job INTEGER NOT NULL, task INTEGER NOT NULL,"
    " record TEXT NOT NULL, PRIMARY KEY (job, task));",
    /* 6: job steps (queue/steps.c): the batch step and srun's, one JSON
     * record each */
    "CREATE TABLE steps (job_id INTEGER NOT NULL, step_id INTEGER NOT NULL,"
    " record TEXT NOT NULL, PRIMARY KEY (job_id, step_id));",
    /* 7: advance reservations (cluster/resv.c), one JSON record each */
    "CREATE TABLE reservations (name TEXT PRIMARY KEY, record TEXT NOT NULL);",
};

struct persist {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *st[ST_COUNT];
    bool in_txn;
    bool failed; /* a write of the open transaction failed */
    char failed_why[160];
    void (*on_commit)(void *); /* persist_on_commit's */
    void *on_commit_arg;
};

void persist_note_error(struct persist *p, int rc)
{
    switch (rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOMEM:
    case SQLITE_NOTADB:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
        break;
    default:
        return; /* a refusal of this statement only */
    }
    if (!p->in_txn || p->failed)
        return;
    p->failed = true;
    snprintf(p->failed_why, sizeof(p->failed_why), "%s",
             p->db ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
}

static int db_error(struct persist *p, int rc, const char *what, struct err *e)
{
    persist_note_error(p, rc);
    errno = rc == SQLITE_FULL ? ENOSPC : EIO;
    return err_set(e, "%s: %s: %s", p->path, what,
                   p->db ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
}

static sqlite3_stmt *stmt(struct persist *p, enum stmt_id id)
{
    sqlite3_stmt *s = p->st[id];

    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

/* step a statement that returns no rows */
static int exec_stmt(struct persist *p, sqlite3_stmt *s, const char *what,
                     struct err *e)
{
    int rc = sqlite3_step(s);

    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return db_error(p, rc, what, e);
    return 0;
}

static int exec_sql(struct persist *p, const char *sql, struct err *e)
{
    char *msg = NULL;
    int rc = sqlite3_exec(p->db, sql, NULL, NULL, &msg);

    if (rc != SQLITE_OK) {
        errno = EIO;
        err_set(e, "%s: %s", p->path, msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int schema_version(struct persist *p, int *version, struct err *e)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (exec_sql(p,
                 "CREATE TABLE IF NOT EXISTS schema_version"
                 " (version INTEGER NOT NULL)",
                 e) < 0)
        return -1;
    rc = sqlite3_prepare_v2(p->db, "SELECT max(version) FROM schema_version",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return db_error(p, rc, "schema version", e);
    rc = sqlite3_step(s);
    *version = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    return 0;
}

/* Bring the schema up to PERSIST_SCHEMA_VERSION, one version per step. */
static int migrate(struct persist *p, struct err *e)
{
    int version = 0;
    char sql[128];

    if (schema_version(p, &version, e) < 0)
        return -1;
    if (version > PERSIST_SCHEMA_VERSION) {
        errno = EPROTONOSUPPORT;
        return err_set(e,
                       "%s: schema version %d is newer than this "
                       "sluicectld knows (%d)",
                       p->path, version, PERSIST_SCHEMA_VERSION);
    }
    for (; version < PERSIST_SCHEMA_VERSION; version++) {
        snprintf(sql, sizeof(sql), "INSERT INTO schema_version VALUES (%d)",
                 version + 1);
        if (exec_sql(p, "BEGIN IMMEDIATE", e) < 0)
            return -1;
        if (exec_sql(p, migrations[version], e) < 0 ||
            exec_sql(p, sql, e) < 0 || exec_sql(p, "COMMIT", e) < 0) {
            exec_sql(p, "ROLLBACK", NULL);
            return err_prefix(e, "migrating to schema %d", version + 1);
        }
        log_info("persist db=%s schema=%d", p->path, version + 1);
    }
    return 0;
}

static int prepare_all(struct persist *p, struct err *e)
{
    for (int i = 0; i < ST_COUNT; i++) {
        int rc = sqlite3_prepare_v3(p->db, stmt_sql[i], -1,
                                    SQLITE_PREPARE_PERSISTENT, &p->st[i], NULL);
        if (rc != SQLITE_OK)
            return db_error(p, rc, stmt_sql[i], e);
    }
    return 0;
}

/* One of them (created when create is set): absent, or ours (not a
 * database someone else seeded with jobs of their choosing), then 0600. */
static int private_file(const char *f, bool create, struct err *e)
{
    int flags = create ? O_RDWR | O_CREAT : O_RDONLY;
    int fd = open(f, flags | O_NOFOLLOW | O_CLOEXEC, 0600), rc = 0;
    struct stat st;

    if (fd < 0)
        return errno == ENOENT ? 0 : err_set(e, "%s: %s", f, strerror(errno));
    if (fstat(fd, &st) < 0) {
        rc = err_set(e, "%s: %s", f, strerror(errno));
    } else if (st.st_uid != geteuid()) {
        errno = EACCES;
        rc = err_set(e, "%s belongs to uid %u, not to uid %u running this", f,
                     (unsigned)st.st_uid, (unsigned)geteuid());
    } else if (fchmod(fd, 0600) < 0) {
        rc = err_set(e, "cannot chmod %s: %s", f, strerror(errno));
    }
    close(fd);
    return rc;
}

/* The database and its -wal and -shm files 0600 (they hold every job's
 * script and environment), whatever the umask: the database is created
 * here (SQLite takes an empty file for a new database) and SQLite gives
 * -wal and -shm its mode; files an older version left readable are
 * fixed. */
static int private_files(const char *path, struct err *e)
{
    static const char *const sfx[] = {"", "-wal", "-shm"};
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        char *f = xasprintf("%s%s", path, sfx[i]);
        rc = private_file(f, i == 0, e);
        free(f);
    }
    return rc;
}

struct persist *persist_open(const char *dir, struct err *e)
{
    struct persist *p = xcalloc(1, sizeof(*p));
    int rc;

    p->path = xasprintf("%s/%s", dir, PERSIST_DB_NAME);
    if (private_files(p->path, e) < 0)
        goto error;
    rc = sqlite3_open_v2(
        p->path, &p->db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        db_error(p, rc, "cannot open", e);
        goto error;
    }
    /* WAL + FULL: each COMMIT fsyncs the WAL; checkpoints run automatically
     * every 1000 pages and fsync the database before the WAL is reused. */
    if (exec_sql(p,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                 " PRAGMA foreign_keys=ON; PRAGMA wal_autocheckpoint=1000;",
                 e) < 0)
        goto error;
    sqlite3_busy_timeout(p->db, 5000);
    if (migrate(p, e) < 0 || prepare_all(p, e) < 0)
        goto error;
    return p;
error:
    persist_close(p);
    return NULL;
}

void persist_close(struct persist *p)
{
    int saved = errno;

    if (p == NULL)
        return;
    if (p->in_txn)
        exec_sql(p, "ROLLBACK", NULL);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(p->st[i]);
    sqlite3_close(p->db);
    free(p->path);
    free(p);
    errno = saved;
}

int persist_begin(struct persist *p, struct err *e)
{
    if (p->in_txn)
        return 0;
    if (exec_stmt(p, stmt(p, ST_BEGIN), "BEGIN", e) < 0)
        return -1;
    p->in_txn = true;
    return 0;
}

struct sqlite3 *persist_sqlite(struct persist *p)
{
    return p->db;
}

bool persist_in_txn(const struct persist *p)
{
    return p->in_txn;
}

void persist_on_commit(struct persist *p, void (*fn)(void *), void *arg)
{
    p->on_commit = fn;
    p->on_commit_arg = arg;
}

int persist_commit(struct persist *p, struct err *e)
{
    if (!p->in_txn)
        return 0;
    if (p->on_commit != NULL)
        p->on_commit(p->on_commit_arg);
    if (p->failed) {
        p->in_txn = false;
        p->failed = false;
        if (!sqlite3_get_autocommit(p->db))
            exec_stmt(p, stmt(p, ST_ROLLBACK), "ROLLBACK", NULL);
        errno = EIO;
        return err_set(e,
                       "%s: not committed, a write of this transaction "
                       "failed: %s",
                       p->path, p->failed_why);
    }
    p->in_txn = false;
    if (exec_stmt(p, stmt(p, ST_COMMIT), "COMMIT", e) < 0) {
        int saved = errno;
        if (!sqlite3_get_autocommit(p->db))
            exec_stmt(p, stmt(p, ST_ROLLBACK), "ROLLBACK", NULL);
        errno = saved;
        return -1;
    }
    return 0;
}

int persist_meta_get(struct persist *p, const char *key, uint64_t *v,
                     struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_META_GET);
    int rc;

    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *v = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(p, rc, "reading meta", e);
    return 0;
}

int persist_meta_set(struct persist *p, const char *key, uint64_t v,
                     struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_META_SET);

    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)v);
    return exec_stmt(p, s, "writing meta", e);
}

static void bind_job(sqlite3_stmt *s, const struct persist_job *j)
{
    sqlite3_bind_int64(s, 1, (sqlite3_int64)j->id);
    sqlite3_bind_text(s, 2, j->state, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, j->finished);
    sqlite3_bind_int64(s, 4, j->user_id);
    sqlite3_bind_text(s, 5, j->partition, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, (sqlite3_int64)j->submit_time);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)j->end_time);
    sqlite3_bind_text(s, 8, j->record, -1, SQLITE_STATIC);
}

int persist_job_insert(struct persist *p, const struct persist_job *j,
                       const char *payload, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_JOB_INSERT);

    bind_job(s, j);
    sqlite3_bind_text(s, 9, payload, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a new job", e);
}

int persist_job_update(struct persist *p, const struct persist_job *j,
                       struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_JOB_UPDATE);

    bind_job(s, j);
    if (exec_stmt(p, s, "updating a job", e) < 0)
        return -1;
    if (sqlite3_changes(p->db) != 1) {
        errno = ENOENT;
        return err_set(e, "%s: job %" PRIu64 " is not in the database", p->path,
                       j->id);
    }
    return 0;
}

int persist_job_event(struct persist *p, uint64_t job_id, time_t when,
                      const char *event, const char *detail, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_JOB_EVENT);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)when);
    sqlite3_bind_text(s, 3, event, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, detail ? detail : "", -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a job event", e);
}

int persist_job_purge(struct persist *p, uint64_t id, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_JOB_PURGE);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return exec_stmt(p, s, "purging a job's payload", e);
}

/* One text column of one row selected by id. */
static char *select_text(struct persist *p, enum stmt_id id, uint64_t job_id,
                         struct err *e)
{
    sqlite3_stmt *s = stmt(p, id);
    char *out = NULL;
    int rc;

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        out = xstrdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) {
        errno = ENOENT;
        err_set(e, "job %" PRIu64 " is not in the database", job_id);
    } else if (rc != SQLITE_ROW) {
        db_error(p, rc, "reading a job", e);
    }
    return out;
}

char *persist_job_payload(struct persist *p, uint64_t id, struct err *e)
{
    return select_text(p, ST_JOB_PAYLOAD, id, e);
}

char *persist_job_record(struct persist *p, uint64_t id, struct err *e)
{
    return select_text(p, ST_JOB_RECORD, id, e);
}

int persist_job_load(struct persist *p, size_t max_finished, persist_job_fn fn,
                     void *arg, struct err *e)
{
    static const char sql[] =
        "SELECT id, record FROM jobs WHERE finished = 0 UNION ALL "
        "SELECT * FROM (SELECT id, record FROM jobs WHERE finished = 1 "
        "ORDER BY id DESC LIMIT ?1) ORDER BY id";
    sqlite3_stmt *s = NULL;
    int rc, ret = 0;

    rc = sqlite3_prepare_v2(p->db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return db_error(p, rc, "loading jobs", e);
    sqlite3_bind_int64(s, 1, (sqlite3_int64)max_finished);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(s, 0);
        if (fn(arg, id, (const char *)sqlite3_column_text(s, 1)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "loading jobs", e);
    sqlite3_finalize(s);
    return ret;
}

int persist_job_events(struct persist *p, uint64_t id, persist_event_fn fn,
                       void *arg, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_JOB_EVENTS);
    int rc, ret = 0;

    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(arg, (time_t)sqlite3_column_int64(s, 0),
               (const char *)sqlite3_column_text(s, 1),
               (const char *)sqlite3_column_text(s, 2)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "reading job events", e);
    sqlite3_reset(s);
    return ret;
}

int persist_node_save(struct persist *p, const char *name, const char *state,
                      const char *reason, time_t reason_time, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_NODE_SAVE);

    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, state, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, reason ? reason : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)reason_time);
    return exec_stmt(p, s, "saving a node", e);
}

int persist_node_load(struct persist *p, persist_node_fn fn, void *arg,
                      struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_NODE_LOAD);
    int rc, ret = 0;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(arg, (const char *)sqlite3_column_text(s, 0),
               (const char *)sqlite3_column_text(s, 1),
               (const char *)sqlite3_column_text(s, 2),
               (time_t)sqlite3_column_int64(s, 3)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "loading nodes", e);
    sqlite3_reset(s);
    return ret;
}

int persist_part_save(struct persist *p, const char *name, const char *text,
                      struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_PART_SAVE);

    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a partition", e);
}

/* Each (name, text) row of statement id to fn, which may stop it with
 * -1; what names the rows in a database error. */
static int load_pairs(struct persist *p, enum stmt_id id, const char *what,
                      persist_part_fn fn, void *arg, struct err *e)
{
    sqlite3_stmt *s = stmt(p, id);
    int rc, ret = 0;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(arg, (const char *)sqlite3_column_text(s, 0),
               (const char *)sqlite3_column_text(s, 1)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, what, e);
    sqlite3_reset(s);
    return ret;
}

int persist_part_load(struct persist *p, persist_part_fn fn, void *arg,
                      struct err *e)
{
    return load_pairs(p, ST_PART_LOAD, "loading partitions", fn, arg, e);
}

int persist_hold_save(struct persist *p, uint64_t job, int64_t task,
                      const char *text, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_HOLD_SAVE);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)task);
    sqlite3_bind_text(s, 3, text, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a preemption hold", e);
}

int persist_hold_delete(struct persist *p, uint64_t job, int64_t task,
                        struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_HOLD_DELETE);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)task);
    return exec_stmt(p, s, "dropping a preemption hold", e);
}

int persist_hold_load(struct persist *p, persist_hold_fn fn, void *arg,
                      struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_HOLD_LOAD);
    int rc, ret = 0;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(arg, (uint64_t)sqlite3_column_int64(s, 0),
               (int64_t)sqlite3_column_int64(s, 1),
               (const char *)sqlite3_column_text(s, 2)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "loading preemption holds", e);
    sqlite3_reset(s);
    return ret;
}

int persist_job_scan(struct persist *p, uint64_t after_id, time_t from,
                     time_t to, persist_job_fn fn, void *arg, struct err *e)
{
    static const char sql[] =
        "SELECT id, record FROM jobs WHERE id > ?1 AND submit_time <= ?3 "
        "AND (end_time = 0 OR end_time >= ?2) ORDER BY id";
    sqlite3_stmt *s = NULL;
    int rc, ret = 0, r = 0;

    rc = sqlite3_prepare_v2(p->db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return db_error(p, rc, "scanning jobs", e);
    sqlite3_bind_int64(s, 1, (sqlite3_int64)after_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)from);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)to);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        r = fn(arg, (uint64_t)sqlite3_column_int64(s, 0),
               (const char *)sqlite3_column_text(s, 1));
        if (r != 0)
            break;
    }
    if (r < 0)
        ret = -1;
    else if (r == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "scanning jobs", e);
    sqlite3_finalize(s);
    return ret;
}

int persist_step_save(struct persist *p, uint64_t job_id, uint32_t step_id,
                      const char *record, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_STEP_SAVE);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)step_id);
    sqlite3_bind_text(s, 3, record, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a job step", e);
}

/* Rows of (job_id, step_id, record) from s, bound and ready, to fn. */
static int step_rows(struct persist *p, sqlite3_stmt *s, persist_step_fn fn,
                     void *arg, struct err *e)
{
    int rc, ret = 0;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(arg, (uint64_t)sqlite3_column_int64(s, 0),
               (uint32_t)sqlite3_column_int64(s, 1),
               (const char *)sqlite3_column_text(s, 2)) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = db_error(p, rc, "reading job steps", e);
    sqlite3_reset(s);
    return ret;
}

int persist_step_load_job(struct persist *p, uint64_t job_id,
                          persist_step_fn fn, void *arg, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_STEP_LOAD_JOB);

    sqlite3_bind_int64(s, 1, (sqlite3_int64)job_id);
    return step_rows(p, s, fn, arg, e);
}

int persist_step_load_running(struct persist *p, persist_step_fn fn, void *arg,
                              struct err *e)
{
    static const char sql[] =
        "SELECT s.job_id, s.step_id, s.record FROM steps s JOIN jobs j "
        "ON j.id = s.job_id WHERE j.finished = 0 ORDER BY s.job_id, s.step_id";
    sqlite3_stmt *s = NULL;
    int rc, ret;

    rc = sqlite3_prepare_v2(p->db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return db_error(p, rc, "loading job steps", e);
    ret = step_rows(p, s, fn, arg, e);
    sqlite3_finalize(s);
    return ret;
}

int persist_resv_save(struct persist *p, const char *name, const char *record,
                      struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_RESV_SAVE);

    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, record, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "saving a reservation", e);
}

int persist_resv_delete(struct persist *p, const char *name, struct err *e)
{
    sqlite3_stmt *s = stmt(p, ST_RESV_DELETE);

    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    return exec_stmt(p, s, "deleting a reservation", e);
}

int persist_resv_load(struct persist *p, persist_part_fn fn, void *arg,
                      struct err *e)
{
    return load_pairs(p, ST_RESV_LOAD, "loading reservations", fn, arg, e);
}
