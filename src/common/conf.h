/*
 * The cluster configuration, read from a file in slurm.conf syntax
 * (sluice.conf or slurm.conf): parsed into typed fields with units in their
 * names, checked for mistakes that would otherwise surface as jobs stuck in
 * PENDING, and printed back in a canonical form that parses to itself.
 */
#ifndef SLUICE_CONF_H
#define SLUICE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/err.h"
#include "common/gres.h"
#include "common/timefmt.h"

#define CONF_DEFAULT_PATH "/etc/sluice/sluice.conf"
/* Sluice's own default ports, so that Slurm (6817/6818) can run beside. */
#define CONF_SLURMCTLD_PORT 7817
#define CONF_SLURMD_PORT 7818
/* MailProg when not set, as Slurm's default */
#define CONF_MAIL_PROG_DEFAULT "/usr/bin/mail"
/* The longest line, after joining continuations, in bytes. */
#define CONF_MAX_LINE 65536
/* The deepest chain of Include files below the main one. */
#define CONF_MAX_INCLUDE_DEPTH 8
/* The most nodes one configuration may define. */
#define CONF_MAX_NODES 65536
/* MaxNodes=UNLIMITED. */
#define CONF_UNLIMITED UINT32_MAX

/* Diagnostics: every warning and error of a parse, in order. */
enum conf_severity {
    CONF_WARNING,
    CONF_ERROR,
};

struct conf_diag_item {
    enum conf_severity severity;
    char *file; /* as named to the parser (relative names stay relative) */
    int line;   /* 1-based; 0 when about the whole file */
    int col;    /* 1-based column of the key=value; 0 when none */
    char *text; /* "MaxTime: bad time \"59:60\": ..." */
    /* sluice doctor's findings (conf_diag_add_fix): the check's name
     * ("gpus") and how to fix it; NULL for a configuration's */
    char *check;
    char *fix;
};

struct conf_diag {
    struct conf_diag_item *items;
    size_t n, cap;
    size_t n_errors, n_warnings;
};

/* conf_diag_init: an empty list.  conf_diag_free frees the items and leaves
 * an empty list (accepts NULL). */
void conf_diag_init(struct conf_diag *d);
void conf_diag_free(struct conf_diag *d);
/* conf_diag_add: append one item (file may be NULL); d may be NULL. */
void conf_diag_add(struct conf_diag *d, enum conf_severity sev,
                   const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/*
 * conf_diag_add_fix: append a finding about the running cluster (sluice
 * doctor): where it is ("node node04"), the check that found it
 * ("gpus"), what is wrong and how to fix it (fix may be NULL).
 */
void conf_diag_add_fix(struct conf_diag *d, enum conf_severity sev,
                       const char *where, const char *check, const char *fix,
                       const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* conf_diag_format: "FILE:LINE:COL: error: text" into buf, and for a
 * finding with a fix or check "WHERE: error: text; fix: FIX [check]";
 * returns buf. */
char *conf_diag_format(const struct conf_diag_item *it, char *buf, size_t len);
/* conf_diag_print: every item, one line each, to fp. */
void conf_diag_print(const struct conf_diag *d, FILE *fp);

/* Where something was written; file is owned by the conf. */
struct conf_loc {
    const char *file;
    int line;
    int col;
};

enum conf_auth_type {
    CONF_AUTH_MUNGE, /* auth/munge */
    CONF_AUTH_KEY,   /* auth/key: HMAC with a shared key file (Sluice) */
};

/* SluiceMetricsAuth: whether GET /metrics needs a token. */
/* SlurmctldDebug / SlurmdDebug: Slurm's level names, mapped onto Sluice's
 * four log levels by daemon_log_level. */
enum conf_debug {
    CONF_DEBUG_INFO, /* the default */
    CONF_DEBUG_QUIET,
    CONF_DEBUG_FATAL,
    CONF_DEBUG_ERROR,
    CONF_DEBUG_VERBOSE,
    CONF_DEBUG_DEBUG,
    CONF_DEBUG_DEBUG2,
    CONF_DEBUG_DEBUG3,
    CONF_DEBUG_DEBUG4,
    CONF_DEBUG_DEBUG5,
};

enum conf_metrics_auth {
    CONF_METRICS_AUTH_NONE, /* none (the default): Prometheus scrapes */
    CONF_METRICS_AUTH_TOKEN,
};

enum conf_enforce_part_limits {
    CONF_ENFORCE_NO,
    CONF_ENFORCE_ANY, /* YES is a synonym, as in Slurm */
    CONF_ENFORCE_ALL,
};

enum conf_sched_type {
    CONF_SCHED_BACKFILL, /* sched/backfill */
    CONF_SCHED_BUILTIN,  /* sched/builtin: strict priority order */
};

enum conf_priority_type {
    CONF_PRIORITY_BASIC,       /* priority/basic: FIFO */
    CONF_PRIORITY_MULTIFACTOR, /* priority/multifactor */
};

enum conf_usage_reset {
    CONF_RESET_NONE,
    CONF_RESET_NOW,
    CONF_RESET_DAILY,
    CONF_RESET_WEEKLY,
    CONF_RESET_MONTHLY,
    CONF_RESET_QUARTERLY,
    CONF_RESET_YEARLY,
};

enum conf_preempt_type {
    CONF_PREEMPT_NONE,           /* preempt/none */
    CONF_PREEMPT_PARTITION_PRIO, /* preempt/partition_prio */
    CONF_PREEMPT_QOS,            /* preempt/qos */
};

enum conf_preempt_mode {
    CONF_PREEMPT_MODE_OFF,
    CONF_PREEMPT_MODE_CANCEL,
    CONF_PREEMPT_MODE_REQUEUE,
    CONF_PREEMPT_MODE_SUSPEND,
};

/* PreemptMode: "REQUEUE", "SUSPEND,GANG", "GANG" (gang alone: mode OFF). */
struct conf_preempt {
    enum conf_preempt_mode mode;
    bool gang;
};

enum conf_node_state {
    CONF_NODE_UNKNOWN,
    CONF_NODE_CLOUD,
    CONF_NODE_DOWN,
    CONF_NODE_DRAIN,
    CONF_NODE_FAIL,
    CONF_NODE_FAILING,
    CONF_NODE_FUTURE,
};

enum conf_part_state {
    CONF_PART_UP,
    CONF_PART_DOWN,
    CONF_PART_DRAIN,
    CONF_PART_INACTIVE,
};

enum conf_oversubscribe {
    CONF_OVERSUB_NO,
    CONF_OVERSUB_YES,
    CONF_OVERSUB_EXCLUSIVE,
    CONF_OVERSUB_FORCE,
};

/* SlurmctldHost=master(10.0.0.1) */
struct conf_ctld_host {
    char *host;
    char *addr; /* "" when not given: connect to host */
};

/* One node, after NodeName=DEFAULT and the topology rules are applied. */
struct conf_node {
    char *name;
    char *hostname; /* NodeHostname; the name when not given */
    char *addr;     /* NodeAddr; the hostname when not given */
    uint16_t port;  /* Port; SlurmdPort when not given */
    uint32_t cpus;  /* CPUs; Sockets*CoresPerSocket*ThreadsPerCore if absent */
    uint32_t boards;
    uint32_t sockets; /* in all: Boards*SocketsPerBoard */
    uint32_t sockets_per_board;
    uint32_t cores_per_socket;
    uint32_t threads_per_core;
    uint64_t mem_mib;             /* RealMemory */
    uint64_t tmp_disk_mib;        /* TmpDisk (MB, as Slurm); 0: none */
    const struct gres_list *gres; /* never NULL; owned by the conf */
    char *features;               /* "a100,ib" or "" */
    uint32_t weight;
    enum conf_node_state state;
    struct conf_loc loc; /* the NodeName= that defined it */
};

/* DefMemPerCPU, DefMemPerNode (a job without --mem or --mem-per-cpu
 * gets it), MaxMemPerCPU, MaxMemPerNode; MiB, 0 when not set.  Per
 * partition, 0 takes the global value (conf_part_mem). */
struct conf_mem {
    uint64_t def_per_cpu_mib;
    uint64_t def_per_gpu_mib; /* DefMemPerGPU: for a job with GPUs */
    uint64_t def_per_node_mib;
    uint64_t max_per_cpu_mib;
    uint64_t max_per_node_mib;
};

struct conf_part {
    char *name;
    char *nodes_expr; /* Nodes= as written: "node[01-04]", "ALL", or "" */
    size_t *node_idx; /* indices into conf.nodes, ascending, unique */
    size_t n_nodes;
    bool is_default;        /* Default=YES, or the first partition if none is */
    int64_t max_time_s;     /* TIMEFMT_INFINITE when unlimited */
    int64_t default_time_s; /* DefaultTime; max_time_s when not given */
    enum conf_part_state state;
    uint32_t priority_tier; /* Priority= sets both, as in Slurm */
    uint32_t priority_job_factor;
    char *allow_accounts; /* "ALL" by default */
    char *allow_groups;
    char *allow_qos;
    char *deny_accounts; /* "" by default */
    char *deny_qos;
    char *tres_billing_weights; /* "CPU=1,GRES/gpu=4" ("": CPUs count 1) */
    char *qos; /* QOS=: the partition QOS (its limits apply); "" none */
    uint32_t max_nodes; /* CONF_UNLIMITED by default */
    uint32_t min_nodes;
    enum conf_oversubscribe oversubscribe;
    uint32_t oversubscribe_count;     /* FORCE:4 / YES:4; 0 when not given */
    struct conf_preempt preempt_mode; /* effective (global when inherited) */
    bool preempt_mode_inherited;      /* PreemptMode not given here */
    uint32_t grace_time_s;            /* GraceTime, seconds as in Slurm */
    bool exclusive_user;
    struct conf_mem mem;       /* DefMemPer..., MaxMemPer...: 0 = the global */
    struct conf_loc loc;       /* the PartitionName= */
    struct conf_loc nodes_loc; /* the Nodes= (line 0 when absent) */
};

struct conf_priv;

/* InteractiveStepOptions when not given, as in Slurm 22.05. */
#define CONF_INTERACTIVE_STEP_DEFAULT                                          \
    "--interactive --preserve-env --pty $SHELL"

/* SchedulerParameters=max_script_size default (bytes), as in Slurm. */
#define CONF_MAX_SCRIPT_SIZE (4u << 20)

/* SluiceStateMinFree default (MiB): the controller refuses changes while
 * StateSaveLocation has less free space (docs/operations.md). */
#define CONF_STATE_MIN_FREE_MIB 64

/* SluiceDaemonNice default: the nice of the daemons' autogroups, above
 * their jobs' 0 (daemon_cpu_priority, docs/configuration.md). */
#define CONF_DAEMON_NICE (-10)

/*
 * The whole configuration.  Strings are never NULL ("" when unset); all
 * memory belongs to the conf and goes with conf_destroy.
 */
struct conf {
    char *path; /* the main file as named */

    /* cluster */
    char *cluster_name;
    struct conf_ctld_host *ctld_hosts; /* [0] is the primary */
    size_t n_ctld_hosts;
    uint16_t slurmctld_port;
    uint16_t slurmd_port;
    char *state_save_location;
    char *slurmd_spool_dir;
    /* SlurmUser: the user sluicectld runs as ("": not set; whoever starts
     * it).  Node daemons and the CLI trust it as they trust root. */
    char *slurm_user;
    enum conf_auth_type auth_type;
    char *auth_info;
    char *auth_alt_types;      /* AuthAltTypes: "auth/jwt" or "" */
    char *auth_alt_parameters; /* AuthAltParameters: "jwt_key=PATH" */
    /* the controller's HTTP server (docs/rest.md): "[host:]port" ("": none;
     * host 127.0.0.1 when left out), TLS when a certificate is set */
    char *sluice_rest_addr;
    char *sluice_rest_tls_cert;
    char *sluice_rest_tls_key;
    enum conf_metrics_auth sluice_metrics_auth;
    /* SluiceStateMinFree: MiB that must stay free in StateSaveLocation for
     * the controller to take changes (0: space is not checked) */
    uint64_t sluice_state_min_free_mib;
    /* SluiceDaemonNice: -20..19, the nice of sluicectld's and sluiced's
     * autogroups (0: left alone at start) */
    int sluice_daemon_nice;
    /* SlurmctldDebug / SlurmdDebug: the daemons' log levels (-v on their
     * command lines overrides them with debug) */
    enum conf_debug slurmctld_debug;
    enum conf_debug slurmd_debug;
    uint32_t slurmd_timeout_s;
    uint32_t kill_wait_s;
    uint32_t message_timeout_s;
    char *gres_types; /* "gpu", comma-separated */
    char *select_type;
    char *select_type_parameters;
    char *proctrack_type;
    char *task_plugin;
    enum conf_enforce_part_limits enforce_part_limits;
    uint32_t max_job_count;
    uint32_t max_array_size; /* task ids below it; 0: arrays refused */
    bool job_requeue;
    char *slurmd_parameters;
    bool slurmd_config_overrides; /* SlurmdParameters has config_overrides */
    /* LaunchParameters as written (Slurm's other values are kept, not
     * acted on) and the one the CLI acts on: salloc starts its command as
     * an interactive step (srun + InteractiveStepOptions) */
    char *launch_parameters;
    bool use_interactive_step;
    char *interactive_step_options; /* "": CONF_INTERACTIVE_STEP_DEFAULT */

    /* scheduling and priority */
    enum conf_sched_type scheduler_type;
    char *scheduler_parameters;
    uint32_t max_script_size; /* SchedulerParameters=max_script_size, bytes */
    enum conf_priority_type priority_type;
    uint32_t priority_weight_age;
    uint32_t priority_weight_fairshare;
    uint32_t priority_weight_job_size;
    uint32_t priority_weight_partition;
    uint32_t priority_weight_qos;
    char *priority_weight_tres; /* "CPU=1000,GRES/gpu=3000" */
    int64_t priority_max_age_s;
    int64_t priority_calc_period_s; /* PriorityCalcPeriod, 5 minutes */
    int64_t priority_decay_half_life_s;
    enum conf_usage_reset priority_usage_reset_period;
    bool priority_favor_small;
    char *priority_flags;
    enum conf_preempt_type preempt_type;
    struct conf_preempt preempt_mode;
    int64_t preempt_exempt_time_s;
    struct conf_mem mem; /* DefMemPerCPU, ... (struct conf_mem) */
    char *preempt_parameters;

    /* accounting */
    char *accounting_storage_type;
    char *accounting_storage_enforce;
    char *accounting_storage_tres;
    char *mail_prog; /* MailProg; "": CONF_MAIL_PROG_DEFAULT */
    char *job_acct_gather_type;
    char *job_acct_gather_freq;      /* JobAcctGatherFrequency as written */
    uint32_t job_acct_gather_freq_s; /* its task period (default 30; 0:
                                      * no sampling): STEP_USAGE's */

    /* nodes and partitions, in the order they were defined */
    struct conf_node *nodes;
    size_t n_nodes;
    struct conf_part *parts;
    size_t n_parts;

    struct conf_priv *priv; /* parser bookkeeping: name index, pools */
};

/*
 * conf_slurm_user_uid: SlurmUser's uid into *uid; (uid_t)-1 when SlurmUser
 * is not set.  -1 with e ("SlurmUser=slurm: no such user on this host")
 * when it names no user here.
 */
int conf_slurm_user_uid(const struct conf *c, uid_t *uid, struct err *e);

/*
 * conf_load: read, parse and check the file at path (and its Includes).
 * Every warning and error goes into diag (may be NULL) with its file, line
 * and column; on error NULL with errno (ENOENT etc. when the file cannot be
 * read, EINVAL when it is wrong) and the first error in e as one line
 * "FILE:LINE:COL: text".  The caller destroys the result.
 */
struct conf *conf_load(const char *path, struct conf_diag *diag, struct err *e);

/* conf_parse_string: the same for text in memory; name is used in messages
 * and Include paths are relative to its directory. */
struct conf *conf_parse_string(const char *text, const char *name,
                               struct conf_diag *diag, struct err *e);

/* conf_destroy: free c (accepts NULL, keeps errno). */
void conf_destroy(struct conf *c);

/* Lookups: NULL when absent.  Pointers belong to c. */
const struct conf_node *conf_node_find(const struct conf *c, const char *name);
const struct conf_part *conf_part_find(const struct conf *c, const char *name);
/* conf_part_default: where jobs without -p go; NULL with no partitions. */
const struct conf_part *conf_part_default(const struct conf *c);
/* conf_part_mem: the memory defaults and maxima p's jobs get: the
 * partition's DefMemPer* pair when it sets one, else the global pair;
 * the same for MaxMemPer*. */
void conf_part_mem(const struct conf *c, const struct conf_part *p,
                   struct conf_mem *out);

/*
 * conf_print: the canonical form: every key with its effective value, one
 * NodeName= line per node, one PartitionName= line per partition with Nodes=
 * compressed.  Parsing it yields a conf whose conf_print is identical.
 */
void conf_print(const struct conf *c, FILE *fp);

/* conf_to_json: the same as a new JSON object the caller json_decref()s.
 * Times are seconds (null for INFINITE), memory MiB. */
json_t *conf_to_json(const struct conf *c);

/* conf_interactive_step_options: InteractiveStepOptions, or Slurm's
 * default when not given (static or owned by c). */
const char *conf_interactive_step_options(const struct conf *c);

/* Names of enum values as written in the configuration ("REQUEUE"). */
const char *conf_preempt_type_name(enum conf_preempt_type t);
/* conf_preempt_format: "SUSPEND,GANG" into buf; returns buf. */
char *conf_preempt_format(const struct conf_preempt *p, char *buf, size_t len);
/* conf_preempt_param: the comma list PreemptParameters (NULL: empty) has
 * key, alone or as key=VALUE ("suspend_gpu_jobs"). */
bool conf_preempt_param(const char *params, const char *key);
const char *conf_node_state_name(enum conf_node_state s);
const char *conf_part_state_name(enum conf_part_state s);
/* conf_debug_name: "debug2".  conf_debug_parse: a level as SlurmctldDebug
 * takes it (any case), or Slurm's number for it (0 quiet .. 9 debug5, as
 * scontrol setdebug takes too); -1 with e ("expected quiet, ..."). */
const char *conf_debug_name(enum conf_debug d);
int conf_debug_parse(const char *s, enum conf_debug *out, struct err *e);

#endif
