/*
 * Unit tests for struct err: messages for people out of failed calls.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/err.h"

static void test_set_and_prefix(void **state)
{
    struct err e;

    (void)state;
    errno = ENOENT;
    assert_int_equal(
        err_set(&e, "NodeName=%s: unterminated range", "node[01-4"), -1);
    assert_int_equal(errno, ENOENT);
    err_prefix(&e, "%s:%d", "sluice.conf", 12);
    assert_string_equal(e.text,
                        "sluice.conf:12: NodeName=node[01-4: unterminated "
                        "range");
    assert_int_equal(errno, ENOENT);
}

static void test_null_and_truncation(void **state)
{
    struct err e;
    char big[2 * ERR_TEXT_MAX];

    (void)state;
    assert_int_equal(err_set(NULL, "ignored"), -1);
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    err_set(&e, "%s", big);
    assert_int_equal(strlen(e.text), ERR_TEXT_MAX - 1);
    err_clear(&e);
    assert_string_equal(e.text, "");
}

static void test_inval(void **state)
{
    struct err e;

    (void)state;
    errno = 0;
    assert_int_equal(err_inval(&e, "job %d: bad %s", 7, "time"), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "job 7: bad time");
    errno = 0;
    assert_int_equal(err_inval(NULL, "nobody reads %s", "this"), -1);
    assert_int_equal(errno, EINVAL);
}

/* A cut never splits a character, so the text always makes a JSON
 * string (finding 20): a path of 3-byte characters over the buffer. */
static void test_cut_on_utf8_boundary(void **state)
{
    char path[2 * ERR_TEXT_MAX] = "/";
    struct err e;
    json_t *j;

    (void)state;
    while (strlen(path) + 3 < sizeof(path))
        strcat(path, "\xe6\x97\xa5");
    for (int pad = 0; pad < 3; pad++) {
        err_set(&e, "%.*scannot open %s", pad, "xx", path);
        assert_true(strlen(e.text) >= ERR_TEXT_MAX - 3);
        j = json_string(e.text);
        assert_non_null(j);
        json_decref(j);
        err_set(&e, "short");
        err_prefix(&e, "%.*s%s", pad, "xx", path);
        j = json_string(e.text);
        assert_non_null(j);
        json_decref(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_prefix),
        cmocka_unit_test(test_null_and_truncation),
        cmocka_unit_test(test_inval),
        cmocka_unit_test(test_cut_on_utf8_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
