/*
 * libFuzzer target for the small parsers: time limits, GRES strings,
 * scalar values and srun --pty's window sizes.  The first byte picks the
 * parser; whatever parses must print canonically and parse back to the
 * same value.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/stepio.h"
#include "common/timefmt.h"
#include "common/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 1024

static void fuzz_time(const char *s)
{
    char buf[TIMEFMT_BUFLEN];
    int64_t secs, back;
    struct err e;

    if (timefmt_parse(s, &secs, &e) < 0)
        return;
    timefmt_format(secs, buf, sizeof(buf));
    if (timefmt_parse(buf, &back, &e) < 0 || back != secs)
        abort();
}

static void fuzz_gres(const char *s)
{
    struct gres_list l, back;
    char buf[8192];
    struct err e;

    if (gres_parse(s, &l, &e) < 0)
        return;
    gres_format(&l, buf, sizeof(buf));
    if (gres_parse(buf, &back, &e) < 0 || memcmp(&l, &back, sizeof(l)) != 0)
        abort();
}

/* srun --pty's WINSIZE data: what parses prints back to the same bytes
 * (the form is canonical). */
static void fuzz_winsize(const char *s, size_t len)
{
    char buf[STEPIO_WINSIZE_MAX];
    uint16_t rows, cols;
    struct err e;

    if (stepio_winsize_parse(s, len, &rows, &cols, &e) < 0)
        return;
    if (stepio_winsize_format(rows, cols, buf) != len ||
        memcmp(buf, s, len) != 0)
        abort();
}

static void fuzz_scalars(const char *s)
{
    char q[VALUE_QUOTE_MAX];
    struct err e;
    uint64_t v;
    bool b;

    value_parse_u64(s, 0, UINT64_MAX, &v, &e);
    value_parse_bool(s, &b, &e);
    value_parse_mem_mib(s, &v, &e);
    if (strlen(value_quote(s, q, sizeof(q))) >= sizeof(q))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;

    if (size == 0 || size > FUZZ_MAX_INPUT)
        return 0;
    s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    switch (data[0] % 4) {
    case 0:
        fuzz_time(s);
        break;
    case 1:
        fuzz_gres(s);
        break;
    case 3:
        fuzz_winsize(s, size - 1);
        break;
    default:
        fuzz_scalars(s);
        break;
    }
    free(s);
    return 0;
}
