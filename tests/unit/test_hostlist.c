/*
 * Unit tests for hostlist expressions: expansion, its errors and bounds,
 * sorting, and compression that expands back to the same names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/hostlist.h"

/* expand_join: expr expanded and joined with ','; NULL on error. */
static char *expand_join(const char *expr, struct err *e)
{
    struct hostlist *hl = hostlist_expand(expr, e);
    char *s;

    if (hl == NULL)
        return NULL;
    s = hostlist_join(hl, ",");
    hostlist_destroy(hl);
    return s;
}

static void test_expand(void **state)
{
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"", ""},
        {"node1", "node1"},
        {"node[01-04]", "node01,node02,node03,node04"},
        {"node[1,3-5,9]", "node1,node3,node4,node5,node9"},
        {"gpu-a[01-02],gpu-b7", "gpu-a01,gpu-a02,gpu-b7"},
        {"r[1-2]n[01-02]", "r1n01,r1n02,r2n01,r2n02"},
        {"node[08-10]", "node08,node09,node10"},
        {"node[8-10]", "node8,node9,node10"},
        {"node[001-002]", "node001,node002"},
        {"node[3-3]", "node3"},
        {"[1-3]", "1,2,3"},
        {"a[1-2]-ib", "a1-ib,a2-ib"},
        {"a[1]b[2]c", "a1b2c"},
        {"node[0]", "node0"},
        {"n[2,1]", "n2,n1"},
        {"n1,n1", "n1,n1"},
        {"x[1-2]y[1-2]z[1-2]", "x1y1z1,x1y1z2,x1y2z1,x1y2z2,x2y1z1,x2y1z2,"
                               "x2y2z1,x2y2z2"},
        {"a.b_c-d[1-2]", "a.b_c-d1,a.b_c-d2"},
        {"n[1-2,5],m[7]", "n1,n2,n5,m7"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        char *got = expand_join(cases[i].expr, &e);
        if (got == NULL)
            fail_msg("%s: %s", cases[i].expr, e.text);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

static void test_expand_errors(void **state)
{
    static const struct {
        const char *expr;
        int errnum;
        const char *msg;
    } cases[] = {
        {"node[01-4", EINVAL, "\"node[01-4\": unterminated '['"},
        {"node[", EINVAL, "unterminated '['"},
        {"node[1-", EINVAL, "unterminated '['"},
        {"node[1,2", EINVAL, "unterminated '['"},
        {"node1]", EINVAL, "\"node1]\": stray ']'"},
        {"node[1,,2]", EINVAL, "\"node[1,,2]\": empty range"},
        {"node[]", EINVAL, "empty range"},
        {"node[,1]", EINVAL, "empty range"},
        {"node[5-3]", EINVAL, "\"node[5-3]\": descending range"},
        {"node[a-b]", EINVAL, "expected digits"},
        {"node[1-b]", EINVAL, "expected digits"},
        {"node[1-2-3]", EINVAL, "expected ',' or ']'"},
        {"node[1[2]]", EINVAL, "nested '['"},
        {"a,,b", EINVAL, "empty name"},
        {",a", EINVAL, "empty name"},
        {"a,", EINVAL, "empty name"},
        {",", EINVAL, "empty name"},
        {"no de1", EINVAL, "\"no de1\": bad character"},
        {"node1 ", EINVAL, "bad character"},
        {"ok1,bad\tname", EINVAL, "\"bad\\x09name\": bad character"},
        {"a\x01", EINVAL, "\"a\\x01\": bad character"},
        {"caf\xc3\xa9", EINVAL, "bad character"},
        {"n[1234567890123456789]", EINVAL, "too long"},
        {"n[0-99999999]", E2BIG, "\"n[0-99999999]\": more than 65536"},
        {"n[0-65536]", E2BIG, "more than 65536"},
        {"a[1-300]b[1-300]", E2BIG, "more than 65536"},
        {"n[0-40000],m[0-40000]", E2BIG, "more than 65536"},
        {"a[1-9]b[1-9]c[1-9]d[1-9]e[1-9]f[1-9]", E2BIG, "more than 65536"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {""};
        errno = 0;
        struct hostlist *hl = hostlist_expand(cases[i].expr, &e);
        if (hl != NULL)
            fail_msg("%s: expanded, expected an error", cases[i].expr);
        assert_int_equal(errno, cases[i].errnum);
        if (strstr(e.text, cases[i].msg) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].expr, e.text,
                     cases[i].msg);
    }
}

static void test_bounds(void **state)
{
    char name[HOSTLIST_MAX_NAME + 8];
    struct err e;
    struct hostlist *hl;

    (void)state;
    /* Exactly the maximum is fine; one more is not, and fails fast. */
    hl = hostlist_expand("n[1-65536]", &e);
    assert_non_null(hl);
    assert_int_equal(hostlist_count(hl), HOSTLIST_MAX_HOSTS);
    assert_string_equal(hostlist_nth(hl, 65535), "n65536");
    assert_null(hostlist_nth(hl, 65536));
    /* The list's own count counts too, and a failed push changes nothing. */
    assert_int_equal(hostlist_push(hl, "m1", &e), -1);
    assert_int_equal(errno, E2BIG);
    assert_int_equal(hostlist_count(hl), HOSTLIST_MAX_HOSTS);
    hostlist_destroy(hl);

    memset(name, 'a', HOSTLIST_MAX_NAME);
    name[HOSTLIST_MAX_NAME] = '\0';
    hl = hostlist_expand(name, &e);
    assert_non_null(hl);
    hostlist_destroy(hl);
    strcpy(name + HOSTLIST_MAX_NAME - 2, "[9-10]");
    hl = hostlist_expand(name, &e); /* 256 characters at most */
    assert_non_null(hl);
    hostlist_destroy(hl);
    memset(name, 'a', HOSTLIST_MAX_NAME);
    strcpy(name + HOSTLIST_MAX_NAME - 1, "[9-10]");
    assert_null(hostlist_expand(name, &e));
    assert_int_equal(errno, E2BIG);
    assert_non_null(strstr(e.text, "name too long"));

    errno = EPERM;
    hostlist_destroy(NULL);
    assert_int_equal(errno, EPERM);
}

static void test_push_find(void **state)
{
    struct hostlist *hl = hostlist_create();
    struct err e;

    (void)state;
    assert_int_equal(hostlist_count(hl), 0);
    assert_int_equal(hostlist_push(hl, "a[1-2]", &e), 0);
    hostlist_push_host(hl, "b");
    assert_int_equal(hostlist_push(hl, "c[1-", &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(hostlist_count(hl), 3);
    assert_int_equal(hostlist_find(hl, "a2"), 1);
    assert_int_equal(hostlist_find(hl, "b"), 2);
    assert_int_equal(hostlist_find(hl, "c1"), -1);
    char *s = hostlist_join(hl, " ");
    assert_string_equal(s, "a1 a2 b");
    free(s);
    hostlist_destroy(hl);
}

/* list_of: a list from names joined by ',' (no brackets). */
static struct hostlist *list_of(const char *csv)
{
    struct hostlist *hl = hostlist_create();
    char *copy = strdup(csv), *save = NULL;

    for (char *t = strtok_r(copy, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save))
        hostlist_push_host(hl, t);
    free(copy);
    return hl;
}

static void test_sort_uniq(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", ""},
        {"node10,node9,node1", "node1,node9,node10"},
        {"b1,a2,a10,a2", "a2,a10,b1"},
        {"node01,node1,node2,node02", "node1,node01,node2,node02"},
        {"gpu,gpu1,gpu", "gpu,gpu1"},
        {"r2n01,r1n02,r1n01", "r1n01,r1n02,r2n01"},
        {"n2-ib,n1-eth,n1-ib,n2-eth", "n1-eth,n2-eth,n1-ib,n2-ib"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hostlist *hl = list_of(cases[i].in);
        hostlist_sort_uniq(hl);
        char *got = hostlist_join(hl, ",");
        assert_string_equal(got, cases[i].want);
        free(got);
        hostlist_destroy(hl);
    }
}

static void test_compress(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", ""},
        {"node1", "node1"},
        {"node01,node02,node03,node05", "node[01-03,05]"},
        {"node01,node02,node03,gpu-b7", "node[01-03],gpu-b7"},
        {"node1,node01", "node1,node01"},
        {"node8,node9,node10", "node[8-10]"},
        {"node08,node09,node10", "node[08-10]"},
        {"node9,node10,node011", "node[9-10],node011"},
        {"r1n01,r1n02,r2n01,r2n02", "r1n[01-02],r2n[01-02]"},
        {"a1-ib,a2-ib,a3-eth", "a[1-2]-ib,a3-eth"},
        {"1,2,3", "[1-3]"},
        {"gpu,gpu", "gpu,gpu"},
        {"n3,n1", "n[3,1]"},
        {"n1,n1", "n[1,1]"},
        {"n0000000000000000000001,n0000000000000000000002",
         "n0000000000000000000001,n0000000000000000000002"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hostlist *hl = list_of(cases[i].in);
        char *got = hostlist_compress(hl);
        assert_string_equal(got, cases[i].want);
        /* Compression keeps order, so even unsorted lists come back. */
        char *back = expand_join(got, NULL);
        assert_non_null(back);
        assert_string_equal(back, cases[i].in);
        free(back);
        free(got);
        hostlist_destroy(hl);
    }
}

/* round_trip: sort_uniq(expand(expr)) compresses to want, which expands
 * back to the same names. */
static void round_trip(const char *expr, const char *want)
{
    struct err e = {""};
    struct hostlist *hl = hostlist_expand(expr, &e);

    if (hl == NULL)
        fail_msg("%s: %s", expr, e.text);
    hostlist_sort_uniq(hl);
    char *c = hostlist_compress(hl);
    if (want != NULL)
        assert_string_equal(c, want);
    struct hostlist *back = hostlist_expand(c, &e);
    if (back == NULL)
        fail_msg("%s -> %s: %s", expr, c, e.text);
    char *a = hostlist_join(hl, ","), *b = hostlist_join(back, ",");
    assert_string_equal(a, b);
    free(a);
    free(b);
    free(c);
    hostlist_destroy(back);
    hostlist_destroy(hl);
}

static void test_round_trip(void **state)
{
    static const struct {
        const char *expr, *want; /* want NULL: any form that expands back */
    } cases[] = {
        {"node[01-04]", "node[01-04]"},
        {"node[1,3-5,9]", "node[1,3-5,9]"},
        {"gpu-b7,gpu-a[01-02]", "gpu-a[01-02],gpu-b7"},
        {"r[1-2]n[01-02]", "r1n[01-02],r2n[01-02]"},
        {"node[08-10]", "node[08-10]"},
        {"n[10-1000],n[1-9]", "n[1-1000]"},
        {"n[1-5],n[3-8],n[2]", "n[1-8]"},
        {"n[01-03],n[1-3]", "n1,n01,n2,n02,n3,n03"},
        {"n[098-101]", "n[098-101]"},
        {"n[98-101]", "n[98-101]"},
        {"a[1-3]-ib,a[1-3]-eth", "a[1-3]-eth,a[1-3]-ib"},
        {"x,y,z[1-2]", "x,y,z[1-2]"},
        {"[0-2],[00-02]", "0,00,1,01,2,02"}, /* value before width */
        {"n[0-65535]", "n[0-65535]"},
        {"n[000000000000000001-000000000000000003]",
         "n[000000000000000001-000000000000000003]"},
        {"a[1-9]b[1-9]c[1-9]", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        round_trip(cases[i].expr, cases[i].want);
}

/* A small deterministic generator, so failures reproduce. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

static void test_random_round_trip(void **state)
{
    static const char *const pre[] = {"node", "gpu-a", "r1n", "", "x.y_"};
    static const char *const suf[] = {"", "", "-ib", "z"};

    (void)state;
    for (int iter = 0; iter < 2000; iter++) {
        struct hostlist *hl = hostlist_create();
        int n = (int)rnd(60) + 1;
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof(name), "%s%0*u%s", pre[rnd(5)], (int)rnd(4),
                     rnd(3) ? rnd(30) : rnd(2000), suf[rnd(4)]);
            hostlist_push_host(hl, name);
        }
        hostlist_sort_uniq(hl);
        char *c = hostlist_compress(hl);
        struct err e;
        struct hostlist *back = hostlist_expand(c, &e);
        if (back == NULL)
            fail_msg("iter %d: %s: %s", iter, c, e.text);
        char *a = hostlist_join(hl, ","), *b = hostlist_join(back, ",");
        if (strcmp(a, b) != 0)
            fail_msg("iter %d: %s\n  compressed %s\n  expanded %s", iter, a, c,
                     b);
        /* Compressing again gives the same text. */
        char *c2 = hostlist_compress(back);
        assert_string_equal(c, c2);
        free(a);
        free(b);
        free(c);
        free(c2);
        hostlist_destroy(back);
        hostlist_destroy(hl);
    }
}

static void test_fail_fast(void **state)
{
    struct err e;
    clock_t start = clock();

    (void)state;
    assert_null(hostlist_expand("n[0-999999999999999999]", &e));
    assert_int_equal(errno, E2BIG);
    assert_null(hostlist_expand("a[0-99999999]b[0-99999999]", &e));
    assert_int_equal(errno, E2BIG);
    /* Well under a second: nothing was generated. */
    assert_true((clock() - start) < CLOCKS_PER_SEC / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_expand_errors),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_push_find),
        cmocka_unit_test(test_sort_uniq),
        cmocka_unit_test(test_compress),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_fail_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
