/*
 * What a node has: CPUs (affinity mask), memory (/proc/meminfo) and GPUs
 * (declared in gres.conf beside the configuration).  With
 * SlurmdParameters=config_overrides the configured CPUs and memory are
 * reported instead, as Slurm does, so that a small machine can stand in
 * for the configured node.
 */
#ifndef SLUICE_NODED_RESOURCES_H
#define SLUICE_NODED_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/gres.h"

/* The most GPUs one node reports. */
#define RESOURCES_MAX_GPUS 4096

struct resources_gpu {
    char type[GRES_NAME_MAX]; /* "h200" or "" */
    char *file;               /* "/dev/nvidia0", or NULL when count-only */
};

struct resources {
    uint32_t cpus;
    uint64_t mem_mib;
    uint32_t cpus_found; /* what the machine has, whatever is reported */
    uint64_t mem_mib_found;
    bool overrides;  /* config_overrides: cpus/mem are the configured */
    char gres[256];  /* "gpu:4", "gpu:h200:8", or "" */
    char *gres_conf; /* the gres.conf read, or NULL when none */
    struct resources_gpu *gpus; /* n_gpus of them, in index order */
    size_t n_gpus;
};

/*
 * resources_detect: fill r for node of c.  gres.conf is looked for beside
 * c->path; its absence means no GPUs, a broken one is an error (e says
 * where).  A File= line counts the device files that exist (a missing one
 * is logged); a count-only line counts as written.  AutoDetect=nvml is
 * not supported yet: logged, and only the Name= lines count.  Free with
 * resources_fini.
 */
int resources_detect(const struct conf *c, const struct conf_node *node,
                     struct resources *r, struct err *e);
void resources_fini(struct resources *r);

/* resources_cpus: CPUs this process may run on (sched_getaffinity, else
 * the online count); at least 1. */
uint32_t resources_cpus(void);

/* resources_parse_meminfo: MemTotal of /proc/meminfo text, in MiB
 * (rounded down).  -1 with EINVAL when absent or malformed. */
int resources_parse_meminfo(const char *text, uint64_t *mib);

/* resources_gpus_json: [{"index":0,"type":"h200","file":"/dev/nvidia0"}]
 * (type "" and file null when count-only).  New reference. */
json_t *resources_gpus_json(const struct resources *r);

/* resources_dir_join: path relative to the directory of file (a path
 * with a slash); an absolute path is returned as is.  Caller frees. */
char *resources_dir_join(const char *file, const char *path);

#endif
