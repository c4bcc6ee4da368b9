/*
 * Every request the controller sends to a node daemon about a job, and
 * the handling of their replies: JOB_LAUNCH, JOB_SIGNAL, JOB_FREEZE and
 * JOB_KILL (docs/protocol.md), each down the connection the node
 * registered on: to the job's batch host, the first node of its
 * allocation (JOB_KILL to every node of it, which kills the job's steps
 * there too); and a step's STEP_LAUNCH, STEP_SIGNAL and STEP_KILL to the
 * nodes of the step.  The other direction is noded/jobreq.c.
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

#include <jansson.h>

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
 * nodecmd_freeze: JOB_FREEZE j (on: suspend, else resume) to every node
 * of its allocation: the batch host, then the nodes that run only its
 * steps (told when connected; their replies are not waited for).  -1 as
 * nodecmd_signal when the batch host is not reached.
 */
int nodecmd_freeze(struct nodecmd *nc, const struct job *j, bool on,
                   struct err *e);

/*
 * nodecmd_kill: JOB_KILL j with reason ("cancelled", "timeout", ...) to
 * every node of its allocation: SIGCONT and SIGTERM to the batch job and
 * the job's steps, SIGKILL wait_s seconds later.  j must have an
 * allocation.  0 when sent to the batch host; -1 (logged) when it is not
 * connected or the request cannot be encoded.  The other nodes are told
 * when they are connected; their replies are not waited for.
 */
int nodecmd_kill(struct nodecmd *nc, const struct job *j, const char *reason,
                 uint32_t wait_s);
/*
 * nodecmd_kill_on: JOB_KILL for job job_id to node idx alone, whatever the
 * controller holds of the job (a run the node should not have: lost with
 * the node, or launched after it was given up).  -1 with EHOSTUNREACH when
 * the node is not connected; -1 (logged) when it cannot be sent.
 */
int nodecmd_kill_on(struct nodecmd *nc, size_t idx, uint64_t job_id,
                    const char *reason, uint32_t wait_s);

/*
 * A node's reply to STEP_LAUNCH: arg as given to nodecmd_step_launch,
 * node the conf index that answered, error NULL when the tasks started,
 * else the node's text.  A lost connection calls nothing: the node's
 * STEP_END, or its going down, settles the step.
 */
typedef void (*nodecmd_step_reply_fn)(void *ctx, uint64_t arg, size_t node,
                                      const char *error);
/* nodecmd_set_step_reply: where STEP_LAUNCH replies go (the step table,
 * which is created after nc). */
void nodecmd_set_step_reply(struct nodecmd *nc, nodecmd_step_reply_fn fn,
                            void *ctx);
/*
 * nodecmd_step_launch: STEP_LAUNCH body (borrowed) to node (conf index);
 * its reply goes to the step reply function with arg.  -1 with
 * EHOSTUNREACH and e ("node node02 is not connected"), or e when it
 * cannot be encoded.
 */
int nodecmd_step_launch(struct nodecmd *nc, size_t node, json_t *body,
                        uint64_t arg, struct err *e);
/* nodecmd_step_signal: STEP_SIGNAL signal to the tasks of job_id.step_id
 * on node.  -1 as nodecmd_step_launch. */
int nodecmd_step_signal(struct nodecmd *nc, size_t node, uint64_t job_id,
                        uint32_t step_id, int signal, struct err *e);
/* nodecmd_step_kill: STEP_KILL job_id.step_id on node with reason
 * ("cancelled", "timeout", "node_fail", "launch_failed"), SIGKILL wait_s
 * after SIGTERM.  -1 (logged) when the node is not connected. */
int nodecmd_step_kill(struct nodecmd *nc, size_t node, uint64_t job_id,
                      uint32_t step_id, const char *reason, uint32_t wait_s);

#endif
