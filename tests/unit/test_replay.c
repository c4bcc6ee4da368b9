/*
 * Unit tests for the replay cache: replays are caught, entries expire,
 * the cache grows, and when full it refuses rather than forgets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/replay.h"

static void nonce_of(uint32_t i, uint8_t n[REPLAY_NONCE_LEN])
{
    memset(n, 0xa5, REPLAY_NONCE_LEN);
    memcpy(n, &i, sizeof(i));
}

static void test_replay_detected(void **state)
{
    struct replay *r = replay_create(100);
    uint8_t n[REPLAY_NONCE_LEN];

    (void)state;
    nonce_of(1, n);
    assert_int_equal(replay_add(r, n, 1300, 1000), 0);
    assert_int_equal(replay_add(r, n, 1300, 1000), -1);
    assert_int_equal(errno, EEXIST);
    /* Still caught on the last second of its life. */
    assert_int_equal(replay_add(r, n, 1300, 1300), -1);
    assert_int_equal(errno, EEXIST);
    nonce_of(2, n);
    assert_int_equal(replay_add(r, n, 1300, 1000), 0);
    assert_int_equal(replay_count(r), 2);
    replay_destroy(r);
    replay_destroy(NULL);
}

static void test_replay_expiry_sweeps(void **state)
{
    struct replay *r = replay_create(100);
    uint8_t n[REPLAY_NONCE_LEN];

    (void)state;
    for (uint32_t i = 0; i < 50; i++) {
        nonce_of(i, n);
        assert_int_equal(replay_add(r, n, 1000 + i, 900), 0);
    }
    assert_int_equal(replay_count(r), 50);
    /* At time 1025 the entries expiring at 1000..1024 are gone. */
    nonce_of(1000, n);
    assert_int_equal(replay_add(r, n, 2000, 1025), 0);
    assert_int_equal(replay_count(r), 26);
    replay_destroy(r);
}

static void test_replay_grows_and_finds_all(void **state)
{
    struct replay *r = replay_create(50000);
    uint8_t n[REPLAY_NONCE_LEN];

    (void)state;
    for (uint32_t i = 0; i < 40000; i++) {
        nonce_of(i * 2654435761u, n);
        assert_int_equal(replay_add(r, n, 5000, 1000), 0);
    }
    for (uint32_t i = 0; i < 40000; i++) {
        nonce_of(i * 2654435761u, n);
        assert_int_equal(replay_add(r, n, 5000, 1000), -1);
        assert_int_equal(errno, EEXIST);
    }
    assert_int_equal(replay_count(r), 40000);
    replay_destroy(r);
}

static void test_replay_full_refuses(void **state)
{
    struct replay *r = replay_create(4);
    uint8_t n[REPLAY_NONCE_LEN];

    (void)state;
    for (uint32_t i = 0; i < 4; i++) {
        nonce_of(i, n);
        assert_int_equal(replay_add(r, n, 1300, 1000), 0);
    }
    /* A fifth evicts nonce 0 early and raises the floor to 1300. */
    nonce_of(4, n);
    assert_int_equal(replay_add(r, n, 1301, 1000), 0);
    assert_int_equal(replay_count(r), 4);
    /* Nonce 0 is no longer held, but it is refused, not admitted. */
    nonce_of(0, n);
    assert_int_equal(replay_add(r, n, 1300, 1000), -1);
    assert_int_equal(errno, ESTALE);
    /* A credential living past the floor is still accepted. */
    nonce_of(5, n);
    assert_int_equal(replay_add(r, n, 1302, 1000), 0);
    replay_destroy(r);
}

/* Deletions in the middle of probe chains must not hide later entries. */
static void test_replay_churn(void **state)
{
    struct replay *r = replay_create(1000);
    uint8_t n[REPLAY_NONCE_LEN];

    (void)state;
    for (uint32_t t = 0; t < 20000; t++) {
        nonce_of(t, n);
        assert_int_equal(replay_add(r, n, (int64_t)t + 500, t), 0);
        if (t >= 400) {
            nonce_of(t - 400, n);
            assert_int_equal(replay_add(r, n, (int64_t)t + 100, t), -1);
            assert_int_equal(errno, EEXIST);
        }
    }
    assert_true(replay_count(r) <= 1000);
    replay_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_detected),
        cmocka_unit_test(test_replay_expiry_sweeps),
        cmocka_unit_test(test_replay_grows_and_finds_all),
        cmocka_unit_test(test_replay_full_refuses),
        cmocka_unit_test(test_replay_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
