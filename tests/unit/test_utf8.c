/*
 * Unit tests for common/utf8: escaping for terminals and logs, and cuts
 * that never split a character (audit findings 17 and 20).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/utf8.h"

static void test_escape_table(void **state)
{
    static const struct {
        const char *in, *out;
    } t[] = {
        {"", ""},
        {"plain job", "plain job"},
        {"x\033[2J\033]2;pwned\007", "x^[[2J^[]2;pwned^G"},
        {"a\nb\rc\td", "a^Jb^Mc^Id"},
        {"del\x7f", "del^?"},
        {"\x01\x1f", "^A^_"},
        {"csi\xc2\x9b"
         "31m",
         "csi?31m"},                      /* C1 CSI, U+009B */
        {"nel\xc2\x85", "nel?"},          /* C1 NEL, U+0085 */
        {"nbsp\xc2\xa0", "nbsp\xc2\xa0"}, /* U+00A0 is printable */
        {"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80",
         "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80"},
        {"bad\xff\xfe", "bad??"},
        {"lone\x80", "lone?"},
        {"overlong\xc0\xaf", "overlong??"},
        {"surrogate\xed\xa0\x80", "surrogate???"},
        {"cut\xe6\x97", "cut??"},
        {"^[ stays", "^[ stays"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *s = utf8_escape(t[i].in);
        assert_string_equal(s, t[i].out);
        assert_int_equal(utf8_needs_escape(t[i].in),
                         strcmp(t[i].in, t[i].out) != 0);
        assert_false(utf8_needs_escape(s));
        assert_null(memchr(s, '\033', strlen(s)));
        free(s);
    }
    assert_null(utf8_escape(NULL));
}

static void test_escape_buf_cuts_whole(void **state)
{
    char buf[6];

    (void)state;
    /* "ab" + "^[" fits 5 bytes; the next escape does not */
    assert_string_equal(utf8_escape_buf("ab\033\033", buf, sizeof(buf)),
                        "ab^[");
    assert_string_equal(utf8_escape_buf("abcd\xc3\xa9", buf, sizeof(buf)),
                        "abcd");
}

static void test_fix_table(void **state)
{
    static const struct {
        const char *in, *out;
    } t[] = {
        {"ok", "ok"},
        {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},
        {"cut \xe6\x97", "cut "}, /* cut short at the end: dropped */
        {"cut \xf0\x9f\x98", "cut "},
        {"bad \xff x", "bad ? x"}, /* elsewhere: '?' */
        {"\xe6\x97 mid", "?? mid"},
        {"ctl\033ok", "ctl\033ok"}, /* valid UTF-8: kept */
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        json_t *j;
        strcpy(buf, t[i].in);
        assert_string_equal(utf8_fix(buf), t[i].out);
        j = json_string(buf);
        assert_non_null(j);
        json_decref(j);
    }
}

/* The audit's case: a 3-byte character straddling the end of a fixed
 * buffer.  snprintf cuts it and json_string() refuses the result;
 * utf8_copy cuts before it. */
static void test_copy_on_boundary(void **state)
{
    char src[600], buf[512], raw[512];
    json_t *j;

    (void)state;
    memset(src, 'a', 509);
    strcpy(src + 509, "\xe6\x97\xa5\xe6\x97\xa5");
    memcpy(raw, src, sizeof(raw) - 1); /* what snprintf into 512 keeps */
    raw[sizeof(raw) - 1] = '\0';
    assert_null(json_string(raw));
    utf8_copy(buf, sizeof(buf), src);
    assert_int_equal(strlen(buf), 509);
    j = json_string(buf);
    assert_non_null(j);
    json_decref(j);
    utf8_copy(buf, 513 - 1, src);
    assert_int_equal(strlen(buf), 509);
    assert_string_equal(utf8_copy(buf, 1, src), "");
}

static void test_seq(void **state)
{
    bool cut;

    (void)state;
    assert_int_equal(utf8_seq("a", 1, &cut), 1);
    assert_int_equal(utf8_seq("\xc3\xa9", 2, &cut), 2);
    assert_int_equal(utf8_seq("\xf4\x8f\xbf\xbf", 4, &cut), 4);
    assert_int_equal(utf8_seq("\xf4\x90\x80\x80", 4, &cut), 0); /* >10FFFF */
    assert_false(cut);
    assert_int_equal(utf8_seq("\xe6\x97\xa5", 2, &cut), 0);
    assert_true(cut);
    assert_int_equal(utf8_seq("\xe6", 1, &cut), 0);
    assert_true(cut);
    assert_int_equal(utf8_seq("\xe6x", 2, &cut), 0);
    assert_false(cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_table),
        cmocka_unit_test(test_escape_buf_cuts_whole),
        cmocka_unit_test(test_fix_table),
        cmocka_unit_test(test_copy_on_boundary),
        cmocka_unit_test(test_seq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
