/*
 * Inside the simulator's engine (sim.c, sim_pass.c, sim_preempt.c,
 * sim_prio.c): the jobs of a run, the nodes, and the state the
 * controller's drivers keep.  Nobody else includes this.
 */
#ifndef SLUICE_SIM_INT_H
#define SLUICE_SIM_INT_H

#include "sched/backfill.h"
#include "sched/fairshare.h"
#include "sched/limits.h"
#include "sched/preempt.h"
#include "sched/preempt_policy.h"
#include "sched/prio.h"
#include "sched/prio_setup.h"
#include "sched/sched.h"
#include "sim/clock.h"
#include "sim/sim.h"

/* The events of the clock. */
enum sim_ev {
    SIM_EV_SUBMIT,
    SIM_EV_END,  /* a run reached its end or its time limit (gen) */
    SIM_EV_KILL, /* a preempted victim's kill (gen) */
    SIM_EV_PRIO, /* PriorityCalcPeriod */
    SIM_EV_WAKE, /* a victim's exempt time is over: a pass */
};

enum sim_state {
    SJ_FUTURE,
    SJ_PENDING,
    SJ_RUNNING,
    SJ_SUSPENDED,
    SJ_DONE,
};

struct sjob {
    const struct sim_job_in *in;
    uint64_t id; /* the core's job id (unique) */
    size_t part;
    uint32_t tier;
    int64_t limit_s; /* effective; 0: none */
    size_t assoc;
    size_t qos; /* into acct->qos; SIZE_MAX: none */
    uint32_t uid;
    enum sim_state st;
    bool parked;        /* can never start: left out of passes */
    const char *reason; /* the last reason it waited for (static) */
    uint32_t gen;       /* its run */
    time_t start;       /* this run's */
    int64_t left_s;     /* run time still to go */
    int64_t susp_s;     /* seconds suspended in this run */
    time_t susp_at;
    bool killing; /* preempted: its kill is coming */
    enum conf_preempt_mode kill_mode;
    size_t *alloc;
    size_t nalloc;
    uint32_t *gpus;         /* positions, gpus_per_node per node */
    uint32_t gpus_per_node; /* what it holds (all of the node with
                               exclusive) */
    struct prio_accrual acc;
    uint32_t priority;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    size_t nlv;
    bool deny;
    struct limits_charge *charge;
    size_t pend_at; /* index in sim.pend, or SIZE_MAX */
    size_t run_at;  /* index in sim.run, or SIZE_MAX */
};

struct sim_held_res {
    size_t victim;
    uint32_t gen;
    struct sched_held r;
};

/* A preemptor waiting for its victims (preempt_drv.c's hold). */
struct sim_hold {
    size_t job;
    struct sim_held_res *res;
    size_t nres;
};

struct sim {
    const struct sim_opts *o;
    const struct conf *conf;
    struct sim_acct *acct;
    struct sim_result *out;
    struct sim_clock clock;
    size_t real_events; /* queued events other than the timer */

    struct sjob *jobs;
    size_t njobs;
    size_t *pend, npend; /* pending, not parked */
    size_t *run, nrun;   /* running or suspended */

    /* nodes as they are, and the model a pass works on */
    struct sched_node *nodes, *mnodes;
    uint64_t *used, *mused;
    size_t nwords;
    struct sched_gpu *gpus; /* typed GPUs, owned */
    struct sched_part *parts;
    size_t nparts;

    bool backfill;
    struct sched_bf bf;
    struct sched_bf_cycle *cycle;

    /* priorities and fair-share (prio_drv.c) */
    struct prio_setup ps;
    struct fs_assoc *fs; /* one per association of acct */
    double *usage;       /* decayed usage per association (users) */
    time_t last_calc, next_reset;

    /* limits (jlimits.c) */
    bool enforce, enforce_qos;
    struct limits_usage *lusage;

    /* preemption (preempt_drv.c) */
    struct sched_preempt_conf pc;
    struct sim_hold *holds;
    size_t nholds;
    time_t wake_at;
    bool want;
};

/* sim.c */
void sim_push(struct sim *s, time_t t, enum sim_ev kind, size_t job,
              uint32_t gen);
void sim_start_job(struct sim *s, size_t k, const struct sched_decision *d,
                   time_t now);
void sim_stop_run(struct sim *s, size_t k, time_t now);
void sim_pend_add(struct sim *s, size_t k);
void sim_pend_del(struct sim *s, size_t k);
void sim_run_del(struct sim *s, size_t k);
void sim_gpu_change(struct sim *s, size_t part, int64_t delta, time_t t);

/* sim_pass.c */
void sim_pass(struct sim *s, time_t now);

/* sim_preempt.c */
void sim_preempt_view(const struct sim *s, const struct sjob *j,
                      struct sched_preempt_job *out);
void sim_holds_apply(struct sim *s, struct sched_cluster *cl,
                     struct sched_job *sj, size_t n);
void sim_preempt_run(struct sim *s, struct sched_cluster *cl,
                     const size_t *pend, const struct sched_result *r,
                     time_t now);
void sim_resume_due(struct sim *s, time_t now);
void sim_holds_free(struct sim *s);

/* sim_prio.c */
int sim_prio_init(struct sim *s, struct err *e);
void sim_prio_free(struct sim *s);
void sim_prio_job(struct sim *s, size_t k, time_t now);
void sim_prio_refresh(struct sim *s, time_t now);
void sim_prio_ended(struct sim *s, size_t k, time_t end);
/* the job's limit levels (its chain) and its view for the engine */
void sim_limits_view(const struct sim *s, const struct sjob *j,
                     struct limits_job *v);
void sim_limits_chain(struct sim *s, struct sjob *j);

#endif
