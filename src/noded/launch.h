/*
 * A JOB_LAUNCH on the node: the LAUNCH object of docs/protocol.md read
 * into a struct, checked (user known here, uid allowed), written to the
 * spool, and handed to a per-job supervisor forked off (launch_start);
 * the supervisor reports on a pipe once the job runs or failed to start.
 */
#ifndef SLUICE_NODED_LAUNCH_H
#define SLUICE_NODED_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"

struct jobenv_gpus;
struct cgroup;
struct cgroup_job_spec;
struct ucache;
struct ucache_user;

/* The LAUNCH object; every string is owned and never NULL unless said. */
struct launch {
    uint32_t job_id;
    char *name; /* "" when unnamed */
    uid_t uid;
    gid_t gid;
    char *user_name; /* as the controller knows it; may be "" */
    char *partition;
    char *script;
    char **argv; /* argv[0] is the script's name as submitted */
    size_t argc;
    char *work_dir; /* "" when not given: the user's home */
    char *std_out;  /* pattern; "" for the default slurm-%j.out */
    char *std_err;  /* pattern; "" for "same as std_out" */
    char **env;     /* "KEY=VALUE", n_env of them, submitted order */
    size_t n_env;
    uint32_t cpus; /* 1 when absent */
    /* the job's tasks (0 or "" when absent: the controller did not say) */
    uint32_t ntasks, ntasks_per_node, cpus_per_task, num_nodes;
    char *tasks_per_node; /* "4(x2)" */
    uint64_t mem_mib;     /* 0 when absent */
    char *node_list;      /* "" when absent: this node */
    int64_t time_limit_s; /* -1 when absent or unlimited */
    uint32_t restart_count;
    uint32_t *gpus; /* GPU indices on this node, ascending; NULL: none */
    size_t n_gpus;
    bool is_array; /* "array_job_id" and "array_task_id" present */
    uint32_t array_job_id;
    uint32_t array_task_id;
    /* the array as submitted (SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP); 0
     * count when the controller did not send them */
    uint32_t array_task_count, array_task_min, array_task_max;
    uint32_t array_task_step;
    /* the batch environment's extras (helper verbs; "" or 0: absent) */
    char *open_mode;    /* "append", "truncate" or "" */
    char *submit_host;  /* SLURM_SUBMIT_HOST */
    char *submit_dir;   /* SLURM_SUBMIT_DIR ("": the work_dir) */
    char *get_user_env; /* --get-user-env ("" for the bare option), or NULL */
    char *propagate;    /* --propagate list, or NULL */
    char *account, *qos, *cluster_name, *req_gpus;
    uint64_t mem_per_cpu_mib, mem_per_gpu_mib;
    uint32_t gpus_per_node;
    char *req_gpus_per_node, *reservation; /* as requested; "" absent */
    /* inherited by srun inside, as requested; "" absent */
    char *req_gpus_per_task, *distribution;
    int64_t start_time, end_time; /* 0: absent */
    int64_t nice;
    json_t *json; /* the object as received (a reference) */
};

/* The highest GPU index a LAUNCH may name. */
#define LAUNCH_MAX_GPU 4095

/*
 * launch_parse: read job (the LAUNCH object) into l (cleared first).  -1
 * with EINVAL and e naming the field ("LAUNCH: job_id: expected an
 * integer 1..4294967295") when a required field (job_id, user_id,
 * group_id, script) is missing or any field has the wrong type.  "gpus"
 * is an array of distinct indices 0..LAUNCH_MAX_GPU (a string "0,2" is
 * read too); they are kept sorted.  Free with launch_clear.
 */
int launch_parse(json_t *job, struct launch *l, struct err *e);
void launch_clear(struct launch *l);

/* What launch_start needs besides the job. */
struct launch_ctx {
    const char *spool;     /* absolute spool directory */
    const char *node;      /* NodeName */
    const char *notify;    /* sluiced's unix socket, for the supervisor */
    const char *conf_path; /* sluiced's configuration (SLURM_CONF); or NULL */
    const struct jobenv_gpus *gpus;    /* the job's GPUs; NULL: by index */
    const struct cgroup *cg;           /* NULL or version NONE: no cgroup */
    const struct cgroup_job_spec *cgs; /* the job's cgroup limits */
    const struct ucache_user *user;    /* the job's user, groups resolved */
    const char *boot_id; /* the machine's, for supervisor.pid; "": none */
    struct auth *auth;   /* sluiced's credentials: destroyed (the auth/key
                          * key wiped) in the supervisor right after the
                          * fork; NULL: none */
    int launch_nice;     /* the launch's autogroup nice until the job's
                          * exec (launch_nice); 0: left alone */
};

struct conf;

/*
 * launch_nice: the autogroup nice a job's launch runs at, from its fork
 * to its exec: SluiceDaemonNice for a job of the highest PriorityTier
 * among the partitions that hold node, when one of them has a lower tier
 * (prod over backtests on a shared node), so that its supervisor, cgroup
 * and exec are not queued behind an array's; 0 otherwise (nothing
 * written: a new session's autogroup is at 0).
 */
int launch_nice(const struct conf *c, const char *node, const char *partition);

/*
 * launch_check_user: the job's user is known on this machine (by uid) and
 * this process may run as it (root, or the same uid).  *user: the user
 * resolved through users (name, home, supplementary groups; the cache's
 * entry, ucache.h).  -1 with errno and e: "user zhangsan (uid 1001) is
 * unknown on node01".
 */
int launch_check_user(const struct launch *l, const char *node,
                      struct ucache *users, const struct ucache_user **user,
                      struct err *e);

/*
 * launch_start: create the job's spool directory (it must not exist),
 * write script (0700, owned by the user) and launch.json (0600), and fork
 * the supervisor in a session of its own (it makes the job's cgroup when
 * ctx->cg has one).  The supervisor is this process's child, *sup_pid:
 * the caller reaps it when it ends (njobs_reap), without waiting for it
 * now; it survives this process.  Returns the read end
 * of the supervisor's report pipe (O_NONBLOCK, O_CLOEXEC; the caller
 * closes it); the report is one line, "ok PID PGID START_TIME T_SUP T_PID
 * T_CGROUP T_EXEC" (the last four: CLOCK_MONOTONIC microseconds when the
 * supervisor began, recorded itself, made the cgroup, saw the exec) once the
 * job runs or "error ERRNO TEXT" when it did not start (the supervisor
 * then removed the directory), and EOF without a line means it died.
 * -1 with e on failure, nothing left behind.
 */
int launch_start(const struct launch_ctx *ctx, const struct launch *l,
                 pid_t *sup_pid, struct err *e);

/*
 * launch_spool_dir: what every supervisor's directory starts with (a
 * job's or a step's): dir created 0711 (it must not exist), flock'ed
 * (*lock_fd, for the caller to hand to the supervisor), launch.json (the
 * request's object, 0600; none when json is NULL) and boot_id (none when
 * NULL or "").  -1 with e; the caller removes what was made.
 */
int launch_spool_dir(const char *dir, json_t *json, const char *boot_id,
                     int *lock_fd, struct err *e);

/*
 * launch_spawn: the rest of a launch once the caller wrote dir (written:
 * its result, 0, or -1 with e set) and holds its lock (*lock_fd, which
 * fn's argument also names): fork a supervisor whose child destroys auth
 * (sluiced's key is wiped before anything else), starts a session of its
 * own (no signal to sluiced's group reaches it, and it outlives sluiced)
 * and runs fn(arg, wfd), which does not return.  The lock is closed here
 * (the child has its copy).  Returns the read end of the report pipe
 * (O_NONBLOCK, O_CLOEXEC) and *sup_pid, for the caller to reap
 * (njobs_reap_add) without waiting for it now; -1 with e, dir removed
 * (unless it was there before: EEXIST).
 */
typedef void (*launch_main_fn)(const void *arg, int wfd);
int launch_spawn(const char *dir, int written, int *lock_fd, struct auth *auth,
                 launch_main_fn fn, const void *arg, pid_t *sup_pid,
                 struct err *e);

#endif
