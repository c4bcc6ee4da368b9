/*
 * What a simulation means for the people who use the cluster: per
 * partition, QOS and user, and over all, the jobs started and never
 * started, wait times (median, p95, max), bounded slowdowns, preemptions
 * and the GPU-hours they lost, GPU utilisation; the reasons jobs never
 * started; the series the plots draw (GPU utilisation over time per
 * partition, preemptions per day).  As text, JSON, and two runs side by
 * side (--compare).
 */
#ifndef SLUICE_SIM_REPORT_H
#define SLUICE_SIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "sim/sim.h"
#include "sim/stats.h"

/* The slowdown's bound: runs shorter than this count as this long. */
#define SIM_SLOWDOWN_BOUND_S 10

struct sim_group {
    char *name;
    size_t jobs, started, never, rejected, timeouts;
    size_t preempted_jobs;       /* jobs preempted at least once */
    size_t preemptions;          /* every preemption of its jobs */
    struct sim_summary wait_s;   /* first start - submit, of started jobs */
    struct sim_summary slowdown; /* (end - submit) / max(last run, 10 s) */
    double gpu_hours, gpu_hours_lost, cpu_hours_lost;
    double util;   /* mean GPU utilisation (partitions and all); -1: n/a */
    double *waits; /* the wait times, sorted (for the plot; owned) */
};

struct sim_never {
    char *reason;
    char *part;
    size_t n;
    uint64_t example; /* a job id */
};

/* The simulated first starts against those the trace recorded (jobs
 * with both): how far apart, and whether they came in the same order. */
struct sim_fidelity {
    size_t jobs;              /* started in both */
    size_t same, within1;     /* |simulated - recorded| = 0, <= 1 s */
    struct sim_summary abs_s; /* of |simulated - recorded| */
    size_t order_diff;        /* pairs of jobs started in the other order */
};

struct sim_report {
    char *trace, *config;
    struct sim_fidelity fid;
    struct sim_group all;
    struct sim_group *parts, *qos, *users;
    size_t nparts, nqos, nusers;
    struct sim_never *never;
    size_t nnever;
    time_t t_first, t_last;
    size_t passes;
    /* GPU utilisation over time: nbuckets of bucket_s from t_first, per
     * partition (util[p]) and over the cluster (util[nparts]), in [0,1] */
    size_t nbuckets;
    int64_t bucket_s;
    double **util;
    /* preemptions and GPU-hours lost per day from t_first */
    size_t ndays;
    size_t *pre_day;
    double *lost_day;
};

/* sim_report_build: the report of r (trace and config name it); free
 * with sim_report_free. */
void sim_report_build(const struct sim_result *r, const char *trace,
                      const char *config, struct sim_report *out);
void sim_report_free(struct sim_report *rep);

/* sim_report_json: the report as a new JSON object (docs/simulate.md). */
json_t *sim_report_json(const struct sim_report *rep);

/* sim_report_print: the report as text. */
void sim_report_print(FILE *fp, const struct sim_report *rep);

/* sim_report_compare: a and b side by side, per partition and over all,
 * with the difference b - a. */
void sim_report_compare(FILE *fp, const struct sim_report *a,
                        const struct sim_report *b);

/* sim_fmt_dur: seconds as Slurm writes durations ("5:03", "1:02:03",
 * "2-01:00:00") into buf. */
const char *sim_fmt_dur(double s, char *buf, size_t len);

#endif
