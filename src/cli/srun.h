/*
 * srun's parts, shared by its files: the options and the defaults a step
 * inherits from its job (srun_opts.c), where the tasks' output goes
 * (srun_out.c), how the tasks ended (srun_report.c), the I/O loop with
 * the step's supervisors (srun_io.c) and the terminal of --pty
 * (srun_pty.c).  cmd_srun.c ties them together.
 */
#ifndef SLUICE_CLI_SRUN_H
#define SLUICE_CLI_SRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/err.h"
#include "common/stepio.h"

/* -i/--input: every task (Slurm's default), none, or one task id (>= 0). */
#define SRUN_INPUT_ALL (-1)
#define SRUN_INPUT_NONE (-2)

/* An option that also shapes the job srun makes when it runs outside one:
 * its id in sbatch's table (cli/jobspec.h) and its value as given. */
struct srun_alloc_arg {
    int js_id;
    const char *arg; /* borrowed from argv */
};

/* What the command line and the SLURM_* variables asked for; 0, NULL or
 * false: not given.  Strings are owned by the struct. */
struct srun_opts {
    uint32_t job_id; /* --jobid, else SLURM_JOB_ID; 0: not in a job */
    char *name;      /* -J */
    uint32_t ntasks, nodes_min, nodes_max, ntasks_per_node;
    uint32_t cpus_per_task, gpus_per_task, gpus_per_node;
    uint64_t mem_mib;
    char *nodelist, *exclude; /* canonical hostlists */
    char *distribution;       /* "block" or "cyclic" */
    char *chdir;              /* -D */
    int64_t time_limit_s;     /* -1: none */
    int immediate_s;          /* -1: wait; 0: fail at once; N: wait N s */
    int input_task;           /* SRUN_INPUT_ALL, SRUN_INPUT_NONE or a task */
    char *input_file;         /* -i FILE: read instead of stdin */
    char *out_pattern, *err_pattern;
    bool exact, overlap, label, unbuffered, kill_on_bad_exit, no_kill;
    bool out_append; /* --open-mode=append (SLURM_OPEN_MODE=a in a job) */
    /* --interactive: salloc's interactive step (one task on the first
     * node, holding nothing); --preserve-env: the tasks keep srun's
     * SLURM_NNODES and SLURM_NTASKS */
    bool interactive, preserve_env;
    bool pty; /* --pty: task 0 on a terminal (implies -u, stdin to task 0) */
    bool quiet, help, usage, version;
    /* the command line's job options (-p, -A, -q, -N, -n, --gres, ...) in
     * order, for the allocation of srun without a job */
    struct srun_alloc_arg *alloc_args;
    size_t n_alloc_args;
    int verbose;
    json_t *notes;     /* warnings for options without effect (strings) */
    char unknown[128]; /* an unrecognized long option (for a suggestion) */
    /* the command: argv[cmd_first..argc) of the parsed argv, borrowed */
    char **cmd;
    int n_cmd;
};

/*
 * srun_opts_parse: argv (argv[0] is the verb) and the SLURM_* input
 * variables of envp into o, as Slurm 22.05's srun reads them: the command
 * line wins, and inside a job -N, -n, --ntasks-per-node and -c default to
 * the job's (SLURM_NNODES, SLURM_NTASKS, SLURM_NTASKS_PER_NODE,
 * SLURM_CPUS_PER_TASK; see docs/srun.md for when).  Option parsing stops
 * at the command.  -1 with EINVAL and e ("--ntasks=abc: expected ...",
 * "SLURM_DISTRIBUTION=plane: ...").  o is zeroed first; free with
 * srun_opts_clear.
 */
int srun_opts_parse(struct srun_opts *o, int argc, char **argv,
                    char *const *envp, struct err *e);
void srun_opts_clear(struct srun_opts *o);
/* srun_opts_error: print srun_opts_parse's error, with "did you mean
 * '--NAME'?" after a misspelled option. */
void srun_opts_error(const struct srun_opts *o, const char *text,
                     const char *help);
/* srun_opts_help: the option summary, to stdout; name is "srun" or
 * "sluice run". */
void srun_opts_help(const char *name);

/*
 * srun_opts_request: the STEP_CREATE body (docs/protocol.md) for o, the
 * command's environment envp (entries that are not UTF-8 are left out),
 * the working directory cwd and the address the supervisors connect to.
 * New object.
 */
json_t *srun_opts_request(const struct srun_opts *o, char *const *envp,
                          const char *cwd, const char *host, uint16_t port);

/* ---- srun without a job: srun_alloc.c ---- */

struct cli_client;
struct srun_alloc;

/*
 * srun_alloc_spec: the JOBSPEC of the job srun makes when it runs outside
 * one: "alloc": "srun", o's job options read by sbatch's parsers (so
 * mistakes read as sbatch's), the name (-J, else the command's base
 * name), work_dir cwd (or -D), "immediate": true with -I.  New object,
 * or NULL with e.
 */
json_t *srun_alloc_spec(const struct srun_opts *o, const char *cwd,
                        struct err *e);
/*
 * srun_alloc_start: submit that job and wait until it runs (Slurm's
 * "queued and waiting" and reason lines; a signal on sig_fd cancels it),
 * then o->job_id is the job.  0; -1 with e; 1 when the reason was
 * printed.  *out (free with srun_alloc_destroy) is set whenever a job
 * may exist.
 */
int srun_alloc_start(struct srun_alloc **out, struct srun_opts *o,
                     struct cli_client *client, int sig_fd, const char *cwd,
                     struct err *e);
/* srun_alloc_fail: the step could not be made: cancel the job (a NULL a
 * is no job). */
void srun_alloc_fail(struct srun_alloc *a);
/* srun_alloc_finish: after a step that failed (rc != 0), "srun: job N
 * was preempted by job M (partition P)" when the job was.  Returns rc. */
int srun_alloc_finish(struct srun_alloc *a, int rc);
void srun_alloc_destroy(struct srun_alloc *a);

/* ---- the step as the controller created it (STEP_CREATE's reply) ---- */

struct srun_step {
    uint32_t job_id, step_id;
    uint32_t ntasks;
    size_t n_nodes;
    char **nodes;        /* names, by node id */
    uint32_t *task_node; /* node id of each task */
    uint32_t kill_wait_s;
    char *job_name;         /* for %x: SLURM_JOB_NAME, else the step's */
    char *user;             /* for %u */
    uint32_t array_job_id;  /* for %A: the job id when not an array */
    uint32_t array_task_id; /* for %a: 4294967294 when not an array */
};

/*
 * srun_step_from_reply: the step of a STEP_CREATE reply: its ids, node
 * names and which node runs each task.  -1 with EBADMSG and e when the
 * reply is not one (a task on no node or on two).  Free with
 * srun_step_clear.
 */
int srun_step_from_reply(json_t *reply, struct srun_step *s, struct err *e);
void srun_step_clear(struct srun_step *s);

/* ---- output: srun_out.c ---- */

enum srun_stream { SRUN_STDOUT, SRUN_STDERR };

struct srun_out;

/*
 * srun_expand: an -o/-e/-i pattern for task (node id node) of step s:
 * %j job, %s step, %t task, %n node id, %N node name, %x job name, %u
 * user, %A array job, %a array task, %% '%'; a number after '%' pads with
 * zeros (%3t -> 007).  New string, caller frees.
 */
char *srun_expand(const char *pattern, const struct srun_step *s,
                  uint32_t task);
/* srun_label_width: the width Slurm pads task ids to for -l: the digits
 * of the largest task id (ntasks - 1). */
int srun_label_width(uint32_t ntasks);

/*
 * srun_out_create: where each task's stdout and stderr go: fds 1 and 2,
 * or the files of out_pattern / err_pattern expanded per task ("none":
 * nowhere; err_pattern NULL: where stdout goes), opened here (truncated,
 * or appended to with append: --open-mode=append).  label: "T: " before
 * each line; unbuffered: bytes as they come instead of whole lines.  NULL
 * with e ("cannot open out-12.0.txt: ...").
 */
struct srun_out *srun_out_create(const struct srun_step *s,
                                 const char *out_pattern,
                                 const char *err_pattern, bool label,
                                 bool unbuffered, bool append, struct err *e);
/* srun_out_fds: the same over two given fds (tests, and the terminal). */
struct srun_out *srun_out_fds(uint32_t ntasks, int out_fd, int err_fd,
                              bool label, bool unbuffered);
/* srun_out_data: bytes task wrote to stream; whole lines are queued now,
 * the rest when its newline (or the task's end) comes, or once it is
 * longer than 64 KiB (a task writing without newlines is not held). */
void srun_out_data(struct srun_out *o, uint32_t task, enum srun_stream st,
                   const void *data, size_t len);
/* srun_out_eof: the task's streams ended: queue its partial lines. */
void srun_out_eof(struct srun_out *o, uint32_t task);
/* srun_out_pending: bytes queued and not yet written. */
size_t srun_out_pending(const struct srun_out *o);
/*
 * srun_out_flush: write what is queued (blocking: a slow reader of srun's
 * output slows the tasks down, it loses nothing).  A destination that
 * fails (EPIPE, ENOSPC) is reported once on stderr and dropped.
 */
void srun_out_flush(struct srun_out *o);
/* srun_out_destroy: flush, close the files; accepts NULL. */
void srun_out_destroy(struct srun_out *o);

/* ---- how the tasks ended: srun_report.c ---- */

enum srun_task_state {
    SRUN_TASK_RUNNING,
    SRUN_TASK_EXITED, /* exit_code, signal */
    SRUN_TASK_LOST,   /* its node's connection was lost */
};

struct srun_task_end {
    enum srun_task_state state;
    int exit_code;
    int signal;
};

/*
 * srun_report: Slurm's lines for the tasks that failed, to fp, one per
 * node and outcome, tasks merged into ranges: "srun: error: node02: task
 * 3: Exited with exit code 2", "srun: error: node01: tasks 0-3,5: Killed".
 * prog is "srun" or "sluice".
 */
void srun_report(FILE *fp, const char *prog, const struct srun_step *s,
                 const struct srun_task_end *t);
/*
 * srun_exit_code: srun's exit status: the highest of the tasks' exit
 * codes, 128 + signal for a task killed by a signal, 1 for a task whose
 * node was lost.
 */
int srun_exit_code(const struct srun_task_end *t, uint32_t ntasks);
/* srun_task_ranges: "0-3,5" of the tasks in ids[0..n) (ascending) into
 * buf; returns buf. */
char *srun_task_ranges(const uint32_t *ids, size_t n, char *buf, size_t len);

/* ---- the loop with the step's supervisors: srun_io.c ---- */

/*
 * srun_signals_init: catch SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 and SIGCONT into a self-pipe (SIGPIPE is ignored: a closed
 * output is an error from write).  Returns the pipe's read end, polled by
 * the loop; -1 with e.
 */
int srun_signals_init(struct err *e);
/* srun_signal_next: the next caught signal from fd, or 0 when none. */
int srun_signal_next(int fd);
/* srun_signal_catch: sig into the same pipe too (--pty: SIGWINCH). */
void srun_signal_catch(int sig);

struct srun_io_conf {
    const char *prog; /* "srun" or "sluice" for messages */
    int listen_fd;    /* where the supervisors connect */
    int sig_fd;       /* srun_signals_init's */
    const struct srun_step *step;
    uint8_t key[STEPIO_KEY_LEN];
    int input_fd;   /* what feeds the tasks' stdin; -1: nothing */
    int input_task; /* SRUN_INPUT_ALL, SRUN_INPUT_NONE or a task */
    bool kill_on_bad_exit, no_kill;
    int verbose;
    /* --pty: tty_fd (srun's terminal) is put in raw mode once task 0's
     * node is connected and back when the loop ends; its size goes to
     * that node first and again on every SIGWINCH; SIGINT is forwarded
     * like any signal (a ^C typed is a byte of stdin in raw mode). */
    bool pty;
    int tty_fd;
    struct srun_out *out;
    struct srun_task_end *ends; /* [step->ntasks], filled in */
    /*
     * The controller, for the time before every node has connected, and
     * after some node finished while others have not: step_state: 1 the
     * step still runs, 0 it ended (why in e), -1 the controller did not
     * answer; *lost (when not NULL) gets the hostlist of the step's nodes
     * that failed (a new string; NULL when none).  step_cancel: signal
     * the step (sig > 0) or end it (0) on every node, the ones not
     * connected too.
     */
    int (*step_state)(void *arg, char **lost, struct err *e);
    void (*step_cancel)(void *arg, int sig);
    void *arg;
};

/*
 * srun_io_run: accept one connection per node of the step, relay the
 * tasks' output, srun's stdin and signals until every node is done (or
 * lost), filling c->ends.  Returns 0, or -1 when the step could not be
 * launched (the reason was printed).
 */
int srun_io_run(const struct srun_io_conf *c);

/* ---- --pty: srun_pty.c ---- */

/*
 * srun_tty_raw: save fd's terminal settings and put it in raw mode
 * (cfmakeraw); the first call also hooks srun_tty_restore to exit() and
 * the saved settings to the fatal signals (SIGSEGV, SIGABRT, SIGALRM...:
 * put back, then the signal's default).  Nothing when already raw.  -1
 * with e (not a terminal), nothing changed.
 */
int srun_tty_raw(int fd, struct err *e);
/* srun_tty_restore: the saved settings back (TCSADRAIN), once; any time,
 * raw or not. */
void srun_tty_restore(void);
/* srun_tty_is_raw: between srun_tty_raw and srun_tty_restore (srun's own
 * lines then end in "\r\n"). */
bool srun_tty_is_raw(void);
/* srun_tty_winsize: fd's size as WINSIZE data ("ROWS COLS") into out,
 * its length in *len.  -1 with e ("ioctl(TIOCGWINSZ): Inappropriate
 * ioctl for device"). */
int srun_tty_winsize(int fd, char out[STEPIO_WINSIZE_MAX], size_t *len,
                     struct err *e);
/*
 * srun_pty_decide: --pty needs a terminal on fd (srun's stdin): without
 * one, Slurm's two error lines on stderr ("prog: error: ioctl(TIOCGWINSZ):
 * ...", "prog: error: Not using a pseudo-terminal, disregarding --pty
 * option") and o runs without it (stdin to every task again, -u kept).
 */
void srun_pty_decide(struct srun_opts *o, int fd, const char *prog);

#endif
