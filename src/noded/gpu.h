/*
 * The GPUs of this node: found by NVML (gres.conf AutoDetect=nvml, or no
 * gres.conf at all on a node configured with GPUs), declared by device
 * file (File=/dev/nvidia[0-3]) or by count (Name=gpu Count=4).  Each GPU
 * has an index (its place in the list; the controller allocates indices)
 * and an ordinal, the number jobs see in CUDA_VISIBLE_DEVICES.
 */
#ifndef SLUICE_NODED_GPU_H
#define SLUICE_NODED_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/gres.h"
#include "common/gresconf.h"

/* The most GPUs one node reports. */
#define GPU_MAX 4096

struct gpu {
    char type[GRES_NAME_MAX]; /* "h200" or "" */
    char *file;               /* "/dev/nvidia0", or NULL when count-only */
    int ordinal;              /* the device file's number, else the index */
    /* from NVML; NULL, -1 or 0 when not known */
    char *name;       /* "NVIDIA H200" */
    char *uuid;       /* "GPU-5a3c..." */
    char *pci_bus_id; /* "00000000:19:00.0" */
    int minor;
    uint64_t memory_mib;
    int *links; /* NVLinks to each GPU by index (-1: itself), n entries */
};

struct gpu_list {
    struct gpu *v; /* in index order */
    size_t n;
    bool nvml;      /* found by NVML */
    char note[480]; /* why fewer GPUs than wanted; "" when all is well */
};

/* What gpu_detect works from. */
struct gpu_source {
    const char *node;          /* NodeName, for messages */
    const struct gresconf *gc; /* this node's gres.conf lines; NULL: none */
    uint64_t want;             /* GPUs the configuration gives the node */
    bool probe;                /* ask NVML even without gres.conf (-C) */
};

/*
 * gpu_detect: the GPUs of s into l (cleared first).  Without gres.conf,
 * NVML is asked when s->want > 0 or s->probe.  With AutoDetect=nvml the
 * GPUs come from NVML (Type= of a gres.conf line naming the device file
 * wins over the type derived from NVML's name); when NVML fails, the
 * Name=gpu lines count.  A File= that does not exist is logged and left
 * out.  When fewer than s->want are found (or none while s->probe),
 * l->note says why, e.g. "no
 * gres.conf and NVML not found: install the NVIDIA driver or add
 * gres.conf".  Never fails; free with gpu_list_fini.
 */
void gpu_detect(const struct gpu_source *s, struct gpu_list *l);
void gpu_list_fini(struct gpu_list *l);

/* gpu_list_json: [{"index", "type", "file", and when known "name",
 * "uuid", "pci_bus_id", "minor", "memory_mib", "links"}].  New
 * reference. */
json_t *gpu_list_json(const struct gpu_list *l);

/* gpu_list_gres: add each type's count to g ("gpu:h200:2"). */
void gpu_list_gres(const struct gpu_list *l, struct gres_list *g);

/*
 * gpu_type_from_name: NVML's product name as a short GRES type: lower
 * case, the brand (NVIDIA, Tesla, GeForce, Quadro) dropped, the model up
 * to its first '-': "NVIDIA H200" -> "h200", "NVIDIA A100-SXM4-80GB" ->
 * "a100", "Tesla V100-SXM2-16GB" -> "v100", "NVIDIA GeForce RTX 4090" ->
 * "rtx_4090".  "gpu" when nothing is left.
 */
void gpu_type_from_name(const char *name, char *type, size_t len);

/* gpu_file_number: the number that ends a device file name
 * ("/dev/nvidia12" -> 12), or -1. */
int gpu_file_number(const char *file);

/*
 * gpu_print_gresconf: gres.conf lines for l on node (prefix "NodeName=X
 * "): "AutoDetect=nvml" when found by NVML, then Name=gpu lines with
 * Type=, File= (compressed, "/dev/nvidia[0-3]") or Count=, and Links=
 * (one line per GPU) when NVLinks are known.
 */
void gpu_print_gresconf(const struct gpu_list *l, const char *node, FILE *fp);

/* gpu_print_details: one "#   gpu0 ..." comment line per GPU with what
 * NVML said about it. */
void gpu_print_details(const struct gpu_list *l, FILE *fp);

#endif
