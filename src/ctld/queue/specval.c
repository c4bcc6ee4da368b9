/*
 * The optional fields of a SUBMIT body, one key at a time (specval.h).
 */
#include "ctld/queue/specval.h"

#include <inttypes.h>
#include <string.h>

#include "common/xalloc.h"

bool spec_given(json_t *spec, const char *key)
{
    json_t *v = json_object_get(spec, key);

    return v != NULL && !json_is_null(v);
}

int spec_len(json_t *v, const char *what, size_t max, struct err *e)
{
    if (json_string_length(v) <= max)
        return 0;
    return err_inval(e, "job %s is %zu bytes, the limit is %zu", what,
                     json_string_length(v), max);
}

int spec_str(json_t *spec, const char *key, size_t max, char **out,
             struct err *e)
{
    json_t *v = json_object_get(spec, key);

    if (!spec_given(spec, key))
        return 0;
    if (!json_is_string(v))
        return err_inval(e, "job %s: expected a string", key);
    if (spec_len(v, key, max, e) < 0)
        return -1;
    if (strlen(json_string_value(v)) != json_string_length(v))
        return err_inval(e, "job %s: contains a NUL byte", key);
    *out = xstrdup(json_string_value(v));
    return 0;
}

int spec_int(json_t *spec, const char *key, int64_t min, int64_t max,
             int64_t *out, struct err *e)
{
    json_t *v = json_object_get(spec, key);

    if (!spec_given(spec, key))
        return 0;
    if (!json_is_integer(v))
        return err_inval(e, "job %s: expected an integer", key);
    if (json_integer_value(v) < min || json_integer_value(v) > max)
        return err_inval(e,
                         "job %s: %" JSON_INTEGER_FORMAT
                         " is out of range %" PRId64 "-%" PRId64,
                         key, json_integer_value(v), min, max);
    *out = json_integer_value(v);
    return 0;
}

int spec_bool(json_t *spec, const char *key, bool *out, struct err *e)
{
    json_t *v = json_object_get(spec, key);

    *out = false;
    if (!spec_given(spec, key))
        return 0;
    if (!json_is_boolean(v))
        return err_inval(e, "job %s: expected true or false", key);
    *out = json_is_true(v);
    return 0;
}
