/*
 * Typed members of sluiced's JSON requests, with messages that name the
 * member: shared by the JOB_LAUNCH and STEP_LAUNCH parsers.
 */
#include "noded/jget.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

int jget_bad(struct err *e, const char *where, const char *key,
             const char *what)
{
    err_set(e, "%s: %s: expected %s", where, key, what);
    errno = EINVAL;
    return -1;
}

int jget_str(json_t *o, const char *where, const char *key, const char *def,
             char **out, struct err *e)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL || json_is_null(v)) {
        *out = def ? xstrdup(def) : NULL;
        return 0;
    }
    if (!json_is_string(v))
        return jget_bad(e, where, key, "a string");
    *out = xstrdup(json_string_value(v));
    return 0;
}

int jget_int(json_t *o, const char *where, const char *key, int64_t min,
             int64_t max, int64_t def, int64_t *out, struct err *e)
{
    json_t *v = json_object_get(o, key);
    char what[96];

    snprintf(what, sizeof(what), "an integer %" PRId64 "..%" PRId64, min, max);
    if (v == NULL || json_is_null(v)) {
        if (def < 0)
            return jget_bad(e, where, key, what);
        *out = def;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min ||
        json_integer_value(v) > max)
        return jget_bad(e, where, key, what);
    *out = json_integer_value(v);
    return 0;
}

int jget_strv(json_t *o, const char *where, const char *key, char ***v,
              size_t *n, struct err *e)
{
    json_t *a = json_object_get(o, key), *s;
    size_t i;

    *v = NULL;
    *n = 0;
    if (a == NULL || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return jget_bad(e, where, key, "an array of strings");
    *v = xcalloc(json_array_size(a) + 1, sizeof(**v));
    json_array_foreach(a, i, s)
    {
        if (!json_is_string(s))
            return jget_bad(e, where, key, "an array of strings");
        (*v)[(*n)++] = xstrdup(json_string_value(s));
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* Index g into v; -1 when out of range or given twice. */
static int gpu_push(uint32_t **v, size_t *n, json_int_t g)
{
    if (g < 0 || g > JGET_MAX_GPU)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == (uint32_t)g)
            return -1;
    *v = xreallocarray(*v, *n + 1, sizeof(**v));
    (*v)[(*n)++] = (uint32_t)g;
    return 0;
}

int jget_gpus(json_t *o, const char *where, const char *key, uint32_t **v,
              size_t *n, struct err *e)
{
    static const char *what = "an array of distinct GPU indices 0..4095";
    json_t *a = json_object_get(o, key), *g;
    const char *s;
    char *end;
    size_t i;

    *v = NULL;
    *n = 0;
    if (a == NULL || json_is_null(a))
        return 0;
    if (json_is_string(a)) {
        for (s = json_string_value(a); *s != '\0'; s = end + (*end == ',')) {
            json_int_t k = strtoll(s, &end, 10);
            if (end == s || (*end != ',' && *end != '\0') ||
                gpu_push(v, n, k) < 0)
                return jget_bad(e, where, key, what);
        }
    } else if (json_is_array(a)) {
        json_array_foreach(a, i, g)
        {
            if (!json_is_integer(g) ||
                gpu_push(v, n, json_integer_value(g)) < 0)
                return jget_bad(e, where, key, what);
        }
    } else {
        return jget_bad(e, where, key, what);
    }
    if (*n > 1)
        qsort(*v, *n, sizeof(**v), cmp_u32);
    return 0;
}
