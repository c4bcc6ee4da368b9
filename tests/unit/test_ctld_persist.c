/*
 * The controller's SQLite store on a temporary directory: what is
 * committed comes back after reopening, what is not committed does not,
 * jobs load in id order with a cap on finished ones, and events, payloads,
 * counters and node admin states round-trip.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctld/core/persist.h"

static char dir[] = "/tmp/sluice-test-persist.XXXXXX";

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/sluice-test-persist.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[256];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct persist *open_db(void)
{
    struct err e;
    struct persist *p = persist_open(dir, &e);

    if (p == NULL)
        fail_msg("persist_open: %s", e.text);
    return p;
}

static void insert(struct persist *p, uint64_t id, bool finished)
{
    char rec[64];
    struct persist_job row = {.id = id,
                              .state = finished ? "COMPLETED" : "PENDING",
                              .finished = finished,
                              .user_id = 1000,
                              .partition = "dev",
                              .submit_time = 100,
                              .record = rec};
    struct err e;

    snprintf(rec, sizeof(rec), "{\"job_id\":%llu}", (unsigned long long)id);
    assert_int_equal(
        persist_job_insert(p, &row, "{\"script\":\"#!/bin/sh\"}", &e), 0);
}

struct seen {
    uint64_t ids[64];
    int64_t tasks[64];
    size_t n;
};

static int collect(void *arg, uint64_t id, const char *record)
{
    struct seen *s = arg;
    char want[64];

    snprintf(want, sizeof(want), "{\"job_id\":%llu}", (unsigned long long)id);
    assert_string_equal(record, want);
    s->ids[s->n++] = id;
    return 0;
}

static void test_commit_survives_reopen(void **state)
{
    struct persist *p = open_db();
    struct seen s = {0};
    uint64_t next = 0;
    struct err e;

    (void)state;
    assert_int_equal(persist_begin(p, &e), 0);
    assert_true(persist_in_txn(p));
    insert(p, 1, false);
    insert(p, 2, true);
    insert(p, 3, false);
    assert_int_equal(persist_meta_set(p, "next_job_id", 4, &e), 0);
    assert_int_equal(persist_commit(p, &e), 0);
    assert_false(persist_in_txn(p));
    /* an uncommitted write is gone after close */
    assert_int_equal(persist_begin(p, &e), 0);
    insert(p, 4, false);
    persist_close(p);

    p = open_db();
    assert_int_equal(persist_job_load(p, 10, collect, &s, &e), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.ids[0], 1);
    assert_int_equal(s.ids[1], 2);
    assert_int_equal(s.ids[2], 3);
    assert_int_equal(persist_meta_get(p, "next_job_id", &next, &e), 0);
    assert_int_equal(next, 4);
    persist_close(p);
}

/* A write that failed for lack of space (or an I/O error) poisons the
 * transaction: the commit refuses it as a whole, so what memory did with
 * the other writes of that iteration is never half in the database. */
static void test_failed_write_refuses_commit(void **state)
{
    struct persist *p = open_db();
    struct seen s = {0};
    struct err e;

    (void)state;
    assert_int_equal(persist_begin(p, &e), 0);
    insert(p, 1, false);
    persist_note_error(p, 19 /* SQLITE_CONSTRAINT: this statement only */);
    persist_note_error(p, 13 /* SQLITE_FULL */);
    insert(p, 2, false);
    assert_int_equal(persist_commit(p, &e), -1);
    assert_int_equal(errno, EIO);
    assert_non_null(strstr(e.text, "not committed"));
    assert_false(persist_in_txn(p));
    /* the next transaction is a fresh one */
    assert_int_equal(persist_begin(p, &e), 0);
    insert(p, 3, false);
    assert_int_equal(persist_commit(p, &e), 0);
    persist_close(p);

    p = open_db();
    assert_int_equal(persist_job_load(p, 10, collect, &s, &e), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.ids[0], 3);
    persist_close(p);
}

static void test_finished_cap_and_update(void **state)
{
    struct persist *p = open_db();
    struct seen s = {0};
    struct persist_job row = {.id = 2,
                              .state = "COMPLETED",
                              .finished = true,
                              .partition = "dev",
                              .record = "{\"job_id\":2}"};
    struct err e;

    (void)state;
    assert_int_equal(persist_begin(p, &e), 0);
    for (uint64_t id = 1; id <= 6; id++)
        insert(p, id, id % 2 == 0); /* 2, 4, 6 finished */
    assert_int_equal(persist_job_update(p, &row, &e), 0);
    row.id = 99;
    assert_int_equal(persist_job_update(p, &row, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(persist_commit(p, &e), 0);
    /* unfinished 1, 3, 5 and the newest finished one, 6 */
    assert_int_equal(persist_job_load(p, 1, collect, &s, &e), 0);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.ids[0], 1);
    assert_int_equal(s.ids[1], 3);
    assert_int_equal(s.ids[2], 5);
    assert_int_equal(s.ids[3], 6);
    persist_close(p);
}

static int count_events(void *arg, time_t when, const char *event,
                        const char *detail)
{
    int *n = arg;

    if (*n == 0) {
        assert_int_equal(when, 10);
        assert_string_equal(event, "submit");
    } else {
        assert_int_equal(when, 20);
        assert_string_equal(event, "end");
        assert_string_equal(detail, "exit=0");
    }
    (*n)++;
    return 0;
}

static int check_node(void *arg, const char *name, const char *st,
                      const char *reason, time_t t)
{
    int *n = arg;

    assert_string_equal(name, "node01");
    assert_string_equal(st, "DRAIN");
    assert_string_equal(reason, "fan broken");
    assert_int_equal(t, 42);
    (*n)++;
    return 0;
}

static void test_events_payload_nodes(void **state)
{
    struct persist *p = open_db();
    struct err e;
    char *text;
    int n = 0;

    (void)state;
    assert_int_equal(persist_begin(p, &e), 0);
    insert(p, 7, false);
    assert_int_equal(persist_job_event(p, 7, 10, "submit", NULL, &e), 0);
    assert_int_equal(persist_job_event(p, 7, 20, "end", "exit=0", &e), 0);
    assert_int_equal(persist_node_save(p, "node01", "DOWN", "x", 1, &e), 0);
    assert_int_equal(
        persist_node_save(p, "node01", "DRAIN", "fan broken", 42, &e), 0);
    assert_int_equal(persist_commit(p, &e), 0);
    persist_close(p);

    p = open_db();
    assert_int_equal(persist_job_events(p, 7, count_events, &n, &e), 0);
    assert_int_equal(n, 2);
    text = persist_job_payload(p, 7, &e);
    assert_non_null(text);
    assert_string_equal(text, "{\"script\":\"#!/bin/sh\"}");
    free(text);
    assert_null(persist_job_payload(p, 8, &e));
    assert_int_equal(errno, ENOENT);
    n = 0;
    assert_int_equal(persist_node_load(p, check_node, &n, &e), 0);
    assert_int_equal(n, 1);
    persist_close(p);
}

static int collect_hold(void *arg, uint64_t id, int64_t task,
                        const char *record)
{
    struct seen *s = arg;

    s->tasks[s->n] = task;
    return collect(arg, id, record);
}

/* Preemption holds (schema 5): saved and replaced in a transaction,
 * read back after a reopen, deleted. */
static void test_preempt_holds(void **state)
{
    struct persist *p = open_db();
    struct seen s = {0};
    struct err e;

    (void)state;
    assert_int_equal(persist_begin(p, &e), 0);
    assert_int_equal(persist_hold_save(p, 7, -1, "{\"job_id\":1}", &e), 0);
    assert_int_equal(persist_hold_save(p, 7, -1, "{\"job_id\":7}", &e), 0);
    assert_int_equal(persist_hold_save(p, 9, 0, "{\"job_id\":9}", &e), 0);
    assert_int_equal(persist_hold_save(p, 9, 3, "{\"job_id\":9}", &e), 0);
    assert_int_equal(persist_commit(p, &e), 0);
    persist_close(p);

    p = open_db();
    assert_int_equal(persist_hold_load(p, collect_hold, &s, &e), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.ids[0], 7);
    assert_int_equal(s.ids[1], 9);
    assert_int_equal(s.tasks[1], 0);
    assert_int_equal(s.tasks[2], 3);
    assert_int_equal(persist_begin(p, &e), 0);
    assert_int_equal(persist_hold_delete(p, 7, -1, &e), 0);
    assert_int_equal(persist_hold_delete(p, 9, 0, &e), 0);
    assert_int_equal(persist_commit(p, &e), 0);
    s.n = 0;
    assert_int_equal(persist_hold_load(p, collect_hold, &s, &e), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.ids[0], 9);
    assert_int_equal(s.tasks[0], 3);
    persist_close(p);
}

static void test_unwritable_dir(void **state)
{
    struct err e;

    (void)state;
    assert_null(persist_open("/nonexistent/sluice", &e));
    assert_non_null(strstr(e.text, "/nonexistent/sluice/sluice.db"));
}

static mode_t mode_of(const char *name)
{
    char path[128];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* The database, -wal and -shm are 0600 whatever the umask, and a
 * readable one left by an older version is made so; a database of
 * another user is refused (when we can make one). */
static void test_private_files(void **state)
{
    char path[128];
    mode_t old = umask(022);
    struct persist *p = open_db();
    struct err e;

    (void)state;
    insert(p, 1, false);
    assert_int_equal(mode_of("sluice.db"), 0600);
    assert_int_equal(mode_of("sluice.db-wal"), 0600);
    assert_int_equal(mode_of("sluice.db-shm"), 0600);
    persist_close(p);
    snprintf(path, sizeof(path), "%s/sluice.db", dir);
    assert_int_equal(chmod(path, 0644), 0);
    p = open_db();
    assert_int_equal(mode_of("sluice.db"), 0600);
    persist_close(p);
    if (geteuid() == 0) {
        assert_int_equal(chown(path, 65534, 65534), 0);
        assert_null(persist_open(dir, &e));
        assert_non_null(strstr(e.text, "belongs to uid 65534"));
    }
    umask(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_survives_reopen, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_refuses_commit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_finished_cap_and_update, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_events_payload_nodes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_preempt_holds, setup, teardown),
        cmocka_unit_test(test_unwritable_dir),
        cmocka_unit_test_setup_teardown(test_private_files, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
