/*
 * The job steps of this node as sluiced knows them: rebuilt from the
 * spool (step.<job>.<step>/) at start and every second (a step supervisor
 * outlives sluiced), changed by STEP_LAUNCH, STEP_SIGNAL, STEP_KILL and
 * JOB_KILL from the controller, reported with STEP_END until the
 * controller acknowledges each end, and their usage sent with STEP_USAGE
 * every JobAcctGatherFrequency seconds.
 */
#ifndef SLUICE_NODED_STEPS_H
#define SLUICE_NODED_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/proto.h"
#include "noded/noded.h"

/* nsteps_create: adopt every step of the spool, rescan every second,
 * send usage every usage period.  Free with nsteps_destroy (accepts
 * NULL): supervisors and steps keep running. */
struct nsteps *nsteps_create(struct noded *nd, struct err *e);
void nsteps_destroy(struct nsteps *s);

/* nsteps_request: serve STEP_LAUNCH, STEP_SIGNAL or STEP_KILL f of
 * connection gen (a launch is answered later, once its tasks run). */
void nsteps_request(struct nsteps *s, const struct proto_frame *f,
                    uint64_t gen);

/* nsteps_kill_job: end every step of job_id here as STEP_KILL does
 * (reason for srun's line, SIGKILL after wait_s); how many there were. */
size_t nsteps_kill_job(struct nsteps *s, uint32_t job_id, const char *reason,
                       uint32_t wait_s);

/* nsteps_freeze_job: suspend (on) or resume every running step of job_id
 * here, as JOB_FREEZE does the batch job: the step's cgroup freezer where
 * it has one, else SIGSTOP to its tasks' process group; resume sends
 * SIGCONT too.  How many steps were reached. */
size_t nsteps_freeze_job(struct nsteps *s, uint32_t job_id, bool on);

/* nsteps_note: a step supervisor's note on sluiced.sock, "step JOB STEP":
 * its status is there. */
void nsteps_note(struct nsteps *s, const char *line);

/* nsteps_has_job: a step of job_id is here and not yet ended. */
bool nsteps_has_job(const struct nsteps *s, uint32_t job_id);

#endif
