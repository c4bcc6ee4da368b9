/*
 * Fair-share: decayed usage per association and the fair-share factor that
 * the multifactor priority weighs.  The association tree (root, accounts,
 * users, each with Fairshare= shares and a parent) is handed in as an
 * array; usage is billed TRES x seconds, halved every PriorityDecayHalfLife.
 * The Fair Tree algorithm (Slurm's default) ranks users by their level
 * fair-share down the tree; the classic algorithm (PriorityFlags=
 * NO_FAIR_TREE) is 2^(-effective usage / normalised shares).  Pure.
 */
#ifndef SLUICE_SCHED_FAIRSHARE_H
#define SLUICE_SCHED_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sched/limits.h"

#define FS_NO_PARENT SIZE_MAX

/* One association.  Inputs first; fs_compute fills the outputs. */
struct fs_assoc {
    const char *name;    /* account or user name (not owned) */
    size_t parent;       /* index of the parent account; FS_NO_PARENT: root */
    bool is_user;        /* a leaf: a user's association under an account */
    uint32_t shares_raw; /* Fairshare= (1 by default) */
    double usage_raw;    /* decayed billed seconds of its own jobs (users) */

    /* outputs */
    double usage_tree;  /* its own usage plus its descendants' */
    double shares_norm; /* its share of the whole machine, [0,1] */
    double usage_norm;  /* usage_tree / the root's */
    double usage_eff;   /* classic effective usage */
    double level_fs;    /* Fair Tree: (shares/siblings') / (usage/parent's);
                           INFINITY without usage */
    double factor;      /* the fair-share factor, [0,1] (users) */
};

/*
 * fs_compute: fill the outputs of a[0..n-1].  Exactly one association has
 * no parent (the root); parents must be valid indices of non-users and the
 * tree acyclic.  fair_tree chooses the algorithm.  Returns 0; -1 with
 * EINVAL when the tree is malformed (nothing is changed then).
 * O(n log n).
 */
int fs_compute(struct fs_assoc *a, size_t n, bool fair_tree);

/* fs_decay: usage after dt_s seconds of decay with the given half-life:
 * usage x 2^(-dt_s/half_life_s).  half_life_s <= 0: no decay. */
double fs_decay(double usage, double dt_s, int64_t half_life_s);

/*
 * fs_billing: the billing of an allocation (tres in all, LIMITS_TRES_*),
 * with weights (TRESBillingWeights; all 0: CPUs count 1).  max_tres
 * (PriorityFlags=MAX_TRES): the largest weighted node TRES instead of
 * their sum.
 */
double fs_billing(const uint64_t tres[LIMITS_TRES_COUNT],
                  const double weights[LIMITS_TRES_COUNT], bool max_tres);

/* The PriorityUsageResetPeriod values (as enum conf_usage_reset). */
enum fs_reset {
    FS_RESET_NONE,
    FS_RESET_NOW,
    FS_RESET_DAILY,
    FS_RESET_WEEKLY,
    FS_RESET_MONTHLY,
    FS_RESET_QUARTERLY,
    FS_RESET_YEARLY,
};

/*
 * fs_reset_next: the first reset boundary strictly after t (UTC midnight:
 * of the next day, next Sunday, the 1st of the next month, quarter or
 * year); 0 for NONE and NOW (NOW is a one-time reset the caller does).
 */
time_t fs_reset_next(enum fs_reset period, time_t t);

#endif
