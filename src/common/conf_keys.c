/*
 * Key tables: one entry per configuration key says how its field is parsed,
 * printed and put into JSON, so that the parser, the canonical print and
 * --json cannot disagree about a key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

const struct conf_enum conf_preempt_type_names[] = {
    {"preempt/none", CONF_PREEMPT_NONE},
    {"preempt/partition_prio", CONF_PREEMPT_PARTITION_PRIO},
    {"preempt/qos", CONF_PREEMPT_QOS},
    {NULL, 0},
};

const struct conf_enum conf_node_state_names[] = {
    {"UNKNOWN", CONF_NODE_UNKNOWN}, {"CLOUD", CONF_NODE_CLOUD},
    {"DOWN", CONF_NODE_DOWN},       {"DRAIN", CONF_NODE_DRAIN},
    {"FAIL", CONF_NODE_FAIL},       {"FAILING", CONF_NODE_FAILING},
    {"FUTURE", CONF_NODE_FUTURE},   {NULL, 0},
};

const struct conf_enum conf_part_state_names[] = {
    {"UP", CONF_PART_UP},
    {"DOWN", CONF_PART_DOWN},
    {"DRAIN", CONF_PART_DRAIN},
    {"INACTIVE", CONF_PART_INACTIVE},
    {NULL, 0},
};

static const struct conf_enum preempt_mode_names[] = {
    {"OFF", CONF_PREEMPT_MODE_OFF},
    {"CANCEL", CONF_PREEMPT_MODE_CANCEL},
    {"REQUEUE", CONF_PREEMPT_MODE_REQUEUE},
    {"SUSPEND", CONF_PREEMPT_MODE_SUSPEND},
    {NULL, 0},
};

const char *conf_preempt_type_name(enum conf_preempt_type t)
{
    return conf_enum_name(conf_preempt_type_names, (int)t);
}

const char *conf_node_state_name(enum conf_node_state s)
{
    return conf_enum_name(conf_node_state_names, (int)s);
}

const char *conf_part_state_name(enum conf_part_state s)
{
    return conf_enum_name(conf_part_state_names, (int)s);
}

char *conf_preempt_format(const struct conf_preempt *p, char *buf, size_t len)
{
    const char *mode = conf_enum_name(preempt_mode_names, (int)p->mode);

    if (p->gang && p->mode == CONF_PREEMPT_MODE_OFF)
        snprintf(buf, len, "GANG");
    else
        snprintf(buf, len, "%s%s", mode, p->gang ? ",GANG" : "");
    return buf;
}

bool conf_preempt_param(const char *params, const char *key)
{
    size_t n = strlen(key);

    for (const char *p = params; p != NULL && *p != '\0';) {
        if (strncasecmp(p, key, n) == 0 &&
            (p[n] == '\0' || p[n] == ',' || p[n] == '='))
            return true;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return false;
}

/* PreemptMode: a comma list of at most one of OFF, CANCEL, REQUEUE,
 * SUSPEND, and GANG. */
int conf_preempt_parse(const char *val, struct conf_preempt *out, struct err *e)
{
    struct conf_preempt p = {CONF_PREEMPT_MODE_OFF, false};
    char *copy = xstrdup(val), *save = NULL, *item;
    bool have_mode = false;
    int mode = 0;

    for (item = strtok_r(copy, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        if (strcasecmp(item, "GANG") == 0) {
            p.gang = true;
            continue;
        }
        if (conf_enum_parse(preempt_mode_names, item, &mode, e) < 0)
            goto error;
        if (have_mode) {
            err_set(e, "more than one mode (GANG may be added to one of "
                       "OFF, CANCEL, REQUEUE or SUSPEND)");
            goto error;
        }
        have_mode = true;
        p.mode = (enum conf_preempt_mode)mode;
    }
    if (!have_mode && !p.gang) {
        err_set(e, "expected OFF, CANCEL, REQUEUE or SUSPEND, "
                   "optionally with GANG");
        goto error;
    }
    free(copy);
    *out = p;
    return 0;
error:
    free(copy);
    errno = EINVAL;
    return -1;
}

const struct conf_key *conf_key_find(const struct conf_key *tab,
                                     const char *name)
{
    for (; tab->name != NULL; tab++)
        if (strcasecmp(tab->name, name) == 0)
            return tab;
    return NULL;
}

int conf_enum_parse(const struct conf_enum *tab, const char *val, int *out,
                    struct err *e)
{
    char list[512];
    size_t used = 0;

    for (const struct conf_enum *en = tab; en->name != NULL; en++) {
        if (strcasecmp(en->name, val) == 0) {
            *out = en->value;
            return 0;
        }
    }
    list[0] = '\0';
    for (const struct conf_enum *en = tab; en->name != NULL; en++) {
        const char *sep = en == tab ? "" : en[1].name ? ", " : " or ";
        if (used < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                     sep, en->name);
    }
    errno = EINVAL;
    return err_set(e, "expected %s", list);
}

const char *conf_enum_name(const struct conf_enum *tab, int value)
{
    for (; tab->name != NULL; tab++)
        if (tab->value == value)
            return tab->name;
    return "?";
}

static int key_u64(const struct conf_key *k, const char *val, uint64_t *out,
                   struct err *e)
{
    if ((k->flags & CKF_UNLIMITED) && (strcasecmp(val, "UNLIMITED") == 0 ||
                                       strcasecmp(val, "INFINITE") == 0)) {
        *out = k->max;
        return 0;
    }
    return value_parse_u64(val, k->min, k->max, out, e);
}

static int key_parse(const struct conf_key *k, void *ctx, void *obj,
                     const char *val, struct err *e)
{
    char *field = (char *)obj + k->off;
    uint64_t u;
    int64_t t;
    bool b;
    int en = 0;

    switch (k->kind) {
    case CK_STR:
        free(*(char **)field);
        *(char **)field = xstrdup(val);
        return 0;
    case CK_U16:
    case CK_U32:
        if (key_u64(k, val, &u, e) < 0)
            return -1;
        if (k->kind == CK_U16)
            *(uint16_t *)field = (uint16_t)u;
        else
            *(uint32_t *)field = (uint32_t)u;
        return 0;
    case CK_BOOL:
    case CK_BOOL01:
        if (value_parse_bool(val, &b, e) < 0)
            return -1;
        *(bool *)field = b;
        return 0;
    case CK_TIME:
        if (timefmt_parse(val, &t, e) < 0)
            return -1;
        *(int64_t *)field = t;
        return 0;
    case CK_MEM:
        if (value_parse_mem_mib(val, &u, e) < 0)
            return -1;
        if (u < k->min)
            return err_set(e, "must be at least %llu MiB",
                           (unsigned long long)k->min);
        *(uint64_t *)field = u;
        return 0;
    case CK_ENUM:
        if (conf_enum_parse(k->enums, val, &en, e) < 0)
            return -1;
        *(int *)field = en;
        return 0;
    case CK_CUSTOM:
        return k->parse(ctx, obj, val, e);
    }
    return err_set(e, "internal: unknown kind");
}

int conf_key_set(const struct conf_key *k, void *ctx, void *obj,
                 const char *val, struct err *e)
{
    if (key_parse(k, ctx, obj, val, e) == 0)
        return 0;
    err_prefix(e, "%s=%.64s%s", k->name, val, strlen(val) > 64 ? "..." : "");
    errno = EINVAL;
    return -1;
}

void conf_print_value(FILE *fp, const char *val)
{
    size_t n = strlen(val);

    if (n == 0 || strpbrk(val, " \t#") != NULL || val[n - 1] == '\\' ||
        val[0] == '"')
        fprintf(fp, "\"%s\"", val);
    else
        fputs(val, fp);
}

static void key_print(const struct conf_key *k, const void *obj, FILE *fp,
                      const char *pre, const char *suf)
{
    const char *field = (const char *)obj + k->off;
    char buf[TIMEFMT_BUFLEN];
    uint64_t u = 0;

    if (k->kind == CK_CUSTOM) {
        k->print(obj, fp, pre, suf);
        return;
    }
    if (k->kind == CK_STR && (k->flags & CKF_OMIT_EMPTY) &&
        **(char *const *)field == '\0')
        return;
    if (k->kind == CK_MEM && (k->flags & CKF_OMIT_ZERO) &&
        *(const uint64_t *)field == 0)
        return;
    if (k->kind == CK_ENUM && (k->flags & CKF_OMIT_ZERO) &&
        *(const int *)field == 0)
        return;
    fprintf(fp, "%s%s=", pre, k->name);
    switch (k->kind) {
    case CK_STR:
        conf_print_value(fp, *(char *const *)field);
        break;
    case CK_U16:
    case CK_U32:
        u = k->kind == CK_U16 ? *(const uint16_t *)field
                              : *(const uint32_t *)field;
        if ((k->flags & CKF_UNLIMITED) && u == k->max)
            fputs("UNLIMITED", fp);
        else
            fprintf(fp, "%llu", (unsigned long long)u);
        break;
    case CK_BOOL:
        fputs(*(const bool *)field ? "YES" : "NO", fp);
        break;
    case CK_BOOL01:
        fputs(*(const bool *)field ? "1" : "0", fp);
        break;
    case CK_TIME:
        fputs(timefmt_format(*(const int64_t *)field, buf, sizeof(buf)), fp);
        break;
    case CK_MEM:
        fprintf(fp, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case CK_ENUM:
        fputs(conf_enum_name(k->enums, *(const int *)field), fp);
        break;
    case CK_CUSTOM:
        break;
    }
    fputs(suf, fp);
}

void conf_keys_print(const struct conf_key *tab, const void *obj, FILE *fp,
                     const char *pre, const char *suf)
{
    for (; tab->name != NULL; tab++)
        if (!(tab->flags & CKF_NOPRINT))
            key_print(tab, obj, fp, pre, suf);
}

json_t *conf_time_json(int64_t secs)
{
    return secs == TIMEFMT_INFINITE ? json_null() : json_integer(secs);
}

static json_t *key_json(const struct conf_key *k, const void *obj)
{
    const char *field = (const char *)obj + k->off;
    uint64_t u;

    switch (k->kind) {
    case CK_STR:
        return json_string(*(char *const *)field);
    case CK_U16:
    case CK_U32:
        u = k->kind == CK_U16 ? *(const uint16_t *)field
                              : *(const uint32_t *)field;
        if ((k->flags & CKF_UNLIMITED) && u == k->max)
            return json_null();
        return json_integer((json_int_t)u);
    case CK_BOOL:
    case CK_BOOL01:
        return json_boolean(*(const bool *)field);
    case CK_TIME:
        return conf_time_json(*(const int64_t *)field);
    case CK_MEM:
        return json_integer((json_int_t) * (const uint64_t *)field);
    case CK_ENUM:
        return json_string(conf_enum_name(k->enums, *(const int *)field));
    case CK_CUSTOM:
        return k->to_json(obj);
    }
    return json_null();
}

void conf_keys_json(const struct conf_key *tab, const void *obj, json_t *o)
{
    for (; tab->name != NULL; tab++)
        if (tab->json != NULL)
            json_object_set_new(o, tab->json, key_json(tab, obj));
}
