/*
 * The table of sluice verbs, and of the Slurm command names the binary
 * answers to when installed under them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const struct cli_cmd cli_cmds[] = {
    {"check-config", cmd_check_config, "check-config [-f FILE] [--json]"},
    {"help", cmd_help, "help [VERB]"},
    {"version", cmd_version, "version"},
    {NULL, NULL, NULL},
};

/* sbatch, squeue, ... arrive with the job and query verbs. */
const struct cli_cmd cli_slurm_cmds[] = {
    {NULL, NULL, NULL},
};

const struct cli_cmd *cli_find(const struct cli_cmd *tab, const char *name)
{
    for (; tab->name != NULL; tab++)
        if (strcmp(tab->name, name) == 0)
            return tab;
    return NULL;
}

void cli_usage(FILE *fp)
{
    fprintf(fp, "usage: sluice VERB [OPTIONS]\n\nverbs:\n");
    for (const struct cli_cmd *c = cli_cmds; c->name != NULL; c++)
        fprintf(fp, "  sluice %s\n", c->usage);
}
