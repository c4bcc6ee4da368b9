/*
 * UTF-8 checks, boundary-safe cuts and escaping for display; see utf8.h.
 * The accepted forms are those of Unicode's table 3-7 (the ones jansson
 * accepts too).
 */
#include "common/utf8.h"

#include <string.h>

#include "common/xalloc.h"

size_t utf8_seq(const char *s, size_t n, bool *cut)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char lo = 0x80, hi = 0xbf;
    size_t need;

    if (cut != NULL)
        *cut = false;
    if (n == 0)
        return 0;
    if (u[0] < 0x80)
        return 1;
    if (u[0] >= 0xc2 && u[0] <= 0xdf)
        need = 2;
    else if (u[0] >= 0xe0 && u[0] <= 0xef)
        need = 3;
    else if (u[0] >= 0xf0 && u[0] <= 0xf4)
        need = 4;
    else
        return 0;
    /* the second byte's range rules out overlongs, surrogates and
     * code points above U+10FFFF */
    if (u[0] == 0xe0)
        lo = 0xa0;
    else if (u[0] == 0xed)
        hi = 0x9f;
    else if (u[0] == 0xf0)
        lo = 0x90;
    else if (u[0] == 0xf4)
        hi = 0x8f;
    for (size_t i = 1; i < need; i++) {
        if (i >= n || u[i] == '\0') {
            if (cut != NULL)
                *cut = true;
            return 0;
        }
        if (u[i] < (i == 1 ? lo : 0x80) || u[i] > (i == 1 ? hi : 0xbf))
            return 0;
    }
    return need;
}

char *utf8_fix(char *s)
{
    size_t len = strlen(s);

    for (size_t i = 0; i < len;) {
        bool cut;
        size_t k = utf8_seq(s + i, len - i, &cut);
        if (k > 0) {
            i += k;
        } else if (cut) {
            s[i] = '\0';
            break;
        } else {
            s[i++] = '?';
        }
    }
    return s;
}

char *utf8_copy(char *buf, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);

    memcpy(buf, src, n);
    buf[n] = '\0';
    return utf8_fix(buf);
}

/* The escape of the character of k bytes at s into out (at least 3
 * bytes); returns its length. */
static size_t escape_one(const char *s, size_t k, char *out)
{
    const unsigned char *u = (const unsigned char *)s;

    if (k == 1 && (u[0] < 0x20 || u[0] == 0x7f)) {
        out[0] = '^';
        out[1] = (char)(u[0] ^ 0x40);
        return 2;
    }
    if (k == 0 || (k == 2 && u[0] == 0xc2 && u[1] <= 0x9f)) {
        out[0] = '?';
        return 1;
    }
    memcpy(out, s, k);
    return k;
}

bool utf8_needs_escape(const char *s)
{
    size_t len = strlen(s);

    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(s + i, len - i, NULL);
        char tmp[4];
        if (k == 0 || escape_one(s + i, k, tmp) != k ||
            memcmp(tmp, s + i, k) != 0)
            return true;
        i += k;
    }
    return false;
}

char *utf8_escape_buf(const char *s, char *buf, size_t size)
{
    size_t len = strlen(s), o = 0;

    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(s + i, len - i, NULL);
        char tmp[4];
        size_t m = escape_one(s + i, k, tmp);
        if (o + m >= size)
            break;
        memcpy(buf + o, tmp, m);
        o += m;
        i += k ? k : 1;
    }
    buf[o] = '\0';
    return buf;
}

char *utf8_escape(const char *s)
{
    size_t size;

    if (s == NULL)
        return NULL;
    size = 2 * strlen(s) + 1; /* an escape is at most twice its input */
    return utf8_escape_buf(s, xmalloc(size), size);
}
