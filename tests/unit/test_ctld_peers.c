/*
 * The controller's connection limits (ctld/peers.c): their
 * SchedulerParameters keys, and connection counts per peer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/net/peers.h"

static const struct {
    const char *params;
    int rc;
    uint32_t max_conns, per_peer, idle_s, frame_s;
    const char *error; /* a part of the message */
} cases[] = {
    {"", 0, PEERS_MAX_CONNS, PEERS_MAX_PER_PEER, PEERS_IDLE_S, PEERS_FRAME_S,
     NULL},
    {"bf_window=60,bf_continue", 0, PEERS_MAX_CONNS, PEERS_MAX_PER_PEER,
     PEERS_IDLE_S, PEERS_FRAME_S, NULL},
    {"max_connections=20000,max_connections_per_user=64,"
     "conn_idle_timeout=60,conn_read_timeout=5",
     0, 20000, 64, 60, 5, NULL},
    {"bf_window=60,MAX_CONNECTIONS=100", 0, 100, PEERS_MAX_PER_PEER,
     PEERS_IDLE_S, PEERS_FRAME_S, NULL},
    {"max_connections=0", -1, 0, 0, 0, 0,
     "SchedulerParameters: max_connections=0 is not in 16..1048576"},
    {"max_connections_per_user=x", -1, 0, 0, 0, 0,
     "max_connections_per_user=x is not in"},
    {"conn_read_timeout=", -1, 0, 0, 0, 0, "conn_read_timeout= is not in"},
    {"conn_idle_timeout=4", -1, 0, 0, 0, 0, "conn_idle_timeout=4 is not in 5"},
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct peers_limits l = {0};
        struct err e = {0};
        int rc = peers_limits_parse(cases[i].params, &l, &e);

        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d (%s)", cases[i].params, rc, e.text);
        if (rc < 0) {
            if (strstr(e.text, cases[i].error) == NULL)
                fail_msg("\"%s\": \"%s\" lacks \"%s\"", cases[i].params, e.text,
                         cases[i].error);
            continue;
        }
        assert_int_equal(l.max_conns, cases[i].max_conns);
        assert_int_equal(l.max_per_peer, cases[i].per_peer);
        assert_int_equal(l.idle_s, cases[i].idle_s);
        assert_int_equal(l.frame_s, cases[i].frame_s);
    }
}

static void test_counts(void **state)
{
    struct peers *p = peers_create();
    char key[32];

    (void)state;
    for (int i = 0; i < 10000; i++) {
        snprintf(key, sizeof(key), "addr:10.0.%d.%d", i / 256, i % 256);
        assert_int_equal(peers_add(p, key), 1);
    }
    assert_int_equal(peers_add(p, "uid:1000"), 1);
    assert_int_equal(peers_add(p, "uid:1000"), 2);
    assert_int_equal(peers_count(p, "uid:1000"), 2);
    assert_int_equal(peers_count(p, "uid:1001"), 0);
    assert_int_equal(peers_total(p), 10002);
    peers_del(p, "uid:1000");
    peers_del(p, "uid:1000");
    peers_del(p, "uid:1000"); /* one too many: nothing happens */
    assert_int_equal(peers_count(p, "uid:1000"), 0);
    assert_int_equal(peers_total(p), 10000);
    peers_destroy(p);
    peers_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
