/*
 * sacct's and sstat's usage fields (usageview.h).  Names and widths follow
 * Slurm's; the formats are Slurm's documented ones: memory converted to a
 * larger unit only while the value stays exact, CPU times with
 * milliseconds under an hour, disk in megabytes with two decimals.
 */
#include "cli/usageview.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum kind {
    K_KIB,   /* KiB: "1348K" */
    K_NODE,  /* a node name */
    K_TASK,  /* a task id */
    K_COUNT, /* page faults, bytes in a TRES list: a plain number */
    K_CPU,   /* microseconds of CPU */
    K_DISK,  /* bytes */
    K_CONST, /* not measured: the text Slurm prints without data */
    K_TRES,  /* a TRESUsage* list: key is its item table */
};

/* One item of a TRESUsage* list ("mem=1032K"); total: times ntasks. */
struct tres_item {
    const char *label, *key;
    enum kind kind;
    bool total;
};

#define TRES_MAX 6

struct field {
    const char *name;
    int width;
    enum kind kind;
    const char *key; /* the usage key, or K_CONST's text */
    struct tres_item tres[TRES_MAX];
};

/* The "In" lists describe what tasks consumed, the "Out" lists what they
 * wrote; Sluice has no energy counters (0) and measures only the minimum
 * CPU, so the lists carry what was measured. */
#define IN_AVE                                                                 \
    {{"cpu", "ave_cpu_us", K_CPU, false},                                      \
     {"energy", NULL, K_CONST, false},                                         \
     {"fs/disk", "ave_disk_read", K_COUNT, false},                             \
     {"mem", "ave_rss_kib", K_KIB, false},                                     \
     {"pages", "ave_pages", K_COUNT, false},                                   \
     {"vmem", "ave_vmsize_kib", K_KIB, false}}
#define IN_TOT                                                                 \
    {{"cpu", "total_cpu_us", K_CPU, false},                                    \
     {"energy", NULL, K_CONST, false},                                         \
     {"fs/disk", "ave_disk_read", K_COUNT, true},                              \
     {"mem", "ave_rss_kib", K_KIB, true},                                      \
     {"pages", "ave_pages", K_COUNT, true},                                    \
     {"vmem", "ave_vmsize_kib", K_KIB, true}}
/* The Max lists: values (k K_COUNT, memory in KiB), nodes or tasks. */
#define IN_MAX(disk, rss, pages, vm, k)                                        \
    {{"fs/disk", disk, k, false},                                              \
     {"mem", rss, k == K_COUNT ? K_KIB : k, false},                            \
     {"pages", pages, k, false},                                               \
     {"vmem", vm, k == K_COUNT ? K_KIB : k, false}}

static const struct field fields[] = {
    {"MaxRSS", 10, K_KIB, "max_rss_kib", {{0}}},
    {"MaxRSSNode", 10, K_NODE, "max_rss_node", {{0}}},
    {"MaxRSSTask", 10, K_TASK, "max_rss_task", {{0}}},
    {"AveRSS", 10, K_KIB, "ave_rss_kib", {{0}}},
    {"MaxVMSize", 10, K_KIB, "max_vmsize_kib", {{0}}},
    {"MaxVMSizeNode", 14, K_NODE, "max_vmsize_node", {{0}}},
    {"MaxVMSizeTask", 14, K_TASK, "max_vmsize_task", {{0}}},
    {"AveVMSize", 10, K_KIB, "ave_vmsize_kib", {{0}}},
    {"MaxPages", 8, K_COUNT, "max_pages", {{0}}},
    {"MaxPagesNode", 12, K_NODE, "max_pages_node", {{0}}},
    {"MaxPagesTask", 14, K_TASK, "max_pages_task", {{0}}},
    {"AvePages", 10, K_COUNT, "ave_pages", {{0}}},
    {"MinCPU", 10, K_CPU, "min_cpu_us", {{0}}},
    {"MinCPUNode", 10, K_NODE, "min_cpu_node", {{0}}},
    {"MinCPUTask", 10, K_TASK, "min_cpu_task", {{0}}},
    {"AveCPU", 10, K_CPU, "ave_cpu_us", {{0}}},
    {"TotalCPU", 10, K_CPU, "total_cpu_us", {{0}}},
    {"UserCPU", 10, K_CPU, "user_cpu_us", {{0}}},
    {"SystemCPU", 10, K_CPU, "sys_cpu_us", {{0}}},
    {"AveCPUFreq", 10, K_CONST, "0", {{0}}},
    {"ReqCPUFreqMin", 13, K_CONST, "Unknown", {{0}}},
    {"ReqCPUFreqMax", 13, K_CONST, "Unknown", {{0}}},
    {"ReqCPUFreqGov", 13, K_CONST, "Unknown", {{0}}},
    {"ConsumedEnergy", 14, K_CONST, "0", {{0}}},
    {"MaxDiskRead", 12, K_DISK, "max_disk_read", {{0}}},
    {"MaxDiskReadNode", 15, K_NODE, "max_disk_read_node", {{0}}},
    {"MaxDiskReadTask", 15, K_TASK, "max_disk_read_task", {{0}}},
    {"AveDiskRead", 12, K_DISK, "ave_disk_read", {{0}}},
    {"MaxDiskWrite", 12, K_DISK, "max_disk_write", {{0}}},
    {"MaxDiskWriteNode", 16, K_NODE, "max_disk_write_node", {{0}}},
    {"MaxDiskWriteTask", 16, K_TASK, "max_disk_write_task", {{0}}},
    {"AveDiskWrite", 12, K_DISK, "ave_disk_write", {{0}}},
    {"TRESUsageInAve", 14, K_TRES, NULL, IN_AVE},
    {"TRESUsageInMax",
     14,
     K_TRES,
     NULL,
     IN_MAX("max_disk_read", "max_rss_kib", "max_pages", "max_vmsize_kib",
            K_COUNT)},
    {"TRESUsageInMaxNode",
     18,
     K_TRES,
     NULL,
     IN_MAX("max_disk_read_node", "max_rss_node", "max_pages_node",
            "max_vmsize_node", K_NODE)},
    {"TRESUsageInMaxTask",
     18,
     K_TRES,
     NULL,
     IN_MAX("max_disk_read_task", "max_rss_task", "max_pages_task",
            "max_vmsize_task", K_TASK)},
    {"TRESUsageInMin", 14, K_TRES, NULL, {{"cpu", "min_cpu_us", K_CPU, 0}}},
    {"TRESUsageInMinNode",
     18,
     K_TRES,
     NULL,
     {{"cpu", "min_cpu_node", K_NODE, 0}}},
    {"TRESUsageInMinTask",
     18,
     K_TRES,
     NULL,
     {{"cpu", "min_cpu_task", K_TASK, 0}}},
    {"TRESUsageInTot", 14, K_TRES, NULL, IN_TOT},
    {"TRESUsageOutAve",
     15,
     K_TRES,
     NULL,
     {{"energy", NULL, K_CONST, 0}, {"fs/disk", "ave_disk_write", K_COUNT, 0}}},
    {"TRESUsageOutMax",
     15,
     K_TRES,
     NULL,
     {{"energy", NULL, K_CONST, 0}, {"fs/disk", "max_disk_write", K_COUNT, 0}}},
    {"TRESUsageOutMaxNode",
     19,
     K_TRES,
     NULL,
     {{"fs/disk", "max_disk_write_node", K_NODE, 0}}},
    {"TRESUsageOutMaxTask",
     19,
     K_TRES,
     NULL,
     {{"fs/disk", "max_disk_write_task", K_TASK, 0}}},
    {"TRESUsageOutMin", 15, K_TRES, NULL, {{0}}},
    {"TRESUsageOutMinNode", 19, K_TRES, NULL, {{0}}},
    {"TRESUsageOutMinTask", 19, K_TRES, NULL, {{0}}},
    {"TRESUsageOutTot",
     15,
     K_TRES,
     NULL,
     {{"energy", NULL, K_CONST, 0}, {"fs/disk", "ave_disk_write", K_COUNT, 1}}},
};

#define N_FIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

int usageview_count(void)
{
    return N_FIELDS;
}

int usageview_field(const char *name)
{
    for (int i = 0; i < N_FIELDS; i++)
        if (strcasecmp(name, fields[i].name) == 0)
            return i;
    return -1;
}

const char *usageview_name(int f)
{
    return fields[f].name;
}

int usageview_width(int f)
{
    return fields[f].width;
}

uint64_t usageview_num(json_t *usage, const char *key)
{
    double d = json_number_value(json_object_get(usage, key));

    return d > 0 ? (uint64_t)d : 0;
}

char *usageview_cpu(uint64_t us, char *buf, size_t len)
{
    unsigned long long secs = us / 1000000, ms = us % 1000000 / 1000;
    unsigned long long d = secs / 86400, h = secs / 3600 % 24,
                       m = secs / 60 % 60, s = secs % 60;

    if (d > 0)
        snprintf(buf, len, "%llu-%02llu:%02llu:%02llu", d, h, m, s);
    else if (h > 0)
        snprintf(buf, len, "%02llu:%02llu:%02llu", h, m, s);
    else if (ms > 0)
        snprintf(buf, len, "%02llu:%02llu.%03llu", m, s, ms);
    else
        snprintf(buf, len, "00:%02llu:%02llu", m, s);
    return buf;
}

/* n in units[u] (K, M, ...): divided by 1024 while that stays exact. */
static char *exact_units(uint64_t n, int u, char *buf, size_t len)
{
    static const char units[] = {'K', 'M', 'G', 'T', 'P'};

    if (n == 0) {
        snprintf(buf, len, "0");
        return buf;
    }
    while (n % 1024 == 0 && u < 4) {
        n /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%c", (unsigned long long)n, units[u]);
    return buf;
}

char *usageview_kib(uint64_t kib, char *buf, size_t len)
{
    return exact_units(kib, 0, buf, len);
}

char *usageview_disk(uint64_t bytes, char *buf, size_t len)
{
    /* whole megabytes convert exactly; a fraction keeps two decimals */
    if (bytes % (1024 * 1024) == 0)
        return exact_units(bytes / (1024 * 1024), 1, buf, len);
    snprintf(buf, len, "%.2fM", (double)bytes / (1024.0 * 1024.0));
    return buf;
}

/* One plain value of kind from the usage object. */
static const char *plain(enum kind kind, json_t *usage, const char *key,
                         uint64_t mul, char *buf, size_t len)
{
    json_t *v = json_object_get(usage, key);
    uint64_t n = usageview_num(usage, key) * mul;

    switch (kind) {
    case K_KIB:
        return usageview_kib(n, buf, len);
    case K_NODE:
        return json_is_string(v) ? json_string_value(v) : "";
    case K_TASK:
        if (!json_is_integer(v))
            return "";
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    case K_CPU:
        return usageview_cpu(n, buf, len);
    case K_DISK:
        return usageview_disk(n, buf, len);
    case K_CONST:
        return "0";
    default: /* K_COUNT */
        snprintf(buf, len, "%llu", (unsigned long long)n);
        return buf;
    }
}

/* "cpu=00:00:01,energy=0,fs/disk=5125,mem=1032K,pages=0,vmem=107880K". */
static const char *tres_list(const struct field *fd,
                             const struct usageview_src *src, char *buf,
                             size_t len)
{
    size_t off = 0;

    buf[0] = '\0';
    for (int i = 0; i < TRES_MAX && fd->tres[i].label != NULL; i++) {
        const struct tres_item *it = &fd->tres[i];
        uint64_t mul = it->total && src->ntasks > 0 ? (uint64_t)src->ntasks : 1;
        char one[64];
        const char *v =
            plain(it->kind, src->usage, it->key, mul, one, sizeof(one));
        if (v[0] == '\0' || off >= len)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
                                off > 0 ? "," : "", it->label, v);
    }
    return buf;
}

const char *usageview_value(int f, const struct usageview_src *src, char *buf,
                            size_t len)
{
    const struct field *fd = &fields[f];

    if (fd->kind == K_CONST)
        return fd->key;
    if (src->usage == NULL || !json_is_object(src->usage))
        return "";
    if (fd->kind == K_TRES)
        return tres_list(fd, src, buf, len);
    return plain(fd->kind, src->usage, fd->key, 1, buf, len);
}
