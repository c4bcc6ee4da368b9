/*
 * sluice help [VERB]: the verbs, or one verb's usage line.
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
    if ((cmd = cli_find(cli_cmds, argv[1])) == NULL) {
        fprintf(stderr, "sluice: unknown verb '%s'\n", argv[1]);
        return 2;
    }
    printf("usage: sluice %s\n", cmd->usage);
    return 0;
}
