/*
 * The controller's counters that no subsystem keeps for itself, for GET
 * /metrics (docs/metrics.md): requests by message type and their handling
 * time, commits, HTTP replies by status, submissions and starts per
 * partition, preemptions with the work they cost.  The root creates one
 * and hands it to whoever counts (rpc_dispatch, the flush, the job
 * table's subscriber, preemption, the HTTP server); the metrics page
 * reads the fields.  Every stats_* function accepts a NULL stats and then
 * does nothing, so that a subsystem built without one (unit tests) works.
 */
#ifndef SLUICE_CTLD_STATS_H
#define SLUICE_CTLD_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

/* Histogram buckets: upper bounds in microseconds, 50 us to 10 s. */
#define STATS_NBUCKETS 17
extern const int64_t stats_le_us[STATS_NBUCKETS];

/* Durations in fixed buckets: bucket[i] counts those in (le[i-1], le[i]]
 * alone; count also those above the last bound. */
struct stats_hist {
    uint64_t bucket[STATS_NBUCKETS];
    uint64_t count;
    int64_t sum_us;
};

/* stats_hist_add: one duration (negative counts as 0). */
void stats_hist_add(struct stats_hist *h, int64_t us);

/* Request message types counted (proto.h's types are below this). */
#define STATS_RPC_TYPES 128

struct stats_rpc {
    uint64_t count, errors;
    struct stats_hist dur;
};

/* HTTP statuses counted apart; once the table is full, further ones
 * count in its last entry, whose code is 0 ("other"). */
#define STATS_HTTP_CODES 24

struct stats_http {
    int code;
    uint64_t count;
};

/* Preemptions of the victims of one partition, QOS and mode, and the
 * work they lost: GPU-seconds of victims with GPUs, CPU-seconds of the
 * others (from the last checkpoint, or the start, to the decision). */
struct stats_preempt {
    size_t part;      /* conf->parts index */
    char *qos;        /* "" without a QOS (owned) */
    const char *mode; /* "requeue", "cancel", "suspend" (static) */
    uint64_t count;
    uint64_t lost_gpu_s, lost_cpu_s;
};

/* Credentials refused from one TCP peer address: a node daemon or client
 * with another key (auth/key) or munge key, or a clock outside the
 * credentials' window.  sluice doctor shows them (SCHED_DIAG). */
#define STATS_REFUSED_MAX 64
struct stats_refused {
    char addr[64];
    uint64_t count;
    time_t first, last;
    char reason[256]; /* the last one */
};

struct stats {
    size_t nparts;
    uint64_t *submitted; /* per partition: jobs accepted (an array once) */
    uint64_t *started;   /* per partition: starts (a requeued job again) */
    struct stats_rpc rpc[STATS_RPC_TYPES];
    struct stats_hist commit; /* SQLite COMMITs of the flush */
    struct stats_http http[STATS_HTTP_CODES];
    size_t nhttp;
    struct stats_preempt *preempt;
    size_t npreempt;
    /* the peers last refused (the least recent goes when it is full) */
    struct stats_refused refused[STATS_REFUSED_MAX];
    size_t nrefused;
};

/* stats_create: counters for nparts partitions, all zero.  stats_destroy
 * accepts NULL. */
struct stats *stats_create(size_t nparts);
void stats_destroy(struct stats *st);

/* stats_rpc: a request of type handled in dur_us, failed or not. */
void stats_rpc(struct stats *st, uint16_t type, int64_t dur_us, int failed);
/* stats_commit: a commit that took dur_us. */
void stats_commit(struct stats *st, int64_t dur_us);
/* stats_http: an HTTP reply with status code. */
void stats_http(struct stats *st, int code);
/* stats_submitted, stats_started: a job of partition part (ignored when
 * out of range). */
void stats_submitted(struct stats *st, size_t part);
void stats_started(struct stats *st, size_t part);
/* stats_preempt: a victim of partition part and QOS qos (NULL: none)
 * preempted in mode, having lost gpu_s GPU-seconds or cpu_s CPU-seconds. */
void stats_preempt(struct stats *st, size_t part, const char *qos,
                   const char *mode, uint64_t gpu_s, uint64_t cpu_s);

/* stats_auth_refused: a credential from TCP peer addr refused at now,
 * for reason. */
void stats_auth_refused(struct stats *st, const char *addr, const char *reason,
                        time_t now);
/* stats_refused_json: [{"peer", "count", "first", "last", "reason"}],
 * most recent first; a new reference ([] for a NULL st). */
json_t *stats_refused_json(const struct stats *st);

#endif
