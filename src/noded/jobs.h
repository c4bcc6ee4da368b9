/*
 * The jobs of this node as sluiced knows them: rebuilt from the spool at
 * start and every second (a supervisor outlives sluiced), changed by
 * JOB_LAUNCH, JOB_SIGNAL and JOB_KILL from the controller, and reported
 * with JOB_END until the controller acknowledges each end.
 */
#ifndef SLUICE_NODED_JOBS_H
#define SLUICE_NODED_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "common/proto.h"
#include "noded/noded.h"

/* How long a supervisor may take to start a job before the launch fails. */
#define JOBS_LAUNCH_TIMEOUT_S 60

/* How long a job's user (name, home, supplementary groups) resolved by
 * sluiced is used for later launches: a change to /etc/group reaches new
 * jobs within this many seconds. */
#define JOBS_USER_TTL_S 10
/* How long a supervisor may look gone before its status appears. */
#define JOBS_GONE_GRACE_S 3
/* How long to wait for a supervisor still recording itself (it holds its
 * job directory's lock meanwhile) before leaving that job to a later scan. */
#define JOBS_LOCK_WAIT_MS 2000

/*
 * njobs_create: listen on <spool>/sluiced.sock for supervisors' notes,
 * adopt every job of the spool, and rescan it every second.  Free with
 * njobs_destroy (accepts NULL): supervisors and jobs keep running.
 */
struct njobs *njobs_create(struct noded *nd, struct err *e);
void njobs_destroy(struct njobs *j);

/*
 * njobs_register_list: the "jobs" array of NODE_REGISTER: every job in
 * the spool, {"job_id", "state": "running"} or {"job_id", "state":
 * "ended", "exit_code", "signal", "start_time", "end_time"}.  *ended (new
 * array, caller frees) gets the ids of the ended ones.
 */
json_t *njobs_register_list(struct njobs *j, uint32_t **ended, size_t *n_ended);

/* njobs_running_ids: [id, ...] of running jobs, for NODE_HEARTBEAT. */
json_t *njobs_running_ids(struct njobs *j);

/*
 * njobs_registered: the controller accepted a registration that listed the
 * ended jobs acked (their reports are delivered: the spool forgets them)
 * and asked to kill kill_jobs (an array of ids; may be NULL).  Ends not
 * yet reported go out as JOB_END.
 */
void njobs_registered(struct njobs *j, const uint32_t *acked, size_t n_acked,
                      json_t *kill_jobs);

/* njobs_request: serve JOB_LAUNCH, JOB_SIGNAL or JOB_KILL f of connection
 * gen; the reply goes out through nd->conn (later, for a launch). */
void njobs_request(struct njobs *j, const struct proto_frame *f, uint64_t gen);

#endif
