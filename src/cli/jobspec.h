/*
 * sbatch's options and #SBATCH directives turned into a JOBSPEC (the JSON
 * body of SUBMIT, docs/protocol.md), each value checked here with the
 * shared parsers so that a mistake is reported before anything is sent.
 */
#ifndef SLUICE_CLI_JOBSPEC_H
#define SLUICE_CLI_JOBSPEC_H

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "cli/opt.h"
#include "common/err.h"

/* The largest script sbatch reads: the frame a request rides in.  The
 * controller enforces SchedulerParameters=max_script_size (4 MiB unless
 * configured), which may be raised up to this. */
#define JOBSPEC_MAX_SCRIPT (16u << 20)

/* Option ids of the sbatch table (jobspec_opts). */
enum jobspec_opt {
    JS_NAME = 1,
    JS_PARTITION,
    JS_TIME,
    JS_CPUS_PER_TASK,
    JS_NTASKS,
    JS_NODES,
    JS_NTASKS_PER_NODE,
    JS_MEM,
    JS_MEM_PER_CPU,
    JS_OUTPUT,
    JS_ERROR,
    JS_CHDIR,
    JS_EXPORT,
    JS_QOS,
    JS_ACCOUNT,
    JS_NODELIST,
    JS_EXCLUDE,
    JS_GRES,
    JS_GPUS,
    JS_HOLD,
    JS_REQUEUE,
    JS_NO_REQUEUE,
    JS_BEGIN,
    JS_SIGNAL,
    JS_PARSABLE,
    JS_TEST_ONLY,
    JS_WRAP,
    JS_HELP,
    JS_USAGE,
    JS_VERSION,
    JS_QUIET,
    JS_GPUS_PER_NODE,
    JS_GPUS_PER_TASK,
    JS_CPUS_PER_GPU,
    JS_MEM_PER_GPU,
    JS_ARRAY,
    JS_DEPENDENCY,
    JS_KILL_INVALID_DEP,
    JS_NICE,
    JS_NO_KILL,
    JS_RESERVATION,
};

/* The sbatch option table. */
extern const struct opt_def jobspec_opts[];

/* What was asked, before defaults; strings owned by the jobspec. */
struct jobspec {
    json_t *job;  /* JOBSPEC fields set so far */
    char *export; /* --export as given; NULL: ALL */
    char *wrap;   /* --wrap command */
    char *chdir;  /* -D as given */
    bool parsable, quiet, help, usage, version;
};

void jobspec_init(struct jobspec *js);
void jobspec_clear(struct jobspec *js);

/*
 * jobspec_set: apply one option (id from jobspec_opts, arg as given).
 * now is the time --begin is relative to.  -1 with EINVAL and e naming
 * the option and what it expects ("--time=abc: bad time ...").
 */
int jobspec_set(struct jobspec *js, int id, const char *arg, time_t now,
                struct err *e);

/*
 * jobspec_directives: apply the #SBATCH lines of script's leading comment
 * block (after the #! line, up to the first line that is neither a
 * comment nor blank).  name is the script's name for messages:
 * "job.sh:3: #SBATCH --time=abc: bad time ...".
 */
int jobspec_directives(struct jobspec *js, const char *script, const char *name,
                       time_t now, struct err *e);

/*
 * jobspec_check_script: Slurm's checks of a batch script: not empty, a
 * "#!" first line, no NUL bytes or DOS line breaks, at most
 * JOBSPEC_MAX_SCRIPT bytes.  -1 with Slurm's words in e.
 */
int jobspec_check_script(const char *script, size_t len, struct err *e);

/*
 * jobspec_signal_parse: --signal=[{R|B}:]SIG[@SECONDS]: SIG by number
 * (1-64) or name ("USR1", "SIGUSR1"), SECONDS 0-65535 (default 60);
 * B: only the batch shell.  -1 with EINVAL and e.
 */
int jobspec_signal_parse(const char *s, int *sig, unsigned *secs, bool *batch,
                         struct err *e);

/*
 * jobspec_export_env: the environment a job gets for --export=spec: "ALL"
 * (envp whole), "NONE" (nothing), or a comma list of "ALL", "NONE",
 * "VAR" (taken from envp) and "VAR=value".  envp entries that are not
 * UTF-8 are skipped.  New object, or NULL with EINVAL and e.
 */
json_t *jobspec_export_env(const char *spec, char *const *envp, struct err *e);

/*
 * jobspec_finish: the JOBSPEC to submit: script (from the file, stdin or
 * --wrap), argv, name (-J, else the script's base name, "wrap" or
 * "sbatch"), work_dir (-D made absolute against cwd, else cwd) and the
 * environment of --export over envp.  script_name is NULL for stdin.
 * Takes over js->job (js keeps none).  NULL with e.
 */
json_t *jobspec_finish(struct jobspec *js, const char *script,
                       const char *script_name, char **args, int nargs,
                       const char *cwd, char *const *envp, struct err *e);

/*
 * jobspec_finish_alloc: the JOBSPEC of an allocation job (no script, no
 * argv, no environment: its steps bring their own): "alloc": kind
 * ("salloc" or "srun"), name (-J, else name), work_dir (-D made absolute
 * against cwd, else cwd), after the checks jobspec_finish makes.  Takes
 * over js->job.  NULL with e.
 */
json_t *jobspec_finish_alloc(struct jobspec *js, const char *kind,
                             const char *name, const char *cwd, struct err *e);

#endif
