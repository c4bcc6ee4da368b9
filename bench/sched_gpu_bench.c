/*
 * GPU placement in the scheduler core: a seeded stream of GPU jobs of
 * mixed sizes (1/2/4/8 GPUs) arrives at a cluster of many 8-GPU nodes,
 * runs for random times and ends, in simulated time; every event is
 * followed by a real sched_pass over the pending queue.  The same stream
 * runs twice, with best fit (the core's default) and with the first-fit
 * baseline, and the bench prints the time per placement decision and what
 * fragmentation costs: GPUs left free while the job at the head of the
 * queue waits although enough GPUs are free in total (none on one node).
 *
 *   build/bench/sched_gpu_bench [--nodes 1000] [--gpus 8] [--jobs 100000]
 *       [--load 0.97] [--seed 1] [--window 256] [--links]
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
#include "sched/sched.h"

struct opts {
    size_t nodes;
    uint32_t gpus; /* per node, at most 64 here */
    size_t jobs;
    double load; /* offered GPU load, 1.0 = the cluster's capacity */
    uint64_t seed;
    size_t window; /* pending jobs handed to one pass */
    bool links;    /* NVLink pairs (0-1, 2-3, ...) on every node */
};

/* One job of the stream, and what became of it. */
struct bjob {
    uint32_t gpus;
    double arrive, dur;
    double start;
    size_t node;
    uint64_t mask; /* its GPUs on node */
};

/* The running jobs, a min-heap by end time. */
struct heap {
    size_t *v, n, cap;
    const struct bjob *jobs;
};

static double end_of(const struct heap *h, size_t i)
{
    const struct bjob *j = &h->jobs[h->v[i]];

    return j->start + j->dur;
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
    size_t t = h->v[a];

    h->v[a] = h->v[b];
    h->v[b] = t;
}

static void heap_push(struct heap *h, size_t job)
{
    size_t i = h->n++;

    if (h->n > h->cap) {
        h->cap = h->cap ? h->cap * 2 : 1024;
        h->v = xreallocarray(h->v, h->cap, sizeof(*h->v));
    }
    h->v[i] = job;
    while (i > 0 && end_of(h, (i - 1) / 2) > end_of(h, i)) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static size_t heap_pop(struct heap *h)
{
    size_t top = h->v[0], i = 0;

    h->v[0] = h->v[--h->n];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && end_of(h, l) < end_of(h, m))
            m = l;
        if (r < h->n && end_of(h, r) < end_of(h, m))
            m = r;
        if (m == i)
            break;
        heap_swap(h, i, m);
        i = m;
    }
    return top;
}

/* xorshift64*: the stream is the same for both runs and every machine. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

/* Sizes 1/2/4/8 with 40/25/20/15 %, durations exponential (mean 1 h,
 * 1 min to 12 h), Poisson arrivals at the rate that offers load. */
static struct bjob *make_stream(const struct opts *o)
{
    static const uint32_t sizes[] = {1, 2, 4, 8};
    static const double cum[] = {0.40, 0.65, 0.85, 1.0};
    struct bjob *v = xcalloc(o->jobs, sizeof(*v));
    uint64_t s = o->seed * 0x9E3779B97F4A7C15ull + 1;
    double mean_gpus = 0.4 * 1 + 0.25 * 2 + 0.2 * 4 + 0.15 * 8, mean_dur = 0;
    double t = 0, rate;

    for (size_t i = 0; i < o->jobs; i++) {
        double u = rng_unit(&s), d = -3600.0 * log(1.0 - rng_unit(&s));
        size_t k = 0;
        while (u > cum[k])
            k++;
        v[i].gpus = sizes[k] <= o->gpus ? sizes[k] : o->gpus;
        v[i].dur = d < 60 ? 60 : d > 43200 ? 43200 : d;
        mean_dur += v[i].dur / (double)o->jobs;
    }
    rate = o->load * (double)(o->nodes * o->gpus) / (mean_gpus * mean_dur);
    for (size_t i = 0; i < o->jobs; i++) {
        t += -log(1.0 - rng_unit(&s)) / rate;
        v[i].arrive = t;
    }
    return v;
}

/* The cluster model, kept across passes as the controller keeps its nodes. */
struct model {
    struct sched_node *nodes;
    uint64_t *used;
    struct sched_gpu *gpus;
    uint64_t *links;
    size_t *idx;
    struct sched_part part;
};

static void model_init(struct model *m, const struct opts *o)
{
    m->nodes = xcalloc(o->nodes, sizeof(*m->nodes));
    m->used = xcalloc(o->nodes, sizeof(*m->used));
    m->idx = xcalloc(o->nodes, sizeof(*m->idx));
    m->gpus = xcalloc(o->gpus, sizeof(*m->gpus));
    m->links = xcalloc(o->gpus, sizeof(*m->links));
    for (uint32_t g = 0; g < o->gpus; g++) {
        m->links[g] = UINT64_C(1) << (g ^ 1);
        m->gpus[g] = (struct sched_gpu){"", o->links ? &m->links[g] : NULL};
    }
    for (size_t i = 0; i < o->nodes; i++) {
        m->idx[i] = i;
        m->nodes[i] = (struct sched_node){.name = "n",
                                          .cpus = 8 * o->gpus,
                                          .mem_mib = 1 << 20,
                                          .up = true,
                                          .ngpus = o->gpus,
                                          .gpus = o->links ? m->gpus : NULL,
                                          .gpu_used = &m->used[i]};
    }
    m->part = (struct sched_part){"all", true, false, m->idx, o->nodes};
}

static void model_free(struct model *m)
{
    free(m->nodes);
    free(m->used);
    free(m->idx);
    free(m->gpus);
    free(m->links);
}

struct stats {
    size_t passes, started, frag_waits8;
    double pass_ns_total;
    double *pass_ns; /* one per pass */
    size_t pass_cap;
    double busy_gpu_s, stranded_gpu_s, frag_s, end_time;
    double idle_empty_gpu_s; /* GPUs free while nothing waits */
    double wait_s[4];
    size_t wait_n[4];
};

/* The thread's CPU time: other load on the machine does not count. */
static double cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t size_class(uint32_t gpus)
{
    return gpus >= 8 ? 3 : gpus >= 4 ? 2 : gpus >= 2 ? 1 : 0;
}

/* The simulation state of one run. */
struct sim {
    const struct opts *o;
    enum sched_fit fit;
    struct bjob *jobs;
    struct model m;
    struct heap run;
    size_t *queue, qhead, qtail; /* pending jobs, in arrival order */
    struct sched_job *window;
    uint64_t busy; /* GPUs allocated */
    size_t last_frag_head;
    struct stats st;
};

static void record_pass(struct stats *st, double ns)
{
    if (st->passes == st->pass_cap) {
        st->pass_cap = st->pass_cap ? st->pass_cap * 2 : 4096;
        st->pass_ns = xreallocarray(st->pass_ns, st->pass_cap, sizeof(double));
    }
    st->pass_ns[st->passes++] = ns;
    st->pass_ns_total += ns;
}

static void start_job(struct sim *s, size_t id, const struct sched_decision *d,
                      double now)
{
    struct bjob *j = &s->jobs[id];

    j->start = now;
    j->node = d->nodes[0];
    j->mask = 0;
    for (uint32_t g = 0; g < j->gpus; g++)
        j->mask |= UINT64_C(1) << d->gpus[g];
    s->busy += j->gpus;
    s->st.started++;
    s->st.wait_s[size_class(j->gpus)] += now - j->arrive;
    s->st.wait_n[size_class(j->gpus)]++;
    heap_push(&s->run, id);
}

/* One pass over the head of the queue; returns how many started. */
static size_t pass_once(struct sim *s, double now)
{
    size_t n = s->qtail - s->qhead, started = 0, keep = s->qhead;
    struct sched_cluster c;
    struct sched_result r;
    bool *go;
    double t0;

    if (n > s->o->window)
        n = s->o->window;
    for (size_t k = 0; k < n; k++) {
        const struct bjob *j = &s->jobs[s->queue[s->qhead + k]];
        s->window[k] = (struct sched_job){.id = s->queue[s->qhead + k] + 1,
                                          .nodes = 1,
                                          .cpus_per_node = j->gpus,
                                          .submit_time = (time_t)j->arrive,
                                          .gpus_per_node = j->gpus};
    }
    c = (struct sched_cluster){
        s->m.nodes, s->o->nodes, &s->m.part, 1, s->window, n, s->fit, NULL, 0};
    t0 = cpu_ns();
    if (sched_pass(&c, (time_t)now, &r) < 0)
        abort();
    record_pass(&s->st, cpu_ns() - t0);
    go = xcalloc(n ? n : 1, sizeof(*go));
    for (size_t i = 0; i < r.n; i++) {
        const struct sched_decision *d = &r.decisions[i];
        if (d->nnodes == 0)
            continue;
        go[d->job] = true;
        start_job(s, s->queue[s->qhead + d->job], d, now);
        started++;
    }
    /* the queue keeps the jobs that wait, in their order */
    for (size_t k = 0; k < n; k++)
        if (!go[k])
            s->queue[keep++] = s->queue[s->qhead + k];
    memmove(&s->queue[keep], &s->queue[s->qhead + n],
            (s->qtail - s->qhead - n) * sizeof(*s->queue));
    s->qtail = keep + (s->qtail - s->qhead - n);
    s->qhead = 0;
    free(go);
    sched_result_clear(&r);
    return started;
}

static void end_job(struct sim *s, size_t id)
{
    struct bjob *j = &s->jobs[id];
    struct sched_node *n = &s->m.nodes[j->node];

    s->m.used[j->node] &= ~j->mask;
    n->cpus_alloc -= j->gpus;
    s->busy -= j->gpus;
}

/* Is the head of the queue held back by fragmentation alone? */
static bool head_fragmented(const struct sim *s)
{
    uint64_t total = (uint64_t)s->o->nodes * s->o->gpus;

    return s->qtail > s->qhead &&
           total - s->busy >= s->jobs[s->queue[s->qhead]].gpus;
}

static void run(struct sim *s)
{
    size_t next = 0;
    double now = 0;

    while (next < s->o->jobs || s->run.n > 0) {
        double t = next < s->o->jobs ? s->jobs[next].arrive : INFINITY;
        if (s->run.n > 0 && end_of(&s->run, 0) < t)
            t = end_of(&s->run, 0);
        /* what the interval since the last event held */
        s->st.busy_gpu_s += (double)s->busy * (t - now);
        if (head_fragmented(s)) {
            uint64_t total = (uint64_t)s->o->nodes * s->o->gpus;
            s->st.stranded_gpu_s += (double)(total - s->busy) * (t - now);
            s->st.frag_s += t - now;
        }
        if (s->qtail == s->qhead)
            s->st.idle_empty_gpu_s +=
                ((double)(s->o->nodes * s->o->gpus) - (double)s->busy) *
                (t - now);
        now = t;
        while (s->run.n > 0 && end_of(&s->run, 0) <= now)
            end_job(s, heap_pop(&s->run));
        while (next < s->o->jobs && s->jobs[next].arrive <= now)
            s->queue[s->qtail++] = next++;
        while (s->qtail > s->qhead && pass_once(s, now) == s->o->window)
            ;
        if (head_fragmented(s) && s->jobs[s->queue[s->qhead]].gpus == 8 &&
            s->queue[s->qhead] + 1 != s->last_frag_head) {
            s->st.frag_waits8++;
            s->last_frag_head = s->queue[s->qhead] + 1;
        }
    }
    s->st.end_time = now;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void report(const char *name, const struct sim *s)
{
    const struct stats *st = &s->st;
    double total = (double)(s->o->nodes * s->o->gpus) * st->end_time;
    static const char *cls[] = {"1", "2", "4", "8"};

    qsort(st->pass_ns, st->passes, sizeof(double), cmp_double);
    printf("%-10s passes %zu, started %zu\n", name, st->passes, st->started);
    printf("%-10s time per placement decision: %.2f us (CPU time of all "
           "passes / jobs started); pass p50 %.2f us, p99 %.2f us, max %.2f "
           "us\n",
           "", st->pass_ns_total / 1e3 / (double)st->started,
           st->pass_ns[st->passes / 2] / 1e3,
           st->pass_ns[st->passes * 99 / 100] / 1e3,
           st->pass_ns[st->passes - 1] / 1e3);
    printf("%-10s makespan %.1f h, GPU utilisation %.1f %%, GPUs idle with "
           "nothing queued %.1f %%\n",
           "", st->end_time / 3600, 100 * st->busy_gpu_s / total,
           100 * st->idle_empty_gpu_s / total);
    printf("%-10s head of queue blocked by fragmentation (enough GPUs free, "
           "none on one node): %.1f h of %.1f h; GPUs stranded meanwhile: "
           "%.0f GPU-h (%.2f %% of capacity); 8-GPU jobs held so: %zu\n",
           "", st->frag_s / 3600, st->end_time / 3600,
           st->stranded_gpu_s / 3600, 100 * st->stranded_gpu_s / total,
           st->frag_waits8);
    printf("%-10s mean wait by size:", "");
    for (size_t k = 0; k < 4; k++)
        printf(" %s GPU %.1f min%s", cls[k],
               st->wait_n[k] ? st->wait_s[k] / 60 / (double)st->wait_n[k] : 0,
               k < 3 ? "," : "\n");
}

static void sim_run(const struct opts *o, enum sched_fit fit,
                    const struct bjob *stream, const char *name)
{
    struct sim s = {.o = o, .fit = fit};

    s.jobs = xcalloc(o->jobs, sizeof(*s.jobs));
    memcpy(s.jobs, stream, o->jobs * sizeof(*s.jobs));
    s.run.jobs = s.jobs;
    s.queue = xcalloc(o->jobs, sizeof(*s.queue));
    s.window = xcalloc(o->window, sizeof(*s.window));
    model_init(&s.m, o);
    run(&s);
    report(name, &s);
    model_free(&s.m);
    free(s.window);
    free(s.queue);
    free(s.run.v);
    free(s.st.pass_ns);
    free(s.jobs);
}

static void usage(void)
{
    fprintf(stderr, "usage: sched_gpu_bench [--nodes N] [--gpus G (<=64)] "
                    "[--jobs N] [--load L] [--seed S] [--window W] "
                    "[--links]\n");
    exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"nodes", 1, NULL, 'n'}, {"gpus", 1, NULL, 'g'},
        {"jobs", 1, NULL, 'j'},  {"load", 1, NULL, 'l'},
        {"seed", 1, NULL, 's'},  {"window", 1, NULL, 'w'},
        {"links", 0, NULL, 'L'}, {NULL, 0, NULL, 0},
    };
    int c;

    *o = (struct opts){1000, 8, 100000, 0.97, 1, 256, false};
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'n':
            o->nodes = strtoul(optarg, NULL, 10);
            break;
        case 'g':
            o->gpus = (uint32_t)strtoul(optarg, NULL, 10);
            break;
        case 'j':
            o->jobs = strtoul(optarg, NULL, 10);
            break;
        case 'l':
            o->load = strtod(optarg, NULL);
            break;
        case 's':
            o->seed = strtoull(optarg, NULL, 10);
            break;
        case 'w':
            o->window = strtoul(optarg, NULL, 10);
            break;
        case 'L':
            o->links = true;
            break;
        default:
            usage();
        }
    }
    if (o->nodes == 0 || o->gpus == 0 || o->gpus > 64 || o->jobs == 0 ||
        o->load <= 0 || o->window == 0 || optind != argc)
        usage();
}

int main(int argc, char **argv)
{
    struct opts o;
    struct bjob *stream;

    parse(argc, argv, &o);
    stream = make_stream(&o);
    printf("sched_gpu_bench --nodes %zu --gpus %u --jobs %zu --load %.2f "
           "--seed %llu --window %zu%s\n",
           o.nodes, o.gpus, o.jobs, o.load, (unsigned long long)o.seed,
           o.window, o.links ? " --links" : "");
    printf("%zu nodes x %u GPUs; %zu jobs of 1/2/4/8 GPUs (40/25/20/15 %%), "
           "exponential run times (mean 1 h), Poisson arrivals offering "
           "%.0f %% of the GPUs; strict FIFO\n",
           o.nodes, o.gpus, o.jobs, 100 * o.load);
    sim_run(&o, SCHED_FIT_BEST, stream, "best-fit");
    sim_run(&o, SCHED_FIT_FIRST, stream, "first-fit");
    free(stream);
    return 0;
}
