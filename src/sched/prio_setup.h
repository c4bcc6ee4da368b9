/*
 * The multifactor priority's settings as slurm.conf gives them
 * (PriorityType, PriorityWeight*, PriorityFlags, PriorityMaxAge,
 * PriorityCalcPeriod, PriorityDecayHalfLife, PriorityUsageResetPeriod,
 * the partitions' PriorityJobFactor and TRESBillingWeights), the
 * cluster's normalisers, and what a job of a partition asks for and is
 * billed: what the controller's priorities (ctld/sched/prio_drv.c) and
 * the simulator (src/sim) both feed prio_compute and the fair-share usage
 * with.  Pure.
 */
#ifndef SLUICE_SCHED_PRIO_SETUP_H
#define SLUICE_SCHED_PRIO_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/conf.h"
#include "common/err.h"
#include "sched/fairshare.h"
#include "sched/limits.h"
#include "sched/prio.h"

/* PriorityCalcPeriod and PriorityMaxAge when not given (or INFINITE). */
#define PRIO_SETUP_CALC_PERIOD_S 300
#define PRIO_SETUP_MAX_AGE_S (7 * 86400)

struct prio_setup {
    struct prio_conf pc;
    struct prio_norm norm; /* max_qos_prio is the caller's (its QOS) */
    bool fair_tree;        /* not PriorityFlags=NO_FAIR_TREE */
    bool max_tres;         /* PriorityFlags=MAX_TRES */
    int64_t calc_period_s; /* PriorityCalcPeriod */
    int64_t half_life_s;   /* PriorityDecayHalfLife; 0: no decay */
    enum fs_reset reset;   /* PriorityUsageResetPeriod */
    size_t nparts;
    double (*billing)[LIMITS_TRES_COUNT];     /* per partition (owned) */
    uint64_t (*part_tres)[LIMITS_TRES_COUNT]; /* per partition (owned) */
    uint32_t *part_factor; /* PriorityJobFactor per partition (owned) */
};

/*
 * prio_setup_init: ps from cf.  Returns 0; -1 with e naming the bad
 * setting ("PriorityFlags: ...", "PartitionName=dev TRESBillingWeights:
 * ..."), ps then empty.  prio_setup_free frees what init made (ps may be
 * empty or zeroed).
 */
int prio_setup_init(struct prio_setup *ps, const struct conf *cf,
                    struct err *e);
void prio_setup_free(struct prio_setup *ps);

/* What a job asks for (or holds), for its priority and its billing. */
struct prio_setup_req {
    size_t part; /* index into the configuration's partitions */
    uint32_t nodes;
    uint32_t cpus_per_node;
    uint64_t mem_per_node_mib;
    uint32_t gpus_per_node;
    int64_t time_limit_s; /* <= 0: none (INFINITE) */
};

/*
 * prio_setup_job: the request's part of a job's prio_job into out
 * (zeroed first): nodes, CPUs, time limit, TRES, its partition's TRES and
 * PriorityJobFactor.  The caller adds age, fair-share, QOS priority and
 * nice.
 */
void prio_setup_job(const struct prio_setup *ps, const struct prio_setup_req *r,
                    struct prio_job *out);

/*
 * prio_setup_charge: the fair-share usage of an allocation of r (nodes:
 * those allocated) from `from` to `to`: its billing (the partition's
 * TRESBillingWeights, PriorityFlags=MAX_TRES) x seconds x usage_factor
 * (the QOS's UsageFactor; 1 without a QOS).  0 when to <= from.
 */
double prio_setup_charge(const struct prio_setup *ps,
                         const struct prio_setup_req *r, double usage_factor,
                         time_t from, time_t to);

#endif
