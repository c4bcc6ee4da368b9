/*
 * Resource limits: the data QOS and associations carry, and (growing here)
 * the checks of jobs against them.
 */
#include "sched/limits.h"

static const char *const tres_names[LIMITS_TRES_COUNT] = {
    [LIMITS_TRES_CPU] = "cpu",      [LIMITS_TRES_MEM] = "mem",
    [LIMITS_TRES_NODE] = "node",    [LIMITS_TRES_BILLING] = "billing",
    [LIMITS_TRES_GPU] = "gres/gpu",
};

void limits_init(struct limits *l)
{
    l->max_submit_jobs_pu = LIMITS_UNSET;
    l->max_submit_jobs_pa = LIMITS_UNSET;
    l->max_jobs_pu = LIMITS_UNSET;
    l->max_jobs_pa = LIMITS_UNSET;
    l->grp_jobs = LIMITS_UNSET;
    l->grp_submit_jobs = LIMITS_UNSET;
    l->max_wall_s = LIMITS_UNSET;
    for (int t = 0; t < LIMITS_TRES_COUNT; t++) {
        l->max_tres_per_job[t] = LIMITS_UNSET;
        l->max_tres_per_user[t] = LIMITS_UNSET;
        l->grp_tres[t] = LIMITS_UNSET;
    }
    l->min_prio_threshold = LIMITS_UNSET;
}

const char *limits_tres_name(enum limits_tres t)
{
    return (unsigned)t < LIMITS_TRES_COUNT ? tres_names[t] : "?";
}
