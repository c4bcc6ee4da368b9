/*
 * Resource detection for sluiced: CPUs from the affinity mask, memory
 * from /proc/meminfo, GPUs from NVML or gres.conf (gpu.c), the other
 * generic resources from gres.conf.
 */
#include "noded/resources.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gresconf.h"
#include "common/log.h"
#include "common/xalloc.h"

uint32_t resources_cpus(void)
{
    cpu_set_t set;
    long n;

    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

/* One integer from a sysfs file; -1 when unreadable. */
static long read_long(const char *path)
{
    FILE *fp = fopen(path, "r");
    long v = -1;

    if (fp == NULL)
        return -1;
    if (fscanf(fp, "%ld", &v) != 1)
        v = -1;
    fclose(fp);
    return v;
}

/* Count distinct values of v[0..n). */
static uint32_t distinct(const long *v, size_t n)
{
    uint32_t d = 0;

    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && v[j] != v[i])
            j++;
        d += j == i;
    }
    return d;
}

void resources_topology(struct resources_topo *t)
{
    long n = sysconf(_SC_NPROCESSORS_CONF), pkg[1024], core[1024];
    char path[128];
    size_t k = 0;

    for (long i = 0; i < n && k < 1024; i++) {
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id",
                 i);
        if ((pkg[k] = read_long(path)) < 0)
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%ld/topology/core_id", i);
        core[k] = pkg[k] * 100000 + read_long(path);
        k++;
    }
    memset(t, 0, sizeof(*t));
    t->boards = 1;
    if (k == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        t->cpus = n > 0 ? (uint32_t)n : 1;
        t->sockets = 1;
        t->cores_per_socket = t->cpus;
        t->threads_per_core = 1;
        return;
    }
    t->cpus = (uint32_t)k;
    t->sockets = distinct(pkg, k);
    t->cores_per_socket = distinct(core, k) / t->sockets;
    if (t->cores_per_socket == 0)
        t->cores_per_socket = 1;
    t->threads_per_core = t->cpus / (t->sockets * t->cores_per_socket);
    if (t->threads_per_core == 0)
        t->threads_per_core = 1;
}

int resources_parse_meminfo(const char *text, uint64_t *mib)
{
    const char *p = text;
    unsigned long long kib;
    char unit[8];

    while (p != NULL && *p != '\0') {
        if (strncmp(p, "MemTotal:", 9) == 0) {
            if (sscanf(p + 9, "%llu %7s", &kib, unit) == 2 &&
                strcmp(unit, "kB") == 0) {
                *mib = kib / 1024;
                return 0;
            }
            break;
        }
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    errno = EINVAL;
    return -1;
}

static int read_meminfo(uint64_t *mib, struct err *e)
{
    char buf[8192];
    FILE *fp = fopen("/proc/meminfo", "r");
    size_t n;

    if (fp == NULL)
        return err_set(e, "cannot read /proc/meminfo: %s", strerror(errno));
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    if (resources_parse_meminfo(buf, mib) < 0)
        return err_set(e, "/proc/meminfo: no MemTotal line in kB");
    return 0;
}

char *resources_dir_join(const char *file, const char *path)
{
    const char *slash = strrchr(file, '/');

    if (path[0] == '/' || slash == NULL)
        return xstrdup(path);
    return xasprintf("%.*s/%s", (int)(slash - file), file, path);
}

/* Add count of name:type to l, merging with an equal item. */
static void gres_add(struct gres_list *l, const char *name, const char *type,
                     uint64_t count)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0 &&
            strcmp(l->items[i].type, type) == 0) {
            l->items[i].count += count;
            return;
        }
    if (l->n == GRES_MAX_ITEMS)
        return;
    snprintf(l->items[l->n].name, GRES_NAME_MAX, "%s", name);
    snprintf(l->items[l->n].type, GRES_NAME_MAX, "%s", type);
    l->items[l->n].count = count;
    l->items[l->n].sockets[0] = '\0';
    l->n++;
}

/* r->gres: the GPUs found, then the other names of gres.conf as written. */
static void gres_sum(struct resources *r, const struct gresconf *g)
{
    struct gres_list l = {0};

    gpu_list_gres(&r->gpus, &l);
    for (size_t i = 0; g != NULL && i < g->n; i++)
        if (strcmp(g->recs[i].name, "gpu") != 0)
            gres_add(&l, g->recs[i].name, g->recs[i].type, g->recs[i].count);
    gres_format(&l, r->gres, sizeof(r->gres));
}

/* gres.conf beside conf_path (if there is one) and the GPUs; want is the
 * node's configured GPU count. */
static int detect_gres(const char *conf_path, const char *node, uint64_t want,
                       bool probe, struct resources *r, struct err *e)
{
    char *path = resources_dir_join(conf_path, "gres.conf");
    struct gpu_source src = {node, NULL, want, probe};
    struct gresconf *g = NULL;
    struct conf_diag diag;
    struct stat st;
    char line[600];

    if (stat(path, &st) == 0 || errno != ENOENT) {
        conf_diag_init(&diag);
        g = gresconf_load(path, node, &diag, e);
        for (size_t i = 0; i < diag.n; i++)
            if (diag.items[i].severity == CONF_WARNING)
                log_warnx("%s",
                          conf_diag_format(&diag.items[i], line, sizeof(line)));
        conf_diag_free(&diag);
        if (g == NULL) {
            free(path);
            return -1;
        }
        r->gres_conf = path;
        src.gc = g;
    } else {
        free(path);
    }
    gpu_detect(&src, &r->gpus);
    gres_sum(r, g);
    gresconf_destroy(g);
    return 0;
}

int resources_detect(const struct conf *c, const struct conf_node *node,
                     bool probe, struct resources *r, struct err *e)
{
    memset(r, 0, sizeof(*r));
    r->cpus_found = resources_cpus();
    if (read_meminfo(&r->mem_mib_found, e) < 0)
        return -1;
    r->cpus = r->cpus_found;
    r->mem_mib = r->mem_mib_found;
    if (c != NULL && c->slurmd_config_overrides) {
        r->overrides = true;
        r->cpus = node->cpus;
        r->mem_mib = node->mem_mib;
    }
    if (detect_gres(c ? c->path : CONF_DEFAULT_PATH, node->name,
                    gres_count(node->gres, "gpu", NULL), probe, r, e) < 0) {
        resources_fini(r);
        return -1;
    }
    return 0;
}

int resources_probe(const char *conf_path, const char *node,
                    struct resources *r, struct err *e)
{
    memset(r, 0, sizeof(*r));
    struct resources_topo t;

    resources_topology(&t);
    r->cpus = r->cpus_found = t.cpus;
    if (read_meminfo(&r->mem_mib_found, e) < 0)
        return -1;
    r->mem_mib = r->mem_mib_found;
    if (detect_gres(conf_path, node, 0, true, r, e) < 0) {
        resources_fini(r);
        return -1;
    }
    return 0;
}

void resources_fini(struct resources *r)
{
    gpu_list_fini(&r->gpus);
    free(r->gres_conf);
    memset(r, 0, sizeof(*r));
}

json_t *resources_gpus_json(const struct resources *r)
{
    return gpu_list_json(&r->gpus);
}
