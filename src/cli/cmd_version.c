/*
 * sluice version.
 */
#include <stdio.h>

#include "cli/cli.h"

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("sluice %s\n", SLUICE_VERSION);
    return 0;
}
