/*
 * Allocation jobs for salloc and srun: SUBMIT, then JOB_QUERY with a short
 * backoff until the job runs, with Slurm's progress lines, and JOB_CANCEL
 * when a signal withdraws the request.
 */
#include "cli/alloc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define ALLOC_PREFIX "Unable to allocate resources: "

int alloc_backoff_next(int delay_ms, int max_ms)
{
    if (delay_ms < 1)
        return 1;
    return delay_ms > max_ms / 2 ? max_ms : delay_ms * 2;
}

void alloc_init(struct alloc *a, const char *prog, struct cli_client *client,
                int sig_fd, bool quiet)
{
    memset(a, 0, sizeof(*a));
    a->prog = prog;
    a->client = client;
    a->sig_fd = sig_fd;
    a->quiet = quiet;
}

void alloc_clear(struct alloc *a)
{
    json_decref(a->job);
    free(a->reason);
    a->job = NULL;
    a->reason = NULL;
}

static void alloc_say(const struct alloc *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void alloc_say(const struct alloc *a, const char *fmt, ...)
{
    va_list ap;

    if (a->quiet)
        return;
    fflush(stdout);
    fprintf(stderr, "%s: ", a->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *alloc_strip_prefix(const char *text)
{
    size_t n = strlen(ALLOC_PREFIX);

    return strncmp(text, ALLOC_PREFIX, n) == 0 ? text + n : text;
}

int alloc_submit(struct alloc *a, json_t *job, struct err *e)
{
    json_t *req, *reply = NULL;
    bool transport = false;
    json_int_t id;
    int rc;

    /* "immediate" rides in the JOBSPEC (as test_only does) and beside it,
     * so that either reading of the protocol sees it. */
    req = json_pack("{s:O}", "job", job);
    if (json_is_true(json_object_get(job, "immediate")))
        json_object_set_new(req, "immediate", json_true());
    rc = cli_client_call(a->client, PROTO_MSG_SUBMIT, req, &reply, &transport,
                         e);
    json_decref(req);
    if (rc < 0) {
        if (transport)
            errno = EPIPE;
        else
            memmove(e->text, alloc_strip_prefix(e->text),
                    strlen(alloc_strip_prefix(e->text)) + 1);
        return -1;
    }
    id = json_integer_value(json_object_get(reply, "job_id"));
    json_decref(reply);
    if (id <= 0 || id > UINT32_MAX) {
        errno = EBADMSG;
        return err_set(e, "SUBMIT's reply has no job id");
    }
    a->job_id = (uint32_t)id;
    return 0;
}

json_t *alloc_query(struct alloc *a, struct err *e)
{
    json_t *req, *reply = NULL, *job;

    req = json_pack("{s:[I]}", "job_ids", (json_int_t)a->job_id);
    if (cli_client_call(a->client, PROTO_MSG_JOB_QUERY, req, &reply, NULL, e) <
        0) {
        json_decref(req);
        return NULL;
    }
    json_decref(req);
    cli_escape_json(reply);
    job = json_incref(json_array_get(json_object_get(reply, "jobs"), 0));
    json_decref(reply);
    if (job == NULL) {
        errno = ENOENT;
        err_set(e, "job %u is no longer known", a->job_id);
    }
    return job;
}

void alloc_cancel(struct alloc *a)
{
    json_t *req, *reply = NULL;
    struct err e;

    if (a->job_id == 0 || a->client == NULL)
        return;
    req = json_pack("{s:[I]}", "job_ids", (json_int_t)a->job_id);
    (void)cli_client_call(a->client, PROTO_MSG_JOB_CANCEL, req, &reply, NULL,
                          &e);
    json_decref(req);
    json_decref(reply);
}

bool alloc_state_is_live(const char *state)
{
    return state != NULL &&
           (strcmp(state, "RUNNING") == 0 || strcmp(state, "SUSPENDED") == 0);
}

char *alloc_preempted_line(json_t *job, char *buf, size_t len)
{
    json_t *by = json_object_get(job, "preempted_by");
    json_int_t other = json_integer_value(json_object_get(by, "job_id"));
    const char *part = json_string_value(json_object_get(by, "partition"));

    if (!json_is_object(by) || other <= 0)
        return NULL;
    if (part != NULL && part[0] != '\0')
        snprintf(buf, len, "job %lld was preempted by job %lld (partition %s)",
                 (long long)json_integer_value(json_object_get(job, "job_id")),
                 (long long)other, part);
    else
        snprintf(buf, len, "job %lld was preempted by job %lld",
                 (long long)json_integer_value(json_object_get(job, "job_id")),
                 (long long)other);
    return buf;
}

char *alloc_pending_line(json_t *job, char *buf, size_t len)
{
    const char *why = json_string_value(json_object_get(job, "state_reason"));
    const char *detail =
        json_string_value(json_object_get(job, "state_description"));
    long long id =
        (long long)json_integer_value(json_object_get(job, "job_id"));

    if (why == NULL || why[0] == '\0' || strcmp(why, "None") == 0)
        return NULL;
    if (detail != NULL && detail[0] != '\0')
        snprintf(buf, len, "job %lld pending: Reason=%s (%s)", id, why, detail);
    else
        snprintf(buf, len, "job %lld pending: Reason=%s", id, why);
    return buf;
}

/* A pending job: "queued and waiting" once, and the reason when it
 * changes. */
static void alloc_pending(struct alloc *a, int64_t waited_ms)
{
    char line[1024];
    const char *why = alloc_pending_line(a->job, line, sizeof(line));

    if (!a->queued && (why != NULL || waited_ms >= ALLOC_QUEUED_AFTER_MS)) {
        alloc_say(a, "job %u queued and waiting for resources", a->job_id);
        a->queued = true;
    }
    if (why == NULL || (a->reason != NULL && strcmp(a->reason, why) == 0))
        return;
    alloc_say(a, "%s", why);
    free(a->reason);
    a->reason = xstrdup(why);
}

/* Wait ms for a signal; the signal that withdraws the request, or 0. */
static int alloc_sleep(const struct alloc *a, int ms)
{
    struct pollfd p = {.fd = a->sig_fd, .events = POLLIN};
    unsigned char b;

    if (a->sig_fd < 0) {
        poll(NULL, 0, ms);
        return 0;
    }
    if (poll(&p, 1, ms) <= 0)
        return 0;
    while (read(a->sig_fd, &b, 1) == 1)
        if (b == SIGINT || b == SIGTERM || b == SIGHUP || b == SIGQUIT)
            return b;
    return 0;
}

enum alloc_result alloc_wait(struct alloc *a, struct err *e)
{
    int64_t start = clock_mono_ms();
    int delay = ALLOC_POLL_FIRST_MS;
    const char *state;

    for (;;) {
        json_decref(a->job);
        if ((a->job = alloc_query(a, e)) == NULL)
            return errno == ENOENT ? ALLOC_ENDED : ALLOC_ERROR;
        state = json_string_value(json_object_get(a->job, "job_state"));
        if (alloc_state_is_live(state)) {
            if (a->queued)
                alloc_say(a, "job %u has been allocated resources", a->job_id);
            return ALLOC_STARTED;
        }
        if (state == NULL || strcmp(state, "PENDING") != 0)
            return ALLOC_ENDED;
        alloc_pending(a, clock_mono_ms() - start);
        if ((a->signal = alloc_sleep(a, delay)) != 0) {
            alloc_cancel(a);
            return ALLOC_CANCELLED;
        }
        if (a->wait_s > 0 && clock_mono_ms() - start >= a->wait_s * 1000LL) {
            alloc_cancel(a);
            return ALLOC_TIMEDOUT;
        }
        delay = alloc_backoff_next(delay, ALLOC_POLL_MAX_MS);
    }
}
