/*
 * The job options of struct job_opts at submission (jobspec.c calls
 * these): read and checked from the JOBSPEC, then judged against the
 * job's partition.
 */
#ifndef SLUICE_CTLD_JOBSPEC_OPTS_H
#define SLUICE_CTLD_JOBSPEC_OPTS_H

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "ctld/cluster/parts.h"
#include "ctld/job/job.h"

struct jobs;

/*
 * jobspec_opts_parse: the option keys of spec into j->opt (comment,
 * wckey, constraint, deadline, time_min_s, tmp_mib, mincpus, exclusive,
 * oversubscribe, the node shape, ntasks_per_gpu, the binding strings,
 * spread_job, use_min_nodes), each checked for type, range and length:
 * -1 with EINVAL and e naming the key.  Call after the resources and
 * GPUs are parsed (ntasks_per_gpu sets the task count).
 */
int jobspec_opts_parse(json_t *spec, struct job *j, struct err *e);

/*
 * jobspec_opts_identity: "priority" (operators only; "TOP" is the
 * highest) and "uid"/"gid" (root and the controller's user only) of
 * spec; *who becomes the user the job runs as.  -1 with EPERM or EINVAL.
 */
int jobspec_opts_identity(struct jobs *js, json_t *spec, struct job *j,
                          struct auth_id *who, struct err *e);

/*
 * jobspec_opts_check: j's options as its partition p sees them: the
 * time_min against the limit, the deadline against now, and whether any
 * nodes of p meet the per-node needs and the constraint.  -1 with EINVAL
 * and e saying which, as Slurm's "Invalid feature specification" for a
 * constraint no set of nodes can meet.
 */
int jobspec_opts_check(const struct conf *conf, const struct part *p,
                       struct job *j, time_t now, struct err *e);

/*
 * jobspec_opts_deadline: a pending j that can no longer end by its
 * --deadline (now plus its time_min, else its time limit, is past it) is
 * ended DEADLINE with reason "DeadLine", as Slurm does.  Returns whether
 * it was.
 */
bool jobspec_opts_deadline(struct jobs *js, struct job *j, time_t now);

#endif
