/*
 * The controller's root: builds and tears down the subsystems, wires them
 * together with callbacks (the listener's request dispatch, the loop's
 * flush), and runs the two loop-level duties: the flush (schedule, commit,
 * release held output) and the one-second tick (time limits, node
 * timeouts).
 */
#include "ctld/policy/jlimits.h"
#include "ctld/ctld.h"
#include "ctld/ctld_mail.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/jwt.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/acct/acct_store.h"
#include "ctld/policy/jchain.h"
#include "ctld/queue/jobfence.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/queue/steps.h"
#include "ctld/net/listen.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/cluster/resv.h"
#include "ctld/job/mail.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"
#include "ctld/core/statedir.h"
#include "ctld/core/stats.h"
#include "ctld/rpc/rpc.h"
#include "ctld/sched/explain.h"
#include "ctld/sched/model.h"
#include "ctld/sched/preempt_drv.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/web/rest.h"
#include "ctld/web/web.h"

/* The loop's flush (core/loop.h): schedule, commit, send. */
static void flush(void *arg, bool pass)
{
    struct ctld *c = arg;
    struct err e;
    int64_t t0 = clock_mono_us(), t1, t2;

    if (pass && c->sched != NULL)
        sched_drv_want(c->sched);
    /* starts, preemptions and resumes are written: while the state
     * directory takes no writes the wish waits (loop_writable asks for a
     * pass again when it does) */
    if (c->sched != NULL && loop_writable(c->loop))
        sched_drv_run(c->sched, time(NULL));
    t1 = clock_mono_us();
    if (persist_in_txn(c->persist)) {
        /* Memory already holds this iteration's changes (new jobs, ids,
         * starts) and cannot take them back one by one.  Stopping before
         * the held replies and launches go out means no client is told
         * of, and no node runs, anything the database lost; a restart
         * recovers from the database. */
        if (persist_commit(c->persist, &e) < 0)
            fatalx("commit failed: %s; stopping without sending the replies "
                   "and launches that depended on it (a restart recovers "
                   "from the database; docs/operations.md)",
                   e.text);
        t2 = clock_mono_us();
        stats_commit(c->stats, t2 - t1);
        /* the start latency's controller stages (bench/RESULTS.md) */
        log_debug("flush sched_us=%" PRId64 " commit_us=%" PRId64, t1 - t0,
                  t2 - t1);
    }
    if (c->listen != NULL)
        listen_release(c->listen);
    web_release(c->web);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct ctld *c = arg;
    time_t now = time(NULL);

    (void)fd;
    (void)what;
    /* Time limits, node timeouts, reservations, dependencies and mail
     * are written: while the state directory takes no writes they wait
     * (a job may overrun its limit by that long).  Nodes could not
     * register meanwhile, so their silence counts from the resumption. */
    if (!loop_writable(c->loop)) {
        c->tick_deferred = true;
        mail_reap();
        return;
    }
    if (c->tick_deferred) {
        c->tick_deferred = false;
        nodes_silence_reset(c->nodes, now);
    }
    nodes_tick(c->nodes, now);
    resvs_tick(c->resv, now);
    jobs_tick(c->jobs, now);
    steps_tick(c->steps, now);
    ctld_mail_tick(c, now);
}

/* nodes_events.node_down: the steps and jobs of a node that went down
 * end NODE_FAIL or are requeued (the steps first, so that they say which
 * node failed); one set DOWN by an admin may still run them, so its batch
 * jobs are killed there first.  An admin who sets DOWN a node that cannot
 * be reached says that it is off: the requeued jobs waiting for its word
 * (queue/jobfence.h) may start. */
static void node_down(void *arg, size_t idx, enum node_down why, time_t now)
{
    struct ctld *c = arg;
    const struct node *n = nodes_get(c->nodes, idx);

    if (why == NODE_DOWN_ADMIN) {
        size_t nj;
        struct job **list = jobs_on_node(c->jobs, idx, true, &nj);
        for (size_t i = 0; i < nj; i++)
            jobs_kill(c->jobs, list[i], "node_down");
        free(list);
    }
    steps_node_down(c->steps, idx, now);
    jobs_node_down(c->jobs, idx, "NodeDown", now);
    if (why == NODE_DOWN_ADMIN && (n->conn == NULL || n->not_responding))
        jobfence_lift_node(c->jobs, idx,
                           "its node was set DOWN by an operator while "
                           "unreachable");
}

static const struct nodes_events node_events = {.node_down = node_down};

/* jobs_events for the counters of /metrics (core/stats.h): submissions
 * (an array once: the tasks split off it are not), and starts. */
static void stats_job_event(void *arg, struct job *j, const char *what,
                            time_t when)
{
    struct ctld *c = arg;

    (void)when;
    if (what == NULL)
        return;
    if (strcmp(what, "submit") == 0 &&
        (j->array_job_id == 0 || j->array_job_id == j->id))
        stats_submitted(c->stats, j->part);
    else if (strcmp(what, "start") == 0)
        stats_started(c->stats, j->part);
}

static const struct jobs_events stats_job_events = {
    .job_event = stats_job_event,
};

/* SLUICE_TEST_TIME_DIVISOR (ctld.h): 1 unless a test sets 1..3600. */
static uint32_t test_time_divisor(void)
{
    const char *s = getenv("SLUICE_TEST_TIME_DIVISOR");
    char *end;
    unsigned long v;

    if (s == NULL || *s == '\0')
        return 1;
    v = strtoul(s, &end, 10);
    if (*end != '\0' || v < 1 || v > 3600) {
        log_warnx("SLUICE_TEST_TIME_DIVISOR=%.32s ignored: expected 1-3600", s);
        return 1;
    }
    if (v > 1)
        log_warnx("SLUICE_TEST_TIME_DIVISOR=%lu: time limits run %lu times "
                  "faster (for tests only)",
                  v, v);
    return (uint32_t)v;
}

/* AuthAltTypes=auth/jwt: the key of AuthAltParameters=jwt_key=, or
 * StateSaveLocation/jwt_hs256.key as in Slurm.  0 (and no key) when
 * auth/jwt is not configured. */
static int jwt_setup(struct ctld *c, struct err *e)
{
    const struct conf *conf = c->conf;
    char *path;

    if (conf->auth_alt_types[0] == '\0')
        return 0;
    if (strcasecmp(conf->auth_alt_types, "auth/jwt") != 0)
        return err_inval(e, "AuthAltTypes=%.100s: Sluice knows auth/jwt only",
                         conf->auth_alt_types);
    path = jwt_param_key(conf->auth_alt_parameters);
    if (path == NULL)
        path = xasprintf("%s/jwt_hs256.key", conf->state_save_location);
    c->jwt = jwt_key_load(path, e);
    free(path);
    return c->jwt != NULL ? 0 : -1;
}

struct ctld *ctld_create(const struct conf *conf, struct auth *auth,
                         struct event_base *base, struct err *e)
{
    struct ctld *c = xcalloc(1, sizeof(*c));
    struct timeval sec = {1, 0};

    c->conf = conf;
    c->auth = auth;
    c->base = base;
    c->self_uid = geteuid();
    c->time_divisor = test_time_divisor();
    c->stats = stats_create(conf->n_parts);
    c->tick_ev = event_new(base, -1, EV_PERSIST, tick_cb, c);
    /* with the I/O: libevent runs only the most urgent active queue, so
     * a lower priority would wait for as long as clients keep sending */
    event_priority_set(c->tick_ev, LOOP_PRIO_IO);
    if (jwt_setup(c, e) < 0)
        goto error;
    c->persist = persist_open(conf->state_save_location, e);
    if (c->persist == NULL)
        goto error;
    /* in bytes; a minimum past 2^64 bytes is never met, as it says */
    c->statedir =
        statedir_create(conf->state_save_location,
                        conf->sluice_state_min_free_mib > UINT64_MAX >> 20
                            ? UINT64_MAX
                            : conf->sluice_state_min_free_mib << 20);
    c->loop = loop_create(base, c->persist, c->statedir, flush, c);
    c->acct_store = acct_store_open(c->persist, e);
    if (c->acct_store == NULL)
        goto error;
    c->acct = acct_create(conf->cluster_name, c->acct_store, e);
    if (c->acct == NULL || persist_commit(c->persist, e) < 0)
        goto error;
    c->parts = parts_create(conf, c->persist, c->loop, e);
    if (c->parts == NULL)
        goto error;
    c->resv = resvs_create(conf, c->persist, c->loop, e);
    if (c->resv == NULL)
        goto error;
    c->nodes =
        nodes_create(conf, c->persist, c->loop, c->parts, &node_events, c, e);
    if (c->nodes == NULL)
        goto error;
    /* the chain before the jobs: recovered jobs are charged by it */
    c->limits = jlimits_create(conf->accounting_storage_enforce);
    c->chain = jchain_create(c->acct, conf);
    jlimits_set_chain(c->limits, jchain_levels, c->chain);
    c->jobs = jobs_create(&(struct jobs_env){
        .conf = conf,
        .persist = c->persist,
        .loop = c->loop,
        .acct = c->acct,
        .parts = c->parts,
        .nodes = c->nodes,
        .limits = c->limits,
        .resv = c->resv,
        .time_divisor = c->time_divisor,
    });
    /* each needs the other: the table is handed nodecmd (jobs.h) */
    c->nodecmd = nodecmd_create(conf, c->nodes, c->persist, c->jobs);
    jobs_set_nodecmd(c->jobs, c->nodecmd);
    if (jobs_load(c->jobs, e) < 0)
        goto error;
    c->steps = steps_create(&(struct steps_env){
        .conf = conf,
        .persist = c->persist,
        .loop = c->loop,
        .nodes = c->nodes,
        .jobs = c->jobs,
        .nodecmd = c->nodecmd,
    });
    nodecmd_set_step_reply(c->nodecmd, steps_launch_reply, c->steps);
    jobs_set_steps(c->jobs, c->steps);
    if (steps_load(c->steps, e) < 0)
        goto error;
    /* after the loading, which tells no one: the new prio_drv computes
     * every loaded job's priority once, and hears every change after */
    c->prio = prio_drv_create(
        &(struct prio_drv_src){
            .conf = conf,
            .base = base,
            .loop = c->loop,
            .persist = c->persist,
            .acct = c->acct,
            .jobs = c->jobs,
        },
        e);
    if (c->prio == NULL)
        goto error;
    jobs_subscribe(c->jobs, &prio_drv_events, c->prio);
    jobs_subscribe(c->jobs, &steps_job_events, c->steps);
    jobs_subscribe(c->jobs, &ctld_mail_events, c);
    jobs_subscribe(c->jobs, &stats_job_events, c);
    c->preempt = preempt_drv_create(&(struct preempt_drv_src){
        .conf = conf,
        .base = base,
        .loop = c->loop,
        .persist = c->persist,
        .acct = c->acct,
        .parts = c->parts,
        .nodes = c->nodes,
        .jobs = c->jobs,
        .nodecmd = c->nodecmd,
        .stats = c->stats,
    });
    c->model = model_create(&(struct model_src){
        .conf = conf,
        .jobs = c->jobs,
        .nodes = c->nodes,
        .parts = c->parts,
        .acct = c->acct,
        .limits = c->limits,
        .preempt = c->preempt,
        .resv = c->resv,
    });
    c->sched = sched_drv_create(&(struct sched_drv_src){
        .conf = conf,
        .base = base,
        .loop = c->loop,
        .parts = c->parts,
        .nodes = c->nodes,
        .jobs = c->jobs,
        .limits = c->limits,
        .nodecmd = c->nodecmd,
        .model = c->model,
        .preempt = c->preempt,
        .prio = c->prio,
    });
    c->explain = explain_create(&(struct explain_src){
        .conf = conf,
        .acct = c->acct,
        .parts = c->parts,
        .nodes = c->nodes,
        .jobs = c->jobs,
        .model = c->model,
        .preempt = c->preempt,
        .resv = c->resv,
        .time_divisor = c->time_divisor,
    });
    event_add(c->tick_ev, &sec);
    loop_want_pass(c->loop);
    return c;
error:
    ctld_destroy(c);
    return NULL;
}

/* listen_ops (net/listen.h): what the transport needs from the nodes. */
static void conn_closed(void *arg, struct conn *conn, long node)
{
    struct ctld *c = arg;

    nodes_conn_closed(c->nodes, (size_t)node, conn);
}

static void auth_tag(void *arg, long node, char *out, size_t len)
{
    struct ctld *c = arg;

    nodes_auth_tag(c->nodes, node, out, len);
}

static int dispatch(void *arg, struct conn *conn, const struct proto_frame *req,
                    const struct auth_id *who, json_t **reply, struct err *e)
{
    struct ctld *c = arg;

    return rpc_dispatch(&c->rpc, conn, req, who, reply, e);
}

static const struct listen_ops listen_ops = {
    .dispatch = dispatch,
    .closed = conn_closed,
    .auth_tag = auth_tag,
};

/* What the HTTP server serves (web/web.h), first match first. */
static const struct web_route *const web_routes[] = {
    rest_routes,    rest_job_routes, rest_db_routes, sluice_routes,
    metrics_routes, static_routes,   NULL,
};

static int web_listen(struct ctld *c, int fd, struct err *e)
{
    struct web_env env = {.base = c->base,
                          .loop = c->loop,
                          .conf = c->conf,
                          .rpc = &c->rpc,
                          .listen = c->listen,
                          .routes = web_routes};

    if (fd < 0)
        return 0;
    if (c->jwt == NULL)
        log_warnx("SluiceRestAddr is set but AuthAltTypes has no auth/jwt: "
                  "only the public pages are served (docs/rest.md)");
    c->web = web_create(&env, fd, e);
    return c->web != NULL ? 0 : -1;
}

int ctld_listen(struct ctld *c, int tcp_fd, int unix_fd, int web_fd,
                struct err *e)
{
    struct listen_env env = {.base = c->base,
                             .loop = c->loop,
                             .auth = c->auth,
                             .self_uid = c->self_uid,
                             .params = c->conf->scheduler_parameters,
                             .statedir = c->statedir,
                             .stats = c->stats};

    c->rpc = (struct rpc_env){
        .conf = c->conf,
        .loop = c->loop,
        .persist = c->persist,
        .acct = c->acct,
        .parts = c->parts,
        .nodes = c->nodes,
        .jobs = c->jobs,
        .steps = c->steps,
        .sched = c->sched,
        .prio = c->prio,
        .explain = c->explain,
        .resv = c->resv,
        .stats = c->stats,
        .statedir = c->statedir,
        .self_uid = c->self_uid,
        .jwt = c->jwt,
        .conf_path = c->conf_path,
        .reconfigure = c->reconfigure,
        .reconf_arg = c->reconf_arg,
        .debug = &c->debug,
    };
    c->debug.level = -1;
    c->listen = listen_create(&env, &listen_ops, c, tcp_fd, unix_fd, e);
    if (c->listen == NULL) {
        if (web_fd >= 0)
            close(web_fd);
        return -1;
    }
    return web_listen(c, web_fd, e);
}

void ctld_destroy(struct ctld *c)
{
    int saved = errno;
    struct err e;

    if (c == NULL)
        return;
    if (c->persist != NULL && persist_in_txn(c->persist) &&
        persist_commit(c->persist, &e) < 0)
        log_warnx("final commit failed: %s", e.text);
    if (c->listen != NULL)
        listen_release(c->listen);
    listen_destroy(c->listen);
    c->listen = NULL;
    web_destroy(c->web); /* answers what it held: committed above */
    c->web = NULL;
    explain_destroy(c->explain);
    c->explain = NULL;
    sched_drv_destroy(c->sched);
    c->sched = NULL;
    model_destroy(c->model);
    c->model = NULL;
    preempt_drv_destroy(c->preempt);
    c->preempt = NULL;
    prio_drv_destroy(c->prio);
    c->prio = NULL;
    steps_destroy(c->steps); /* after listen: launch replies use it */
    c->steps = NULL;
    nodecmd_destroy(c->nodecmd); /* after listen: its replies use it */
    c->nodecmd = NULL;
    jobs_destroy(c->jobs);
    c->jobs = NULL;
    jlimits_destroy(c->limits); /* after the jobs and their charges */
    c->limits = NULL;
    jchain_destroy(c->chain);
    c->chain = NULL;
    nodes_destroy(c->nodes);
    acct_destroy(c->acct);
    acct_store_close(c->acct_store);
    resvs_destroy(c->resv);
    parts_destroy(c->parts);
    persist_close(c->persist);
    loop_destroy(c->loop);
    statedir_destroy(c->statedir);
    jwt_key_free(c->jwt);
    stats_destroy(c->stats);
    if (c->tick_ev)
        event_free(c->tick_ev);
    free(c);
    errno = saved;
}
