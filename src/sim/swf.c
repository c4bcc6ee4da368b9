/*
 * SWF traces (swf.h): the text into records, the records into jobs of a
 * configuration.
 */
#include "sim/swf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/gres.h"
#include "common/xalloc.h"

/* The largest magnitude a field may have (a century in seconds is 3e9). */
#define SWF_VALUE_MAX 1e15
/* Users drawn for a trace without users (Lublin's model). */
#define SWF_RANDOM_USERS 16

static const char *const field_names[SIM_SWF_FIELDS] = {
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
};

const char *sim_swf_field_name(enum sim_swf_field f)
{
    return (unsigned)f < SIM_SWF_FIELDS ? field_names[f] : "?";
}

void sim_swf_free(struct sim_swf *s)
{
    free(s->recs);
    memset(s, 0, sizeof(*s));
}

/* "; Key: value" header lines that size the source machine. */
static void header(struct sim_swf *s, const char *p, const char *end)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"MaxNodes:", offsetof(struct sim_swf, max_nodes)},
        {"MaxProcs:", offsetof(struct sim_swf, max_procs)},
        {"UnixStartTime:", offsetof(struct sim_swf, unix_start)},
    };
    char buf[64];
    size_t len;

    while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
        p++;
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        size_t kl = strlen(keys[k].key);
        if ((size_t)(end - p) <= kl || strncasecmp(p, keys[k].key, kl) != 0)
            continue;
        len = (size_t)(end - p - (ptrdiff_t)kl);
        if (len >= sizeof(buf))
            len = sizeof(buf) - 1;
        memcpy(buf, p + kl, len);
        buf[len] = '\0';
        char *stop;
        long long v = strtoll(buf, &stop, 10);
        while (*stop == ' ' || *stop == '\t' || *stop == '\r')
            stop++;
        if (stop != buf && *stop == '\0' && v > 0 && v <= SWF_VALUE_MAX)
            *(int64_t *)((char *)s + keys[k].off) = v;
    }
}

/* One job line [p, end) into r; -1 with e. */
static int job_line(const char *p, const char *end, const char *name,
                    uint32_t line, struct sim_swf_rec *r, struct err *e)
{
    char tok[48];
    size_t n = 0;

    r->line = line;
    while (p < end) {
        const char *t;
        size_t len;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == end)
            break;
        t = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        len = (size_t)(p - t);
        if (n == SIM_SWF_FIELDS) {
            n++;
            break;
        }
        if (len >= sizeof(tok))
            return err_inval(e,
                             "%s:%u: field %zu (%s): \"%.20s...\" is not a "
                             "number",
                             name, line, n + 1, field_names[n], t);
        memcpy(tok, t, len);
        tok[len] = '\0';
        char *stop;
        double v = strtod(tok, &stop);
        if (stop == tok || *stop != '\0' || !isfinite(v) ||
            fabs(v) > SWF_VALUE_MAX)
            return err_inval(e,
                             "%s:%u: field %zu (%s): \"%s\" is not a "
                             "number",
                             name, line, n + 1, field_names[n], tok);
        r->f[n++] = (int64_t)v;
    }
    if (n != SIM_SWF_FIELDS) {
        if (n > SIM_SWF_FIELDS)
            return err_inval(e, "%s:%u: expected 18 fields, found more", name,
                             line);
        return err_inval(e, "%s:%u: expected 18 fields, found %zu", name, line,
                         n);
    }
    return 0;
}

int sim_swf_parse(const char *buf, size_t len, const char *name,
                  struct sim_swf *out, struct err *e)
{
    const char *p = buf, *end = buf + len;
    uint32_t line = 0;

    memset(out, 0, sizeof(*out));
    out->max_nodes = out->max_procs = out->unix_start = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *q = p;
        line++;
        while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < le && *q == ';') {
            header(out, q, le);
        } else if (q < le) {
            if (memchr(q, '\0', (size_t)(le - q)) != NULL)
                return err_inval(e, "%s:%u: a NUL byte in the line", name,
                                 line);
            if (out->n == out->cap) {
                out->cap = out->cap ? 2 * out->cap : 1024;
                out->recs =
                    xreallocarray(out->recs, out->cap, sizeof(*out->recs));
            }
            if (job_line(q, le, name, line, &out->recs[out->n], e) < 0)
                return -1;
            out->n++;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* ---- records into jobs -------------------------------------------------- */

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return b == 0 ? a : (a + b - 1) / b;
}

/* The partition of record r: the map's, else the configuration's by
 * index, else the default; NULL with e when the map names none. */
static const struct conf_part *part_of(const struct conf *conf,
                                       const struct sim_map_entry *me,
                                       int64_t num, struct err *e)
{
    const struct conf_part *cp;

    if (me != NULL && me->part[0] != '\0') {
        if ((cp = conf_part_find(conf, me->part)) == NULL)
            err_inval(e, "--map: %s=%s: no partition %s in the configuration",
                      me->from, me->part, me->part);
        return cp;
    }
    if (num >= 0 && (uint64_t)num < conf->n_parts)
        return &conf->parts[num];
    if ((cp = conf_part_default(conf)) == NULL)
        err_inval(e, "the configuration has no partition");
    return cp;
}

/* The size of r on the nodes of cp: nodes, CPUs and GPUs per node. */
static void size_of(const struct sim_swf *s, const struct sim_swf_rec *r,
                    const struct conf *conf, const struct conf_part *cp,
                    const struct sim_map_entry *me, struct sim_job_in *j)
{
    const struct conf_node *tn =
        cp->n_nodes > 0 ? &conf->nodes[cp->node_idx[0]] : NULL;
    uint64_t tcpus = tn && tn->cpus ? tn->cpus : 1;
    uint64_t tgpus = tn ? gres_count(tn->gres, "gpu", NULL) : 0;
    int64_t procs =
        r->f[SWF_PROCS_REQ] > 0 ? r->f[SWF_PROCS_REQ] : r->f[SWF_PROCS_ALLOC];
    uint64_t src =
        s->max_procs > 0 && s->max_nodes > 0
            ? (uint64_t)div_up((uint64_t)s->max_procs, (uint64_t)s->max_nodes)
            : tcpus;
    uint64_t p = procs > 0 ? (uint64_t)procs : 1, nodes = div_up(p, src);
    double share;

    if (nodes > UINT32_MAX / 2)
        nodes = UINT32_MAX / 2;
    share = (double)p / (double)nodes / (double)src; /* of a node, <= 1 */
    j->nodes = (uint32_t)nodes;
    j->cpus_per_node = (uint32_t)ceil(share * (double)tcpus - 1e-9);
    if (j->cpus_per_node == 0)
        j->cpus_per_node = 1;
    if (me != NULL && me->gpu == SIM_MAP_GPU_SHARE) {
        j->gpus_per_node = (uint32_t)ceil(share * (double)tgpus - 1e-9);
        if (j->gpus_per_node == 0)
            j->gpus_per_node = 1;
    } else if (me != NULL && me->gpu == SIM_MAP_GPU_FIXED) {
        j->gpus_per_node = me->gpus;
    }
}

int sim_swf_jobs(const struct sim_swf *s, const struct conf *conf,
                 const struct sim_map *map, uint64_t seed,
                 struct sim_trace *out, struct err *e)
{
    struct sim_rng rng = {seed};
    time_t base = s->unix_start > 0 ? (time_t)s->unix_start : 0;
    char buf[32];

    out->origin = base;
    for (size_t i = 0; i < s->n; i++) {
        const struct sim_swf_rec *r = &s->recs[i];
        const struct sim_map_entry *me;
        const struct conf_part *cp;
        struct sim_job_in *j;
        snprintf(buf, sizeof(buf), "%lld", (long long)r->f[SWF_PARTITION]);
        me = sim_map_find(map, buf);
        if ((cp = part_of(conf, me, r->f[SWF_PARTITION], e)) == NULL)
            return -1;
        if (r->f[SWF_RUN] < 0 || r->f[SWF_SUBMIT] < 0) {
            out->skipped++;
            continue;
        }
        j = sim_trace_add(out);
        j->id = r->f[SWF_JOB] >= 0 ? (uint64_t)r->f[SWF_JOB] : i + 1;
        j->line = r->line;
        j->submit = base + (time_t)r->f[SWF_SUBMIT];
        j->run_s = r->f[SWF_RUN];
        j->limit_s = r->f[SWF_TIME_REQ] > 0
                         ? r->f[SWF_TIME_REQ]
                         : (int64_t)ceil((double)(j->run_s > 0 ? j->run_s : 1) *
                                         sim_rng_uniform(&rng, 1, 5));
        if (r->f[SWF_WAIT] >= 0)
            j->rec_start = j->submit + (time_t)r->f[SWF_WAIT];
        j->has_rec = r->f[SWF_WAIT] >= 0;
        j->part = sim_trace_intern(out, cp->name);
        j->qos = me != NULL ? sim_trace_intern(out, me->qos) : NULL;
        if (r->f[SWF_USER] >= 0)
            snprintf(buf, sizeof(buf), "u%lld", (long long)r->f[SWF_USER]);
        else
            snprintf(
                buf, sizeof(buf), "u%llu",
                (unsigned long long)(sim_rng_next(&rng) % SWF_RANDOM_USERS));
        j->user = sim_trace_intern(out, buf);
        if (r->f[SWF_GROUP] >= 0) {
            snprintf(buf, sizeof(buf), "g%lld", (long long)r->f[SWF_GROUP]);
            j->account = sim_trace_intern(out, buf);
        }
        size_of(s, r, conf, cp, me, j);
    }
    return 0;
}
