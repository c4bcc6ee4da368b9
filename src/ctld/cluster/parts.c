/*
 * Run-time partition settings (parts.h): a copy of each configured
 * partition's changeable values, the keys changed at run time as JSON
 * (saved whole per partition, applied over the configuration at start).
 */
#include "ctld/cluster/parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"

struct parts {
    const struct conf *conf; /* the pointers are borrowed (parts_create) */
    struct persist *persist;
    struct loop *loop;
    struct part *v;
    size_t n;
};

static void from_conf(struct part *p, const struct conf_part *cf)
{
    p->cf = cf;
    p->state = cf->state;
    p->max_time_s = cf->max_time_s;
    p->default_time_s = cf->default_time_s;
    p->max_nodes = cf->max_nodes;
    p->min_nodes = cf->min_nodes;
    p->priority_tier = cf->priority_tier;
    p->n_nodes = cf->n_nodes;
    p->node_idx = xcalloc(cf->n_nodes ? cf->n_nodes : 1, sizeof(size_t));
    memcpy(p->node_idx, cf->node_idx, cf->n_nodes * sizeof(size_t));
}

/* A time: seconds, -1, or Slurm's forms ("1-00:00:00", "INFINITE"). */
static int get_time(json_t *v, const char *key, int64_t *out, struct err *e)
{
    if (json_is_integer(v) && json_integer_value(v) == -1) {
        *out = TIMEFMT_INFINITE;
        return 0;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = json_integer_value(v);
        return 0;
    }
    if (json_is_string(v) && timefmt_parse(json_string_value(v), out, e) == 0)
        return 0;
    if (json_is_string(v))
        return err_prefix(e, "%s", key);
    return err_inval(e, "%s: expected a time (seconds, D-HH:MM:SS or INFINITE)",
                     key);
}

static int get_count(json_t *v, const char *key, bool unlimited_ok,
                     uint32_t *out, struct err *e)
{
    const char *s = json_string_value(v);
    char *end;
    unsigned long long n;

    if (unlimited_ok && ((json_is_integer(v) && json_integer_value(v) == -1) ||
                         (s && (strcasecmp(s, "UNLIMITED") == 0 ||
                                strcasecmp(s, "INFINITE") == 0)))) {
        *out = CONF_UNLIMITED;
        return 0;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0 &&
        json_integer_value(v) < CONF_UNLIMITED) {
        *out = (uint32_t)json_integer_value(v);
        return 0;
    }
    if (s != NULL && *s != '\0') {
        n = strtoull(s, &end, 10);
        if (*end == '\0' && n < CONF_UNLIMITED) {
            *out = (uint32_t)n;
            return 0;
        }
    }
    return err_inval(e, "%s: expected a number%s", key,
                     unlimited_ok ? " or UNLIMITED" : "");
}

static int get_nodes(const struct conf *conf, json_t *v, struct part *p,
                     struct err *e)
{
    const char *s = json_string_value(v);
    struct hostlist *hl;
    bool *in;

    if (s == NULL)
        return err_inval(e, "Nodes: expected a host list or ALL");
    in = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*in));
    if (strcasecmp(s, "ALL") == 0) {
        for (size_t i = 0; i < conf->n_nodes; i++)
            in[i] = true;
    } else if (*s != '\0') {
        if ((hl = hostlist_expand(s, e)) == NULL) {
            free(in);
            errno = EINVAL;
            return err_prefix(e, "Nodes");
        }
        for (size_t i = 0; i < hostlist_count(hl); i++) {
            const struct conf_node *n =
                conf_node_find(conf, hostlist_nth(hl, i));
            if (n == NULL) {
                err_inval(e, "Nodes: node %s is not configured",
                          hostlist_nth(hl, i));
                hostlist_destroy(hl);
                free(in);
                return -1;
            }
            in[n - conf->nodes] = true;
        }
        hostlist_destroy(hl);
    }
    p->n_nodes = 0;
    p->node_idx = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(size_t));
    for (size_t i = 0; i < conf->n_nodes; i++)
        if (in[i])
            p->node_idx[p->n_nodes++] = i;
    free(in);
    return 0;
}

static int get_state(json_t *v, enum conf_part_state *out, struct err *e)
{
    static const char *const names[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};
    static const enum conf_part_state vals[] = {
        CONF_PART_UP, CONF_PART_DOWN, CONF_PART_DRAIN, CONF_PART_INACTIVE};
    const char *s = json_string_value(v);

    for (size_t i = 0; s != NULL && i < 4; i++) {
        if (strcasecmp(s, names[i]) == 0) {
            *out = vals[i];
            return 0;
        }
    }
    return err_inval(e, "State: expected UP, DOWN, DRAIN or INACTIVE");
}

/* Apply one key to p (a new node_idx replaces the pointer; apply_set
 * frees the one it replaced). */
static int apply_key(const struct conf *conf, struct part *p, const char *key,
                     json_t *v, struct err *e)
{
    if (strcmp(key, "state") == 0)
        return get_state(v, &p->state, e);
    if (strcmp(key, "max_time_s") == 0)
        return get_time(v, "MaxTime", &p->max_time_s, e);
    if (strcmp(key, "default_time_s") == 0)
        return get_time(v, "DefaultTime", &p->default_time_s, e);
    if (strcmp(key, "max_nodes") == 0)
        return get_count(v, "MaxNodes", true, &p->max_nodes, e);
    if (strcmp(key, "min_nodes") == 0)
        return get_count(v, "MinNodes", false, &p->min_nodes, e);
    if (strcmp(key, "priority_tier") == 0)
        return get_count(v, "PriorityTier", false, &p->priority_tier, e);
    if (strcmp(key, "nodes") == 0)
        return get_nodes(conf, v, p, e);
    return err_inval(
        e, "%s: not a partition setting that can change at run time", key);
}

/* Apply every key of set to a copy of *p; swap on success. */
static int apply_set(const struct conf *conf, struct part *p, json_t *set,
                     struct err *e)
{
    struct part t = *p;
    const char *key;
    json_t *v;

    t.node_idx = NULL;
    json_object_foreach(set, key, v)
    {
        size_t *before = t.node_idx;
        if (apply_key(conf, &t, key, v, e) < 0) {
            if (t.node_idx != before)
                free(t.node_idx);
            free(before);
            return -1;
        }
        if (t.node_idx != before)
            free(before);
    }
    /* a DefaultTime never given follows MaxTime, as at configuration */
    if (p->cf->default_time_s == p->cf->max_time_s &&
        json_object_get(set, "default_time_s") == NULL &&
        json_object_get(p->changed, "default_time_s") == NULL)
        t.default_time_s = t.max_time_s;
    if (t.min_nodes > t.max_nodes) {
        free(t.node_idx);
        return err_inval(e, "MinNodes %u is above MaxNodes %u", t.min_nodes,
                         t.max_nodes);
    }
    if (t.node_idx == NULL) { /* Nodes unchanged */
        t.node_idx = p->node_idx;
    } else {
        free(p->node_idx);
    }
    *p = t;
    return 0;
}

static int load_one(void *arg, const char *name, const char *text)
{
    struct parts *ps = arg;
    const struct conf_part *cf = conf_part_find(ps->conf, name);
    json_t *set = json_loads(text, 0, NULL);
    struct part *p;
    struct err e;

    if (cf == NULL || !json_is_object(set)) {
        log_warnx("partition=%s saved settings dropped: %s", name,
                  cf ? "unreadable" : "no longer configured");
        json_decref(set);
        return 0;
    }
    p = &ps->v[cf - ps->conf->parts];
    if (apply_set(ps->conf, p, set, &e) < 0) {
        log_warnx("partition=%s saved settings dropped: %s", name, e.text);
        json_decref(set);
        return 0;
    }
    json_decref(p->changed);
    p->changed = set;
    log_info("partition=%s run-time settings restored: %s", name, text);
    return 0;
}

struct parts *parts_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, struct err *e)
{
    struct parts *ps = xcalloc(1, sizeof(*ps));

    ps->conf = conf;
    ps->persist = persist;
    ps->loop = loop;
    ps->n = conf->n_parts;
    ps->v = xcalloc(ps->n ? ps->n : 1, sizeof(*ps->v));
    for (size_t i = 0; i < ps->n; i++) {
        from_conf(&ps->v[i], &conf->parts[i]);
        ps->v[i].changed = json_object();
    }
    if (persist_part_load(persist, load_one, ps, e) < 0) {
        parts_destroy(ps);
        return NULL;
    }
    return ps;
}

void parts_destroy(struct parts *ps)
{
    if (ps == NULL)
        return;
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->v[i].node_idx);
        json_decref(ps->v[i].changed);
    }
    free(ps->v);
    free(ps);
}

const struct part *parts_get(const struct parts *ps, size_t idx)
{
    ASSERT(idx < ps->n);
    return &ps->v[idx];
}

int64_t parts_max_time(const struct parts *ps, size_t idx)
{
    return parts_get(ps, idx)->max_time_s;
}

bool parts_has_node(const struct parts *ps, size_t part, size_t node)
{
    const struct part *p = parts_get(ps, part);

    for (size_t i = 0; i < p->n_nodes; i++)
        if (p->node_idx[i] == node)
            return true;
    return false;
}

int parts_update(struct parts *ps, size_t idx, json_t *set, struct err *e)
{
    struct part *p = &ps->v[idx];
    json_t *changed;
    char *text;
    int rc;

    if (!json_is_object(set) || json_object_size(set) == 0)
        return err_inval(e,
                         "PART_UPDATE: expected \"set\": {...} with a setting");
    /* the transaction first: a change that cannot be written is not made */
    if (loop_write(ps->loop, e) < 0 || apply_set(ps->conf, p, set, e) < 0)
        return -1;
    changed = json_deep_copy(p->changed);
    json_object_update(changed, set);
    json_decref(p->changed);
    p->changed = changed;
    text = json_dumps(changed, JSON_COMPACT | JSON_SORT_KEYS);
    if (text == NULL)
        fatalx("out of memory encoding partition %s", p->cf->name);
    rc = persist_part_save(ps->persist, p->cf->name, text, e);
    log_info("partition=%s updated: %s%s", p->cf->name, text,
             rc < 0 ? " (not saved)" : "");
    free(text);
    return rc;
}

json_t *parts_to_json(const struct parts *ps, size_t idx)
{
    const struct part *p = parts_get(ps, idx);
    const struct conf *conf = ps->conf;
    struct hostlist *hl = hostlist_create();
    uint64_t cpus = 0;
    char *nodes;
    json_t *o;

    for (size_t i = 0; i < p->n_nodes; i++) {
        hostlist_push_host(hl, conf->nodes[p->node_idx[i]].name);
        cpus += conf->nodes[p->node_idx[i]].cpus;
    }
    hostlist_sort_uniq(hl);
    nodes = hostlist_compress(hl);
    hostlist_destroy(hl);
#define TIME(t) ((t) == TIMEFMT_INFINITE ? json_null() : json_integer(t))
#define COUNT(n) ((n) == CONF_UNLIMITED ? json_null() : json_integer(n))
    o = json_pack(
        "{s:s, s:s, s:b, s:s, s:I, s:I, s:o, s:o, s:i, s:i, s:o, s:i, s:b, "
        "s:O, s:o}",
        "name", p->cf->name, "state", conf_part_state_name(p->state), "default",
        p->cf->is_default, "nodes", nodes, "total_nodes",
        (json_int_t)p->n_nodes, "total_cpus", (json_int_t)cpus, "max_time_s",
        TIME(p->max_time_s), "default_time_s", TIME(p->default_time_s),
        "priority_tier", (int)p->priority_tier, "priority_job_factor",
        (int)p->cf->priority_job_factor, "max_nodes", COUNT(p->max_nodes),
        "min_nodes", (int)p->min_nodes, "exclusive_user", p->cf->exclusive_user,
        "changed", p->changed, "qos",
        p->cf->qos[0] != '\0' ? json_string(p->cf->qos) : json_null());
#undef TIME
#undef COUNT
    free(nodes);
    return o;
}
