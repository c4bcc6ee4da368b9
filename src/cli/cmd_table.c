/*
 * The table of sluice verbs, and of the Slurm command names the binary
 * answers to when installed under them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const struct cli_cmd cli_cmds[] = {
    {"check-config", cmd_check_config, "check-config [-f FILE] [--json]"},
    {"import-slurm", cmd_import_slurm,
     "import-slurm [--dir DIR] [--accounting DUMP] [-o OUTDIR] "
     "[--slurm-user USER] [--force]"},
    {"doctor", cmd_doctor, "doctor [--json]"},
    {"help", cmd_help, "help [VERB]"},
    {"version", cmd_version, "version"},
    {"submit", cmd_submit, "submit [SBATCH OPTIONS] [SCRIPT [ARGS]]"},
    {"queue", cmd_queue, "queue [SQUEUE OPTIONS]"},
    {"cancel", cmd_cancel, "cancel [SCANCEL OPTIONS] [JOBID...]"},
    {"info", cmd_info, "info [SINFO OPTIONS]"},
    {"show", cmd_show, "show [--json] [-o] job|node|partition|step [ID]"},
    {"hold", cmd_hold, "hold JOBID..."},
    {"release", cmd_release, "release JOBID..."},
    {"suspend", cmd_suspend, "suspend JOBID... (operators)"},
    {"resume", cmd_resume, "resume JOBID... (operators)"},
    {"update", cmd_update,
     "update JobId=ID KEY=VALUE... | NodeName=NODES State=S [Reason=R] | "
     "PartitionName=P KEY=VALUE..."},
    {"acct", cmd_acct, "acct [SACCT OPTIONS] | acct --events JOBID"},
    {"checkpoint", cmd_checkpoint, "checkpoint [JOBID]"},
    {"report", cmd_report,
     "report preemptions [-S START] [-E END] [--share X] [--json]"},
    {"simulate", cmd_simulate,
     "simulate -w WORKLOAD [-c CONFIG] [--compare A.conf B.conf] [--json] "
     "[--plots DIR] (docs/simulate.md)"},
    {"up", cmd_up, "up [-f CONFIG] [--dir DIR]"},
    {"down", cmd_down, "down [--dir DIR] [--cancel]"},
    {"acctmgr", cmd_acctmgr,
     "acctmgr [-i] [-n] [-p|-P] [--json] add|modify|delete|show ENTITY ..."},
    {"prio", cmd_prio,
     "prio [-j JOBS] [-u USERS] [-l] [-n] [-w] [-h] [-o FORMAT] [--json]"},
    {"share", cmd_share, "share [-a] [-l] [-A ACCOUNTS] [-u USERS] [--json]"},
    {"diag", cmd_diag, "diag [--json]"},
    {"explain", cmd_explain, "explain [--json] JOBID"},
    {"run", cmd_srun, "run [SRUN OPTIONS] COMMAND [ARGS...]"},
    {"alloc", cmd_salloc, "alloc [SALLOC OPTIONS] [COMMAND [ARGS...]]"},
    {"stat", cmd_sstat, "stat -j JOBID[.STEP][,...] [SSTAT OPTIONS]"},
    {NULL, NULL, NULL},
};

/* The Slurm names, each with the verb that speaks its syntax. */
const struct cli_cmd cli_slurm_cmds[] = {
    {"sbatch", cmd_submit, "sbatch [OPTIONS] [SCRIPT [ARGS]]"},
    {"squeue", cmd_queue, "squeue [OPTIONS]"},
    {"scancel", cmd_cancel, "scancel [OPTIONS] [JOBID...]"},
    {"sinfo", cmd_info, "sinfo [OPTIONS]"},
    {"scontrol", cmd_scontrol, "scontrol [OPTIONS] COMMAND ..."},
    {"sacctmgr", cmd_acctmgr, "sacctmgr [OPTIONS] COMMAND ENTITY [SPECS]"},
    {"sprio", cmd_prio, "sprio [OPTIONS]"},
    {"sshare", cmd_share, "sshare [OPTIONS]"},
    {"sdiag", cmd_diag, "sdiag [--json]"},
    {"sacct", cmd_acct, "sacct [OPTIONS]"},
    {"srun", cmd_srun, "srun [OPTIONS] COMMAND [ARGS...]"},
    {"salloc", cmd_salloc, "salloc [OPTIONS] [COMMAND [ARGS...]]"},
    {"sstat", cmd_sstat, "sstat -j JOBID[.STEP] [OPTIONS]"},
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
