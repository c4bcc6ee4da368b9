/*
 * salloc's parts, shared by its files: the options (sbatch's resource
 * options from the jobspec table plus salloc's own) and the JOBSPEC they
 * make (salloc_opts.c), the command's environment and the command itself
 * (salloc_env.c).  cmd_salloc.c ties them together.
 */
#ifndef SLUICE_CLI_SALLOC_H
#define SLUICE_CLI_SALLOC_H

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "cli/jobspec.h"
#include "common/conf.h"
#include "common/err.h"

/* --bell / --no-bell: Slurm rings when the wait was longer than this. */
#define SALLOC_BELL_AFTER_S 10

enum salloc_bell {
    SALLOC_BELL_AFTER_DELAY, /* the default */
    SALLOC_BELL_ALWAYS,      /* --bell */
    SALLOC_BELL_NEVER,       /* --no-bell */
};

struct salloc_opts {
    struct jobspec js; /* sbatch's options: the JOBSPEC so far */
    bool no_shell;     /* --no-shell */
    int immediate_s;   /* -1: wait; 0: now or never (-I); N: at most N s */
    enum salloc_bell bell;
    int verbose;
    bool syntax_error; /* the error was in the words, not in a value */
    char unknown[128]; /* an unrecognized long option (for a suggestion) */
    /* the command: argv[first..argc) of the parsed argv, borrowed */
    char **cmd;
    int n_cmd;
};

/*
 * salloc_opts_parse: argv (argv[0] is the verb) and the SALLOC_* input
 * variables of envp into o (the command line wins).  Values are checked
 * by the sbatch parsers, so a mistake reads as sbatch's
 * ("--time=abc: bad time ...").  Option parsing stops at the command.
 * -1 with EINVAL and e (o->syntax_error for an unknown option or a
 * missing value).  Free with salloc_opts_clear.
 */
int salloc_opts_parse(struct salloc_opts *o, int argc, char **argv,
                      char *const *envp, time_t now, struct err *e);
void salloc_opts_clear(struct salloc_opts *o);
/* salloc_opts_error: print salloc_opts_parse's error: with "did you mean
 * '--NAME'?" for a misspelled option, "(see 'help --help')" otherwise. */
void salloc_opts_error(const struct salloc_opts *o, const char *text,
                       const char *help);
/* salloc_opts_help: the option summary, to stdout. */
void salloc_opts_help(const char *name);

/*
 * salloc_jobspec: the JOBSPEC to submit: "alloc": "salloc", no script,
 * "immediate": true with -I (no SECS), the name (-J, else the command's
 * base name, else "interactive") and work_dir (-D against cwd, else cwd).
 * Takes over o->js.job.  New object, or NULL with e (sbatch's checks:
 * "--mem and --mem-per-cpu are mutually exclusive.").
 */
json_t *salloc_jobspec(struct salloc_opts *o, const char *cwd, struct err *e);

/*
 * salloc_env: the command's environment: envp with the allocation's
 * variables set from the running job (a JOB object of JOB_QUERY) and the
 * JOBSPEC that asked for it: SLURM_JOB_ID, SLURM_JOBID, SLURM_JOB_NAME,
 * SLURM_JOB_PARTITION, SLURM_JOB_NODELIST, SLURM_NODELIST,
 * SLURM_JOB_NUM_NODES, SLURM_NNODES, SLURM_JOB_CPUS_PER_NODE ("4(x2)"),
 * SLURM_TASKS_PER_NODE (the job's tasks in blocks, "2,1"),
 * SLURM_SUBMIT_DIR (cwd), SLURM_SUBMIT_HOST (host), and only when the
 * JOBSPEC asked: SLURM_NTASKS and SLURM_NPROCS, SLURM_NTASKS_PER_NODE,
 * SLURM_CPUS_PER_TASK, SLURM_MEM_PER_NODE; each also as SLUICE_*.
 * NULL-terminated array of fresh strings; free with salloc_env_free.
 */
char **salloc_env(json_t *job, json_t *spec, char *const *envp, const char *cwd,
                  const char *host);
void salloc_env_free(char **env);
/* salloc_env_get: the value of key in env, or NULL. */
const char *salloc_env_get(char *const *env, const char *key);

/*
 * salloc_command: what salloc runs: the command given; else with
 * LaunchParameters=use_interactive_step "srun" and the words of
 * InteractiveStepOptions ($SHELL replaced by shell); else shell.
 * NULL-terminated array of fresh strings (free with salloc_env_free), or
 * NULL with e when InteractiveStepOptions does not split into words.
 */
char **salloc_command(const struct salloc_opts *o, const struct conf *conf,
                      const char *shell, struct err *e);

/*
 * salloc_end_lines: what salloc says when the job ended under its
 * command (a JOB object, NULL when the controller no longer knows it):
 * "Job N has exceeded its time limit and its allocation has been
 * revoked." (TIMEOUT), else "Job allocation N has been revoked.", and for
 * a preempted job a second line "job N was preempted by job M (partition
 * P)" (*line2; "" when none).  Returns line1.
 */
char *salloc_end_lines(json_t *job, unsigned job_id, char *line1, size_t len1,
                       char *line2, size_t len2);

/* salloc_exit_code: salloc's exit status for the command's wait status:
 * its exit code; 0 for a command killed by SIGHUP, SIGINT, SIGQUIT or
 * SIGKILL (the user's doing, as Slurm counts it), else 1. */
int salloc_exit_code(int status);
/* salloc_complete_code: JOB_COMPLETE's exit_code: the exit code, or
 * -SIG for a command killed by SIG. */
int salloc_complete_code(int status);

#endif
