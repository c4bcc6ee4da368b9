/*
 * Job containment with cgroups: v2 (the unified hierarchy at
 * CgroupMountpoint), v1 (one hierarchy per controller) as a fallback, or
 * none.  Each node has its own cgroup, sluice/<node>-<hash of its spool>
 * (so that several node daemons of one machine never share one), and each
 * job one below it, job_<id>: created by the job's supervisor with the
 * job's memory limit, CPUs and GPU devices, entered by the job's process
 * before it executes the script, and used to find and kill every process
 * of the job however it forked or daemonized.
 */
#ifndef SLUICE_NODED_CGROUP_H
#define SLUICE_NODED_CGROUP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/cgroupconf.h"
#include "common/err.h"

#define CGROUP_PATH_MAX 512

enum cgroup_version {
    CGROUP_NONE,
    CGROUP_V1,
    CGROUP_V2,
};

/* The v1 hierarchies Sluice uses (v2 has them all in one). */
enum cgroup_ctl {
    CGROUP_FREEZER, /* first: the hierarchy that finds a job's processes */
    CGROUP_PIDS,
    CGROUP_MEMORY,
    CGROUP_CPUSET,
    CGROUP_DEVICES,
    CGROUP_NCTL,
};

/* Where the cgroup file systems are, from /proc/self/mountinfo. */
struct cgroup_mounts {
    bool v2; /* a cgroup2 file system is mounted at the mount point */
    char v1[CGROUP_NCTL][CGROUP_PATH_MAX]; /* "" when not mounted */
};

/* The node's cgroups, set up once by sluiced and read by supervisors. */
struct cgroup {
    enum cgroup_version version;
    struct cgroupconf conf;
    char node[CGROUP_PATH_MAX];             /* v2: the node's cgroup */
    char v1[CGROUP_NCTL][CGROUP_PATH_MAX];  /* v1: per hierarchy, or "" */
    bool memory, cpuset, devices, has_kill; /* what can be used */
    char why[300]; /* NONE: why; else what could not be had */
};

/* A job's limits, decided by sluiced. */
struct cgroup_job_spec {
    uint32_t job_id;
    uint64_t mem_mib; /* 0: no memory limit */
    char cpus[256];   /* "0-3,6", or "": not constrained */
    dev_t *deny;      /* character devices the job may not open */
    size_t n_deny;
};

/*
 * cgroup_mounts_parse: the cgroup mounts of mountinfo text (the format of
 * /proc/self/mountinfo) at or under mountpoint.
 */
void cgroup_mounts_parse(const char *text, const char *mountpoint,
                         struct cgroup_mounts *m);

/*
 * cgroup_setup: choose v2, v1 or none as conf says (autodetect: v2 when a
 * cgroup2 file system is mounted at CgroupMountpoint, else v1 when its
 * hierarchies are writable), create the node's cgroup (name "node",
 * unique tag from spool) and enable the controllers it needs.  Never
 * fails: version NONE with why ("no writable cgroup hierarchy under
 * /sys/fs/cgroup: ...").  cg->why also names what is missing otherwise
 * ("memory controller not available").  On v1 the cgroups kept for
 * the next job (free_<id>) that are there already are removed: a job
 * that ended after the node's last sluiced stopped left them.
 */
void cgroup_setup(struct cgroup *cg, const struct cgroupconf *conf,
                  const char *node, const char *spool);

/* cgroup_describe: one log line's worth: "v1 memory cpuset devices
 * freezer pids at /sys/fs/cgroup/memory/sluice/node01-1a2b3c4d". */
void cgroup_describe(const struct cgroup *cg, char *buf, size_t len);

/* cgroup_node_cleanup: remove the node's cgroup when no job is left in
 * it (errors ignored). */
void cgroup_node_cleanup(const struct cgroup *cg);

/* cgroup_job_path: the job's cgroup (v2), or in hierarchy ctl (v1). */
void cgroup_job_path(const struct cgroup *cg, enum cgroup_ctl ctl,
                     uint32_t job_id, char *buf, size_t len);

/*
 * cgroup_job_create: make the job's cgroup with s's limits (what conf and
 * the controllers allow).  A leftover cgroup of the same job id is
 * emptied and replaced.  -1 with e on failure ("cannot write 52428800 to
 * /sys/fs/cgroup/memory/sluice/node01-1a2b3c4d/job_7/memory.limit_in_bytes:
 * Device or resource busy"), nothing left behind.
 */
int cgroup_job_create(const struct cgroup *cg, const struct cgroup_job_spec *s,
                      struct err *e);

/* cgroup_job_enter: move the calling process into the job's cgroup. */
int cgroup_job_enter(const struct cgroup *cg, uint32_t job_id, struct err *e);

/*
 * cgroup_job_pids: the processes in the job's cgroup; *pids a new array
 * (caller frees), *n its length.  -1 with errno when the cgroup cannot be
 * read (ENOENT: there is none).
 */
int cgroup_job_pids(const struct cgroup *cg, uint32_t job_id, pid_t **pids,
                    size_t *n);

/* cgroup_job_signal: send sig to every process of the job; how many. */
int cgroup_job_signal(const struct cgroup *cg, uint32_t job_id, int sig);

/*
 * cgroup_job_freeze: freeze (on) or thaw the job through the freezer
 * (cgroup.freeze on v2, freezer.state on v1).  0 when the freezer took
 * it; -1 with ENOTSUP when the job has no freezer cgroup (the caller
 * then stops the processes with SIGSTOP), or errno of the write.
 */
int cgroup_job_freeze(const struct cgroup *cg, uint32_t job_id, bool on);

/*
 * cgroup_job_kill: SIGKILL every process of the job (cgroup.kill on v2,
 * else frozen, killed and thawed until the cgroup is empty); 0 when it
 * is empty, -1 with EBUSY when processes remain after about 2 s.
 */
int cgroup_job_kill(const struct cgroup *cg, uint32_t job_id);

/* cgroup_job_oom: the kernel's OOM killer killed in the job's cgroup. */
bool cgroup_job_oom(const struct cgroup *cg, uint32_t job_id);

/* cgroup_job_cpus: the CPUs of the job's cpuset into set; -1 when it has
 * none (not constrained, or no such cgroup). */
int cgroup_job_cpus(const struct cgroup *cg, uint32_t job_id, cpu_set_t *set);

/* cgroup_job_destroy: remove the job's cgroup (it should be empty). */
int cgroup_job_destroy(const struct cgroup *cg, uint32_t job_id);

/* cgroup_job_exists: the job's cgroup is there (made by its batch
 * supervisor, or for its steps on a node without the batch script). */
bool cgroup_job_exists(const struct cgroup *cg, uint32_t job_id);

/* --- steps (cgroup_step.c) ---------------------------------------------
 * v2: step_<id> below the job's cgroup, for tracking, killing and CPU
 * time (no controller of its own: the job's limits hold); v1: none, the
 * tasks enter the job's cgroups. */

/* cgroup_step_path: the step's v2 cgroup, or "" (v1, none). */
void cgroup_step_path(const struct cgroup *cg, uint32_t job_id,
                      uint32_t step_id, char *buf, size_t len);
/* cgroup_step_create: make it (the job's cgroup exists); 0 on v1. */
int cgroup_step_create(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, struct err *e);
/* cgroup_step_enter: the calling process into the step's cgroup (v1: the
 * job's). */
int cgroup_step_enter(const struct cgroup *cg, uint32_t job_id,
                      uint32_t step_id, struct err *e);
/* cgroup_step_signal: sig to every process of the step's cgroup
 * (SIGKILL: cgroup.kill where there is one); how many; 0 on v1. */
int cgroup_step_signal(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, int sig);
/* cgroup_step_freeze: freeze (on) or thaw the step's v2 cgroup; -1 with
 * ENOTSUP on v1 or without cgroups (the job's freezer holds its tasks
 * there), or errno when it cannot be written. */
int cgroup_step_freeze(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, bool on);
/* cgroup_step_usage: memory.peak in KiB and cpu.stat usage_usec of the
 * step's cgroup; -1 each when not there. */
void cgroup_step_usage(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, int64_t *mem_peak_kib,
                       int64_t *cpu_us);
/* cgroup_step_destroy: remove the step's cgroup (it should be empty). */
void cgroup_step_destroy(const struct cgroup *cg, uint32_t job_id,
                         uint32_t step_id);

/*
 * cgroup_pick_cpus: want CPUs of avail, the least used first (use[cpu]
 * counts the running jobs on each), into out; all of avail when want is
 * at least their number.
 */
void cgroup_pick_cpus(const cpu_set_t *avail, const uint32_t *use,
                      uint32_t want, cpu_set_t *out);

/* cgroup_cpus_format / cgroup_cpus_parse: "0-3,6" to and from a set. */
void cgroup_cpus_format(const cpu_set_t *set, char *buf, size_t len);
int cgroup_cpus_parse(const char *s, cpu_set_t *set);

/* cgroup_bpf_devices (cgroup_bpf.c): attach to the v2 cgroup at dir a
 * device program that refuses the n character devices deny. */
int cgroup_bpf_devices(const char *dir, const dev_t *deny, size_t n,
                       struct err *e);
/* cgroup_bpf_probe: whether such a program can be loaded here (root,
 * bpf(2) allowed); loaded and dropped at once.  -1 with errno and e. */
int cgroup_bpf_probe(struct err *e);

#endif
