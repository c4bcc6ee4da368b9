/*
 * A job's account and QOS at submit, and what AccountingStorageEnforce and
 * the partition's access lists (AllowAccounts, DenyAccounts, AllowQos,
 * DenyQos, AllowGroups) say about them.
 */
#ifndef SLUICE_CTLD_JOBACCT_H
#define SLUICE_CTLD_JOBACCT_H

#include "common/conf.h"
#include "common/err.h"

struct acct;
struct job;

/* AccountingStorageEnforce, with Slurm's implications: limits and qos
 * imply associations, safe implies limits. */
#define JOBACCT_ENFORCE_ASSOC 0x01u
#define JOBACCT_ENFORCE_LIMITS 0x02u
#define JOBACCT_ENFORCE_QOS 0x04u
#define JOBACCT_ENFORCE_SAFE 0x08u

/* jobacct_enforce: the flags of conf's AccountingStorageEnforce (unknown
 * words are ignored; check-config reports them). */
unsigned jobacct_enforce(const struct conf *conf);

/*
 * jobacct_resolve: set j->account (--account, else the user's default
 * account) and j->qos (--qos, else the association's DefaultQOS, else
 * normal), then check them: an unknown QOS always fails; with
 * associations enforced, a user without an association with the account
 * (on the job's partition) fails; with qos enforced, a QOS the
 * association does not allow fails with the list it does.  The
 * partition's access lists are checked always.  -1 with EINVAL (EPERM for
 * access) and e saying what and why.
 */
int jobacct_resolve(const struct acct *a, const struct conf *conf,
                    struct job *j, struct err *e);

#endif
