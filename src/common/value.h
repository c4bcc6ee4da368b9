/*
 * Scalar values of configuration and command lines: integers, booleans,
 * memory sizes.  Each parser fails with errno EINVAL (or ERANGE) and a
 * message in e that says what was expected.
 */
#ifndef SLUICE_VALUE_H
#define SLUICE_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* value_parse_u64: a decimal integer in [min, max]. */
int value_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
                    struct err *e);

/* value_parse_bool: YES/NO, TRUE/FALSE, ON/OFF, 1/0 (case-insensitive). */
int value_parse_bool(const char *s, bool *out, struct err *e);

/*
 * value_parse_mem_mib: a memory size in MiB: a number with an optional
 * K, M, G or T suffix (case-insensitive, optional trailing B; no suffix
 * means M, as in Slurm).  "64000" -> 64000, "4G" -> 4096, "512K" -> 1
 * (rounded up).
 */
int value_parse_mem_mib(const char *s, uint64_t *out, struct err *e);

/*
 * value_digits_u64: the n bytes at s, all decimal digits, as a number.
 * -1 with EINVAL when n is 0 or a byte is not a digit, ERANGE on overflow.
 * No message: the callers know what the digits were for.
 */
int value_digits_u64(const char *s, size_t n, uint64_t *out);

/*
 * value_quote: s made safe to quote in a message: bytes that are not
 * printable ASCII, '"' and '\\' are escaped (\x07), and a long s is cut
 * with "...".  Writes at most len bytes including the NUL; returns buf.
 */
char *value_quote(const char *s, char *buf, size_t len);

#define VALUE_QUOTE_MAX 96

#endif
