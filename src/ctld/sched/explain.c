/*
 * sluice explain (see explain.h): the EXPLAIN object of one job (the
 * JOB_EXPLAIN request is rpc/explain_rpc.c's).  What-if answers come from
 * explain_sim.c, the per-node part from explain_node.c.
 */
#include "ctld/sched/explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/sched/explain_int.h"
#include "ctld/sched/explain_sim.h"
#include "ctld/job/jobacct.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/sched/preempt_drv.h"

#define SET(o, k, v) json_object_set_new(o, k, v)

static json_t *opt_time(time_t t)
{
    return t > 0 ? json_integer((json_int_t)t) : json_null();
}

static json_t *limit_json(int64_t s)
{
    return s == TIMEFMT_INFINITE ? json_null() : json_integer(s);
}

/* The end a running job's time limit sets (the test divisor applied). */
static time_t limit_end(const struct explain *ex, const struct job *j)
{
    uint32_t div = ex->src.time_divisor ? ex->src.time_divisor : 1;

    if (j->time_limit_s == TIMEFMT_INFINITE || j->start_time <= 0)
        return 0;
    return j->start_time + (time_t)((j->time_limit_s + div - 1) / div);
}

static json_t *common(const struct job *j)
{
    const char *detail = j->reason_detail;

    return json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:i, s:o, s:I, s:i, s:i, s:I, s:i, s:o}",
        "job_id", (json_int_t)j->id, "name", j->name, "user_name", j->user_name,
        "job_state", job_state_name(j->state), "state_reason", job_reason(j),
        "priority", (int)j->priority, "reason_detail",
        detail ? json_string(detail) : json_null(), "submit_time",
        (json_int_t)j->submit_time, "num_nodes", (int)j->nodes, "cpus_per_node",
        (int)j->cpus_per_node, "mem_per_node_mib",
        (json_int_t)job_mem_per_node(j), "gpus_per_node", (int)j->gpus_per_node,
        "time_limit_s", limit_json(j->time_limit_s));
}

static void started(struct explain *ex, const struct job *j, json_t *o)
{
    char *nl = job_alloc_list(j, ex->src.conf);

    SET(o, "node_list", json_string(nl));
    SET(o, "start_time", opt_time(j->start_time));
    if (job_state_final(j->state)) {
        SET(o, "end_time", opt_time(j->end_time));
        SET(o, "exit_code",
            json_pack("{s:i, s:i}", "return_code", j->exit_code, "signal",
                      j->exit_signal));
    } else {
        SET(o, "end_time_est", opt_time(limit_end(ex, j)));
    }
    free(nl);
}

/* ---- pending ---------------------------------------------------------- */

static const char *const hold_names[] = {"user", "admin"};

static void gates(struct explain *ex, const struct job *j, time_t now,
                  json_t *o)
{
    const struct part *p = parts_get(ex->src.parts, j->part);

    SET(o, "held",
        j->held_admin  ? json_string(hold_names[1])
        : j->held_user ? json_string(hold_names[0])
                       : json_null());
    SET(o, "begin_time",
        j->begin_time > now ? opt_time(j->begin_time) : json_null());
    SET(o, "partition_state", json_string(conf_part_state_name(p->state)));
    SET(o, "fence_node",
        j->fenced ? json_string(ex->src.conf->nodes[j->fence_node].name)
                  : json_null());
    if (j->part_time_limit)
        SET(o, "partition_limit",
            json_pack("{s:s, s:o, s:o}", "reason", "PartitionTimeLimit",
                      "time_limit_s", limit_json(j->time_limit_s), "max_time_s",
                      limit_json(p->max_time_s)));
    else if (j->part_node_limit)
        SET(o, "partition_limit",
            json_pack(
                "{s:s, s:i, s:i, s:o}", "reason", "PartitionNodeLimit", "nodes",
                (int)j->nodes, "min_nodes", (int)p->min_nodes, "max_nodes",
                p->max_nodes == CONF_UNLIMITED ? json_null()
                                               : json_integer(p->max_nodes)));
}

static json_t *node_names(struct explain *ex, const size_t *idx, size_t n)
{
    struct job tmp = {.alloc = (size_t *)idx, .n_alloc = n};
    char *nl = job_alloc_list(&tmp, ex->src.conf);
    json_t *s = json_string(nl);

    free(nl);
    return s;
}

/* The next pass as it would decide for j, and the limit that holds it. */
static void next_pass(struct explain *ex, struct job *j,
                      const struct explain_sim_out *b, json_t *o)
{
    bool starts = b->reason == SCHED_REASON_NONE && !j->part_time_limit &&
                  !j->part_node_limit;
    const char *why = j->part_time_limit   ? "PartitionTimeLimit"
                      : j->part_node_limit ? "PartitionNodeLimit"
                      : b->reason == SCHED_REASON_LIMIT && b->limit
                          ? b->limit
                          : sched_reason_name(b->reason);

    SET(o, "next_pass",
        json_pack("{s:b, s:s, s:o}", "would_start", starts, "reason", why,
                  "node_list",
                  starts ? node_names(ex, b->nodes, b->nnodes) : json_null()));
    /* squeue --start's estimate (the last backfill cycle), else this
     * pass's reservation */
    SET(o, "estimated_start",
        j->start_est > 0 && !starts  ? opt_time(j->start_est)
        : starts || b->start_est > 0 ? opt_time(b->start_est)
                                     : json_null());
    if (b->reason != SCHED_REASON_LIMIT || b->limit == NULL) {
        SET(o, "limit", json_null());
        return;
    }
    /* the long form with the numbers, as the last real pass wrote it */
    SET(o, "limit",
        json_pack("{s:s, s:o}", "reason", b->limit, "detail",
                  strcmp(job_reason(j), b->limit) == 0 && j->reason_detail
                      ? json_string(j->reason_detail)
                      : json_null()));
}

static void queue(struct explain_sim *x, json_t *o)
{
    size_t n = 0;
    const struct explain_sim_ahead *a = explain_sim_queue(x, &n);
    json_t *arr;

    if (a == NULL) { /* the budget ran out */
        SET(o, "queue", json_null());
        return;
    }
    arr = json_array();

    for (size_t i = 0; a != NULL && i < n && i < EXPLAIN_AHEAD_MAX; i++)
        json_array_append_new(arr,
                              json_pack("{s:I, s:i, s:s, s:s}", "job_id",
                                        (json_int_t)a[i].job->id, "priority",
                                        (int)a[i].job->priority, "user_name",
                                        a[i].job->user_name, "reason",
                                        a[i].reason == SCHED_REASON_NONE
                                            ? "starting"
                                            : sched_reason_name(a[i].reason)));
    SET(o, "queue",
        json_pack("{s:I, s:I, s:o}", "rank", (json_int_t)(n + 1), "ahead_count",
                  (json_int_t)n, "ahead", arr));
}

/* ---- what would let it start sooner ----------------------------------- */

static bool sim_starts(struct explain_sim *x, const struct explain_sim_tweak *t,
                       struct explain *ex, json_t **where)
{
    struct explain_sim_out out;
    bool yes;

    if (explain_sim_run(x, t, &out) < 0)
        return false;
    yes = out.reason == SCHED_REASON_NONE;
    if (yes && where != NULL)
        *where = node_names(ex, out.nodes, out.nnodes);
    explain_sim_out_clear(&out);
    return yes;
}

/* May j's user run j in partition p (access lists, associations, QOS)? */
static bool may_use(struct explain *ex, const struct job *j, size_t p)
{
    struct job tmp = *j;
    const struct part *rp = parts_get(ex->src.parts, p);
    struct err e;
    bool ok;

    if (rp->state != CONF_PART_UP ||
        (rp->max_time_s != TIMEFMT_INFINITE &&
         (j->time_limit_s == TIMEFMT_INFINITE ||
          j->time_limit_s > rp->max_time_s)) ||
        j->nodes > rp->max_nodes || j->nodes < rp->min_nodes ||
        jobs_check_fit(ex->src.conf, rp, j, &e) < 0)
        return false;
    tmp.part = p;
    ok = jobacct_resolve(ex->src.acct, ex->src.conf, &tmp, &e) == 0;
    if (tmp.account != j->account)
        free(tmp.account);
    if (tmp.qos != j->qos)
        free(tmp.qos);
    return ok;
}

static void suggest_partitions(struct explain *ex, struct explain_sim *x,
                               const struct job *j, json_t *a)
{
    size_t found = 0;

    for (size_t p = 0; p < ex->src.conf->n_parts && found < EXPLAIN_AHEAD_MAX;
         p++) {
        struct explain_sim_tweak t = explain_sim_tweak_none();
        json_t *where = NULL;
        if (p == j->part || !may_use(ex, j, p))
            continue;
        t.part = (long)p;
        if (!sim_starts(x, &t, ex, &where))
            continue;
        found++;
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:o}", "kind", "partition", "partition",
                         ex->src.conf->parts[p].name, "node_list", where));
    }
}

/* Admin-drained (or admin-down) nodes that would start j if resumed. */
static void suggest_resume(struct explain *ex, struct explain_sim *x,
                           const struct job *j, json_t *a)
{
    const struct part *p = parts_get(ex->src.parts, j->part);
    size_t found = 0;

    for (size_t i = 0; i < p->n_nodes && found < EXPLAIN_AHEAD_MAX; i++) {
        struct node *n = nodes_get(ex->src.nodes, p->node_idx[i]);
        struct explain_sim_tweak t = explain_sim_tweak_none();
        const char *why = node_reason(n);
        if (n->admin == NODE_ADMIN_NONE || !n->registered ||
            n->not_responding || n->invalid || n->conn == NULL ||
            (j->node_allowed != NULL && !j->node_allowed[n->idx]))
            continue;
        t.node_up = (long)n->idx;
        if (!sim_starts(x, &t, ex, NULL))
            continue;
        found++;
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:s, s:o}", "kind", "resume_node", "node",
                         n->cf->name, "state", node_state_name(n), "reason",
                         why ? json_string(why) : json_null()));
    }
}

/* Over MaxTime: the partition's MaxTime as its limit, and whether it
 * would then start now. */
static void suggest_max_time(struct explain *ex, struct explain_sim *x,
                             const struct job *j, json_t *a)
{
    const struct part *p = parts_get(ex->src.parts, j->part);
    struct explain_sim_tweak t = explain_sim_tweak_none();

    if (p->max_time_s == TIMEFMT_INFINITE)
        return;
    t.time_limit_s = p->max_time_s;
    json_array_append_new(a, json_pack("{s:s, s:I, s:b}", "kind", "time_limit",
                                       "time_limit_s",
                                       (json_int_t)p->max_time_s, "would_start",
                                       sim_starts(x, &t, ex, NULL)));
}

static bool waits_for_room(enum sched_reason r)
{
    return r == SCHED_REASON_PRIORITY || r == SCHED_REASON_RESOURCES ||
           r == SCHED_REASON_NODE_DOWN;
}

static json_t *suggestions(struct explain *ex, struct explain_sim *x,
                           const struct job *j, const struct explain_sim_out *b)
{
    json_t *a = json_array();
    struct explain_sim_tweak t = explain_sim_tweak_none();
    int64_t secs;

    if (b->reason == SCHED_REASON_NONE && !j->part_time_limit &&
        !j->part_node_limit)
        return a;
    if (j->part_time_limit)
        suggest_max_time(ex, x, j, a);
    if (j->held_user || j->held_admin)
        json_array_append_new(a,
                              json_pack("{s:s, s:s}", "kind", "release", "by",
                                        j->held_admin ? "admin" : "user"));
    if (b->reason == SCHED_REASON_LIMIT) {
        t.no_charges = true;
        if (sim_starts(x, &t, ex, NULL))
            json_array_append_new(a, json_pack("{s:s, s:s}", "kind", "limit",
                                               "reason",
                                               b->limit ? b->limit : "Limit"));
    }
    if (waits_for_room(b->reason) && !j->part_time_limit &&
        !j->part_node_limit) {
        secs = explain_sim_shorter_time(x);
        if (secs > 0)
            json_array_append_new(a, json_pack("{s:s, s:I, s:b}", "kind",
                                               "time_limit", "time_limit_s",
                                               (json_int_t)secs, "would_start",
                                               1));
        suggest_resume(ex, x, j, a);
    }
    if (waits_for_room(b->reason) || b->reason == SCHED_REASON_LIMIT ||
        b->reason == SCHED_REASON_PART_DOWN ||
        b->reason == SCHED_REASON_PART_INACTIVE || j->part_time_limit ||
        j->part_node_limit)
        suggest_partitions(ex, x, j, a);
    return a;
}

static const char *const dep_states[] = {"waiting", "met", "never"};

/* What j's --dependency waits on: each clause and its jobs' states. */
static json_t *dependency(struct explain *ex, const struct job *j)
{
    char *text = depend_format(&j->dep);
    json_t *on = json_array();

    for (size_t i = 0; i < j->dep.n; i++) {
        const struct dep_clause *d = &j->dep.v[i];
        const struct job *t = NULL;
        if (d->job_id != 0)
            t = d->task == DEP_ALL_TASKS
                    ? jobs_find(ex->src.jobs, d->job_id)
                    : jobarray_find_task(ex->src.jobs, d->job_id, d->task);
        if (t == NULL && d->job_id != 0 && d->task != DEP_ALL_TASKS)
            t = jobs_find(ex->src.jobs, d->job_id); /* still in its array */
        json_array_append_new(
            on,
            json_pack(
                "{s:s, s:o, s:o, s:o}", "type", depend_type_name(d->type),
                "job_id",
                d->job_id ? json_integer((json_int_t)d->job_id) : json_null(),
                "task",
                d->task == DEP_ALL_TASKS ? json_null() : json_integer(d->task),
                "job_state",
                t ? json_string(job_state_name(t->state)) : json_null()));
    }
    json_t *r = json_pack("{s:s, s:s, s:b, s:o}", "expression",
                          text ? text : "", "state", dep_states[j->dep_state],
                          "any", j->dep.any, "on", on);

    free(text);
    return r;
}

/* A job waiting on its dependency, or behind the fence of a run lost with
 * a node (queue/jobfence.h), is not in the pass: say only that. */
static void dep_blocked(struct job *j, json_t *o)
{
    SET(o, "next_pass",
        json_pack("{s:b, s:s, s:n}", "would_start", 0, "reason", job_reason(j),
                  "node_list"));
    SET(o, "limit", json_null());
    SET(o, "queue", json_null());
    SET(o, "estimated_start", json_null());
    SET(o, "suggestions", json_array());
    SET(o, "suggestions_complete", json_true());
}

static void pending(struct explain *ex, struct job *j, time_t now, json_t *o)
{
    struct explain_sim *x =
        explain_sim_create(ex->src.model, ex->src.conf, j, now, clock_mono_ms);
    struct explain_sim_tweak none = explain_sim_tweak_none();
    struct explain_sim_out b;

    gates(ex, j, now, o);
    SET(o, "nodes", explain_nodes(ex, j));
    SET(o, "backfill", json_boolean(explain_sim_backfill(x)));
    SET(o, "dependency", j->dep.n > 0 ? dependency(ex, j) : json_null());
    if ((j->dep.n > 0 && j->dep_state != DEP_MET) || j->fenced) {
        dep_blocked(j, o);
        goto out;
    }
    if (explain_sim_run(x, &none, &b) < 0) {
        SET(o, "next_pass", json_null());
        SET(o, "suggestions", json_array());
        goto out;
    }
    /* a job over its partition's limits is not in the real pass */
    if (j->part_time_limit || j->part_node_limit)
        b.start_est = 0;
    next_pass(ex, j, &b, o);
    SET(o, "preempting", preempt_drv_victims(ex->src.preempt, j->id));
    /* its victims' time limits say nothing of when they will be gone */
    if (json_array_size(json_object_get(o, "preempting")) > 0)
        SET(o, "estimated_start", json_null());
    queue(x, o);
    SET(o, "suggestions", suggestions(ex, x, j, &b));
    /* false: the time budget cut the what-if passes short */
    SET(o, "suggestions_complete", json_boolean(!explain_sim_cut(x)));
    explain_sim_out_clear(&b);
out:
    explain_sim_destroy(x);
}

struct explain *explain_create(const struct explain_src *src)
{
    struct explain *ex = xcalloc(1, sizeof(*ex));

    ex->src = *src;
    return ex;
}

void explain_destroy(struct explain *x)
{
    free(x);
}

json_t *explain_job(struct explain *ex, struct job *j, time_t now)
{
    json_t *o = common(j);

    SET(o, "partition", json_string(ex->src.conf->parts[j->part].name));
    if (j->state == JOB_PENDING)
        pending(ex, j, now, o);
    else
        started(ex, j, o);
    return o;
}
