/*
 * Pending reasons that name the unavailable nodes and their causes (see
 * reason.h).  Jobs asking for the same thing in the same partition get the
 * same text, so it is computed once per pass and kept.
 */
#include "ctld/sched/reason.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/cluster/parts.h"
#include "ctld/job/jobgpu.h"
#include "ctld/cluster/nodes.h"

/* At most this many nodes' causes are spelled out. */
#define REASON_MAX_CAUSES 8

/* What a job asks for, as far as the reason goes. */
struct reason_key {
    size_t part;
    uint32_t cpus, gpus;
    uint64_t mem_mib;
    const char *gpu_type;
};

struct reason {
    struct parts *parts; /* borrowed */
    struct nodes *nodes; /* borrowed */
    bool valid;          /* the texts below belong to this pass */
    struct reason_key key;
    char *down;   /* "node04": unavailable nodes that could hold it */
    char *causes; /* "node04 INVALID: gres/gpu count ..." */
};

struct reason *reason_create(struct parts *parts, struct nodes *nodes)
{
    struct reason *w = xcalloc(1, sizeof(*w));

    w->parts = parts;
    w->nodes = nodes;
    return w;
}

static void forget(struct reason *w)
{
    free(w->down);
    free(w->causes);
    w->down = w->causes = NULL;
    w->valid = false;
}

void reason_destroy(struct reason *w)
{
    if (w == NULL)
        return;
    forget(w);
    free(w);
}

void reason_begin(struct reason *w)
{
    forget(w);
}

static bool same_key(const struct reason_key *a, const struct reason_key *b)
{
    return a->part == b->part && a->cpus == b->cpus && a->gpus == b->gpus &&
           a->mem_mib == b->mem_mib &&
           (a->gpu_type == b->gpu_type ||
            (a->gpu_type && b->gpu_type &&
             strcmp(a->gpu_type, b->gpu_type) == 0));
}

/* Could node cf ever hold j (its configuration, not its state)? */
static bool could_hold(const struct job *j, const struct conf_node *cf)
{
    return cf->cpus >= j->cpus_per_node && cf->mem_mib >= job_mem_per_node(j) &&
           jobgpu_node_gpus(j, cf) >= j->gpus_per_node;
}

static void add_cause(char *buf, size_t len, size_t *off, const struct node *n)
{
    const char *why = node_reason(n);
    int k = snprintf(buf + *off, *off < len ? len - *off : 0, "%s%s %s%s%s",
                     *off ? "; " : "", n->cf->name, node_state_name(n),
                     why ? ": " : "",
                     why ? why : (n->registered ? "" : " (not registered)"));

    if (k > 0)
        *off += (size_t)k;
}

/* The unavailable nodes of j's partition that could hold it. */
static void compute(struct reason *w, const struct job *j)
{
    const struct part *p = parts_get(w->parts, j->part);
    struct hostlist *hl = hostlist_create();
    char causes[2048] = "";
    size_t off = 0, n = 0;

    for (size_t i = 0; i < p->n_nodes; i++) {
        const struct node *nd = nodes_get(w->nodes, p->node_idx[i]);
        if ((j->node_allowed != NULL && !j->node_allowed[nd->idx]) ||
            !could_hold(j, nd->cf) ||
            (node_usable(nd) && nd->admin != NODE_ADMIN_DRAIN))
            continue;
        hostlist_push_host(hl, nd->cf->name);
        if (n++ < REASON_MAX_CAUSES)
            add_cause(causes, sizeof(causes), &off, nd);
    }
    if (n > REASON_MAX_CAUSES && off < sizeof(causes))
        snprintf(causes + off, sizeof(causes) - off, "; and %zu more",
                 n - REASON_MAX_CAUSES);
    hostlist_sort_uniq(hl);
    w->down = n > 0 ? hostlist_compress(hl) : NULL;
    w->causes = n > 0 ? xstrdup(causes) : NULL;
    hostlist_destroy(hl);
}

void reason_set(struct reason *w, struct job *j, enum sched_reason r)
{
    struct reason_key key = {j->part, j->cpus_per_node, j->gpus_per_node,
                             job_mem_per_node(j), j->gpu_type};
    const char *name = sched_reason_name(r);

    /* no node of the partition can ever meet its -C, --tmp, -B ... (the
     * nodes changed since it was submitted): Slurm's BadConstraints */
    if (r == SCHED_REASON_NEVER_FITS && j->opt.node_ok != NULL) {
        job_set_reason(j, "BadConstraints");
        return;
    }
    if (r != SCHED_REASON_RESOURCES && r != SCHED_REASON_NODE_DOWN) {
        job_set_reason(j, name);
        return;
    }
    /* -w/-x jobs see other nodes: not cached */
    if (!w->valid || j->node_allowed != NULL || !same_key(&w->key, &key)) {
        forget(w);
        compute(w, j);
        w->key = key;
        w->key.gpu_type = j->gpu_type; /* lives as long as the job */
        w->valid = j->node_allowed == NULL;
    }
    if (w->down == NULL) {
        job_set_reason(j, name);
        return;
    }
    if (r == SCHED_REASON_NODE_DOWN)
        job_set_reason_text(j, "ReqNodeNotAvail, UnavailableNodes:%s", w->down);
    else
        job_set_reason(j, name);
    char *detail = xasprintf("%s; %s", job_reason(j), w->causes);
    job_set_reason_detail(j, detail);
    free(detail);
}
