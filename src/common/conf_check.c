/*
 * Checks after parsing: partitions resolved against the nodes, one default
 * partition, every node reachable, GresTypes complete, and preemption
 * settings that can actually preempt.  Each finding names the line it
 * comes from; errors fail the load, warnings do not.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* name without the leading zeros of its numbers: node01 -> node1 */
static void check_norm(const char *name, char *out, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; name[i] != '\0' && o + 1 < len; i++) {
        if (name[i] == '0' && isdigit((unsigned char)name[i + 1]) &&
            (i == 0 || !isdigit((unsigned char)name[i - 1])))
            continue;
        out[o++] = name[i];
    }
    out[o] = '\0';
}

/* A defined node that differs from name only in zero padding, or NULL. */
static const char *check_near(const struct conf *c, const char *name)
{
    char want[HOSTLIST_MAX_NAME + 1], have[HOSTLIST_MAX_NAME + 1];

    check_norm(name, want, sizeof(want));
    for (size_t i = 0; i < c->n_nodes; i++) {
        check_norm(c->nodes[i].name, have, sizeof(have));
        if (strcmp(want, have) == 0)
            return c->nodes[i].name;
    }
    return NULL;
}

static void check_unknown(struct conf *c, const struct conf_part *p,
                          const char *name, size_t n_unknown)
{
    const struct conf_loc *loc = p->nodes_loc.line ? &p->nodes_loc : &p->loc;
    const char *near = check_near(c, name);
    char more[64] = "";

    if (n_unknown > 1)
        snprintf(more, sizeof(more), " (and %zu more unknown names)",
                 n_unknown - 1);
    conf_diag_at(c, CONF_ERROR, loc,
                 "partition %s: node %s is not defined by any NodeName "
                 "line%s%s%s%s",
                 p->name, name, near ? " (did you mean " : "", near ? near : "",
                 near ? "?)" : "", more);
}

/* Nodes= into indices: ascending (definition order) and unique. */
static int check_resolve(struct conf *c, struct conf_part *p)
{
    unsigned char *mark;
    struct hostlist *hl;
    const char *first = NULL;
    size_t unknown = 0, n = 0;
    long idx;
    struct err e;

    if (p->nodes_expr[0] == '\0')
        return 0;
    mark = xcalloc(c->n_nodes + 1, 1);
    if (strcasecmp(p->nodes_expr, "ALL") == 0) {
        memset(mark, 1, c->n_nodes);
        hl = NULL;
    } else if ((hl = hostlist_expand(p->nodes_expr, &e)) == NULL) {
        conf_diag_at(c, CONF_ERROR, &p->nodes_loc, "Nodes=%.64s: %s",
                     p->nodes_expr, e.text);
        free(mark);
        return -1;
    }
    for (size_t i = 0; hl != NULL && i < hostlist_count(hl); i++) {
        if ((idx = conf_node_lookup(c, hostlist_nth(hl, i))) >= 0)
            mark[idx] = 1;
        else if (unknown++ == 0)
            first = hostlist_nth(hl, i);
    }
    if (unknown > 0)
        check_unknown(c, p, first, unknown);
    p->node_idx = xcalloc(c->n_nodes + 1, sizeof(size_t));
    for (size_t i = 0; i < c->n_nodes; i++)
        if (mark[i])
            p->node_idx[n++] = i;
    p->n_nodes = n;
    hostlist_destroy(hl);
    free(mark);
    return unknown > 0 ? -1 : 0;
}

/* Exactly one default partition; without one, Slurm uses the first. */
static void check_default(struct conf *c)
{
    struct conf_part *def = NULL;

    if (c->n_parts == 0) {
        conf_diag_at(c, CONF_WARNING, NULL,
                     "no PartitionName line: no job can run");
        return;
    }
    for (size_t i = 0; i < c->n_parts; i++) {
        struct conf_part *p = &c->parts[i];
        if (!p->is_default)
            continue;
        if (def != NULL)
            conf_diag_at(c, CONF_ERROR, &p->loc,
                         "partitions %s (%s:%d) and %s are both "
                         "Default=YES; only one may be",
                         def->name, def->loc.file, def->loc.line, p->name);
        else
            def = p;
    }
    if (def == NULL) {
        def = &c->parts[0];
        conf_diag_at(c, CONF_WARNING, &def->loc,
                     "no partition has Default=YES: jobs submitted without "
                     "-p go to %s, the first one defined",
                     def->name);
        def->is_default = true;
    }
}

/* Nodes in no partition, reported once per NodeName line. */
static void check_orphans(struct conf *c)
{
    unsigned char *used = xcalloc(c->n_nodes + 1, 1);
    struct hostlist *run = hostlist_create();
    char *names;

    for (size_t i = 0; i < c->n_parts; i++)
        for (size_t k = 0; k < c->parts[i].n_nodes; k++)
            used[c->parts[i].node_idx[k]] = 1;
    for (size_t i = 0; i < c->n_nodes; i++) {
        if (!used[i])
            hostlist_push_host(run, c->nodes[i].name);
        if (hostlist_count(run) == 0 ||
            (i + 1 < c->n_nodes &&
             c->nodes[i + 1].loc.line == c->nodes[i].loc.line &&
             c->nodes[i + 1].loc.file == c->nodes[i].loc.file))
            continue;
        names = hostlist_compress(run);
        conf_diag_at(c, CONF_WARNING, &c->nodes[i].loc,
                     "%s %s %s in no partition: no job can run there",
                     hostlist_count(run) > 1 ? "nodes" : "node", names,
                     hostlist_count(run) > 1 ? "are" : "is");
        free(names);
        hostlist_destroy(run);
        run = hostlist_create();
    }
    hostlist_destroy(run);
    free(used);
}

/* Every GRES a node has must be in GresTypes; add it, as sluice can. */
static void check_gres_types(struct conf *c)
{
    for (size_t i = 0; i < c->n_nodes; i++) {
        const struct gres_list *g = c->nodes[i].gres;
        for (size_t k = 0; k < g->n; k++) {
            const char *name = g->items[k].name;
            char *types;
            if (conf_list_has(c->gres_types, name))
                continue;
            types = c->gres_types[0] ? xasprintf("%s,%s", c->gres_types, name)
                                     : xstrdup(name);
            free(c->gres_types);
            c->gres_types = types;
            conf_diag_at(c, CONF_WARNING, &c->nodes[i].loc,
                         "%s added to GresTypes because %s uses it", name,
                         c->nodes[i].name);
        }
    }
}

static const struct conf_loc *check_key_loc(const struct conf *c,
                                            const char *key)
{
    const struct conf_key *k = conf_key_find(conf_cluster_keys, key);
    const struct conf_loc *loc = &c->priv->cluster_loc[k - conf_cluster_keys];

    return loc->line > 0 ? loc : NULL;
}

static char *check_part_nodes(const struct conf *c, const struct conf_part *p)
{
    struct hostlist *hl = hostlist_create();
    char *s;

    for (size_t k = 0; k < p->n_nodes; k++)
        hostlist_push_host(hl, c->nodes[p->node_idx[k]].name);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

/* The fix to suggest: the top tier's partition over every node. */
static void check_prio_fix(const struct conf *c, FILE *fp)
{
    const struct conf_part *top = &c->parts[0];
    struct hostlist *all = hostlist_create();
    char *names;

    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i].priority_tier > top->priority_tier)
            top = &c->parts[i];
    for (size_t i = 0; i < c->n_nodes; i++)
        hostlist_push_host(all, c->nodes[i].name);
    names = hostlist_compress(all);
    fprintf(fp,
            "; to let %s preempt, overlap the partitions' Nodes "
            "(e.g. %s Nodes=%s)",
            top->name, top->name, names);
    free(names);
    hostlist_destroy(all);
}

/* partition_prio preempts only across tiers on a shared node. */
static void check_partition_prio(struct conf *c)
{
    uint32_t *lo = xcalloc(c->n_nodes + 1, sizeof(uint32_t));
    uint32_t *hi = xcalloc(c->n_nodes + 1, sizeof(uint32_t));
    char *text = NULL, *names;
    size_t len = 0, i;
    FILE *fp;

    for (i = 0; i < c->n_nodes; i++)
        lo[i] = UINT32_MAX;
    for (i = 0; i < c->n_parts; i++)
        for (size_t k = 0; k < c->parts[i].n_nodes; k++) {
            size_t n = c->parts[i].node_idx[k];
            uint32_t tier = c->parts[i].priority_tier;
            lo[n] = tier < lo[n] ? tier : lo[n];
            hi[n] = tier > hi[n] ? tier : hi[n];
        }
    for (i = 0; i < c->n_nodes && !(lo[i] < hi[i]); i++)
        ;
    if (i == c->n_nodes && c->n_parts > 0 &&
        (fp = open_memstream(&text, &len))) {
        fputs("PreemptType=preempt/partition_prio, but no node is in two "
              "partitions of different PriorityTier (",
              fp);
        for (i = 0; i < c->n_parts && i < 8; i++) {
            names = check_part_nodes(c, &c->parts[i]);
            fprintf(fp, "%s%s tier %u: %s", i ? "; " : "", c->parts[i].name,
                    c->parts[i].priority_tier, names[0] ? names : "no nodes");
            free(names);
        }
        fprintf(fp, "%s), so no job can ever be preempted",
                c->n_parts > 8 ? "; ..." : "");
        check_prio_fix(c, fp);
        fclose(fp);
        conf_diag_at(c, CONF_WARNING, check_key_loc(c, "PreemptType"), "%s",
                     text);
        free(text);
    }
    free(lo);
    free(hi);
}

static bool check_has_gpus(const struct conf *c, const struct conf_part *p)
{
    for (size_t k = 0; k < p->n_nodes; k++)
        if (gres_count(c->nodes[p->node_idx[k]].gres, "gpu", NULL) > 0)
            return true;
    return false;
}

/* SUSPEND on GPU nodes: what happens to GPU jobs, said once. */
static void check_suspend_gpus(struct conf *c, const struct conf_part *p,
                               const struct conf_loc *loc)
{
    if (conf_preempt_param(c->preempt_parameters, "suspend_gpu_jobs"))
        conf_diag_at(c, CONF_WARNING, loc,
                     "partition %s: PreemptMode=SUSPEND with "
                     "PreemptParameters=suspend_gpu_jobs: suspended jobs "
                     "keep their GPUs and GPU memory, so a preemptor that "
                     "needs those GPUs still cannot start",
                     p->name);
    else
        conf_diag_at(c, CONF_WARNING, loc,
                     "partition %s: PreemptMode=SUSPEND on nodes with GPUs: "
                     "its jobs holding GPUs are requeued (cancelled with "
                     "--no-requeue) instead of suspended, since suspended "
                     "jobs keep their GPUs; PreemptParameters="
                     "suspend_gpu_jobs suspends them anyway",
                     p->name);
}

static void check_part_preempt(struct conf *c, struct conf_part *p)
{
    const struct conf_loc *loc =
        p->preempt_mode_inherited ? check_key_loc(c, "PreemptMode") : &p->loc;
    char a[TIMEFMT_BUFLEN], b[TIMEFMT_BUFLEN];

    if (p->preempt_mode.mode == CONF_PREEMPT_MODE_SUSPEND &&
        check_has_gpus(c, p))
        check_suspend_gpus(c, p, loc ? loc : &p->loc);
    if (c->preempt_exempt_time_s > 0 &&
        p->max_time_s < c->preempt_exempt_time_s)
        conf_diag_at(c, CONF_WARNING, &p->loc,
                     "partition %s: MaxTime=%s is shorter than "
                     "PreemptExemptTime=%s, so its jobs end before they "
                     "can be preempted",
                     p->name, timefmt_format(p->max_time_s, a, sizeof(a)),
                     timefmt_format(c->preempt_exempt_time_s, b, sizeof(b)));
}

static void check_preempt(struct conf *c)
{
    const struct conf_loc *loc;
    char gbuf[32];

    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i].preempt_mode_inherited)
            c->parts[i].preempt_mode = c->preempt_mode;
    loc = check_key_loc(c, "PreemptMode");
    if (c->preempt_mode.mode == CONF_PREEMPT_MODE_SUSPEND &&
        !c->preempt_mode.gang)
        conf_diag_at(c, CONF_ERROR, loc,
                     "PreemptMode=SUSPEND needs GANG: write "
                     "PreemptMode=SUSPEND,GANG (as in Slurm)");
    if (c->preempt_mode.gang &&
        c->preempt_mode.mode != CONF_PREEMPT_MODE_SUSPEND)
        conf_diag_at(c, CONF_WARNING, loc,
                     "PreemptMode=%s: GANG time-slicing is not supported; "
                     "GANG is accepted to allow SUSPEND (it resumes "
                     "suspended jobs) and slices no time",
                     conf_preempt_format(&c->preempt_mode, gbuf, sizeof(gbuf)));
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i].preempt_mode.mode == CONF_PREEMPT_MODE_SUSPEND &&
            !c->parts[i].preempt_mode_inherited && !c->preempt_mode.gang)
            conf_diag_at(c, CONF_ERROR, &c->parts[i].loc,
                         "partition %s: PreemptMode=SUSPEND needs the global "
                         "PreemptMode to include GANG (PreemptMode="
                         "SUSPEND,GANG or CANCEL,GANG ...), as in Slurm",
                         c->parts[i].name);
    if (c->preempt_type == CONF_PREEMPT_NONE)
        return;
    if (c->preempt_mode.mode == CONF_PREEMPT_MODE_OFF) {
        loc = check_key_loc(c, "PreemptMode");
        conf_diag_at(c, CONF_WARNING,
                     loc ? loc : check_key_loc(c, "PreemptType"),
                     "PreemptType=%s with PreemptMode=OFF: nothing will be "
                     "preempted unless a partition sets its own PreemptMode",
                     conf_preempt_type_name(c->preempt_type));
    }
    if (c->preempt_type == CONF_PREEMPT_PARTITION_PRIO)
        check_partition_prio(c);
    for (size_t i = 0; i < c->n_parts; i++)
        check_part_preempt(c, &c->parts[i]);
}

/* Priority weights that do nothing: the seed's setup has both. */
static void check_priority(struct conf *c)
{
    const struct conf_loc *loc = check_key_loc(c, "PriorityWeightAge");

    if (c->priority_type == CONF_PRIORITY_BASIC &&
        (c->priority_weight_age || c->priority_weight_fairshare ||
         c->priority_weight_qos || c->priority_weight_partition ||
         c->priority_weight_job_size))
        conf_diag_at(c, CONF_WARNING,
                     loc ? loc : check_key_loc(c, "PriorityType"),
                     "PriorityWeight* is set but PriorityType is "
                     "priority/basic (the default), which ignores the "
                     "weights and runs jobs in submit order; set "
                     "PriorityType=priority/multifactor");
    else if (c->priority_type == CONF_PRIORITY_MULTIFACTOR &&
             c->priority_weight_age > 0 && c->priority_weight_qos == 0)
        conf_diag_at(c, CONF_WARNING, loc,
                     "hint: PriorityWeightQOS=0, so QOS Priority values "
                     "(sacctmgr add qos prod_qos Priority=1000 ...) do not "
                     "affect job priority; set PriorityWeightQOS if they "
                     "should");
}

static void check_cluster(struct conf *c)
{
    if (c->cluster_name[0] == '\0')
        conf_diag_at(c, CONF_ERROR, NULL,
                     "ClusterName is not set (Slurm requires it too)");
    if (c->n_ctld_hosts == 0)
        conf_diag_at(c, CONF_ERROR, NULL,
                     "SlurmctldHost is not set: the daemons and commands "
                     "would not know where the controller runs");
    for (size_t i = 0; i < c->n_nodes; i++)
        if (c->nodes[i].port == 0)
            c->nodes[i].port = c->slurmd_port;
}

/* DefMemPerCPU and DefMemPerNode exclude each other (as in Slurm), and
 * so do MaxMemPerCPU and MaxMemPerNode, on one line or globally. */
static void check_mem_pair(struct conf *c, const struct conf_mem *m,
                           const struct conf_loc *loc, const char *where)
{
    if (m->def_per_cpu_mib != 0 && m->def_per_node_mib != 0)
        conf_diag_at(c, CONF_ERROR, loc,
                     "%s: DefMemPerCPU and DefMemPerNode are mutually "
                     "exclusive",
                     where);
    if (m->max_per_cpu_mib != 0 && m->max_per_node_mib != 0)
        conf_diag_at(c, CONF_ERROR, loc,
                     "%s: MaxMemPerCPU and MaxMemPerNode are mutually "
                     "exclusive",
                     where);
}

static void check_mem(struct conf *c)
{
    char where[160];

    check_mem_pair(c, &c->mem, check_key_loc(c, "DefMemPerCPU"), "global");
    for (size_t i = 0; i < c->n_parts; i++) {
        snprintf(where, sizeof(where), "partition %s", c->parts[i].name);
        check_mem_pair(c, &c->parts[i].mem, &c->parts[i].loc, where);
    }
}

void conf_check(struct conf *c)
{
    int bad = 0;

    check_cluster(c);
    for (size_t i = 0; i < c->n_parts; i++)
        bad |= check_resolve(c, &c->parts[i]);
    if (bad)
        return;
    check_default(c);
    if (c->n_parts > 0)
        check_orphans(c);
    check_gres_types(c);
    check_preempt(c);
    check_priority(c);
    check_mem(c);
}
