/*
 * Sampling a step's tasks from /proc (stat and io of each process, summed
 * over each task's process tree) and the USAGE object built from it.
 */
#include "noded/stepusage.h"

#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"

int stepusage_parse_stat(const char *line, long ticks_per_s, long page_kib,
                         struct stepusage_proc *p)
{
    const char *rp = strrchr(line, ')'); /* the name may hold anything */
    unsigned long long f[22];
    int ppid;
    uint64_t tick_us;

    memset(p, 0, sizeof(*p));
    if (rp == NULL || ticks_per_s <= 0)
        return -1;
    p->pid = (pid_t)atoi(line);
    /* from field 4 (ppid): ppid pgrp session tty tpgid flags minflt
     * cminflt majflt cmajflt utime stime cutime cstime priority nice
     * threads itrealvalue starttime vsize rss */
    if (sscanf(rp + 2,
               "%*c %d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
               "%llu %llu %llu %llu %llu %llu %llu %llu %llu",
               &ppid, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
               &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14], &f[15],
               &f[16], &f[17], &f[18], &f[19]) != 21)
        return -1;
    tick_us = 1000000 / (uint64_t)ticks_per_s;
    p->ppid = (pid_t)ppid;
    p->pages = f[7] + f[8];
    p->user_cpu_us = (f[9] + f[11]) * tick_us;
    p->sys_cpu_us = (f[10] + f[12]) * tick_us;
    p->vmsize_kib = f[18] / 1024;
    p->rss_kib = f[19] * (uint64_t)page_kib;
    return 0;
}

/* The start of a /proc file, NUL-terminated, in buf; -1 when none. */
static int read_small(pid_t pid, const char *name, char *buf, size_t len)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* read_bytes and write_bytes of /proc/PID/io (root, or the same user). */
static void read_io(pid_t pid, struct stepusage_proc *p)
{
    char buf[1024];
    unsigned long long v;

    if (read_small(pid, "io", buf, sizeof(buf)) < 0)
        return;
    for (char *l = buf; l != NULL && *l != '\0'; l = strchr(l, '\n')) {
        l += *l == '\n';
        if (sscanf(l, "read_bytes: %llu", &v) == 1)
            p->read_bytes = v;
        else if (sscanf(l, "write_bytes: %llu", &v) == 1)
            p->write_bytes = v;
    }
}

static int read_proc(pid_t pid, long hz, long page_kib,
                     struct stepusage_proc *p)
{
    char buf[1024];

    if (read_small(pid, "stat", buf, sizeof(buf)) < 0 ||
        stepusage_parse_stat(buf, hz, page_kib, p) < 0)
        return -1;
    read_io(pid, p);
    return 0;
}

void stepusage_scan(struct stepusage_proc **procs, size_t *n)
{
    long hz = sysconf(_SC_CLK_TCK), page_kib = sysconf(_SC_PAGESIZE) / 1024;
    DIR *d = opendir("/proc");
    struct dirent *de;
    size_t cap = 0;

    *procs = NULL;
    *n = 0;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            *procs = xreallocarray(*procs, cap, sizeof(**procs));
        }
        if (read_proc((pid_t)atoi(de->d_name), hz, page_kib, &(*procs)[*n]) ==
            0)
            (*n)++;
    }
    closedir(d);
}

/* Is pid root or below it? (ppid chains are short; cycles cannot be.) */
static bool below(const struct stepusage_proc *procs, size_t n, pid_t pid,
                  pid_t root)
{
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        size_t i;
        if (pid == root)
            return true;
        for (i = 0; i < n && procs[i].pid != pid; i++)
            ;
        if (i == n)
            return false;
        pid = procs[i].ppid;
    }
    return false;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void stepusage_tree(const struct stepusage_proc *procs, size_t n, pid_t root,
                    struct stepusage_task *t)
{
    struct stepusage_proc sum = {0};
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        if (!below(procs, n, procs[i].pid, root))
            continue;
        any = true;
        sum.rss_kib += procs[i].rss_kib;
        sum.vmsize_kib += procs[i].vmsize_kib;
        sum.user_cpu_us += procs[i].user_cpu_us;
        sum.sys_cpu_us += procs[i].sys_cpu_us;
        sum.pages += procs[i].pages;
        sum.read_bytes += procs[i].read_bytes;
        sum.write_bytes += procs[i].write_bytes;
    }
    if (!any)
        return; /* ended: the last sample stands until wait4's */
    t->rss_now_kib = sum.rss_kib;
    t->vmsize_now_kib = sum.vmsize_kib;
    t->rss_kib = max_u64(t->rss_kib, sum.rss_kib);
    t->vmsize_kib = max_u64(t->vmsize_kib, sum.vmsize_kib);
    /* what exited without being waited for drops out of the sum: keep
     * the counters from going backwards */
    t->user_cpu_us = max_u64(t->user_cpu_us, sum.user_cpu_us);
    t->sys_cpu_us = max_u64(t->sys_cpu_us, sum.sys_cpu_us);
    t->pages = max_u64(t->pages, sum.pages);
    t->read_bytes = max_u64(t->read_bytes, sum.read_bytes);
    t->write_bytes = max_u64(t->write_bytes, sum.write_bytes);
}

void stepusage_rusage(struct stepusage_task *t, const struct rusage *ru)
{
    uint64_t u = (uint64_t)ru->ru_utime.tv_sec * 1000000 +
                 (uint64_t)ru->ru_utime.tv_usec;
    uint64_t s = (uint64_t)ru->ru_stime.tv_sec * 1000000 +
                 (uint64_t)ru->ru_stime.tv_usec;

    t->rss_kib = max_u64(t->rss_kib, (uint64_t)ru->ru_maxrss);
    t->user_cpu_us = max_u64(t->user_cpu_us, u);
    t->sys_cpu_us = max_u64(t->sys_cpu_us, s);
    t->pages = max_u64(t->pages, (uint64_t)ru->ru_majflt);
}

json_t *stepusage_json(const struct stepusage_task *t, size_t n,
                       int64_t cg_mem_peak_kib, int64_t cg_cpu_us)
{
    json_t *tasks = json_array(), *u;

    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            tasks, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "task",
                             (json_int_t)t[i].task, "rss_kib",
                             (json_int_t)t[i].rss_kib, "vmsize_kib",
                             (json_int_t)t[i].vmsize_kib, "user_cpu_us",
                             (json_int_t)t[i].user_cpu_us, "sys_cpu_us",
                             (json_int_t)t[i].sys_cpu_us, "pages",
                             (json_int_t)t[i].pages, "read_bytes",
                             (json_int_t)t[i].read_bytes, "write_bytes",
                             (json_int_t)t[i].write_bytes));
    u = json_pack("{s:o}", "tasks", tasks);
    if (cg_mem_peak_kib >= 0)
        json_object_set_new(u, "cg_mem_peak_kib",
                            json_integer(cg_mem_peak_kib));
    if (cg_cpu_us >= 0)
        json_object_set_new(u, "cg_cpu_us", json_integer(cg_cpu_us));
    return u;
}

int stepusage_parse(json_t *usage, struct stepusage_task *t, size_t max)
{
    json_t *tasks = json_object_get(usage, "tasks"), *o;
    json_int_t v[8];
    size_t i, n = 0;

    if (!json_is_array(tasks))
        return -1;
    json_array_foreach(tasks, i, o)
    {
        if (n == max)
            break;
        if (json_unpack(o, "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "task",
                        &v[0], "rss_kib", &v[1], "vmsize_kib", &v[2],
                        "user_cpu_us", &v[3], "sys_cpu_us", &v[4], "pages",
                        &v[5], "read_bytes", &v[6], "write_bytes", &v[7]) < 0)
            return -1;
        t[n] = (struct stepusage_task){.task = (uint32_t)v[0],
                                       .rss_kib = (uint64_t)v[1],
                                       .vmsize_kib = (uint64_t)v[2],
                                       .user_cpu_us = (uint64_t)v[3],
                                       .sys_cpu_us = (uint64_t)v[4],
                                       .pages = (uint64_t)v[5],
                                       .read_bytes = (uint64_t)v[6],
                                       .write_bytes = (uint64_t)v[7]};
        n++;
    }
    return (int)n;
}
