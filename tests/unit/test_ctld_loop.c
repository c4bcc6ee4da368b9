/*
 * Group commit (ctld/core/loop.c) on a real event base and a temporary
 * database: loop_write opens the transaction and arms the flush, output is
 * held (loop_holding) while it is open, the flush runs once however often
 * it is armed, a wish for a pass reaches exactly one flush (one made during
 * a flush, a later one), and a transaction left open too long is reported
 * old.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctld/core/loop.h"
#include "ctld/core/persist.h"

static char dir[] = "/tmp/sluice-test-loop.XXXXXX";

struct fx {
    struct event_base *base;
    struct persist *persist;
    struct loop *loop;
    int flushes;
    int passes;
    bool want_again; /* the flush asks for another pass, once */
};

/* The root's part: count, commit (as ctld.c's flush does). */
static void flush(void *arg, bool pass)
{
    struct fx *f = arg;
    struct err e;

    f->flushes++;
    f->passes += pass;
    if (f->want_again) {
        f->want_again = false;
        loop_want_pass(f->loop);
    }
    if (persist_commit(f->persist, &e) < 0)
        fail_msg("persist_commit: %s", e.text);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;

    strcpy(dir, "/tmp/sluice-test-loop.XXXXXX");
    if (f == NULL || mkdtemp(dir) == NULL)
        return -1;
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    f->persist = persist_open(dir, &e);
    if (f->persist == NULL)
        fail_msg("persist_open: %s", e.text);
    f->loop = loop_create(f->base, f->persist, NULL, flush, f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[256];

    loop_destroy(f->loop);
    persist_close(f->persist);
    event_base_free(f->base);
    free(f);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* One turn of the event loop: what is active runs. */
static void turn(struct fx *f)
{
    event_base_loop(f->base, EVLOOP_NONBLOCK);
}

static void test_write_holds_until_flush(void **state)
{
    struct fx *f = *state;
    struct err e;

    assert_false(loop_holding(f->loop));
    assert_int_equal(loop_write(f->loop, &e), 0);
    assert_true(loop_holding(f->loop));
    assert_int_equal(loop_write(f->loop, &e), 0); /* already open */
    assert_true(persist_in_txn(f->persist));
    turn(f);
    assert_int_equal(f->flushes, 1);
    assert_int_equal(f->passes, 0);
    assert_false(loop_holding(f->loop));
    turn(f); /* nothing armed: nothing runs */
    assert_int_equal(f->flushes, 1);
}

static void test_kick_once_per_turn(void **state)
{
    struct fx *f = *state;

    loop_kick(f->loop);
    loop_kick(f->loop);
    turn(f);
    assert_int_equal(f->flushes, 1);
    loop_kick(f->loop);
    turn(f);
    assert_int_equal(f->flushes, 2);
    assert_int_equal(f->passes, 0);
}

static void test_want_pass(void **state)
{
    struct fx *f = *state;

    loop_want_pass(f->loop);
    loop_want_pass(f->loop);
    turn(f);
    assert_int_equal(f->flushes, 1);
    assert_int_equal(f->passes, 1);
    loop_kick(f->loop); /* no wish: a flush without a pass */
    turn(f);
    assert_int_equal(f->flushes, 2);
    assert_int_equal(f->passes, 1);
    /* a wish made during a flush re-arms it: it is not lost (libevent
     * runs the re-armed flush in the same turn or the next) */
    f->want_again = true;
    loop_kick(f->loop);
    turn(f);
    turn(f);
    assert_int_equal(f->flushes, 4);
    assert_int_equal(f->passes, 2);
}

static void test_txn_old(void **state)
{
    struct fx *f = *state;
    struct err e;

    assert_false(loop_txn_old(f->loop));
    assert_int_equal(loop_write(f->loop, &e), 0);
    assert_false(loop_txn_old(f->loop));
    usleep((LOOP_TXN_MAX_MS + 10) * 1000);
    assert_true(loop_txn_old(f->loop));
    loop_flush(f->loop); /* what the I/O path does then */
    assert_int_equal(f->flushes, 1);
    assert_false(loop_txn_old(f->loop));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_holds_until_flush, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kick_once_per_turn, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_want_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_txn_old, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
