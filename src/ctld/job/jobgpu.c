/*
 * GPU requests of a job, normalised to GPUs per node (see jobgpu.h and
 * docs/cli.md), and the job's GPU fields in JSON.
 */
#include "ctld/job/jobgpu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/cluster/nodegpu.h"
#include "ctld/cluster/tres.h"
#include "sched/sched.h"

/* One way of asking, as read. */
struct gpu_ask {
    char type[GRES_NAME_MAX];
    uint64_t count;
};

/* "[gpu:][TYPE:]N" of key into a. */
static int parse_count(const char *key, const char *s, struct gpu_ask *a,
                       struct err *e)
{
    const char *v = strncmp(s, "gpu:", 4) == 0 ? s + 4 : s;
    const char *num = strrchr(v, ':') ? strrchr(v, ':') + 1 : v;
    char *text = xasprintf("gpu:%s", v);
    struct gres_list l;
    int rc = gres_parse(text, &l, NULL);

    free(text);
    if (rc < 0 || l.n != 1 || num[0] == '\0' ||
        strspn(num, "0123456789") != strlen(num) || l.items[0].sockets[0])
        return err_inval(e, "job %s \"%.64s\": expected N or TYPE:N", key, s);
    memcpy(a->type, l.items[0].type, sizeof(a->type));
    a->count = l.items[0].count;
    return 0;
}

/* --gres: only gpu, one type. */
static int parse_gres(const char *s, struct gpu_ask *a, struct err *e)
{
    struct gres_list l;
    size_t n = 0;

    if (gres_parse(s, &l, e) < 0)
        return err_prefix(e, "job gres");
    for (size_t i = 0; i < l.n; i++) {
        if (strcmp(l.items[i].name, "gpu") != 0)
            return err_inval(
                e,
                "job gres \"%.64s\": only gpu can be requested (%s "
                "is not scheduled)",
                s, l.items[i].name);
        memcpy(a->type, l.items[i].type, sizeof(a->type));
        a->count = l.items[i].count;
        n++;
    }
    if (n > 1)
        return err_inval(
            e, "job gres \"%.64s\": one GPU request per job (one type)", s);
    return 0;
}

static const char *opt_str(json_t *spec, const char *key, struct err *e,
                           int *rc)
{
    json_t *v = json_object_get(spec, key);

    if (v == NULL || json_is_null(v))
        return NULL;
    if (!json_is_string(v) || json_string_length(v) > 256) {
        *rc =
            err_inval(e, "job %s: expected a string \"N\" or \"TYPE:N\"", key);
        return NULL;
    }
    return json_string_value(v);
}

static int opt_u64(json_t *spec, const char *key, uint64_t max, uint64_t *out,
                   struct err *e)
{
    json_t *v = json_object_get(spec, key);

    *out = 0;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        (uint64_t)json_integer_value(v) > max)
        return err_inval(e, "job %s: expected an integer 1-%" PRIu64, key, max);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* The four ways of asking, per node; *ways names those used. */
static int gpus_asked(const struct job *j, struct gpu_ask *per_node, char *ways,
                      size_t len, int *n, struct err *e)
{
    struct gpu_ask a;
    uint64_t tasks_per_node = (j->ntasks + j->nodes - 1) / j->nodes;

    memset(per_node, 0, sizeof(*per_node));
    *n = 0;
#define WAY(name)                                                              \
    do {                                                                       \
        snprintf(ways + strlen(ways), len - strlen(ways), "%s%s",              \
                 *n ? " and " : "", name);                                     \
        (*n)++;                                                                \
        *per_node = a;                                                         \
    } while (0)
    if (j->gres != NULL) {
        memset(&a, 0, sizeof(a));
        if (parse_gres(j->gres, &a, e) < 0)
            return -1;
        if (a.count > 0 || a.type[0] != '\0')
            WAY("gres");
    }
    if (j->gpus != NULL) {
        if (parse_count("gpus", j->gpus, &a, e) < 0)
            return -1;
        a.count = (a.count + j->nodes - 1) / j->nodes;
        WAY("gpus");
    }
    if (j->req_gpus_per_node != NULL) {
        if (parse_count("gpus_per_node", j->req_gpus_per_node, &a, e) < 0)
            return -1;
        WAY("gpus_per_node");
    }
    if (j->req_gpus_per_task != NULL) {
        if (parse_count("gpus_per_task", j->req_gpus_per_task, &a, e) < 0)
            return -1;
        a.count = a.count > UINT64_MAX / tasks_per_node
                      ? UINT64_MAX
                      : a.count * tasks_per_node;
        WAY("gpus_per_task");
    }
#undef WAY
    return 0;
}

/* cpus_per_gpu and mem_per_gpu_mib: what they exclude and imply. */
static int per_gpu(json_t *spec, struct job *j, struct err *e)
{
    uint64_t cpg, mpg;
    json_t *cpt = json_object_get(spec, "cpus_per_task");

    if (opt_u64(spec, "cpus_per_gpu", 65535, &cpg, e) < 0 ||
        opt_u64(spec, "mem_per_gpu_mib", UINT64_C(1) << 40, &mpg, e) < 0)
        return -1;
    if ((cpg || mpg) && j->gpus_per_node == 0)
        return err_inval(e,
                         "job %s needs GPUs (gres, gpus, gpus_per_node or "
                         "gpus_per_task)",
                         cpg ? "cpus_per_gpu" : "mem_per_gpu_mib");
    if (cpg && cpt != NULL && !json_is_null(cpt))
        return err_inval(e, "job cpus_per_gpu and cpus_per_task are mutually "
                            "exclusive");
    if (mpg && (j->mem_mib || j->mem_per_cpu_mib))
        return err_inval(e,
                         "job mem_mib, mem_per_cpu_mib and mem_per_gpu_mib are "
                         "mutually exclusive");
    j->cpus_per_gpu = (uint32_t)cpg;
    j->mem_per_gpu_mib = mpg;
    if (cpg * j->gpus_per_node > j->cpus_per_node)
        j->cpus_per_node = (uint32_t)(cpg * j->gpus_per_node);
    return 0;
}

int jobgpu_parse(json_t *spec, struct job *j, struct err *e)
{
    struct gpu_ask a;
    char ways[128] = "";
    const char *gpn, *gpt;
    int n, rc = 0;

    gpn = opt_str(spec, "gpus_per_node", e, &rc);
    gpt = opt_str(spec, "gpus_per_task", e, &rc);
    if (rc < 0)
        return -1;
    j->req_gpus_per_node = gpn ? xstrdup(gpn) : NULL;
    j->req_gpus_per_task = gpt ? xstrdup(gpt) : NULL;
    if (gpus_asked(j, &a, ways, sizeof(ways), &n, e) < 0)
        return -1;
    if (n > 1)
        return err_inval(
            e, "job asks for GPUs in more than one way (%s): give one", ways);
    if (a.count > SCHED_GPU_MAX)
        return err_inval(e,
                         "requested %" PRIu64
                         " GPUs per node but a node has at "
                         "most %d",
                         a.count, SCHED_GPU_MAX);
    j->gpus_per_node = (uint32_t)a.count;
    j->gpu_type = a.type[0] && a.count ? xstrdup(a.type) : NULL;
    return per_gpu(spec, j, e);
}

uint64_t jobgpu_node_gpus(const struct job *j, const struct conf_node *n)
{
    return gres_count(n->gres, "gpu", j->gpu_type);
}

int jobgpu_fit_error(const struct job *j, const struct conf_part *p,
                     uint64_t largest, struct err *e)
{
    char hint[128] = "";

    if (j->gpus != NULL)
        snprintf(hint, sizeof(hint),
                 " (gpus=%.32s over %u node%s: ask for "
                 "more nodes with -N)",
                 j->gpus, j->nodes, j->nodes == 1 ? "" : "s");
    if (j->gpu_type != NULL && largest == 0)
        return err_inval(e,
                         "requested %u GPUs of type %s per node but no node in "
                         "partition %s has GPUs of that type",
                         j->gpus_per_node, j->gpu_type, p->name);
    if (j->gpu_type != NULL)
        return err_inval(
            e,
            "requested %u GPUs of type %s per node but the largest "
            "node in partition %s has %" PRIu64 "%s",
            j->gpus_per_node, j->gpu_type, p->name, largest, hint);
    return err_inval(
        e,
        "requested %u GPUs per node but the largest node in partition "
        "%s has %" PRIu64 "%s",
        j->gpus_per_node, p->name, largest, hint);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *str_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *int_or_null(uint64_t v)
{
    return v != 0 ? json_integer((json_int_t)v) : json_null();
}

/* "gres:gpu:a100:2" (tres_per_node), or NULL without GPUs. */
static json_t *tres_per_node(const struct job *j)
{
    if (j->gpus_per_node == 0)
        return json_null();
    return json_sprintf("gres:gpu%s%s:%u", j->gpu_type ? ":" : "",
                        j->gpu_type ? j->gpu_type : "", j->gpus_per_node);
}

static void alloc_json(json_t *o, const struct job *j, const struct conf *conf)
{
    json_t *by_node = json_object(), *detail = json_array();
    uint32_t g = j->gpus_per_node;
    char list[512];

    for (size_t k = 0; j->gpu_alloc != NULL && k < j->n_alloc; k++) {
        json_t *a = json_array();
        for (uint32_t i = 0; i < g; i++)
            json_array_append_new(a, json_integer(j->gpu_alloc[k * g + i]));
        json_object_set_new(by_node, conf->nodes[j->alloc[k]].name, a);
        json_array_append_new(
            detail, json_sprintf("gpu%s%s:%u(IDX:%s)", j->gpu_type ? ":" : "",
                                 j->gpu_type ? j->gpu_type : "", g,
                                 nodegpu_idx_list(j->gpu_alloc + k * g, g, list,
                                                  sizeof(list))));
    }
    json_object_set_new(o, "gpu_alloc",
                        j->gpu_alloc != NULL ? by_node : json_null());
    if (j->gpu_alloc == NULL)
        json_decref(by_node);
    json_object_set_new(o, "gres_detail", detail);
}

void jobgpu_to_json(json_t *o, const struct job *j, const struct conf *conf)
{
    struct tres t = {
        .cpus = (uint64_t)j->cpus_per_node * j->nodes,
        .mem_mib = job_mem_per_node(j) * j->nodes,
        .nodes = j->nodes,
        .billing = (uint64_t)j->cpus_per_node * j->nodes,
        .gpus = (uint64_t)j->gpus_per_node * j->nodes,
        .gpu_type = j->gpu_type,
    };
    char buf[512];

    json_object_set_new(o, "gpus_per_node", str_or_null(j->req_gpus_per_node));
    json_object_set_new(o, "gpus_per_task", str_or_null(j->req_gpus_per_task));
    json_object_set_new(o, "cpus_per_gpu", int_or_null(j->cpus_per_gpu));
    json_object_set_new(o, "mem_per_gpu_mib", int_or_null(j->mem_per_gpu_mib));
    json_object_set_new(o, "tres_per_node", tres_per_node(j));
    json_object_set_new(o, "tres_req_str",
                        json_string(tres_format(&t, buf, sizeof(buf))));
    json_object_set_new(o, "tres_alloc_str",
                        j->n_alloc > 0 && j->state != JOB_PENDING
                            ? json_string(buf)
                            : json_null());
    alloc_json(o, j, conf);
}

static char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL ? xstrdup(s) : NULL;
}

/* tres_per_node "gres:gpu[:TYPE]:N" back into gpus_per_node, gpu_type. */
static void restore_per_node(struct job *j, json_t *o)
{
    const char *s = json_string_value(json_object_get(o, "tres_per_node"));
    struct gres_list l;

    if (s == NULL || strncmp(s, "gres:", 5) != 0 ||
        gres_parse(s + 5, &l, NULL) < 0 || l.n != 1 ||
        l.items[0].count > SCHED_GPU_MAX)
        return;
    j->gpus_per_node = (uint32_t)l.items[0].count;
    j->gpu_type = l.items[0].type[0] ? xstrdup(l.items[0].type) : NULL;
}

static void restore_alloc(struct job *j, json_t *o, const struct conf *conf)
{
    json_t *by_node = json_object_get(o, "gpu_alloc");
    uint32_t g = j->gpus_per_node;

    if (g == 0 || j->n_alloc == 0 || j->state == JOB_PENDING)
        return;
    j->gpu_alloc = xcalloc(j->n_alloc * g, sizeof(*j->gpu_alloc));
    for (size_t k = 0; k < j->n_alloc; k++) {
        json_t *a = json_object_get(by_node, conf->nodes[j->alloc[k]].name);
        for (uint32_t i = 0; i < g; i++) {
            json_t *v = json_array_get(a, i);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= SCHED_GPU_MAX) {
                log_warnx("job=%" PRIu64 " GPU indices on %s not in its "
                          "record: none restored",
                          j->id, conf->nodes[j->alloc[k]].name);
                free(j->gpu_alloc);
                j->gpu_alloc = NULL;
                return;
            }
            j->gpu_alloc[k * g + i] = (uint32_t)json_integer_value(v);
        }
    }
}

void jobgpu_from_json(struct job *j, json_t *o, const struct conf *conf)
{
    json_t *cpg = json_object_get(o, "cpus_per_gpu");
    json_t *mpg = json_object_get(o, "mem_per_gpu_mib");

    j->req_gpus_per_node = get_str(o, "gpus_per_node");
    j->req_gpus_per_task = get_str(o, "gpus_per_task");
    j->cpus_per_gpu = json_is_integer(cpg) && json_integer_value(cpg) > 0
                          ? (uint32_t)json_integer_value(cpg)
                          : 0;
    j->mem_per_gpu_mib = json_is_integer(mpg) && json_integer_value(mpg) > 0
                             ? (uint64_t)json_integer_value(mpg)
                             : 0;
    restore_per_node(j, o);
    restore_alloc(j, o, conf);
}
