/*
 * Allocation jobs (docs/protocol.md, "Allocations"), the part salloc and
 * srun-without-a-job share: submit the JOBSPEC ("alloc": "salloc" or
 * "srun"), wait for the job to start while saying what Slurm says, and
 * cancel it when the user gives up.
 */
#ifndef SLUICE_CLI_ALLOC_H
#define SLUICE_CLI_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cli/client.h"
#include "common/err.h"

/* JOB_QUERY's backoff while a job is pending: 1 ms doubling to 200 ms,
 * so that an idle cluster starts the job in milliseconds. */
#define ALLOC_POLL_FIRST_MS 1
#define ALLOC_POLL_MAX_MS 200
/* Pending this long (or with a reason from the scheduler) is "queued". */
#define ALLOC_QUEUED_AFTER_MS 1000

/* alloc_backoff_next: the delay after delay_ms: doubled, at most max_ms,
 * at least 1. */
int alloc_backoff_next(int delay_ms, int max_ms);

/* How a wait ended. */
enum alloc_result {
    ALLOC_STARTED,   /* the job runs: a->job */
    ALLOC_CANCELLED, /* a signal: the job was cancelled (JOB_CANCEL) */
    ALLOC_ENDED,     /* it ended before it started (cancelled by someone) */
    ALLOC_TIMEDOUT,  /* -I SECS passed: the job was cancelled */
    ALLOC_ERROR,     /* the controller stopped answering: e */
};

struct alloc {
    const char *prog;          /* "salloc", "srun" or "sluice": for messages */
    bool quiet;                /* -Q: no informational lines */
    struct cli_client *client; /* borrowed */
    int sig_fd;      /* bytes are caught signals (srun_signals_init's);
                       * -1: none */
    int wait_s;      /* -I SECS: give up after; <= 0: wait for ever */
    uint32_t job_id; /* from SUBMIT */
    json_t *job;     /* the last JOB object seen (owned) */
    char *reason;    /* the last reason said (owned) */
    bool queued;     /* "queued and waiting" was said */
    int signal;      /* the signal that ended the wait */
};

/* alloc_init: a zeroed alloc for prog on client. */
void alloc_init(struct alloc *a, const char *prog, struct cli_client *client,
                int sig_fd, bool quiet);
/* alloc_clear: free what a holds (not the client). */
void alloc_clear(struct alloc *a);

/*
 * alloc_submit: SUBMIT job (borrowed; "immediate": true in it asks for a
 * start now or nothing) and keep the job id.  An error reply is -1 with
 * errno and the controller's text in e, with Slurm's "Unable to allocate
 * resources: " taken off when the controller put it there; a transport
 * failure is -1 with EPIPE.
 */
int alloc_submit(struct alloc *a, json_t *job, struct err *e);

/*
 * alloc_wait: poll the job until it starts, saying "P: job N queued and
 * waiting for resources" once it waits (a reason from the scheduler, or
 * ALLOC_QUEUED_AFTER_MS pending), "P: job N pending: Reason=R (DETAIL)"
 * whenever the reason changes, and "P: job N has been allocated
 * resources" when it started after waiting.  A signal on sig_fd (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT) cancels the job.
 */
enum alloc_result alloc_wait(struct alloc *a, struct err *e);

/* alloc_cancel: JOB_CANCEL the job (best effort, errors ignored). */
void alloc_cancel(struct alloc *a);

/* alloc_query: the job's JOB object now (new reference) or NULL with e
 * (ENOENT when the controller no longer knows it). */
json_t *alloc_query(struct alloc *a, struct err *e);

/* alloc_state_is_live: a job in this state still holds its allocation
 * (RUNNING, SUSPENDED). */
bool alloc_state_is_live(const char *state);

/*
 * alloc_preempted_line: "job N was preempted by job M (partition P)" from
 * a JOB object whose "preempted_by" says so, into buf; NULL when it has
 * none.
 */
char *alloc_preempted_line(json_t *job, char *buf, size_t len);

/* alloc_pending_line: "job N pending: Reason=R (DETAIL)" into buf, for a
 * JOB object; NULL when its reason is "None" or absent. */
char *alloc_pending_line(json_t *job, char *buf, size_t len);

/* alloc_strip_prefix: text without a leading "Unable to allocate
 * resources: " (the controller's immediate refusal carries it). */
const char *alloc_strip_prefix(const char *text);

#endif
