/*
 * sinfo's view of nodes and partitions over the NODE and PART objects of
 * docs/protocol.md: state words, format letters and row grouping.
 */
#include "cli/nodeview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/jobview.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

static const struct {
    const char *state, *shrt, *lng;
} nv_states[] = {
    {"IDLE", "idle", "idle"},
    {"MIXED", "mix", "mixed"},
    {"ALLOCATED", "alloc", "allocated"},
    {"DOWN", "down", "down"},
    {"DRAIN", "drain", "drained"},
    {"DRAINING", "drng", "draining"},
    {"INVALID", "inval", "invalid"},
    {"MAINT", "maint", "maint"}, /* in an active MAINT reservation */
    {"UNKNOWN", "unk", "unknown"},
};
#define NV_NSTATES (sizeof(nv_states) / sizeof(nv_states[0]))

static int nv_state_index(json_t *node)
{
    const char *s = jobview_str(node, "state", "UNKNOWN");

    /* Slurm's MAINT flag shows over IDLE, MIXED and ALLOCATED */
    if (json_is_true(json_object_get(node, "maint")) &&
        (strcmp(s, "IDLE") == 0 || strcmp(s, "MIXED") == 0 ||
         strcmp(s, "ALLOCATED") == 0))
        s = "MAINT";
    for (size_t i = 0; i < NV_NSTATES; i++)
        if (strcmp(s, nv_states[i].state) == 0)
            return (int)i;
    return (int)NV_NSTATES - 1;
}

/* Slurm marks a node that stopped answering with '*'. */
static bool nv_not_responding(json_t *node)
{
    return strcmp(jobview_str(node, "state", ""), "DOWN") == 0 &&
           strcmp(jobview_str(node, "reason", ""), "Not responding") == 0;
}

const char *nodeview_state_short(json_t *node)
{
    if (nv_not_responding(node))
        return "down*";
    return nv_states[nv_state_index(node)].shrt;
}

const char *nodeview_state_long(json_t *node)
{
    if (nv_not_responding(node))
        return "down*";
    return nv_states[nv_state_index(node)].lng;
}

bool nodeview_state_valid(const char *s)
{
    for (size_t i = 0; i < NV_NSTATES; i++)
        if (strcasecmp(s, nv_states[i].shrt) == 0 ||
            strcasecmp(s, nv_states[i].lng) == 0)
            return true;
    return false;
}

bool nodeview_state_match(json_t *node, const char *s)
{
    int i = nv_state_index(node);

    if (strcasecmp(s, "drain") == 0 &&
        (strcmp(nv_states[i].state, "DRAIN") == 0 ||
         strcmp(nv_states[i].state, "DRAINING") == 0))
        return true;
    return strcasecmp(s, nv_states[i].shrt) == 0 ||
           strcasecmp(s, nv_states[i].lng) == 0;
}

static const struct {
    char letter;
    const char *title;
} nv_headers[] = {
    {'a', "AVAIL"},     {'C', "CPUS(A/I/O/T)"}, {'c', "CPUS"},
    {'D', "NODES"},     {'E', "REASON"},        {'F', "NODES(A/I/O/T)"},
    {'G', "GRES"},      {'H', "TIMESTAMP"},     {'l', "TIMELIMIT"},
    {'m', "MEMORY"},    {'N', "NODELIST"},      {'P', "PARTITION"},
    {'R', "PARTITION"}, {'T', "STATE"},         {'t', "STATE"},
    {'u', "USER"},
};

const char *nodeview_header(char letter)
{
    for (size_t i = 0; i < sizeof(nv_headers) / sizeof(nv_headers[0]); i++)
        if (nv_headers[i].letter == letter)
            return nv_headers[i].title;
    return "?";
}

/* Fields computed over the whole row rather than from one node. */
static bool nv_aggregate(char letter)
{
    return strchr("CDFN", letter) != NULL;
}

static const char *nv_part_avail(json_t *part)
{
    const char *s = jobview_str(part, "state", "UP");

    if (strcmp(s, "UP") == 0)
        return "up";
    if (strcmp(s, "DOWN") == 0)
        return "down";
    if (strcmp(s, "DRAIN") == 0)
        return "drain";
    if (strcmp(s, "INACTIVE") == 0)
        return "inact";
    return "n/a";
}

static const char *nv_part_name(json_t *part, bool star, char *buf, size_t len)
{
    if (part == NULL)
        return "n/a";
    snprintf(buf, len, "%s%s", jobview_str(part, "name", ""),
             star && json_is_true(json_object_get(part, "default")) ? "*" : "");
    return buf;
}

static const char *nv_nodelist(json_t *nodes, char *buf, size_t len)
{
    struct hostlist *hl = hostlist_create();
    size_t i;
    json_t *n;
    char *s;

    json_array_foreach(nodes, i, n)
    {
        hostlist_push_host(hl, jobview_str(n, "name", "?"));
    }
    hostlist_sort_uniq(hl);
    s = hostlist_compress(hl);
    snprintf(buf, len, "%s", s);
    free(s);
    hostlist_destroy(hl);
    return buf;
}

/* "A/I/O/T" of CPUs (cpus) or of nodes. */
static const char *nv_aiot(json_t *nodes, bool cpus, char *buf, size_t len)
{
    long long a = 0, idle = 0, o = 0, t = 0;
    size_t i;
    json_t *n;

    json_array_foreach(nodes, i, n)
    {
        const char *st = jobview_str(n, "state", "UNKNOWN");
        long long tot = cpus ? jobview_int(n, "cpus", 0) : 1;
        long long al = cpus ? jobview_int(n, "cpus_alloc", 0)
                            : jobview_int(n, "cpus_alloc", 0) > 0;
        bool usable = strcmp(st, "IDLE") == 0 || strcmp(st, "MIXED") == 0 ||
                      strcmp(st, "ALLOCATED") == 0;
        t += tot;
        if (usable) {
            a += al;
            idle += tot - al;
        } else {
            o += tot;
        }
    }
    snprintf(buf, len, "%lld/%lld/%lld/%lld", a, idle, o, t);
    return buf;
}

static const char *nv_reason_user(json_t *node)
{
    return jobview_str(node, "reason_user", "Unknown");
}

static const char *nv_node_value(char letter, json_t *node, char *buf,
                                 size_t len)
{
    const char *s;

    switch (letter) {
    case 'c':
        snprintf(buf, len, "%lld", jobview_int(node, "cpus", 0));
        return buf;
    case 'E':
        s = jobview_str(node, "reason", "");
        return s[0] != '\0' ? s : "none";
    case 'G':
        s = jobview_str(node, "gres", "");
        return s[0] != '\0' ? s : "(null)";
    case 'H':
        return fmt_time((time_t)jobview_int(node, "reason_time", 0), "Unknown",
                        buf, len);
    case 'm':
        snprintf(buf, len, "%lld", jobview_int(node, "mem_mib", 0));
        return buf;
    case 'T':
        return nodeview_state_long(node);
    case 't':
        return nodeview_state_short(node);
    case 'u':
        return nv_reason_user(node);
    default:
        return "?";
    }
}

const char *nodeview_value(char letter, const void *ctx, char *buf, size_t len)
{
    const struct nodeview_row *r = ctx;
    json_t *first = json_array_get(r->nodes, 0);

    switch (letter) {
    case 'a':
        return r->part ? nv_part_avail(r->part) : "n/a";
    case 'C':
        return nv_aiot(r->nodes, true, buf, len);
    case 'D':
        snprintf(buf, len, "%zu", json_array_size(r->nodes));
        return buf;
    case 'F':
        return nv_aiot(r->nodes, false, buf, len);
    case 'l':
        if (r->part == NULL)
            return "n/a";
        return fmt_duration(jobview_int(r->part, "max_time_s", -1), "infinite",
                            buf, len);
    case 'N':
        return nv_nodelist(r->nodes, buf, len);
    case 'P':
        return nv_part_name(r->part, true, buf, len);
    case 'R':
        return nv_part_name(r->part, false, buf, len);
    default:
        return first ? nv_node_value(letter, first, buf, len) : "";
    }
}

/* The text of sp's non-aggregate fields for one node, as a group key. */
static char *nv_key(json_t *part, json_t *node, const struct fmt_spec *sp)
{
    json_t *one = json_array();
    struct nodeview_row r = {part, one};
    size_t cap = 256, used = 0;
    char *key = xmalloc(cap), buf[1024];

    key[0] = '\0';
    json_array_append(one, node);
    for (size_t i = 0; i < sp->n; i++) {
        const char *v;
        size_t vl;
        if (nv_aggregate(sp->fields[i].letter))
            continue;
        v = nodeview_value(sp->fields[i].letter, &r, buf, sizeof(buf));
        vl = strlen(v);
        while (used + vl + 2 > cap)
            key = xrealloc(key, cap *= 2);
        memcpy(key + used, v, vl);
        used += vl;
        key[used++] = '\x1f';
        key[used] = '\0';
    }
    json_decref(one);
    return key;
}

void nodeview_group(json_t *rows, json_t *part, json_t *nodes,
                    const struct fmt_spec *sp, bool per_node)
{
    json_t *index = json_object(), *node;
    size_t i;

    json_array_foreach(nodes, i, node)
    {
        char *key = per_node ? xstrdup(jobview_str(node, "name", "?"))
                             : nv_key(part, node, sp);
        json_t *row = json_object_get(index, key);
        if (row == NULL) {
            row = json_pack("{s:O?, s:[]}", "part", part, "nodes");
            json_array_append_new(rows, row);
            json_object_set(index, key, row);
        }
        json_array_append(json_object_get(row, "nodes"), node);
        free(key);
    }
    json_decref(index);
}
