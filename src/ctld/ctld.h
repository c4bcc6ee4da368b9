/*
 * sluicectld's root: one struct ctld holds the configuration, the auth
 * context, the event base and every subsystem of src/ctld's layers
 * (src/ctld/LAYERS).  Only ctld.c creates them, in layer order, hands each
 * the lower contexts it uses and installs the callbacks that go upward
 * (the transport's dispatch, a node gone down, the job table's
 * subscribers, the loop's flush); no file below the root includes this
 * header.  Everything runs on one libevent loop; group commit is
 * core/loop.h.
 */
#ifndef SLUICE_CTLD_CTLD_H
#define SLUICE_CTLD_CTLD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/err.h"
#include "ctld/core/loop.h"
#include "ctld/rpc/rpc.h"

struct acct;
struct acct_store;
struct listen;
struct jobs;
struct nodecmd;
struct nodes;
struct parts;
struct persist;
struct sched_drv;
struct statedir;
struct steps;
struct explain;
struct model;
struct preempt_drv;
struct prio_drv;
struct resvs;
struct jlimits;
struct jchain;
struct jwt_key;
struct stats;
struct web;

struct ctld {
    const struct conf *conf; /* borrowed from main */
    struct auth *auth;       /* borrowed: signs TCP frames, verifies them */
    struct event_base *base; /* borrowed */
    uid_t self_uid;

    struct persist *persist;
    /* whether StateSaveLocation takes writes (core/statedir.h) */
    struct statedir *statedir;
    struct loop *loop; /* group commit (core/loop.h) */
    struct acct_store *acct_store;
    struct acct *acct;   /* accounting model (acct.h) */
    struct parts *parts; /* partitions as changed at run time */
    struct resvs *resv;  /* advance reservations (cluster/resv.h) */
    struct nodes *nodes;
    struct jobs *jobs;
    struct nodecmd *nodecmd; /* requests to node daemons (nodecmd.h) */
    struct steps *steps;     /* job steps (steps.h) */
    struct sched_drv *sched;
    struct model *model;         /* what passes are built from (model.h) */
    struct preempt_drv *preempt; /* preemption and its holds */
    struct prio_drv *prio;       /* priorities and fair-share usage */
    struct explain *explain;     /* sluice explain (explain.h) */
    struct jlimits *limits;      /* resource limits (jlimits.h) */
    struct jchain *chain;        /* their chain from acct (jchain.h) */
    struct listen *listen;
    struct jwt_key *jwt;    /* auth/jwt's key, or NULL (common/jwt.h) */
    struct web *web;        /* the HTTP server, or NULL (web/web.h) */
    struct rpc_env rpc;     /* what the request handlers use (rpc/rpc.h) */
    struct rpc_debug debug; /* scontrol setdebug's level (rpc/rpc.h) */
    struct stats *stats;    /* the counters of /metrics (core/stats.h) */

    struct event *tick_ev; /* 1 s: time limits, node timeouts, BeginTime */
    /* a tick put its duties off: the state directory took no writes */
    bool tick_deferred;
    /* Tests only: time limits and --signal times are divided by this
     * (SLUICE_TEST_TIME_DIVISOR, default 1), so that --time=1 ends in
     * seconds.  Logged as a warning when set; never set in production. */
    uint32_t time_divisor;
    /* set by main before ctld_listen: the configuration file and who
     * takes a reconfigured one (rpc_env.reconfigure) */
    const char *conf_path;
    void (*reconfigure)(void *arg, struct conf *next);
    void *reconf_arg;
};

/*
 * ctld_create: the subsystems on base, with state loaded from
 * conf->state_save_location (which must exist).  Listening starts with
 * ctld_listen.  NULL with e on failure.  ctld_destroy commits what is
 * pending and frees everything (accepts NULL).
 */
struct ctld *ctld_create(const struct conf *conf, struct auth *auth,
                         struct event_base *base, struct err *e);
void ctld_destroy(struct ctld *c);

/* ctld_listen: serve on already bound and listening sockets (any may be
 * -1): the protocol's TCP and unix sockets, and HTTP's (web_bind); they
 * are owned by the controller from now on (on failure the caller still
 * closes the first two; the HTTP socket is closed). */
int ctld_listen(struct ctld *c, int tcp_fd, int unix_fd, int web_fd,
                struct err *e);

#endif
