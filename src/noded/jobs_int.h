/*
 * Internals shared by jobs.c (the table, the spool scan, end reports) and
 * jobreq.c (the controller's launch, signal and kill requests), and read
 * by the step table (steps.c, stepreq.c: a step's job, its cgroup's CPUs
 * and fence, the reaping of supervisors).  Not for other modules.
 */
#ifndef SLUICE_NODED_JOBS_INT_H
#define SLUICE_NODED_JOBS_INT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "noded/jobs.h"
#include "noded/spool.h"
#include "noded/stepusage.h"
#include "noded/ucache.h"

enum njob_state {
    NJOB_LAUNCHING, /* supervisor forked, no report yet */
    NJOB_RUNNING,
    NJOB_ENDED, /* status written, end not yet acknowledged */
};

struct njob {
    struct njobs *jobs; /* the table it is in */
    uint32_t id;
    enum njob_state state;
    char *dir; /* spool/job.<id> */
    struct spool_pid sup;
    time_t gone_since;       /* supervisor seen gone without a status */
    pid_t pgid;              /* 0 when not known */
    struct spool_pid leader; /* the group's leader as recorded; pid 0: not */
    struct spool_status st;  /* when ENDED */
    cpu_set_t cpus;          /* its cpuset, when has_cpus */
    bool has_cpus;
    /* the run: the restart_count its launch gave (said back with its end,
     * so that the controller tells it from a later run of the job) */
    uint32_t restart_count;
    bool has_restart_count;
    bool end_sent; /* a JOB_END is waiting for its reply */
    bool end_failed_logged;
    bool mark;                   /* seen by the current scan */
    struct stepusage_task usage; /* the script's tree, sampled by sluiced
                                  * for STEP_USAGE (the batch step) */

    /* while LAUNCHING: the supervisor's report and the request to answer */
    int report_fd;
    struct event *report_ev;
    char rbuf[800];
    size_t rlen;
    uint64_t gen;
    uint32_t seq;
    int64_t t_recv_us, t_forked_us; /* CLOCK_MONOTONIC: stage stamps */

    /* kill: SIGKILL at kill_deadline (0: none) */
    struct event *kill_ev;
    int64_t kill_deadline;
    bool kill_pending; /* asked while LAUNCHING */
    uint32_t kill_wait_s;
};

struct njobs {
    struct noded *nd;
    struct njob **v;
    size_t n, cap;
    struct event *scan_ev;
    struct evconnlistener *notify;
    char *notify_path;
    struct ucache *users; /* the jobs' users, groups resolved (ucache.h) */
    /* supervisors forked by this sluiced, reaped on SIGCHLD */
    pid_t *kids;
    size_t n_kids, cap_kids;
    struct event *chld_ev;
};

/*
 * njobs_group_kill: sig to the job's process group (whole) or to its leader
 * alone, only while the leader is still the process recorded in the spool
 * (pid and start ticks): once the leader is gone the pgid may be another
 * process's, and is left alone (the cgroup reaches what remains).  -1 with
 * ESRCH when the group cannot be proved the job's.
 */
int njobs_group_kill(const struct njob *job, int sig, bool whole);

/*
 * njobs_launch_abandon: a launch that timed out: SIGKILL to its supervisor,
 * to the job's process group as recorded in job->dir/leader (also a job
 * process stopped before its exec, before any pgid was reported), and to
 * the job's cgroup (cg version NONE: none), which is then removed.
 */
void njobs_launch_abandon(const struct cgroup *cg, struct njob *job);

/* njobs_reap_add: pid is a child of this process (a supervisor), to be
 * reaped when it ends; only these are waited for, never another's. */
void njobs_reap_add(struct njobs *j, pid_t pid);

struct njob *njobs_find(struct njobs *j, uint32_t id);
/* njobs_add: a new entry (state LAUNCHING, no events); owned by j. */
struct njob *njobs_add(struct njobs *j, uint32_t id);
/* njobs_forget: drop the entry and its events; the spool is untouched. */
void njobs_forget(struct njobs *j, struct njob *job);
/* njobs_adopt: take job id into the table from its spool directory (running
 * or ended), if it has one; debris of a launch cut short is removed. */
void njobs_adopt(struct njobs *j, uint32_t id);

/* njobs_check: look at a running job's spool again: ended (status),
 * lost (supervisor gone without one), or still running; reports ends. */
void njobs_check(struct njobs *j, struct njob *job);
/* njobs_send_end: JOB_END for an ended job, when registered. */
void njobs_send_end(struct njobs *j, struct njob *job);

/*
 * What jobs and steps share about their spool directories and ends; what
 * ("job=5", "step=5.0") names the job or step in the logs.
 *
 * njobs_unrecorded: dir has no supervisor.pid: wait for a supervisor
 * still recording itself (it holds the directory's lock until it has).
 * 0 with *sup once it has; -1 when it has not yet, or when the lock is
 * free and no pid came: what a sluiced that died while launching left,
 * removed here so that the job or step can be launched again.
 */
int njobs_unrecorded(const char *what, const char *dir, struct spool_pid *sup);
/* njobs_end_settled: whether the controller's reply (code, message) to an
 * end report (JOB_END, STEP_END) settles it: taken (0) or refused for
 * good (ENOENT, ESRCH, EINVAL: logged).  A lost connection does not (the
 * end is sent again), nor does another refusal: logged once, through
 * *warned. */
bool njobs_end_settled(const char *what, int code, const char *message,
                       bool *warned);

/* njobs_kill: SIGCONT and SIGTERM to the job's process group now, SIGKILL
 * after wait_s (recorded in the spool, so a restarted sluiced keeps the
 * deadline). */
void njobs_kill(struct njobs *j, struct njob *job, uint32_t wait_s,
                const char *reason);
/* njobs_kill_arm: (re)schedule the SIGKILL of job->kill_deadline. */
void njobs_kill_arm(struct njobs *j, struct njob *job);

/* njobs_pick_cpus: want CPUs for a job's cpuset, the least used first
 * (counting the running jobs'); false when cores are not fenced. */
bool njobs_pick_cpus(struct njobs *j, uint32_t want, cpu_set_t *out);

/* njobs_fence_gpus: with ConstrainDevices, the node's GPU devices not in
 * gpus go into s->deny (new array, caller frees); true when all of gpus
 * are fenced devices (then they are counted from 0 in the job). */
bool njobs_fence_gpus(const struct noded *nd, const uint32_t *gpus,
                      size_t n_gpus, struct cgroup_job_spec *s);

/* njobs_run_of: the restart_count of job's run (*restart_count), from
 * its launch when this daemon launched it, else from the status its
 * supervisor wrote; false when neither says. */
bool njobs_run_of(const struct njob *job, uint32_t *restart_count);

#endif
