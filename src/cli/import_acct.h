/*
 * sluice import-slurm --accounting: a `sacctmgr dump` file as a script of
 * `sluice acctmgr` commands (import_acct.c).
 */
#ifndef SLUICE_CLI_IMPORT_ACCT_H
#define SLUICE_CLI_IMPORT_ACCT_H

#include "common/conf_import.h"
#include "common/err.h"

/*
 * import_acct_dump: the dump at path as the text of accounting.sh, into
 * *out (the caller frees it); what was changed or left out goes into r,
 * with the dump's line.  -1 with e only when path cannot be read.
 */
int import_acct_dump(const char *path, struct import_report *r, char **out,
                     struct err *e);

#endif
