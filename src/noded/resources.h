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
#include "noded/gpu.h"

struct resources {
    uint32_t cpus;
    uint64_t mem_mib;
    uint32_t cpus_found; /* what the machine has, whatever is reported */
    uint64_t mem_mib_found;
    bool overrides;       /* config_overrides: cpus/mem are the configured */
    char gres[256];       /* "gpu:4", "gpu:h200:8", or "" */
    char *gres_conf;      /* the gres.conf read, or NULL when none */
    struct gpu_list gpus; /* gpus.note: why fewer than configured */
};

/*
 * resources_detect: fill r for node of c.  gres.conf is looked for beside
 * c->path; a broken one is an error (e says where).  The GPUs come from
 * gpu_detect (NVML, device files that exist, count-only lines; without
 * gres.conf NVML is asked when the node is configured with GPUs); other
 * gres.conf names count as written.  probe asks NVML even when the node
 * is configured without GPUs (sluiced -C).  Free with resources_fini.
 */
int resources_detect(const struct conf *c, const struct conf_node *node,
                     bool probe, struct resources *r, struct err *e);
void resources_fini(struct resources *r);

/*
 * resources_probe: what this machine has, for sluiced -C: every online
 * CPU, all memory, the GPUs (NVML always asked; gres.conf beside
 * conf_path for node when there is one).  Free with resources_fini.
 */
int resources_probe(const char *conf_path, const char *node,
                    struct resources *r, struct err *e);

/* The CPU topology of the machine (sysfs; 1 socket of N cores when
 * unknown). */
struct resources_topo {
    uint32_t cpus, boards, sockets, cores_per_socket, threads_per_core;
};
void resources_topology(struct resources_topo *t);

/* resources_cpus: CPUs this process may run on (sched_getaffinity, else
 * the online count); at least 1. */
uint32_t resources_cpus(void);

/* resources_parse_meminfo: MemTotal of /proc/meminfo text, in MiB
 * (rounded down).  -1 with EINVAL when absent or malformed. */
int resources_parse_meminfo(const char *text, uint64_t *mib);

/* resources_gpus_json: [{"index":0,"type":"h200","file":"/dev/nvidia0"}]
 * (type "" and file null when count-only; more members from NVML, see
 * gpu_list_json).  New reference. */
json_t *resources_gpus_json(const struct resources *r);

/* resources_dir_join: path relative to the directory of file (a path
 * with a slash); an absolute path is returned as is.  Caller frees. */
char *resources_dir_join(const char *file, const char *path);

#endif
