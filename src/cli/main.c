/*
 * sluice: dispatch by verb (sluice check-config ...) or, when run under a
 * Slurm command's name, by that name (argv[0]).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/log.h"

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    const struct cli_cmd *cmd;

    base = base ? base + 1 : argv[0];
    log_init("sluice", LOG_LEVEL_WARN, stderr);
    if ((cmd = cli_find(cli_slurm_cmds, base)) != NULL)
        return cmd->fn(argc, argv);
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return cmd_help(argc - 1, argv + 1);
    if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
        return cmd_version(argc - 1, argv + 1);
    if ((cmd = cli_find(cli_cmds, argv[1])) == NULL) {
        fprintf(stderr, "sluice: unknown verb '%s'\n", argv[1]);
        cli_usage(stderr);
        return 2;
    }
    return cmd->fn(argc - 1, argv + 1);
}
