/*
 * sprio's choices (prioview.h): Slurm's default columns, the factors only
 * where their weight is non-zero, and the jobs it lists.
 */
#include "cli/prioview.h"

#include <stdio.h>
#include <string.h>

/* Slurm's columns before the factors. */
#define PRIO_HEAD "%.15i %9r "
#define PRIO_HEAD_LONG "%.15i %9r %.8u %.10o "

/* Slurm's default columns: the factors whose weight is non-zero (a TRES
 * column when PriorityWeightTRES is set). */
void prioview_default_format(bool lng, bool norm, json_t *w, char *buf,
                             size_t len)
{
    static const struct {
        const char *factor, *col;
    } cols[] = {
        {"age", "%.10A "},       {"fairshare", "%.10F "}, {"jobsize", "%.10J "},
        {"partition", "%.10P "}, {"qos", "%.10Q "},
    };
    const char *tres = json_string_value(json_object_get(w, "tres"));
    size_t used;

    used = (size_t)snprintf(buf, len, "%s%s", lng ? PRIO_HEAD_LONG : PRIO_HEAD,
                            norm ? "%.10y " : "%.10Y ");
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]) && used < len; i++)
        if (json_integer_value(json_object_get(w, cols[i].factor)) != 0)
            used += (size_t)snprintf(buf + used, len - used, "%s", cols[i].col);
    if (lng && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%%.11N ");
    if (tres != NULL && tres[0] != '\0' && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%%.20T ");
    if (used > 0 && used <= len && buf[used - 1] == ' ')
        buf[used - 1] = '\0';
}

static bool in_list(const char *list, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    for (const char *p = list; s != NULL && *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, s, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* The jobs sprio lists: pending and not held (Slurm leaves out a job of
 * priority 0), in -p's partitions; new array. */
json_t *prioview_listed(const char *parts, json_t *reply)
{
    json_t *out = json_array(), *job;
    size_t i;

    json_array_foreach(json_object_get(reply, "jobs"), i, job)
    {
        if (json_integer_value(json_object_get(job, "priority")) == 0 &&
            !json_is_true(json_object_get(job, "fixed")))
            continue;
        if (parts != NULL && !in_list(parts, json_string_value(json_object_get(
                                                 job, "partition"))))
            continue;
        json_array_append(out, job);
    }
    return out;
}
