/*
 * Scalar values of configuration and command lines: integers, booleans,
 * memory sizes.  Each parser fails with errno EINVAL (or ERANGE) and a
 * message in e that says what was expected.
 */
#ifndef SLUICE_VALUE_H
#define SLUICE_VALUE_H

#include <stdbool.h>
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

#endif
