/*
 * The sluice command line: one multi-call binary.  Each verb is one file
 * (cmd_VERB.c) described by one entry of cli_cmds; the same binary run as
 * a Slurm name (sbatch, squeue, ...) looks that name up in cli_slurm_cmds.
 */
#ifndef SLUICE_CLI_H
#define SLUICE_CLI_H

#include <stdio.h>

#define SLUICE_VERSION "0.1.0"

struct cli_cmd {
    const char *name;
    /* fn: argv[0] is the verb (or the Slurm name); returns the exit code:
     * 0 success, 1 failure, 2 usage error. */
    int (*fn)(int argc, char **argv);
    const char *usage; /* one line: "check-config [-f FILE] [--json]" */
};

/* Both tables end with an entry whose name is NULL. */
extern const struct cli_cmd cli_cmds[];
extern const struct cli_cmd cli_slurm_cmds[];

/* cli_find: the entry named name in tab, or NULL. */
const struct cli_cmd *cli_find(const struct cli_cmd *tab, const char *name);
/* cli_usage: the list of verbs, to fp. */
void cli_usage(FILE *fp);

int cmd_check_config(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
