/*
 * The limit engine's rules: the limit sets that apply to a job in Slurm's
 * order of precedence (partition QOS, job QOS, user association, account
 * associations up to root), which level decides each limit, Slurm's
 * reason names, and the submit-time verdict.  docs/limits.md.
 */
#include "sched/limits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/timefmt.h"
#include "sched/limits_int.h"

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

/* Slurm's reason names, by TRES in enum limits_tres order. */
static const char *const qos_tres_pj[LIMITS_TRES_COUNT] = {
    "QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit",
    "QOSMaxBillingPerJob", "QOSMaxGRESPerJob"};
static const char *const qos_tres_pu[LIMITS_TRES_COUNT] = {
    "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxNodePerUserLimit",
    "QOSMaxBillingPerUser", "QOSMaxGRESPerUser"};
static const char *const qos_grp_tres[LIMITS_TRES_COUNT] = {
    "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpBilling",
    "QOSGrpGRES"};
static const char *const assoc_tres_pj[LIMITS_TRES_COUNT] = {
    "AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob", "AssocMaxNodePerJobLimit",
    "AssocMaxBillingPerJob", "AssocMaxGRESPerJob"};
static const char *const assoc_grp_tres[LIMITS_TRES_COUNT] = {
    "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit",
    "AssocGrpBilling", "AssocGrpGRES"};

const char *lim_reason(enum limits_kind k, enum lim_what w, int t)
{
    bool q = k == LIMITS_QOS;

    switch (w) {
    case W_MAX_SUBMIT_PU:
        return q ? "QOSMaxSubmitJobPerUserLimit" : "AssocMaxSubmitJobLimit";
    case W_MAX_SUBMIT_PA:
        return "QOSMaxSubmitJobPerAccountLimit";
    case W_GRP_SUBMIT:
        return q ? "QOSGrpSubmitJobsLimit" : "AssocGrpSubmitJobsLimit";
    case W_MAX_JOBS_PU:
        return q ? "QOSMaxJobsPerUserLimit" : "AssocMaxJobsLimit";
    case W_MAX_JOBS_PA:
        return "QOSMaxJobsPerAccountLimit";
    case W_GRP_JOBS:
        return q ? "QOSGrpJobsLimit" : "AssocGrpJobsLimit";
    case W_MAX_WALL:
        return q ? "QOSMaxWallDurationPerJobLimit"
                 : "AssocMaxWallDurationPerJobLimit";
    case W_TRES_PJ:
        return q ? qos_tres_pj[t] : assoc_tres_pj[t];
    case W_TRES_PU:
        return qos_tres_pu[t];
    case W_GRP_TRES:
        return q ? qos_grp_tres[t] : assoc_grp_tres[t];
    }
    return "Limit";
}

uint64_t lim_value(const struct limits *l, enum limits_kind k, enum lim_what w,
                   int t)
{
    bool q = k == LIMITS_QOS;

    if (l == NULL)
        return LIMITS_UNSET;
    switch (w) {
    case W_MAX_SUBMIT_PU:
        return l->max_submit_jobs_pu;
    case W_MAX_SUBMIT_PA:
        return q ? l->max_submit_jobs_pa : LIMITS_UNSET;
    case W_GRP_SUBMIT:
        return l->grp_submit_jobs;
    case W_MAX_JOBS_PU:
        return l->max_jobs_pu;
    case W_MAX_JOBS_PA:
        return q ? l->max_jobs_pa : LIMITS_UNSET;
    case W_GRP_JOBS:
        return l->grp_jobs;
    case W_MAX_WALL:
        return l->max_wall_s;
    case W_TRES_PJ:
        return l->max_tres_per_job[t];
    case W_TRES_PU:
        return q ? l->max_tres_per_user[t] : LIMITS_UNSET;
    case W_GRP_TRES:
        return l->grp_tres[t];
    }
    return LIMITS_UNSET;
}

uint64_t lim_level_value(const struct limits_level *l, enum lim_what w, int t)
{
    return lim_value(l->lim, l->kind, w, t);
}

int lim_decide(const struct limits_job *j, enum lim_what w, int t)
{
    for (size_t i = 0; i < j->nlevels; i++)
        if (lim_level_value(&j->levels[i], w, t) != LIMITS_UNSET)
            return (int)i;
    return -1;
}

bool lim_grp_applies(const struct limits_job *j, size_t i, enum lim_what w,
                     int t)
{
    const struct limits_level *l = &j->levels[i];

    if (lim_level_value(l, w, t) == LIMITS_UNSET)
        return false;
    for (size_t k = 0; k < j->nlevels; k++) {
        const struct limits_level *o = &j->levels[k];
        if (o->kind != LIMITS_QOS || lim_level_value(o, w, t) == LIMITS_UNSET)
            continue;
        /* the first QOS that sets it decides, for QOS and associations */
        return k == i;
    }
    return l->kind == LIMITS_ASSOC;
}

int limits_chain(struct limits_level *out, const struct limits_level *part_qos,
                 const struct limits_level *job_qos, bool over_part_qos,
                 const struct limits_level *assocs, size_t nassocs)
{
    const struct limits_level *first = part_qos, *second = job_qos;
    size_t n = 0;

    if (over_part_qos) {
        first = job_qos;
        second = part_qos;
    }
    if (nassocs + 2 > LIMITS_LEVEL_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (first != NULL)
        out[n++] = *first;
    if (second != NULL &&
        (first == NULL || strcmp(first->name, second->name) != 0))
        out[n++] = *second;
    for (size_t i = 0; i < nassocs; i++)
        out[n++] = assocs[i];
    return (int)n;
}

uint64_t limits_max_wall(const struct limits_job *j)
{
    int i = lim_decide(j, W_MAX_WALL, 0);
    return i < 0 ? LIMITS_UNSET : j->levels[i].lim->max_wall_s;
}
