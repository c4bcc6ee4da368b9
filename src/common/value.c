/*
 * Scalar values of configuration files and command lines: integers,
 * booleans and memory sizes, strict about signs, blanks and trailing junk.
 */
#include "common/value.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int value_digits_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n == 0) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            errno = EINVAL;
            return -1;
        }
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            errno = ERANGE;
            return -1;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* quote_byte: the escaped form of c into out (at most 5 bytes); length. */
static size_t quote_byte(unsigned char c, char *out)
{
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c < 0x20 || c >= 0x7f) {
        snprintf(out, 5, "\\x%02x", c);
        return 4;
    }
    out[0] = (char)c;
    return 1;
}

char *value_quote(const char *s, char *buf, size_t len)
{
    static const char cut[] = "...";
    size_t need = 0, room, n = 0;
    char tmp[5];

    if (len == 0)
        return buf;
    for (const char *p = s; *p != '\0'; p++)
        need += quote_byte((unsigned char)*p, tmp);
    /* When s does not fit whole, keep room for the cut mark. */
    room = len - 1;
    if (need > room)
        room = room > sizeof(cut) - 1 ? room - (sizeof(cut) - 1) : 0;
    for (; *s != '\0'; s++) {
        size_t k = quote_byte((unsigned char)*s, tmp);
        if (n + k > room)
            break;
        memcpy(buf + n, tmp, k);
        n += k;
    }
    if (need > len - 1 && len > sizeof(cut) - 1) {
        memcpy(buf + n, cut, sizeof(cut) - 1);
        n += sizeof(cut) - 1;
    }
    buf[n] = '\0';
    return buf;
}

int value_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
                    struct err *e)
{
    char q[VALUE_QUOTE_MAX];
    uint64_t v;

    if (value_digits_u64(s, strlen(s), &v) < 0) {
        if (errno == ERANGE)
            return err_set(e, "bad number \"%s\": too large (max %" PRIu64 ")",
                           value_quote(s, q, sizeof(q)), max);
        return err_set(e, "bad number \"%s\": expected a decimal integer",
                       value_quote(s, q, sizeof(q)));
    }
    if (v < min || v > max) {
        errno = ERANGE;
        return err_set(
            e, "bad number \"%s\": must be between %" PRIu64 " and %" PRIu64,
            value_quote(s, q, sizeof(q)), min, max);
    }
    *out = v;
    return 0;
}

int value_parse_bool(const char *s, bool *out, struct err *e)
{
    static const char *const yes[] = {"yes", "true", "on", "1"};
    static const char *const no[] = {"no", "false", "off", "0"};
    char q[VALUE_QUOTE_MAX];

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    errno = EINVAL;
    return err_set(e,
                   "bad boolean \"%s\": expected YES, NO, TRUE, FALSE, ON, "
                   "OFF, 1 or 0",
                   value_quote(s, q, sizeof(q)));
}

/* mem_shift: log2 of the unit of suffix c in KiB, or -1. */
static int mem_shift(char c)
{
    switch (c) {
    case 'k':
    case 'K':
        return 0;
    case 'm':
    case 'M':
        return 10;
    case 'g':
    case 'G':
        return 20;
    case 't':
    case 'T':
        return 30;
    default:
        return -1;
    }
}

/* mem_scale: v units of 2^shift KiB as MiB (KiB round up); -1 ERANGE. */
static int mem_scale(uint64_t v, int shift, uint64_t *mib)
{
    if (shift == 0) {
        *mib = v / 1024 + (v % 1024 != 0);
        return 0;
    }
    shift -= 10;
    if (v > (UINT64_MAX >> shift)) {
        errno = ERANGE;
        return -1;
    }
    *mib = v << shift;
    return 0;
}

int value_parse_mem_mib(const char *s, uint64_t *out, struct err *e)
{
    char q[VALUE_QUOTE_MAX];
    size_t ndig = strspn(s, "0123456789");
    const char *rest = s + ndig;
    int shift = 10;
    uint64_t v, mib;

    if (value_digits_u64(s, ndig, &v) < 0)
        goto error;
    if (*rest != '\0') {
        shift = mem_shift(*rest++);
        if (shift < 0) {
            errno = EINVAL;
            goto error;
        }
        if (*rest == 'b' || *rest == 'B')
            rest++;
        if (*rest != '\0') {
            errno = EINVAL;
            goto error;
        }
    }
    if (mem_scale(v, shift, &mib) < 0)
        goto error;
    *out = mib;
    return 0;
error:
    if (errno == ERANGE)
        return err_set(e, "bad memory size \"%s\": too large",
                       value_quote(s, q, sizeof(q)));
    return err_set(e,
                   "bad memory size \"%s\": expected a number with an "
                   "optional K, M, G or T suffix",
                   value_quote(s, q, sizeof(q)));
}
