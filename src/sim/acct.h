/*
 * The simulator's accounting: QOS, accounts, users and associations, read
 * from a file in `sacctmgr dump` form ("Cluster - 'c'", "Parent - 'p'",
 * "Account - 'a':Fairshare=10", "User - 'u':DefaultAccount='a':
 * QOS='x,y'") with one more kind of line for what a dump leaves out:
 * "QOS - 'prod_qos':Priority=1000:Preempt='dev_qos':PreemptMode=requeue:
 * GraceTime=30:MaxJobsPerUser=4".  Keys mean what sacctmgr's do (limits
 * through sched/limits.h's limits_set_key).  Users a trace names that the
 * file does not get an association under their account (made under root
 * when missing; "default" when the trace names none).
 */
#ifndef SLUICE_SIM_ACCT_H
#define SLUICE_SIM_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "sched/limits.h"
#include "sched/preempt_policy.h"

#define SIM_NO_PARENT SIZE_MAX

/* QOS Flags the simulator acts on (others are accepted). */
#define SIM_QOS_DENY_ON_LIMIT 0x1u
#define SIM_QOS_OVER_PART_QOS 0x2u
#define SIM_QOS_NO_DECAY 0x4u

struct sim_qos {
    char *name;
    uint32_t priority;
    double usage_factor;
    unsigned flags;
    struct sched_preempt_qos pq; /* pq.preempt: owned names */
    struct limits lim;
    struct limits_level level;
};

struct sim_assoc {
    char *account;
    char *user;      /* NULL: the account's own association */
    size_t parent;   /* the parent account's association; SIM_NO_PARENT */
    uint32_t shares; /* Fairshare=; UINT32_MAX: "parent" */
    char **qos;      /* allowed (none: inherited) */
    size_t nqos;
    char *default_qos; /* NULL: inherited */
    struct limits lim;
    char key[24]; /* its id as text (the limit engine's key) */
};

struct sim_user {
    char *name;
    char *default_account;
};

struct sim_acct {
    struct sim_qos *qos;
    size_t nqos;
    struct sim_assoc *assoc;
    size_t nassoc;
    struct sim_user *users;
    size_t nusers;
};

/* sim_acct_init: root's account, user root, QOS normal (as Slurm always
 * has them).  sim_acct_free: everything. */
void sim_acct_init(struct sim_acct *a);
void sim_acct_free(struct sim_acct *a);

/*
 * sim_acct_load: the lines of buf (len bytes, the file name) added to a.
 * Returns 0; -1 with EINVAL and e "name:LINE: ..." at the first bad line
 * (an unknown kind or key, a bad value, a QOS or parent not defined
 * before).  a is then as far as the file went: free it.
 */
int sim_acct_load(struct sim_acct *a, const char *buf, size_t len,
                  const char *name, struct err *e);

/* Lookups: an index, or SIZE_MAX. */
size_t sim_acct_qos(const struct sim_acct *a, const char *name);
size_t sim_acct_account(const struct sim_acct *a, const char *account);
size_t sim_acct_user_assoc(const struct sim_acct *a, const char *user,
                           const char *account);

/* sim_acct_ensure: the association of user in account (NULL: the user's
 * default account, else "default"), made with the account when missing
 * (under root, Fairshare=1). */
size_t sim_acct_ensure(struct sim_acct *a, const char *user,
                       const char *account);

/* The association's effective QOS list and default QOS, up the parents
 * (sacctmgr's inheritance); the default QOS NULL when none is set. */
char *const *sim_acct_qos_list(const struct sim_acct *a, size_t assoc,
                               size_t *n);
const char *sim_acct_default_qos(const struct sim_acct *a, size_t assoc);
/* sim_acct_shares: Fairshare= with "parent" resolved as the controller
 * does (1). */
uint32_t sim_acct_shares(const struct sim_acct *a, size_t assoc);

/* sim_acct_max_qos_prio: the largest QOS Priority (the normaliser). */
uint32_t sim_acct_max_qos_prio(const struct sim_acct *a);

#endif
