/*
 * Unit tests for struct err: messages for people out of failed calls.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_prefix),
        cmocka_unit_test(test_null_and_truncation),
        cmocka_unit_test(test_inval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
