/*
 * sluice help [VERB]: the verbs, or one verb's usage line; also the usage
 * of a Slurm name (sluice help sbatch), which the man pages' synopses
 * are made from.
 */
#include <stdio.h>

#include "cli/cli.h"

int cmd_help(int argc, char **argv)
{
    const struct cli_cmd *cmd;

    if (argc < 2) {
        cli_usage(stdout);
        return 0;
    }
    if ((cmd = cli_find(cli_cmds, argv[1])) != NULL) {
        printf("usage: sluice %s\n", cmd->usage);
        return 0;
    }
    if ((cmd = cli_find(cli_slurm_cmds, argv[1])) != NULL) {
        printf("usage: %s\n", cmd->usage);
        return 0;
    }
    fprintf(stderr, "sluice: unknown verb '%s'\n", argv[1]);
    return 2;
}
