/*
 * One job as the controller keeps it in memory, its states and reasons
 * (Slurm's names) and its JSON forms: the JOB object of docs/protocol.md,
 * which is also the record persisted for it.  The script, argv and
 * environment are not kept here: they live in the database (the payload)
 * and are read back to launch, which keeps a pending job small.
 */
#ifndef SLUICE_CTLD_JOB_H
#define SLUICE_CTLD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/err.h"
#include "sched/depend.h"
#include "sched/prio.h"

struct features_req;
struct limits_charge;

enum job_state {
    JOB_PENDING,
    JOB_RUNNING,
    JOB_COMPLETING,
    JOB_COMPLETED,
    JOB_FAILED,
    JOB_CANCELLED,
    JOB_TIMEOUT,
    JOB_NODE_FAIL,
    JOB_PREEMPTED,
    JOB_BOOT_FAIL,
    JOB_OUT_OF_MEMORY,
    JOB_SUSPENDED, /* stopped on its node: holds memory and GPUs, not CPUs */
    JOB_DEADLINE,  /* pending past the point where it could end by its
                      --deadline: cancelled (Slurm 22.05's DEADLINE, DL) */
    JOB_STATE_COUNT
};

/* Why a running job is being killed; decides its final state. */
/* job->requeue_req: what scontrol asked of a running job (JOB_REQUEUE 56) */
enum job_requeue_req {
    JOB_REQUEUE_NONE,
    JOB_REQUEUE_ASKED, /* scontrol requeue */
    JOB_REQUEUE_HOLD,  /* scontrol requeuehold: pending and held after */
};

enum job_kill {
    JOB_KILL_NONE,
    JOB_KILL_CANCEL,
    JOB_KILL_TIMEOUT,
    JOB_KILL_PREEMPT,  /* ends PREEMPTED (PreemptMode=CANCEL) */
    JOB_KILL_REQUEUE,  /* back to PENDING once its node reports the end
                          (requeue_req says whether scontrol asked) */
    JOB_KILL_COMPLETE, /* an allocation's end (JOB_COMPLETE, or its srun's
                          step 0): COMPLETED or FAILED by its exit_code */
};

/* An allocation job (salloc, srun without a job): no batch script, no
 * JOB_LAUNCH, never requeued; ended by JOB_COMPLETE (docs/protocol.md,
 * "Allocations"). */
enum job_alloc {
    JOB_ALLOC_NONE, /* a batch job */
    JOB_ALLOC_SALLOC,
    JOB_ALLOC_SRUN, /* ends when its step 0 ends */
};

/* Who suspended a job, which decides who resumes it (docs/preemption.md). */
enum job_susp {
    JOB_SUSP_NONE,
    JOB_SUSP_ADMIN, /* scontrol suspend: only scontrol resume resumes it */
    JOB_SUSP_AUTO,  /* preempted (PreemptMode=SUSPEND), or an admin asked
                       to resume it: resumed as soon as its CPUs are free */
};

/* --exclusive: none, whole nodes, or nodes shared only with the same
 * user ("mcs" is taken as "user": Sluice has no MCS labels). */
enum job_excl {
    JOB_EXCL_NONE,
    JOB_EXCL_NODE,
    JOB_EXCL_USER,
    JOB_EXCL_MCS,
};

/*
 * The job options of Slurm's sbatch that are kept as given (the JOBSPEC
 * keys of the same names, docs/protocol.md): 0, false or NULL when not
 * given.  Strings are owned.  jobopts.c reads and writes them.
 */
struct job_opts {
    char *comment, *wckey;
    char *constraint; /* -C: a feature expression (sched/features.h) */
    char *gres_flags, *gpu_bind, *cpu_bind, *hint, *distribution;
    time_t deadline;    /* --deadline: cancelled DEADLINE if it cannot end
                            by then; 0: none */
    int64_t time_min_s; /* --time-min: backfill may cut the limit to it */
    uint64_t tmp_mib;   /* --tmp: TmpDisk each node must have */
    uint32_t mincpus;   /* --mincpus: CPUs each node must have */
    enum job_excl exclusive;
    bool oversubscribe; /* accepted; CPUs are never shared here */
    uint32_t sockets_per_node, cores_per_socket, threads_per_core;
    uint32_t ntasks_per_gpu;
    bool spread_job, use_min_nodes;
    /* derived by jobopts_resolve (owned; not in the record) */
    struct features_req *feat; /* constraint parsed; NULL: none */
    bool *node_ok;  /* NULL, or per conf node: the needs above hold */
    bool *node_use; /* NULL, or node_ok and node_allowed (model.c) */
};

struct job {
    uint64_t id;
    uint32_t user_id;
    uint32_t group_id;
    char *user_name;
    char *name;
    size_t part;          /* index into conf->parts */
    int64_t time_limit_s; /* TIMEFMT_INFINITE when unlimited */
    uint32_t cpus_per_task;
    uint32_t ntasks;
    uint32_t nodes;           /* nodes wanted */
    uint32_t cpus_per_node;   /* derived: ceil(cpus_per_task*ntasks/nodes),
                               at least ntasks_per_node*cpus_per_task */
    uint32_t ntasks_per_node; /* --ntasks-per-node; 0: not given */
    /* -n (or --ntasks-per-node) and -c were given: the batch job's
     * environment then says so (SLURM_NTASKS, SLURM_CPUS_PER_TASK) */
    bool ntasks_set, cpus_per_task_set;
    uint64_t mem_mib; /* --mem per node; 0: not given */
    uint64_t mem_per_cpu_mib;
    char *std_out; /* NULL: the node's default (slurm-%j.out) */
    char *std_err;
    /* helper verbs: --open-mode ("append"/"truncate"), --mail-type (the
     * canonical list "BEGIN,END"), --mail-user, --get-user-env ("" for
     * the bare option), --propagate, sbatch's host; NULL: not given */
    char *open_mode, *mail_type, *mail_user, *get_user_env, *propagate;
    char *submit_host;
    char *submit_dir; /* where sbatch ran (SLURM_SUBMIT_DIR); NULL: work_dir */
    /* scontrol requeue asked for (JOB_REQUEUE_*), judged when the node
     * reports the end; mail_sent: the JOB_MAIL_* already sent this run */
    uint8_t requeue_req;
    uint16_t mail_sent;
    char *work_dir;
    char *qos, *account, *nodelist, *exclude, *gres, *gpus; /* or NULL */
    char *reservation; /* --reservation (cluster/resv.h), or NULL */
    /* GPU requests as submitted ("[TYPE:]N"; 0 or NULL: not given) */
    char *req_gpus_per_node, *req_gpus_per_task;
    uint32_t cpus_per_gpu;
    uint64_t mem_per_gpu_mib;
    /* ... and as normalised (jobgpu.h): GPUs on each node, of gpu_type */
    uint32_t gpus_per_node;
    char *gpu_type;     /* NULL: any */
    bool *node_allowed; /* NULL, or one per conf node (-w/-x) */
    time_t submit_time, eligible_time, begin_time, start_time, end_time;
    uint32_t priority;
    int32_t nice; /* --nice / Nice=: subtracted from the priority */
    /* eligible time earned (prio_drv.c keeps it; persisted, so that a
     * requeued or reloaded job keeps its age) */
    struct prio_accrual accrual;
    /* the factors of priority as last computed (owned; NULL until then) */
    struct prio_result *factors;
    uint64_t prio_gen;      /* prio_drv generation factors were computed at */
    bool prio_fixed;        /* an administrator set the priority: kept */
    time_t start_est;       /* pending: backfill's estimated start, 0 unknown */
    uint32_t restart_count; /* times requeued */
    bool requeue;           /* may be requeued (--requeue/--no-requeue,
                               JobRequeue); a preempted job that may not
                               is cancelled (PREEMPTED) instead */
    bool no_kill;           /* -k/--no-kill: a failed node other than the
                               batch host leaves the allocation and the
                               job goes on without it */
    time_t last_checkpoint; /* last `sluice checkpoint` of this run; 0: none */
    int64_t cancel_uid;     /* who cancelled it; -1: nobody */
    /* suspension: while SUSPENDED, since suspend_time, by susp_by (for
     * job susp_for when preempted); suspended_s: the seconds of this run
     * spent suspended before, which extend its time limit */
    enum job_susp susp_by;
    uint64_t susp_for;
    time_t suspend_time;
    int64_t suspended_s;
    /* --signal=[{R|B}:]SIG[@SECONDS]: warn_signal (0: none) warn_time_s
     * before the time limit, to the batch shell only when warn_batch */
    int warn_signal;
    uint32_t warn_time_s;
    bool warn_batch;
    bool warn_sent;
    enum job_state state;
    enum job_kill kill;
    bool held_user, held_admin;
    bool part_time_limit; /* over MaxTime with EnforcePartLimits=NO */
    bool part_node_limit; /* outside MinNodes-MaxNodes, the same way */
    bool kill_sent;       /* JOB_KILL went to the node */
    time_t kill_deadline; /* an allocation being killed ends by then at the
                             latest (0: not being killed) */
    bool launched;        /* its node confirmed the launch or listed it */
    /* Requeued after a run lost with a node (queue/jobfence.h): it does
     * not start again until node fence_node (the run's batch host)
     * confirms that nothing of that run is left there. */
    bool fenced;
    size_t fence_node;
    /* ... and what that run held there, held for it on fence_node until
     * the fence lifts (jobs_fence_hold), so that no other job is given
     * the CPUs, memory or GPUs that the old run may still be using */
    uint32_t fence_cpus;
    uint64_t fence_mem_mib;
    uint32_t *fence_gpus; /* fence_ngpus indices, owned; NULL: none */
    uint32_t fence_ngpus;
    const char *reason;  /* static: "Resources"; see job_reason() */
    char *reason_text;   /* owned; overrides reason when set */
    char *reason_detail; /* owned: state_description, the long form */
    int32_t exit_code;
    int32_t exit_signal;
    size_t *alloc; /* conf node indices while it holds resources */
    size_t n_alloc;
    /* GPU indices (as the nodes registered them), gpus_per_node for each
     * node of alloc in its order; NULL without GPUs */
    uint32_t *gpu_alloc;
    /* an allocation (enum job_alloc); its steps still RUNNING (kept by
     * the step table, not saved: an allocation being killed ends when
     * none is left) */
    enum job_alloc alloc_kind;
    uint32_t steps_live;
    /* the job that preempted it (0: none known), and its partition */
    uint64_t preempted_by;
    char *preempted_part;
    /* what it counts for resource limits (jlimits.h); NULL when none */
    struct limits_charge *lim_charge;
    struct job_opts opt; /* options kept as given (jobopts.c) */

    /* Job arrays (docs/arrays.md).  array_job_id is 0 for a plain job.
     * The array's first record (id == array_job_id) holds the tasks not
     * yet started in array_pending (owned) with array_task_id -1; a task
     * about to start is split off into a job of its own. */
    uint64_t array_job_id;
    int64_t array_task_id;
    struct arrayset *array_pending;
    uint32_t array_throttle;                                /* %N: 0 none */
    uint32_t array_count, array_min, array_max, array_step; /* as submitted */

    /* Dependencies: dep.n == 0 when none; dep_state is kept up to date
     * by jobdep.c when the jobs it names change state. */
    struct depend dep;
    enum dep_result dep_state;
    time_t dep_recheck;         /* an after+minutes comes due; 0: none */
    bool kill_invalid_dep;      /* cancel when it can never be satisfied */
    struct arrayset *dep_ready; /* aftercorr: the pending tasks met */
    size_t sched_slot;          /* scratch for the pass (1 + counter) */

    /* owned by the job table */
    struct job *hnext;
    struct job *prev, *next;   /* all jobs in id order */
    struct job *aprev, *anext; /* the unfinished ones, in id order */
    bool in_active;            /* on that list */
    bool dirty;                /* its record waits for the commit */
    struct job *fnext;         /* finished jobs, oldest first */
    /* 1 + its place among the unfinished arrays with pending tasks
     * (jobs_active_tasks), 0 when not among them */
    size_t parray_pos;
};

const char *job_state_name(enum job_state s);
/* job_on_node: s is a state in which the job holds its node's resources
 * (RUNNING, COMPLETING, SUSPENDED). */
bool job_on_node(enum job_state s);
/* job_suspended_s: the seconds j spent suspended in this run, until now. */
int64_t job_suspended_s(const struct job *j, time_t now);
/* job_state_parse: "PENDING" or "PD" etc. (case-insensitive); -1 EINVAL. */
int job_state_parse(const char *s, enum job_state *out);
bool job_state_final(enum job_state s);

/* job_reason: the state_reason text. */
const char *job_reason(const struct job *j);
/* job_set_reason: a static reason (NULL: "None"), dropping any text and
 * detail. */
void job_set_reason(struct job *j, const char *reason);
/* job_set_reason_detail: the long form of the reason (copied; NULL:
 * none), shown by scontrol show job and as state_description. */
void job_set_reason_detail(struct job *j, const char *detail);
/* job_set_reason_text: a reason built at run time (copied). */
void job_set_reason_text(struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* job_alloc_name: "salloc", "srun", or NULL for a batch job.
 * job_alloc_parse: the reverse; -1 with EINVAL for another name. */
const char *job_alloc_name(enum job_alloc a);
int job_alloc_parse(const char *s, enum job_alloc *out);

/* job_mem_per_node: MiB the job takes on each node. */
uint64_t job_mem_per_node(const struct job *j);

/* job_is_array_meta: j holds an array's not yet started tasks. */
bool job_is_array_meta(const struct job *j);
/* job_array_str: "123_4", "123_[5-99%10]" or "123" (caller frees). */
char *job_array_str(const struct job *j);

/* job_free: free j and everything it owns (accepts NULL). */
void job_free(struct job *j);

/*
 * job_to_json: the JOB object (docs/protocol.md).  With record set, a few
 * controller-internal fields are added so that job_from_json restores the
 * job exactly.  New reference, owned by the caller.
 */
json_t *job_to_json(const struct job *j, const struct conf *conf, bool record);
/* job_to_json_fields: the JOB object with the fields named in want (an
 * object whose keys are field names, borrowed) and job_id alone; the
 * others are not built.  New reference. */
json_t *job_to_json_fields(const struct job *j, const struct conf *conf,
                           const json_t *want);

/*
 * job_from_json: rebuild a job from its record (after a restart).  NULL
 * with EINVAL and e when the record does not fit the configuration (its
 * partition is gone, say).  The caller owns the job.
 */
struct job *job_from_json(json_t *o, const struct conf *conf, struct err *e);

/* job_alloc_list: "node[01-02]" for the job's allocation (caller frees). */
char *job_alloc_list(const struct job *j, const struct conf *conf);

#endif
