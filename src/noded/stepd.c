/*
 * The step supervisor's start and end: record itself, reach srun and
 * prove the key, make the step's cgroup, start the node's tasks as the
 * user (each with its pipes, all in task 0's process group), and once the
 * relay (stepd_io.c) is over write the step's status and tell sluiced.
 */
#include "noded/stepd_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/jobenv.h"
#include "noded/spool.h"
#include "noded/stepenv.h"
#include "noded/supcommon.h"

/* How long the supervisor tries to reach srun. */
#define STEPD_CONNECT_MS 10000
/* How long task 0 of a --pty step waits for srun's terminal size (sent as
 * soon as srun has the connection). */
#define STEPD_PTY_SIZE_MS 500

extern char **environ;

int64_t stepd_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void stepd_kill_message(uint32_t job_id, uint32_t step_id, const char *node,
                        const char *reason, int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char stamp[32];
    const char *why = strcmp(reason, "timeout") == 0     ? " DUE TO TIME LIMIT"
                      : strcmp(reason, "preempted") == 0 ? " DUE TO PREEMPTION"
                      : strcmp(reason, "node_fail") == 0
                          ? " DUE TO NODE FAILURE"
                          : "";

    localtime_r(&tt, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "*** STEP %u.%u ON %s CANCELLED AT %s%s ***",
             (unsigned)job_id, (unsigned)step_id, node, stamp, why);
}

static bool has_cgroup(const struct stepd *d)
{
    return d->a->ctx->cg != NULL && d->a->ctx->cg->version != CGROUP_NONE;
}

/* A TCP connection to host:port within STEPD_CONNECT_MS; -1 with e. */
static int connect_srun(const char *host, uint16_t port, struct err *e)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    struct pollfd p;
    char svc[8];
    int fd = -1, rc, soerr = 0;
    socklen_t sl = sizeof(soerr);

    snprintf(svc, sizeof(svc), "%u", (unsigned)port);
    if ((rc = getaddrinfo(host, svc, &hints, &ai)) != 0) {
        errno = EHOSTUNREACH;
        return err_set(e, "cannot reach srun at %s:%s: %s", host, svc,
                       gai_strerror(rc));
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 ||
        (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS))
        goto error;
    p = (struct pollfd){.fd = fd, .events = POLLOUT};
    if ((rc = poll(&p, 1, STEPD_CONNECT_MS)) <= 0) {
        errno = rc == 0 ? ETIMEDOUT : errno;
        goto error;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr != 0) {
        errno = soerr ? soerr : errno;
        goto error;
    }
    freeaddrinfo(ai);
    return fd;
error:
    rc = errno;
    err_set(e, "cannot reach srun at %s:%s: %s", host, svc, strerror(rc));
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    errno = rc;
    return -1;
}

/* Fail the launch: "error CODE TEXT" to sluiced, the directory gone. */
static void fail(struct stepd *d, int code, const char *text)
    __attribute__((noreturn));
static void fail(struct stepd *d, int code, const char *text)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i].pid > 0)
            kill(d->t[i].pid, SIGKILL);
    if (d->pgid > 0)
        kill(-d->pgid, SIGKILL);
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
    if (has_cgroup(d))
        cgroup_step_destroy(d->a->ctx->cg, d->s->job_id, d->s->step_id);
    if (d->sock >= 0)
        stepd_message(d, "error: %s: %s", d->a->ctx->node, text);
    if (d->sock >= 0 && d->out.len > 0)
        (void)!write(d->sock, d->out.p, d->out.len);
    spool_remove(d->a->dir);
    sup_report("error %d %s", code > 0 ? code : EIO, text);
    _exit(1);
}

/* supervisor.pid, and the ctl socket sluiced talks to. */
static void record(struct stepd *d)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    struct spool_pid self;
    struct err e = {"cannot read /proc/self/stat"};
    int n = snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/ctl", d->a->dir);

    if (spool_pid_self(&self) < 0 || spool_pid_write(d->a->dir, &self, &e) < 0)
        fail(d, EIO, e.text);
    if (n >= (int)sizeof(sun.sun_path)) {
        snprintf(e.text, sizeof(e.text), "%s/ctl: path too long for a socket",
                 d->a->dir);
        fail(d, ENAMETOOLONG, e.text);
    }
    d->ctl = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->ctl < 0 || bind(d->ctl, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
        chmod(sun.sun_path, 0600) < 0 || listen(d->ctl, 8) < 0) {
        snprintf(e.text, sizeof(e.text), "cannot listen on %s: %s",
                 sun.sun_path, strerror(errno));
        fail(d, errno, e.text);
    }
}

static void reach_srun(struct stepd *d)
{
    const struct step_launch *s = d->s;
    struct err e;

    if ((d->sock = connect_srun(s->srun_host, s->srun_port, &e)) < 0)
        fail(d, errno, e.text);
    if (stepio_connect_handshake(d->sock, s->key, s->job_id, s->step_id,
                                 s->node_id, &d->io, STEPIO_HANDSHAKE_MS,
                                 &e) < 0) {
        int code = errno;
        close(d->sock);
        d->sock = -1;
        fail(d, code, e.text);
    }
}

/* In a task's process: become the task, or tell fd why not. */
static void task_exec(struct stepd *d, size_t local, const int *p, int fd)
{
    const struct step_launch *s = d->s;
    const struct step_launch_ctx *c = d->a->ctx;
    struct stepenv_gpus g = {c->ordinals, c->n_ordinals, c->renumber};
    const char *user = s->user_name[0] ? s->user_name : c->user->name;
    const char *cwd = s->cwd[0] ? s->cwd : c->user->home;
    int tty[3];
    struct err e;

    if (has_cgroup(d) &&
        cgroup_step_enter(c->cg, s->job_id, s->step_id, &e) < 0) {
        sup_tell(fd, errno ? errno : EIO, "cannot enter the step's cgroup: %s",
                 e.text);
        _exit(127);
    }
    if (d->t[local].on_pty) {
        if ((tty[0] = stepd_pty_child(d, fd)) < 0)
            _exit(127);
        tty[1] = tty[2] = tty[0];
        p = tty;
    }
    if (sup_become_user(s->uid, s->gid, c->user, fd) < 0)
        _exit(127);
    if (chdir(cwd) < 0) {
        sup_tell(fd, errno, "cannot chdir to %s: %s", cwd, strerror(errno));
        _exit(127);
    }
    if (dup2(p[0], 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[2], 2) < 0) {
        sup_tell(fd, errno, "cannot set up the task's stdio: %s",
                 strerror(errno));
        _exit(127);
    }
    environ = stepenv_build(s, local, &g, user, c->node);
    execvp(s->argv[0], s->argv);
    /* Slurm's slurmstepd exits with errno here (2 for a missing
     * program), and the line goes to srun */
    sup_tell(fd, errno, "execve(): %s: %s", s->argv[0], strerror(errno));
    _exit(errno);
}

static void close3(int p[3])
{
    for (int i = 0; i < 3; i++)
        if (p[i] >= 0)
            close(p[i]);
}

/* A --pty step's task other than task 0: /dev/null for 0-2 (Slurm's
 * --pty sends their output nowhere). */
static int task_null(int c[3])
{
    for (int i = 0; i < 3; i++)
        if ((c[i] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
            int saved = errno;
            close3(c);
            errno = saved;
            return -1;
        }
    return 0;
}

/* The three pipes of a task: child ends in c, the supervisor's in t (or
 * the terminal, or /dev/null, under --pty). */
static int task_pipes(struct stepd *d, struct stepd_task *t, int c[3])
{
    int in[2], out[2], err[2];

    if (t->on_pty)
        return stepd_pty_task_fds(d, t);
    if (d->s->pty)
        return task_null(c);
    if (pipe2(in, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(out, O_CLOEXEC) < 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return -1;
    }
    c[0] = in[0];
    c[1] = out[1];
    c[2] = err[1];
    t->in = in[1];
    t->out = out[0];
    t->err = err[0];
    fcntl(t->in, F_SETFL, O_NONBLOCK);
    fcntl(t->out, F_SETFL, O_NONBLOCK);
    fcntl(t->err, F_SETFL, O_NONBLOCK);
    return 0;
}

/* The child's side of task_start, after fork. */
static void task_child(struct stepd *d, size_t local, int c[3], int rp[2])
{
    close(SUP_REPORT_FD);
    close(rp[0]);
    /* task 0 on a terminal leads a session of its own (stepd_pty_child),
     * which the others cannot join: each leads its own group */
    if (d->t[local].own_group)
        setpgid(0, 0);
    else if (!d->t[local].on_pty)
        setpgid(0, d->pgid);
    sup_reset_signals();
    umask(jobenv_umask_env(d->s->env, d->s->n_env));
    task_exec(d, local, c, rp[1]);
}

/* Fork local task i; returns the read end of its report pipe, which
 * closes at its execve (task_settle reads it). */
static int task_start(struct stepd *d, size_t i)
{
    struct stepd_task *t = &d->t[i];
    int c[3] = {-1, -1, -1}, rp[2];
    char text[700];

    if (task_pipes(d, t, c) < 0 || pipe2(rp, O_CLOEXEC) < 0 ||
        (t->pid = fork()) < 0) {
        snprintf(text, sizeof(text), "cannot start task %u: %s",
                 (unsigned)t->id, strerror(errno));
        fail(d, EAGAIN, text);
    }
    if (t->pid == 0)
        task_child(d, i, c, rp);
    if (d->pgid == 0)
        d->pgid = t->pid;
    /* also here: no race with a signal (but none with task 0's setsid,
     * which fails in a group leader) */
    if (t->own_group)
        setpgid(t->pid, t->pid);
    else if (!t->on_pty)
        setpgid(t->pid, d->pgid);
    close3(c);
    close(rp[1]);
    return rp[0];
}

/* Task i's report: nothing once it executed; a failure before its execve
 * fails the launch (an execve failure is the task's own end). */
static void task_settle(struct stepd *d, int fd)
{
    char msg[600];

    sup_read_all(fd, msg, sizeof(msg));
    close(fd);
    if (msg[0] == '\0')
        return;
    if (strstr(msg, " execve(): ") != NULL) {
        stepd_message(d, "error: %s", strchr(msg, ' ') + 1);
        return; /* the task ends with errno: its exit is reported */
    }
    fail(d, atoi(msg), strchr(msg, ' ') ? strchr(msg, ' ') + 1 : msg);
}

/* leader, pgid and tasks in the spool: what sluiced needs to find the
 * step's processes when this supervisor is gone. */
static void record_tasks(struct stepd *d)
{
    struct spool_pid leader;
    struct err e;
    char *list = xcalloc(d->n + 1, 24), *p = list;

    for (size_t i = 0; i < d->n; i++)
        p += sprintf(p, "%s%d", i ? " " : "", (int)d->t[i].pid);
    strcat(list, "\n");
    if (spool_pid_of(d->pgid, &leader) == 0)
        spool_pid_write_as(d->a->dir, "leader", &leader, &e);
    spool_int_write(d->a->dir, "pgid", d->pgid, 0600, &e);
    spool_write_volatile(d->a->dir, "tasks", list, strlen(list), 0600,
                         (uid_t)-1, (gid_t)-1, &e);
    free(list);
}

static void start_tasks(struct stepd *d)
{
    const struct step_launch *s = d->s;
    struct err e;
    sigset_t chld;

    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    if ((d->sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        fail(d, errno, "signalfd failed");
    if (has_cgroup(d) &&
        cgroup_step_create(d->a->ctx->cg, s->job_id, s->step_id, &e) < 0)
        fail(d, errno ? errno : EIO, e.text);
    if (d->t[0].on_pty) {
        if (stepd_pty_open(d, &e) < 0)
            fail(d, errno, e.text);
        stepd_pty_first_size(d, STEPD_PTY_SIZE_MS);
        if (d->sock < 0)
            fail(d, ECONNRESET, "srun closed the step's connection");
    }
    /* every task forked before any is waited for: their cgroup joins,
     * user changes and execs run side by side */
    int *reports = xcalloc(d->n, sizeof(*reports));
    for (size_t i = 0; i < d->n; i++)
        reports[i] = task_start(d, i);
    for (size_t i = 0; i < d->n; i++)
        task_settle(d, reports[i]);
    free(reports);
    record_tasks(d);
}

static json_t *status_json(struct stepd *d, int64_t end_time, bool oom)
{
    json_t *tasks = json_array();
    struct stepusage_task *use = xcalloc(d->n, sizeof(*use));
    int64_t peak, cpu;
    int code = 0, sig = 0;

    for (size_t i = 0; i < d->n; i++) {
        const struct stepd_task *t = &d->t[i];
        json_array_append_new(tasks, json_pack("{s:I, s:i, s:i}", "task",
                                               (json_int_t)t->id, "exit_code",
                                               t->exit_code, "signal", t->sig));
        code = t->exit_code > code ? t->exit_code : code;
        sig = t->sig != 0 && sig == 0 ? t->sig : sig;
        use[i] = t->use;
    }
    peak = cpu = -1;
    if (has_cgroup(d))
        cgroup_step_usage(d->a->ctx->cg, d->s->job_id, d->s->step_id, &peak,
                          &cpu);
    json_t *st = json_pack(
        "{s:o, s:i, s:i, s:I, s:I, s:b, s:s, s:o}", "tasks", tasks, "exit_code",
        code, "signal", sig, "start_time", (json_int_t)d->start_time,
        "end_time", (json_int_t)end_time, "oom", oom, "reason", d->reason,
        "usage", stepusage_json(use, d->n, peak, cpu));
    free(use);
    return st;
}

/* Every task ended: the rest of the group and the cgroup killed, task 0
 * reaped, the status written, sluiced told. */
static void finish(struct stepd *d) __attribute__((noreturn));
static void finish(struct stepd *d)
{
    const struct cgroup *cg = d->a->ctx->cg;
    struct rusage ru;
    int ws;
    bool oom = false;
    char note[48], *text;
    struct err e;
    json_t *st;

    stepd_signal_groups(d, SIGKILL);
    if (has_cgroup(d)) {
        cgroup_step_signal(cg, d->s->job_id, d->s->step_id, SIGKILL);
        oom = cgroup_job_oom(cg, d->s->job_id);
    }
    if (!d->t[0].reaped && wait4(d->t[0].pid, &ws, 0, &ru) == d->t[0].pid)
        stepusage_rusage(&d->t[0].use, &ru);
    st = status_json(d, time(NULL), oom);
    if (has_cgroup(d))
        cgroup_step_destroy(cg, d->s->job_id, d->s->step_id);
    text = json_dumps(st, JSON_COMPACT);
    json_decref(st);
    if (text == NULL || spool_write(d->a->dir, "status", text, strlen(text),
                                    0600, (uid_t)-1, (gid_t)-1, &e) < 0)
        _exit(1); /* sluiced finds no status: it records the end itself */
    free(text);
    snprintf(note, sizeof(note), "step %u %u\n", (unsigned)d->s->job_id,
             (unsigned)d->s->step_id);
    sup_notify(d->a->ctx->notify, note);
    _exit(0);
}

void stepd_main(const struct stepd_args *a, int report_fd)
{
    struct stepd d = {.a = a,
                      .s = a->step,
                      .sock = -1,
                      .ctl = -1,
                      .sigfd = -1,
                      .pty_master = -1};

    sup_setup_fds(report_fd, a->lock_fd);
    sup_reset_signals();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    d.n = d.s->n_tasks;
    d.t = xcalloc(d.n, sizeof(*d.t));
    for (size_t i = 0; i < d.n; i++) {
        d.t[i] = (struct stepd_task){
            .id = d.s->tasks[i], .in = -1, .out = -1, .err = -1};
        d.t[i].use.task = d.s->tasks[i];
        /* --pty: task 0 on the terminal; the node's other tasks apart */
        d.t[i].on_pty = d.s->pty && d.s->tasks[i] == 0;
        d.t[i].own_group = d.s->pty && i > 0 && d.s->tasks[0] == 0;
    }
    record(&d);
    close(SUP_LOCK_FD); /* recorded: a restarted sluiced adopts the step */
    /* srun first: no task runs, and nothing is sent, before srun proved
     * the step's key */
    reach_srun(&d);
    start_tasks(&d);
    d.start_time = time(NULL);
    sup_report("ok %d %d %lld", (int)getpid(), (int)d.pgid,
               (long long)d.start_time);
    close(SUP_REPORT_FD);
    stepd_loop(&d);
    finish(&d);
}
