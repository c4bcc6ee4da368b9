/*
 * Submit-time cost of the limit engine: 1,000 users in 100 accounts (under
 * 10 groups under root), 10 QOS with limits, 100,000 jobs already in the
 * system (half running).  Each timed submission builds the job's chain
 * (partition QOS, job QOS, user and account associations), checks the
 * submit limits and counts the job (a charge); an old job ends for each
 * new one, so the system stays at its size.  The same stream runs without
 * accounting (what the controller does when AccountingStorageEnforce has
 * no limits) in the same run, and a scheduling pass's counters are built
 * for every pending job, for scale.
 *
 *   build/bench/limits_bench [--jobs 100000] [--submits 200000] [--seed 1]
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "sched/limits.h"

#define NUSERS 1000
#define NACCTS 100
#define NGROUPS 10
#define NQOS 10

struct world {
    char users[NUSERS][32];
    char accts[NACCTS][32];
    char groups[NGROUPS][32];
    char qos_names[NQOS][32];
    char keys[NUSERS + NACCTS + NGROUPS + 1][32];
    struct limits qos_lim[NQOS], user_lim, acct_lim, group_lim, root_lim;
    struct limits_level qos[NQOS];
    struct limits_level ua[NUSERS], aa[NACCTS], ga[NGROUPS], root;
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void world_init(struct world *w)
{
    for (int i = 0; i < NQOS; i++) {
        snprintf(w->qos_names[i], 32, "qos%d", i);
        limits_init(&w->qos_lim[i]);
        w->qos_lim[i].max_submit_jobs_pu = 100000;
        w->qos_lim[i].max_jobs_pu = 50;
        w->qos_lim[i].grp_tres[LIMITS_TRES_GPU] = 4000;
        w->qos_lim[i].max_tres_per_job[LIMITS_TRES_GPU] = 8;
        w->qos[i] = (struct limits_level){LIMITS_QOS, w->qos_names[i], NULL,
                                          &w->qos_lim[i]};
    }
    limits_init(&w->user_lim);
    w->user_lim.max_submit_jobs_pu = 100000;
    limits_init(&w->acct_lim);
    w->acct_lim.grp_submit_jobs = 1000000;
    w->acct_lim.grp_tres[LIMITS_TRES_CPU] = 100000;
    limits_init(&w->group_lim);
    w->group_lim.grp_jobs = 100000;
    limits_init(&w->root_lim);
    size_t k = 0;
    for (int i = 0; i < NGROUPS; i++) {
        snprintf(w->groups[i], 32, "group%d", i);
        snprintf(w->keys[k], 32, "%zu", k);
        w->ga[i] = (struct limits_level){LIMITS_ASSOC, w->groups[i],
                                         w->keys[k++], &w->group_lim};
    }
    for (int i = 0; i < NACCTS; i++) {
        snprintf(w->accts[i], 32, "acct%d", i);
        snprintf(w->keys[k], 32, "%zu", k);
        w->aa[i] = (struct limits_level){LIMITS_ASSOC, w->accts[i],
                                         w->keys[k++], &w->acct_lim};
    }
    for (int i = 0; i < NUSERS; i++) {
        snprintf(w->users[i], 32, "user%d", i);
        snprintf(w->keys[k], 32, "%zu", k);
        w->ua[i] = (struct limits_level){LIMITS_ASSOC, w->accts[i % NACCTS],
                                         w->keys[k++], &w->user_lim};
    }
    snprintf(w->keys[k], 32, "%zu", k);
    w->root =
        (struct limits_level){LIMITS_ASSOC, "root", w->keys[k], &w->root_lim};
}

/* A job of user u in QOS q on a partition whose QOS is pq. */
struct bjob {
    int user, qos, pqos;
    uint64_t gpus;
    struct limits_charge *ch;
};

static struct bjob make_job(uint64_t *seed)
{
    struct bjob b = {(int)(rng(seed) % NUSERS), (int)(rng(seed) % NQOS),
                     (int)(rng(seed) % NQOS), rng(seed) % 3, NULL};
    return b;
}

/* The chain of b into lv; the job's view into j. */
static void job_view(const struct world *w, const struct bjob *b,
                     struct limits_level *lv, struct limits_job *j)
{
    int a = b->user % NACCTS;
    struct limits_level assocs[4] = {w->ua[b->user], w->aa[a],
                                     w->ga[a % NGROUPS], w->root};
    int n =
        limits_chain(lv, &w->qos[b->pqos], &w->qos[b->qos], false, assocs, 4);

    memset(j, 0, sizeof(*j));
    j->user = w->users[b->user];
    j->account = w->accts[a];
    j->tres[LIMITS_TRES_CPU] = 4;
    j->tres[LIMITS_TRES_MEM] = 16000;
    j->tres[LIMITS_TRES_NODE] = 1;
    j->tres[LIMITS_TRES_BILLING] = 4;
    j->tres[LIMITS_TRES_GPU] = b->gpus;
    j->wall_s = 3600;
    j->levels = lv;
    j->nlevels = n < 0 ? 0 : (size_t)n;
}

/* Submit one job: with accounting, check and count it. */
static int submit(const struct world *w, struct limits_usage *u, struct bjob *b,
                  bool acct)
{
    struct limits_level lv[LIMITS_LEVEL_MAX];
    struct limits_job j;
    const char *why;
    struct err e;

    job_view(w, b, lv, &j);
    if (!acct)
        return 0;
    if (limits_check_submit(u, &j, &why, &e) < 0)
        return -1;
    b->ch = limits_charge_create(u, &j);
    return 0;
}

struct result {
    double ns_per_submit;
    size_t rejected;
};

static struct result run(const struct world *w, size_t njobs, size_t nsubmits,
                         uint64_t seed, bool acct, struct limits_usage *u)
{
    struct bjob *ring = xcalloc(njobs, sizeof(*ring));
    struct result r = {0, 0};
    double t0;

    for (size_t i = 0; i < njobs; i++) {
        ring[i] = make_job(&seed);
        if (submit(w, u, &ring[i], acct) == 0 && acct && i % 2 == 0)
            limits_charge_start(ring[i].ch);
    }
    t0 = cpu_ns();
    for (size_t i = 0; i < nsubmits; i++) {
        struct bjob *old = &ring[i % njobs];
        limits_charge_destroy(old->ch); /* an old job ends */
        *old = make_job(&seed);
        if (submit(w, u, old, acct) < 0)
            r.rejected++;
    }
    r.ns_per_submit = (cpu_ns() - t0) / (double)nsubmits;
    for (size_t i = 0; i < njobs; i++)
        limits_charge_destroy(ring[i].ch);
    free(ring);
    return r;
}

/* One scheduling pass's counters for njobs pending jobs. */
static double pass_ms(const struct world *w, struct limits_usage *u,
                      size_t njobs, uint64_t seed, size_t *ncounters)
{
    struct limits_pass *p = limits_pass_create(u);
    double t0 = cpu_ns();

    for (size_t i = 0; i < njobs; i++) {
        struct bjob b = make_job(&seed);
        struct limits_level lv[LIMITS_LEVEL_MAX];
        struct limits_job j;
        size_t first, n;
        job_view(w, &b, lv, &j);
        limits_pass_job(p, &j, &first, &n);
    }
    double ms = (cpu_ns() - t0) / 1e6;
    limits_pass_counters(p, ncounters);
    limits_pass_destroy(p);
    return ms;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"jobs", required_argument, 0, 'j'},
                                       {"submits", required_argument, 0, 's'},
                                       {"seed", required_argument, 0, 'r'},
                                       {0, 0, 0, 0}};
    size_t njobs = 100000, nsubmits = 200000, ncounters;
    uint64_t seed = 1;
    struct world *w = xcalloc(1, sizeof(*w));
    struct limits_usage *u = limits_usage_create();
    int c;

    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c == 'j')
            njobs = strtoull(optarg, NULL, 10);
        else if (c == 's')
            nsubmits = strtoull(optarg, NULL, 10);
        else if (c == 'r')
            seed = strtoull(optarg, NULL, 10) | 1;
        else {
            fprintf(stderr, "usage: limits_bench [--jobs N] [--submits N] "
                            "[--seed N]\n");
            return 2;
        }
    }
    if (njobs == 0 || nsubmits == 0) {
        fprintf(stderr, "limits_bench: --jobs and --submits must be > 0\n");
        return 2;
    }
    world_init(w);
    printf("limits_bench --jobs %zu --submits %zu --seed %llu\n", njobs,
           nsubmits, (unsigned long long)seed);
    printf("%d users, %d accounts (%d groups under root), %d QOS; %zu jobs "
           "in the system (half running); chain: partition QOS, job QOS, "
           "user, account, group, root\n",
           NUSERS, NACCTS, NGROUPS, NQOS, njobs);
    struct result none = run(w, njobs, nsubmits, seed, false, u);
    struct result with = run(w, njobs, nsubmits, seed, true, u);
    printf("no accounting:   %8.1f ns per submission (building the job's "
           "view only)\n",
           none.ns_per_submit);
    printf("limits enforced: %8.1f ns per submission (chain, submit check, "
           "charge; an old job's end), %zu rejected\n",
           with.ns_per_submit, with.rejected);
    printf("limit cost:      %8.1f ns per submission\n",
           with.ns_per_submit - none.ns_per_submit);
    double ms = pass_ms(w, u, njobs, seed, &ncounters);
    printf("pass counters for %zu pending jobs: %.1f ms (%zu counters)\n",
           njobs, ms, ncounters);
    limits_usage_destroy(u);
    free(w);
    return 0;
}
