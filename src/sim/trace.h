/*
 * A workload for the simulator: the jobs of a trace as the replay sees
 * them, whatever format they came from (SWF, the Alibaba GPU trace,
 * Sluice's accounting history): when each is submitted, where, by whom,
 * what it asks for and how long it runs once started.  Names (partitions,
 * users, accounts, QOS) are interned: every job of one user shares one
 * string, owned by the trace.
 */
#ifndef SLUICE_SIM_TRACE_H
#define SLUICE_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

struct sim_job_in {
    uint64_t id;          /* the trace's job number */
    time_t submit;        /* seconds (Unix time where the trace has it) */
    int64_t run_s;        /* how long it runs once started (>= 0) */
    int64_t limit_s;      /* its time limit; 0: none asked (the
                             partition's DefaultTime applies) */
    const char *part;     /* partition name; NULL: the default partition */
    const char *user;     /* never NULL */
    const char *account;  /* NULL: the user's default account */
    const char *qos;      /* NULL: the association's default QOS */
    const char *gpu_type; /* NULL: any */
    uint32_t nodes;       /* >= 1 */
    uint32_t cpus_per_node;
    uint64_t mem_per_node_mib; /* 0: none asked */
    uint32_t gpus_per_node;
    bool no_requeue;  /* --no-requeue: a preemption cancels it */
    time_t rec_start; /* the start the trace recorded (has_rec) */
    bool has_rec;     /* rec_start is known */
    uint32_t line;    /* where it was read (1-based; 0: unknown) */
};

struct sim_trace {
    char *name; /* the file it came from (owned) */
    struct sim_job_in *jobs;
    size_t n, cap;
    size_t skipped; /* records left out (no run time, never ran) */
    time_t origin;  /* what time 0 of the trace is (Unix); 0 */
    /* the interned names */
    char **names;
    size_t nnames, capnames;
    size_t *slots; /* open addressing over names, capslots a power of 2 */
    size_t capslots;
};

/* sim_trace_init: empty, named name.  sim_trace_free accepts a zeroed
 * trace. */
void sim_trace_init(struct sim_trace *t, const char *name);
void sim_trace_free(struct sim_trace *t);

/* sim_trace_intern: s (NULL: NULL) as the trace's own string. */
const char *sim_trace_intern(struct sim_trace *t, const char *s);

/* sim_trace_add: a zeroed job at the end of t (nodes 1), to fill in. */
struct sim_job_in *sim_trace_add(struct sim_trace *t);

/* sim_trace_sort: the jobs by submit time, then trace order (stable). */
void sim_trace_sort(struct sim_trace *t);

/* sim_trace_window: keep the jobs submitted in [start, end) (0: open);
 * *dropped gets how many went. */
void sim_trace_window(struct sim_trace *t, time_t start, time_t end,
                      size_t *dropped);

/* sim_trace_scale: submit times around the first job's stretched by
 * factor (--time-scale; < 1 packs the jobs closer: more load). */
void sim_trace_scale(struct sim_trace *t, double factor);

/*
 * sim_read_file: the whole of path into a new NUL-terminated buffer
 * (*len without the NUL), at most max bytes; NULL with e ("path: No such
 * file or directory", "path: larger than N bytes").
 */
char *sim_read_file(const char *path, size_t max, size_t *len, struct err *e);

/* A small seeded generator for what a trace lacks (--seed): splitmix64. */
struct sim_rng {
    uint64_t s;
};
uint64_t sim_rng_next(struct sim_rng *r);
/* sim_rng_uniform: in [lo, hi). */
double sim_rng_uniform(struct sim_rng *r, double lo, double hi);

#endif
