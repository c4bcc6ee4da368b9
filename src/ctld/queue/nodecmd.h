/*
 * Every request the controller sends to a node daemon about a job, and
 * the handling of their replies: JOB_LAUNCH, JOB_SIGNAL, JOB_FREEZE and
 * JOB_KILL (docs/protocol.md).  Each goes to the job's batch host, the
 * first node of its allocation, down the connection that node registered
 * on.  The other direction of the same requests is noded/jobreq.c.
 *
 * Like every output, a request sent while the iteration's transaction is
 * open is held on its connection until the commit (listen.h).
 */
#ifndef SLUICE_CTLD_NODECMD_H
#define SLUICE_CTLD_NODECMD_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

struct job;
struct jobs;
struct nodes;
struct persist;
struct nodecmd;

/*
 * nodecmd_create: requests for the jobs of js on the nodes of ns; the
 * scripts come from p (stored at submit).  All borrowed, and must outlive
 * the context.  nodecmd_destroy accepts NULL.
 */
struct nodecmd *nodecmd_create(const struct conf *conf, struct nodes *ns,
                               struct persist *p, struct jobs *js);
void nodecmd_destroy(struct nodecmd *nc);

/*
 * nodecmd_launch: JOB_LAUNCH for j, just started (RUNNING, allocated,
 * not launched), with its script, argv and environment as stored at
 * submit (an array task's are its array's).  When they cannot be read,
 * the node is not connected or the request cannot be encoded, j fails at
 * once (FAILED, "launch failed: ...").  The reply: success marks j
 * launched (jobs_launched); an error fails j with exit code 1 and the
 * node's text, so that a job that cannot start there does not loop; a
 * closed connection, or a job no longer RUNNING on that node, is left to
 * registration or the node timeout.
 */
void nodecmd_launch(struct nodecmd *nc, struct job *j);

/*
 * nodecmd_signal: JOB_SIGNAL signal to j's processes (batch_only: to the
 * batch shell alone).  -1 with EHOSTUNREACH and e when the node is not
 * connected, or e when the request cannot be encoded.
 */
int nodecmd_signal(struct nodecmd *nc, const struct job *j, int signal,
                   bool batch_only, struct err *e);

/*
 * nodecmd_freeze: JOB_FREEZE j (on: suspend, else resume).  -1 as
 * nodecmd_signal.
 */
int nodecmd_freeze(struct nodecmd *nc, const struct job *j, bool on,
                   struct err *e);

/*
 * nodecmd_kill: JOB_KILL j with reason ("cancelled", "timeout", ...):
 * SIGCONT and SIGTERM, SIGKILL wait_s seconds later.  j must have an
 * allocation.  0 when sent; -1 (logged) when the node is not connected
 * or the request cannot be encoded.
 */
int nodecmd_kill(struct nodecmd *nc, const struct job *j, const char *reason,
                 uint32_t wait_s);

#endif
