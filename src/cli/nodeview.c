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
#include "cli/showview.h"
#include "common/hostlist.h"
#include "common/version.h"
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

/* The letters of the partition rather than of its nodes. */
#define NV_PART_LETTERS "BgShILMprsV"

static const struct {
    char letter;
    const char *title;
} nv_headers[] = {
    {'a', "AVAIL"},
    {'A', "NODES(A/I)"},
    {'b', "ACTIVE_FEATURES"},
    {'B', "MAX_CPUS_PER_NODE"},
    {'c', "CPUS"},
    {'C', "CPUS(A/I/O/T)"},
    {'d', "TMP_DISK"},
    {'D', "NODES"},
    {'e', "FREE_MEM"},
    {'E', "REASON"},
    {'f', "AVAIL_FEATURES"},
    {'F', "NODES(A/I/O/T)"},
    {'g', "GROUPS"},
    {'G', "GRES"},
    {'h', "OVERSUBSCRIBE"},
    {'H', "TIMESTAMP"},
    {'I', "PRIO_JOB_FACTOR"},
    {'l', "TIMELIMIT"},
    {'L', "DEFAULTTIME"},
    {'m', "MEMORY"},
    {'M', "PREEMPT_MODE"},
    {'n', "HOSTNAMES"},
    {'N', "NODELIST"},
    {'o', "NODE_ADDR"},
    {'O', "CPU_LOAD"},
    {'p', "PRIO_TIER"},
    {'P', "PARTITION"},
    {'r', "ROOT"},
    {'R', "PARTITION"},
    {'s', "JOB_SIZE"},
    {'S', "ALLOCNODES"},
    {'t', "STATE"},
    {'T', "STATE"},
    {'u', "USER"},
    {'U', "USER"},
    {'v', "VERSION"},
    {'V', "CLUSTER"},
    {'w', "WEIGHT"},
    {'X', "SOCKETS"},
    {'Y', "CORES"},
    {'Z', "THREADS"},
    {'z', "S:C:T"},
    {NV_X_ALLOC_MEM, "ALLOCMEM"},
    {NV_X_GRES_USED, "GRES_USED"},
    {NV_X_PORT, "PORT"},
    {NV_X_COMMENT, "COMMENT"},
};

/* sinfo -O's names and the letter (or code) of each. */
static const struct {
    const char *name;
    char code;
} nv_named[] = {
    {"AllocMem", NV_X_ALLOC_MEM},
    {"AllocNodes", 'S'},
    {"Available", 'a'},
    {"Cluster", 'V'},
    {"Comment", NV_X_COMMENT},
    {"Cores", 'Y'},
    {"CPUs", 'c'},
    {"CPUsLoad", 'O'},
    {"CPUsState", 'C'},
    {"DefaultTime", 'L'},
    {"Disk", 'd'},
    {"Features", 'f'},
    {"features_act", 'b'},
    {"FreeMem", 'e'},
    {"Gres", 'G'},
    {"GresUsed", NV_X_GRES_USED},
    {"Groups", 'g'},
    {"MaxCPUsPerNode", 'B'},
    {"Memory", 'm'},
    {"NodeAddr", 'o'},
    {"NodeAI", 'A'},
    {"NodeAIOT", 'F'},
    {"NodeHost", 'n'},
    {"NodeList", 'N'},
    {"Nodes", 'D'},
    {"OverSubscribe", 'h'},
    {"Partition", 'P'},
    {"PartitionName", 'R'},
    {"Port", NV_X_PORT},
    {"PreemptMode", 'M'},
    {"PriorityJobFactor", 'I'},
    {"PriorityTier", 'p'},
    {"Reason", 'E'},
    {"Root", 'r'},
    {"Size", 's'},
    {"SocketCoreThread", 'z'},
    {"Sockets", 'X'},
    {"StateCompact", 't'},
    {"StateLong", 'T'},
    {"Threads", 'Z'},
    {"Time", 'l'},
    {"TmpDisk", 'd'}, /* Slurm's name is Disk; this one is often guessed */
    {"TimeStamp", 'H'},
    {"User", 'u'},
    {"UserLong", 'U'},
    {"Version", 'v'},
    {"Weight", 'w'},
};

int nodeview_field_code(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(nv_named) / sizeof(nv_named[0]); i++)
        if (strlen(nv_named[i].name) == len &&
            strncasecmp(nv_named[i].name, name, len) == 0)
            return nv_named[i].code;
    return -1;
}

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
    return letter > ' ' && strchr("ACDFN", letter) != NULL;
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

static const char *nv_int(json_t *node, const char *key, long long dflt,
                          char *buf, size_t len)
{
    snprintf(buf, len, "%lld", jobview_int(node, key, dflt));
    return buf;
}

static const char *nv_str(json_t *node, const char *key)
{
    const char *s = jobview_str(node, key, NULL);

    return s != NULL && s[0] != '\0' ? s : "(null)";
}

/* The node's shape; Slurm infers from CPUs= alone one core per socket
 * and one thread per core. */
static long long nv_threads(json_t *node)
{
    long long t = jobview_int(node, "threads_per_core", 1);

    return t > 0 ? t : 1;
}

static long long nv_cores(json_t *node)
{
    long long c = jobview_int(node, "cores_per_socket", 1);

    return c > 0 ? c : 1;
}

static long long nv_sockets(json_t *node)
{
    long long s = jobview_int(node, "sockets", 0);
    long long per = nv_cores(node) * nv_threads(node);

    if (s <= 0)
        s = jobview_int(node, "cpus", 1) / per;
    return s > 0 ? s : 1;
}

static const char *nv_sct(json_t *node, char *buf, size_t len)
{
    snprintf(buf, len, "%lld:%lld:%lld", nv_sockets(node), nv_cores(node),
             nv_threads(node));
    return buf;
}

static const char *nv_mem_text(long long mib, char *buf, size_t len)
{
    snprintf(buf, len, "%lld", mib > 0 ? mib : 0);
    return buf;
}

/* Node letters that have nothing to do with state or counts. */
static const char *nv_node_more(char letter, json_t *node, char *buf,
                                size_t len)
{
    switch (letter) {
    case 'b':
        return jobview_str(node, "active_features", NULL) != NULL
                   ? nv_str(node, "active_features")
                   : nv_str(node, "features");
    case 'd':
        return nv_int(node, "tmp_disk_mib", 0, buf, len);
    case 'e':
        if (!json_is_integer(json_object_get(node, "free_mem_mib")))
            return "N/A";
        return nv_int(node, "free_mem_mib", 0, buf, len);
    case 'f':
        return nv_str(node, "features");
    case 'n':
        return jobview_str(node, "hostname", jobview_str(node, "name", ""));
    case 'o':
        return jobview_str(node, "addr", jobview_str(node, "name", ""));
    case 'O':
        if (!json_is_number(json_object_get(node, "cpu_load")))
            return "N/A";
        snprintf(buf, len, "%.2f",
                 json_number_value(json_object_get(node, "cpu_load")));
        return buf;
    case 'U':
        return nv_reason_user(node);
    case 'v':
        return jobview_str(node, "version", SLUICE_VERSION);
    case 'w':
        return nv_int(node, "weight", 1, buf, len);
    case 'X':
        snprintf(buf, len, "%lld", nv_sockets(node));
        return buf;
    case 'Y':
        snprintf(buf, len, "%lld", nv_cores(node));
        return buf;
    case 'Z':
        snprintf(buf, len, "%lld", nv_threads(node));
        return buf;
    case 'z':
        return nv_sct(node, buf, len);
    case NV_X_ALLOC_MEM:
        return nv_mem_text(jobview_int(node, "mem_alloc_mib", 0), buf, len);
    case NV_X_GRES_USED:
        return jobview_str(node, "gres", NULL) != NULL &&
                       jobview_str(node, "gres", "")[0] != '\0'
                   ? nv_str(node, "gres_used")
                   : "(null)";
    case NV_X_PORT:
        return nv_int(node, "port", 0, buf, len);
    case NV_X_COMMENT:
        return nv_str(node, "comment");
    default:
        return "?";
    }
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
        return nv_node_more(letter, node, buf, len);
    }
}

/* "allocated/idle" node counts (sinfo %A). */
static const char *nv_ai(json_t *nodes, char *buf, size_t len)
{
    long long a = 0, idle = 0;
    size_t i;
    json_t *n;

    json_array_foreach(nodes, i, n)
    {
        const char *st = jobview_str(n, "state", "");
        if (strcmp(st, "ALLOCATED") == 0 || strcmp(st, "MIXED") == 0)
            a++;
        else if (strcmp(st, "IDLE") == 0)
            idle++;
    }
    snprintf(buf, len, "%lld/%lld", a, idle);
    return buf;
}

/* Partition letters other than a, l, P, R. */
static const char *nv_part_value(char letter, json_t *part, char *buf,
                                 size_t len)
{
    long long v;

    if (part == NULL)
        return "n/a";
    switch (letter) {
    case 'B':
        return "UNLIMITED";
    case 'g':
    case 'S':
        return "all";
    case 'h':
        return jobview_str(part, "oversubscribe", "NO");
    case 'I':
        snprintf(buf, len, "%lld", jobview_int(part, "priority_job_factor", 1));
        return buf;
    case 'L':
        v = jobview_int(part, "default_time_s", -1);
        return v < 0 ? "n/a"
                     : fmt_duration((v + 59) / 60 * 60, "n/a", buf, len);
    case 'M':
        return showview_upper(jobview_str(part, "preempt_mode", "off"), buf,
                              len);
    case 'p':
        snprintf(buf, len, "%lld", jobview_int(part, "priority_tier", 1));
        return buf;
    case 'r':
        return "no";
    case 's':
        v = jobview_int(part, "max_nodes", -1);
        if (v < 0)
            snprintf(buf, len, "%lld-infinite",
                     jobview_int(part, "min_nodes", 0) > 0
                         ? jobview_int(part, "min_nodes", 0)
                         : 1);
        else if (v == (jobview_int(part, "min_nodes", 0) > 0
                           ? jobview_int(part, "min_nodes", 0)
                           : 1))
            snprintf(buf, len, "%lld", v);
        else
            snprintf(buf, len, "%lld-%lld",
                     jobview_int(part, "min_nodes", 0) > 0
                         ? jobview_int(part, "min_nodes", 0)
                         : 1,
                     v);
        return buf;
    case 'V':
        return jobview_str(part, "cluster", "N/A");
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
    case 'A':
        return nv_ai(r->nodes, buf, len);
    default:
        if (strchr(NV_PART_LETTERS, letter) != NULL && letter > ' ')
            return nv_part_value(letter, r->part, buf, len);
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
