/*
 * What a step's tasks use, sampled by the step supervisor from /proc
 * every JobAcctGatherFrequency seconds (each task's whole process tree)
 * and completed at the end with wait4's rusage: the USAGE object of
 * STEP_USAGE and STEP_END (docs/protocol.md).
 */
#ifndef SLUICE_NODED_STEPUSAGE_H
#define SLUICE_NODED_STEPUSAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <jansson.h>

/* One task's usage: rss and vmsize are the largest seen (the latest in
 * *_now), the rest cumulative. */
struct stepusage_task {
    uint32_t task; /* global task id */
    uint64_t rss_kib, vmsize_kib, rss_now_kib, vmsize_now_kib;
    uint64_t user_cpu_us, sys_cpu_us, pages;
    uint64_t read_bytes, write_bytes;
};

/* One process of /proc, as stepusage_scan reads it. */
struct stepusage_proc {
    pid_t pid, ppid;
    uint64_t rss_kib, vmsize_kib, user_cpu_us, sys_cpu_us, pages;
    uint64_t read_bytes, write_bytes;
};

/* stepusage_parse_stat: a /proc/PID/stat line into p (pid, ppid, major
 * faults, user and system time with the waited-for children's, vsize,
 * rss); -1 when it is not one. */
int stepusage_parse_stat(const char *line, long ticks_per_s, long page_kib,
                         struct stepusage_proc *p);

/* stepusage_scan: every process of /proc (stat, io); *procs new (caller
 * frees), *n its length. */
void stepusage_scan(struct stepusage_proc **procs, size_t *n);

/* stepusage_tree: fold the tree rooted at root (root and every
 * descendant in procs) into t: sums now, maxima kept. */
void stepusage_tree(const struct stepusage_proc *procs, size_t n, pid_t root,
                    struct stepusage_task *t);

/* stepusage_rusage: the task's end (wait4): ru_maxrss for the max RSS,
 * CPU times and major faults replace the samples. */
void stepusage_rusage(struct stepusage_task *t, const struct rusage *ru);

/* stepusage_json: USAGE {"tasks": [...], "cg_mem_peak_kib", "cg_cpu_us"}
 * (the cg_* members only when >= 0). */
json_t *stepusage_json(const struct stepusage_task *t, size_t n,
                       int64_t cg_mem_peak_kib, int64_t cg_cpu_us);

/* stepusage_parse: up to max tasks of a USAGE object into t; how many
 * (-1 when usage is not one). */
int stepusage_parse(json_t *usage, struct stepusage_task *t, size_t max);

#endif
