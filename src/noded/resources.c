/*
 * Resource detection for sluiced: CPUs from the affinity mask, memory
 * from /proc/meminfo, GPUs from gres.conf (count-only lines give GPUs
 * without device files).  NVML detection comes in a later issue.
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

static void gpu_add(struct resources *r, const char *type, const char *file)
{
    struct resources_gpu *gpu;

    if (r->n_gpus >= RESOURCES_MAX_GPUS)
        return;
    r->gpus = xreallocarray(r->gpus, r->n_gpus + 1, sizeof(*r->gpus));
    gpu = &r->gpus[r->n_gpus++];
    snprintf(gpu->type, sizeof(gpu->type), "%s", type);
    gpu->file = file ? xstrdup(file) : NULL;
}

/* A File= line counts the device files that exist here: a GPU declared but
 * missing is not reported (the controller then says why jobs wait). */
static uint64_t rec_count(struct resources *r, const struct gresconf_rec *rec)
{
    struct stat st;
    uint64_t n = 0;
    bool gpu = strcmp(rec->name, "gpu") == 0;

    if (rec->n_files == 0) {
        for (uint64_t k = 0; gpu && k < rec->count; k++)
            gpu_add(r, rec->type, NULL);
        return rec->count;
    }
    for (size_t k = 0; k < rec->n_files; k++) {
        if (stat(rec->files[k], &st) < 0) {
            log_warnx("%s:%d: %s: %s; not reported", rec->loc.file,
                      rec->loc.line, rec->files[k], strerror(errno));
            continue;
        }
        n++;
        if (gpu)
            gpu_add(r, rec->type, rec->files[k]);
    }
    return n;
}

static void gpus_from(struct resources *r, const struct gresconf *g)
{
    struct gres_list l = {0};

    for (size_t i = 0; i < g->n; i++) {
        const struct gresconf_rec *rec = &g->recs[i];
        uint64_t n = rec_count(r, rec);
        if (n > 0)
            gres_add(&l, rec->name, rec->type, n);
    }
    gres_format(&l, r->gres, sizeof(r->gres));
}

static int detect_gres(const struct conf *c, const struct conf_node *node,
                       struct resources *r, struct err *e)
{
    char *path = resources_dir_join(c->path, "gres.conf");
    struct conf_diag diag;
    struct gresconf *g;
    struct stat st;
    char line[600];

    if (stat(path, &st) < 0 && errno == ENOENT) {
        free(path);
        return 0;
    }
    conf_diag_init(&diag);
    g = gresconf_load(path, node->name, &diag, e);
    for (size_t i = 0; i < diag.n; i++)
        if (diag.items[i].severity == CONF_WARNING)
            log_warnx("%s",
                      conf_diag_format(&diag.items[i], line, sizeof(line)));
    conf_diag_free(&diag);
    if (g == NULL) {
        free(path);
        return -1;
    }
    if (g->autodetect != GRESCONF_AUTODETECT_OFF)
        log_warnx("gres.conf=%s AutoDetect=nvml is not supported yet; "
                  "reporting the GPUs of its Name= lines only",
                  path);
    gpus_from(r, g);
    r->gres_conf = path;
    gresconf_destroy(g);
    return 0;
}

int resources_detect(const struct conf *c, const struct conf_node *node,
                     struct resources *r, struct err *e)
{
    memset(r, 0, sizeof(*r));
    r->cpus_found = resources_cpus();
    if (read_meminfo(&r->mem_mib_found, e) < 0)
        return -1;
    r->cpus = r->cpus_found;
    r->mem_mib = r->mem_mib_found;
    if (c->slurmd_config_overrides) {
        r->overrides = true;
        r->cpus = node->cpus;
        r->mem_mib = node->mem_mib;
    }
    if (detect_gres(c, node, r, e) < 0) {
        resources_fini(r);
        return -1;
    }
    return 0;
}

void resources_fini(struct resources *r)
{
    for (size_t i = 0; i < r->n_gpus; i++)
        free(r->gpus[i].file);
    free(r->gpus);
    free(r->gres_conf);
    memset(r, 0, sizeof(*r));
}

json_t *resources_gpus_json(const struct resources *r)
{
    json_t *a = json_array();

    for (size_t i = 0; i < r->n_gpus; i++) {
        const struct resources_gpu *g = &r->gpus[i];
        json_array_append_new(
            a, json_pack("{s:I, s:s, s:o}", "index", (json_int_t)i, "type",
                         g->type, "file",
                         g->file ? json_string(g->file) : json_null()));
    }
    return a;
}
