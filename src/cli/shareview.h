/*
 * sshare's output: the association tree of SHARE_REPLY (docs/protocol.md)
 * in Slurm 22.05's columns (Account User RawShares NormShares RawUsage
 * EffectvUsage FairShare; -l adds NormUsage LevelFS GrpTRESMins
 * TRESRunMins; -o chooses), -p or -P.
 */
#ifndef SLUICE_CLI_SHAREVIEW_H
#define SLUICE_CLI_SHAREVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "cli/fmt.h"
#include "common/err.h"

struct shareview_args {
    const char *accounts, *users, *format; /* -A, -u, -o (NULL: all) */
    char me[256];                          /* the caller's user name */
    bool all, lng, users_only, partition, noheader;
    enum fmt_tab_mode mode;
};

/* shareview_print: the rows of reply that a selects, with a header unless
 * noheader.  -1 with e naming an unknown field (nothing printed). */
int shareview_print(FILE *fp, const struct shareview_args *a, json_t *reply,
                    struct err *e);

/* shareview_helpformat: the field names (-e). */
void shareview_helpformat(FILE *fp);

#endif
