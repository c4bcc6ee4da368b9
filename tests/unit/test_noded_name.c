/*
 * Unit tests for sluiced's node name resolution: -N, the host name (full
 * and short), NodeHostname, and the one-line refusal with the expansion
 * and the nearest name (the seed's node1 vs node[01-04] pitfall).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noded/name.h"

static struct conf *parse(const char *text)
{
    struct err e;
    struct conf *c =
        conf_parse_string(text, "/etc/sluice/sluice.conf", NULL, &e);

    if (c == NULL)
        fail_msg("conf: %s", e.text);
    return c;
}

static const char *seed_conf =
    "ClusterName=t\nSlurmctldHost=master\n"
    "NodeName=node[01-04] CPUs=16 RealMemory=64000\n"
    "PartitionName=gpu Nodes=node[01-04] Default=YES\n";

static void test_seed_pitfall_message(void **state)
{
    struct conf *c = parse(seed_conf);
    const struct conf_node *n = NULL;
    struct err e;

    (void)state;
    assert_int_equal(
        name_resolve(c, "/etc/sluice/sluice.conf", NULL, "node1", &n, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(
        e.text, "hostname \"node1\" is not a NodeName in "
                "/etc/sluice/sluice.conf (NodeName=node[01-04] is "
                "node01,node02,node03,node04); did you mean \"node01\"? "
                "Rename the host, add NodeHostname=node1, or start with -N "
                "node01");
    assert_int_equal(
        name_resolve(c, "x.conf", NULL, "node3.lab.example", &n, &e), -1);
    assert_non_null(strstr(e.text, "hostname \"node3.lab.example\""));
    assert_non_null(strstr(e.text, "did you mean \"node03\"? Rename the host, "
                                   "add NodeHostname=node3, or start with -N "
                                   "node03"));
    conf_destroy(c);
}

static void test_resolve_ok(void **state)
{
    struct conf *c = parse(seed_conf);
    const struct conf_node *n = NULL;
    struct err e;

    (void)state;
    assert_int_equal(name_resolve(c, "x", NULL, "node02", &n, &e), 0);
    assert_string_equal(n->name, "node02");
    assert_int_equal(name_resolve(c, "x", NULL, "node04.cluster.local", &n, &e),
                     0);
    assert_string_equal(n->name, "node04");
    assert_int_equal(name_resolve(c, "x", "node03", "whatever", &n, &e), 0);
    assert_string_equal(n->name, "node03");
    conf_destroy(c);
}

static void test_requested_unknown(void **state)
{
    struct conf *c = parse(seed_conf);
    const struct conf_node *n = NULL;
    struct err e;

    (void)state;
    assert_int_equal(name_resolve(c, "a.conf", "node5", "node01", &n, &e), -1);
    assert_string_equal(e.text,
                        "-N node5: no NodeName \"node5\" in a.conf "
                        "(NodeName=node[01-04] is node01,node02,node03,node04);"
                        " did you mean \"node04\"?");
    conf_destroy(c);
}

static void test_node_hostname(void **state)
{
    struct conf *c = parse("ClusterName=t\nSlurmctldHost=m\n"
                           "NodeName=n1 NodeHostname=gpu-a CPUs=1\n"
                           "NodeName=n2 NodeHostname=gpu-b CPUs=1\n"
                           "NodeName=n3 NodeHostname=shared CPUs=1\n"
                           "NodeName=n4 NodeHostname=shared CPUs=1\n"
                           "PartitionName=p Nodes=n[1-4]\n");
    const struct conf_node *n = NULL;
    struct err e;

    (void)state;
    assert_int_equal(name_resolve(c, "x", NULL, "gpu-b.example.org", &n, &e),
                     0);
    assert_string_equal(n->name, "n2");
    assert_int_equal(name_resolve(c, "x", NULL, "shared", &n, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "NodeHostname of several nodes"));
    assert_int_equal(name_resolve(c, "x", "n4", "shared", &n, &e), 0);
    assert_string_equal(n->name, "n4");
    conf_destroy(c);
}

static void test_nearest(void **state)
{
    struct conf *c = parse("ClusterName=t\nSlurmctldHost=m\n"
                           "NodeName=node[01-12] CPUs=1\n"
                           "NodeName=gpu[1-2] CPUs=1\n"
                           "PartitionName=p Nodes=ALL\n");
    static const struct {
        const char *host, *want;
    } cases[] = {
        {"node1", "node01"},  {"node10", "node10"}, {"node7", "node07"},
        {"nodo03", "node03"}, {"gpu01", "gpu1"},    {"gpu2", "gpu2"},
        {"Node11", "node11"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = name_nearest(c, cases[i].host);
        if (got == NULL || strcmp(got, cases[i].want) != 0)
            fail_msg("nearest(%s) = %s, want %s", cases[i].host,
                     got ? got : "NULL", cases[i].want);
    }
    conf_destroy(c);
}

static void test_score(void **state)
{
    (void)state;
    assert_int_equal(name_distance("", ""), 0);
    assert_int_equal(name_distance("kitten", "sitting"), 3);
    assert_int_equal(name_distance("node1", "node01"), 1);
    /* equal numbers after stripping zero padding win the tie */
    assert_true(name_score("node1", "node01") < name_score("node1", "node10"));
    assert_true(name_score("node1", "node01") < name_score("node1", "node11"));
    assert_int_equal(name_score("node01", "node01"), 0);
}

static void test_describe(void **state)
{
    struct conf *c = parse("ClusterName=t\nSlurmctldHost=m\n"
                           "NodeName=node[01-12] CPUs=1\n"
                           "NodeName=gpu[1-2] CPUs=1\n"
                           "PartitionName=p Nodes=ALL\n");
    char *d;

    (void)state;
    d = name_describe(c, 4);
    assert_string_equal(d, "NodeName=node[01-12] is "
                           "node01,node02,node03,node04,...; "
                           "NodeName=gpu[1-2] is gpu1,gpu2");
    free(d);
    conf_destroy(c);
}

static void test_many_lines_fit(void **state)
{
    char text[8192] = "ClusterName=t\nSlurmctldHost=m\n";
    const struct conf_node *n;
    struct conf *c;
    struct err e;

    (void)state;
    for (int i = 0; i < 40; i++) {
        char line[128];
        snprintf(line, sizeof(line), "NodeName=rack%02d-node[001-100] CPUs=1\n",
                 i);
        strcat(text, line);
    }
    strcat(text, "PartitionName=p Nodes=ALL\n");
    c = parse(text);
    assert_int_equal(name_resolve(c, "/etc/sluice/sluice.conf", NULL,
                                  "rack07-node5", &n, &e),
                     -1);
    /* the advice at the end survives a long description */
    assert_non_null(strstr(e.text, "; ...)"));
    assert_non_null(strstr(e.text, "did you mean \"rack07-node005\"? Rename "
                                   "the host, add NodeHostname=rack07-node5, "
                                   "or start with -N rack07-node005"));
    conf_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_pitfall_message),
        cmocka_unit_test(test_resolve_ok),
        cmocka_unit_test(test_requested_unknown),
        cmocka_unit_test(test_node_hostname),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_many_lines_fit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
