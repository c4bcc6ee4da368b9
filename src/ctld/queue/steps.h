/*
 * Job steps in the controller (docs/protocol.md, "Steps"): the batch
 * script as step "batch" (STEP_BATCH_ID) and each srun's step 0, 1, ...
 * of a job, with what each holds of its job's CPUs and GPUs on each node,
 * its state and the usage its nodes report.
 *
 *   (STEP_CREATE, or the job's start for the batch step) RUNNING
 *      --every node sent STEP_END--> COMPLETED | FAILED | CANCELLED |
 *                                    TIMEOUT | OUT_OF_MEMORY
 *      --a node refused the launch--> FAILED     (at once)
 *      --a node of the step died-->   NODE_FAIL  (at once)
 *      --its job ended-->             CANCELLED  (at once; "job ended: X")
 *   the batch step ends with its job: COMPLETED, FAILED, OUT_OF_MEMORY,
 *   NODE_FAIL as its job, CANCELLED when the job was killed or requeued
 *
 * A step that ended "at once" still takes its nodes' STEP_END, which fill
 * in its exit code and usage; one its job took with it that every node
 * reports ended by itself (no signal, nothing killed) takes the state
 * they report: its tasks had ended before the job, only their reports
 * had not arrived.  Every change is saved (table steps, schema
 * 6) in the iteration's transaction, like jobs.  The steps of unfinished
 * jobs are in memory (loaded at start); a finished step leaves memory
 * STEPS_DONE_KEEP_S after its end once every node reported, or
 * STEPS_LATE_S after it when some did not, and is then read from the
 * database.
 */
#ifndef SLUICE_CTLD_STEPS_H
#define SLUICE_CTLD_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "ctld/queue/jobs.h"

struct conf;
struct loop;
struct nodecmd;
struct nodes;
struct persist;
struct steps;

/* How long a finished step stays in memory after its end: for the late
 * STEP_END of nodes that have not reported, and for repeats of those
 * that have. */
#define STEPS_LATE_S 300
#define STEPS_DONE_KEEP_S 60

enum step_state {
    STEP_RUNNING,
    STEP_COMPLETED,
    STEP_FAILED,
    STEP_CANCELLED,
    STEP_TIMEOUT,
    STEP_OUT_OF_MEMORY,
    STEP_NODE_FAIL,
    STEP_STATE_COUNT
};

/* Why a running step is being killed: decides its final state. */
enum step_kill {
    STEP_KILL_NONE,
    STEP_KILL_CANCEL,   /* STEP_CANCEL or scancel 12.0: CANCELLED */
    STEP_KILL_TIMEOUT,  /* its own time limit: TIMEOUT */
    STEP_KILL_BAD_EXIT, /* srun -K and a task failed: FAILED */
    STEP_KILL_JOB,      /* its job ended first: CANCELLED, unless its
                           nodes report that it had ended by itself */
};

/* The step on one of its nodes. */
struct step_node {
    size_t node;     /* conf node index */
    uint32_t ntasks; /* its tasks there */
    uint32_t cpus;   /* CPUs it holds there (0: --overlap) */
    uint32_t n_gpus;
    uint32_t *gpus; /* GPU indices its tasks see there (owned) */
    bool gpus_held; /* ... and hold */
    bool reported;  /* STEP_END came */
    bool lost;      /* the node failed under a --no-kill step: its tasks
                       are given up, the step goes on without them */
    json_t *usage;  /* the latest USAGE (owned; NULL: none yet) */
};

struct step {
    uint64_t job_id;
    uint32_t step_id;
    char *name;
    enum step_state state;
    enum step_kill kill;
    /* of the job, so that the record stands alone in the database */
    uint32_t user_id;
    char *user_name, *partition, *account;
    time_t start_time, end_time;
    int64_t time_limit_s; /* -1: none of its own */
    uint32_t ntasks, cpus_per_task;
    uint64_t mem_mib;     /* per node; 0: not given */
    char *tasks_per_node; /* "4(x2)" */
    size_t n_nodes;
    struct step_node *nodes; /* in the job allocation's order */
    int32_t exit_code, signal;
    bool oom;
    bool kill_on_bad_exit; /* srun -K: a task's failure ends the step */
    bool no_kill;          /* srun -k: a failed node's tasks are given up,
                              the step goes on on its other nodes */
    bool node_killed;      /* a node reported that it killed the tasks */
    char *reason;          /* "" when none (owned) */
    json_t *usage_saved;   /* the aggregate read back from the record */
    time_t sampled_at;     /* the latest usage sample */
    struct step *next;     /* the job's steps in creation order */
};

/* What the table works with, given by the root; all borrowed. */
struct steps_env {
    const struct conf *conf;
    struct persist *persist;
    struct loop *loop;
    struct nodes *nodes;
    struct jobs *jobs;
    struct nodecmd *nodecmd;
};

/* steps_create: an empty table on env (copied); steps_destroy frees it
 * (accepts NULL). */
struct steps *steps_create(const struct steps_env *env);
void steps_destroy(struct steps *ss);
/* steps_load: the steps of unfinished jobs from the database, after
 * jobs_load.  -1 with e on a database error. */
int steps_load(struct steps *ss, struct err *e);

/* The job table's subscriber (jobs_subscribe, arg: the table): a batch
 * job's start makes its batch step; its end (or requeue) ends the batch
 * step with the job's exit and the job's other running steps. */
extern const struct jobs_events steps_job_events;

/* steps_find: the step in memory, or NULL. */
struct step *steps_find(struct steps *ss, uint64_t job_id, uint32_t step_id);
/* steps_first: the job's steps in memory (walk with ->next), or NULL. */
struct step *steps_first(struct steps *ss, uint64_t job_id);

const char *step_state_name(enum step_state s);
/* step_id_str: "12.0" or "12.batch" into buf. */
char *step_id_str(const struct step *s, char *buf, size_t len);

/*
 * steps_new (stepnew.c): STEP_CREATE req (the plan's body) from who:
 * lay the step out in its job's allocation, record it RUNNING, fill
 * *reply and send STEP_LAUNCH to each of its nodes.  -1 with errno and
 * e: ENOENT "Invalid job id specified", EPERM, EBUSY (job not running,
 * suspended, ending), EAGAIN "Requested nodes are busy", EINVAL (the
 * layout's reason, or a bad field).
 */
int steps_new(struct steps *ss, json_t *req, const struct auth_id *who,
              json_t **reply, struct err *e);
/* steps_launch_reply (stepnew.c): a node's reply to STEP_LAUNCH
 * (nodecmd_step_reply_fn, ctx: the table, installed by the root with
 * nodecmd_set_step_reply): a refusal fails the step ("launch failed on
 * node02: ...") and kills it on its other nodes. */
void steps_launch_reply(void *ctx, uint64_t arg, size_t node,
                        const char *error);

/*
 * steps_end: STEP_END body from node (conf index).  Late or repeated:
 * 0.  -1 with ENOENT for an unknown job or step, EINVAL for a bad body
 * or a node not of the step.
 */
int steps_end(struct steps *ss, size_t node, json_t *body, struct err *e);
/* steps_usage: STEP_USAGE body from node: its latest samples (kept in
 * memory only).  -1 with EINVAL for a bad body. */
int steps_usage(struct steps *ss, size_t node, json_t *body, struct err *e);
/* steps_batch_usage: JOB_END's usage (borrowed; NULL: none) of job_id's
 * batch script on node, for its batch step, before the job ends. */
void steps_batch_usage(struct steps *ss, uint64_t job_id, size_t node,
                       json_t *usage);

/*
 * steps_cancel: STEP_CANCEL by uid: signal 0 ends the step (STEP_KILL
 * reason cancelled to its nodes; CANCELLED when they report), another
 * signal goes to its tasks (STEP_SIGNAL).  -1 with ENOENT ("Invalid job
 * id specified", "Invalid step id specified"), EPERM, or EHOSTUNREACH.
 */
int steps_cancel(struct steps *ss, uint64_t job_id, uint32_t step_id,
                 int signal, uid_t uid, struct err *e);
/*
 * steps_signal_job: signal to the tasks of every running step of job_id
 * but its batch script (STEP_SIGNAL to each node), as Slurm's --signal
 * without B: does.  The number of steps signalled, or -1 with e when a
 * node could not be asked (the others still are).
 */
int steps_signal_job(struct steps *ss, uint64_t job_id, int signal,
                     struct err *e);

/*
 * steps_query: STEP_QUERY body: {"steps": [STEP...]} into *reply.
 * steps_of_job: every step of job_id, from memory and the database, batch
 * first then by id (a new array), or NULL with e.
 */
int steps_query(struct steps *ss, json_t *body, json_t **reply, struct err *e);
json_t *steps_of_job(struct steps *ss, uint64_t job_id, struct err *e);

/* step_to_json: the STEP object; with record, the fields that
 * steps_load needs too.  New reference. */
json_t *step_to_json(const struct step *s, const struct conf *conf,
                     bool record);

/* steps_node_down: node is gone: its running steps end NODE_FAIL ("node
 * node02 failed"), killed on their other nodes; a --no-kill step (srun
 * -k) whose job keeps its other nodes (jobs_node_keeps) goes on there
 * instead, the node marked lost, and ends NODE_FAIL when they report. */
void steps_node_down(struct steps *ss, size_t node, time_t now);
/* steps_job_node_lost: the same for job job_id's steps alone (its run
 * lost with a node that is back: it registered without the job, or
 * reported it lost with the machine). */
void steps_job_node_lost(struct steps *ss, uint64_t job_id, size_t node,
                         time_t now);
/* steps_tick: every second: steps' own time limits; finished steps
 * leave memory. */
void steps_tick(struct steps *ss, time_t now);

/*
 * For stepnew.c and stepend.c, the other files of the table:
 * steps_add: s (owned from now on; next_id decided by the caller through
 * steps_next_id) joins its job's steps.  steps_save: s's record in the
 * iteration's transaction.  steps_finish: s leaves RUNNING in state with
 * reason (NULL: none) at when.  steps_kill: STEP_KILL for s to its nodes
 * that have not reported (reason "cancelled", "timeout", ...), except
 * skip ((size_t)-1: none).
 */
uint32_t steps_next_id(struct steps *ss, uint64_t job_id);
void steps_add(struct steps *ss, struct step *s);
int steps_save(struct steps *ss, struct step *s, struct err *e);
void steps_finish(struct steps *ss, struct step *s, enum step_state state,
                  const char *reason, time_t when);
void steps_kill(struct steps *ss, struct step *s, const char *reason,
                size_t skip);
const struct steps_env *steps_env(const struct steps *ss);
/* step_free: s and what it owns (accepts NULL). */
void step_free(struct step *s);

/*
 * stepusage_aggregate (stepusage.c): the STEP object's "usage" from the
 * per-node USAGE objects of s (none: zeros), sampled at s->sampled_at.
 */
json_t *stepusage_aggregate(const struct step *s, const struct conf *conf);

#endif
