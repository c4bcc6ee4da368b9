/*
 * The accounting model (docs/accounting.md): clusters, the account tree,
 * users, associations and QOS, as sacctmgr manages them.  One struct acct
 * hangs off struct ctld; it is loaded from the accounting store at start
 * and every change goes through the store (acct_store.h) inside the
 * controller's open transaction, so it is committed with the iteration's
 * group commit before the reply goes out.
 *
 * The records below are read-only for everyone but acct.c.  Pointers to
 * them (and their strings) stay valid until the next change of the model;
 * acct_generation() tells when that happened, so a reader that keeps
 * pointers (the scheduler's view) rebuilds when it moves.
 */
#ifndef SLUICE_CTLD_ACCT_H
#define SLUICE_CTLD_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/err.h"
#include "sched/limits.h"

struct acct;
struct acct_store;

enum acct_admin {
    ACCT_ADMIN_NONE,
    ACCT_ADMIN_OPERATOR,
    ACCT_ADMIN_ADMIN, /* "Administrator" */
};

/* QOS PreemptMode; CLUSTER: the cluster's PreemptMode applies. */
enum acct_preempt_mode {
    ACCT_PREEMPT_CLUSTER,
    ACCT_PREEMPT_OFF,
    ACCT_PREEMPT_CANCEL,
    ACCT_PREEMPT_REQUEUE,
    ACCT_PREEMPT_SUSPEND,
};

/* QOS Flags (Slurm's names). */
#define ACCT_QOS_DENY_ON_LIMIT 0x001u       /* DenyOnLimit */
#define ACCT_QOS_NO_DECAY 0x002u            /* NoDecay */
#define ACCT_QOS_OVER_PART_QOS 0x004u       /* OverPartQOS */
#define ACCT_QOS_PART_MIN_NODE 0x008u       /* PartitionMinNodes */
#define ACCT_QOS_PART_MAX_NODE 0x010u       /* PartitionMaxNodes */
#define ACCT_QOS_PART_TIME_LIMIT 0x020u     /* PartitionTimeLimit */
#define ACCT_QOS_NO_RESERVE 0x040u          /* NoReserve */
#define ACCT_QOS_ENFORCE_USAGE_THRES 0x080u /* EnforceUsageThreshold */
#define ACCT_QOS_USAGE_FACTOR_SAFE 0x100u   /* UsageFactorSafe */
#define ACCT_QOS_RELATIVE 0x200u            /* Relative */
/* ExemptUntilCheckpoint (ours): PreemptExemptTime lasts until the job's
 * first checkpoint (docs/preemption.md) */
#define ACCT_QOS_EXEMPT_UNTIL_CHECKPOINT 0x400u

/* An unset time (PreemptExemptTime): the cluster's value applies. */
#define ACCT_TIME_UNSET INT64_C(-1)

struct acct_qos {
    uint32_t id;
    char *name;
    char *description; /* "" when none */
    uint32_t priority;
    char **preempt; /* QOS names this one may preempt */
    size_t n_preempt;
    enum acct_preempt_mode preempt_mode;
    int64_t preempt_exempt_time_s; /* ACCT_TIME_UNSET when not given */
    int64_t grace_time_s;          /* 0 by default */
    double usage_factor;           /* 1.0 by default */
    uint32_t flags;                /* ACCT_QOS_* */
    struct limits limits;
};

struct acct_cluster {
    char *name;
};

struct acct_account {
    char *name;
    char *description;  /* defaults to the name, as in Slurm */
    char *organization; /* defaults to the parent's name (root: "root") */
    char *parent;       /* NULL for root */
};

struct acct_user {
    char *name;
    char *default_account;
    enum acct_admin admin;
};

/* Fairshare=parent: the association draws on its parent's shares. */
#define ACCT_SHARES_PARENT UINT32_MAX

struct acct_assoc {
    uint32_t id;
    char *cluster;
    char *account;
    char *user;        /* NULL: the account's own association */
    char *partition;   /* NULL: every partition */
    uint32_t shares;   /* Fairshare=, 1 by default; ACCT_SHARES_PARENT */
    char *default_qos; /* NULL: inherited from the parent */
    char **qos;        /* allowed QOS; n_qos 0: inherited from the parent */
    size_t n_qos;
    struct limits limits;
    /* The user's account association for a user association, the parent
     * account's for an account's; NULL for root's. */
    const struct acct_assoc *parent;
};

/*
 * acct_create: the model for cluster (the configuration's ClusterName),
 * loaded from store (NULL: in memory only).  What Slurm always has is
 * created and saved when missing: the cluster, account root with its
 * association, user root (Administrator, in root) and QOS normal (root's
 * association allows it and has it as default).  Saving needs the
 * store's transaction open (persist_begin).  NULL with e on failure.
 * acct_destroy frees a and every record (accepts NULL).
 */
struct acct *acct_create(const char *cluster, struct acct_store *store,
                         struct err *e);
void acct_destroy(struct acct *a);

/* acct_generation: moves on every change; starts at 1. */
uint64_t acct_generation(const struct acct *a);
/* acct_cluster_name: the cluster this controller runs (borrowed). */
const char *acct_cluster_name(const struct acct *a);

/* Lookups: NULL when absent; records belong to a. */
const struct acct_qos *acct_qos_find(const struct acct *a, const char *name);
const struct acct_qos *acct_qos_find_id(const struct acct *a, uint32_t id);
const struct acct_user *acct_user_find(const struct acct *a, const char *name);
const struct acct_account *acct_account_find(const struct acct *a,
                                             const char *name);
/* acct_account_assoc: the account's own association on this cluster. */
const struct acct_assoc *acct_account_assoc(const struct acct *a,
                                            const char *account);
/*
 * acct_assoc_find: the most specific association of user in account on
 * this cluster: the one for partition when partition is not NULL and
 * there is one, else the one without a partition.  NULL when the user has
 * no association with the account.
 */
const struct acct_assoc *acct_assoc_find(const struct acct *a, const char *user,
                                         const char *account,
                                         const char *partition);

/* acct_user_is_admin: user (by name) has AdminLevel Administrator. */
bool acct_user_is_admin(const struct acct *a, const char *user);
/* acct_user_admin_uid: the AdminLevel of the user with this uid (looked up
 * in the password database; NONE when unknown). */
enum acct_admin acct_user_admin_uid(const struct acct *a, uid_t uid);
/* acct_is_operator: uid 0, the controller's own uid (its euid), or a user
 * whose AdminLevel is Operator or Administrator: may manage anyone's jobs.
 * acct_is_administrator: the same without Operator (partition updates,
 * job priorities).  a may be NULL (before the model is loaded). */
bool acct_is_operator(const struct acct *a, uid_t uid);
bool acct_is_administrator(const struct acct *a, uid_t uid);

/*
 * Effective QOS of an association, walking the parent chain as Slurm
 * does: the first association up the chain with a QOS list gives the
 * list, the first with a DefaultQOS the default.  acct_assoc_qos_list
 * returns the list's array (borrowed) and its length in *n;
 * acct_assoc_default_qos returns NULL when none is set anywhere.
 */
char *const *acct_assoc_qos_list(const struct acct_assoc *as, size_t *n);
bool acct_assoc_qos_allowed(const struct acct_assoc *as, const char *qos);
const char *acct_assoc_default_qos(const struct acct_assoc *as);
/* acct_assoc_shares: Fairshare with "parent" resolved up the chain. */
uint32_t acct_assoc_shares(const struct acct_assoc *as);

/* Iteration in creation order: i from 0 until NULL. */
const struct acct_qos *acct_qos_at(const struct acct *a, size_t i);
const struct acct_assoc *acct_assoc_at(const struct acct *a, size_t i);
const struct acct_user *acct_user_at(const struct acct *a, size_t i);
const struct acct_account *acct_account_at(const struct acct *a, size_t i);
const struct acct_cluster *acct_cluster_at(const struct acct *a, size_t i);

/* Names of enum values and flags, as sacctmgr prints them. */
const char *acct_admin_name(enum acct_admin l);
int acct_admin_parse(const char *s, enum acct_admin *out);
const char *acct_preempt_mode_name(enum acct_preempt_mode m);

/*
 * Requests (docs/protocol.md, ACCT_*).  entity is "qos", "account",
 * "user", "association" or "cluster".  names (ADD) is an array of names,
 * where an object of Slurm keys to comma lists, set an array of
 * {"key", "op" ("=", "+=", "-="), "value"} with Slurm's keys and values.
 * With ACCT_REQ_DRY_RUN nothing changes but the result says what would.
 * Without ACCT_REQ_ADMIN_LEVEL, AdminLevel may not be set (operators).
 * On success *result (new reference) is {"changes": ["text", ...]}; on
 * failure nothing has changed and e names the entity, field and value.
 */
#define ACCT_REQ_DRY_RUN 0x1u
#define ACCT_REQ_ADMIN_LEVEL 0x2u

struct acct_req {
    const char *entity;
    json_t *names; /* ADD */
    json_t *where; /* MODIFY, DELETE, LIST (may be NULL) */
    json_t *set;   /* ADD, MODIFY */
    unsigned flags;
};

int acct_add(struct acct *a, const struct acct_req *r, json_t **result,
             struct err *e);
int acct_modify(struct acct *a, const struct acct_req *r, json_t **result,
                struct err *e);
int acct_delete(struct acct *a, const struct acct_req *r, json_t **result,
                struct err *e);
/* acct_list: {"<entity>s": [objects with every field]}; new reference. */
json_t *acct_list(const struct acct *a, const struct acct_req *r,
                  struct err *e);

/* The JSON objects of docs/protocol.md (new references). */
json_t *acct_qos_to_json(const struct acct_qos *q);
json_t *acct_assoc_to_json(const struct acct_assoc *as);
json_t *acct_user_to_json(const struct acct *a, const struct acct_user *u);
json_t *acct_account_to_json(const struct acct_account *ac);

#endif
