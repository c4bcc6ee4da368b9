/*
 * Unit tests for common/hex: bytes to lowercase digits and back, either
 * case read, and the digits that are not hex refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/hex.h"

static void test_encode(void **state)
{
    static const uint8_t bytes[] = {0x00, 0x0f, 0xa5, 0xff};
    char out[2 * sizeof(bytes) + 1];

    (void)state;
    hex_encode(bytes, sizeof(bytes), out);
    assert_string_equal(out, "000fa5ff");
    hex_encode(bytes, 0, out);
    assert_string_equal(out, "");
}

static void test_decode(void **state)
{
    static const struct {
        const char *text;
        int rc;
        uint8_t want[2];
    } cases[] = {
        {"00ff", 0, {0x00, 0xff}}, {"A5c3", 0, {0xa5, 0xc3}}, {"0g12", -1, {0}},
        {"12 4", -1, {0}},         {"-123", -1, {0}},         {"12:4", -1, {0}},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t out[2];

        assert_int_equal(hex_decode(cases[i].text, 2, out), cases[i].rc);
        if (cases[i].rc == 0)
            assert_memory_equal(out, cases[i].want, 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_decode),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
