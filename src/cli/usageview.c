/*
 * sacct's and sstat's usage fields (usageview.h).  Names and widths follow
 * Slurm's; the formats are Slurm's documented ones: memory converted to a
 * larger unit only while the value stays exact, CPU times with
 * milliseconds under an hour, disk in megabytes with two decimals; with
 * --noconvert, memory in KiB and disk in bytes, as measured.
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
    K_TRES,  /* a TRESUsage* list (the field's tres) */
};

/* One item of a TRESUsage* list ("mem=1032K"); total: times ntasks. */
struct tres_item {
    const char *label, *key;
    enum kind kind;
    bool total;
};

struct field {
    const char *name;
    int width;
    enum kind kind;
    const char *key;              /* the usage key, or K_CONST's text */
    const struct tres_item *tres; /* K_TRES: ends with a NULL label */
};

/*
 * The TRESUsage lists.  "In" is what the tasks consumed, "Out" what they
 * wrote.  Sluice has no energy counters (energy=0) and measures only the
 * minimum CPU time, so each list carries what was measured.  Memory items
 * are KiB, fs/disk items bytes.
 */
static const struct tres_item in_ave[] = {
    {"cpu", "ave_cpu_us", K_CPU, false},
    {"energy", NULL, K_CONST, false},
    {"fs/disk", "ave_disk_read", K_COUNT, false},
    {"mem", "ave_rss_kib", K_KIB, false},
    {"pages", "ave_pages", K_COUNT, false},
    {"vmem", "ave_vmsize_kib", K_KIB, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_max[] = {
    {"fs/disk", "max_disk_read", K_COUNT, false},
    {"mem", "max_rss_kib", K_KIB, false},
    {"pages", "max_pages", K_COUNT, false},
    {"vmem", "max_vmsize_kib", K_KIB, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_max_node[] = {
    {"fs/disk", "max_disk_read_node", K_NODE, false},
    {"mem", "max_rss_node", K_NODE, false},
    {"pages", "max_pages_node", K_NODE, false},
    {"vmem", "max_vmsize_node", K_NODE, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_max_task[] = {
    {"fs/disk", "max_disk_read_task", K_TASK, false},
    {"mem", "max_rss_task", K_TASK, false},
    {"pages", "max_pages_task", K_TASK, false},
    {"vmem", "max_vmsize_task", K_TASK, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_min[] = {
    {"cpu", "min_cpu_us", K_CPU, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_min_node[] = {
    {"cpu", "min_cpu_node", K_NODE, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_min_task[] = {
    {"cpu", "min_cpu_task", K_TASK, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item in_tot[] = {
    {"cpu", "total_cpu_us", K_CPU, false},
    {"energy", NULL, K_CONST, false},
    {"fs/disk", "ave_disk_read", K_COUNT, true},
    {"mem", "ave_rss_kib", K_KIB, true},
    {"pages", "ave_pages", K_COUNT, true},
    {"vmem", "ave_vmsize_kib", K_KIB, true},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_ave[] = {
    {"energy", NULL, K_CONST, false},
    {"fs/disk", "ave_disk_write", K_COUNT, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_max[] = {
    {"energy", NULL, K_CONST, false},
    {"fs/disk", "max_disk_write", K_COUNT, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_max_node[] = {
    {"fs/disk", "max_disk_write_node", K_NODE, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_max_task[] = {
    {"fs/disk", "max_disk_write_task", K_TASK, false},
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_none[] = {
    {NULL, NULL, K_CONST, false},
};
static const struct tres_item out_tot[] = {
    {"energy", NULL, K_CONST, false},
    {"fs/disk", "ave_disk_write", K_COUNT, true},
    {NULL, NULL, K_CONST, false},
};

static const struct field fields[] = {
    {"MaxRSS", 10, K_KIB, "max_rss_kib", NULL},
    {"MaxRSSNode", 10, K_NODE, "max_rss_node", NULL},
    {"MaxRSSTask", 10, K_TASK, "max_rss_task", NULL},
    {"AveRSS", 10, K_KIB, "ave_rss_kib", NULL},
    {"MaxVMSize", 10, K_KIB, "max_vmsize_kib", NULL},
    {"MaxVMSizeNode", 14, K_NODE, "max_vmsize_node", NULL},
    {"MaxVMSizeTask", 14, K_TASK, "max_vmsize_task", NULL},
    {"AveVMSize", 10, K_KIB, "ave_vmsize_kib", NULL},
    {"MaxPages", 8, K_COUNT, "max_pages", NULL},
    {"MaxPagesNode", 12, K_NODE, "max_pages_node", NULL},
    {"MaxPagesTask", 14, K_TASK, "max_pages_task", NULL},
    {"AvePages", 10, K_COUNT, "ave_pages", NULL},
    {"MinCPU", 10, K_CPU, "min_cpu_us", NULL},
    {"MinCPUNode", 10, K_NODE, "min_cpu_node", NULL},
    {"MinCPUTask", 10, K_TASK, "min_cpu_task", NULL},
    {"AveCPU", 10, K_CPU, "ave_cpu_us", NULL},
    {"TotalCPU", 10, K_CPU, "total_cpu_us", NULL},
    {"UserCPU", 10, K_CPU, "user_cpu_us", NULL},
    {"SystemCPU", 10, K_CPU, "sys_cpu_us", NULL},
    {"AveCPUFreq", 10, K_CONST, "0", NULL},
    {"ReqCPUFreqMin", 13, K_CONST, "Unknown", NULL},
    {"ReqCPUFreqMax", 13, K_CONST, "Unknown", NULL},
    {"ReqCPUFreqGov", 13, K_CONST, "Unknown", NULL},
    {"ConsumedEnergy", 14, K_CONST, "0", NULL},
    {"MaxDiskRead", 12, K_DISK, "max_disk_read", NULL},
    {"MaxDiskReadNode", 15, K_NODE, "max_disk_read_node", NULL},
    {"MaxDiskReadTask", 15, K_TASK, "max_disk_read_task", NULL},
    {"AveDiskRead", 12, K_DISK, "ave_disk_read", NULL},
    {"MaxDiskWrite", 12, K_DISK, "max_disk_write", NULL},
    {"MaxDiskWriteNode", 16, K_NODE, "max_disk_write_node", NULL},
    {"MaxDiskWriteTask", 16, K_TASK, "max_disk_write_task", NULL},
    {"AveDiskWrite", 12, K_DISK, "ave_disk_write", NULL},
    {"TRESUsageInAve", 14, K_TRES, NULL, in_ave},
    {"TRESUsageInMax", 14, K_TRES, NULL, in_max},
    {"TRESUsageInMaxNode", 18, K_TRES, NULL, in_max_node},
    {"TRESUsageInMaxTask", 18, K_TRES, NULL, in_max_task},
    {"TRESUsageInMin", 14, K_TRES, NULL, in_min},
    {"TRESUsageInMinNode", 18, K_TRES, NULL, in_min_node},
    {"TRESUsageInMinTask", 18, K_TRES, NULL, in_min_task},
    {"TRESUsageInTot", 14, K_TRES, NULL, in_tot},
    {"TRESUsageOutAve", 15, K_TRES, NULL, out_ave},
    {"TRESUsageOutMax", 15, K_TRES, NULL, out_max},
    {"TRESUsageOutMaxNode", 19, K_TRES, NULL, out_max_node},
    {"TRESUsageOutMaxTask", 19, K_TRES, NULL, out_max_task},
    {"TRESUsageOutMin", 15, K_TRES, NULL, out_none},
    {"TRESUsageOutMinNode", 19, K_TRES, NULL, out_none},
    {"TRESUsageOutMinTask", 19, K_TRES, NULL, out_none},
    {"TRESUsageOutTot", 15, K_TRES, NULL, out_tot},
};

#define N_FIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

int usageview_count(void)
{
    return N_FIELDS;
}

int usageview_field(const char *name)
{
    size_t len = strlen(name);

    for (int i = 0; i < N_FIELDS; i++)
        if (strcasecmp(name, fields[i].name) == 0)
            return i;
    /* Slurm's own lists abbreviate: "tresusageinmaxn" */
    for (int i = 0; len >= 4 && i < N_FIELDS; i++)
        if (strncasecmp(name, fields[i].name, len) == 0)
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

static char units_wanted; /* sacct --units, for this run */

void usageview_set_units(char unit)
{
    units_wanted = unit;
}

char usageview_units(void)
{
    return units_wanted;
}

char *usageview_in_units(uint64_t kib, char unit, char *buf, size_t len)
{
    const char *units = "KMGTP", *u = strchr(units, unit);
    double v = (double)kib;

    if (u == NULL || unit == '\0')
        return usageview_kib(kib, buf, len);
    for (const char *p = units; p < u; p++)
        v /= 1024.0;
    if (kib == 0)
        snprintf(buf, len, "0");
    else if (v == (double)(uint64_t)v)
        snprintf(buf, len, "%llu%c", (unsigned long long)v, unit);
    else
        snprintf(buf, len, "%.2f%c", v, unit);
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

/* n as measured (--noconvert): "1348K", bytes as "5125"; 0 is "0". */
static char *unconverted(uint64_t n, const char *unit, char *buf, size_t len)
{
    snprintf(buf, len, "%llu%s", (unsigned long long)n, n > 0 ? unit : "");
    return buf;
}

/* One plain value of kind from the usage object. */
static const char *plain(enum kind kind, const struct usageview_src *src,
                         const char *key, uint64_t mul, char *buf, size_t len)
{
    json_t *v = json_object_get(src->usage, key);
    uint64_t n = usageview_num(src->usage, key) * mul;

    switch (kind) {
    case K_KIB:
        if (units_wanted != 0)
            return usageview_in_units(n, units_wanted, buf, len);
        return src->noconvert ? unconverted(n, "K", buf, len)
                              : usageview_kib(n, buf, len);
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
        if (units_wanted != 0)
            return usageview_in_units(n / 1024, units_wanted, buf, len);
        return src->noconvert ? unconverted(n, "", buf, len)
                              : usageview_disk(n, buf, len);
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
    for (int i = 0; fd->tres[i].label != NULL; i++) {
        const struct tres_item *it = &fd->tres[i];
        uint64_t mul = it->total && src->ntasks > 0 ? (uint64_t)src->ntasks : 1;
        char one[64];
        const char *v = plain(it->kind, src, it->key, mul, one, sizeof(one));
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
    return plain(fd->kind, src, fd->key, 1, buf, len);
}
