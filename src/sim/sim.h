/*
 * The simulator: a workload replayed through the scheduler core in
 * simulated time, no daemons (docs/simulate.md).  Each pass is the
 * controller's: the same model rules (ctld/sched/model.c), the same
 * pass and backfill step (sched/bf_step.c), priorities and fair-share
 * (sched/prio_setup.c, prio.c, fairshare.c), limits (sched/limits*.c)
 * and preemption (sched/preempt_policy.c, preempt.c); what differs is
 * only where jobs and nodes come from: a trace instead of RPCs, a clock
 * of events instead of the machine's.
 */
#ifndef SLUICE_SIM_SIM_H
#define SLUICE_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/conf.h"
#include "common/err.h"
#include "sim/acct.h"
#include "sim/trace.h"

/* How a job's simulation ended. */
enum sim_end {
    SIM_END_DONE,      /* ran to its end within its time limit */
    SIM_END_TIMEOUT,   /* killed at its time limit */
    SIM_END_PREEMPTED, /* cancelled by a preemption */
    SIM_END_NEVER,     /* still pending when nothing else could happen */
    SIM_END_REJECTED,  /* refused at submit */
};

const char *sim_end_name(enum sim_end s);

struct sim_job_out {
    const struct sim_job_in *in;
    size_t part;     /* the configuration's partition */
    const char *qos; /* the QOS it ran under (NULL: none) */
    enum sim_end end;
    time_t first_start;  /* when runs > 0 */
    time_t end_time;     /* of its last run; 0: none */
    uint32_t runs;       /* starts (requeues + 1) */
    uint32_t preempted;  /* times it was preempted */
    uint64_t lost_gpu_s; /* GPU-seconds its preemptions lost */
    uint64_t lost_cpu_s; /* CPU-seconds, for victims without GPUs */
    uint64_t gpu_s;      /* GPU-seconds it held, every run */
    const char *reason;  /* why it never started or was refused (static) */
};

/* A start, in the order the simulation made them. */
struct sim_start {
    time_t t;
    size_t job; /* index into sim_result.jobs */
};

/* A preemption. */
struct sim_preemption {
    time_t t;
    size_t victim, by; /* indices into sim_result.jobs */
    uint64_t lost_gpu_s, lost_cpu_s;
    enum conf_preempt_mode mode;
};

/* A change of the GPUs a partition's jobs hold. */
struct sim_gpu_change {
    time_t t;
    size_t part;
    int64_t delta;
};

struct sim_result {
    struct sim_job_out *jobs; /* one per job of the trace, in its order */
    size_t njobs;
    struct sim_start *starts;
    size_t nstarts;
    struct sim_preemption *pre;
    size_t npre;
    struct sim_gpu_change *gpu;
    size_t ngpu;
    size_t nparts;
    char **part_names;      /* owned copies */
    uint64_t *part_gpus;    /* GPUs of each partition's nodes */
    uint64_t cluster_gpus;  /* of every node */
    time_t t_first, t_last; /* first submit, last event */
    size_t passes;
};

struct sim_opts {
    const struct conf *conf;
    /* victims run on for their whole GraceTime (they trap SIGTERM to save
     * their work) rather than end when signalled */
    bool use_grace;
};

/*
 * sim_run: t replayed on o->conf with the QOS and associations of acct
 * (associations are added for users it lacks) into out (free with
 * sim_result_free).  Returns 0; -1 with e when the configuration cannot
 * be simulated (a bad PreemptParameters, SchedulerParameters, priority
 * setting, or a trace job naming a partition the configuration lacks).
 */
int sim_run(const struct sim_opts *o, const struct sim_trace *t,
            struct sim_acct *acct, struct sim_result *out, struct err *e);
void sim_result_free(struct sim_result *r);

#endif
