/*
 * Which limit sets apply to a job, from the accounting model: the chain
 * function of jlimits.h over acct.h.  The partition's QOS (QOS= on its
 * PartitionName line), the job's QOS, the user's association and its
 * accounts' up to root, in Slurm's precedence (limits_chain), with the
 * QOS flags OverPartQOS and DenyOnLimit.  docs/limits.md.
 */
#ifndef SLUICE_CTLD_JCHAIN_H
#define SLUICE_CTLD_JCHAIN_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/err.h"
#include "ctld/job/job.h"
#include "sched/limits.h"

struct acct;
struct jchain;

/*
 * jchain_create: a chain over a and conf (both borrowed; they must
 * outlive it).  Lookups go through a cache of the model (QOS by name,
 * user associations by user, account and partition, each with its
 * account levels up to root) rebuilt when acct_generation moves, so a
 * call costs two hash lookups and a copy.  jchain_destroy accepts NULL.
 */
struct jchain *jchain_create(const struct acct *a, const struct conf *conf);
void jchain_destroy(struct jchain *jc);

/*
 * jchain_levels: a jlimits_chain_fn (arg: the struct jchain).  The levels
 * of j into lv, most binding first; *deny when the job's QOS or the
 * partition QOS has Flags=DenyOnLimit.  A user without an association
 * (deleted since the job was submitted) gets the QOS levels only; a
 * partition QOS that names no QOS is left out (logged when the cache is
 * built).  -1 with EINVAL and e when the job's QOS does not exist, or the
 * account tree is deeper than LIMITS_LEVEL_MAX allows.  What lv points to
 * stays valid until the accounting model next changes.
 */
int jchain_levels(void *arg, const struct job *j, struct limits_level *lv,
                  bool *deny, struct err *e);

#endif
