/*
 * GET /metrics: the cluster and the controller in Prometheus's text
 * format (common/prom.h; every metric in docs/metrics.md).  One walk of
 * the nodes and one of the jobs, the counters kept by core/stats.h and
 * sched_stats.h, no SQL and nothing allocated per job, so that a scrape
 * stays a few milliseconds of the loop with 10,000 jobs
 * (bench/metrics_bench.sh).
 */
#include "ctld/web/rest.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/gres.h"
#include "common/prom.h"
#include "common/proto.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/core/statedir.h"
#include "ctld/core/stats.h"
#include "ctld/net/listen.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/sched/sched_stats.h"

/* A node's states by node_state_name, and their labels. */
static const char *const node_states[][2] = {
    {"IDLE", "idle"},           {"MIXED", "mixed"},
    {"ALLOCATED", "allocated"}, {"DRAINING", "draining"},
    {"DRAIN", "drain"},         {"DOWN", "down"},
    {"INVALID", "invalid"},     {"UNKNOWN", "unknown"},
};
#define NODE_STATES (sizeof(node_states) / sizeof(node_states[0]))

/* The job states of jobs that are not finished, and their labels. */
static const struct {
    enum job_state state;
    const char *label;
} job_states[] = {
    {JOB_PENDING, "pending"},
    {JOB_RUNNING, "running"},
    {JOB_SUSPENDED, "suspended"},
    {JOB_COMPLETING, "completing"},
};
#define JOB_STATES (sizeof(job_states) / sizeof(job_states[0]))

/* CPUs, memory and GPUs: configured, allocated, and idle as sinfo's
 * A/I/O/T counts them (idle only on a node that takes jobs). */
enum { RES_CPUS, RES_MEM, RES_GPUS, RES_N };
enum { AMT_TOTAL, AMT_ALLOC, AMT_IDLE, AMT_N };

static const struct {
    const char *name, *unit, *what;
    double scale; /* to the unit */
} resources[RES_N] = {
    [RES_CPUS] = {"cpus", "", "CPUs", 1},
    [RES_MEM] = {"memory", "_bytes", "memory", 1048576.0},
    [RES_GPUS] = {"gpus", "", "GPUs", 1},
};

static const struct {
    const char *suffix, *help;
} amounts[AMT_N] = {
    [AMT_TOTAL] = {"", "configured"},
    [AMT_ALLOC] = {"_allocated", "allocated to jobs"},
    [AMT_IDLE] = {"_idle",
                  "free on nodes that take jobs (IDLE, MIXED, ALLOCATED: "
                  "sinfo's I of A/I/O/T)"},
};

/* What one node has, worked out once per scrape. */
struct node_fig {
    size_t state; /* index into node_states */
    uint64_t amt[RES_N][AMT_N];
};

/* Pending jobs of one partition waiting for one reason. */
struct reason_count {
    size_t part;
    const char *reason; /* the reason's first word: reason[0..len) */
    size_t len;
    uint64_t n;
};

struct scrape {
    struct evbuffer *out;
    const struct rpc_env *env;
    const struct conf *conf;
    const struct listen *listen;
    time_t now;
    struct node_fig *nodes;       /* per node */
    uint64_t (*jobs)[JOB_STATES]; /* per partition */
    struct reason_count *reasons;
    size_t nreasons, capreasons;
    /* fair-share: which figure share_cb writes */
    int share_what;
};

/* ---- nodes and partitions ---------------------------------------------- */

static size_t node_state_idx(const struct node *n)
{
    const char *s = node_state_name(n);

    for (size_t i = 0; i < NODE_STATES; i++)
        if (strcmp(s, node_states[i][0]) == 0)
            return i;
    return NODE_STATES - 1;
}

static void node_figures(struct scrape *sc)
{
    struct nodes *ns = sc->env->nodes;
    size_t n = nodes_count(ns);

    sc->nodes = xcalloc(n ? n : 1, sizeof(*sc->nodes));
    for (size_t i = 0; i < n; i++) {
        const struct node *nd = nodes_get(ns, i);
        struct node_fig *f = &sc->nodes[i];
        bool takes;
        f->state = node_state_idx(nd);
        takes = f->state <= 2; /* the first three: idle, mixed, allocated */
        f->amt[RES_CPUS][AMT_TOTAL] = nd->cf->cpus;
        f->amt[RES_CPUS][AMT_ALLOC] = nd->cpus_alloc;
        f->amt[RES_MEM][AMT_TOTAL] = nd->cf->mem_mib;
        f->amt[RES_MEM][AMT_ALLOC] = nd->mem_alloc_mib;
        f->amt[RES_GPUS][AMT_TOTAL] = gres_count(nd->cf->gres, "gpu", NULL);
        f->amt[RES_GPUS][AMT_ALLOC] = nodes_gpus_alloc(nd);
        for (size_t r = 0; r < RES_N; r++) {
            uint64_t t = f->amt[r][AMT_TOTAL], a = f->amt[r][AMT_ALLOC];
            f->amt[r][AMT_IDLE] = takes && t > a ? t - a : 0;
        }
    }
}

/* sluice_<scope>_<resource><amount><unit>, e.g. sluice_node_memory_idle_bytes */
static void res_name(char *buf, size_t len, const char *scope, size_t r,
                     size_t a)
{
    snprintf(buf, len, "sluice_%s_%s%s%s", scope, resources[r].name,
             amounts[a].suffix, resources[r].unit);
}

static void res_help(char *buf, size_t len, const char *scope, size_t r,
                     size_t a)
{
    snprintf(buf, len, "%s%s of the %s, %s", r == RES_MEM ? "Bytes of " : "",
             resources[r].what, scope, amounts[a].help);
}

static void write_node_states(struct scrape *sc)
{
    size_t n = nodes_count(sc->env->nodes);
    uint64_t count[NODE_STATES] = {0};

    for (size_t i = 0; i < n; i++)
        count[sc->nodes[i].state]++;
    prom_head(sc->out, "sluice_nodes", PROM_GAUGE,
              "Nodes by state (sinfo's states; drain: drained, draining: "
              "drained with jobs still running)");
    for (size_t s = 0; s < NODE_STATES; s++)
        prom_sample(sc->out, "sluice_nodes", (double)count[s], "state",
                    node_states[s][1], NULL);
    prom_head(sc->out, "sluice_node_state", PROM_GAUGE,
              "1 for the state each node is in");
    for (size_t i = 0; i < n; i++)
        prom_sample(sc->out, "sluice_node_state", 1, "node",
                    sc->conf->nodes[i].name, "state",
                    node_states[sc->nodes[i].state][1], NULL);
}

static void write_nodes(struct scrape *sc)
{
    size_t n = nodes_count(sc->env->nodes);
    char name[96], help[256];

    write_node_states(sc);
    for (size_t r = 0; r < RES_N; r++)
        for (size_t a = 0; a < AMT_N; a++) {
            res_name(name, sizeof(name), "node", r, a);
            res_help(help, sizeof(help), "node", r, a);
            prom_head(sc->out, name, PROM_GAUGE, help);
            for (size_t i = 0; i < n; i++)
                prom_sample(sc->out, name,
                            (double)sc->nodes[i].amt[r][a] * resources[r].scale,
                            "node", sc->conf->nodes[i].name, NULL);
        }
}

static void write_part_states(struct scrape *sc)
{
    prom_head(sc->out, "sluice_partition_nodes", PROM_GAUGE,
              "Nodes of the partition by state");
    for (size_t p = 0; p < sc->conf->n_parts; p++) {
        const struct part *pt = parts_get(sc->env->parts, p);
        uint64_t count[NODE_STATES] = {0};
        for (size_t k = 0; k < pt->n_nodes; k++)
            count[sc->nodes[pt->node_idx[k]].state]++;
        for (size_t s = 0; s < NODE_STATES; s++)
            prom_sample(sc->out, "sluice_partition_nodes", (double)count[s],
                        "partition", sc->conf->parts[p].name, "state",
                        node_states[s][1], NULL);
    }
}

static void write_parts(struct scrape *sc)
{
    char name[96], help[256];

    write_part_states(sc);
    for (size_t r = 0; r < RES_N; r++)
        for (size_t a = 0; a < AMT_N; a++) {
            res_name(name, sizeof(name), "partition", r, a);
            res_help(help, sizeof(help), "partition's nodes", r, a);
            prom_head(sc->out, name, PROM_GAUGE, help);
            for (size_t p = 0; p < sc->conf->n_parts; p++) {
                const struct part *pt = parts_get(sc->env->parts, p);
                uint64_t sum = 0;
                for (size_t k = 0; k < pt->n_nodes; k++)
                    sum += sc->nodes[pt->node_idx[k]].amt[r][a];
                prom_sample(sc->out, name, (double)sum * resources[r].scale,
                            "partition", sc->conf->parts[p].name, NULL);
            }
        }
}

/* ---- jobs -------------------------------------------------------------- */

/* The length of the reason's first word ("ReqNodeNotAvail" of
 * "ReqNodeNotAvail, UnavailableNodes:node01"): labels stay few. */
static size_t reason_len(const char *r)
{
    size_t n = 0;

    while (isalnum((unsigned char)r[n]) || r[n] == '_')
        n++;
    return n;
}

static void count_reason(struct scrape *sc, const struct job *j, uint64_t n)
{
    const char *r = job_reason(j);
    size_t len = reason_len(r);
    struct reason_count *c;

    for (size_t i = 0; i < sc->nreasons; i++) {
        c = &sc->reasons[i];
        if (c->part == j->part && c->len == len &&
            (c->reason == r || strncmp(c->reason, r, len) == 0)) {
            c->n += n;
            return;
        }
    }
    if (sc->nreasons == sc->capreasons) {
        sc->capreasons = sc->capreasons ? 2 * sc->capreasons : 16;
        sc->reasons =
            xreallocarray(sc->reasons, sc->capreasons, sizeof(*sc->reasons));
    }
    sc->reasons[sc->nreasons++] =
        (struct reason_count){.part = j->part, .reason = r, .len = len, .n = n};
}

/* One walk of the job table: jobs by partition and state (a pending
 * array counts its tasks, as squeue -r lists them), pending ones by
 * reason. */
static void job_figures(struct scrape *sc)
{
    size_t np = sc->conf->n_parts;

    sc->jobs = xcalloc(np ? np : 1, sizeof(*sc->jobs));
    for (struct job *j = jobs_first(sc->env->jobs); j != NULL; j = j->next) {
        uint64_t n = j->array_pending != NULL ? j->array_pending->count : 1;
        size_t s = 0;
        while (s < JOB_STATES && job_states[s].state != j->state)
            s++;
        if (s == JOB_STATES || j->part >= np || n == 0)
            continue;
        sc->jobs[j->part][s] += n;
        if (j->state == JOB_PENDING)
            count_reason(sc, j, n);
    }
}

static void write_jobs(struct scrape *sc)
{
    char reason[64];

    prom_head(sc->out, "sluice_jobs", PROM_GAUGE,
              "Jobs not yet finished by partition and state (each task of "
              "a pending array counts)");
    for (size_t p = 0; p < sc->conf->n_parts; p++)
        for (size_t s = 0; s < JOB_STATES; s++)
            prom_sample(sc->out, "sluice_jobs", (double)sc->jobs[p][s],
                        "partition", sc->conf->parts[p].name, "state",
                        job_states[s].label, NULL);
    prom_head(sc->out, "sluice_jobs_pending", PROM_GAUGE,
              "Pending jobs by partition and reason (the first word of "
              "squeue's REASON)");
    for (size_t i = 0; i < sc->nreasons; i++) {
        const struct reason_count *c = &sc->reasons[i];
        snprintf(reason, sizeof(reason), "%.*s", (int)c->len, c->reason);
        prom_sample(sc->out, "sluice_jobs_pending", (double)c->n, "partition",
                    sc->conf->parts[c->part].name, "reason",
                    reason[0] ? reason : "None", NULL);
    }
}

static void write_job_counters(struct scrape *sc)
{
    const struct stats *st = sc->env->stats;

    prom_head(sc->out, "sluice_jobs_submitted_total", PROM_COUNTER,
              "Jobs accepted (an array once, an allocation of salloc or "
              "srun too) since the controller started");
    for (size_t p = 0; p < sc->conf->n_parts && p < st->nparts; p++)
        prom_sample(sc->out, "sluice_jobs_submitted_total",
                    (double)st->submitted[p], "partition",
                    sc->conf->parts[p].name, NULL);
    prom_head(sc->out, "sluice_jobs_started_total", PROM_COUNTER,
              "Job starts (a requeued job's each start, an array's each "
              "task) since the controller started");
    for (size_t p = 0; p < sc->conf->n_parts && p < st->nparts; p++)
        prom_sample(sc->out, "sluice_jobs_started_total",
                    (double)st->started[p], "partition",
                    sc->conf->parts[p].name, NULL);
}

/* ---- scheduler, preemption, fair-share ---------------------------------- */

/* h as prom_hist wants it; le: STATS_NBUCKETS doubles. */
static struct prom_hist to_prom(const struct stats_hist *h, double *le)
{
    for (size_t i = 0; i < STATS_NBUCKETS; i++)
        le[i] = (double)stats_le_us[i] / 1e6;
    return (struct prom_hist){.n = STATS_NBUCKETS,
                              .le = le,
                              .bucket = h->bucket,
                              .count = h->count,
                              .sum = (double)h->sum_us / 1e6};
}

static void write_sched(struct scrape *sc)
{
    const struct sched_stats *ss = sched_drv_stats(sc->env->sched);
    double le[STATS_NBUCKETS];
    struct prom_hist h;

    prom_head(sc->out, "sluice_sched_pass_duration_seconds", PROM_HISTOGRAM,
              "Scheduling passes: model, main pass, backfill slice, "
              "preemption, decisions applied");
    h = to_prom(&ss->pass_hist, le);
    prom_hist(sc->out, "sluice_sched_pass_duration_seconds", &h, NULL);
    prom_head(sc->out, "sluice_sched_backfill_cycle_duration_seconds",
              PROM_HISTOGRAM,
              "Backfill cycles, from the top of the queue to its end "
              "(the sum of their slices)");
    h = to_prom(&ss->cycle_hist, le);
    prom_hist(sc->out, "sluice_sched_backfill_cycle_duration_seconds", &h,
              NULL);
    prom_head(sc->out, "sluice_sched_backfilled_jobs_total", PROM_COUNTER,
              "Jobs started by backfill");
    prom_sample(sc->out, "sluice_sched_backfilled_jobs_total",
                (double)ss->backfilled, NULL);
    prom_head(sc->out, "sluice_sched_queue_length", PROM_GAUGE,
              "Pending jobs the last pass looked at");
    prom_sample(sc->out, "sluice_sched_queue_length", (double)ss->last_queue,
                NULL);
}

static void write_preempt(struct scrape *sc)
{
    static const struct {
        const char *name, *help;
        size_t off;
    } fams[] = {
        {"sluice_preemptions_total",
         "Jobs preempted, by the victim's partition, QOS and what was done "
         "to it (requeue, cancel, suspend)",
         offsetof(struct stats_preempt, count)},
        {"sluice_preemption_lost_gpu_seconds_total",
         "GPU-seconds of work preempted jobs lost: their GPUs times the "
         "time since their last checkpoint, or their start",
         offsetof(struct stats_preempt, lost_gpu_s)},
        {"sluice_preemption_lost_cpu_seconds_total",
         "CPU-seconds of work lost by preempted jobs without GPUs",
         offsetof(struct stats_preempt, lost_cpu_s)},
    };
    const struct stats *st = sc->env->stats;

    for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
        prom_head(sc->out, fams[f].name, PROM_COUNTER, fams[f].help);
        for (size_t i = 0; i < st->npreempt; i++) {
            const struct stats_preempt *p = &st->preempt[i];
            uint64_t v = *(const uint64_t *)((const char *)p + fams[f].off);
            if (p->part >= sc->conf->n_parts)
                continue;
            prom_sample(sc->out, fams[f].name, (double)v, "partition",
                        sc->conf->parts[p->part].name, "qos", p->qos, "mode",
                        p->mode, NULL);
        }
    }
}

enum {
    SHARE_SHARES,
    SHARE_USAGE,
    SHARE_RAW,
    SHARE_LEVEL,
    SHARE_FACTOR,
    SHARE_N
};

static const struct {
    const char *name, *help;
    bool users;
} share_fams[SHARE_N] = {
    [SHARE_SHARES] = {"sluice_account_fairshare_shares",
                      "The account's normalised share of the cluster "
                      "(sshare's NormShares)",
                      false},
    [SHARE_USAGE] = {"sluice_account_fairshare_usage",
                     "The account's effective usage (sshare's "
                     "EffectvUsage)",
                     false},
    [SHARE_RAW] = {"sluice_account_usage_billed_seconds",
                   "The account's decayed usage: billed TRES-seconds of its "
                   "jobs (sshare's RawUsage)",
                   false},
    [SHARE_LEVEL] = {"sluice_account_fairshare_level",
                     "Fair Tree's level fair-share of the account "
                     "(sshare's LevelFS; +Inf without usage)",
                     false},
    [SHARE_FACTOR] = {"sluice_user_fairshare_factor",
                      "The fair-share factor of a user's association, 0-1 "
                      "(sshare's FairShare)",
                      true},
};

static void share_cb(void *arg, const struct prio_share *s)
{
    struct scrape *sc = arg;
    const char *name = share_fams[sc->share_what].name;
    double v;

    if ((s->user != NULL) != share_fams[sc->share_what].users)
        return;
    switch (sc->share_what) {
    case SHARE_SHARES:
        v = s->shares_norm;
        break;
    case SHARE_USAGE:
        v = s->usage_eff;
        break;
    case SHARE_RAW:
        v = s->usage_raw;
        break;
    case SHARE_LEVEL:
        if (isnan(s->level_fs)) /* the classic algorithm has none */
            return;
        v = s->level_fs;
        break;
    default:
        prom_sample(sc->out, name, s->fairshare, "account", s->account, "user",
                    s->user, NULL);
        return;
    }
    prom_sample(sc->out, name, v, "account", s->account, NULL);
}

static void write_shares(struct scrape *sc)
{
    for (sc->share_what = 0; sc->share_what < SHARE_N; sc->share_what++) {
        prom_head(sc->out, share_fams[sc->share_what].name, PROM_GAUGE,
                  share_fams[sc->share_what].help);
        prio_drv_share_each(sc->env->prio, sc->now, share_cb, sc);
    }
}

/* ---- the controller ------------------------------------------------------ */

static void write_rpc(struct scrape *sc)
{
    const struct stats *st = sc->env->stats;
    double le[STATS_NBUCKETS];
    struct prom_hist h;

    prom_head(sc->out, "sluice_rpc_requests_total", PROM_COUNTER,
              "Requests handled, by message type");
    for (uint16_t t = 0; t < STATS_RPC_TYPES; t++)
        if (st->rpc[t].count > 0 && proto_type_name(t) != NULL)
            prom_sample(sc->out, "sluice_rpc_requests_total",
                        (double)st->rpc[t].count, "type", proto_type_name(t),
                        NULL);
    prom_head(sc->out, "sluice_rpc_errors_total", PROM_COUNTER,
              "Requests answered with an error, by message type");
    for (uint16_t t = 0; t < STATS_RPC_TYPES; t++)
        if (st->rpc[t].count > 0 && proto_type_name(t) != NULL)
            prom_sample(sc->out, "sluice_rpc_errors_total",
                        (double)st->rpc[t].errors, "type", proto_type_name(t),
                        NULL);
    prom_head(sc->out, "sluice_rpc_duration_seconds", PROM_HISTOGRAM,
              "Time the controller's handler took for a request, by "
              "message type (the commit its reply waits for is apart)");
    for (uint16_t t = 0; t < STATS_RPC_TYPES; t++)
        if (st->rpc[t].count > 0 && proto_type_name(t) != NULL) {
            h = to_prom(&st->rpc[t].dur, le);
            prom_hist(sc->out, "sluice_rpc_duration_seconds", &h, "type",
                      proto_type_name(t), NULL);
        }
    prom_head(sc->out, "sluice_db_commit_duration_seconds", PROM_HISTOGRAM,
              "SQLite commits of the state database (one per loop "
              "iteration that changed something; the fsync included)");
    h = to_prom(&st->commit, le);
    prom_hist(sc->out, "sluice_db_commit_duration_seconds", &h, NULL);
}

static void write_http(struct scrape *sc)
{
    const struct stats *st = sc->env->stats;
    char code[16];

    prom_head(sc->out, "sluice_http_requests_total", PROM_COUNTER,
              "HTTP requests answered, by status (REST, /metrics, the "
              "dashboard)");
    for (size_t i = 0; i < st->nhttp; i++) {
        if (st->http[i].code == 0)
            snprintf(code, sizeof(code), "other");
        else
            snprintf(code, sizeof(code), "%d", st->http[i].code);
        prom_sample(sc->out, "sluice_http_requests_total",
                    (double)st->http[i].count, "code", code, NULL);
    }
}

/* The controller's resident set from /proc/self/statm (-1: unknown). */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long size, resident;
    int n;

    if (f == NULL)
        return -1;
    n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return n == 2 ? (double)resident * (double)sysconf(_SC_PAGESIZE) : -1;
}

static void write_process(struct scrape *sc)
{
    struct listen_counts lc;
    struct rusage ru;
    double rss = rss_bytes();

    prom_head(sc->out, "sluice_build_info", PROM_GAUGE,
              "1, with the controller's version");
    prom_sample(sc->out, "sluice_build_info", 1, "version", SLUICE_VERSION,
                NULL);
    if (rss >= 0) {
        prom_head(sc->out, "sluice_ctld_resident_memory_bytes", PROM_GAUGE,
                  "The controller's resident memory");
        prom_sample(sc->out, "sluice_ctld_resident_memory_bytes", rss, NULL);
    }
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        prom_head(sc->out, "sluice_ctld_cpu_seconds_total", PROM_COUNTER,
                  "CPU time the controller used, user and system");
        prom_sample(sc->out, "sluice_ctld_cpu_seconds_total",
                    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                        (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
                            1e6,
                    NULL);
    }
    listen_counts(sc->listen, &lc);
    prom_head(sc->out, "sluice_ctld_open_connections", PROM_GAUGE,
              "Open connections of the protocol: node daemons, and clients "
              "on the unix socket (local) and on TCP");
    prom_sample(sc->out, "sluice_ctld_open_connections", (double)lc.nodes,
                "kind", "node", NULL);
    prom_sample(sc->out, "sluice_ctld_open_connections", (double)lc.local,
                "kind", "local", NULL);
    prom_sample(sc->out, "sluice_ctld_open_connections", (double)lc.tcp, "kind",
                "tcp", NULL);
}

/* Whether StateSaveLocation takes writes (core/statedir.h), as the
 * last look found it (at most a second ago). */
static void write_state(struct scrape *sc)
{
    struct statedir_status st;

    if (sc->env->statedir == NULL)
        return;
    statedir_status(sc->env->statedir, &st);
    prom_head(sc->out, "sluice_state_writable", PROM_GAUGE,
              "1 while StateSaveLocation takes writes, 0 while submissions "
              "and other changes are refused (full or read-only)");
    prom_sample(sc->out, "sluice_state_writable", st.writable ? 1 : 0, NULL);
    if (st.free_known) {
        prom_head(sc->out, "sluice_state_free_bytes", PROM_GAUGE,
                  "Free space in StateSaveLocation's file system, for an "
                  "unprivileged writer");
        prom_sample(sc->out, "sluice_state_free_bytes", (double)st.free_bytes,
                    NULL);
    }
    prom_head(sc->out, "sluice_state_min_free_bytes", PROM_GAUGE,
              "SluiceStateMinFree: below this much free space changes are "
              "refused");
    prom_sample(sc->out, "sluice_state_min_free_bytes",
                (double)st.min_free_bytes, NULL);
    prom_head(sc->out, "sluice_state_refused_total", PROM_COUNTER,
              "Requests refused because StateSaveLocation took no writes");
    prom_sample(sc->out, "sluice_state_refused_total", (double)st.refused,
                NULL);
}

static void get_metrics(struct web_req *wr)
{
    const struct web_env *env = web_req_env(wr);
    struct scrape sc = {.out = evbuffer_new(),
                        .env = env->rpc,
                        .conf = env->conf,
                        .listen = env->listen,
                        .now = web_req_now(wr)};
    int64_t t0 = clock_mono_us();

    node_figures(&sc);
    job_figures(&sc);
    write_nodes(&sc);
    write_parts(&sc);
    write_jobs(&sc);
    write_job_counters(&sc);
    write_sched(&sc);
    write_preempt(&sc);
    write_shares(&sc);
    write_rpc(&sc);
    write_http(&sc);
    write_state(&sc);
    write_process(&sc);
    prom_head(sc.out, "sluice_metrics_scrape_duration_seconds", PROM_GAUGE,
              "Time the controller took to write this page, up to this line");
    prom_sample(sc.out, "sluice_metrics_scrape_duration_seconds",
                (double)(clock_mono_us() - t0) / 1e6, NULL);
    free(sc.nodes);
    free(sc.jobs);
    free(sc.reasons);
    web_reply_header(wr, "Cache-Control", "no-store");
    web_reply_buf(wr, 200, PROM_CONTENT_TYPE, sc.out);
    evbuffer_free(sc.out);
}

const struct web_route metrics_routes[] = {
    {"GET", "/metrics", get_metrics, WEB_ROUTE_METRICS},
    {NULL, NULL, NULL, 0},
};
