/*
 * The per-node part of sluice explain (explain.h): for each node of a
 * pending job's partition, whether it could hold the job at all, whether
 * it is up, what it lacks now, and when the running jobs on it will have
 * freed enough (their start plus time limit).
 */
#include "ctld/sched/explain.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/job/jobgpu.h"
#include "ctld/job/jobopts.h"
#include "ctld/sched/explain_int.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/cluster/resv.h"

/* What a job needs on one node, or what a node has free. */
struct amount {
    int64_t cpus, mem_mib, gpus;
};

/* A running job's share of a node and when it gives it back. */
struct release {
    time_t end; /* 0: never (no time limit) */
    uint64_t id;
    struct amount a;
};

static bool gpu_matches(const struct job *j, const char *type)
{
    return j->gpu_type == NULL || j->gpu_type[0] == '\0' ||
           strcmp(j->gpu_type, type) == 0;
}

/* The GPUs of j's type on node n: free now (*free) and in all. */
static int64_t gpus_of_type(const struct job *j, const struct node *n,
                            int64_t *free_now)
{
    int64_t all = 0;

    *free_now = 0;
    for (size_t p = 0; p < n->gpus.n; p++) {
        if (!gpu_matches(j, n->gpus.v[p].type))
            continue;
        all++;
        if (!nodes_gpu_used(n, n->gpus.v[p].index))
            (*free_now)++;
    }
    return all;
}

/* The GPUs of j's type that running job r holds on node n. */
static int64_t gpus_held(const struct job *j, const struct job *r,
                         const struct node *n)
{
    int64_t k = 0;

    for (size_t a = 0; a < r->n_alloc && r->gpu_alloc != NULL; a++) {
        if (r->alloc[a] != n->idx)
            continue;
        for (uint32_t g = 0; g < r->gpus_per_node; g++) {
            long p =
                nodegpu_find(&n->gpus, r->gpu_alloc[a * r->gpus_per_node + g]);
            if (p >= 0 && gpu_matches(j, n->gpus.v[p].type))
                k++;
        }
    }
    return k;
}

static int by_end(const void *a, const void *b)
{
    const struct release *x = a, *y = b;

    if (x->end != y->end) /* never (0) last */
        return x->end == 0 ? 1 : y->end == 0 ? -1 : x->end < y->end ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static bool enough(const struct amount *have, const struct amount *need)
{
    return have->cpus >= need->cpus && have->mem_mib >= need->mem_mib &&
           have->gpus >= need->gpus;
}

/*
 * When the running jobs on n will have freed what j lacks: sets "until"
 * (and "until_job", the job whose end does it) or "no_time_limit_job"
 * (a job that must end first has no limit), and "jobs".
 */
static void busy_until(struct explain *ex, const struct job *j,
                       const struct node *n, struct amount have,
                       const struct amount *need, json_t *o)
{
    uint32_t div = ex->src.time_divisor ? ex->src.time_divisor : 1;
    size_t nr = 0;
    struct job **on = jobs_on_node(ex->src.jobs, n->idx, false, &nr);
    struct release *rel = xcalloc(nr ? nr : 1, sizeof(*rel));
    json_t *ids = json_array();

    for (size_t i = 0; i < nr; i++) {
        const struct job *r = on[i];
        bool inf = r->time_limit_s == TIMEFMT_INFINITE;
        rel[i] = (struct release){
            inf ? 0 : r->start_time + (r->time_limit_s + div - 1) / div,
            r->id,
            {r->cpus_per_node, (int64_t)job_mem_per_node(r),
             gpus_held(j, r, n)}};
        json_array_append_new(ids, json_integer((json_int_t)r->id));
    }
    qsort(rel, nr, sizeof(*rel), by_end);
    for (size_t i = 0; i < nr && !enough(&have, need); i++) {
        have.cpus += rel[i].a.cpus;
        have.mem_mib += rel[i].a.mem_mib;
        have.gpus += rel[i].a.gpus;
        if (!enough(&have, need))
            continue;
        if (rel[i].end == 0) {
            json_object_set_new(o, "no_time_limit_job",
                                json_integer((json_int_t)rel[i].id));
        } else {
            json_object_set_new(o, "until", json_integer(rel[i].end));
            json_object_set_new(o, "until_job",
                                json_integer((json_int_t)rel[i].id));
        }
    }
    json_object_set_new(o, "jobs", ids);
    free(rel);
    free(on);
}

static json_t *amount_json(const struct amount *a)
{
    return json_pack("{s:I, s:I, s:I}", "cpus", (json_int_t)a->cpus, "mem_mib",
                     (json_int_t)a->mem_mib, "gpus", (json_int_t)a->gpus);
}

/* What j lacks on an up node: status "busy" with the numbers, or "fits". */
static void resources(struct explain *ex, const struct job *j,
                      const struct node *n, const struct amount *need,
                      json_t *o)
{
    struct amount have = {(int64_t)n->cf->cpus - n->cpus_alloc,
                          (int64_t)n->cf->mem_mib - (int64_t)n->mem_alloc_mib,
                          0};
    struct amount lack;

    gpus_of_type(j, n, &have.gpus);
    lack = (struct amount){
        have.cpus < need->cpus ? need->cpus - have.cpus : 0,
        have.mem_mib < need->mem_mib ? need->mem_mib - have.mem_mib : 0,
        have.gpus < need->gpus ? need->gpus - have.gpus : 0};
    json_object_set_new(o, "free", amount_json(&have));
    if (enough(&have, need)) {
        json_object_set_new(o, "status", json_string("fits"));
        return;
    }
    json_object_set_new(o, "status", json_string("busy"));
    json_object_set_new(o, "lacks", amount_json(&lack));
    busy_until(ex, j, n, have, need, o);
}

/* Could node n ever hold j (its configuration)?  Else "too_small". */
static bool big_enough(const struct job *j, const struct node *n,
                       const struct amount *need, json_t *o)
{
    struct amount cfg = {n->cf->cpus, (int64_t)n->cf->mem_mib,
                         (int64_t)jobgpu_node_gpus(j, n->cf)};

    if (enough(&cfg, need))
        return true;
    json_object_set_new(o, "status", json_string("too_small"));
    json_object_set_new(o, "configured", amount_json(&cfg));
    return false;
}

static json_t *node_entry(struct explain *ex, const struct job *j,
                          const struct node *n, const bool *excluded)
{
    struct amount need = {j->cpus_per_node, (int64_t)job_mem_per_node(j),
                          j->gpus_per_node};
    const char *why = node_reason(n);
    char why_not[256];
    json_t *o = json_pack("{s:s, s:s, s:o}", "name", n->cf->name, "state",
                          node_state_name(n), "reason",
                          why ? json_string(why) : json_null());

    int64_t limit = j->time_limit_s == TIMEFMT_INFINITE ? 0 : j->time_limit_s;
    const char *resv =
        resvs_blocker(ex->src.resv, j->reservation, limit, time(NULL), n->idx);

    if (excluded != NULL && excluded[n->idx])
        json_object_set_new(o, "status", json_string("excluded"));
    else if (resv != NULL) {
        json_object_set_new(o, "status", json_string("reserved"));
        json_object_set_new(o, "reservation", json_string(resv));
    } else if (j->node_allowed != NULL && !j->node_allowed[n->idx])
        json_object_set_new(o, "status", json_string("not_requested"));
    else if (!jobopts_node_ok(&j->opt, n->cf, why_not, sizeof(why_not))) {
        json_object_set_new(o, "status", json_string("unsuitable"));
        json_object_set_new(o, "why", json_string(why_not));
    } else if (big_enough(j, n, &need, o)) {
        if (!node_usable(n))
            json_object_set_new(o, "status", json_string("down"));
        else if (n->admin == NODE_ADMIN_DRAIN)
            json_object_set_new(o, "status", json_string("drained"));
        else
            resources(ex, j, n, &need, o);
    }
    return o;
}

/* The -w nodes that are not in j's partition. */
static void outside(struct explain *ex, const struct job *j, json_t *a)
{
    struct hostlist *hl;
    struct err e;

    if (j->nodelist == NULL || (hl = hostlist_expand(j->nodelist, &e)) == NULL)
        return;
    for (size_t i = 0; i < hostlist_count(hl); i++) {
        const char *name = hostlist_nth(hl, i);
        struct node *n = nodes_find(ex->src.nodes, name);
        if (n != NULL && parts_has_node(ex->src.parts, j->part, n->idx))
            continue;
        json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "name", name,
                                           "state",
                                           n ? node_state_name(n) : "UNKNOWN",
                                           "status", "not_in_partition"));
    }
    hostlist_destroy(hl);
}

json_t *explain_nodes(struct explain *ex, const struct job *j)
{
    const struct part *p = parts_get(ex->src.parts, j->part);
    bool *excluded = NULL;
    json_t *a = json_array();
    struct err e;

    /* -x alone, to tell "excluded" from "not among the -w nodes" */
    if (j->exclude != NULL &&
        jobs_node_filter(ex->src.conf, NULL, j->exclude, &excluded, &e) == 0 &&
        excluded != NULL)
        for (size_t i = 0; i < nodes_count(ex->src.nodes); i++)
            excluded[i] = !excluded[i];
    for (size_t i = 0; i < p->n_nodes; i++)
        json_array_append_new(
            a, node_entry(ex, j, nodes_get(ex->src.nodes, p->node_idx[i]),
                          excluded));
    outside(ex, j, a);
    free(excluded);
    return a;
}
