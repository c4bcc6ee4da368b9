/*
 * Resource limits as QOS and associations carry them (Slurm's names), and
 * the TRES they count.  Pure data: the accounting store keeps these, the
 * limit engine (limits.c) checks jobs against them.  No I/O.
 */
#ifndef SLUICE_SCHED_LIMITS_H
#define SLUICE_SCHED_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

/* The TRES a limit can name, in the order Slurm prints them. */
enum limits_tres {
    LIMITS_TRES_CPU,     /* cpu */
    LIMITS_TRES_MEM,     /* mem, MiB */
    LIMITS_TRES_NODE,    /* node */
    LIMITS_TRES_BILLING, /* billing */
    LIMITS_TRES_GPU,     /* gres/gpu */
    LIMITS_TRES_COUNT
};

/* A limit that is not set (Slurm prints it as empty; sacctmgr sets it with
 * -1).  Every limit field below is LIMITS_UNSET unless given. */
#define LIMITS_UNSET UINT64_MAX

/*
 * One set of limits.  A QOS uses every field under its Slurm name
 * (MaxSubmitJobsPerUser ...).  An association uses the fields its
 * sacctmgr keys map to: MaxSubmitJobs -> max_submit_jobs_pu, MaxJobs ->
 * max_jobs_pu, MaxTRES(PerJob) -> max_tres_per_job, MaxWall(DurationPerJob)
 * -> max_wall_s, GrpTRES, GrpJobs, GrpSubmitJobs, and the per-account
 * fields unused.  limits_init sets every field to LIMITS_UNSET.
 */
struct limits {
    uint64_t max_submit_jobs_pu; /* MaxSubmitJobsPerUser / MaxSubmitJobs */
    uint64_t max_submit_jobs_pa; /* MaxSubmitJobsPerAccount */
    uint64_t max_jobs_pu;        /* MaxJobsPerUser / MaxJobs */
    uint64_t max_jobs_pa;        /* MaxJobsPerAccount */
    uint64_t grp_jobs;           /* GrpJobs */
    uint64_t grp_submit_jobs;    /* GrpSubmitJobs */
    uint64_t max_wall_s;         /* MaxWall, seconds */
    uint64_t max_tres_per_job[LIMITS_TRES_COUNT];  /* MaxTRESPerJob */
    uint64_t max_tres_per_user[LIMITS_TRES_COUNT]; /* MaxTRESPerUser */
    uint64_t grp_tres[LIMITS_TRES_COUNT];          /* GrpTRES */
    uint64_t min_prio_threshold;                   /* MinPrioThreshold */
};

/* limits_init: every limit of l unset. */
void limits_init(struct limits *l);

/* limits_tres_name: "cpu", "mem", "node", "billing", "gres/gpu". */
const char *limits_tres_name(enum limits_tres t);

#endif
