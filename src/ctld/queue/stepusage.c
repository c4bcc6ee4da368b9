/*
 * A step's usage as sstat and sacct show it: the per-task samples its
 * nodes sent (STEP_USAGE while it runs, STEP_END at the end) folded into
 * maxima with the node and task where each was seen, the minimum CPU
 * time, averages over all tasks and CPU totals (steps.h).
 */
#include <stdint.h>
#include <string.h>

#include "common/conf.h"
#include "ctld/queue/steps.h"

/* One measure's maximum (or minimum), where it was seen, and its sum. */
struct extreme {
    uint64_t v;
    const char *node;
    uint32_t task;
    uint64_t sum;
    bool seen;
};

static void fold(struct extreme *x, uint64_t v, const char *node, uint32_t task,
                 bool min)
{
    x->sum += v;
    if (x->seen && (min ? v >= x->v : v <= x->v))
        return;
    *x = (struct extreme){v, node, task, x->sum, true};
}

enum { U_RSS, U_VMSIZE, U_PAGES, U_CPU, U_READ, U_WRITE, U_COUNT };

struct agg {
    struct extreme x[U_COUNT];
    uint64_t user_us, sys_us, ntasks;
};

static uint64_t field(json_t *t, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(t, key));

    return v > 0 ? (uint64_t)v : 0;
}

static void fold_task(struct agg *a, json_t *t, const char *node)
{
    uint32_t task = (uint32_t)field(t, "task");
    uint64_t user = field(t, "user_cpu_us"), sys = field(t, "sys_cpu_us");

    fold(&a->x[U_RSS], field(t, "rss_kib"), node, task, false);
    fold(&a->x[U_VMSIZE], field(t, "vmsize_kib"), node, task, false);
    fold(&a->x[U_PAGES], field(t, "pages"), node, task, false);
    fold(&a->x[U_CPU], user + sys, node, task, true);
    fold(&a->x[U_READ], field(t, "read_bytes"), node, task, false);
    fold(&a->x[U_WRITE], field(t, "write_bytes"), node, task, false);
    a->user_us += user;
    a->sys_us += sys;
    a->ntasks++;
}

/* "max_rss_kib", "max_rss_node", "max_rss_task", "ave_rss_kib" and the
 * like for x under the names given. */
static void put(json_t *o, const struct extreme *x, uint64_t ntasks,
                const char *val, const char *node, const char *task,
                const char *ave)
{
    json_object_set_new(o, val, json_integer((json_int_t)x->v));
    json_object_set_new(o, node, json_string(x->node ? x->node : ""));
    json_object_set_new(o, task, json_integer(x->task));
    json_object_set_new(
        o, ave, json_integer((json_int_t)(ntasks ? x->sum / ntasks : 0)));
}

json_t *stepusage_aggregate(const struct step *s, const struct conf *conf)
{
    struct agg a;
    json_t *o = json_object();

    memset(&a, 0, sizeof(a));
    for (size_t i = 0; i < s->n_nodes; i++) {
        json_t *tasks = json_object_get(s->nodes[i].usage, "tasks"), *t;
        const char *node = conf->nodes[s->nodes[i].node].name;
        size_t k;
        json_array_foreach(tasks, k, t)
        {
            if (json_is_object(t))
                fold_task(&a, t, node);
        }
    }
    put(o, &a.x[U_RSS], a.ntasks, "max_rss_kib", "max_rss_node", "max_rss_task",
        "ave_rss_kib");
    put(o, &a.x[U_VMSIZE], a.ntasks, "max_vmsize_kib", "max_vmsize_node",
        "max_vmsize_task", "ave_vmsize_kib");
    put(o, &a.x[U_PAGES], a.ntasks, "max_pages", "max_pages_node",
        "max_pages_task", "ave_pages");
    put(o, &a.x[U_CPU], a.ntasks, "min_cpu_us", "min_cpu_node", "min_cpu_task",
        "ave_cpu_us");
    put(o, &a.x[U_READ], a.ntasks, "max_disk_read", "max_disk_read_node",
        "max_disk_read_task", "ave_disk_read");
    put(o, &a.x[U_WRITE], a.ntasks, "max_disk_write", "max_disk_write_node",
        "max_disk_write_task", "ave_disk_write");
    json_object_set_new(o, "user_cpu_us", json_integer((json_int_t)a.user_us));
    json_object_set_new(o, "sys_cpu_us", json_integer((json_int_t)a.sys_us));
    json_object_set_new(o, "total_cpu_us",
                        json_integer((json_int_t)(a.user_us + a.sys_us)));
    json_object_set_new(o, "sampled_at",
                        json_integer((json_int_t)s->sampled_at));
    return o;
}
