/*
 * The scheduler core: a pure function from a cluster model and the time
 * to decisions.  No I/O, no clock reads, no globals.  The controller builds
 * a struct sched_cluster from its state on every pass; the simulator and
 * the unit tests build one by hand.
 *
 * This core places jobs in order of partition PriorityTier, priority,
 * submit time and id on
 * nodes with enough free CPUs, memory and GPUs, choosing among the nodes
 * that fit the one where the job fits most tightly (best fit), and on a
 * node the GPUs best connected to each other (select.h).  Priorities
 * are computed beforehand (prio.h, fairshare.h) and kept on the jobs;
 * backfill (backfill.h) follows the main pass.
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
    SCHED_REASON_LIMIT,        /* a counter it charges is full: the decision's
                           limit names which (QOSMaxJobsPerUserLimit ...) */
    SCHED_REASON_RESERVATION,  /* its reservation has not begun */
    SCHED_REASON_RESV_DELETED, /* ReservationDeleted: its reservation is gone */
    SCHED_REASON_COUNT
};

const char *sched_reason_name(enum sched_reason r);

/*
 * One GPU of a node.  The core knows GPUs by their position in
 * sched_node.gpus (0 .. ngpus-1); the controller maps positions to the
 * indices the node registered.
 */
struct sched_gpu {
    const char *type;      /* "a100", or "" (or NULL) when untyped */
    const uint64_t *links; /* NULL, or SCHED_GPU_WORDS(ngpus) words: the
                              positions it has a direct (NVLink) link to */
};

/* Words of a GPU bitmap (bit p of word p / 64: position p). */
#define SCHED_GPU_WORDS(n) (((size_t)(n) + 63) / 64)
/* Bytes of the sort key the pass keeps per job (twice, while sorting). */
#define SCHED_ORDER_KEY_BYTES 32

/* The most GPUs one node may have in the model. */
#define SCHED_GPU_MAX 4096

struct sched_node {
    const char *name;
    uint32_t cpus; /* configured (or reported, if less) */
    uint32_t cpus_alloc;
    uint64_t mem_mib;
    uint64_t mem_alloc_mib;
    bool up;        /* registered, responding, not DOWN/INVALID */
    bool drain;     /* DRAIN: runs what it has, takes nothing new */
    uint32_t ngpus; /* GPUs, by position */
    const struct sched_gpu *gpus; /* ngpus of them; NULL: untyped, unlinked */
    uint64_t *gpu_used; /* SCHED_GPU_WORDS(ngpus) words, bit set: allocated
                           (the pass sets the bits it gives out); may be
                           NULL when ngpus is 0 */
    /* ExclusiveUser: who runs here (the pass updates these as it starts
     * jobs).  users is 0 (nobody), 1 (only user) or 2 (several). */
    uint32_t users;
    uint32_t user;
    bool user_exclusive;  /* a job of an ExclusiveUser partition runs here */
    bool whole;           /* a job with the whole node (--exclusive) runs
                             here: nothing else may start */
    const char *features; /* Features= ("a100,ib"), NULL or "": none */
    uint32_t weight;      /* Weight=: lower weights are chosen first (best
                             fit); 0 counts as 1 */
};

struct sched_part {
    const char *name;
    bool start_jobs;     /* state UP (DOWN/DRAIN/INACTIVE start nothing) */
    bool inactive;       /* INACTIVE rather than DOWN */
    const size_t *nodes; /* indices into sched_cluster.nodes */
    size_t nnodes;
};

/*
 * A counter: something jobs use up as they start, with a capacity — one
 * per resource limit that applies (a QOS's GrpJobs, a user's MaxJobs in a
 * QOS ...).  The controller builds them from the limit engine's view;
 * the core knows nothing of limits, only counters.  A job starts only if
 * every counter it charges has room for its amount (used + amount <=
 * capacity); starting it adds the amounts to used, so two jobs in one
 * pass cannot both take the last unit.
 */
struct sched_counter {
    uint64_t capacity;  /* UINT64_MAX: unlimited */
    uint64_t used;      /* the pass adds what it starts */
    const char *reason; /* why a job waits when this is full, a Slurm
                           reason name (static, not freed) */
};

/* What a job takes from one counter when it starts. */
struct sched_charge {
    size_t counter; /* index into sched_cluster.counters */
    uint64_t amount;
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
    const bool *node_allowed;           /* NULL, or per node: -w/-x filter */
    uint32_t gpus_per_node;             /* 0: none */
    const char *gpu_type;               /* NULL or "": any type */
    const struct sched_charge *charges; /* NULL, or ncharges of them */
    size_t ncharges;
    uint32_t tier;             /* PriorityTier of its partition: first key */
    int64_t time_limit_s;      /* <= 0: none (INFINITE), for backfill */
    uint32_t user;             /* uid, for bf_max_job_user and ExclusiveUser */
    bool exclusive_user;       /* its partition has ExclusiveUser=YES: it takes
                             no node another user runs on, and keeps its
                             nodes to its user while it runs */
    uint64_t min_prio_reserve; /* its QOS's MinPrioThreshold: below it the
                                  job gets no backfill reservation (it may
                                  still start where it fits); 0: none */
    /* --exclusive: only empty nodes, and the whole of each (all CPUs,
     * memory and GPUs are charged to it) */
    bool exclusive_node;
    /* -C with counts or a [..] group: the set of nodes must satisfy it
     * (features.h); NULL: none */
    const struct features_req *constraint;
    int64_t time_min_s; /* --time-min: backfill may start it with a limit
                           as short as this; 0: none */
    /* NONE, or why it may not start at all for now: the controller's
     * reservations (SCHED_REASON_RESERVATION, _RESV_DELETED); the nodes
     * a reservation keeps from it are out of node_allowed */
    enum sched_reason resv_gate;
};

/* How a job's nodes are chosen among those that fit. */
enum sched_fit {
    /* fewest free GPUs left, then fewest free CPUs, then partition order:
     * keeps whole nodes free for large jobs */
    SCHED_FIT_BEST = 0,
    SCHED_FIT_FIRST, /* the first nodes in partition order (a baseline) */
};

struct sched_cluster {
    struct sched_node *nodes;
    size_t nnodes;
    const struct sched_part *parts;
    size_t nparts;
    const struct sched_job *jobs; /* pending jobs, any order */
    size_t njobs;
    enum sched_fit fit;             /* 0: SCHED_FIT_BEST */
    struct sched_counter *counters; /* NULL, or ncounters; the pass
                                       charges the jobs it starts */
    size_t ncounters;
};

/* One decision per pending job: start it (nnodes > 0) or why it waits. */
struct sched_decision {
    size_t job; /* index into sched_cluster.jobs */
    enum sched_reason reason;
    /* SCHED_REASON_LIMIT: the full counter's reason (static); else NULL */
    const char *limit;
    size_t nnodes; /* 0 when it waits */
    size_t *nodes; /* indices into sched_cluster.nodes (owned) */
    /* GPU positions, gpus_per_node for each node in nodes order, each
     * node's ascending (owned); NULL when the job asks for none */
    uint32_t *gpus;
    time_t start_est;     /* started: now; else the backfill reservation's
                         start; 0 when unknown */
    bool backfilled;      /* started by backfill, ahead of its turn */
    int64_t time_limit_s; /* started with its limit cut to this
                             (--time-min); 0: its own limit */
};

struct sched_result {
    struct sched_decision *decisions; /* one per job, in scheduling order */
    size_t n;
    size_t started;
};

/*
 * sched_pass: decide for every pending job of c at time now.  Jobs started
 * are charged to c->nodes (cpus_alloc, mem_alloc_mib, gpu_used) and to
 * c->counters, so the caller's model reflects the pass.  A job held by a
 * counter waits with SCHED_REASON_LIMIT and does not hold back the jobs
 * behind it in its partition (as in Slurm, a job held by a limit is
 * skipped).  out is filled and owned by the
 * caller; free with sched_result_clear.  Returns 0; -1 with EINVAL on an
 * index out of range in c (a job's partition, a partition's node, a job's
 * counter, a node with more than SCHED_GPU_MAX GPUs or GPUs without a
 * gpu_used bitmap).
 */
int sched_pass(struct sched_cluster *c, time_t now, struct sched_result *out);
void sched_result_clear(struct sched_result *r);

/* sched_counters_room: every counter j charges has room for it (backfill
 * starts jobs too); sched_counters_charge: charge them. */
bool sched_counters_room(const struct sched_cluster *c,
                         const struct sched_job *j);
void sched_counters_charge(struct sched_cluster *c, const struct sched_job *j);

#endif
