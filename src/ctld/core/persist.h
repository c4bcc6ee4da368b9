/*
 * The controller's durable state in SQLite (StateSaveLocation/sluice.db):
 * jobs, their accounting events, nodes' admin state and counters.  Callers
 * hand over JSON text and a few indexed columns, so that nothing here knows
 * struct job and another store (PostgreSQL) could replace this file.
 *
 * Writes go into one open transaction (persist_begin) that the controller
 * commits once per loop iteration (group commit).  The database runs in WAL
 * mode with synchronous=FULL: a COMMIT returns after the WAL is fsync'ed,
 * so a committed transaction survives a crash or power loss.
 */
#ifndef SLUICE_CTLD_PERSIST_H
#define SLUICE_CTLD_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

#define PERSIST_DB_NAME "sluice.db"
#define PERSIST_SCHEMA_VERSION 7

struct persist;

/*
 * persist_open: open (creating and migrating as needed) dir/sluice.db.
 * NULL with errno and e naming the file and SQLite's message.  Free with
 * persist_close (accepts NULL; an open transaction is rolled back).
 */
struct persist *persist_open(const char *dir, struct err *e);
void persist_close(struct persist *p);

/* persist_begin: open the iteration's transaction unless one is open. */
int persist_begin(struct persist *p, struct err *e);
bool persist_in_txn(const struct persist *p);
/* persist_sqlite: the open database handle, for the accounting store
 * (acct_store.c), which keeps its SQL in its own file. */
struct sqlite3;
struct sqlite3 *persist_sqlite(struct persist *p);
/* persist_note_error: a failed SQLite call (rc) by any module writing to
 * this database; an I/O-class failure (full disk, I/O error, corruption,
 * out of memory) inside the open transaction makes persist_commit refuse
 * it, since memory may already hold changes the database lost. */
void persist_note_error(struct persist *p, int rc);
/* persist_commit: commit the open transaction (0 when none is open).  On
 * failure the transaction is rolled back and -1 returned with e set. */
int persist_commit(struct persist *p, struct err *e);
/* persist_on_commit: fn(arg) runs first in each persist_commit of an open
 * transaction, and may still write to it (the job table's records changed
 * in it, each written once however often it changed).  One hook. */
void persist_on_commit(struct persist *p, void (*fn)(void *), void *arg);

/* Counters in the meta table ("next_job_id"); *v is left alone when the
 * key is absent. */
int persist_meta_get(struct persist *p, const char *key, uint64_t *v,
                     struct err *e);
int persist_meta_set(struct persist *p, const char *key, uint64_t v,
                     struct err *e);

/* The indexed columns of one job row; strings are borrowed. */
struct persist_job {
    uint64_t id;
    const char *state; /* "PENDING", ... */
    bool finished;     /* in a final state */
    uint32_t user_id;
    const char *partition;
    time_t submit_time;
    time_t end_time;    /* 0 while not ended */
    const char *record; /* the job's JSON, without payload */
};

/*
 * persist_job_insert: a new job with its record and its payload (JSON
 * text with script, argv and environment; stored once, read back only
 * to launch).  Inside the open transaction.
 */
int persist_job_insert(struct persist *p, const struct persist_job *j,
                       const char *payload, struct err *e);
/* persist_job_update: new state columns and record for an existing job. */
int persist_job_update(struct persist *p, const struct persist_job *j,
                       struct err *e);
/* persist_job_event: one accounting event ("submit", "start", ...). */
int persist_job_event(struct persist *p, uint64_t job_id, time_t when,
                      const char *event, const char *detail, struct err *e);

/*
 * persist_job_purge: drop the payload of a job that can never run again
 * (script, argv, environment: secrets, and most of the bytes); the record
 * and the events, which accounting shows, stay.
 */
int persist_job_purge(struct persist *p, uint64_t id, struct err *e);

/*
 * persist_job_payload: the payload stored at insert, a new string the
 * caller frees.  NULL with ENOENT when there is no such job.
 */
char *persist_job_payload(struct persist *p, uint64_t id, struct err *e);
/* persist_job_record: a job's record (caller frees); NULL/ENOENT. */
char *persist_job_record(struct persist *p, uint64_t id, struct err *e);

/*
 * persist_job_load: call fn for every unfinished job and the newest
 * max_finished finished ones, in ascending id order.  fn returns 0 to go
 * on; its -1 stops the load and is returned.
 */
typedef int (*persist_job_fn)(void *arg, uint64_t id, const char *record);
int persist_job_load(struct persist *p, size_t max_finished, persist_job_fn fn,
                     void *arg, struct err *e);

/*
 * persist_job_scan: call fn for each job with id > after_id whose life
 * (submit to end, or to now while it has not ended) overlaps [from, to],
 * in ascending id order, committed or in the open transaction.  fn
 * returns 0 to go on, 1 to stop; its -1 stops the scan and is returned.
 */
int persist_job_scan(struct persist *p, uint64_t after_id, time_t from,
                     time_t to, persist_job_fn fn, void *arg, struct err *e);

/* Events of one job in time order: fn(arg, when, event, detail). */
typedef int (*persist_event_fn)(void *arg, time_t when, const char *event,
                                const char *detail);
int persist_job_events(struct persist *p, uint64_t id, persist_event_fn fn,
                       void *arg, struct err *e);

/* Admin state of a node: state is "" (none), "DRAIN" or "DOWN". */
int persist_node_save(struct persist *p, const char *name, const char *state,
                      const char *reason, time_t reason_time, struct err *e);
typedef int (*persist_node_fn)(void *arg, const char *name, const char *state,
                               const char *reason, time_t reason_time);
int persist_node_load(struct persist *p, persist_node_fn fn, void *arg,
                      struct err *e);

/* Run-time settings of a partition (parts.h): JSON text, one row per
 * partition name, replaced whole. */
int persist_part_save(struct persist *p, const char *name, const char *text,
                      struct err *e);
typedef int (*persist_part_fn)(void *arg, const char *name, const char *text);
int persist_part_load(struct persist *p, persist_part_fn fn, void *arg,
                      struct err *e);

/*
 * Preemption holds (preempt_drv.c): one row per waiting preemptor (job,
 * and array task or -1), its record JSON text (docs/preemption.md),
 * replaced whole; deleted when the hold ends.  persist_hold_load calls
 * fn(arg, job, task, record) for each, in (job, task) order.
 */
typedef int (*persist_hold_fn)(void *arg, uint64_t job, int64_t task,
                               const char *record);
int persist_hold_save(struct persist *p, uint64_t job, int64_t task,
                      const char *text, struct err *e);
int persist_hold_delete(struct persist *p, uint64_t job, int64_t task,
                        struct err *e);
int persist_hold_load(struct persist *p, persist_hold_fn fn, void *arg,
                      struct err *e);

/*
 * Job steps (queue/steps.c), schema 6: one row per (job, step) with the
 * step's record as JSON text, replaced whole on every change.
 * persist_step_load_job calls fn for each step of one job in step id
 * order (the batch step, 4294967291, last); persist_step_load_running
 * for every step of every unfinished job, in (job, step) order.  fn
 * returns 0 to go on; its -1 stops the load and is returned.
 */
typedef int (*persist_step_fn)(void *arg, uint64_t job_id, uint32_t step_id,
                               const char *record);
int persist_step_save(struct persist *p, uint64_t job_id, uint32_t step_id,
                      const char *record, struct err *e);
int persist_step_load_job(struct persist *p, uint64_t job_id,
                          persist_step_fn fn, void *arg, struct err *e);
int persist_step_load_running(struct persist *p, persist_step_fn fn, void *arg,
                              struct err *e);

/*
 * Advance reservations (cluster/resv.c), schema 7: one row per
 * reservation name with its record as JSON text, replaced whole;
 * deleted when the reservation is.  persist_resv_load calls fn(arg,
 * name, record) for each, in name order.
 */
int persist_resv_save(struct persist *p, const char *name, const char *record,
                      struct err *e);
int persist_resv_delete(struct persist *p, const char *name, struct err *e);
int persist_resv_load(struct persist *p, persist_part_fn fn, void *arg,
                      struct err *e);

#endif
