/*
 * The sluice command line: one multi-call binary.  Each verb is one file
 * (cmd_VERB.c) described by one entry of cli_cmds; the same binary run as
 * a Slurm name (sbatch, squeue, ...) looks that name up in cli_slurm_cmds.
 */
#ifndef SLUICE_CLI_H
#define SLUICE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "common/version.h"

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
int cmd_doctor(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
/* The job and cluster verbs (cmd_VERB.c); each also serves its Slurm
 * name (sbatch, squeue, ...) and prints in that face. */
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_hold(int argc, char **argv);
int cmd_release(int argc, char **argv);
int cmd_suspend(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_update(int argc, char **argv);
int cmd_scontrol(int argc, char **argv);
int cmd_acct(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_acctmgr(int argc, char **argv);
int cmd_prio(int argc, char **argv);
int cmd_share(int argc, char **argv);
int cmd_diag(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_srun(int argc, char **argv);
int cmd_salloc(int argc, char **argv);
int cmd_sstat(int argc, char **argv);

/* check_config_extra: what sluice check-config checks beyond the file
 * itself, into d: the gres.conf beside path against each node's Gres=,
 * and the cgroup.conf beside it against the DefMemPer* keys. */
struct conf;
struct conf_diag;
void check_config_extra(const struct conf *c, const char *path,
                        struct conf_diag *d);
int cmd_import_slurm(int argc, char **argv);

/* The bodies of show, hold/release and update, given the words after the
 * verb; shared by the sluice verbs and scontrol.  Return exit codes. */
int show_run(int argc, char **argv, bool json, bool oneliner);
/* show_set_detail: how many -d (scontrol --details) show_run honours. */
void show_set_detail(int n);
/* show step [JOBID[.STEP]] (show_step.c), called by show_run. */
int show_step_run(int argc, char **argv, bool json, bool oneliner);
int hold_run(bool release, int argc, char **argv);
int suspend_run(bool resume, int argc, char **argv);
int update_run(int argc, char **argv);
/* scontrol's own verbs (helper verbs): requeue[hold] (cmd_requeue.c),
 * ping, show config, reconfigure, setdebug, top (cmd_ctlverbs.c) */
int requeue_run(bool hold, int argc, char **argv);
int ping_run(int argc, char **argv);
int show_config_run(int argc, char **argv);
int reconfigure_run(int argc, char **argv);
int setdebug_run(int argc, char **argv);
int top_run(int argc, char **argv);
/* scontrol token: an auth/jwt token for the REST API */
int token_run(int argc, char **argv);
/* Reservations (cmd_resv.c), given the words after create, update,
 * delete, show reservation; resv_sinfo_run is sinfo -T. */
int resv_create_run(int argc, char **argv);
int resv_update_run(int argc, char **argv);
int resv_delete_run(int argc, char **argv);
int resv_show_run(int argc, char **argv, bool json, bool oneliner);
int resv_sinfo_run(bool noheader);

#endif
