/*
 * A job's run lost with a node, and the fence of a requeued job
 * (jobfence.h): the decision between requeue and NODE_FAIL, and the
 * fence set and lifted.  Who lifts it is the node's word: the handlers of
 * its registration and JOB_END (rpc/node_rpc.c), or an operator who sets
 * an unreachable node DOWN (ctld.c).
 */
#include "ctld/queue/jobfence.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/job/job.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/nodecmd.h"

/* Whether j may wait again after losing its run: a batch job that may be
 * requeued, and that nobody wanted gone (cancel, time limit, preemption
 * without requeue). */
static bool may_requeue(const struct job *j)
{
    return j->requeue && j->alloc_kind == JOB_ALLOC_NONE &&
           (j->kill == JOB_KILL_NONE || j->kill == JOB_KILL_REQUEUE);
}

/* JOB_KILL to j's nodes but lost: what runs there of j (steps, or the
 * batch script when the lost node only ran steps) is not to go on.  The
 * lost node is not told: it cannot be (a silent node's connection would
 * deliver it late, after the kill it gets when it is back); a node set
 * DOWN by an operator was told already (ctld.c). */
static void kill_others(struct jobs *js, const struct job *j, size_t lost)
{
    const struct conf *conf = jobs_env(js)->conf;

    if (j->alloc_kind != JOB_ALLOC_NONE)
        return; /* an allocation's steps are settled by the step table */
    for (size_t i = 0; i < j->n_alloc; i++)
        if (j->alloc[i] != lost &&
            nodecmd_kill_on(jobs_nodecmd(js), j->alloc[i], j->id, "node_down",
                            conf->kill_wait_s) < 0)
            log_info("job=%" PRIu64 " kill deferred: node %s not connected",
                     j->id, conf->nodes[j->alloc[i]].name);
}

int jobfence_lost(struct jobs *js, struct job *j, size_t idx, const char *why,
                  bool gone, time_t now, struct err *e)
{
    const struct conf *conf = jobs_env(js)->conf;
    size_t host;
    char detail[300], desc[300];

    uint32_t cpus, ngpus;
    uint64_t mem;
    uint32_t *gpus = NULL;
    int rc;

    ASSERT(j->n_alloc > 0); /* a run, on its nodes */
    host = j->alloc[0];
    kill_others(js, j, idx);
    if (!may_requeue(j))
        return jobs_fail(js, j, JOB_NODE_FAIL, why, now, e);
    snprintf(detail, sizeof(detail), "after node failure: %s: %s",
             conf->nodes[idx].name, why);
    /* what the run holds on its batch host, kept there behind the fence */
    cpus = jobs_held_cpus(j);
    mem = job_mem_per_node(j);
    ngpus = j->gpu_alloc != NULL ? j->gpus_per_node : 0;
    if (ngpus > 0) { /* the batch host is alloc[0]: its GPUs come first */
        gpus = xcalloc(ngpus, sizeof(*gpus));
        memcpy(gpus, j->gpu_alloc, ngpus * sizeof(*gpus));
    }
    rc = jobs_requeue_run(js, j, detail, e);
    if (rc < 0 || (gone && host == idx)) {
        /* its batch host has nothing of it: free to start */
        free(gpus);
        return rc;
    }
    j->fenced = true;
    j->fence_node = host;
    jobs_fence_hold(js, j, cpus, mem, gpus, ngpus);
    free(gpus);
    if (!j->held_user && !j->held_admin) {
        snprintf(desc, sizeof(desc),
                 "requeued after %s failed; waits for %s to confirm that "
                 "its last run is gone",
                 conf->nodes[idx].name, conf->nodes[host].name);
        job_set_reason(j, "NodeDown");
        job_set_reason_detail(j, desc);
    }
    log_info("job=%" PRIu64 " fenced: does not start until node %s confirms "
             "that its last run is gone",
             j->id, conf->nodes[host].name);
    return jobs_save_event(js, j, NULL, NULL, e);
}

void jobfence_lift(struct jobs *js, struct job *j, const char *why)
{
    struct err e;

    if (!j->fenced)
        return;
    jobs_fence_release(js, j);
    j->fenced = false;
    if (!j->held_user && !j->held_admin)
        job_set_reason(j, NULL);
    log_info("job=%" PRIu64 " fence lifted: %s", j->id, why);
    loop_want_pass(jobs_env(js)->loop);
    jobs_save_event(js, j, NULL, NULL, &e);
}

struct job **jobfence_on_node(struct jobs *js, size_t idx, size_t *n)
{
    struct job **out = NULL;
    size_t cap = 0;

    *n = 0;
    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        if (!j->fenced || j->fence_node != idx)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            out = xreallocarray(out, cap, sizeof(*out));
        }
        out[(*n)++] = j;
    }
    return out;
}

void jobfence_lift_node(struct jobs *js, size_t idx, const char *why)
{
    size_t n;
    struct job **list = jobfence_on_node(js, idx, &n);

    for (size_t i = 0; i < n; i++)
        jobfence_lift(js, list[i], why);
    free(list);
}
