/*
 * Inside the limit engine: usage entries, which limit of which level
 * decides, and Slurm's reason names.  Shared by limits*.c only.
 */
#ifndef SLUICE_SCHED_LIMITS_INT_H
#define SLUICE_SCHED_LIMITS_INT_H

#include "sched/limits.h"

/* What an entry counts: a QOS in all, a user or an account in a QOS, an
 * association (with the jobs of every association below it). */
enum lim_ent_type { ENT_QOS, ENT_QOS_USER, ENT_QOS_ACCT, ENT_ASSOC };

/* Counter slots of an entry in a pass: jobs under a Max* limit (MaxJobs,
 * MaxJobsPerUser/Account), jobs under GrpJobs, then one per TRES. */
enum {
    SLOT_JOBS_MAX,
    SLOT_JOBS_GRP,
    SLOT_TRES0,
    SLOT_COUNT = SLOT_TRES0 + LIMITS_TRES_COUNT
};

struct lim_entry {
    char *key; /* type letter, 0x1f, names: owned */
    uint64_t submitted, running;
    uint64_t tres[LIMITS_TRES_COUNT];
    uint64_t pass_gen;       /* the pass that filled slot[] */
    size_t slot[SLOT_COUNT]; /* counter index in that pass; SIZE_MAX: none */
};

/* The entries of one level of a job's chain: QOS levels have qos, user
 * and acct; association levels assoc. */
struct lim_level_ents {
    struct lim_entry *qos, *user, *acct, *assoc;
};

struct limits_charge {
    struct limits_usage *u;
    size_t nlevels;
    struct lim_level_ents lv[LIMITS_LEVEL_MAX];
    uint64_t tres[LIMITS_TRES_COUNT];
    bool running;
};

/* The limits, by what they count. */
enum lim_what {
    W_MAX_SUBMIT_PU, /* MaxSubmitJobsPerUser / MaxSubmitJobs */
    W_MAX_SUBMIT_PA, /* MaxSubmitJobsPerAccount (QOS) */
    W_GRP_SUBMIT,    /* GrpSubmitJobs */
    W_MAX_JOBS_PU,   /* MaxJobsPerUser / MaxJobs */
    W_MAX_JOBS_PA,   /* MaxJobsPerAccount (QOS) */
    W_GRP_JOBS,      /* GrpJobs */
    W_MAX_WALL,      /* MaxWall */
    W_TRES_PJ,       /* MaxTRESPerJob, by TRES */
    W_TRES_PU,       /* MaxTRESPerUser (QOS), by TRES */
    W_GRP_TRES,      /* GrpTRES, by TRES */
};

/* lim_value: the limit w (TRES t) of l; LIMITS_UNSET when unset or when
 * a level of kind k cannot carry it. */
uint64_t lim_value(const struct limits *l, enum limits_kind k, enum lim_what w,
                   int t);
/* lim_level_value: lim_value of a level (LIMITS_UNSET when lim is NULL). */
uint64_t lim_level_value(const struct limits_level *l, enum lim_what w, int t);
/* lim_reason: Slurm's reason name for limit w (TRES t) set at a level of
 * kind k (static). */
const char *lim_reason(enum limits_kind k, enum lim_what w, int t);
/* lim_decide: the index of the first level of j that sets w (t), or -1. */
int lim_decide(const struct limits_job *j, enum lim_what w, int t);
/* lim_grp_applies: is the Grp* limit w (t) of level i in force for j?  A
 * QOS's when it is the first QOS to set it; an association's when no QOS
 * sets it (each association's against its own usage, as in Slurm). */
bool lim_grp_applies(const struct limits_job *j, size_t i, enum lim_what w,
                     int t);

/* lim_user_assoc: the index of j's own association in its chain, or -1;
 * lim_assoc_key: an association level's usage key. */
int lim_user_assoc(const struct limits_job *j);
const char *lim_assoc_key(const struct limits_level *l);

/* lim_find: the entry for a key made of type and names, NULL if none. */
struct lim_entry *lim_find(const struct limits_usage *u, enum lim_ent_type t,
                           const char *a, const char *b);
/* lim_get: the same, made when missing (entries live as long as u). */
struct lim_entry *lim_get(struct limits_usage *u, enum lim_ent_type t,
                          const char *a, const char *b);
/* lim_next_pass: a number no earlier pass over u had. */
uint64_t lim_next_pass(struct limits_usage *u);

#endif
