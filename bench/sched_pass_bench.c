/*
 * One full scheduling pass through the pure core, as the controller runs
 * it: priority refresh (fair-share over the association tree, then the
 * multifactor priority of every pending job), the main pass, and backfill;
 * on a simulated cluster of 8-GPU nodes that running jobs keep nearly
 * full, for 1k/10k/100k pending jobs and 100/1,000/10,000 nodes, with
 * 1,000 users in 20 accounts.  Beside it, in the same run, a naive
 * baseline: priorities recomputed for every remaining job before each
 * decision (an O(n^2) scan, no sort), strict order, no backfill; beyond
 * --naive-max pending jobs its time is projected from the first 2,000
 * decisions (each scans the remaining queue: n^2/2 in all).  Also: the
 * same pass as a backfill cycle cut into slices of at most --yield-us
 * (bf_yield_interval) that resume where the last stopped: the number of
 * slices, the first (main pass + profile + slice) and the longest later
 * slice (what an RPC arriving during the cycle waits at most), the whole
 * cycle, and memory per pending job.  Last, per node count, how the main
 * pass and main + backfill grow (CPU time) from one queue length to the
 * next, beside n log n's ratio.
 *
 *   build/bench/sched_pass_bench [--pending 1000,10000,100000]
 *       [--nodes 100,1000,10000] [--seed 1] [--yield-us 20000]
 *       [--naive-max 10000] [--no-naive]
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "sched/backfill.h"
#include "sched/fairshare.h"
#include "sched/prio.h"
#include "sched/select.h"

#define NOW 1700000000
#define USERS 1000
#define ACCOUNTS 20

struct opts {
    size_t pending[8], npending;
    size_t nodes[8], nnodes;
    uint64_t seed;
    int64_t yield_us; /* a slice's budget, bf_yield_interval */
    size_t naive_max;
    bool no_naive; /* --no-naive: skip the baseline (for profiling) */
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct world {
    size_t nn, np;
    struct sched_node *nodes, *snap;
    uint64_t *used, *used_snap;
    size_t *pidx;
    struct sched_part part;
    struct sched_running *run;
    size_t nrun;
    size_t *run_nodes;
    struct sched_job *jobs;
    struct prio_job *pj;
    uint32_t *job_user; /* association index of each job's user */
    struct fs_assoc assoc[1 + ACCOUNTS + USERS];
};

/* Nodes with 64 CPUs, 8 GPUs; running jobs of 1-8 GPUs fill them, but
 * about one node in twenty keeps some GPUs free. */
static void build_nodes(struct world *w)
{
    w->nodes = xcalloc(w->nn, sizeof(*w->nodes));
    w->snap = xcalloc(w->nn, sizeof(*w->snap));
    w->used = xcalloc(w->nn, sizeof(*w->used));
    w->used_snap = xcalloc(w->nn, sizeof(*w->used_snap));
    w->pidx = xcalloc(w->nn, sizeof(*w->pidx));
    w->run = xcalloc(w->nn * 8, sizeof(*w->run));
    w->run_nodes = xcalloc(w->nn * 8, sizeof(*w->run_nodes));
    for (size_t i = 0; i < w->nn; i++) {
        uint32_t g = 0, keep = (rnd() % 20 == 0) ? 1 + rnd() % 4 : 0;
        w->pidx[i] = i;
        w->nodes[i] = (struct sched_node){
            .name = "n", .cpus = 64, .mem_mib = 512000, .up = true, .ngpus = 8};
        while (g < 8 - keep) {
            uint32_t k = 1u << (rnd() % 4);
            struct sched_running *r = &w->run[w->nrun];
            if (g + k > 8 - keep)
                k = 8 - keep - g;
            w->run_nodes[w->nrun] = i;
            *r = (struct sched_running){.nodes = &w->run_nodes[w->nrun],
                                        .nnodes = 1,
                                        .cpus_per_node = 8 * k,
                                        .mem_per_node_mib = 64000 * k,
                                        .gpus_per_node = k,
                                        .end_time =
                                            NOW + 60 + (time_t)(rnd() % 86400)};
            for (uint32_t b = g; b < g + k; b++)
                w->used[i] |= UINT64_C(1) << b;
            w->nodes[i].cpus_alloc += 8 * k;
            w->nodes[i].mem_alloc_mib += 64000 * k;
            g += k;
            w->nrun++;
        }
        w->nodes[i].gpu_used = &w->used[i];
    }
    memcpy(w->snap, w->nodes, w->nn * sizeof(*w->nodes));
    memcpy(w->used_snap, w->used, w->nn * sizeof(*w->used));
    w->part = (struct sched_part){
        .name = "gpu", .start_jobs = true, .nodes = w->pidx, .nnodes = w->nn};
}

/* Restore the node model (the pass charges what it starts). */
static void reset_nodes(struct world *w)
{
    memcpy(w->used, w->used_snap, w->nn * sizeof(*w->used));
    memcpy(w->nodes, w->snap, w->nn * sizeof(*w->nodes));
    for (size_t i = 0; i < w->nn; i++)
        w->nodes[i].gpu_used = &w->used[i];
}

static void build_assocs(struct world *w)
{
    w->assoc[0] = (struct fs_assoc){
        .name = "root", .parent = FS_NO_PARENT, .shares_raw = 1};
    for (size_t a = 0; a < ACCOUNTS; a++)
        w->assoc[1 + a] = (struct fs_assoc){
            .name = "acct", .parent = 0, .shares_raw = 1 + rnd() % 100};
    for (size_t u = 0; u < USERS; u++)
        w->assoc[1 + ACCOUNTS + u] =
            (struct fs_assoc){.name = "user",
                              .parent = 1 + u % ACCOUNTS,
                              .is_user = true,
                              .shares_raw = 1,
                              .usage_raw = (double)(rnd() % 1000000)};
}

static const int64_t limits_s[] = {600, 3600, 14400, 86400};

static void build_jobs(struct world *w)
{
    w->jobs = xcalloc(w->np, sizeof(*w->jobs));
    w->pj = xcalloc(w->np, sizeof(*w->pj));
    w->job_user = xcalloc(w->np, sizeof(*w->job_user));
    for (size_t i = 0; i < w->np; i++) {
        uint32_t g = 1u << (rnd() % 4), nn = rnd() % 10 == 0 ? 2 : 1;
        uint32_t u = (uint32_t)(rnd() % USERS);
        int64_t lim = limits_s[rnd() % 4];
        w->job_user[i] = 1 + ACCOUNTS + u;
        w->jobs[i] =
            (struct sched_job){.id = i + 1,
                               .part = 0,
                               .nodes = nn,
                               .cpus_per_node = 8 * g,
                               .mem_per_node_mib = 64000 * g,
                               .gpus_per_node = g,
                               .submit_time = NOW - (time_t)(rnd() % 86400),
                               .time_limit_s = lim,
                               .user = u};
        w->pj[i] = (struct prio_job){.age_s = NOW - w->jobs[i].submit_time,
                                     .nodes = nn,
                                     .cpus = 8 * g * nn,
                                     .time_limit_s = lim,
                                     .part_factor = 1,
                                     .qos_prio = (uint32_t)(rnd() % 3) * 500};
        w->pj[i].tres[LIMITS_TRES_CPU] = 8 * g * nn;
        w->pj[i].tres[LIMITS_TRES_GPU] = g * nn;
        w->pj[i].part_tres[LIMITS_TRES_CPU] = 64 * w->nn;
        w->pj[i].part_tres[LIMITS_TRES_GPU] = 8 * w->nn;
    }
}

static struct prio_conf pconf(void)
{
    struct prio_conf c = {.multifactor = true, .max_age_s = 7 * 86400};

    c.weight[PRIO_AGE] = 1000;
    c.weight[PRIO_FAIRSHARE] = 10000;
    c.weight[PRIO_JOBSIZE] = 100;
    c.weight[PRIO_QOS] = 2000;
    c.weight_tres[LIMITS_TRES_GPU] = 500;
    return c;
}

/* Priority refresh: fair-share factors, then every pending job. */
static void refresh(struct world *w)
{
    struct prio_conf pc = pconf();
    struct prio_norm n = {(uint32_t)w->nn, 64 * w->nn, 1, 1000};

    fs_compute(w->assoc, 1 + ACCOUNTS + USERS, true);
    for (size_t i = 0; i < w->np; i++) {
        w->pj[i].fairshare = w->assoc[w->job_user[i]].factor;
        w->jobs[i].priority = prio_compute(&pc, &n, &w->pj[i], NULL);
    }
}

/* The baseline: before each decision, recompute the priority of every
 * job not yet decided and take the highest; strict order, no backfill. */
static size_t naive_pass(struct world *w, size_t limit)
{
    struct prio_conf pc = pconf();
    struct prio_norm n = {(uint32_t)w->nn, 64 * w->nn, 1, 1000};
    bool *done = xcalloc(w->np, sizeof(*done));
    size_t started = 0;
    bool blocked = false;

    fs_compute(w->assoc, 1 + ACCOUNTS + USERS, true);
    for (size_t step = 0; step < limit; step++) {
        size_t best = SIZE_MAX;
        uint32_t bp = 0;
        struct sched_decision d = {0};
        for (size_t i = 0; i < w->np; i++) {
            uint32_t p;
            if (done[i])
                continue;
            w->pj[i].fairshare = w->assoc[w->job_user[i]].factor;
            p = prio_compute(&pc, &n, &w->pj[i], NULL);
            if (best == SIZE_MAX || p > bp) {
                best = i;
                bp = p;
            }
        }
        if (best == SIZE_MAX)
            break;
        done[best] = true;
        if (blocked)
            continue; /* it waits for Priority, decided all the same */
        struct sched_cluster c = {.nodes = w->nodes,
                                  .nnodes = w->nn,
                                  .parts = &w->part,
                                  .nparts = 1,
                                  .jobs = w->jobs,
                                  .njobs = w->np};
        if (select_place(&c, &w->jobs[best], &d) == 0) {
            started++;
            free(d.nodes);
            free(d.gpus);
        } else {
            blocked = true; /* strict order: the rest wait behind it */
        }
    }
    free(done);
    return started;
}

/* CPU time of this thread: what a slice cost, whatever else the machine
 * runs (the wall figures include time the scheduler gave to others). */
static double cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int64_t clock_us(void *arg)
{
    (void)arg;
    return (int64_t)(now_ms() * 1000);
}

/* What one sliced cycle did. */
struct sliced {
    size_t slices, started, bytes;
    double first_ms;   /* main pass + profile + first slice */
    double max_ms;     /* the longest slice after the first */
    double max_cpu_ms; /* the same in CPU time */
    double cycle_ms;   /* all of it */
};

/* The pass as the controller runs it: the main pass, the cycle begun
 * over it, then slices of at most yield_us each until the cycle ends. */
static void run_sliced(struct sched_cluster *c, const struct sched_bf *conf,
                       int64_t yield_us, struct sliced *out)
{
    struct sched_bf bf = *conf;
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    struct sched_bf_stats ss;
    struct sched_result r, sl;
    double t0 = now_ms(), s0 = t0, c0 = cpu_ms(), d, dc;

    memset(out, 0, sizeof(*out));
    bf.clock_us = clock_us;
    bf.yield_interval_us = yield_us;
    sched_pass(c, NOW, &r);
    sched_bf_cycle_begin(cy, c, &bf, NOW, &r);
    do {
        sched_bf_slice(cy, c, &bf, NOW, &sl, &ss);
        d = now_ms() - s0;
        dc = cpu_ms() - c0;
        if (out->slices++ == 0) {
            out->first_ms = d;
        } else {
            out->max_ms = d > out->max_ms ? d : out->max_ms;
            out->max_cpu_ms = dc > out->max_cpu_ms ? dc : out->max_cpu_ms;
        }
        out->started += ss.started;
        sched_result_clear(&sl);
        if (out->slices == 1)
            out->bytes = sched_bf_cycle_bytes(cy);
        s0 = now_ms();
        c0 = cpu_ms();
    } while (!ss.done && sched_bf_cycle_valid(cy, c, &bf, NOW));
    out->cycle_ms = now_ms() - t0;
    sched_result_clear(&r);
    sched_bf_cycle_destroy(cy);
}

/* A row's CPU times, for the growth check (wall times on a shared
 * machine carry others' work). */
struct row {
    double main_ms, full_ms;
};

static struct row run_one(const struct opts *o, size_t np, size_t nn)
{
    struct world w = {.nn = nn, .np = np};
    struct sched_cluster c;
    struct sched_bf bf = {.window_s = SCHED_BF_WINDOW_S,
                          .resolution_s = SCHED_BF_RESOLUTION_S,
                          .max_job_test = SCHED_BF_MAX_JOB_TEST};
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    struct sched_bf_stats st;
    struct sched_result r, bfr;
    struct sliced sl;
    double t0, t_ref, t_main = 0, t_cold = 0, t_bf = 0, t_naive = -1;
    double c0, c_main = 0, c_bf = 0; /* CPU time */
    size_t main_started, naive_started = 0, naive_steps = np;
    const char *naive_note = "full";

    build_nodes(&w);
    build_assocs(&w);
    build_jobs(&w);
    c = (struct sched_cluster){.nodes = w.nodes,
                               .nnodes = nn,
                               .parts = &w.part,
                               .nparts = 1,
                               .jobs = w.jobs,
                               .njobs = np};
    bf.running = w.run;
    bf.nrunning = w.nrun;

    t0 = now_ms();
    refresh(&w);
    t_ref = now_ms() - t0;

    /* A first pass at this size pays the page faults of its fresh
     * arrays; the controller's passes reuse freed memory, so the figures
     * are of the second (main_cold_ms: the first). */
    for (int round = 0; round < 2; round++) {
        reset_nodes(&w);
        t0 = now_ms();
        c0 = cpu_ms();
        sched_pass(&c, NOW, &r);
        t_main = now_ms() - t0;
        c_main = cpu_ms() - c0;
        if (round == 0)
            t_cold = t_main;
        main_started = r.started;
        /* backfill after that main pass, unsliced, timed on its own */
        t0 = now_ms();
        c0 = cpu_ms();
        sched_bf_cycle_begin(cy, &c, &bf, NOW, &r);
        sched_bf_slice(cy, &c, &bf, NOW, &bfr, &st);
        t_bf = now_ms() - t0;
        c_bf = cpu_ms() - c0;
        sched_result_clear(&bfr);
        sched_result_clear(&r);
    }
    sched_bf_cycle_destroy(cy);

    /* the same in slices of at most --yield-us each */
    reset_nodes(&w);
    run_sliced(&c, &bf, o->yield_us, &sl);

    reset_nodes(&w);
    if (o->no_naive) {
        naive_steps = 0;
        naive_note = "skipped";
    } else if (np > o->naive_max) {
        naive_steps = 2000 < np ? 2000 : np;
        naive_note = "projected";
    }
    t0 = now_ms();
    naive_started = naive_steps ? naive_pass(&w, naive_steps) : 0;
    t_naive = naive_steps ? now_ms() - t0 : 0;
    if (naive_steps > 0 && naive_steps < np) /* each step scans the rest */
        t_naive *= (double)np / naive_steps / 2;

    printf(
        "pending=%zu nodes=%zu running=%zu refresh_ms=%.2f main_ms=%.2f "
        "(cpu %.2f) main_cold_ms=%.2f main_started=%zu backfill_ms=%.2f (cpu "
        "%.2f) full_pass_ms=%.2f "
        "(refresh+main+backfill) bf_examined=%zu bf_started=%zu "
        "bf_reserved=%zu | sliced: slices=%zu first_slice_ms=%.2f "
        "(main+profile+slice) max_slice_ms=%.2f (cpu %.2f) cycle_ms=%.2f "
        "bf_started=%zu cycle_bytes_per_job=%.0f | naive_ms=%.1f (%s) "
        "naive_started=%zu\n",
        np, nn, w.nrun, t_ref, t_main, c_main, t_cold, main_started, t_bf, c_bf,
        t_ref + t_main + t_bf, st.examined, st.started, st.reserved, sl.slices,
        sl.first_ms, sl.max_ms, sl.max_cpu_ms, sl.cycle_ms, sl.started,
        (double)sl.bytes / (double)np, t_naive, naive_note, naive_started);
    fflush(stdout);
    free(w.nodes);
    free(w.snap);
    free(w.used);
    free(w.used_snap);
    free(w.pidx);
    free(w.run);
    free(w.run_nodes);
    free(w.jobs);
    free(w.pj);
    free(w.job_user);
    return (struct row){c_main, c_main + c_bf};
}

/* Time ratios between two queue lengths against n log n's. */
static void growth(size_t nn, size_t a, const struct row *ra, size_t b,
                   const struct row *rb)
{
    double nlogn = (double)b * log((double)b) / ((double)a * log((double)a));

    printf("growth (cpu) nodes=%zu pending %zu->%zu: main x%.1f, main+backfill "
           "x%.1f; "
           "n log n: x%.1f\n",
           nn, a, b, rb->main_ms / ra->main_ms, rb->full_ms / ra->full_ms,
           nlogn);
}

static size_t parse_list(const char *s, size_t *out, size_t max)
{
    size_t n = 0;
    char *end;

    while (*s && n < max) {
        out[n++] = strtoull(s, &end, 10);
        if (*end != ',')
            break;
        s = end + 1;
    }
    return n;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"pending", required_argument, NULL, 'p'},
        {"nodes", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"yield-us", required_argument, NULL, 'l'},
        {"naive-max", required_argument, NULL, 'm'},
        {"no-naive", no_argument, NULL, 'x'},
        {NULL, 0, NULL, 0}};
    struct opts o = {.seed = 1, .yield_us = 20000, .naive_max = 10000};
    int ch;

    o.npending = parse_list("1000,10000,100000", o.pending, 8);
    o.nnodes = parse_list("100,1000,10000", o.nodes, 8);
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'p':
            o.npending = parse_list(optarg, o.pending, 8);
            break;
        case 'n':
            o.nnodes = parse_list(optarg, o.nodes, 8);
            break;
        case 's':
            o.seed = strtoull(optarg, NULL, 10);
            break;
        case 'l':
            o.yield_us = (int64_t)strtoull(optarg, NULL, 10);
            break;
        case 'm':
            o.naive_max = strtoull(optarg, NULL, 10);
            break;
        case 'x':
            o.no_naive = true;
            break;
        default:
            fprintf(stderr,
                    "usage: %s [--pending LIST] [--nodes LIST] "
                    "[--seed N] [--yield-us N] [--naive-max N] [--no-naive]\n",
                    argv[0]);
            return 2;
        }
    }
    printf("memory per pending job in the core: %zu bytes (sched_job %zu, "
           "decision %zu, order key %zu, prio_job %zu), plus the backfill "
           "cycle's, measured per row (cycle_bytes_per_job; it includes "
           "the per-node profile)\n",
           sizeof(struct sched_job) + sizeof(struct sched_decision) +
               SCHED_ORDER_KEY_BYTES + sizeof(struct prio_job),
           sizeof(struct sched_job), sizeof(struct sched_decision),
           (size_t)SCHED_ORDER_KEY_BYTES, sizeof(struct prio_job));
    for (size_t n = 0; n < o.nnodes; n++) {
        struct row rows[8];
        for (size_t p = 0; p < o.npending; p++) {
            rng_state = o.seed * 0x9e3779b97f4a7c15ULL + 1;
            rows[p] = run_one(&o, o.pending[p], o.nodes[n]);
        }
        for (size_t p = 1; p < o.npending; p++)
            growth(o.nodes[n], o.pending[p - 1], &rows[p - 1], o.pending[p],
                   &rows[p]);
    }
    return 0;
}
