/*
 * NVML loaded with dlopen: the handful of NVML types and functions that
 * GPU detection uses are declared here as NVML's header defines them, so
 * that neither CUDA nor the NVML headers are needed to build.
 */
#include "noded/gpu_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"

/* From nvml.h (the parts used; the ABI is stable across drivers). */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
#define NVML_SUCCESS 0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_FEATURE_ENABLED 1

struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_subsystem_id;
    char bus_id[32];
};

struct nvml_memory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

/* The functions, resolved by name; the optional ones may be NULL. */
struct nvml_api {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*count)(unsigned int *);
    nvml_return (*handle)(unsigned int, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned int);
    nvml_return (*uuid)(nvml_device, char *, unsigned int);
    nvml_return (*pci)(nvml_device, struct nvml_pci_info *);
    nvml_return (*minor)(nvml_device, unsigned int *);
    nvml_return (*memory)(nvml_device, struct nvml_memory *);
    nvml_return (*link_state)(nvml_device, unsigned int, int *);
    nvml_return (*link_remote)(nvml_device, unsigned int,
                               struct nvml_pci_info *);
};

/* dlsym of the first of names that the library has, or NULL. */
static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);

    if (p == NULL && b != NULL)
        p = dlsym(lib, b);
    return p;
}

static void resolve(struct nvml_api *n)
{
    void *l = n->lib;

    *(void **)&n->init = sym(l, "nvmlInit_v2", "nvmlInit");
    *(void **)&n->shutdown = sym(l, "nvmlShutdown", NULL);
    *(void **)&n->error_string = sym(l, "nvmlErrorString", NULL);
    *(void **)&n->count = sym(l, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    *(void **)&n->handle =
        sym(l, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    *(void **)&n->name = sym(l, "nvmlDeviceGetName", NULL);
    *(void **)&n->uuid = sym(l, "nvmlDeviceGetUUID", NULL);
    *(void **)&n->pci =
        sym(l, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
    *(void **)&n->minor = sym(l, "nvmlDeviceGetMinorNumber", NULL);
    *(void **)&n->memory = sym(l, "nvmlDeviceGetMemoryInfo", NULL);
    *(void **)&n->link_state = sym(l, "nvmlDeviceGetNvLinkState", NULL);
    *(void **)&n->link_remote = sym(l, "nvmlDeviceGetNvLinkRemotePciInfo_v2",
                                    "nvmlDeviceGetNvLinkRemotePciInfo");
}

static int load(struct nvml_api *n, struct err *e)
{
    const char *path = getenv("SLUICE_NVML_LIBRARY");
    const char *dle;

    if (path == NULL || path[0] == '\0')
        path = GPU_NVML_LIBRARY;
    memset(n, 0, sizeof(*n));
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (n->lib == NULL) {
        dle = dlerror();
        errno = ENOENT;
        return err_set(e, "NVML not found: %s", dle ? dle : path);
    }
    resolve(n);
    if (n->init == NULL || n->shutdown == NULL || n->count == NULL ||
        n->handle == NULL || n->error_string == NULL) {
        dlclose(n->lib);
        errno = ENOENT;
        return err_set(e,
                       "NVML not found: %s lacks nvmlInit, nvmlShutdown, "
                       "nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex or "
                       "nvmlErrorString",
                       path);
    }
    return 0;
}

static const char *nvml_err(const struct nvml_api *n, nvml_return rc)
{
    const char *s = n->error_string(rc);

    return s ? s : "unknown NVML error";
}

/* Fill d from the device; the handle must be good. */
static void read_device(const struct nvml_api *n, nvml_device h,
                        struct gpu_nvml_dev *d, struct nvml_pci_info *pci)
{
    struct nvml_memory mem;
    unsigned int minor;
    nvml_return rc;

    d->minor = -1;
    memset(pci, 0, sizeof(*pci));
    if (n->name != NULL && n->name(h, d->name, sizeof(d->name)) != 0)
        d->name[0] = '\0';
    if (n->uuid != NULL && n->uuid(h, d->uuid, sizeof(d->uuid)) != 0)
        d->uuid[0] = '\0';
    if (n->pci != NULL && (rc = n->pci(h, pci)) == NVML_SUCCESS)
        snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "%.31s", pci->bus_id);
    if (n->minor != NULL && n->minor(h, &minor) == NVML_SUCCESS &&
        minor < 1000000)
        d->minor = (int)minor;
    if (n->memory != NULL && n->memory(h, &mem) == NVML_SUCCESS)
        d->memory_mib = mem.total / (1024 * 1024);
    d->name[sizeof(d->name) - 1] = '\0';
    d->uuid[sizeof(d->uuid) - 1] = '\0';
}

static bool same_pci(const struct nvml_pci_info *a,
                     const struct nvml_pci_info *b)
{
    return a->domain == b->domain && a->bus == b->bus && a->device == b->device;
}

/* NVLink peers of device i: links[j] counts active links to device j. */
static void read_links(const struct nvml_api *n, nvml_device *h,
                       struct nvml_pci_info *pci, struct gpu_nvml_dev *d,
                       size_t count, size_t i)
{
    struct nvml_pci_info remote;
    int active;

    if (n->link_state == NULL || n->link_remote == NULL)
        return;
    for (unsigned int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
        if (n->link_state(h[i], l, &active) != NVML_SUCCESS)
            break; /* no such link, or NVLink not supported */
        if (active != NVML_FEATURE_ENABLED ||
            n->link_remote(h[i], l, &remote) != NVML_SUCCESS)
            continue;
        for (size_t j = 0; j < count; j++) {
            if (j == i || !same_pci(&pci[j], &remote))
                continue;
            if (d[i].links == NULL) {
                d[i].links = xcalloc(count, sizeof(int));
                d[i].links[i] = -1;
            }
            d[i].links[j]++;
        }
    }
}

/* The devices of an initialized NVML; count is already known. */
static struct gpu_nvml_dev *read_all(const struct nvml_api *n,
                                     unsigned int count, size_t *out)
{
    struct gpu_nvml_dev *d = xcalloc(count + 1, sizeof(*d));
    struct nvml_pci_info *pci = xcalloc(count + 1, sizeof(*pci));
    nvml_device *h = xcalloc(count + 1, sizeof(*h));
    size_t k = 0;
    nvml_return rc;

    for (unsigned int i = 0; i < count; i++) {
        if ((rc = n->handle(i, &h[k])) != NVML_SUCCESS) {
            log_warnx("nvml: device %u: no handle: %s; left out", i,
                      nvml_err(n, rc));
            continue;
        }
        read_device(n, h[k], &d[k], &pci[k]);
        k++;
    }
    for (size_t i = 0; i < k; i++)
        read_links(n, h, pci, d, k, i);
    free(pci);
    free(h);
    *out = k;
    return d;
}

int gpu_nvml_probe(struct gpu_nvml_dev **devs, size_t *n_out, struct err *e)
{
    struct nvml_api n;
    unsigned int count = 0;
    nvml_return rc;

    *devs = NULL;
    *n_out = 0;
    if (load(&n, e) < 0)
        return -1;
    if ((rc = n.init()) != NVML_SUCCESS) {
        err_set(e, "nvmlInit failed: %s", nvml_err(&n, rc));
        goto error;
    }
    if ((rc = n.count(&count)) != NVML_SUCCESS) {
        err_set(e, "nvmlDeviceGetCount failed: %s", nvml_err(&n, rc));
        n.shutdown();
        goto error;
    }
    if (count > GPU_NVML_MAX_DEVICES) {
        log_warnx("nvml: %u devices; reading the first %d", count,
                  GPU_NVML_MAX_DEVICES);
        count = GPU_NVML_MAX_DEVICES;
    }
    *devs = read_all(&n, count, n_out);
    if ((rc = n.shutdown()) != NVML_SUCCESS)
        log_warnx("nvml: nvmlShutdown: %s", nvml_err(&n, rc));
    dlclose(n.lib);
    return 0;
error:
    dlclose(n.lib);
    errno = EIO;
    return -1;
}

void gpu_nvml_free(struct gpu_nvml_dev *devs, size_t n)
{
    int saved = errno;

    for (size_t i = 0; devs != NULL && i < n; i++)
        free(devs[i].links);
    free(devs);
    errno = saved;
}
