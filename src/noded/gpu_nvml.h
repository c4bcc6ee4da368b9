/*
 * NVML through dlopen: libnvidia-ml.so.1 is loaded at run time (the build
 * needs no CUDA or NVML headers; the few functions and types used are
 * declared in gpu_nvml.c), every GPU is read, and the library is shut
 * down and unloaded again.
 */
#ifndef SLUICE_NODED_GPU_NVML_H
#define SLUICE_NODED_GPU_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* The library loaded unless SLUICE_NVML_LIBRARY names another (tests). */
#define GPU_NVML_LIBRARY "libnvidia-ml.so.1"
/* The most GPUs read from NVML. */
#define GPU_NVML_MAX_DEVICES 256

/* One GPU as NVML reports it, in NVML's index order. */
struct gpu_nvml_dev {
    char name[96];       /* "NVIDIA H200"; "" when NVML would not say */
    char uuid[96];       /* "GPU-5a3c..."; "" when unknown */
    char pci_bus_id[32]; /* "00000000:19:00.0"; "" when unknown */
    int minor;           /* N of /dev/nvidiaN; -1 when unknown */
    uint64_t memory_mib; /* total memory; 0 when unknown */
    /* NVLinks to each other GPU of the list (by index; -1 for itself);
     * NULL when the driver reports no NVLink. */
    int *links;
};

/*
 * gpu_nvml_probe: load the library, nvmlInit, read every device, shut
 * down, unload.  0 with *devs (a new array of *n entries; free with
 * gpu_nvml_free), possibly none.  -1 with errno ENOENT and e ("NVML not
 * found: libnvidia-ml.so.1: cannot open shared object file: ...") when the
 * library cannot be loaded or lacks a function it must have, or EIO and e
 * ("nvmlInit failed: Driver Not Loaded") when NVML does not start or
 * cannot count its devices.  A device that cannot be read is logged and
 * left out.
 */
int gpu_nvml_probe(struct gpu_nvml_dev **devs, size_t *n, struct err *e);
void gpu_nvml_free(struct gpu_nvml_dev *devs, size_t n);

#endif
