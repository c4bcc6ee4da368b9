/*
 * sluiced's root context: the configuration, the node it serves, its spool,
 * the event loop and the subsystems hung off it (the connection to the
 * controller, the table of jobs).  One per process.
 */
#ifndef SLUICE_NODED_H
#define SLUICE_NODED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <event2/event.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/version.h"
#include "noded/cgroup.h"
#include "noded/health.h"
#include "noded/resources.h"
#include "noded/spool.h"

struct conn;
struct njobs;
struct nsteps;

struct noded {
    struct conf *conf;     /* owned */
    const char *conf_path; /* as named on the command line (borrowed) */
    const struct conf_node *node;
    const char *name;  /* node->name */
    char *hostname;    /* gethostname(), owned */
    char *spool;       /* absolute spool directory, owned */
    struct auth *auth; /* owned */
    /* SlurmUser's uid, trusted like root to speak for the controller;
     * (uid_t)-1 when SlurmUser is not set */
    uid_t slurm_uid;
    struct resources res;
    struct cgroup cg; /* how jobs are contained (version NONE: pgid only) */
    int64_t boot_time;
    char boot_id[SPOOL_BOOT_ID_MAX]; /* "" when unknown */
    /* what the node says of itself for sluice doctor (health.h) */
    enum health_fence fence;
    char fence_why[400];
    int64_t clock_skew_s; /* SLUICE_TEST_CLOCK_SKEW_S, tests only */

    char *log_path; /* reopened on SIGHUP; NULL: stderr (main's) */
    FILE *logfp;    /* main's */

    struct event_base *base;
    struct conn *conn;
    struct njobs *jobs;
    struct nsteps *steps;
    struct event *sig_term, *sig_int, *sig_hup;
};

/*
 * noded_setup: everything after option parsing and name resolution that
 * can fail with a message for the person starting the daemon: resources,
 * spool, auth, cgroup.conf (then the node's cgroup is set up).  nd->conf, conf_path, node, name and hostname are set by
 * the caller.  No event loop yet (that is noded_run's, after a fork).
 */
int noded_setup(struct noded *nd, struct err *e);

/* noded_run: create the loop and the subsystems, run until SIGTERM or
 * SIGINT.  Returns 0 on a clean stop, -1 with e on failure to start. */
int noded_run(struct noded *nd, struct err *e);

/* noded_fini: free what nd holds (not nd itself). */
void noded_fini(struct noded *nd);

#endif
