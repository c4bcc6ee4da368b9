/*
 * Resource limits as QOS and associations carry them (Slurm's names), the
 * TRES they count, and the limit engine: the chain of limit sets that
 * applies to a job (docs/limits.md), the usage the controller keeps up to
 * date on every job transition, the submit-time verdict, and the counters
 * a scheduling pass charges for run-time limits.  Pure: no I/O, no clock.
 */
#ifndef SLUICE_SCHED_LIMITS_H
#define SLUICE_SCHED_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "sched/sched.h"

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

/*
 * limits_set_key: one of sacctmgr's limit keys of a QOS (qos true:
 * MaxSubmitJobsPerUser, MaxJobsPerUser, MaxSubmitJobsPerAccount,
 * MaxJobsPerAccount, GrpJobs, GrpSubmitJobs, MaxWall, MaxTRESPerJob,
 * MaxTRESPerUser, GrpTRES, MinPrioThreshold, with Slurm's aliases) or an
 * association (MaxSubmitJobs, MaxJobs, GrpJobs, GrpSubmitJobs, MaxWall,
 * MaxTRES, GrpTRES) set on l with op "=" (lists take no "+=").  Counts
 * take -1 to clear; MaxWall Slurm's times; TRES lists
 * "cpu=8,mem=64G,gres/gpu=2" change only the TRES named.  Returns 1 when
 * key was a limit and is set, 0 when key is no limit key (l unchanged),
 * -1 with EINVAL and e naming key and value when the value is bad (l
 * unchanged).
 */
int limits_set_key(struct limits *l, bool qos, const char *key, const char *op,
                   const char *val, struct err *e);

/* The pieces of sacctmgr's key syntax that the accounting's other keys
 * share (ctld/acct/acct_set.c): limits_key_is, key names one of the
 * NULL-terminated aliases (any case); limits_value_clears, val clears a
 * setting ("-1" or ""); limits_key_assign_only, op is "=" (else -1 with
 * EINVAL and e: lists alone take += and -=). */
bool limits_key_is(const char *key, const char *const *aliases);
bool limits_value_clears(const char *val);
int limits_key_assign_only(const char *key, const char *op, struct err *e);

/*
 * limits_enforce_parse: AccountingStorageEnforce (a comma list, NULL:
 * none): *limits when it names limits (or safe, which implies it), *qos
 * when it also names qos (QOS levels are then enforced too).
 */
void limits_enforce_parse(const char *enforce, bool *limits, bool *qos);

/* ---- The chain ---------------------------------------------------- */

enum limits_kind {
    LIMITS_QOS,   /* a QOS: the partition's or the job's */
    LIMITS_ASSOC, /* an association: the user's, then its accounts' */
};

/*
 * One level of the chain that applies to a job.  Strings and lim are
 * borrowed; they must outlive the calls they are passed to (a charge
 * copies the keys it needs).
 */
struct limits_level {
    enum limits_kind kind;
    const char *name; /* QOS name, or the association's account */
    const char *key;  /* association: a key unique among associations (its
                         id as text); QOS: NULL (the name is the key) */
    const struct limits *lim;
};

/* The most levels a chain may have (two QOS and an account tree 14
 * deep); longer chains fail with EINVAL. */
#define LIMITS_LEVEL_MAX 16

/*
 * limits_chain: the levels of a job in Slurm's order of precedence into
 * out (LIMITS_LEVEL_MAX of them): the partition QOS, then the job's QOS
 * (the other way round when the job's QOS has OverPartQOS; one of them
 * when they are the same QOS, or when either is NULL), then assocs as
 * given (the user's association first, then its accounts' up to root).
 * Returns the number of levels; -1 with EINVAL when there are too many.
 */
int limits_chain(struct limits_level *out, const struct limits_level *part_qos,
                 const struct limits_level *job_qos, bool over_part_qos,
                 const struct limits_level *assocs, size_t nassocs);

/* limits_levels_enforced: the levels of all (n) that are enforced into
 * out: without enforce_qos, the associations' only.  Returns how many. */
size_t limits_levels_enforced(const struct limits_level *all, size_t n,
                              bool enforce_qos, struct limits_level *out);

/* What a job asks for, as the engine sees it.  Strings are borrowed. */
struct limits_job {
    const char *user;
    const char *account;
    uint64_t tres[LIMITS_TRES_COUNT]; /* for the whole job */
    uint64_t wall_s;                  /* time limit; LIMITS_UNSET: none */
    bool deny_on_limit; /* a QOS of the job has Flags=DenyOnLimit */
    const struct limits_level *levels; /* precedence order (limits_chain) */
    size_t nlevels;
};

/* ---- Usage ---------------------------------------------------------- */

/*
 * What jobs hold, by name: per QOS, per user and per account in a QOS,
 * per association (an account's association counts every job below it).
 * Jobs submitted (pending or running), jobs running, TRES held by running
 * jobs.  Hash tables keyed by names: every update costs O(levels).
 */
struct limits_usage;

/* limits_usage_create / _destroy (accepts NULL; every charge made on u
 * must have been destroyed first). */
struct limits_usage *limits_usage_create(void);
void limits_usage_destroy(struct limits_usage *u);

/*
 * A job's charge: the usage entries it counts in, found once when it is
 * submitted (or recovered), so that starting and ending it cost no
 * lookups and count where it was counted even if the chain changes.
 * limits_charge_create counts j as submitted (pending) and returns the
 * charge (owned by the caller; NULL with EINVAL when j has more than
 * LIMITS_LEVEL_MAX levels).  _start counts it running with j's TRES
 * (again: no change); _stop counts it pending again (requeue; not
 * running: no change); _destroy uncounts it entirely (end, cancel;
 * accepts NULL).
 */
struct limits_charge;
struct limits_charge *limits_charge_create(struct limits_usage *u,
                                           const struct limits_job *j);
void limits_charge_start(struct limits_charge *c);
void limits_charge_stop(struct limits_charge *c);
void limits_charge_destroy(struct limits_charge *c);
bool limits_charge_running(const struct limits_charge *c);

/* What u counts (for tests, sprio-like views and the benchmark): jobs
 * submitted and running, and the TRES t held, under one entry; zeros when
 * there is none.  who: LIMITS_QOS with user and account NULL: the QOS in
 * all; with user: that user in it; with account: that account in it.
 * LIMITS_ASSOC: the association with that key (user, account unused). */
struct limits_count {
    uint64_t submitted;
    uint64_t running;
    uint64_t tres[LIMITS_TRES_COUNT];
};
void limits_usage_get(const struct limits_usage *u, enum limits_kind who,
                      const char *name, const char *user, const char *account,
                      struct limits_count *out);

/* ---- Decisions -------------------------------------------------------- */

/*
 * limits_check_submit: may j be submitted, given what u counts now (j not
 * yet counted)?  0 when it may; -1 with EDQUOT when a submit-time limit
 * (MaxSubmitJobs*, GrpSubmitJobs) is full, or with DenyOnLimit a run-time
 * limit the job alone can never meet (MaxWall, MaxTRESPerJob,
 * MaxTRESPerUser, GrpTRES); *reason is then Slurm's reason name (static)
 * and e says "QOSMaxSubmitJobPerUserLimit: zhangsan has 3/3 jobs in
 * dev_qos".  -1 with EINVAL on a chain longer than LIMITS_LEVEL_MAX.
 */
int limits_check_submit(const struct limits_usage *u,
                        const struct limits_job *j, const char **reason,
                        struct err *e);

/*
 * limits_max_wall: the MaxWall that applies to j (the first level that
 * sets one), in seconds; LIMITS_UNSET when none does.  A job without a
 * time limit gets it, as in Slurm.
 */
uint64_t limits_max_wall(const struct limits_job *j);

/*
 * A scheduling pass's counters (sched.h): one per run-time limit that
 * applies to some pending job (a QOS's GrpJobs, a user's MaxJobsPerUser
 * in a QOS, an association's GrpTRES=gres/gpu ...), capacity the limit,
 * used what running jobs hold now, reason Slurm's name; and per job the
 * charges the pass must take.  A job that can never meet a per-job limit
 * (MaxWall, MaxTRESPerJob, without DenyOnLimit) charges a counter of no
 * capacity, so it waits with that limit's name.
 *
 * limits_pass_create starts a pass over u (owned by the caller, freed
 * with limits_pass_destroy, which accepts NULL).  limits_pass_job adds
 * the charges of pending job j, by the limits that apply to it now: they
 * are entries *first .. *first + *n - 1 of limits_pass_charges(p).  That
 * array and limits_pass_counters' belong to p and stay put from the last
 * limits_pass_job until p is destroyed: take pointers after adding every
 * job.
 */
struct limits_pass;
struct limits_pass *limits_pass_create(struct limits_usage *u);
void limits_pass_job(struct limits_pass *p, const struct limits_job *j,
                     size_t *first, size_t *n);
const struct sched_charge *limits_pass_charges(const struct limits_pass *p);
struct sched_counter *limits_pass_counters(struct limits_pass *p, size_t *n);
void limits_pass_destroy(struct limits_pass *p);

/*
 * limits_pass_describe: counter k of p for people, with its use now (the
 * pass adds the jobs it starts): "user zhangsan in dev_qos has 1/1 jobs
 * running", "dev_qos has gres/gpu=2/2 in use", "user li in account
 * physics has ..."; "" for a per-job limit a job can never meet.  Names
 * are the pass's: call it before limits_pass_destroy.
 */
void limits_pass_describe(const struct limits_pass *p, size_t k, char *buf,
                          size_t len);

#endif
