/*
 * A fake libnvidia-ml.so.1 for the tests: the handful of NVML functions
 * sluiced calls, answering from the environment, so that GPU detection
 * runs through the real dlopen path on machines without GPUs.
 *
 *   FAKE_NVML_COUNT=N          devices (default 0)
 *   FAKE_NVML_NAMES=a,b        product names; the last repeats
 *                              (default "NVIDIA H200")
 *   FAKE_NVML_MINORS=3,2       minor numbers (default the index)
 *   FAKE_NVML_MEMORY_MIB=N     memory of each device (default 143771)
 *   FAKE_NVML_NVLINK=0-1,2-3   NVLinked pairs (one link each listing)
 *   FAKE_NVML_INIT_FAIL=1      nvmlInit_v2 fails: "Driver Not Loaded"
 *   FAKE_NVML_LOG=PATH         append "init" and "shutdown" lines
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define FAKE_MAX 64
#define FAKE_LINKS 4

struct fake_device {
    unsigned int index;
};

static struct fake_device devices[FAKE_MAX];
static int initialized;

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t rc);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *mem);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link,
                                      int *active);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci);

static void fake_log(const char *what)
{
    const char *path = getenv("FAKE_NVML_LOG");
    FILE *fp;

    if (path == NULL || (fp = fopen(path, "a")) == NULL)
        return;
    fprintf(fp, "%s\n", what);
    fclose(fp);
}

static unsigned int fake_count(void)
{
    const char *s = getenv("FAKE_NVML_COUNT");
    int n = s ? atoi(s) : 0;

    return n < 0 ? 0 : n > FAKE_MAX ? FAKE_MAX : (unsigned int)n;
}

/* Item i of a comma list (the last one repeats) into buf; 0 when none. */
static int list_item(const char *list, unsigned int i, char *buf, size_t len)
{
    const char *p = list;
    size_t n;

    if (list == NULL || *list == '\0')
        return 0;
    for (unsigned int k = 0; k < i && strchr(p, ',') != NULL; k++)
        p = strchr(p, ',') + 1;
    n = strcspn(p, ",");
    snprintf(buf, len, "%.*s", (int)n, p);
    return 1;
}

/* The NVLink peer of d on link l, or -1: FAKE_NVML_NVLINK pairs "a-b"
 * give each side one link, numbered in the order listed. */
static int link_peer(unsigned int d, unsigned int l)
{
    const char *p = getenv("FAKE_NVML_NVLINK");
    unsigned int a, b, k = 0;

    while (p != NULL && *p != '\0') {
        if (sscanf(p, "%u-%u", &a, &b) == 2 && (a == d || b == d) && k++ == l)
            return (int)(a == d ? b : a);
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

nvmlReturn_t nvmlInit_v2(void)
{
    const char *fail = getenv("FAKE_NVML_INIT_FAIL");

    if (fail != NULL && strcmp(fail, "1") == 0)
        return NVML_ERROR_DRIVER_NOT_LOADED;
    fake_log("init");
    initialized = 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    fake_log("shutdown");
    initialized = 0;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t rc)
{
    switch (rc) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    default:
        return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    *count = fake_count();
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    if (i >= fake_count())
        return NVML_ERROR_INVALID_ARGUMENT;
    devices[i].index = i;
    *d = &devices[i];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
    if (!list_item(getenv("FAKE_NVML_NAMES"), d->index, name, len))
        snprintf(name, len, "NVIDIA H200");
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len)
{
    snprintf(uuid, len, "GPU-fa4e0000-0000-0000-0000-%012u", d->index);
    return NVML_SUCCESS;
}

static void fake_pci(unsigned int i, nvmlPciInfo_t *pci)
{
    memset(pci, 0, sizeof(*pci));
    pci->bus = 0x10 + i;
    snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", pci->bus);
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:00.0",
             pci->bus);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
    fake_pci(d->index, pci);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor)
{
    char buf[16];

    *minor = d->index;
    if (list_item(getenv("FAKE_NVML_MINORS"), d->index, buf, sizeof(buf)))
        *minor = (unsigned int)atoi(buf);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *mem)
{
    const char *s = getenv("FAKE_NVML_MEMORY_MIB");
    unsigned long long mib = s ? strtoull(s, NULL, 10) : 143771;

    (void)d;
    mem->total = mib * 1024 * 1024;
    mem->used = 0;
    mem->free = mem->total;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link,
                                      int *active)
{
    if (getenv("FAKE_NVML_NVLINK") == NULL)
        return NVML_ERROR_NOT_SUPPORTED;
    if (link >= FAKE_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    *active = link_peer(d->index, link) >= 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci)
{
    int peer = link_peer(d->index, link);

    if (peer < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_pci((unsigned int)peer, pci);
    return NVML_SUCCESS;
}
