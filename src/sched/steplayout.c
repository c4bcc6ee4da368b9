/*
 * srun's task layout inside a job's allocation, as Slurm 22.05 lays it
 * out: which of the job's nodes a step runs on, how many tasks and which
 * task ids go on each, and the CPUs and GPUs the step holds there.
 */
#include "sched/steplayout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/xalloc.h"

/* Slurm's own words (ESLURM_NODES_BUSY, ESLURM_TOO_MANY_REQUESTED_CPUS,
 * ESLURM_INVALID_TASK_MEMORY, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE),
 * which srun prints after "Unable to create step for job N: ". */
#define BUSY_TEXT "Requested nodes are busy"
#define CPUS_TEXT "More processors requested than permitted"
#define MEM_TEXT "Memory required by task is not available"
#define CONFIG_TEXT "Requested node configuration is not available"

/* The layout being worked out; per-node arrays are indexed like the
 * job's nodes. */
struct plan {
    const struct sl_node *nodes;
    size_t n;
    const struct sl_req *r;
    uint32_t cpt;    /* CPUs per task, at least 1 */
    bool *usable;    /* not removed by -x */
    bool *named;     /* named by -w */
    bool *chosen;    /* the step's nodes */
    uint32_t *count; /* tasks per chosen node */
    size_t n_usable, n_named;
    uint32_t n_want; /* the step's node count */
    uint32_t ntasks;
    char *warning;
};

static long node_index(const struct plan *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->nodes[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* The job's nodes compressed, for messages: "node[01-02]". */
static char *job_nodes(const struct plan *p)
{
    struct hostlist *hl = hostlist_create();
    char *s;

    for (size_t i = 0; i < p->n; i++)
        hostlist_push_host(hl, p->nodes[i].name);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

/*
 * mark_names: set marks[i] for every job node named by expr (option opt,
 * for messages).  A name outside the job is an error for -w (strict) and
 * ignored for -x: excluding a node the job does not have changes nothing.
 */
static int mark_names(const struct plan *p, const char *expr, bool strict,
                      const char *opt, bool *marks, struct err *e)
{
    struct hostlist *hl = hostlist_expand(expr, e);
    int rc = 0;

    if (hl == NULL) {
        err_prefix(e, "%s", opt);
        errno = EINVAL;
        return -1;
    }
    for (size_t k = 0; k < hostlist_count(hl); k++) {
        const char *name = hostlist_nth(hl, k);
        long i = node_index(p, name);
        if (i >= 0) {
            marks[i] = true;
        } else if (strict) {
            char *all = job_nodes(p);
            rc = err_inval(e, "%s is not in the job's allocation (%s)", name,
                           all);
            free(all);
            break;
        }
    }
    hostlist_destroy(hl);
    return rc;
}

/* filter_nodes: apply -x and -w to the job's nodes. */
static int filter_nodes(struct plan *p, struct err *e)
{
    const struct sl_req *r = p->r;
    bool *excluded = xcalloc(p->n, sizeof(*excluded));
    int rc = -1;

    if (r->exclude != NULL && r->exclude[0] != '\0' &&
        mark_names(p, r->exclude, false, "--exclude", excluded, e) < 0)
        goto out;
    if (r->nodelist != NULL && r->nodelist[0] != '\0' &&
        mark_names(p, r->nodelist, true, "--nodelist", p->named, e) < 0)
        goto out;
    for (size_t i = 0; i < p->n; i++) {
        if (p->named[i] && excluded[i]) {
            err_inval(e, "%s is both in --nodelist and in --exclude",
                      p->nodes[i].name);
            goto out;
        }
        p->usable[i] = !excluded[i];
        p->n_usable += p->usable[i];
        p->n_named += p->named[i];
    }
    if (p->n_usable == 0) {
        err_inval(e, CONFIG_TEXT ": --exclude leaves none of the job's "
                                 "nodes");
        goto out;
    }
    rc = 0;
out:
    free(excluded);
    return rc;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
    return a / b + (a % b != 0);
}

/* "-N 2" or "-N 1-3", for messages. */
static void nodes_arg(const struct sl_req *r, char *buf, size_t len)
{
    if (r->nodes_max > r->nodes_min && r->nodes_min > 0)
        snprintf(buf, len, "-N %u-%u", r->nodes_min, r->nodes_max);
    else
        snprintf(buf, len, "-N %u",
                 r->nodes_min > 0 ? r->nodes_min : r->nodes_max);
}

/* The node count from -N, -w and -x alone. */
static int base_node_count(struct plan *p, struct err *e)
{
    const struct sl_req *r = p->r;
    uint32_t lo = r->nodes_min, hi = r->nodes_max;

    if (hi != 0 && lo > hi)
        return err_inval(e,
                         "-N %u-%u: the minimum node count is over the "
                         "maximum",
                         lo, hi);
    if (lo > p->n)
        return err_inval(e, "Only allocated %zu nodes asked for %u", p->n, lo);
    if (lo > p->n_usable)
        return err_inval(e,
                         CONFIG_TEXT ": -N %u but --exclude leaves %zu "
                                     "of the job's nodes",
                         lo, p->n_usable);
    if (lo == 0 && hi == 0) {
        p->n_want = (uint32_t)(p->n_named > 0 ? p->n_named : p->n_usable);
        return 0;
    }
    p->n_want = lo > 0 ? lo : (uint32_t)(hi < p->n_usable ? hi : p->n_usable);
    if (p->n_named > p->n_want) {
        /* -w names nodes the step must use: the count may grow to them
         * within -N's maximum, never past it */
        if (p->n_named > (hi > lo ? hi : lo))
            return err_inval(e,
                             CONFIG_TEXT ": --nodelist names %zu nodes "
                                         "but -N allows at most %u",
                             p->n_named, hi > lo ? hi : lo);
        p->n_want = (uint32_t)p->n_named;
    }
    return 0;
}

/*
 * ntpn_node_count: with --ntasks-per-node and -n, enough nodes for every
 * task.  Without -N the step packs its tasks on as few nodes as that
 * allows (and at least the -w nodes); with -N MIN-MAX it may grow to MAX.
 */
static int ntpn_node_count(struct plan *p, struct err *e)
{
    const struct sl_req *r = p->r;
    uint32_t need = div_up(r->ntasks, r->ntasks_per_node);
    bool nodes_given = r->nodes_min > 0 || r->nodes_max > 0;
    uint32_t most = p->n_want;
    char arg[48];

    if (!nodes_given) {
        most = (uint32_t)p->n_usable;
        p->n_want = (uint32_t)p->n_named;
    } else if (r->nodes_max > p->n_want) {
        most =
            r->nodes_max < p->n_usable ? r->nodes_max : (uint32_t)p->n_usable;
    }
    if (need <= p->n_want)
        return 0;
    if (need <= most) {
        p->n_want = need;
        return 0;
    }
    if (!nodes_given)
        return err_inval(e,
                         "--ntasks-per-node=%u with -n %u needs %u nodes "
                         "but the step may use %u",
                         r->ntasks_per_node, r->ntasks, need, most);
    nodes_arg(r, arg, sizeof(arg));
    return err_inval(e,
                     "--ntasks-per-node=%u with -n %u and %s needs %u "
                     "nodes",
                     r->ntasks_per_node, r->ntasks, arg, need);
}

/* size_step: the step's node count and task count. */
static int size_step(struct plan *p, struct err *e)
{
    const struct sl_req *r = p->r;
    uint64_t tasks;

    if (base_node_count(p, e) < 0)
        return -1;
    if (r->ntasks > 0 && r->ntasks_per_node > 0 && ntpn_node_count(p, e) < 0)
        return -1;
    if (r->ntasks > 0 && r->ntasks < p->n_want) {
        if (p->n_named > r->ntasks)
            return err_inval(e,
                             "can't run %u processes on the %zu nodes of "
                             "--nodelist",
                             r->ntasks, p->n_named);
        p->warning = xasprintf("can't run %u processes on %u nodes, "
                               "setting nnodes to %u",
                               r->ntasks, p->n_want, r->ntasks);
        p->n_want = r->ntasks;
    }
    tasks = r->ntasks;
    if (tasks == 0)
        tasks = (uint64_t)p->n_want *
                (r->ntasks_per_node > 0 ? r->ntasks_per_node : 1);
    if (tasks > UINT32_MAX)
        return err_inval(e,
                         "%u nodes with --ntasks-per-node=%u make too "
                         "many tasks",
                         p->n_want, r->ntasks_per_node);
    p->ntasks = (uint32_t)tasks;
    return 0;
}

/* GPUs the step needs on a node where it runs count tasks. */
static uint32_t gpus_needed(const struct sl_req *r, uint32_t count)
{
    uint64_t per_task = (uint64_t)r->gpus_per_task * count;

    if (per_task > UINT32_MAX)
        return UINT32_MAX;
    return per_task > r->gpus_per_node ? (uint32_t)per_task : r->gpus_per_node;
}

static uint32_t gpus_free(const struct sl_node *nd)
{
    uint32_t k = 0;

    for (uint32_t g = 0; g < nd->n_gpus; g++)
        k += nd->gpu_free == NULL || nd->gpu_free[g];
    return k;
}

/* fits_job: count tasks of the step could ever run on node i (EINVAL). */
static int fits_job(const struct plan *p, size_t i, uint32_t count,
                    struct err *e)
{
    const struct sl_node *nd = &p->nodes[i];
    const struct sl_req *r = p->r;
    uint32_t gpus = gpus_needed(r, count);

    if ((uint64_t)count * p->cpt > nd->cpus)
        return err_inval(e, CPUS_TEXT);
    if (gpus > nd->n_gpus && r->gpus_per_task > 0 &&
        (uint64_t)r->gpus_per_task * count >= r->gpus_per_node)
        return err_inval(e,
                         "the step asks for %u GPUs per task (%u on %s) "
                         "but the job has %u GPUs there",
                         r->gpus_per_task, gpus, nd->name, nd->n_gpus);
    if (gpus > nd->n_gpus)
        return err_inval(e,
                         "the step asks for %u GPUs per node but the "
                         "job has %u GPUs on %s",
                         gpus, nd->n_gpus, nd->name);
    if (r->mem_mib > 0 && nd->mem_mib > 0 && r->mem_mib > nd->mem_mib)
        return err_inval(e,
                         MEM_TEXT ": the step asks for %llu MiB per node "
                                  "but the job has %llu MiB on %s",
                         (unsigned long long)r->mem_mib,
                         (unsigned long long)nd->mem_mib, nd->name);
    return 0;
}

/* fits_now: what the step would hold on node i is not held by another
 * running step. */
static bool fits_now(const struct plan *p, size_t i, uint32_t count)
{
    const struct sl_node *nd = &p->nodes[i];
    uint32_t cpus = p->r->exact ? count * p->cpt : nd->cpus;

    if (p->r->overlap)
        return true;
    return nd->cpus_free >= cpus && gpus_free(nd) >= gpus_needed(p->r, count);
}

enum pick_mode { PICK_NOW, PICK_JOB, PICK_ANY };

/*
 * pick: choose the -w nodes and then the first other usable nodes that
 * take t tasks in the given mode, up to the step's node count.  Whether
 * all were found.
 */
static bool pick(struct plan *p, uint32_t t, enum pick_mode mode)
{
    uint32_t k = 0;

    for (size_t i = 0; i < p->n; i++) {
        p->chosen[i] = p->named[i];
        k += p->named[i];
    }
    for (size_t i = 0; i < p->n && k < p->n_want; i++) {
        bool ok = mode == PICK_ANY || fits_job(p, i, t, NULL) == 0;
        if (mode == PICK_NOW)
            ok = ok && fits_now(p, i, t);
        if (p->usable[i] && !p->named[i] && ok) {
            p->chosen[i] = true;
            k++;
        }
    }
    return k == p->n_want;
}

/*
 * choose_nodes: all usable nodes when the step uses as many; otherwise the
 * first that fit now, else the first that fit the job (the checks then say
 * they are busy), else the first (the checks then say why none fits).
 */
static void choose_nodes(struct plan *p)
{
    uint32_t t = div_up(p->ntasks, p->n_want);

    if (p->r->ntasks_per_node > 0 && t > p->r->ntasks_per_node)
        t = p->r->ntasks_per_node;
    if (p->n_want == p->n_usable) {
        memcpy(p->chosen, p->usable, p->n * sizeof(*p->chosen));
        return;
    }
    if (!pick(p, t, PICK_NOW) && !pick(p, t, PICK_JOB))
        pick(p, t, PICK_ANY);
}

/*
 * spread: tasks per chosen node.  Round robin over the nodes, each taking
 * tasks while its CPUs last (CPUs / cpus per task), as Slurm does to cope
 * with nodes of different sizes; even counts with the remainder on the
 * first nodes when they are alike.  --ntasks-per-node caps every node.
 */
static int spread(struct plan *p, struct err *e)
{
    uint32_t hard = p->r->ntasks_per_node ? p->r->ntasks_per_node : UINT32_MAX;
    uint64_t total = 0;
    uint32_t left = p->ntasks;
    bool over = false;

    for (size_t i = 0; i < p->n; i++)
        if (p->chosen[i])
            total += p->nodes[i].cpus;
    if ((uint64_t)p->ntasks * p->cpt > total)
        return err_inval(e, CPUS_TEXT);
    for (uint32_t round = 0; left > 0; round++) {
        bool room = false, progress = false;
        for (size_t i = 0; i < p->n && left > 0; i++) {
            uint32_t cap = p->nodes[i].cpus / p->cpt;
            if (!p->chosen[i] || p->count[i] >= hard || (round >= cap && !over))
                continue;
            p->count[i]++;
            left--;
            progress = true;
            room |= round + 1 < cap;
        }
        /* only --ntasks-per-node under the CPUs can leave tasks over:
         * they then go past the CPUs, which the checks refuse */
        ASSERT(progress || !over);
        over |= !room;
    }
    return 0;
}

/* check_nodes: every chosen node fits the job (EINVAL), then fits now
 * (EAGAIN), so that a step that can never run is not left waiting. */
static int check_nodes(const struct plan *p, struct err *e)
{
    for (size_t i = 0; i < p->n; i++) {
        if (!p->chosen[i])
            continue;
        if (p->count[i] == 0)
            return err_inval(e,
                             CPUS_TEXT ": %s has %u CPUs, fewer than "
                                       "-c %u",
                             p->nodes[i].name, p->nodes[i].cpus, p->cpt);
        if (fits_job(p, i, p->count[i], e) < 0)
            return -1;
    }
    for (size_t i = 0; i < p->n; i++) {
        if (p->chosen[i] && !fits_now(p, i, p->count[i])) {
            err_set(e, BUSY_TEXT);
            errno = EAGAIN;
            return -1;
        }
    }
    return 0;
}

/* The GPUs the step's tasks see on one node: the lowest free ones asked
 * for (any with --overlap, which holds none), or all of the job's. */
static void fill_gpus(const struct plan *p, size_t i, struct sl_node_out *o)
{
    const struct sl_node *nd = &p->nodes[i];
    uint32_t need = gpus_needed(p->r, o->ntasks);
    bool any = need == 0 || p->r->overlap;

    o->n_gpus = need > 0 ? need : nd->n_gpus;
    o->gpus_held = need > 0 && !p->r->overlap;
    if (o->n_gpus == 0)
        return;
    o->gpus = xcalloc(o->n_gpus, sizeof(*o->gpus));
    for (uint32_t g = 0, k = 0; g < nd->n_gpus && k < o->n_gpus; g++)
        if (any || nd->gpu_free == NULL || nd->gpu_free[g])
            o->gpus[k++] = nd->gpus[g];
}

/* Task ids: block gives each node consecutive ids; cyclic deals them out
 * one per node in turn, passing nodes that have all theirs. */
static void fill_tasks(struct sl_layout *l, enum sl_dist dist)
{
    uint32_t id = 0;
    uint32_t *have = xcalloc(l->n_nodes, sizeof(*have));

    while (id < l->ntasks) {
        for (size_t k = 0; k < l->n_nodes && id < l->ntasks; k++) {
            struct sl_node_out *o = &l->nodes[k];
            while (have[k] < o->ntasks) {
                o->tasks[have[k]++] = id++;
                if (dist == SL_DIST_CYCLIC)
                    break;
            }
        }
    }
    free(have);
}

static void build(struct plan *p, struct sl_layout *l)
{
    size_t k = 0;

    l->ntasks = p->ntasks;
    l->cpus_per_task = p->cpt;
    l->gpus_per_task = p->r->gpus_per_task;
    l->n_nodes = p->n_want;
    l->nodes = xcalloc(l->n_nodes, sizeof(*l->nodes));
    for (size_t i = 0; i < p->n; i++) {
        struct sl_node_out *o;
        if (!p->chosen[i])
            continue;
        ASSERT(k < l->n_nodes);
        o = &l->nodes[k++];
        o->node = i;
        o->ntasks = p->count[i];
        o->tasks = xcalloc(o->ntasks, sizeof(*o->tasks));
        if (p->r->overlap)
            o->cpus = 0;
        else
            o->cpus = p->r->exact ? o->ntasks * p->cpt : p->nodes[i].cpus;
        fill_gpus(p, i, o);
    }
    ASSERT(k == l->n_nodes);
    fill_tasks(l, p->r->dist);
    l->warning = p->warning;
    p->warning = NULL;
}

int steplayout_plan(const struct sl_node *nodes, size_t n,
                    const struct sl_req *r, struct sl_layout *out,
                    struct err *e)
{
    struct plan p = {.nodes = nodes, .n = n, .r = r};
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return err_inval(e, "the job has no nodes");
    p.cpt = r->cpus_per_task > 0 ? r->cpus_per_task : 1;
    p.usable = xcalloc(n, sizeof(*p.usable));
    p.named = xcalloc(n, sizeof(*p.named));
    p.chosen = xcalloc(n, sizeof(*p.chosen));
    p.count = xcalloc(n, sizeof(*p.count));
    if (filter_nodes(&p, e) < 0 || size_step(&p, e) < 0)
        goto out;
    choose_nodes(&p);
    if (spread(&p, e) < 0 || check_nodes(&p, e) < 0)
        goto out;
    build(&p, out);
    rc = 0;
out:
    free(p.usable);
    free(p.named);
    free(p.chosen);
    free(p.count);
    free(p.warning);
    return rc;
}

void steplayout_clear(struct sl_layout *l)
{
    if (l == NULL)
        return;
    for (size_t k = 0; k < l->n_nodes; k++) {
        free(l->nodes[k].tasks);
        free(l->nodes[k].gpus);
    }
    free(l->nodes);
    free(l->warning);
    memset(l, 0, sizeof(*l));
}

char *steplayout_counts(const uint32_t *counts, size_t n)
{
    /* a group is at most "4294967295(x18446744073709551615)," */
    char *s = xmalloc(n * 40 + 1);
    size_t len = 0;

    s[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && counts[j] == counts[i])
            j++;
        len += (size_t)sprintf(s + len, "%s%u", i > 0 ? "," : "", counts[i]);
        if (j - i > 1)
            len += (size_t)sprintf(s + len, "(x%zu)", j - i);
        i = j;
    }
    return s;
}
