/*
 * Unit tests for GRES strings: the forms Slurm accepts, the errors people
 * see, totals, and the canonical print that parses back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/gres.h"

static void test_parse(void **state)
{
    static const struct {
        const char *s;
        size_t n;
        const char *name, *type, *sockets; /* of the last item */
        uint64_t count;
        const char *canon;
    } cases[] = {
        {"", 0, NULL, NULL, NULL, 0, ""},
        {"(null)", 0, NULL, NULL, NULL, 0, ""},
        {"gpu", 1, "gpu", "", "", 1, "gpu:1"},
        {"gpu:4", 1, "gpu", "", "", 4, "gpu:4"},
        {"gpu:0", 1, "gpu", "", "", 0, "gpu:0"},
        {"gpu:h200", 1, "gpu", "h200", "", 1, "gpu:h200:1"},
        {"gpu:h200:8", 1, "gpu", "h200", "", 8, "gpu:h200:8"},
        {"gpu:4(S:0-1)", 1, "gpu", "", "0-1", 4, "gpu:4(S:0-1)"},
        {"gpu:h200:8(S:0,2)", 1, "gpu", "h200", "0,2", 8, "gpu:h200:8(S:0,2)"},
        {"gpu(S:0)", 1, "gpu", "", "0", 1, "gpu:1(S:0)"},
        {"gpu:a100:2,gpu:h100:2", 2, "gpu", "h100", "", 2,
         "gpu:a100:2,gpu:h100:2"},
        {"gpu:1k", 1, "gpu", "", "", 1024, "gpu:1024"},
        {"mps:2M", 1, "mps", "", "", 2097152, "mps:2097152"},
        {"bw:3g", 1, "bw", "", "", 3221225472u, "bw:3221225472"},
        {"gpu:1g.5gb:7", 1, "gpu", "1g.5gb", "", 7, "gpu:1g.5gb:7"},
        {"gpu:a100-sxm4_80g:4", 1, "gpu", "a100-sxm4_80g", "", 4,
         "gpu:a100-sxm4_80g:4"},
        {"gpu:4(S:0-1),nic:1", 2, "nic", "", "", 1, "gpu:4(S:0-1),nic:1"},
        {"GPU:H200:1", 1, "GPU", "H200", "", 1, "GPU:H200:1"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gres_list l;
        struct err e = {""};
        char buf[512];
        if (gres_parse(cases[i].s, &l, &e) < 0)
            fail_msg("%s: %s", cases[i].s, e.text);
        assert_int_equal(l.n, cases[i].n);
        assert_string_equal(gres_format(&l, buf, sizeof(buf)), cases[i].canon);
        if (l.n == 0)
            continue;
        const struct gres_item *it = &l.items[l.n - 1];
        assert_string_equal(it->name, cases[i].name);
        assert_string_equal(it->type, cases[i].type);
        assert_string_equal(it->sockets, cases[i].sockets);
        assert_int_equal(it->count, cases[i].count);
        /* The canonical form parses back to the same list. */
        struct gres_list back;
        assert_int_equal(gres_parse(buf, &back, &e), 0);
        assert_memory_equal(&back, &l, sizeof(l));
    }
}

static void test_parse_errors(void **state)
{
    static const struct {
        const char *s, *msg;
    } cases[] = {
        {"gpu:x:y:z", "bad GRES \"gpu:x:y:z\": expected NAME[:TYPE][:COUNT]"},
        {"gpu:1:2:3", "expected NAME[:TYPE][:COUNT]"},
        {"gpu:h200:x", "\"gpu:h200:x\": expected NAME[:TYPE][:COUNT]"},
        {"gpu:", "\"gpu:\": empty name, type or count"},
        {":4", "\":4\": empty name"},
        {"gpu::4", "empty name, type or count"},
        {"gpu:h200:", "\"gpu:h200:\": count must be a non-negative integer"},
        {"gpu:-1", "\"gpu:-1\": count must be a non-negative integer"},
        {"gpu:h200:-1", "count must be a non-negative integer"},
        {"gpu:+1", "count must be a non-negative integer"},
        {"gpu:4(S:", "\"gpu:4(S:\": expected (S:SOCKETS)"},
        {"gpu:4(S:)", "expected (S:SOCKETS)"},
        {"gpu:4(X:0)", "expected (S:SOCKETS)"},
        {"gpu:4(S:0)x", "expected (S:SOCKETS)"},
        {"gpu:4(S:a)", "bad socket list"},
        {"gpu:4)", "bad character"},
        {"gpu:4,", "\"\": empty item"},
        {",gpu:4", "empty item"},
        {"gpu:4,,nic", "empty item"},
        {"4:gpu", "name must start with a letter"},
        {"g pu:4", "bad character"},
        {"gpu:h\x01", "\"gpu:h\\x01\": bad character"},
        {"gpu:99999999999999999999", "count too large"},
        {"gpu:99999999999999999k", "count too large"},
        {"gpu:t:1kb", "expected NAME[:TYPE][:COUNT]"},
        {"abcdefghijabcdefghijabcdefghijab:1", "too long"},
        {"gpu:abcdefghijabcdefghijabcdefghijab:1", "too long"},
        {"a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,a:1,"
         "a:1",
         "too many items (at most 16)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gres_list l;
        struct err e = {""};
        errno = 0;
        if (gres_parse(cases[i].s, &l, &e) == 0)
            fail_msg("%s: parsed", cases[i].s);
        assert_int_equal(errno, EINVAL);
        assert_int_equal(l.n, 0);
        if (strstr(e.text, cases[i].msg) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].s, e.text,
                     cases[i].msg);
    }
}

static void test_limits(void **state)
{
    char s[1024] = "";
    struct gres_list l;
    struct err e;

    (void)state;
    /* Exactly the maximum number of items, and a 31-character name. */
    for (int i = 0; i < GRES_MAX_ITEMS; i++)
        strcat(s, i ? ",gpu:1" : "gpu:1");
    assert_int_equal(gres_parse(s, &l, &e), 0);
    assert_int_equal(l.n, GRES_MAX_ITEMS);
    assert_int_equal(gres_count(&l, "gpu", NULL), GRES_MAX_ITEMS);
    assert_int_equal(gres_parse("abcdefghijabcdefghijabcdefghija:t:1", &l, &e),
                     0);
    /* A very long item is cut in the message but still reported. */
    memset(s, 'a', 600);
    s[600] = '\0';
    assert_int_equal(gres_parse(s, &l, &e), -1);
    assert_non_null(strstr(e.text, "too long"));
}

static void test_count(void **state)
{
    struct gres_list l;
    struct err e;

    (void)state;
    assert_int_equal(gres_parse("gpu:a100:2,gpu:h100:3,gpu:1,nic:4", &l, &e),
                     0);
    assert_int_equal(gres_count(&l, "gpu", NULL), 6);
    assert_int_equal(gres_count(&l, "gpu", ""), 6);
    assert_int_equal(gres_count(&l, "gpu", "h100"), 3);
    assert_int_equal(gres_count(&l, "gpu", "v100"), 0);
    assert_int_equal(gres_count(&l, "nic", NULL), 4);
    assert_int_equal(gres_count(&l, "mps", NULL), 0);
    assert_int_equal(gres_parse("a:17179869183G,a:17179869183G", &l, &e), 0);
    assert_int_equal(gres_count(&l, "a", NULL), UINT64_MAX);
}

static void test_format_short(void **state)
{
    struct gres_list l;
    struct err e;
    char buf[8];

    (void)state;
    assert_int_equal(gres_parse("gpu:h200:8,gpu:2", &l, &e), 0);
    assert_string_equal(gres_format(&l, buf, sizeof(buf)), "gpu:h20");
    assert_ptr_equal(gres_format(&l, buf, 0), buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_format_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
