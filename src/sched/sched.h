/*
 * The scheduler core: a pure function from a cluster model and the time
 * to decisions.  No I/O, no clock reads, no globals.  The controller builds
 * a struct sched_cluster from its state on every pass; the simulator and
 * the unit tests build one by hand.
 *
 * This first core places jobs FIFO (priority, then submit time, then id)
 * on nodes with enough free CPUs and memory.  Priority, backfill, GPUs and
 * preemption grow here behind the same seam.
 */
#ifndef SLUICE_SCHED_H
#define SLUICE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Why a job is not running, by Slurm's reason names (sched_reason_name). */
enum sched_reason {
    SCHED_REASON_NONE = 0,
    SCHED_REASON_PRIORITY,        /* a job ahead of it in its partition waits */
    SCHED_REASON_RESOURCES,       /* no node has enough free now */
    SCHED_REASON_HELD_USER,       /* JobHeldUser */
    SCHED_REASON_HELD_ADMIN,      /* JobHeldAdmin */
    SCHED_REASON_BEGIN_TIME,      /* --begin in the future */
    SCHED_REASON_PART_DOWN,       /* PartitionDown */
    SCHED_REASON_PART_INACTIVE,   /* PartitionInactive */
    SCHED_REASON_NODE_DOWN,       /* every node that could run it is down */
    SCHED_REASON_PART_NODE_LIMIT, /* asks for more nodes than the partition has */
    SCHED_REASON_NEVER_FITS,      /* no node of the partition is big enough */
    SCHED_REASON_COUNT
};

const char *sched_reason_name(enum sched_reason r);

struct sched_node {
    const char *name;
    uint32_t cpus; /* configured (or reported, if less) */
    uint32_t cpus_alloc;
    uint64_t mem_mib;
    uint64_t mem_alloc_mib;
    bool up;    /* registered, responding, not DOWN/INVALID */
    bool drain; /* DRAIN: runs what it has, takes nothing new */
};

struct sched_part {
    const char *name;
    bool start_jobs;     /* state UP (DOWN/DRAIN/INACTIVE start nothing) */
    bool inactive;       /* INACTIVE rather than DOWN */
    const size_t *nodes; /* indices into sched_cluster.nodes */
    size_t nnodes;
};

struct sched_job {
    uint64_t id;
    size_t part;            /* index into sched_cluster.parts */
    uint32_t nodes;         /* nodes wanted (>= 1) */
    uint32_t cpus_per_node; /* CPUs wanted on each node */
    uint64_t mem_per_node_mib;
    uint32_t priority; /* higher first */
    time_t submit_time;
    time_t begin_time; /* 0: none */
    bool held_user;
    bool held_admin;
    const bool *node_allowed; /* NULL, or per node: -w/-x filter */
};

struct sched_cluster {
    struct sched_node *nodes;
    size_t nnodes;
    const struct sched_part *parts;
    size_t nparts;
    const struct sched_job *jobs; /* pending jobs, any order */
    size_t njobs;
};

/* One decision per pending job: start it (nnodes > 0) or why it waits. */
struct sched_decision {
    size_t job; /* index into sched_cluster.jobs */
    enum sched_reason reason;
    size_t nnodes; /* 0 when it waits */
    size_t *nodes; /* indices into sched_cluster.nodes (owned) */
};

struct sched_result {
    struct sched_decision *decisions; /* one per job, in scheduling order */
    size_t n;
    size_t started;
};

/*
 * sched_pass: decide for every pending job of c at time now.  Jobs started
 * are charged to c->nodes (cpus_alloc, mem_alloc_mib), so the caller's
 * model reflects the pass.  out is filled and owned by the caller; free
 * with sched_result_clear.  Returns 0; -1 with EINVAL on an index out of
 * range in c.
 */
int sched_pass(struct sched_cluster *c, time_t now, struct sched_result *out);
void sched_result_clear(struct sched_result *r);

#endif
