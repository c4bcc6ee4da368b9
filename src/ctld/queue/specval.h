/*
 * The optional fields of a SUBMIT body (JOBSPEC, docs/protocol.md), read
 * and checked one key at a time; a wrong type or value is EINVAL naming
 * the key ("job mincpus: -1 is out of range 0-65535").  Shared by
 * jobspec.c and jobspec_opts.c.
 */
#ifndef SLUICE_CTLD_SPECVAL_H
#define SLUICE_CTLD_SPECVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"

/* spec_given: key is there and not null. */
bool spec_given(json_t *spec, const char *key);
/* spec_len: string v (named what) is at most max bytes. */
int spec_len(json_t *v, const char *what, size_t max, struct err *e);
/* spec_str: a string of at most max bytes without NUL into *out (a
 * copy); absent or null leave *out as it is. */
int spec_str(json_t *spec, const char *key, size_t max, char **out,
             struct err *e);
/* spec_int: an integer in [min, max]; absent or null leave *out. */
int spec_int(json_t *spec, const char *key, int64_t min, int64_t max,
             int64_t *out, struct err *e);
/* spec_bool: true or false; absent or null give false. */
int spec_bool(json_t *spec, const char *key, bool *out, struct err *e);

#endif
