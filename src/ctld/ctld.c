/*
 * The controller's root: builds and tears down the subsystems, and runs
 * the two loop-level duties: the flush event (schedule, commit, release
 * held output) and the one-second tick (time limits, node timeouts).
 */
#include "ctld/policy/jlimits.h"
#include "ctld/ctld.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/acct/acct_store.h"
#include "ctld/policy/jchain.h"
#include "ctld/queue/jobs.h"
#include "ctld/net/listen.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/parts.h"
#include "ctld/core/persist.h"
#include "ctld/sched/model.h"
#include "ctld/sched/preempt_drv.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/sched_drv.h"

int64_t ctld_mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t ctld_mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

bool ctld_is_admin(const struct ctld *c, uid_t uid)
{
    /* AdminLevel=Operator or Administrator in sacctmgr counts, as in Slurm
     * (operators may manage anyone's jobs) */
    return uid == 0 || uid == c->self_uid ||
           (c->acct != NULL &&
            acct_user_admin_uid(c->acct, uid) >= ACCT_ADMIN_OPERATOR);
}

bool ctld_is_administrator(const struct ctld *c, uid_t uid)
{
    /* what Slurm keeps from operators: partitions, job priorities */
    return uid == 0 || uid == c->self_uid ||
           (c->acct != NULL &&
            acct_user_admin_uid(c->acct, uid) >= ACCT_ADMIN_ADMIN);
}

void ctld_kick(struct ctld *c)
{
    if (c->flush_armed || c->flush_ev == NULL)
        return;
    c->flush_armed = true;
    c->flush_armed_ms = ctld_mono_ms();
    event_active(c->flush_ev, 0, 0);
}

void ctld_schedule(struct ctld *c)
{
    if (c->sched == NULL)
        return;
    sched_drv_want(c->sched);
    ctld_kick(c);
}

int ctld_write(struct ctld *c, struct err *e)
{
    if (persist_in_txn(c->persist))
        return 0;
    if (persist_begin(c->persist, e) < 0)
        return -1;
    c->txn_start_ms = ctld_mono_ms();
    ctld_kick(c);
    return 0;
}

bool ctld_txn_old(const struct ctld *c)
{
    int64_t now = ctld_mono_ms();

    return (persist_in_txn(c->persist) &&
            now - c->txn_start_ms >= CTLD_TXN_MAX_MS) ||
           (c->flush_armed && now - c->flush_armed_ms >= CTLD_TXN_MAX_MS);
}

void ctld_flush(struct ctld *c)
{
    struct err e;
    int64_t t0 = ctld_mono_us(), t1, t2;

    c->flush_armed = false;
    if (c->sched != NULL)
        sched_drv_run(c->sched, time(NULL));
    t1 = ctld_mono_us();
    if (persist_in_txn(c->persist)) {
        /* Memory already holds this iteration's changes (new jobs, ids,
         * starts) and cannot take them back one by one.  Stopping before
         * the held replies and launches go out means no client is told
         * of, and no node runs, anything the database lost; a restart
         * recovers from the database. */
        if (persist_commit(c->persist, &e) < 0)
            fatalx("commit failed: %s; stopping without sending the replies "
                   "and launches that depended on it (a restart recovers "
                   "from the database)",
                   e.text);
        t2 = ctld_mono_us();
        /* the start latency's controller stages (bench/RESULTS.md) */
        log_debug("flush sched_us=%" PRId64 " commit_us=%" PRId64, t1 - t0,
                  t2 - t1);
    }
    if (c->listen != NULL)
        listen_release(c->listen);
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    ctld_flush(arg);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct ctld *c = arg;
    time_t now = time(NULL);

    (void)fd;
    (void)what;
    nodes_tick(c->nodes, now);
    jobs_tick(c->jobs, now);
}

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

struct ctld *ctld_create(const struct conf *conf, struct auth *auth,
                         struct event_base *base, struct err *e)
{
    struct ctld *c = xcalloc(1, sizeof(*c));
    struct timeval sec = {1, 0};

    c->conf = conf;
    c->auth = auth;
    c->base = base;
    c->self_uid = geteuid();
    c->started = time(NULL);
    c->time_divisor = test_time_divisor();
    c->flush_ev = event_new(base, -1, 0, flush_cb, c);
    event_priority_set(c->flush_ev, CTLD_PRIO_FLUSH);
    c->tick_ev = event_new(base, -1, EV_PERSIST, tick_cb, c);
    /* with the I/O: libevent runs only the most urgent active queue, so
     * a lower priority would wait for as long as clients keep sending */
    event_priority_set(c->tick_ev, CTLD_PRIO_IO);
    c->persist = persist_open(conf->state_save_location, e);
    if (c->persist == NULL)
        goto error;
    c->acct_store = acct_store_open(c->persist, e);
    if (c->acct_store == NULL)
        goto error;
    c->acct = acct_create(conf->cluster_name, c->acct_store, e);
    if (c->acct == NULL || persist_commit(c->persist, e) < 0)
        goto error;
    c->parts = parts_create(c, e);
    if (c->parts == NULL)
        goto error;
    c->nodes = nodes_create(c, e);
    if (c->nodes == NULL)
        goto error;
    /* the chain before the jobs: recovered jobs are charged by it */
    c->limits = jlimits_create(conf->accounting_storage_enforce);
    c->chain = jchain_create(c->acct, conf);
    jlimits_set_chain(c->limits, jchain_levels, c->chain);
    c->jobs = jobs_create(c);
    if (jobs_load(c->jobs, e) < 0)
        goto error;
    if (prio_drv_create(c, e) == NULL)
        goto error;
    c->preempt = preempt_drv_create(c);
    c->model = model_create(&(struct model_src){
        .conf = conf,
        .jobs = c->jobs,
        .nodes = c->nodes,
        .parts = c->parts,
        .acct = c->acct,
        .limits = c->limits,
        .preempt = c->preempt,
    });
    c->sched = sched_drv_create(c);
    event_add(c->tick_ev, &sec);
    ctld_schedule(c);
    return c;
error:
    ctld_destroy(c);
    return NULL;
}

int ctld_listen(struct ctld *c, int tcp_fd, int unix_fd, struct err *e)
{
    c->listen = listen_create(c, tcp_fd, unix_fd, e);
    return c->listen ? 0 : -1;
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
    sched_drv_destroy(c->sched);
    c->sched = NULL;
    model_destroy(c->model);
    c->model = NULL;
    preempt_drv_destroy(c->preempt);
    c->preempt = NULL;
    prio_drv_destroy(c->prio);
    c->prio = NULL;
    jobs_destroy(c->jobs);
    c->jobs = NULL;
    jlimits_destroy(c->limits); /* after the jobs and their charges */
    c->limits = NULL;
    jchain_destroy(c->chain);
    c->chain = NULL;
    nodes_destroy(c->nodes);
    acct_destroy(c->acct);
    acct_store_close(c->acct_store);
    parts_destroy(c->parts);
    persist_close(c->persist);
    if (c->tick_ev)
        event_free(c->tick_ev);
    if (c->flush_ev)
        event_free(c->flush_ev);
    free(c);
    errno = saved;
}
