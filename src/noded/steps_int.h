/*
 * Internals shared by steps.c (the table, the spool scan, end and usage
 * reports) and stepreq.c (the controller's requests).  Not for other
 * modules.
 */
#ifndef SLUICE_NODED_STEPS_INT_H
#define SLUICE_NODED_STEPS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>
#include <jansson.h>

#include "noded/spool.h"
#include "noded/steps.h"

enum nstep_state {
    NSTEP_LAUNCHING, /* supervisor forked, no report yet */
    NSTEP_RUNNING,
    NSTEP_ENDED, /* status written, end not yet acknowledged */
};

struct nstep {
    struct nsteps *steps;
    uint32_t job_id, step_id, node_id;
    enum nstep_state state;
    char *dir;
    struct spool_pid sup, leader; /* leader.pid is the tasks' pgid */
    time_t gone_since;
    json_t *status; /* when ENDED */
    bool end_sent, end_failed_logged, mark;

    /* while LAUNCHING */
    int report_fd;
    struct event *report_ev;
    char rbuf[800];
    size_t rlen;
    uint64_t gen;
    uint32_t seq;
    bool kill_pending;
    char kill_reason[32];
    uint32_t kill_wait_s;
};

struct nsteps {
    struct noded *nd;
    struct nstep **v;
    size_t n, cap;
    struct event *scan_ev, *usage_ev;
};

struct nstep *nsteps_find(struct nsteps *s, uint32_t job_id, uint32_t step_id);
/* nsteps_add: a new entry (LAUNCHING, no events); owned by s. */
struct nstep *nsteps_add(struct nsteps *s, uint32_t job_id, uint32_t step_id);
/* nsteps_forget: drop the entry; the spool is untouched. */
void nsteps_forget(struct nsteps *s, struct nstep *st);
/* nsteps_adopt: take the step into the table from its spool directory. */
void nsteps_adopt(struct nsteps *s, uint32_t job_id, uint32_t step_id);
/* nsteps_check: a running step ended (status), was lost, or runs on. */
void nsteps_check(struct nsteps *s, struct nstep *st);

/*
 * nsteps_tell: line to the step supervisor's ctl socket ("signal N",
 * "kill REASON WAIT_S").  -1 with errno when it cannot be reached (gone,
 * or ending).
 */
int nsteps_tell(const struct nstep *st, const char *line);
/* nsteps_kill_group: sig to the step's process group while its leader is
 * the recorded process, and to its cgroup; -1 with ESRCH when neither. */
int nsteps_kill_group(struct nsteps *s, const struct nstep *st, int sig);
/* nsteps_kill: STEP_KILL's work on one step. */
void nsteps_kill(struct nsteps *s, struct nstep *st, const char *reason,
                 uint32_t wait_s);

/* nsteps_job_cgroup_release: remove the job's cgroup when none of its
 * steps is left and no batch script of the job runs here. */
void nsteps_job_cgroup_release(struct nsteps *s, uint32_t job_id);

#endif
