/*
 * The node table: configured nodes, what their daemons report, what is
 * allocated on them, and their states (see nodes.h).
 */
#include "ctld/nodes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/jobs.h"
#include "ctld/listen.h"
#include "ctld/persist.h"

struct nodes {
    struct ctld *c;
    struct node *v;
    size_t n;
};

static void set_str(char **dst, const char *src)
{
    free(*dst);
    *dst = src ? xstrdup(src) : NULL;
}

static int load_admin(void *arg, const char *name, const char *state,
                      const char *reason, time_t reason_time)
{
    struct nodes *ns = arg;
    struct node *n = nodes_find(ns, name);

    if (n == NULL)
        return 0; /* a node no longer configured */
    if (strcmp(state, "DRAIN") == 0)
        n->admin = NODE_ADMIN_DRAIN;
    else if (strcmp(state, "DOWN") == 0)
        n->admin = NODE_ADMIN_DOWN;
    else
        return 0;
    set_str(&n->admin_reason, reason);
    n->admin_reason_time = reason_time;
    return 0;
}

struct nodes *nodes_create(struct ctld *c, struct err *e)
{
    struct nodes *ns = xcalloc(1, sizeof(*ns));
    const struct conf *conf = c->conf;
    time_t now = time(NULL);

    ns->c = c;
    ns->n = conf->n_nodes;
    ns->v = xcalloc(ns->n ? ns->n : 1, sizeof(*ns->v));
    for (size_t i = 0; i < ns->n; i++) {
        struct node *n = &ns->v[i];
        n->cf = &conf->nodes[i];
        n->idx = i;
        n->last_seen = now; /* SlurmdTimeout counts from our start */
        if (n->cf->state == CONF_NODE_DOWN || n->cf->state == CONF_NODE_DRAIN) {
            n->admin = n->cf->state == CONF_NODE_DOWN ? NODE_ADMIN_DOWN
                                                      : NODE_ADMIN_DRAIN;
            n->admin_reason = xstrdup("set in the configuration");
            n->admin_reason_time = now;
        }
    }
    if (persist_node_load(c->persist, load_admin, ns, e) < 0) {
        nodes_destroy(ns);
        return NULL;
    }
    return ns;
}

void nodes_destroy(struct nodes *ns)
{
    if (ns == NULL)
        return;
    for (size_t i = 0; i < ns->n; i++) {
        free(ns->v[i].auto_reason);
        free(ns->v[i].admin_reason);
        free(ns->v[i].gres_reported);
    }
    free(ns->v);
    free(ns);
}

size_t nodes_count(const struct nodes *ns)
{
    return ns->n;
}

struct node *nodes_get(struct nodes *ns, size_t idx)
{
    ASSERT(idx < ns->n);
    return &ns->v[idx];
}

struct node *nodes_find(struct nodes *ns, const char *name)
{
    const struct conf_node *cf = conf_node_find(ns->c->conf, name);

    return cf ? &ns->v[cf - ns->c->conf->nodes] : NULL;
}

void nodes_alloc(struct nodes *ns, size_t idx, uint32_t cpus, uint64_t mem)
{
    struct node *n = nodes_get(ns, idx);

    n->cpus_alloc += cpus;
    n->mem_alloc_mib += mem;
    n->njobs++;
}

void nodes_release(struct nodes *ns, size_t idx, uint32_t cpus, uint64_t mem)
{
    struct node *n = nodes_get(ns, idx);

    n->cpus_alloc = n->cpus_alloc > cpus ? n->cpus_alloc - cpus : 0;
    n->mem_alloc_mib = n->mem_alloc_mib > mem ? n->mem_alloc_mib - mem : 0;
    if (n->njobs > 0)
        n->njobs--;
}

bool node_usable(const struct node *n)
{
    return n->registered && !n->not_responding && !n->invalid &&
           n->admin != NODE_ADMIN_DOWN && n->conn != NULL;
}

const char *node_state_name(const struct node *n)
{
    if (n->admin == NODE_ADMIN_DOWN || n->not_responding)
        return "DOWN";
    if (n->invalid)
        return "INVALID";
    if (n->admin == NODE_ADMIN_DRAIN)
        return n->njobs > 0 ? "DRAINING" : "DRAIN";
    if (!n->registered)
        return "UNKNOWN";
    if (n->njobs == 0)
        return "IDLE";
    return n->cpus_alloc >= n->cf->cpus ? "ALLOCATED" : "MIXED";
}

const char *node_reason(const struct node *n)
{
    if (n->admin != NODE_ADMIN_NONE && n->admin_reason != NULL)
        return n->admin_reason;
    return n->auto_reason;
}

static time_t node_reason_time(const struct node *n)
{
    if (n->admin != NODE_ADMIN_NONE && n->admin_reason != NULL)
        return n->admin_reason_time;
    return n->auto_reason ? n->auto_reason_time : 0;
}

static json_t *node_parts(struct nodes *ns, size_t idx)
{
    const struct conf *conf = ns->c->conf;
    json_t *a = json_array();

    for (size_t i = 0; i < conf->n_parts; i++)
        for (size_t k = 0; k < conf->parts[i].n_nodes; k++)
            if (conf->parts[i].node_idx[k] == idx)
                json_array_append_new(a, json_string(conf->parts[i].name));
    return a;
}

json_t *node_to_json(struct nodes *ns, const struct node *n)
{
    char gres[256];
    const char *reason = node_reason(n);
    json_t *jobs = json_array();
    size_t nj;
    struct job **list = jobs_on_node(ns->c->jobs, n->idx, false, &nj);

    for (size_t i = 0; i < nj; i++)
        json_array_append_new(jobs, json_integer((json_int_t)list[i]->id));
    free(list);
    gres_format(n->cf->gres, gres, sizeof(gres));
    return json_pack(
        "{s:s, s:s, s:o, s:o, s:i, s:i, s:I, s:I, s:s, s:o, s:s, s:o, s:o, "
        "s:o, s:o, s:o}",
        "name", n->cf->name, "state", node_state_name(n), "reason",
        reason ? json_string(reason) : json_null(), "reason_time",
        node_reason_time(n) ? json_integer((json_int_t)node_reason_time(n))
                            : json_null(),
        "cpus", (int)n->cf->cpus, "cpus_alloc", (int)n->cpus_alloc, "mem_mib",
        (json_int_t)n->cf->mem_mib, "mem_alloc_mib",
        (json_int_t)n->mem_alloc_mib, "gres", gres, "partitions",
        node_parts(ns, n->idx), "addr", n->cf->addr, "boot_time",
        n->boot_time ? json_integer((json_int_t)n->boot_time) : json_null(),
        "last_seen",
        n->registered ? json_integer((json_int_t)n->last_seen) : json_null(),
        "cpus_reported",
        n->registered ? json_integer(n->cpus_reported) : json_null(),
        "mem_reported_mib",
        n->registered ? json_integer((json_int_t)n->mem_reported_mib)
                      : json_null(),
        "jobs", jobs);
}

void nodes_register(struct nodes *ns, struct node *n, struct conn *conn,
                    uint32_t cpus, uint64_t mem_mib, const char *gres,
                    time_t boot_time, time_t now)
{
    char why[128] = "";

    if (n->conn != NULL && n->conn != conn)
        listen_conn_set_node(n->conn, -1); /* an older connection */
    n->conn = conn;
    listen_conn_set_node(conn, (long)n->idx);
    n->registered = true;
    n->not_responding = false;
    n->last_seen = now;
    n->boot_time = boot_time;
    n->cpus_reported = cpus;
    n->mem_reported_mib = mem_mib;
    set_str(&n->gres_reported, gres);
    if (cpus < n->cf->cpus)
        snprintf(why, sizeof(why), "Low CPUs (%u < %u)", cpus, n->cf->cpus);
    else if (mem_mib < n->cf->mem_mib)
        snprintf(why, sizeof(why), "Low RealMemory (%" PRIu64 " < %" PRIu64 ")",
                 mem_mib, n->cf->mem_mib);
    n->invalid = why[0] != '\0';
    set_str(&n->auto_reason, n->invalid ? why : NULL);
    n->auto_reason_time = now;
    log_info("node=%s registered state=%s cpus=%u mem_mib=%" PRIu64 "%s%s",
             n->cf->name, node_state_name(n), cpus, mem_mib,
             n->invalid ? " reason=" : "", n->invalid ? why : "");
    ctld_schedule(ns->c);
}

bool nodes_seen(struct nodes *ns, struct node *n, time_t now)
{
    n->last_seen = now;
    if (!n->not_responding || n->conn == NULL)
        return false;
    n->not_responding = false;
    if (!n->invalid)
        set_str(&n->auto_reason, NULL);
    log_info("node=%s responding again state=%s", n->cf->name,
             node_state_name(n));
    ctld_schedule(ns->c);
    return true;
}

void nodes_conn_closed(struct nodes *ns, size_t idx, struct conn *conn)
{
    struct node *n = nodes_get(ns, idx);

    if (n->conn != conn)
        return;
    n->conn = NULL;
    log_info("node=%s connection closed; DOWN after %us without it",
             n->cf->name, ns->c->conf->slurmd_timeout_s);
}

static const char *admin_name(enum node_admin a)
{
    return a == NODE_ADMIN_DRAIN ? "DRAIN" : a == NODE_ADMIN_DOWN ? "DOWN" : "";
}

int nodes_set_admin(struct nodes *ns, struct node *n, enum node_admin admin,
                    const char *reason, time_t now, struct err *e)
{
    if (ctld_write(ns->c, e) < 0 ||
        persist_node_save(ns->c->persist, n->cf->name, admin_name(admin),
                          admin == NODE_ADMIN_NONE ? "" : reason, now, e) < 0)
        return -1;
    n->admin = admin;
    set_str(&n->admin_reason, admin == NODE_ADMIN_NONE ? NULL : reason);
    n->admin_reason_time = now;
    log_info("node=%s admin=%s reason=\"%s\"", n->cf->name,
             admin == NODE_ADMIN_NONE ? "RESUME" : admin_name(admin),
             reason ? reason : "");
    if (admin == NODE_ADMIN_DOWN) {
        size_t nj;
        struct job **list = jobs_on_node(ns->c->jobs, n->idx, true, &nj);
        for (size_t i = 0; i < nj; i++)
            jobs_kill(ns->c->jobs, list[i], "node_down");
        free(list);
        jobs_node_down(ns->c->jobs, n->idx, "NodeDown", now);
    }
    ctld_schedule(ns->c);
    return 0;
}

void nodes_tick(struct nodes *ns, time_t now)
{
    uint32_t limit = ns->c->conf->slurmd_timeout_s;

    if (limit == 0)
        return; /* SlurmdTimeout=0: never */
    for (size_t i = 0; i < ns->n; i++) {
        struct node *n = &ns->v[i];
        if (n->not_responding || now - n->last_seen < (time_t)limit)
            continue;
        n->not_responding = true;
        set_str(&n->auto_reason, "Not responding");
        n->auto_reason_time = now;
        log_warnx("node=%s state=DOWN reason=\"Not responding\" silent_s=%lld",
                  n->cf->name, (long long)(now - n->last_seen));
        jobs_node_down(ns->c->jobs, n->idx, "NodeDown", now);
        ctld_schedule(ns->c);
    }
}

uint32_t nodes_heartbeat_s(const struct nodes *ns)
{
    uint32_t t = ns->c->conf->slurmd_timeout_s / 3;

    if (ns->c->conf->slurmd_timeout_s == 0)
        return 30;
    return t < 1 ? 1 : t;
}
