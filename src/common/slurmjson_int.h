/*
 * What the slurmjson*.c files share: readers of Sluice's objects that give
 * a default for a key absent, null or of another type, and Slurm's
 * minutes.  Internal to src/common/slurmjson*.c.
 */
#ifndef SLUICE_COMMON_SLURMJSON_INT_H
#define SLUICE_COMMON_SLURMJSON_INT_H

#include <jansson.h>

/* Readers: absent, null or of another type give the default. */
static inline const char *str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static inline json_t *jstr(json_t *o, const char *key)
{
    const char *s = str_of(o, key);
    return json_string(s != NULL ? s : "");
}

static inline json_int_t int_of(json_t *o, const char *key, json_int_t dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static inline json_t *jint(json_t *o, const char *key, json_int_t dflt)
{
    return json_integer(int_of(o, key, dflt));
}

/* The value when it is a positive integer, else null (Slurm's "not set"). */
static inline json_t *jint_or_null(json_t *o, const char *key)
{
    json_int_t v = int_of(o, key, 0);
    return v > 0 ? json_integer(v) : json_null();
}

static inline json_t *jbool(json_t *o, const char *key)
{
    return json_boolean(json_is_true(json_object_get(o, key)));
}

/* Seconds as Slurm's minutes (rounded up; a limit is never shortened). */
static inline json_int_t minutes(json_int_t s)
{
    return s > 0 ? (s + 59) / 60 : 0;
}

#endif
