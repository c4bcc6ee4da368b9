/*
 * The Alibaba GPU trace's CSV files (alibaba.h): pods into jobs, nodes
 * into a configuration.
 */
#include "sim/alibaba.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/value.h"
#include "common/xalloc.h"

#define CSV_FIELDS_MAX 32
#define CSV_FIELD_MAX 256

/* One CSV line [p, end) split at commas into f (no quoting in these
 * files); how many fields, or -1 when a field is too long or there are
 * too many. */
static int split(const char *p, const char *end, char f[][CSV_FIELD_MAX])
{
    int n = 0;

    for (;;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        const char *fe = c ? c : end;
        size_t len = (size_t)(fe - p);
        if (n == CSV_FIELDS_MAX || len >= CSV_FIELD_MAX)
            return -1;
        memcpy(f[n], p, len);
        f[n][len] = '\0';
        while (len > 0 && (f[n][len - 1] == '\r' || f[n][len - 1] == ' '))
            f[n][--len] = '\0';
        n++;
        if (c == NULL)
            return n;
        p = c + 1;
    }
}

/* Column indices by the header's names; -1 with e for a missing one. */
static int columns(char hdr[][CSV_FIELD_MAX], int nh, const char *const *want,
                   int *col, size_t nwant, const char *name, struct err *e)
{
    for (size_t k = 0; k < nwant; k++) {
        col[k] = -1;
        for (int i = 0; i < nh; i++)
            if (strcmp(hdr[i], want[k]) == 0)
                col[k] = i;
        if (col[k] < 0)
            return err_inval(e, "%s:1: no column %s", name, want[k]);
    }
    return 0;
}

/* A number field; "" gives -1 when empty_ok.  -1 with e. */
static int num(const char *s, bool empty_ok, int64_t *out, const char *col,
               const char *name, uint32_t line, struct err *e)
{
    uint64_t v;

    if (*s == '\0' && empty_ok) {
        *out = -1;
        return 0;
    }
    if (value_parse_u64(s, 0, INT64_MAX / 4, &v, NULL) < 0)
        return err_inval(e, "%s:%u: %s: \"%.32s\" is not a number", name, line,
                         col, s);
    *out = (int64_t)v;
    return 0;
}

enum {
    P_CPU,
    P_MEM,
    P_NGPU,
    P_GMILLI,
    P_SPEC,
    P_QOS,
    P_PHASE,
    P_CREATE,
    P_DELETE,
    P_SCHED,
    P_NCOLS
};

static const char *const pod_cols[P_NCOLS] = {
    "cpu_milli",      "memory_mib",    "num_gpu",
    "gpu_milli",      "gpu_spec",      "qos",
    "pod_phase",      "creation_time", "deletion_time",
    "scheduled_time",
};

static int pod_line(char f[][CSV_FIELD_MAX], int nf, const int *col,
                    const char *name, uint32_t line, struct sim_pod *pod,
                    struct err *e)
{
    static const struct {
        int c;
        size_t off;
        bool empty_ok;
    } nums[] = {
        {P_CPU, offsetof(struct sim_pod, cpu_milli), false},
        {P_MEM, offsetof(struct sim_pod, mem_mib), false},
        {P_NGPU, offsetof(struct sim_pod, num_gpu), false},
        {P_GMILLI, offsetof(struct sim_pod, gpu_milli), false},
        {P_CREATE, offsetof(struct sim_pod, created), false},
        {P_DELETE, offsetof(struct sim_pod, deleted), true},
        {P_SCHED, offsetof(struct sim_pod, scheduled), true},
    };

    memset(pod, 0, sizeof(*pod));
    pod->line = line;
    for (int k = 0; k < P_NCOLS; k++)
        if (col[k] >= nf)
            return err_inval(e, "%s:%u: expected %d fields, found %d", name,
                             line, col[k] + 1, nf);
    for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
        if (num(f[col[nums[k].c]], nums[k].empty_ok,
                (int64_t *)((char *)pod + nums[k].off), pod_cols[nums[k].c],
                name, line, e) < 0)
            return -1;
    snprintf(pod->gpu_spec, sizeof(pod->gpu_spec), "%s", f[col[P_SPEC]]);
    snprintf(pod->qos, sizeof(pod->qos), "%s", f[col[P_QOS]]);
    snprintf(pod->phase, sizeof(pod->phase), "%s", f[col[P_PHASE]]);
    return 0;
}

void sim_alibaba_free(struct sim_alibaba *a)
{
    free(a->pods);
    memset(a, 0, sizeof(*a));
}

/* The next line [*p, end) without its newline; false at the end. */
static bool next_line(const char **p, const char *end, const char **ls,
                      const char **le)
{
    const char *nl;

    if (*p >= end)
        return false;
    nl = memchr(*p, '\n', (size_t)(end - *p));
    *ls = *p;
    *le = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    return true;
}

int sim_alibaba_parse(const char *buf, size_t len, const char *name,
                      struct sim_alibaba *out, struct err *e)
{
    char f[CSV_FIELDS_MAX][CSV_FIELD_MAX];
    const char *p = buf, *end = buf + len, *ls, *le;
    int col[P_NCOLS], nf;
    uint32_t line = 1;

    memset(out, 0, sizeof(*out));
    if (!next_line(&p, end, &ls, &le) || (nf = split(ls, le, f)) < 0)
        return err_inval(e, "%s:1: expected a header of column names", name);
    if (columns(f, nf, pod_cols, col, P_NCOLS, name, e) < 0)
        return -1;
    while (next_line(&p, end, &ls, &le)) {
        line++;
        if (ls == le || (le - ls == 1 && *ls == '\r'))
            continue;
        if (memchr(ls, '\0', (size_t)(le - ls)) != NULL ||
            (nf = split(ls, le, f)) < 0)
            return err_inval(e, "%s:%u: a field too long, or too many", name,
                             line);
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 1024;
            out->pods = xreallocarray(out->pods, out->cap, sizeof(*out->pods));
        }
        if (pod_line(f, nf, col, name, line, &out->pods[out->n], e) < 0)
            return -1;
        out->n++;
    }
    return 0;
}

/* Some node of conf has typed GPUs. */
static bool typed_gpus(const struct conf *conf)
{
    for (size_t i = 0; i < conf->n_nodes; i++)
        for (size_t k = 0; k < conf->nodes[i].gres->n; k++)
            if (strcmp(conf->nodes[i].gres->items[k].name, "gpu") == 0 &&
                conf->nodes[i].gres->items[k].type[0] != '\0')
                return true;
    return false;
}

int sim_alibaba_jobs(const struct sim_alibaba *a, const struct conf *conf,
                     const struct sim_map *map, struct sim_trace *out,
                     struct err *e)
{
    bool typed = typed_gpus(conf);
    char type[64];

    for (size_t i = 0; i < a->n; i++) {
        const struct sim_pod *pod = &a->pods[i];
        const struct sim_map_entry *me = sim_map_find(map, pod->qos);
        const struct conf_part *cp = conf_part_default(conf);
        struct sim_job_in *j;
        time_t from;
        if (me != NULL && me->part[0] != '\0' &&
            (cp = conf_part_find(conf, me->part)) == NULL)
            return err_inval(e,
                             "--map: %s=%s: no partition %s in the "
                             "configuration",
                             me->from, me->part, me->part);
        if (cp == NULL)
            return err_inval(e, "the configuration has no partition");
        from = pod->scheduled;
        if (pod->scheduled < 0 || pod->deleted < 0 || pod->deleted < from) {
            out->skipped++;
            continue;
        }
        j = sim_trace_add(out);
        j->id = i + 1;
        j->line = pod->line;
        j->submit = pod->created;
        j->run_s = pod->deleted - from;
        j->rec_start = pod->scheduled;
        j->has_rec = true;
        j->part = sim_trace_intern(out, cp->name);
        j->qos = me != NULL ? sim_trace_intern(out, me->qos) : NULL;
        j->user = sim_trace_intern(out, "alibaba");
        j->cpus_per_node = (uint32_t)((pod->cpu_milli + 999) / 1000);
        if (j->cpus_per_node == 0)
            j->cpus_per_node = 1;
        j->mem_per_node_mib = (uint64_t)pod->mem_mib;
        j->gpus_per_node = (uint32_t)pod->num_gpu;
        if (me != NULL && me->gpu == SIM_MAP_GPU_NONE)
            j->gpus_per_node = 0;
        else if (me != NULL && me->gpu == SIM_MAP_GPU_FIXED && pod->num_gpu)
            j->gpus_per_node = me->gpus;
        if (typed && j->gpus_per_node > 0 && pod->gpu_spec[0] != '\0') {
            size_t n = strcspn(pod->gpu_spec, "|");
            snprintf(type, sizeof(type), "%.*s", (int)n, pod->gpu_spec);
            for (char *c = type; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            j->gpu_type = sim_trace_intern(out, type);
        }
    }
    return 0;
}

/* ---- the node list ------------------------------------------------------- */

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOLS };

static const char *const node_cols[N_NCOLS] = {"sn", "cpu_milli", "memory_mib",
                                               "gpu", "model"};

/* Append to a growing string. */
static void cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(*s + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = 2 * *cap + (size_t)(n > 0 ? n : 0);
        *s = xrealloc(*s, *cap);
    }
}

/* A node name or GPU model: letters, digits, '-', '_', '.'. */
static bool plain(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return false;
    return true;
}

char *sim_alibaba_conf(const char *buf, size_t len, const char *name,
                       struct err *e)
{
    char f[CSV_FIELDS_MAX][CSV_FIELD_MAX];
    const char *p = buf, *end = buf + len, *ls, *le;
    size_t olen = 0, cap = 4096;
    char *o = xmalloc(cap);
    int col[N_NCOLS], nf;
    uint32_t line = 1;
    int64_t v[3] = {0, 0, 0};

    o[0] = '\0';
    if (!next_line(&p, end, &ls, &le) || (nf = split(ls, le, f)) < 0) {
        err_inval(e, "%s:1: expected a header of column names", name);
        goto error;
    }
    if (columns(f, nf, node_cols, col, N_NCOLS, name, e) < 0)
        goto error;
    cat(&o, &olen, &cap,
        "# made by sluice simulate from %s\nClusterName=alibaba\n"
        "SlurmctldHost=sim\nGresTypes=gpu\nSchedulerType=sched/backfill\n"
        "PriorityType=priority/multifactor\n",
        name);
    while (next_line(&p, end, &ls, &le)) {
        line++;
        if (ls == le || (le - ls == 1 && *ls == '\r'))
            continue;
        if (memchr(ls, '\0', (size_t)(le - ls)) != NULL ||
            (nf = split(ls, le, f)) < 0 || nf <= col[N_MODEL] ||
            nf <= col[N_SN] || nf <= col[N_CPU] || nf <= col[N_MEM] ||
            nf <= col[N_GPU]) {
            err_inval(e, "%s:%u: expected %d fields", name, line, N_NCOLS);
            goto error;
        }
        if (num(f[col[N_CPU]], false, &v[0], "cpu_milli", name, line, e) < 0 ||
            num(f[col[N_MEM]], false, &v[1], "memory_mib", name, line, e) < 0 ||
            num(f[col[N_GPU]], false, &v[2], "gpu", name, line, e) < 0)
            goto error;
        if (!plain(f[col[N_SN]]) || (v[2] > 0 && !plain(f[col[N_MODEL]]))) {
            err_inval(e,
                      "%s:%u: a node name or model of letters, digits, "
                      "'-', '_' and '.' expected",
                      name, line);
            goto error;
        }
        for (char *c = f[col[N_MODEL]]; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        cat(&o, &olen, &cap, "NodeName=%s CPUs=%lld RealMemory=%lld",
            f[col[N_SN]], (long long)(v[0] / 1000 > 0 ? v[0] / 1000 : 1),
            (long long)v[1]);
        if (v[2] > 0)
            cat(&o, &olen, &cap, " Gres=gpu:%s:%lld", f[col[N_MODEL]],
                (long long)v[2]);
        cat(&o, &olen, &cap, "\n");
    }
    cat(&o, &olen, &cap,
        "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE "
        "State=UP\n");
    return o;
error:
    free(o);
    errno = EINVAL;
    return NULL;
}
