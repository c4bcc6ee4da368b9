/*
 * salloc (sluice alloc): an allocation job, then a command in it: the one
 * given, or the interactive step (LaunchParameters=use_interactive_step),
 * or the user's shell.  salloc watches the job while the command runs,
 * tells the command (SIGHUP) when the allocation is revoked, and
 * relinquishes it (JOB_COMPLETE) when the command exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cli/alloc.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/salloc.h"
#include "cli/slurmopts.h"
#include "common/clock.h"
#include "common/proto.h"
#include "common/xalloc.h"

extern char **environ;

/* How often the job is looked at while the command runs. */
#define SALLOC_WATCH_MS 500
/* From SIGHUP to SIGKILL of a command whose allocation was revoked. */
#define SALLOC_KILL_WAIT_MS 5000

struct salloc {
    struct salloc_opts o;
    struct cli_client *client;
    struct alloc a;
    json_t *spec;
    int sig_fd;
    pid_t pid; /* the command (and its process group) */
    char cwd[4096];
};

static int sa_pipe[2] = {-1, -1};

static void sa_sig_handler(int sig)
{
    unsigned char b = (unsigned char)sig;
    int saved = errno;

    (void)!write(sa_pipe[1], &b, 1);
    errno = saved;
}

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD into a pipe the waits poll. */
static int sa_signals_init(struct err *e)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
    struct sigaction sa;

    if (pipe2(sa_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return err_set(e, "cannot create a pipe: %s", strerror(errno));
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = sa_sig_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return sa_pipe[0];
}

static void sa_info(const struct salloc *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sa_info(const struct salloc *s, const char *fmt, ...)
{
    va_list ap;

    if (s->o.js.quiet)
        return;
    fprintf(stderr, "%s: ", cli_prog());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The terminal bell, as Slurm rings it (only on a terminal). */
static void sa_bell(const struct salloc *s, int64_t waited_ms)
{
    if (s->o.bell == SALLOC_BELL_NEVER ||
        (s->o.bell == SALLOC_BELL_AFTER_DELAY &&
         waited_ms < SALLOC_BELL_AFTER_S * 1000LL) ||
        !isatty(STDOUT_FILENO))
        return;
    fputc('\a', stdout);
    fflush(stdout);
}

/* Submit and wait: 0 when the job runs; else salloc's exit status, the
 * reason printed. */
static int sa_allocate(struct salloc *s)
{
    int64_t start = clock_mono_ms();
    struct err e;

    if (alloc_submit(&s->a, s->spec, &e) < 0) {
        if (s->o.immediate_s == 0 && errno == EAGAIN)
            cli_error("Unable to allocate resources: %s", e.text);
        else
            cli_error("Job submit/allocate failed: %s", e.text);
        return 1;
    }
    sa_info(s, "Pending job allocation %u", s->a.job_id);
    switch (alloc_wait(&s->a, &e)) {
    case ALLOC_STARTED:
        break;
    case ALLOC_CANCELLED:
    case ALLOC_ENDED:
        sa_info(s, "Job allocation %u has been revoked.", s->a.job_id);
        return 1;
    case ALLOC_TIMEDOUT:
        cli_error("Unable to allocate resources: Requested nodes are busy");
        return 1;
    case ALLOC_ERROR:
        cli_error("%s", e.text);
        alloc_cancel(&s->a);
        return 1;
    }
    sa_bell(s, clock_mono_ms() - start);
    sa_info(s, "Granted job allocation %u", s->a.job_id);
    return 0;
}

/* The user's shell: $SHELL, else the password file's, else /bin/sh. */
static const char *sa_shell(void)
{
    const char *sh = getenv("SHELL");
    const struct passwd *pw;

    if (sh != NULL && sh[0] == '/')
        return sh;
    pw = getpwuid(getuid());
    if (pw != NULL && pw->pw_shell != NULL && pw->pw_shell[0] == '/')
        return pw->pw_shell;
    return "/bin/sh";
}

/* In the child: its own process group, the terminal's foreground when
 * salloc had it, default signals, then the command. */
static void sa_child(char **cmd, char **env, bool own_srun, bool fg)
{
    static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                               SIGCHLD, SIGPIPE, SIGTTOU};

    setpgid(0, 0);
    if (fg) {
        signal(SIGTTOU, SIG_IGN);
        tcsetpgrp(STDIN_FILENO, getpid());
    }
    for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
        signal(sigs[i], SIG_DFL);
    /* srun is this very binary under another name: no $PATH needed. */
    if (own_srun)
        execve("/proc/self/exe", cmd, env);
    execvpe(cmd[0], cmd, env);
    fprintf(stderr, "%s: error: Unable to exec command \"%s\": %s\n",
            cli_prog(), cmd[0], strerror(errno));
    _exit(127);
}

static int sa_start_command(struct salloc *s, const struct conf *conf)
{
    char host[256] = "localhost";
    char **cmd, **env;
    bool fg, own_srun;
    struct err e;

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    if ((cmd = salloc_command(&s->o, conf, sa_shell(), &e)) == NULL) {
        cli_error("InteractiveStepOptions: %s", e.text);
        return -1;
    }
    env = salloc_env(s->a.job, s->spec, environ, s->cwd, host);
    own_srun = s->o.n_cmd == 0 && conf->use_interactive_step;
    fg = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    fflush(NULL);
    s->pid = fork();
    if (s->pid == 0)
        sa_child(cmd, env, own_srun, fg);
    if (s->pid > 0)
        setpgid(s->pid, s->pid); /* whichever of the two runs first */
    else
        cli_error("cannot start the command: %s", strerror(errno));
    salloc_env_free(cmd);
    salloc_env_free(env);
    return s->pid > 0 ? 0 : -1;
}

/* The terminal back to salloc's process group, if the command had it. */
static void sa_take_terminal(void)
{
    void (*old)(int);

    if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp())
        return;
    old = signal(SIGTTOU, SIG_IGN);
    tcsetpgrp(STDIN_FILENO, getpgrp());
    signal(SIGTTOU, old);
}

/* Wait up to ms for the command (or a signal); its wait status, or -1
 * while it runs.  SIGINT and SIGQUIT belong to the command; SIGTERM and
 * SIGHUP to salloc are passed on to it. */
static int sa_reap(struct salloc *s, int ms)
{
    struct pollfd p = {.fd = s->sig_fd, .events = POLLIN};
    unsigned char b;
    int status;

    if (waitpid(s->pid, &status, WNOHANG) == s->pid)
        return status;
    if (poll(&p, 1, ms) <= 0)
        return -1;
    while (read(s->sig_fd, &b, 1) == 1)
        if (b == SIGTERM || b == SIGHUP)
            kill(-s->pid, b);
    if (waitpid(s->pid, &status, WNOHANG) == s->pid)
        return status;
    return -1;
}

/* How the job ended under the command, in Slurm's words. */
static void sa_say_end(const struct salloc *s, json_t *job)
{
    char line1[256], line2[512];

    salloc_end_lines(job, s->a.job_id, line1, sizeof(line1), line2,
                     sizeof(line2));
    fprintf(stderr, "%s: %s\n", cli_prog(), line1);
    if (line2[0] != '\0')
        fprintf(stderr, "%s: %s\n", cli_prog(), line2);
}

/* The job ended under the command: say so, SIGHUP the command, SIGKILL it
 * after SALLOC_KILL_WAIT_MS. */
static int sa_revoked(struct salloc *s, json_t *job)
{
    int64_t deadline;

    sa_say_end(s, job);
    kill(-s->pid, SIGHUP);
    kill(-s->pid, SIGCONT);
    deadline = clock_mono_ms() + SALLOC_KILL_WAIT_MS;
    while (clock_mono_ms() < deadline)
        if (sa_reap(s, (int)(deadline - clock_mono_ms())) >= 0)
            return 1;
    kill(-s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    return 1;
}

/* The job, every SALLOC_WATCH_MS: 1 while it holds its allocation, 0 when
 * it ended (*job: its last object, or NULL when unknown).  A controller
 * that does not answer is not an end. */
static int sa_job_live(struct salloc *s, json_t **job)
{
    struct err e;
    json_t *j = alloc_query(&s->a, &e);

    if (j == NULL)
        return errno == ENOENT ? 0 : 1;
    if (alloc_state_is_live(
            json_string_value(json_object_get(j, "job_state")))) {
        json_decref(j);
        return 1;
    }
    *job = j;
    return 0;
}

/* JOB_COMPLETE with the command's status; a controller that refuses it
 * gets a JOB_CANCEL so that the allocation is not left behind. */
static void sa_relinquish(struct salloc *s, int status)
{
    json_t *req, *reply = NULL;
    struct err e;

    sa_info(s, "Relinquishing job allocation %u", s->a.job_id);
    req = json_pack("{s:I,s:i}", "job_id", (json_int_t)s->a.job_id, "exit_code",
                    salloc_complete_code(status));
    if (cli_client_call(s->client, PROTO_MSG_JOB_COMPLETE, req, &reply, NULL,
                        &e) < 0 &&
        errno != ENOENT && errno != EALREADY) {
        if (s->o.verbose)
            cli_error("JOB_COMPLETE for job %u: %s", s->a.job_id, e.text);
        alloc_cancel(&s->a);
    }
    json_decref(req);
    json_decref(reply);
}

/* Run the command until it exits or the allocation is revoked. */
static int sa_run_command(struct salloc *s, const struct conf *conf)
{
    int64_t next = clock_mono_ms() + SALLOC_WATCH_MS;
    json_t *job = NULL;
    int status, rc;

    if (sa_start_command(s, conf) < 0) {
        sa_relinquish(s, 1 << 8);
        return 1;
    }
    for (;;) {
        int64_t now = clock_mono_ms();
        if ((status = sa_reap(s, now < next ? (int)(next - now) : 0)) >= 0)
            break;
        if (clock_mono_ms() < next)
            continue;
        next = clock_mono_ms() + SALLOC_WATCH_MS;
        if (sa_job_live(s, &job) == 0) {
            rc = sa_revoked(s, job);
            json_decref(job);
            sa_take_terminal();
            return rc;
        }
    }
    sa_take_terminal();
    /* A command that failed may have been ended with the job (the
     * interactive step at the time limit): say why, as when it runs. */
    if (status != 0 && sa_job_live(s, &job) == 0) {
        sa_say_end(s, job);
        json_decref(job);
        return 1;
    }
    sa_relinquish(s, status);
    return salloc_exit_code(status);
}

static int sa_parse(struct salloc *s, int argc, char **argv)
{
    struct err e;

    if (salloc_opts_parse(&s->o, argc, argv, environ, time(NULL), &e) < 0) {
        salloc_opts_error(&s->o, e.text,
                          cli_slurm_face() ? "salloc" : "sluice alloc");
        return 1;
    }
    if (!s->o.js.quiet)
        slurmopts_print(s->o.js.notes);
    if (s->o.js.help || s->o.js.usage) {
        salloc_opts_help(cli_slurm_face() ? "salloc" : "sluice alloc");
        return 0;
    }
    if (s->o.js.version) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    if (getcwd(s->cwd, sizeof(s->cwd)) == NULL) {
        cli_error("cannot get the current directory: %s", strerror(errno));
        return 1;
    }
    if ((s->spec = salloc_jobspec(&s->o, s->cwd, &e)) == NULL) {
        cli_error("%s", e.text);
        return 1;
    }
    return -1;
}

static int sa_main(struct salloc *s, int argc, char **argv)
{
    struct err e;
    int rc;

    if ((rc = sa_parse(s, argc, argv)) >= 0)
        return rc;
    if ((s->sig_fd = sa_signals_init(&e)) < 0 ||
        (s->client = cli_client_open(cli_conf_path(), -1, &e)) == NULL) {
        cli_error("%s", e.text);
        return 1;
    }
    alloc_init(&s->a, cli_prog(), s->client, s->sig_fd, s->o.js.quiet);
    s->a.wait_s = s->o.immediate_s;
    if ((rc = sa_allocate(s)) != 0)
        return rc;
    if (s->o.no_shell && s->o.n_cmd == 0)
        return 0; /* the allocation stays until scancel or its limit */
    return sa_run_command(s, cli_client_conf(s->client));
}

int cmd_salloc(int argc, char **argv)
{
    struct salloc s = {.sig_fd = -1};
    int rc;

    cli_set_prog(argv[0]);
    rc = sa_main(&s, argc, argv);
    alloc_clear(&s.a);
    json_decref(s.spec);
    cli_client_close(s.client);
    salloc_opts_clear(&s.o);
    return rc;
}
