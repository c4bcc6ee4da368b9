/*
 * srun outside a job: first an allocation job ("alloc": "srun") made from
 * srun's own options, waited for with Slurm's lines (cli/alloc.c); then
 * step 0 runs in it as in any job, and the controller ends the job when
 * that step ends.  Until the step exists the job is srun's to cancel.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/alloc.h"
#include "cli/client.h"
#include "cli/jobspec.h"
#include "cli/srun.h"
#include "common/clock.h"
#include "common/xalloc.h"

/* How long srun looks for the job's end after a failed step, to say that
 * it was preempted. */
#define SRUN_ALLOC_END_WAIT_MS 2000

struct srun_alloc {
    struct alloc a;
    json_t *spec;
    bool quiet;
};

json_t *srun_alloc_spec(const struct srun_opts *o, const char *cwd,
                        struct err *e)
{
    const char *base = o->n_cmd > 0 ? strrchr(o->cmd[0], '/') : NULL;
    const char *name = o->n_cmd == 0                     ? "srun"
                       : base != NULL && base[1] != '\0' ? base + 1
                                                         : o->cmd[0];
    time_t now = time(NULL);
    struct jobspec js;
    json_t *job = NULL;

    jobspec_init(&js);
    for (size_t i = 0; i < o->n_alloc_args; i++) {
        const struct srun_alloc_arg *a = &o->alloc_args[i];
        if (a->js_id == JS_GRES && strcmp(a->arg, "none") == 0)
            continue; /* srun's "no GPUs", which is the job's default */
        if (jobspec_set(&js, a->js_id, a->arg, now, e) < 0)
            goto out;
    }
    job = jobspec_finish_alloc(&js, "srun", name, cwd, e);
    if (job != NULL && o->immediate_s == 0)
        json_object_set_new(job, "immediate", json_true());
    if (job != NULL && o->no_kill) /* -k: for the job as for the step */
        json_object_set_new(job, "no_kill", json_true());
out:
    jobspec_clear(&js);
    return job;
}

static void sa_say(const struct srun_alloc *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sa_say(const struct srun_alloc *a, const char *fmt, ...)
{
    va_list ap;

    if (a->quiet)
        return;
    fprintf(stderr, "%s: ", cli_prog());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int srun_alloc_start(struct srun_alloc **out, struct srun_opts *o,
                     struct cli_client *client, int sig_fd, const char *cwd,
                     struct err *e)
{
    struct srun_alloc *a;

    *out = NULL;
    json_t *spec = srun_alloc_spec(o, cwd, e);
    if (spec == NULL)
        return -1;
    a = xcalloc(1, sizeof(*a));
    a->spec = spec;
    a->quiet = o->quiet;
    alloc_init(&a->a, cli_prog(), client, sig_fd, o->quiet);
    a->a.wait_s = o->immediate_s > 0 ? o->immediate_s : 0;
    *out = a;
    if (alloc_submit(&a->a, spec, e) < 0) {
        cli_error("Unable to allocate resources: %s", e->text);
        return 1;
    }
    switch (alloc_wait(&a->a, e)) {
    case ALLOC_STARTED:
        o->job_id = a->a.job_id;
        /* -I was about the job; its step has the job to itself */
        o->immediate_s = -1;
        return 0;
    case ALLOC_CANCELLED:
    case ALLOC_ENDED:
        sa_say(a, "Job allocation %u has been revoked.", a->a.job_id);
        return 1;
    case ALLOC_TIMEDOUT:
        cli_error("Unable to allocate resources: Requested nodes are busy");
        return 1;
    case ALLOC_ERROR:
        break;
    }
    alloc_cancel(&a->a);
    return -1;
}

void srun_alloc_fail(struct srun_alloc *a)
{
    if (a != NULL)
        alloc_cancel(&a->a);
}

int srun_alloc_finish(struct srun_alloc *a, int rc)
{
    int64_t deadline = clock_mono_ms() + SRUN_ALLOC_END_WAIT_MS;
    int delay = ALLOC_POLL_FIRST_MS;
    char line[512];
    json_t *job;
    struct err e;

    if (a == NULL || rc == 0)
        return rc;
    /* The controller ends the job with its step: wait for that end. */
    while ((job = alloc_query(&a->a, &e)) != NULL &&
           alloc_state_is_live(
               json_string_value(json_object_get(job, "job_state"))) &&
           clock_mono_ms() < deadline) {
        json_decref(job);
        poll(NULL, 0, delay);
        delay = alloc_backoff_next(delay, ALLOC_POLL_MAX_MS);
    }
    if (job != NULL && alloc_preempted_line(job, line, sizeof(line)) != NULL)
        sa_say(a, "%s", line);
    json_decref(job);
    return rc;
}

void srun_alloc_destroy(struct srun_alloc *a)
{
    if (a == NULL)
        return;
    alloc_clear(&a->a);
    json_decref(a->spec);
    free(a);
}
