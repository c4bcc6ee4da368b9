/*
 * Lowercase hexadecimal encoding and its decoder (hex.h), shared by the
 * auth key files and the step I/O keys.
 */
#include "common/hex.h"

void hex_encode(const uint8_t *p, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int hex_decode(const char *s, size_t len, uint8_t *out)
{
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(s[2 * i]);
        int lo = hexval(s[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}
