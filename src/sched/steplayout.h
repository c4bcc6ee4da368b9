/*
 * Where a job step's tasks go inside its job's allocation: srun's task
 * layout (-n, -N, --ntasks-per-node, -c, --gpus-per-task, --gpus-per-node,
 * --mem, -w, -x, --distribution=block|cyclic, --exact, --overlap) as Slurm
 * 22.05 lays them out.  Pure: the nodes of the allocation with what running
 * steps hold of them in, the layout or the reason out.
 */
#ifndef SLUICE_STEPLAYOUT_H
#define SLUICE_STEPLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

enum sl_dist { SL_DIST_BLOCK, SL_DIST_CYCLIC };

/* One node of the job's allocation, in the allocation's order. */
struct sl_node {
    const char *name;
    uint32_t cpus;        /* the job's CPUs on this node */
    uint32_t cpus_free;   /* of those, not held by running steps */
    uint32_t n_gpus;      /* the job's GPUs on this node */
    const uint32_t *gpus; /* their indices (as the node registered them),
                             ascending; NULL when n_gpus is 0 */
    const bool *gpu_free; /* per GPU of gpus: not held by a running step;
                             NULL: all free */
    uint64_t mem_mib;     /* the job's memory on this node; 0: unlimited */
};

/* What the step asks for; 0 / NULL: not given. */
struct sl_req {
    uint32_t ntasks;
    uint32_t nodes_min, nodes_max;
    uint32_t ntasks_per_node;
    uint32_t cpus_per_task; /* 0: 1 */
    uint32_t gpus_per_task;
    uint32_t gpus_per_node;
    uint64_t mem_mib;     /* per node */
    const char *nodelist; /* -w: hostlist expression, nodes of the job */
    const char *exclude;  /* -x */
    enum sl_dist dist;
    /* CPUs held: --overlap holds none and shares everything; --exact holds
     * ntasks * cpus_per_task on each node; otherwise the step holds every
     * CPU the job has on its nodes (Slurm 22.05's default). GPUs asked
     * for (--gpus-per-task, --gpus-per-node) are held unless overlap;
     * a step that asks for none sees all of the job's GPUs on its nodes
     * and holds none. */
    bool exact;
    bool overlap;
};

/* The step on one node. */
struct sl_node_out {
    size_t node; /* index into the nodes given */
    uint32_t ntasks;
    uint32_t *tasks; /* the global task ids here, ascending */
    uint32_t cpus;   /* CPUs the step holds here (0 with overlap) */
    uint32_t n_gpus;
    uint32_t *gpus; /* GPU indices the step's tasks see here; with
                        gpus_per_task, local task L gets
                        gpus[L * gpus_per_task ...] */
    bool gpus_held; /* those GPUs are held (asked for, not overlap) */
};

struct sl_layout {
    uint32_t ntasks;
    uint32_t cpus_per_task;
    uint32_t gpus_per_task; /* 0: every task sees all of gpus */
    size_t n_nodes;
    struct sl_node_out *nodes; /* in the allocation's order */
    /* Slurm's warning when it adjusted the request, e.g. "can't run 1
     * processes on 2 nodes, setting nnodes to 1"; NULL when none */
    char *warning;
};

/*
 * steplayout_plan: lay the step r out over the job's nodes[0..n).
 * -1 with errno and e:
 *   EINVAL  it can never fit this job, with Slurm's words where Slurm has
 *           them: "Only allocated 2 nodes asked for 3", "node09 is not in
 *           the job's allocation (node[01-02])", "the step asks for 5 GPUs
 *           per task (20 on node01) but the job has 4 GPUs there",
 *           "more processors requested than permitted" (-c and -n over the
 *           job's CPUs), "--ntasks-per-node=4 with -n 9 and -N 2 needs 3
 *           nodes"
 *   EAGAIN  it fits the job but not now: "Requested nodes are busy"
 * Free with steplayout_clear.
 */
int steplayout_plan(const struct sl_node *nodes, size_t n,
                    const struct sl_req *r, struct sl_layout *out,
                    struct err *e);
void steplayout_clear(struct sl_layout *l);

/*
 * steplayout_counts: Slurm's compressed count list ("4(x2),3") of
 * counts[0..n).  New string, caller frees.
 */
char *steplayout_counts(const uint32_t *counts, size_t n);

#endif
