/*
 * slurmrestd's job descriptions (v0.0.38_job_properties) the other way:
 * into the JOBSPEC of a SUBMIT and the "set" of a JOB_UPDATE, the messages
 * the CLI sends (slurmjson.h).  One table says what each field becomes;
 * a field of the wrong type, one Sluice does not have, or one Slurm's
 * schema does not know is refused naming it ("job.time_limit: ...").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/slurmjson.h"
#include "common/xalloc.h"

/* A count one job may ask for (CPUs, tasks, nodes): the controller checks
 * its own bounds; this only keeps the numbers sane. */
#define DESC_MAX_COUNT 1048576
/* Minutes beyond which a time limit is INFINITE (a century). */
#define DESC_MAX_MINUTES (100LL * 366 * 24 * 60)

struct desc;
typedef int (*desc_fn)(struct desc *d, const char *field, json_t *v);

/* How a field is taken. */
enum desc_kind {
    D_STR,    /* a string ("" is not given) */
    D_TEXT,   /* a string, "" included (an update's "clear it") */
    D_COUNT,  /* an integer (or digits) of at least 1 */
    D_UINT,   /* an integer (or digits) of at least 0 */
    D_BOOL,   /* true or false */
    D_GPUS,   /* "N", "TYPE:N" or N */
    D_FN,     /* its own function */
    D_UNSUPP, /* Sluice has no such thing: only Slurm's unset values */
};

struct desc_field {
    const char *name; /* Slurm's field */
    const char *key;  /* the JOBSPEC key */
    enum desc_kind kind;
    desc_fn fn;
};

struct desc {
    const char *where; /* "job", "jobs[0]" */
    json_t *out;       /* the JOBSPEC or the update's "set" */
    json_t *notes;     /* warnings: strings */
    int hold;          /* updates: -1 unchanged, 0 release, 1 hold */
    struct err *e;
};

static int bad(struct desc *d, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct desc *d, const char *field, const char *fmt, ...)
{
    char text[sizeof(d->e->text)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return err_set(d->e, "%s.%s: %s", d->where, field, text);
}

static void note(struct desc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(struct desc *d, const char *fmt, ...)
{
    char text[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (d->notes != NULL)
        json_array_append_new(d->notes, json_string(text));
}

/* A decimal integer with an optional '-', the whole of s; 0 or -1. */
static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    long long n;

    if (s == NULL || !(*s == '-' || (*s >= '0' && *s <= '9')) || strlen(s) > 20)
        return -1;
    errno = 0;
    n = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0 || end == s)
        return -1;
    *out = n;
    return 0;
}

/* An integer, or a string of decimal digits (Slurm's schema spells some
 * numbers as strings); 0 or -1 (not a number). */
static int number_of(json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    return parse_i64(json_string_value(v), out);
}

static int take_count(struct desc *d, const char *field, const char *key,
                      json_t *v, int64_t min)
{
    int64_t n;

    if (number_of(v, &n) < 0 || n < min || n > DESC_MAX_COUNT * 4096LL)
        return bad(d, field, "expected an integer of at least %lld",
                   (long long)min);
    json_object_set_new(d->out, key, json_integer(n));
    return 0;
}

/* "N", "TYPE:N" or N: a GPU count as the JOBSPEC writes it. */
static int take_gpus(struct desc *d, const char *field, const char *key,
                     json_t *v)
{
    const char *s = json_string_value(v), *num;
    int64_t n;

    if (json_is_integer(v)) {
        if (json_integer_value(v) < 1)
            return bad(d, field, "expected a GPU count of at least 1");
        json_object_set_new(
            d->out, key,
            json_sprintf("%lld", (long long)json_integer_value(v)));
        return 0;
    }
    if (s == NULL)
        return bad(d, field, "expected \"N\" or \"TYPE:N\" (GPUs)");
    if (*s == '\0')
        return 0;
    if (strncmp(s, "gpu:", 4) == 0)
        s += 4; /* "gpu:a100:2" is "a100:2", "gpu:2" is "2" */
    num = strrchr(s, ':') ? strrchr(s, ':') + 1 : s;
    if (parse_i64(num, &n) < 0 || n < 1 || num[0] == '-')
        return bad(d, field, "\"%.64s\": expected \"N\" or \"TYPE:N\" (GPUs)",
                   json_string_value(v));
    json_object_set_new(d->out, key, json_string(s));
    return 0;
}

/* ---- the fields with a function of their own ------------------------- */

static int f_time(struct desc *d, const char *field, const char *key, json_t *v)
{
    const char *s = json_string_value(v);
    int64_t m;

    if (s != NULL &&
        (strcasecmp(s, "INFINITE") == 0 || strcasecmp(s, "UNLIMITED") == 0)) {
        json_object_set_new(d->out, key, json_string("INFINITE"));
        return 0;
    }
    if (number_of(v, &m) < 0 || (m < 1 && m != -1))
        return bad(d, field, "expected minutes (at least 1) or \"INFINITE\"");
    if (m == -1 || m >= DESC_MAX_MINUTES)
        json_object_set_new(d->out, key, json_string("INFINITE"));
    else
        json_object_set_new(d->out, key, json_integer(m * 60));
    return 0;
}

static int f_time_limit(struct desc *d, const char *field, json_t *v)
{
    return f_time(d, field, "time_limit_s", v);
}

static int f_time_minimum(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v);

    if (s != NULL && strcasecmp(s, "INFINITE") == 0)
        return bad(d, field, "expected minutes (at least 1)");
    return f_time(d, field, "time_min_s", v);
}

static int f_argv(struct desc *d, const char *field, json_t *v)
{
    size_t i;
    json_t *a;

    if (!json_is_array(v))
        return bad(d, field, "expected an array of strings");
    json_array_foreach(v, i, a)
    {
        if (!json_is_string(a))
            return bad(d, field, "[%zu]: expected a string", i);
    }
    json_object_set(d->out, "argv", v);
    return 0;
}

/* One "NAME=value" of a list environment into env. */
static int env_entry(struct desc *d, const char *field, size_t i, json_t *a,
                     json_t *env)
{
    const char *s = json_string_value(a), *eq = s ? strchr(s, '=') : NULL;
    char *name;

    if (eq == NULL || eq == s)
        return bad(d, field, "[%zu]: expected \"NAME=value\"", i);
    name = xstrndup(s, (size_t)(eq - s));
    json_object_set_new(env, name, json_string(eq + 1));
    free(name);
    return 0;
}

/* environment: {"NAME": "value"} (Slurm 22.05) or ["NAME=value"] (the
 * form of later versions). */
static int f_environment(struct desc *d, const char *field, json_t *v)
{
    json_t *env = json_object(), *a;
    const char *k;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach(v, k, a)
        {
            if (!json_is_string(a) || k[0] == '\0' || strchr(k, '=')) {
                json_decref(env);
                return bad(d, field,
                           "\"%.64s\": expected NAME (no '=') with a string "
                           "value",
                           k);
            }
            json_object_set(env, k, a);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, a)
        {
            if (env_entry(d, field, i, a, env) < 0) {
                json_decref(env);
                return -1;
            }
        }
    } else {
        json_decref(env);
        return bad(d, field,
                   "expected an object {\"NAME\": \"value\"} or a list "
                   "[\"NAME=value\"]");
    }
    json_object_set_new(d->out, "environment", env);
    return 0;
}

static int f_exclusive(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v);

    if (json_is_boolean(v))
        s = json_is_true(v) ? "true" : "false";
    if (s == NULL)
        return bad(d, field,
                   "expected \"user\", \"mcs\", \"true\" or "
                   "\"false\"");
    if (strcmp(s, "true") == 0 || strcmp(s, "node") == 0)
        json_object_set_new(d->out, "exclusive", json_string("node"));
    else if (strcmp(s, "user") == 0 || strcmp(s, "mcs") == 0)
        json_object_set_new(d->out, "exclusive", json_string(s));
    else if (strcmp(s, "false") != 0 && *s != '\0')
        return bad(d, field,
                   "\"%.32s\": expected \"user\", \"mcs\", \"true\" or "
                   "\"false\"",
                   s);
    return 0;
}

static int f_user_env(struct desc *d, const char *field, json_t *v)
{
    if (!json_is_boolean(v))
        return bad(d, field, "expected true or false");
    if (json_is_true(v))
        json_object_set_new(d->out, "get_user_env", json_true());
    return 0;
}

/* gres: Slurm's --gres ("gpu:2", "gpu:a100:2"); tres_per_node (a Sluice
 * addition) the same with "gres:" or "gres/" in front, as jobs show it. */
static int f_gres(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v);

    if (s == NULL)
        return bad(d, field, "expected a string such as \"gpu:2\"");
    if (strncmp(s, "gres:", 5) == 0 || strncmp(s, "gres/", 5) == 0)
        s += 5;
    if (*s != '\0')
        json_object_set_new(d->out, "gres", json_string(s));
    return 0;
}

/* nodes: N, "N", "MIN-MAX" or [MIN] / [MIN, MAX]: Sluice gives MIN. */
static int f_nodes(struct desc *d, const char *field, json_t *v)
{
    int64_t min = 0, max = 0;
    const char *s = json_string_value(v), *dash;

    if (json_is_array(v) && json_array_size(v) >= 1 &&
        json_array_size(v) <= 2) {
        if (number_of(json_array_get(v, 0), &min) < 0 ||
            (json_array_size(v) == 2 &&
             number_of(json_array_get(v, 1), &max) < 0))
            min = 0;
        else if (json_array_size(v) == 1)
            max = min;
    } else if (s != NULL && (dash = strchr(s, '-')) != NULL && dash != s &&
               (size_t)(dash - s) < 16) {
        char lo[16];
        snprintf(lo, sizeof(lo), "%.*s", (int)(dash - s), s);
        if (parse_i64(lo, &min) < 0 || parse_i64(dash + 1, &max) < 0)
            min = 0;
    } else if (number_of(v, &min) == 0) {
        max = min;
    }
    if (min < 1 || max < min || max > DESC_MAX_COUNT)
        return bad(d, field,
                   "expected a node count N, \"MIN-MAX\" or [MIN, MAX] "
                   "(1 <= MIN <= MAX)");
    json_object_set_new(d->out, "nodes", json_integer(min));
    if (max > min)
        note(d, "%s.%s: Sluice allocates the minimum, %lld node%s", d->where,
             field, (long long)min, min == 1 ? "" : "s");
    return 0;
}

static int f_priority(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v);
    int64_t n;

    if (s != NULL && strcasecmp(s, "TOP") == 0) {
        json_object_set_new(d->out, "priority", json_string("TOP"));
        return 0;
    }
    if (number_of(v, &n) < 0 || n < 0 || n > (int64_t)UINT32_MAX - 1)
        return bad(d, field, "expected a priority 0-%lu or \"TOP\"",
                   (unsigned long)UINT32_MAX - 1);
    json_object_set_new(d->out, "priority", json_integer(n));
    return 0;
}

static int f_nice(struct desc *d, const char *field, json_t *v)
{
    int64_t n;

    if (number_of(v, &n) < 0 || n < -2147483645LL || n > 2147483645LL)
        return bad(d, field, "expected an integer -2147483645 to 2147483645");
    json_object_set_new(d->out, "nice", json_integer(n));
    return 0;
}

/* signal: "[B:]SIG[@SECONDS]" (sbatch --signal) or a signal number. */
static int f_signal(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v), *at;
    char name[32];
    int64_t secs = 60;
    bool batch = false;
    int sig;

    if (json_is_integer(v)) {
        sig = json_integer_value(v) >= 1 && json_integer_value(v) <= 64
                  ? (int)json_integer_value(v)
                  : -1;
        s = "";
    } else {
        if (s == NULL)
            return bad(d, field, "expected \"[B:]SIG[@SECONDS]\"");
        if (strncmp(s, "B:", 2) == 0 || strncmp(s, "R:", 2) == 0) {
            batch = s[0] == 'B';
            s += 2;
        }
        at = strchr(s, '@');
        snprintf(name, sizeof(name), "%.*s",
                 (int)(at ? (size_t)(at - s) : strlen(s)), s);
        sig = slurmjson_signal_parse(name);
        if (at != NULL &&
            (parse_i64(at + 1, &secs) < 0 || secs < 0 || secs > 65535))
            sig = -1;
    }
    if (sig < 0)
        return bad(d, field,
                   "expected \"[B:]SIG[@SECONDS]\" (SIG a name or 1-64, "
                   "SECONDS 0-65535)");
    json_object_set_new(d->out, "warn_signal", json_integer(sig));
    json_object_set_new(d->out, "warn_time_s", json_integer(secs));
    json_object_set_new(d->out, "warn_batch", json_boolean(batch));
    return 0;
}

static int f_stdin(struct desc *d, const char *field, json_t *v)
{
    const char *s = json_string_value(v);

    if (s == NULL)
        return bad(d, field, "expected a path");
    if (*s != '\0' && strcmp(s, "/dev/null") != 0)
        return bad(d, field,
                   "not supported: Sluice's batch jobs read /dev/null");
    return 0;
}

/* script inside the job (the place later Slurm versions read it from). */
static int f_script(struct desc *d, const char *field, json_t *v)
{
    json_t *top = json_object_get(d->out, "script");

    if (!json_is_string(v))
        return bad(d, field, "expected the script's text");
    if (top != NULL && !json_equal(top, v))
        return bad(d, field, "differs from the request's \"script\"");
    json_object_set(d->out, "script", v);
    return 0;
}

/* hold in an update: JOB_HOLD or JOB_RELEASE. */
static int f_hold_update(struct desc *d, const char *field, json_t *v)
{
    if (!json_is_boolean(v))
        return bad(d, field, "expected true or false");
    d->hold = json_is_true(v) ? 1 : 0;
    return 0;
}

/* ---- the table -------------------------------------------------------- */

/* Every field of v0.0.38_job_properties, in Slurm's order, then Sluice's
 * additions (required_nodes, excluded_nodes, tres_per_node, script). */
static const struct desc_field submit_fields[] = {
    {"account", "account", D_STR, NULL},
    {"account_gather_frequency", NULL, D_UNSUPP, NULL},
    {"account_gather_freqency", NULL, D_UNSUPP, NULL}, /* Slurm's spelling */
    {"argv", NULL, D_FN, f_argv},
    {"array", "array", D_STR, NULL},
    {"batch_features", NULL, D_UNSUPP, NULL},
    {"begin_time", "begin_time", D_UINT, NULL},
    {"burst_buffer", NULL, D_UNSUPP, NULL},
    {"cluster_constraints", NULL, D_UNSUPP, NULL},
    {"cluster_constraint", NULL, D_UNSUPP, NULL},
    {"comment", "comment", D_STR, NULL},
    {"constraints", "constraint", D_STR, NULL},
    {"container", NULL, D_UNSUPP, NULL},
    {"core_specification", NULL, D_UNSUPP, NULL},
    {"cores_per_socket", "cores_per_socket", D_COUNT, NULL},
    {"cpu_binding", "cpu_bind", D_STR, NULL},
    {"cpu_binding_hint", "hint", D_STR, NULL},
    {"cpu_frequency", NULL, D_UNSUPP, NULL},
    {"cpus_per_gpu", "cpus_per_gpu", D_COUNT, NULL},
    {"cpus_per_task", "cpus_per_task", D_COUNT, NULL},
    {"current_working_directory", "work_dir", D_STR, NULL},
    {"deadline", "deadline", D_UINT, NULL},
    {"delay_boot", NULL, D_UNSUPP, NULL},
    {"dependency", "dependency", D_STR, NULL},
    {"distribution", "distribution", D_STR, NULL},
    {"environment", NULL, D_FN, f_environment},
    {"exclusive", NULL, D_FN, f_exclusive},
    {"get_user_environment", NULL, D_FN, f_user_env},
    {"gres", NULL, D_FN, f_gres},
    {"gres_flags", "gres_flags", D_STR, NULL},
    {"gpu_binding", "gpu_bind", D_STR, NULL},
    {"gpu_frequency", NULL, D_UNSUPP, NULL},
    {"gpus", "gpus", D_GPUS, NULL},
    {"gpus_per_node", "gpus_per_node", D_GPUS, NULL},
    {"gpus_per_socket", NULL, D_UNSUPP, NULL},
    {"gpus_per_task", "gpus_per_task", D_GPUS, NULL},
    {"hold", "hold", D_BOOL, NULL},
    {"kill_on_invalid_dependency", "kill_on_invalid_dep", D_BOOL, NULL},
    {"licenses", NULL, D_UNSUPP, NULL},
    {"mail_type", "mail_type", D_STR, NULL},
    {"mail_user", "mail_user", D_STR, NULL},
    {"mcs_label", NULL, D_UNSUPP, NULL},
    {"memory_binding", NULL, D_UNSUPP, NULL},
    {"memory_per_cpu", "mem_per_cpu_mib", D_COUNT, NULL},
    {"memory_per_gpu", "mem_per_gpu_mib", D_COUNT, NULL},
    {"memory_per_node", "mem_mib", D_UINT, NULL},
    {"minimum_cpus_per_node", "mincpus", D_UINT, NULL},
    {"minimum_nodes", "use_min_nodes", D_BOOL, NULL},
    {"name", "name", D_STR, NULL},
    {"nice", NULL, D_FN, f_nice},
    {"no_kill", "no_kill", D_BOOL, NULL},
    {"nodes", NULL, D_FN, f_nodes},
    {"open_mode", "open_mode", D_STR, NULL},
    {"partition", "partition", D_STR, NULL},
    {"priority", NULL, D_FN, f_priority},
    {"qos", "qos", D_STR, NULL},
    {"requeue", "requeue", D_BOOL, NULL},
    {"reservation", "reservation", D_STR, NULL},
    {"signal", NULL, D_FN, f_signal},
    {"sockets_per_node", "sockets_per_node", D_COUNT, NULL},
    {"spread_job", "spread_job", D_BOOL, NULL},
    {"standard_error", "std_err", D_STR, NULL},
    {"standard_input", NULL, D_FN, f_stdin},
    {"standard_output", "std_out", D_STR, NULL},
    {"tasks", "ntasks", D_COUNT, NULL},
    {"tasks_per_core", NULL, D_UNSUPP, NULL},
    {"tasks_per_node", "ntasks_per_node", D_COUNT, NULL},
    {"tasks_per_socket", NULL, D_UNSUPP, NULL},
    {"thread_specification", NULL, D_UNSUPP, NULL},
    {"threads_per_core", "threads_per_core", D_COUNT, NULL},
    {"time_limit", NULL, D_FN, f_time_limit},
    {"time_minimum", NULL, D_FN, f_time_minimum},
    {"wait_all_nodes", NULL, D_UNSUPP, NULL},
    {"wckey", "wckey", D_STR, NULL},
    {"required_nodes", "nodelist", D_STR, NULL},
    {"excluded_nodes", "exclude", D_STR, NULL},
    {"tres_per_node", NULL, D_FN, f_gres},
    {"script", NULL, D_FN, f_script},
    {NULL, NULL, D_UNSUPP, NULL},
};

/* What POST job/{job_id} changes (JOB_UPDATE's "set", and hold). */
static const struct desc_field update_fields[] = {
    {"time_limit", NULL, D_FN, f_time_limit},
    {"name", "name", D_STR, NULL},
    {"partition", "partition", D_STR, NULL},
    {"priority", "priority", D_UINT, NULL},
    {"nice", NULL, D_FN, f_nice},
    {"dependency", "dependency", D_TEXT, NULL},
    {"comment", "comment", D_TEXT, NULL},
    {"hold", NULL, D_FN, f_hold_update},
    {NULL, NULL, D_UNSUPP, NULL},
};

static const struct desc_field *field_of(const struct desc_field *t,
                                         const char *name)
{
    for (; t->name != NULL; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* Slurm's values for "not set": what a client sends for a field it does
 * not use. */
static bool unset_value(json_t *v)
{
    return json_is_null(v) || json_is_false(v) ||
           (json_is_string(v) && json_string_length(v) == 0) ||
           (json_is_integer(v) && json_integer_value(v) == 0) ||
           (json_is_array(v) && json_array_size(v) == 0) ||
           (json_is_object(v) && json_object_size(v) == 0);
}

static int take(struct desc *d, const struct desc_field *f, json_t *v)
{
    switch (f->kind) {
    case D_STR:
    case D_TEXT:
        if (!json_is_string(v))
            return bad(d, f->name, "expected a string");
        if (json_string_length(v) > 0 || f->kind == D_TEXT)
            json_object_set(d->out, f->key, v);
        return 0;
    case D_COUNT:
        return take_count(d, f->name, f->key, v, 1);
    case D_UINT:
        return take_count(d, f->name, f->key, v, 0);
    case D_BOOL:
        if (!json_is_boolean(v))
            return bad(d, f->name, "expected true or false");
        json_object_set(d->out, f->key, v);
        return 0;
    case D_GPUS:
        return take_gpus(d, f->name, f->key, v);
    case D_FN:
        return f->fn(d, f->name, v);
    case D_UNSUPP:
        break;
    }
    if (unset_value(v))
        return 0;
    return bad(d, f->name, "not supported by Sluice (docs/rest.md)");
}

/* Every field of props through table t into d->out; NULL fields are not
 * given.  what names the request for "unknown field" messages. */
static int take_all(struct desc *d, const struct desc_field *t, json_t *props,
                    const char *what)
{
    const struct desc_field *f;
    const char *k;
    json_t *v;

    json_object_foreach(props, k, v)
    {
        if ((f = field_of(t, k)) == NULL) {
            if (t == update_fields && field_of(submit_fields, k) != NULL)
                return bad(d, k,
                           "%s cannot change it (it changes time_limit, "
                           "name, partition, priority, nice, dependency, "
                           "comment and hold)",
                           what);
            return bad(d, k, "unknown field of %s", what);
        }
        if (json_is_null(v))
            continue;
        if (take(d, f, v) < 0)
            return -1;
    }
    return 0;
}

static json_t *job_desc(json_t *props, const char *script, const char *where,
                        json_t *notes, struct err *e)
{
    struct desc d = {where, json_object(), notes, -1, e};

    if (!json_is_object(props)) {
        json_decref(d.out);
        errno = EINVAL;
        err_set(e, "%s: expected an object (v0.0.38_job_properties)", where);
        return NULL;
    }
    if (script != NULL)
        json_object_set_new(d.out, "script", json_string(script));
    if (take_all(&d, submit_fields, props, "a job description") < 0)
        goto error;
    if (!json_is_string(json_object_get(d.out, "script"))) {
        errno = EINVAL;
        err_set(e, "script: missing (the batch script's text)");
        goto error;
    }
    script = json_string_value(json_object_get(d.out, "script"));
    if (strstr(script, "\r\n") != NULL) {
        errno = EINVAL;
        err_set(e, "script: contains DOS line breaks (\\r\\n) instead of "
                   "UNIX line breaks (\\n)");
        goto error;
    }
    return d.out;
error:
    json_decref(d.out);
    return NULL;
}

json_t *slurmjson_job_submission(json_t *body, json_t *notes, struct err *e)
{
    json_t *script = json_object_get(body, "script");
    json_t *job = json_object_get(body, "job");
    json_t *jobs = json_object_get(body, "jobs");
    const char *k;
    json_t *v;

    json_object_foreach(body, k, v)
    {
        if (strcmp(k, "script") != 0 && strcmp(k, "job") != 0 &&
            strcmp(k, "jobs") != 0) {
            errno = EINVAL;
            err_set(e,
                    "%.64s: unknown field of a job submission (script, job, "
                    "jobs)",
                    k);
            return NULL;
        }
    }
    errno = EINVAL;
    if (script != NULL && !json_is_null(script) && !json_is_string(script)) {
        err_set(e, "script: expected the batch script's text");
        return NULL;
    }
    if (job != NULL && jobs != NULL) {
        err_set(e, "job, jobs: give one of them");
        return NULL;
    }
    if (jobs != NULL) {
        if (!json_is_array(jobs) || json_array_size(jobs) != 1) {
            err_set(e, "jobs: Sluice has no heterogeneous jobs: give one job "
                       "(\"job\": {...}) per submission");
            return NULL;
        }
        return job_desc(json_array_get(jobs, 0), json_string_value(script),
                        "jobs[0]", notes, e);
    }
    if (job == NULL) {
        err_set(e, "job: missing (the job's description)");
        return NULL;
    }
    return job_desc(job, json_string_value(script), "job", notes, e);
}

int slurmjson_job_update(json_t *props, json_t **set, int *hold, struct err *e)
{
    struct desc d = {"job", json_object(), NULL, -1, e};
    json_t *inner = json_object_get(props, "job");

    *set = NULL;
    *hold = -1;
    /* the properties themselves, or {"job": {...}} as a submission has */
    if (json_is_object(inner) && json_object_size(props) == 1)
        props = inner;
    if (!json_is_object(props)) {
        json_decref(d.out);
        return err_inval(e, "job: expected an object (v0.0.38_job_properties)");
    }
    if (take_all(&d, update_fields, props, "POST job/{job_id}") < 0) {
        json_decref(d.out);
        return -1;
    }
    if (json_object_size(d.out) == 0 && d.hold < 0) {
        json_decref(d.out);
        return err_inval(e, "job: nothing to change (time_limit, name, "
                            "partition, priority, nice, dependency, comment "
                            "or hold)");
    }
    *set = d.out;
    *hold = d.hold;
    return 0;
}

int slurmjson_signal_parse(const char *s)
{
    const char *name = s;
    int64_t n;

    if (s == NULL || *s == '\0')
        return -1;
    if (parse_i64(s, &n) == 0)
        return n >= 1 && n <= 64 ? (int)n : -1;
    if (strncasecmp(name, "SIG", 3) == 0)
        name += 3;
    for (int sig = 1; sig < 64; sig++) {
        const char *known = slurmjson_signal_name(sig);
        if (known != NULL && *known != '\0' && strcasecmp(known, name) == 0)
            return sig;
    }
    return -1;
}

int slurmjson_time_parse(const char *s, time_t *out)
{
    static const char *const forms[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
                                        "%Y-%m-%d"};
    int64_t n;

    if (parse_i64(s, &n) == 0) {
        if (n < 0)
            return -1;
        *out = (time_t)n;
        return 0;
    }
    for (size_t i = 0; s != NULL && i < sizeof(forms) / sizeof(*forms); i++) {
        struct tm tm = {0};
        const char *end = strptime(s, forms[i], &tm);
        time_t t;
        if (end == NULL || *end != '\0')
            continue;
        tm.tm_isdst = -1;
        if ((t = mktime(&tm)) == (time_t)-1)
            return -1;
        *out = t;
        return 0;
    }
    return -1;
}
