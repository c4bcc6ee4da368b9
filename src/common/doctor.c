/*
 * sluice doctor's judgement (doctor.h): the order of the checks, the
 * checks of each node (its GPUs against Gres=, its host name, its GPU
 * fence, its clock) and of the controller's TCP peers (refused
 * credentials), the findings as JSON, and the helpers both halves share.
 */
#include "common/doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/doctor_int.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

const char *const doctor_checks[] = {
    "gpus",
    "hostname",
    "gpu_fence",
    "clock",
    "auth",
    "state_dir",
    "preempt_reach",
    "prio_weights",
    "time_limit",
    "preempted_users",
    NULL,
};

/* ---- helpers ----------------------------------------------------------- */

const char *doctor_jstr(json_t *o, const char *k, const char *def)
{
    json_t *v = json_object_get(o, k);

    return json_is_string(v) ? json_string_value(v) : def;
}

bool doctor_jint(json_t *o, const char *k, long long *v)
{
    json_t *x = json_object_get(o, k);

    if (!json_is_integer(x))
        return false;
    *v = (long long)json_integer_value(x);
    return true;
}

const char *doctor_conf(json_t *facts, const char *k)
{
    return doctor_jstr(json_object_get(facts, "config"), k, NULL);
}

bool doctor_conf_int(json_t *facts, const char *k, long long *v)
{
    const char *s = doctor_conf(facts, k);
    char *end;

    if (s == NULL || *s == '\0')
        return false;
    *v = strtoll(s, &end, 10);
    return *end == '\0';
}

char *doctor_cat(char *s, const char *fmt, ...)
{
    char *more, *out;
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&more, fmt, ap) < 0)
        more = xstrdup("");
    va_end(ap);
    out = xasprintf("%s%s", s ? s : "", more);
    free(s);
    free(more);
    return out;
}

char *doctor_ids(json_t *ids, size_t max)
{
    size_t n = json_array_size(ids);
    char *s = NULL;

    for (size_t i = 0; i < n && i < max; i++)
        s = doctor_cat(s, "%s%lld", i ? ", " : "",
                       (long long)json_integer_value(json_array_get(ids, i)));
    if (n > max)
        s = doctor_cat(s, " and %zu more", n - max);
    return s ? s : xstrdup("");
}

const char *doctor_size(long long b, char *buf, size_t len)
{
    if (b >= 1LL << 30)
        snprintf(buf, len, "%lld GiB", b >> 30);
    else if (b >= 1LL << 20)
        snprintf(buf, len, "%lld MiB", b >> 20);
    else
        snprintf(buf, len, "%lld KiB", b >> 10);
    return buf;
}

/* ---- gpus ---------------------------------------------------------------- */

/* The GPUs in a GRES string ("gpu:h200:4" -> 4); 0 when unreadable. */
static long long gres_gpus(const char *s)
{
    struct gres_list l;
    struct err e;

    if (s == NULL || gres_parse(s, &l, &e) < 0)
        return 0;
    return (long long)gres_count(&l, "gpu", NULL);
}

/* Whether node n's daemon reports fewer GPUs than its Gres= (or the
 * controller marked it INVALID for its GPUs). */
static bool gpus_short(json_t *n)
{
    const char *rep = doctor_jstr(n, "gres_reported", NULL);
    const char *reason = doctor_jstr(n, "reason", "");

    if (strcmp(doctor_jstr(n, "state", ""), "INVALID") == 0 &&
        strncmp(reason, "gres/gpu", 8) == 0)
        return true;
    return rep != NULL &&
           gres_gpus(rep) < gres_gpus(doctor_jstr(n, "gres", NULL));
}

/* Pending jobs that wait for nodes all of which lack their GPUs:
 * {"node04": [12, 15], ...}, a new object. */
static json_t *gpu_waiters(json_t *facts)
{
    static const char tag[] = "ReqNodeNotAvail, UnavailableNodes:";
    json_t *by_node = json_object(), *short_nodes = json_object(), *n, *j;
    size_t i;

    json_array_foreach(json_object_get(facts, "nodes"), i, n)
    {
        if (gpus_short(n))
            json_object_set_new(short_nodes, doctor_jstr(n, "name", ""),
                                json_true());
    }
    json_array_foreach(json_object_get(facts, "jobs"), i, j)
    {
        const char *r = doctor_jstr(j, "state_reason", "");
        struct hostlist *hl;
        bool all = true;
        long long id;
        struct err e;

        if (strcmp(doctor_jstr(j, "job_state", ""), "PENDING") != 0 ||
            strncmp(r, tag, sizeof(tag) - 1) != 0 ||
            !doctor_jint(j, "job_id", &id) ||
            (hl = hostlist_expand(r + sizeof(tag) - 1, &e)) == NULL)
            continue;
        for (size_t k = 0; k < hostlist_count(hl) && all; k++)
            all = json_object_get(short_nodes, hostlist_nth(hl, k)) != NULL;
        for (size_t k = 0; k < hostlist_count(hl) && all; k++) {
            const char *name = hostlist_nth(hl, k);
            json_t *ids = json_object_get(by_node, name);
            if (ids == NULL) {
                ids = json_array();
                json_object_set_new(by_node, name, ids);
            }
            json_array_append_new(ids, json_integer(id));
        }
        hostlist_destroy(hl);
    }
    json_decref(short_nodes);
    return by_node;
}

static void check_gpus(json_t *n, json_t *waiters, struct conf_diag *d)
{
    const char *name = doctor_jstr(n, "name", "?");
    const char *gres = doctor_jstr(n, "gres", "");
    const char *rep = doctor_jstr(n, "gres_reported", NULL);
    const char *note = doctor_jstr(n, "gres_note", NULL);
    long long want = gres_gpus(gres), have = gres_gpus(rep);
    json_t *ids = json_object_get(waiters, name);
    char *where = xasprintf("node %s", name), *msg, *fix;

    if (gpus_short(n)) {
        msg = xasprintf("Gres=%s is configured, but its sluiced reports %lld "
                        "GPU%s%s%s%s",
                        gres, have, have == 1 ? "" : "s", note ? " (" : "",
                        note ? note : "", note ? ")" : "");
        if (strcmp(doctor_jstr(n, "state", ""), "INVALID") == 0)
            msg = doctor_cat(msg, "; the node is INVALID: no job starts there");
        if (json_array_size(ids) > 0) {
            char *list = doctor_ids(ids, 8);
            msg = doctor_cat(msg, "; %zu pending job%s wait%s only for it: %s",
                             json_array_size(ids),
                             json_array_size(ids) == 1 ? "" : "s",
                             json_array_size(ids) == 1 ? "s" : "", list);
            free(list);
        }
        fix = xasprintf("make the GPUs visible to sluiced on %s (the NVIDIA "
                        "driver for NVML, or gres.conf File= or Count= lines "
                        "for it; `sluiced -C` there shows what it finds) and "
                        "restart it, or set Gres= to what the node has",
                        name);
        conf_diag_add_fix(d, CONF_ERROR, where, "gpus", fix, "%s", msg);
        free(msg);
        free(fix);
    } else if (rep != NULL && have > want) {
        fix = xasprintf("set Gres=gpu:%lld on NodeName=%s (or a gres.conf "
                        "that declares %lld)",
                        have, name, want);
        conf_diag_add_fix(d, CONF_WARNING, where, "gpus", fix,
                          "its sluiced reports %lld GPUs, but Gres=%s "
                          "configures %lld: only %lld are scheduled",
                          have, gres, want, want);
        free(fix);
    }
    free(where);
}

/* ---- host names ------------------------------------------------------- */

/* a and b equal, or equal up to the first dot of either (case aside). */
static bool same_host(const char *a, const char *b)
{
    size_t la = strcspn(a, "."), lb = strcspn(b, ".");

    return strcasecmp(a, b) == 0 || (la == lb && strncasecmp(a, b, la) == 0);
}

static void check_hostname(json_t *n, struct conf_diag *d)
{
    const char *name = doctor_jstr(n, "name", "?");
    const char *host = doctor_jstr(n, "hostname_reported", NULL);
    const char *conf_host = doctor_jstr(n, "node_hostname", name);
    char *where, *fix;

    if (host == NULL || same_host(host, name) || same_host(host, conf_host))
        return;
    where = xasprintf("node %s", name);
    fix = xasprintf("rename the host to %s, or set NodeHostname=%s on "
                    "NodeName=%s",
                    name, host, name);
    if (strcmp(conf_host, name) == 0)
        conf_diag_add_fix(d, CONF_WARNING, where, "hostname", fix,
                          "its sluiced runs on host \"%s\", which is not its "
                          "NodeName: the name jobs see in their node lists "
                          "does not lead to this host, and the daemon starts "
                          "only with -N %s (the seed's node1/node01 pitfall)",
                          host, name);
    else
        conf_diag_add_fix(d, CONF_WARNING, where, "hostname", fix,
                          "its sluiced runs on host \"%s\", which is neither "
                          "its NodeName nor its NodeHostname (%s): the node "
                          "is served from another machine than configured",
                          host, conf_host);
    free(where);
    free(fix);
}

/* ---- GPU fence ---------------------------------------------------------- */

static void check_fence(json_t *n, struct conf_diag *d)
{
    const char *name = doctor_jstr(n, "name", "?");
    json_t *f = json_object_get(n, "gpu_fence");
    char *where, *fix;

    if (strcmp(doctor_jstr(f, "state", ""), "off") != 0)
        return;
    where = xasprintf("node %s", name);
    fix = xasprintf("fence jobs to their GPUs: ConstrainDevices=yes in the "
                    "cgroup.conf beside the configuration, sluiced as root "
                    "with cgroup v2 (or v1's devices hierarchy), GPUs declared "
                    "by File= or AutoDetect=nvml; then restart sluiced on %s",
                    name);
    conf_diag_add_fix(d, CONF_WARNING, where, "gpu_fence", fix,
                      "GPU isolation is not in effect: %s",
                      doctor_jstr(f, "reason", "the node says so"));
    free(where);
    free(fix);
}

/* ---- clocks ---------------------------------------------------------------
 */

static void clock_finding(const char *where, long long off, struct conf_diag *d)
{
    long long a = off < 0 ? -off : off;
    enum conf_severity sev =
        a >= DOCTOR_CLOCK_ERROR_S ? CONF_ERROR : CONF_WARNING;

    if (a <= DOCTOR_CLOCK_WARN_S)
        return;
    conf_diag_add_fix(d, sev, where, "clock",
                      "run NTP (chronyd, systemd-timesyncd) on every host of "
                      "the cluster",
                      "its clock is %lld s %s of the controller's: the times "
                      "it reports (job starts and ends) are off by as much, "
                      "and credentials are refused once it is over 60 s "
                      "ahead or 300 s behind",
                      a, off > 0 ? "ahead" : "behind");
}

static void check_clock(json_t *n, struct conf_diag *d)
{
    long long off;
    char *where;

    if (!doctor_jint(n, "clock_offset_s", &off))
        return;
    where = xasprintf("node %s", doctor_jstr(n, "name", "?"));
    clock_finding(where, off, d);
    free(where);
}

/* ---- refused credentials -------------------------------------------- */

/* The nodes at addr ("node03", "node[01-04]"), or NULL; *down: one of
 * them is not connected. */
static char *nodes_at(json_t *facts, const char *addr, bool *down)
{
    struct hostlist *hl = hostlist_create();
    json_t *n;
    size_t i;
    char *s = NULL;

    *down = false;
    json_array_foreach(json_object_get(facts, "nodes"), i, n)
    {
        if (strcmp(doctor_jstr(n, "addr", ""), addr) != 0)
            continue;
        hostlist_push_host(hl, doctor_jstr(n, "name", "?"));
        *down = *down || !json_is_true(json_object_get(n, "connected"));
    }
    if (hostlist_count(hl) > 0)
        s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

static void check_auth(json_t *facts, struct conf_diag *d)
{
    json_t *r;
    size_t i;
    long long now = 0;

    doctor_jint(facts, "now", &now);
    json_array_foreach(json_object_get(facts, "auth_refused"), i, r)
    {
        const char *peer = doctor_jstr(r, "peer", "?");
        long long count = 0, last = now;
        bool down;
        char *nodes = nodes_at(facts, peer, &down), *where, *fix;

        doctor_jint(r, "count", &count);
        doctor_jint(r, "last", &last);
        where = nodes ? xasprintf("peer %s (%s)", peer, nodes)
                      : xasprintf("peer %s", peer);
        fix = nodes && down
                  ? xasprintf("give %s the cluster's key (the AuthInfo key "
                              "file of auth/key, or munge.key of "
                              "auth/munge, as on the controller) and "
                              "restart its sluiced",
                              nodes)
                  : xasprintf("find what runs at %s with another key (a "
                              "node daemon or client with an old key file "
                              "or munge key) and give it the cluster's "
                              "key, or stop it",
                              peer);
        conf_diag_add_fix(
            d, nodes && down ? CONF_ERROR : CONF_WARNING, where, "auth", fix,
            "%lld credential%s refused, the last %lld s ago: %s%s", count,
            count == 1 ? "" : "s", now - last, doctor_jstr(r, "reason", "?"),
            nodes && down ? "; a node at this address is not connected" : "");
        free(nodes);
        free(where);
        free(fix);
    }
}

/* ---- the whole ------------------------------------------------------------
 */

void doctor_judge(json_t *facts, struct conf_diag *d)
{
    json_t *nodes = json_object_get(facts, "nodes"), *n;
    json_t *waiters = gpu_waiters(facts);
    long long now, here;
    size_t i;

    json_array_foreach(nodes, i, n) check_gpus(n, waiters, d);
    json_array_foreach(nodes, i, n) check_hostname(n, d);
    json_array_foreach(nodes, i, n) check_fence(n, d);
    if (doctor_jint(facts, "now", &now) &&
        doctor_jint(facts, "client_now", &here))
        clock_finding("this host", here - now, d);
    json_array_foreach(nodes, i, n) check_clock(n, d);
    check_auth(facts, d);
    doctor_state_dir(facts, d);
    doctor_preempt_reach(facts, d);
    doctor_prio_weights(facts, d);
    doctor_time_limit(facts, d);
    doctor_preempted_users(facts, d);
    json_decref(waiters);
}

static json_t *finding_json(const struct conf_diag_item *it)
{
    return json_pack("{s:s?, s:s, s:s, s:s?}", "check", it->check, "where",
                     it->file, "message", it->text, "fix", it->fix);
}

json_t *doctor_json(const struct conf_diag *d)
{
    json_t *err = json_array(), *warn = json_array();

    for (size_t i = 0; i < d->n; i++)
        json_array_append_new(d->items[i].severity == CONF_ERROR ? err : warn,
                              finding_json(&d->items[i]));
    return json_pack("{s:b, s:o, s:o}", "ok", d->n_errors == 0, "errors", err,
                     "warnings", warn);
}
