/*
 * The node table: configured nodes, what their daemons report, what is
 * allocated on them, and their states (see nodes.h).
 */
#include "ctld/cluster/nodes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/cluster/parts.h"
#include "ctld/net/listen.h"
#include "ctld/core/persist.h"
#include "ctld/cluster/tres.h"

struct nodes {
    const struct conf *conf; /* the pointers are borrowed (nodes_create) */
    struct persist *persist;
    struct loop *loop;
    const struct parts *parts;
    struct nodes_events ev; /* the root's */
    void *ev_arg;
    struct node *v;
    size_t n;
    /* silence is counted from here at the earliest (nodes_silence_reset) */
    time_t silence_from;
};

static void set_str(char **dst, const char *src)
{
    free(*dst);
    *dst = src ? xstrdup(src) : NULL;
}

/* Who set an admin reason is stored after it, "TEXT\x1fUID", so that
 * the table keeps its columns: split it off again. */
#define REASON_UID_SEP '\x1f'

static void reason_split(struct node *n)
{
    char *sep =
        n->admin_reason ? strrchr(n->admin_reason, REASON_UID_SEP) : NULL;

    n->admin_reason_uid = -1;
    if (sep == NULL)
        return;
    *sep = '\0';
    n->admin_reason_uid = strtoll(sep + 1, NULL, 10);
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
    reason_split(n);
    return 0;
}

struct nodes *nodes_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, const struct parts *parts,
                           const struct nodes_events *ev, void *arg,
                           struct err *e)
{
    struct nodes *ns = xcalloc(1, sizeof(*ns));
    time_t now = time(NULL);

    ns->conf = conf;
    ns->persist = persist;
    ns->loop = loop;
    ns->parts = parts;
    ns->ev = *ev;
    ns->ev_arg = arg;
    ns->n = conf->n_nodes;
    ns->v = xcalloc(ns->n ? ns->n : 1, sizeof(*ns->v));
    for (size_t i = 0; i < ns->n; i++) {
        struct node *n = &ns->v[i];
        n->cf = &conf->nodes[i];
        n->idx = i;
        n->admin_reason_uid = -1;
        nodegpu_from_conf(n->cf->gres, &n->gpus);
        n->gpu_used = xcalloc(SCHED_GPU_WORDS(SCHED_GPU_MAX), sizeof(uint64_t));
        n->last_seen = now; /* SlurmdTimeout counts from our start */
        if (n->cf->state == CONF_NODE_DOWN || n->cf->state == CONF_NODE_DRAIN) {
            n->admin = n->cf->state == CONF_NODE_DOWN ? NODE_ADMIN_DOWN
                                                      : NODE_ADMIN_DRAIN;
            n->admin_reason = xstrdup("set in the configuration");
            n->admin_reason_time = now;
        }
    }
    if (persist_node_load(persist, load_admin, ns, e) < 0) {
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
        free(ns->v[i].gres_note);
        free(ns->v[i].host_reported);
        free(ns->v[i].cgroup);
        free(ns->v[i].fence);
        free(ns->v[i].fence_why);
        free(ns->v[i].gpu_used);
        free(ns->v[i].users);
        nodegpu_fini(&ns->v[i].gpus);
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
    const struct conf_node *cf = conf_node_find(ns->conf, name);

    return cf ? &ns->v[cf - ns->conf->nodes] : NULL;
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

void nodes_user_add(struct nodes *ns, size_t idx, uint32_t uid, unsigned excl)
{
    struct node *n = nodes_get(ns, idx);
    size_t i = 0;

    while (i < n->n_users && n->users[i].uid != uid)
        i++;
    if (i == n->n_users) {
        n->users = xreallocarray(n->users, n->n_users + 1, sizeof(*n->users));
        n->users[n->n_users++] = (struct node_user){.uid = uid};
    }
    n->users[i].jobs++;
    n->users[i].exclusive += (excl & NODES_EXCL_USER) != 0;
    n->users[i].whole += (excl & NODES_EXCL_WHOLE) != 0;
}

void nodes_user_remove(struct nodes *ns, size_t idx, uint32_t uid,
                       unsigned excl)
{
    struct node *n = nodes_get(ns, idx);

    for (size_t i = 0; i < n->n_users; i++) {
        struct node_user *u = &n->users[i];
        if (u->uid != uid)
            continue;
        if ((excl & NODES_EXCL_USER) && u->exclusive > 0)
            u->exclusive--;
        if ((excl & NODES_EXCL_WHOLE) && u->whole > 0)
            u->whole--;
        if (u->jobs > 0 && --u->jobs == 0)
            n->users[i] = n->users[--n->n_users];
        return;
    }
}

bool nodes_gpu_used(const struct node *n, uint32_t index)
{
    return index < SCHED_GPU_MAX &&
           ((n->gpu_used[index / 64] >> (index % 64)) & 1) != 0;
}

size_t nodes_gpus_alloc(const struct node *n)
{
    size_t k = 0;

    for (size_t i = 0; i < SCHED_GPU_WORDS(SCHED_GPU_MAX); i++)
        k += (size_t)__builtin_popcountll(n->gpu_used[i]);
    return k;
}

size_t nodes_gpus_take(struct nodes *ns, size_t idx, const uint32_t *gpus,
                       size_t n)
{
    struct node *nd = nodes_get(ns, idx);
    size_t twice = 0;

    for (size_t i = 0; i < n; i++) {
        if (gpus[i] >= SCHED_GPU_MAX)
            continue;
        if (nodes_gpu_used(nd, gpus[i])) {
            log_warnx("node=%s gpu=%u allocated twice", nd->cf->name, gpus[i]);
            twice++;
        }
        nd->gpu_used[gpus[i] / 64] |= UINT64_C(1) << (gpus[i] % 64);
    }
    return twice;
}

void nodes_gpus_give(struct nodes *ns, size_t idx, const uint32_t *gpus,
                     size_t n)
{
    struct node *nd = nodes_get(ns, idx);

    for (size_t i = 0; i < n; i++)
        if (gpus[i] < SCHED_GPU_MAX)
            nd->gpu_used[gpus[i] / 64] &= ~(UINT64_C(1) << (gpus[i] % 64));
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
    for (size_t i = 0; i < n->n_users; i++)
        if (n->users[i].whole > 0)
            return "ALLOCATED"; /* --exclusive: the whole node is its */
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
    const struct conf *conf = ns->conf;
    json_t *a = json_array();

    for (size_t i = 0; i < conf->n_parts; i++)
        if (parts_has_node(ns->parts, i, idx))
            json_array_append_new(a, json_string(conf->parts[i].name));
    return a;
}

static json_t *node_base_json(struct nodes *ns, const struct node *n,
                              json_t *jobs)
{
    char gres[256];
    const char *reason = node_reason(n);

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

/* "gpu:2(IDX:0-1)" per type of the node's GPUs, as Slurm's GresUsed. */
static char *gres_used(const struct node *n, char *buf, size_t len)
{
    uint32_t *idx = xcalloc(n->gpus.n + 1, sizeof(*idx));
    size_t off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n->gpus.n && off < len; i++) {
        const char *type = n->gpus.v[i].type;
        size_t k = 0, first = i;
        char list[512];
        int w;
        while (first > 0 && strcmp(n->gpus.v[first - 1].type, type) != 0)
            first--;
        if (first > 0)
            continue; /* a type already written */
        for (size_t g = 0; g < n->gpus.n; g++)
            if (strcmp(n->gpus.v[g].type, type) == 0 &&
                nodes_gpu_used(n, n->gpus.v[g].index))
                idx[k++] = n->gpus.v[g].index;
        w = snprintf(buf + off, len - off, "%sgpu%s%s:%zu(IDX:%s)",
                     off ? "," : "", type[0] ? ":" : "", type, k,
                     k ? nodegpu_idx_list(idx, k, list, sizeof(list)) : "N/A");
        off += w > 0 ? (size_t)w : 0;
    }
    free(idx);
    return buf;
}

static json_t *gpus_alloc_json(const struct node *n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n->gpus.n; i++)
        if (nodes_gpu_used(n, n->gpus.v[i].index))
            json_array_append_new(a, json_integer(n->gpus.v[i].index));
    return a;
}

/* What slurm.conf says of the node's features, weight, disk and shape
 * (Slurm's AvailableFeatures, ActiveFeatures, Weight, TmpDisk, Boards,
 * Sockets, CoresPerSocket, ThreadsPerCore).  Features are not changed at
 * run time here, so the active ones are the available ones. */
static void node_shape_json(json_t *o, const struct conf_node *cf)
{
    json_object_set_new(o, "features", json_string(cf->features));
    json_object_set_new(o, "active_features", json_string(cf->features));
    json_object_set_new(o, "weight", json_integer(cf->weight));
    json_object_set_new(o, "tmp_disk_mib",
                        json_integer((json_int_t)cf->tmp_disk_mib));
    json_object_set_new(o, "boards", json_integer(cf->boards));
    json_object_set_new(o, "sockets", json_integer(cf->sockets));
    json_object_set_new(o, "cores_per_socket",
                        json_integer(cf->cores_per_socket));
    json_object_set_new(o, "threads_per_core",
                        json_integer(cf->threads_per_core));
}

/* What the daemon said of itself (sluice doctor): its host name against
 * the configured NodeHostname, its cgroup and GPU fence, its clock. */
static void node_health_json(json_t *o, const struct node *n)
{
    json_t *fence = json_null();

    if (n->registered && n->fence != NULL)
        fence = json_pack("{s:s, s:s}", "state", n->fence, "reason",
                          n->fence_why ? n->fence_why : "");
    json_object_set_new(o, "node_hostname", json_string(n->cf->hostname));
    json_object_set_new(o, "hostname_reported",
                        n->registered && n->host_reported
                            ? json_string(n->host_reported)
                            : json_null());
    json_object_set_new(o, "cgroup",
                        n->registered && n->cgroup ? json_string(n->cgroup)
                                                   : json_null());
    json_object_set_new(o, "gpu_fence", fence);
    json_object_set_new(o, "clock_offset_s",
                        n->registered && n->clock_known
                            ? json_integer((json_int_t)n->clock_offset_s)
                            : json_null());
}

/* The user name (else the uid) of who set n's admin reason, or null. */
static json_t *reason_user(const struct node *n)
{
    char name[256];

    if (n->admin == NODE_ADMIN_NONE || n->admin_reason_uid < 0)
        return json_null();
    return json_string(
        auth_uid_name((uid_t)n->admin_reason_uid, name, sizeof(name)));
}

json_t *node_to_json(struct nodes *ns, const struct node *n, json_t *jobs)
{
    json_t *o = node_base_json(ns, n, jobs);
    uint64_t gpus = gres_count(n->cf->gres, "gpu", NULL);
    struct tres cfg = {n->cf->cpus, n->cf->mem_mib, 0, n->cf->cpus, gpus, NULL};
    struct tres used = {
        n->cpus_alloc, n->mem_alloc_mib, 0, 0, nodes_gpus_alloc(n), NULL};
    char buf[1024];

    json_object_set_new(o, "connected", json_boolean(n->conn != NULL));
    /* who set the DRAIN/DOWN reason (helper verbs; reason_time is its when) */
    json_object_set_new(o, "reason_user", reason_user(n));
    json_object_set_new(o, "gres_used",
                        json_string(gres_used(n, buf, sizeof(buf))));
    json_object_set_new(o, "gpus", nodegpu_to_json(&n->gpus));
    json_object_set_new(o, "gpus_alloc", gpus_alloc_json(n));
    json_object_set_new(o, "gres_reported",
                        n->registered && n->gres_reported
                            ? json_string(n->gres_reported)
                            : json_null());
    json_object_set_new(o, "gres_note",
                        n->gres_note ? json_string(n->gres_note) : json_null());
    json_object_set_new(o, "tres",
                        json_string(tres_format(&cfg, buf, sizeof(buf))));
    node_health_json(o, n);
    json_object_set_new(o, "tres_used",
                        json_string(tres_format(&used, buf, sizeof(buf))));
    node_shape_json(o, n->cf);
    return o;
}

/* Take over the reported GPUs within the configuration; a shortfall goes
 * into why. */
static void register_gpus(struct node *n, struct nodes_report *rep, char *why,
                          size_t len)
{
    struct nodegpu_inv fitted;
    size_t extra;

    set_str(&n->gres_note, rep->gres_note);
    if (nodegpu_check(n->cf->gres, rep->gpus, rep->gres_note, why, len) < 0) {
        /* not usable: the scheduler still sees what it is configured to
         * have, so that jobs wait for it instead of being refused */
        nodegpu_fini(rep->gpus);
        nodegpu_fini(&n->gpus);
        nodegpu_from_conf(n->cf->gres, &n->gpus);
        return;
    }
    extra = nodegpu_fit(n->cf->gres, rep->gpus, &fitted);
    if (extra > 0)
        log_info("node=%s gpus_reported=%zu gpus_scheduled=%zu: only the "
                 "configured Gres= are scheduled",
                 n->cf->name, rep->gpus->n, fitted.n);
    nodegpu_fini(rep->gpus);
    nodegpu_fini(&n->gpus);
    n->gpus = fitted;
}

void nodes_register(struct nodes *ns, struct node *n, struct conn *conn,
                    struct nodes_report *rep, time_t now)
{
    char why[ERR_TEXT_MAX] = "", gwhy[ERR_TEXT_MAX] = "", have[256];
    long was = listen_conn_node(conn);

    if (n->conn != NULL && n->conn != conn)
        listen_conn_set_node(n->conn, -1); /* an older connection */
    /* rpc_node_register refuses a second node on one connection; should it
     * ever get here, the other node must not keep a pointer to conn */
    if (was >= 0 && (size_t)was != n->idx &&
        nodes_get(ns, (size_t)was)->conn == conn)
        nodes_get(ns, (size_t)was)->conn = NULL;
    n->conn = conn;
    listen_conn_set_node(conn, (long)n->idx);
    n->registered = true;
    n->not_responding = false;
    n->last_seen = now;
    n->boot_time = rep->boot_time;
    n->cpus_reported = rep->cpus;
    n->mem_reported_mib = rep->mem_mib;
    set_str(&n->host_reported, rep->hostname);
    set_str(&n->cgroup, rep->cgroup);
    set_str(&n->fence, rep->fence);
    set_str(&n->fence_why, rep->fence_why);
    n->clock_known = false;
    if (rep->has_time)
        nodes_clock(ns, n, rep->time, now);
    set_str(&n->gres_reported,
            rep->gres ? rep->gres
                      : nodegpu_summary(rep->gpus, have, sizeof(have)));
    if (rep->cpus < n->cf->cpus)
        snprintf(why, sizeof(why), "Low CPUs (%u < %u)", rep->cpus,
                 n->cf->cpus);
    else if (rep->mem_mib < n->cf->mem_mib)
        snprintf(why, sizeof(why), "Low RealMemory (%" PRIu64 " < %" PRIu64 ")",
                 rep->mem_mib, n->cf->mem_mib);
    register_gpus(n, rep, gwhy, sizeof(gwhy));
    if (why[0] == '\0')
        memcpy(why, gwhy, sizeof(why));
    n->invalid = why[0] != '\0';
    set_str(&n->auto_reason, n->invalid ? why : NULL);
    n->auto_reason_time = now;
    log_info("node=%s registered state=%s cpus=%u mem_mib=%" PRIu64
             " gpus=%zu%s%s%s",
             n->cf->name, node_state_name(n), rep->cpus, rep->mem_mib,
             n->gpus.n, n->invalid ? " reason=\"" : "", n->invalid ? why : "",
             n->invalid ? "\"" : "");
    loop_want_pass(ns->loop);
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
    loop_want_pass(ns->loop);
    return true;
}

void nodes_clock(struct nodes *ns, struct node *n, int64_t node_time,
                 time_t now)
{
    int64_t off = node_time - (int64_t)now;

    (void)ns;
    if (!n->clock_known || off != n->clock_offset_s)
        log_debug("node=%s clock_offset_s=%lld", n->cf->name, (long long)off);
    n->clock_known = true;
    n->clock_offset_s = off;
}

void nodes_conn_closed(struct nodes *ns, size_t idx, struct conn *conn)
{
    struct node *n = nodes_get(ns, idx);

    if (n->conn != conn)
        return;
    n->conn = NULL;
    log_info("node=%s connection closed; DOWN after %us without it",
             n->cf->name, ns->conf->slurmd_timeout_s);
}

static const char *admin_name(enum node_admin a)
{
    return a == NODE_ADMIN_DRAIN ? "DRAIN" : a == NODE_ADMIN_DOWN ? "DOWN" : "";
}

int nodes_set_admin(struct nodes *ns, struct node *n, enum node_admin admin,
                    const char *reason, time_t now, struct err *e)
{
    return nodes_set_admin_by(ns, n, admin, reason, -1, now, e);
}

int nodes_set_admin_by(struct nodes *ns, struct node *n, enum node_admin admin,
                       const char *reason, int64_t uid, time_t now,
                       struct err *e)
{
    char *stored = admin == NODE_ADMIN_NONE ? xstrdup("")
                   : uid >= 0
                       ? xasprintf("%s%c%" PRId64, reason, REASON_UID_SEP, uid)
                       : xstrdup(reason);
    int rc = loop_write(ns->loop, e) < 0 ||
                     persist_node_save(ns->persist, n->cf->name,
                                       admin_name(admin), stored, now, e) < 0
                 ? -1
                 : 0;

    free(stored);
    if (rc < 0)
        return -1;
    n->admin = admin;
    set_str(&n->admin_reason, admin == NODE_ADMIN_NONE ? NULL : reason);
    n->admin_reason_time = now;
    n->admin_reason_uid = admin == NODE_ADMIN_NONE ? -1 : uid;
    log_info("node=%s admin=%s reason=\"%s\"", n->cf->name,
             admin == NODE_ADMIN_NONE ? "RESUME" : admin_name(admin),
             reason ? reason : "");
    if (admin == NODE_ADMIN_DOWN)
        ns->ev.node_down(ns->ev_arg, n->idx, NODE_DOWN_ADMIN, now);
    loop_want_pass(ns->loop);
    return 0;
}

void nodes_tick(struct nodes *ns, time_t now)
{
    uint32_t limit = ns->conf->slurmd_timeout_s;

    if (limit == 0)
        return; /* SlurmdTimeout=0: never */
    for (size_t i = 0; i < ns->n; i++) {
        struct node *n = &ns->v[i];
        time_t heard =
            n->last_seen > ns->silence_from ? n->last_seen : ns->silence_from;
        if (n->not_responding || now - heard < (time_t)limit)
            continue;
        n->not_responding = true;
        set_str(&n->auto_reason, "Not responding");
        n->auto_reason_time = now;
        log_warnx("node=%s state=DOWN reason=\"Not responding\" silent_s=%lld",
                  n->cf->name, (long long)(now - n->last_seen));
        ns->ev.node_down(ns->ev_arg, n->idx, NODE_DOWN_SILENT, now);
        loop_want_pass(ns->loop);
    }
}

void nodes_silence_reset(struct nodes *ns, time_t now)
{
    ns->silence_from = now;
}

uint32_t nodes_heartbeat_s(const struct nodes *ns)
{
    uint32_t t = ns->conf->slurmd_timeout_s / 3;

    if (ns->conf->slurmd_timeout_s == 0)
        return 30;
    return t < 1 ? 1 : t;
}

void nodes_auth_tag(struct nodes *ns, long idx, char *out, size_t len)
{
    if (idx < 0 || (size_t)idx >= ns->n)
        snprintf(out, len, "%s", AUTH_TAG_CLIENT);
    else
        snprintf(out, len, "%s%s", AUTH_TAG_NODE_PREFIX, ns->v[idx].cf->name);
}
