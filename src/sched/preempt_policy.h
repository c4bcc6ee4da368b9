/*
 * The preemption policy (docs/preemption.md): who may preempt whom
 * (PreemptType), what preemption does to a victim (PreemptMode of its QOS
 * or partition), when a victim may first be taken (PreemptExemptTime,
 * ExemptUntilCheckpoint) and how long it is warned (GraceTime).  The
 * controller (ctld/sched/preempt_drv.c) and the simulator (src/sim) both
 * decide with these functions before the victim choice of preempt.h; they
 * differ only in where the jobs come from.  Pure.
 */
#ifndef SLUICE_SCHED_PREEMPT_POLICY_H
#define SLUICE_SCHED_PREEMPT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/conf.h"
#include "common/err.h"
#include "sched/preempt.h"

/* ExemptUntilCheckpoint without a checkpoint: exempt for at most
 * PreemptParameters=exempt_until_checkpoint_max, by default this many
 * times the job's PreemptExemptTime, or PREEMPT_CKPT_EXEMPT_MIN_S when
 * that is 0. */
#define PREEMPT_CKPT_EXEMPT_FACTOR 4
#define PREEMPT_CKPT_EXEMPT_MIN_S 3600
/* An exemption at least this long lasts for ever (a century, as the
 * controller's longest time limit). */
#define PREEMPT_EXEMPT_FOREVER_S (INT64_C(100) * 366 * 86400)

/* The cluster's side of the policy, from the configuration. */
struct sched_preempt_conf {
    enum conf_preempt_type type;        /* PreemptType */
    int64_t exempt_time_s;              /* PreemptExemptTime; 0: none */
    bool suspend_gpu_jobs;              /* PreemptParameters=suspend_gpu_jobs */
    int64_t ckpt_exempt_max_s;          /* exempt_until_checkpoint_max; -1: the
                                    default */
    struct sched_preempt_params params; /* the victim choice's */
};

/*
 * sched_preempt_conf_init: pc from conf's PreemptType, PreemptExemptTime
 * and PreemptParameters.  Returns 0; -1 with EINVAL and e naming the first
 * bad value of PreemptParameters, pc then holding the default for it (the
 * controller logs e and goes on).
 */
int sched_preempt_conf_init(struct sched_preempt_conf *pc,
                            const struct conf *conf, struct err *e);

/* preempt_ckpt_exempt_max: exempt_until_checkpoint_max=TIME of
 * PreemptParameters params into *out (seconds, TIMEFMT_INFINITE; -1
 * when absent).  -1 with EINVAL and e when the time is bad. */
int preempt_ckpt_exempt_max(const char *params, int64_t *out, struct err *e);

/* What a QOS says about preemption (sacctmgr's fields). */
struct sched_preempt_qos {
    const char *name;
    bool mode_set; /* PreemptMode other than "cluster" */
    enum conf_preempt_mode mode;
    int64_t exempt_time_s; /* PreemptExemptTime; -1: unset */
    int64_t grace_time_s;  /* GraceTime; 0: none */
    bool exempt_until_checkpoint;
    char *const *preempt; /* the QOS it may preempt */
    size_t npreempt;
};

/* A job, pending or running, as the policy sees it.  Pointers are
 * borrowed for the call. */
struct sched_preempt_job {
    uint32_t tier;                       /* its partition's PriorityTier */
    const char *qos_name;                /* its QOS; NULL: none */
    const struct sched_preempt_qos *qos; /* that QOS; NULL: unknown */
    enum conf_preempt_mode part_mode;    /* its partition's PreemptMode */
    uint32_t part_grace_s;               /* its partition's GraceTime */
    bool requeue;                        /* it may be requeued */
    bool gpus;                           /* it holds GPUs */
    time_t start_time;
    time_t last_checkpoint; /* 0: none reported */
};

/* sched_preempt_mode: v's PreemptMode: its QOS's, else its partition's
 * (the cluster's unless the partition sets its own). */
enum conf_preempt_mode sched_preempt_mode(const struct sched_preempt_job *v);

/*
 * sched_preempt_action: what preemption does to v: CANCEL, REQUEUE or
 * SUSPEND (OFF: nothing).  A SUSPEND victim holding GPUs is requeued
 * unless PreemptParameters=suspend_gpu_jobs (suspended, it would keep its
 * GPUs); a REQUEUE victim that may not be requeued is cancelled.
 */
enum conf_preempt_mode sched_preempt_action(const struct sched_preempt_conf *pc,
                                            const struct sched_preempt_job *v);

/* sched_preempt_may: PreemptType: may pj preempt v at all (partition_prio:
 * a lower tier; qos: v's QOS in the Preempt list of pj's)?  Never when
 * v's mode is OFF. */
bool sched_preempt_may(const struct sched_preempt_conf *pc,
                       const struct sched_preempt_job *pj,
                       const struct sched_preempt_job *v);

/*
 * sched_preempt_exempt_until: when running v may first be preempted (0:
 * at once; INT64_MAX: never): PreemptExemptTime of its QOS, else the
 * cluster's, from its start; with ExemptUntilCheckpoint not before its
 * first checkpoint, but no longer than exempt_until_checkpoint_max (so
 * that a job that never checkpoints does not hold its resources for ever).
 */
time_t sched_preempt_exempt_until(const struct sched_preempt_conf *pc,
                                  const struct sched_preempt_job *v);

/* sched_preempt_grace_s: GraceTime of v: its QOS's, else its
 * partition's. */
uint32_t sched_preempt_grace_s(const struct sched_preempt_job *v);

/* ---- a plan carried out on the model ------------------------------------ */

/* What one victim frees on one node of its preemptor's placement. */
struct sched_held {
    size_t node;
    uint32_t cpus;
    uint64_t mem_mib;
    uint32_t *gpus; /* positions (owned); NULL when ngpus is 0 */
    uint32_t ngpus;
};

/*
 * sched_preempt_held: what victim v frees on the nodes of plan, one entry
 * per node of v that the plan uses, appended to *out (grown; *n counts
 * them).  A suspended victim frees its CPUs only.  Free each entry's gpus
 * with sched_held_clear.
 */
void sched_preempt_held(const struct sched_victim *v,
                        const struct sched_preempt_plan *plan,
                        struct sched_held **out, size_t *n);
void sched_held_clear(struct sched_held *h);

/* sched_held_mark: count what h describes as used on n again (a dead
 * victim's resources kept for its preemptor; GPU positions beyond n's are
 * ignored). */
void sched_held_mark(struct sched_node *n, const struct sched_held *h);

/*
 * sched_preempt_claim: the model as it will be once plan is carried out:
 * the victims' (v, indexed by plan->victims) resources free, then what
 * job j takes on the plan's nodes used, so that a later preemptor of the
 * same pass neither counts on the same resources nor leaves a victim's
 * surplus unused.
 */
void sched_preempt_claim(struct sched_cluster *c, const struct sched_job *j,
                         const struct sched_victim *v,
                         const struct sched_preempt_plan *plan);

#endif
