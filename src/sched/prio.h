/*
 * Multifactor job priority (PriorityType=priority/multifactor), as Slurm's
 * multifactor plugin defines it: a weighted sum of factors, each normally in
 * [0,1], minus the job's nice value.  Pure arithmetic: the controller hands
 * in what it knows about a job and the normalisers of the cluster, and gets
 * the total and every factor (sprio prints them).  No I/O, no clock reads.
 */
#ifndef SLUICE_SCHED_PRIO_H
#define SLUICE_SCHED_PRIO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "sched/limits.h"

/* The largest nice adjustment either way (Slurm's NICE_OFFSET - 3);
 * a negative one is for operators and administrators only. */
#define PRIO_NICE_MAX 2147483645

/* PriorityFlags that change the arithmetic (prio_flags_parse). */
enum prio_flag {
    PRIO_F_ACCRUE_ALWAYS = 1u << 0,          /* age from submit, always */
    PRIO_F_SMALL_RELATIVE_TO_TIME = 1u << 1, /* job size / time limit */
    PRIO_F_MAX_TRES = 1u << 2,               /* billing: max, not sum */
    PRIO_F_NO_FAIR_TREE = 1u << 3,           /* classic fair-share */
    PRIO_F_NO_NORMAL_PART = 1u << 4,         /* raw PriorityJobFactor */
    PRIO_F_NO_NORMAL_QOS = 1u << 5,          /* raw QOS priority */
    PRIO_F_NO_NORMAL_TRES = 1u << 6,         /* raw TRES counts */
    PRIO_F_NO_NORMAL_ASSOC = 1u << 7,        /* accepted; no assoc factor */
};

/* The factors, in sprio's column order. */
enum prio_factor {
    PRIO_AGE,
    PRIO_FAIRSHARE,
    PRIO_JOBSIZE,
    PRIO_PARTITION,
    PRIO_QOS,
    PRIO_TRES, /* the sum over TRES; each one in prio_result.tres_* */
    PRIO_NFACTORS
};

/* prio_factor_name: "age", "fairshare", "jobsize", "partition", "qos",
 * "tres". */
const char *prio_factor_name(enum prio_factor f);

struct prio_conf {
    bool multifactor;           /* false: priority/basic (every job the same) */
    uint32_t weight[PRIO_TRES]; /* PriorityWeightAge .. QOS */
    double weight_tres[LIMITS_TRES_COUNT]; /* PriorityWeightTRES */
    int64_t max_age_s;                     /* PriorityMaxAge (> 0) */
    bool favor_small;                      /* PriorityFavorSmall */
    unsigned flags;                        /* enum prio_flag bits */
};

/*
 * prio_flags_parse: PriorityFlags ("FAIR_TREE,MAX_TRES", case-insensitive)
 * into enum prio_flag bits.  FAIR_TREE, DEPTH_OBLIVIOUS, CALCULATE_RUNNING
 * and INCR_ONLY are accepted (the first is the default, the others do not
 * change Sluice's arithmetic).  -1 with EINVAL and e naming the flag.
 */
int prio_flags_parse(const char *s, unsigned *flags, struct err *e);

/*
 * prio_tres_weights_parse: "CPU=1000,Mem=2000,GRES/gpu=3000" (also
 * TRESBillingWeights, where Mem may carry a unit per GiB: "Mem=0.25G")
 * into w[LIMITS_TRES_COUNT] (zeroed first).  -1 with EINVAL and e naming
 * the item.
 */
int prio_tres_weights_parse(const char *s, double w[LIMITS_TRES_COUNT],
                            struct err *e);

/* What the normalisers need to know of the whole cluster. */
struct prio_norm {
    uint32_t nodes;           /* nodes in the cluster */
    uint64_t cpus;            /* CPUs in the cluster */
    uint32_t max_part_factor; /* largest PriorityJobFactor of a partition */
    uint32_t max_qos_prio;    /* largest QOS Priority */
};

/*
 * The eligible time a job has accrued.  A held or not-yet-eligible job
 * stops accruing; a requeued job keeps what it had.  since is 0 while it
 * does not accrue.
 */
struct prio_accrual {
    int64_t accrued_s;
    time_t since;
};

/* prio_accrue_set: from now on a accrues (eligible) or not; the time since
 * a->since is folded into accrued_s. */
void prio_accrue_set(struct prio_accrual *a, bool eligible, time_t now);
/* prio_accrue_age_s: the seconds accrued as of now. */
int64_t prio_accrue_age_s(const struct prio_accrual *a, time_t now);

struct prio_job {
    int64_t age_s;          /* eligible seconds (prio_accrue_age_s) */
    int64_t since_submit_s; /* for ACCRUE_ALWAYS */
    double fairshare;       /* its association's fair-share factor, [0,1] */
    uint32_t nodes;         /* requested */
    uint32_t cpus;          /* requested, in all */
    int64_t time_limit_s;   /* <= 0: unknown or INFINITE */
    uint32_t part_factor;   /* PriorityJobFactor of its partition */
    uint32_t qos_prio;      /* Priority of its QOS */
    uint64_t tres[LIMITS_TRES_COUNT];      /* requested, in all */
    uint64_t part_tres[LIMITS_TRES_COUNT]; /* its partition's total */
    int32_t nice;
};

struct prio_result {
    double norm[PRIO_NFACTORS];     /* each factor, normalised */
    double weighted[PRIO_NFACTORS]; /* weight x factor */
    double tres_norm[LIMITS_TRES_COUNT];
    double tres_weighted[LIMITS_TRES_COUNT];
    int32_t nice;
    uint32_t priority; /* the total (>= 1), what the scheduler orders by */
};

/*
 * prio_compute: the priority of j under c and n; out (may be NULL) gets
 * every factor.  priority/basic gives 1 for every job, so that order falls
 * to submit time (FIFO).  The total is the weighted sum minus nice,
 * truncated to an integer and kept within [1, UINT32_MAX - 1].
 */
uint32_t prio_compute(const struct prio_conf *c, const struct prio_norm *n,
                      const struct prio_job *j, struct prio_result *out);

/* prio_job_size: the job size factor alone (the rules are in prio.c). */
double prio_job_size(const struct prio_conf *c, const struct prio_norm *n,
                     const struct prio_job *j);

#endif
