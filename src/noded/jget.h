/*
 * Typed members of a request's JSON object for sluiced's parsers
 * (JOB_LAUNCH's LAUNCH, STEP_LAUNCH's step): each failure is EINVAL with
 * a message naming the object and the member ("STEP_LAUNCH: ntasks:
 * expected an integer 1..4294967295").
 */
#ifndef SLUICE_NODED_JGET_H
#define SLUICE_NODED_JGET_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"

/* jget_bad: errno EINVAL and e = "WHERE: KEY: expected WHAT"; -1. */
int jget_bad(struct err *e, const char *where, const char *key,
             const char *what);

/* jget_str: an optional string member (null or absent: a copy of def, or
 * NULL when def is NULL).  *out is new (caller frees). */
int jget_str(json_t *o, const char *where, const char *key, const char *def,
             char **out, struct err *e);

/* jget_int: an integer member in [min, max]; def when absent or null
 * (def < 0: required). */
int jget_int(json_t *o, const char *where, const char *key, int64_t min,
             int64_t max, int64_t def, int64_t *out, struct err *e);

/* jget_strv: an optional array of strings; *v NULL-terminated (new,
 * caller frees each and the array; NULL when absent), *n its length. */
int jget_strv(json_t *o, const char *where, const char *key, char ***v,
              size_t *n, struct err *e);

/* The highest GPU index a request may name. */
#define JGET_MAX_GPU 4095

/* jget_gpus: an optional array of distinct GPU indices 0..JGET_MAX_GPU (a
 * string "0,2" is read too), sorted into *v (new, caller frees; NULL when
 * none), *n their count. */
int jget_gpus(json_t *o, const char *where, const char *key, uint32_t **v,
              size_t *n, struct err *e);

#endif
