/*
 * The job table and the job state machine:
 *
 *   PENDING --start--> RUNNING --JOB_END--> COMPLETED | FAILED
 *      |                  |  (suspend, resume: SUSPENDED, jobsusp.h)
 *      |                  |  (killed by cancel) -> CANCELLED
 *      |                  |  (killed at its time limit) -> TIMEOUT
 *      |                  +--node down / lost--> NODE_FAIL
 *      +--cancel--> CANCELLED
 *
 * Every transition is written to the database (the job's record and an
 * accounting event) in the iteration's transaction, and logged.  Jobs are
 * kept in id order; finished ones stay in memory up to JOBS_FINISHED_KEEP
 * and are then served from the database.
 */
#ifndef SLUICE_CTLD_JOBS_H
#define SLUICE_CTLD_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "ctld/job/job.h"

struct acct;
struct jlimits;
struct jobs;
struct loop;
struct nodecmd;
struct nodes;
struct part;
struct parts;
struct persist;
struct resvs;

/* Finished jobs kept in memory for queries; older ones are in SQLite. */
#define JOBS_FINISHED_KEEP 10000

/* A time limit of this many seconds (a century) or more is no limit
 * (INFINITE), so that a start time plus the limit cannot overflow. */
#define JOBS_TIME_LIMIT_MAX_S (INT64_C(100) * 366 * 86400)

/*
 * What the table works with, given by the root (ctld.c).  Every pointer
 * is borrowed and must outlive the table.
 */
struct jobs_env {
    const struct conf *conf;
    struct persist *persist; /* job records, events, payloads */
    struct loop *loop;       /* a change's transaction, the pass it asks */
    struct acct *acct;       /* operators, associations */
    struct parts *parts;     /* partitions as changed at run time */
    struct nodes *nodes;     /* what a job is charged to */
    struct jlimits *limits;  /* resource limits, charged by transitions */
    struct resvs *resv;      /* reservations (--reservation); may be NULL */
    /* Tests only: time limits and --signal times are divided by this
     * (SLUICE_TEST_TIME_DIVISOR); 0 counts as 1. */
    uint32_t time_divisor;
};

/* jobs_create: an empty table (jobs_load fills it) on env (copied). */
struct jobs *jobs_create(const struct jobs_env *env);
/*
 * jobs_set_nodecmd: the requests to node daemons (kill, signal, freeze)
 * go through nc.  nodecmd_create takes the table (its replies end in job
 * transitions), so one of the two must meet the other after both exist;
 * the table is handed nc because creating and loading it sends nothing.
 * Called by the root before anything else uses the table but jobs_load.
 */
void jobs_set_nodecmd(struct jobs *js, struct nodecmd *nc);
/* jobs_set_steps: the step table, which --signal without B: reaches
 * (jobs_warn); set by the root once both exist. */
struct steps;
void jobs_set_steps(struct jobs *js, struct steps *ss);
/*
 * jobs_warn: j's --signal notice now (its time limit is near, or it is
 * being preempted): with B: to the batch shell alone, else to every step
 * but the batch script (Slurm: "all job steps ... but not the batch shell
 * itself"), which is none when the job runs no srun.  -1 with e.
 */
int jobs_warn(struct jobs *js, struct job *j, struct err *e);
/* jobs_destroy: frees every job (accepts NULL). */
void jobs_destroy(struct jobs *js);

/*
 * jobs_load: read unfinished jobs and recent finished ones from the
 * database and the next job id; charge running jobs to their nodes.  A
 * record that no longer fits the configuration is logged and skipped.
 */
int jobs_load(struct jobs *js, struct err *e);

/* jobs_dep: the dependency index (jobdep.h). */
struct jobdep *jobs_dep(struct jobs *js);
/* jobs_env: what the table was created with, for the other files of
 * queue/ (jobspec.c, jobsusp.c, ...). */
const struct jobs_env *jobs_env(const struct jobs *js);
/* jobs_nodecmd: the requests to node daemons (jobs_set_nodecmd). */
struct nodecmd *jobs_nodecmd(const struct jobs *js);
/* jobs_active: job records not yet finished. */
size_t jobs_active(const struct jobs *js);
/* jobs_active_tasks: jobs not yet finished, each task of an array that
 * waits in its compact pending record counted as one, as Slurm counts
 * them for MaxJobCount.  Walks only the unfinished arrays. */
size_t jobs_active_tasks(const struct jobs *js);
/*
 * jobs_save_event: save j's record and an accounting event (NULL: none)
 * after a change of j now; jobs_save_at: after a change at when.  Like
 * every transition, it is told to the subscribers first.
 */
int jobs_save_event(struct jobs *js, struct job *j, const char *event,
                    const char *detail, struct err *e);
int jobs_save_at(struct jobs *js, struct job *j, const char *event,
                 const char *detail, time_t when, struct err *e);

/*
 * What the table tells its subscribers.  Every change of a job passes
 * through the one place that writes its record, which calls them, in the
 * order they subscribed, before the record is written, so that what a
 * subscriber sets in j (its priority) is saved with it.  Either may be
 * NULL.
 *
 * job_event: j changed at when (j as it now stands).  what is the
 * change's accounting event: "submit" (the record's first write; a task
 * split off an array too), "start", "hold", "release", "eligible",
 * "update", "requeue", "cancel" (a pending job ends, or a running one is
 * told to), "end", "fail", "node_fail", "preempt", "suspend", "resume",
 * "timeout", "signal", "checkpoint"; or NULL for a change that has none
 * (a dependency judged, the launch confirmed, a partition's limits).
 * job_ended: j left its nodes for good at when (it ended; a requeued job
 * is not ended); called just before job_event for the same change.
 */
struct jobs_events {
    void (*job_event)(void *arg, struct job *j, const char *what, time_t when);
    void (*job_ended)(void *arg, struct job *j, time_t when);
};

/* jobs_subscribe: ev and arg (borrowed; they must outlive their use by
 * js) hear of every change from now on.  Loading (jobs_load) tells no
 * one: a subscriber that needs the loaded jobs walks them itself. */
void jobs_subscribe(struct jobs *js, const struct jobs_events *ev, void *arg);

struct job *jobs_find(struct jobs *js, uint64_t id);
/* jobs_first: the lowest id; walk on with j->next. */
struct job *jobs_first(struct jobs *js);
/* jobs_first_active: the unfinished job (PENDING, or holding its nodes)
 * with the lowest id; walk on with j->anext.  Only the unfinished jobs,
 * so that a scheduling pass costs what the queue holds, not the up to
 * JOBS_FINISHED_KEEP finished jobs kept for squeue and sacct.  A job
 * leaves this list when it finishes: a walker must not end a job. */
struct job *jobs_first_active(struct jobs *js);
/* jobs_after: the first job with id > id (for paging). */
struct job *jobs_after(struct jobs *js, uint64_t id);
size_t jobs_count(const struct jobs *js);
/* jobs_suspended: how many jobs are SUSPENDED; jobsusp.c counts its
 * transitions with jobs_suspended_add (+1 suspended, -1 resumed). */
size_t jobs_suspended(const struct jobs *js);
void jobs_suspended_add(struct jobs *js, int delta);

/*
 * jobs_submit (jobspec.c): validate spec (a JOBSPEC) for the sender
 * (who), create the job and fill *reply ({"job_id": N}).  -1 with EINVAL (or
 * EPERM, ENOSPC...) and a message for the user on a bad spec; a spec
 * with test_only is refused (EINVAL): it goes to jobs_submit_test.
 */
int jobs_submit(struct jobs *js, json_t *spec, const struct auth_id *who,
                json_t **reply, struct err *e);
/*
 * jobs_submit in two halves, for SUBMIT "immediate", which decides
 * between them whether the job is kept.  jobs_submit_parse: the pending
 * job spec makes (not in the table; the caller frees it with job_free
 * unless it inserts it) and in *payload its stored payload (caller
 * frees), or NULL as jobs_submit fails.  jobs_submit_insert: j (owned by
 * the table from now on, freed on failure) inserted as jobs_submit does.
 */
struct job *jobs_submit_parse(struct jobs *js, json_t *spec,
                              const struct auth_id *who, char **payload,
                              struct err *e);
int jobs_submit_insert(struct jobs *js, struct job *j, const char *payload,
                       json_t **reply, struct err *e);
/*
 * jobs_submit_test (jobspec.c): for --test-only: validate spec as
 * jobs_submit does, but not against the QOS and association limits, and
 * create nothing: the pending job it would be (not in the table, no id;
 * the caller frees it with job_free), or NULL with errno and e.
 */
struct job *jobs_submit_test(struct jobs *js, json_t *spec,
                             const struct auth_id *who, struct err *e);

/*
 * jobs_node_filter (jobspec.c): the node_allowed array for -w/-x
 * (NULL when both are NULL), or -1 with e naming a bad host name.
 */
int jobs_node_filter(const struct conf *conf, const char *nodelist,
                     const char *exclude, bool **allowed, struct err *e);

/*
 * jobs_insert_new: give j (owned by the table from now on) the next job
 * id, save it with its payload (script, argv, environment as JSON text)
 * and a "submit" event.  -1 with e on a database error (j is freed).
 */
int jobs_insert_new(struct jobs *js, struct job *j, const char *payload,
                    struct err *e);

/*
 * jobs_check_fit (jobspec.c): can j ever run in partition part?  -1 with
 * EINVAL and e such as "requested 64 CPUs per node but the largest node
 * in partition dev has 16".
 */
int jobs_check_fit(const struct conf *conf, const struct part *p,
                   const struct job *j, struct err *e);

/*
 * jobs_part_changed: partition part changed at run time (MaxTime,
 * MinNodes, MaxNodes): its pending jobs are held with PartitionTimeLimit
 * or PartitionNodeLimit, or let go, as they now fit.
 */
void jobs_part_changed(struct jobs *js, size_t part);

/* Transitions.  jobs_start_gpus also gives j the GPU indices gpus
 * (j->gpus_per_node for each node, in nodes order; NULL: none). */
int jobs_start(struct jobs *js, struct job *j, const size_t *nodes,
               size_t nnodes, time_t now, struct err *e);
int jobs_start_gpus(struct jobs *js, struct job *j, const size_t *nodes,
                    size_t nnodes, const uint32_t *gpus, time_t now,
                    struct err *e);
/* What a node reports of a job's end (JOB_END, or an ended job listed in
 * NODE_REGISTER). */
struct job_end {
    int exit_code;
    int signal;
    time_t end; /* <= 0: now */
    bool oom;   /* the job's cgroup saw an out-of-memory kill */
};

/* jobs_ended: the node says the job ended as r says. */
int jobs_ended(struct jobs *js, struct job *j, const struct job_end *r,
               struct err *e);
/* jobs_fail: end j now in state (NODE_FAIL, FAILED) with a reason. */
int jobs_fail(struct jobs *js, struct job *j, enum job_state state,
              const char *reason, time_t now, struct err *e);
/*
 * jobs_requeue_run: j's run is over and j may run again (a preempted or
 * scontrol-requeued job whose node reported the end; a run lost with its
 * node, queue/jobfence.h): its resources are freed and it waits again as
 * PENDING (held if the requeue asked for it), keeps its submit time,
 * counts a restart; a "requeue" event with why.
 */
int jobs_requeue_run(struct jobs *js, struct job *j, const char *why,
                     struct err *e);

/*
 * jobs_fence_hold: j, fenced on its lost run's batch host (jobfence.h),
 * keeps what that run held there: cpus, mem_mib and the n GPU indices
 * gpus (copied) stay charged to node j->fence_node until
 * jobs_fence_release (the fence lifts, or j ends), so that no other job
 * is started on what the old run may still be using.  Saved with j.
 * jobs_fence_release: give it back (nothing when j holds nothing).
 */
void jobs_fence_hold(struct jobs *js, struct job *j, uint32_t cpus,
                     uint64_t mem_mib, const uint32_t *gpus, uint32_t n);
void jobs_fence_release(struct jobs *js, struct job *j);
/* jobs_held_cpus: the CPUs j holds on each of its nodes now (none while
 * it is suspended). */
uint32_t jobs_held_cpus(const struct job *j);
/* jobs_launched: j's node confirmed that it holds j (saved once). */
void jobs_launched(struct jobs *js, struct job *j);
/*
 * jobs_unstart: j is RUNNING but was never launched (its node registered
 * without it before confirming the launch: the controller or the
 * connection went down in between).  j never ran, so it waits again as
 * PENDING (a "launch_lost" event; no restart is counted), or ends
 * CANCELLED when a cancel came meanwhile.
 */
int jobs_unstart(struct jobs *js, struct job *j, const char *why,
                 struct err *e);

/*
 * Requests on one job by uid.  -1 with errno and e for that job alone
 * ("Access/permission denied", "Job is not pending"); the job is then
 * untouched.  signal 0 in jobs_cancel means cancel; else only signal it.
 */
int jobs_cancel(struct jobs *js, struct job *j, uid_t uid, int signal,
                struct err *e);
int jobs_hold(struct jobs *js, struct job *j, uid_t uid, struct err *e);
/*
 * jobs_requeue: scontrol requeue[hold] of a running or suspended batch
 * job, by its owner or an operator: killed (reason "requeued"), and once
 * its node reports the end it is PENDING again with restart_count + 1,
 * held by its user when hold.  Refused with Slurm's errors: "Job is
 * pending execution", "Requested operation is presently disabled" (it
 * may not be requeued: --no-requeue), "Only batch jobs are accepted or
 * processed", "Job/step already completing or completed".
 */
int jobs_requeue(struct jobs *js, struct job *j, uid_t uid, bool hold,
                 struct err *e);
int jobs_release(struct jobs *js, struct job *j, uid_t uid, struct err *e);
int jobs_update(struct jobs *js, struct job *j, uid_t uid, json_t *set,
                struct err *e);

/*
 * jobs_eligible: j may start from now on (nothing holds it: hold,
 * BeginTime, partition limits, dependency): set its eligible_time (the
 * start of its age) and record an "eligible" event, once.
 */
int jobs_eligible(struct jobs *js, struct job *j, time_t now, struct err *e);

/* jobs_may_act: owner, uid 0 or the controller's uid. */
bool jobs_may_act(const struct jobs *js, const struct job *j, uid_t uid);

/* jobs_tick: every second: time limits, and BeginTime jobs come due. */
void jobs_tick(struct jobs *js, time_t now);

/*
 * jobs_on_node: the RUNNING jobs allocated on node idx (batch_only: those
 * whose batch host it is), as a new array the caller frees; *n is its
 * length.
 */
struct job **jobs_on_node(struct jobs *js, size_t idx, bool batch_only,
                          size_t *n);
/*
 * jobs_node_keeps: whether j goes on when node idx fails: a --no-kill job
 * (j->no_kill) running or suspended on other nodes too, idx not its batch
 * host (the batch script dies with its node; an allocation has none).
 */
bool jobs_node_keeps(const struct jobs *js, const struct job *j, size_t idx);
/* jobs_node_down: the node is gone; its jobs' runs are lost with it
 * (jobfence_lost: requeued, or NODE_FAIL), but those that jobs_node_keeps
 * lose the node from their allocation (its CPUs, memory and GPUs freed;
 * NodeList without it) and go on. */
void jobs_node_down(struct jobs *js, size_t idx, const char *why, time_t now);

/*
 * jobs_preempt: the scheduler preempts running j for job by_job: a
 * "preempt" event naming by_job, and JOB_KILL with reason "preempted"
 * (SIGCONT and SIGTERM, then SIGKILL after grace_s seconds, or KillWait
 * when grace_s is 0).  When its node reports the end, j ends PREEMPTED,
 * or with requeue waits again as PENDING (restart_count + 1, a "requeue"
 * event, its submit time kept).  -1 with EBUSY when j is not running.
 */
int jobs_preempt(struct jobs *js, struct job *j, uint64_t by_job, bool requeue,
                 uint32_t grace_s, struct err *e);

/* jobs_preempted_by: j was preempted (or suspended) for job by_job:
 * recorded on j with by_job's partition (saved with j's next change). */
void jobs_preempted_by(struct jobs *js, struct job *j, uint64_t by_job);

/* jobs_kill: send JOB_KILL for j to its batch host (reason "cancelled",
 * "timeout", ...); a job whose node cannot be reached is left to the node
 * timeout or the next registration. */
void jobs_kill(struct jobs *js, struct job *j, const char *reason);
/* jobs_kill_wait: the same with SIGKILL wait_s seconds after SIGTERM. */
void jobs_kill_wait(struct jobs *js, struct job *j, const char *reason,
                    uint32_t wait_s);

#endif
