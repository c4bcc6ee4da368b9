/*
 * The step supervisor's relay: one poll() loop over srun's connection,
 * the tasks' pipes, SIGCHLD (a signalfd) and sluiced's ctl socket.  Each
 * ready pipe gives at most one frame per turn, so a task that floods
 * neither starves the others nor grows the queue to srun past
 * STEPD_OUT_HIGH (beyond it the tasks wait on their pipes); sluiced is
 * never in this path.
 */
#include "noded/stepd_int.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/spool.h"

/* Room for n more bytes at b->p + b->len. */
static void buf_reserve(struct stepd_buf *b, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = b->len + n > 2 * b->cap ? b->len + n : 2 * b->cap;
        b->p = xrealloc(b->p, b->cap);
    }
}

static void buf_add(struct stepd_buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void buf_drop(struct stepd_buf *b, size_t n)
{
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void stepd_send(struct stepd *d, uint8_t type, uint32_t task, const void *data,
                size_t len)
{
    if (d->sock < 0)
        return;
    buf_reserve(&d->out, len + STEPIO_OVERHEAD);
    d->out.len +=
        stepio_frame(&d->io, type, task, data, len, d->out.p + d->out.len);
}

void stepd_message(struct stepd *d, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    stepd_send(d, STEPIO_MESSAGE, STEPIO_ALL_TASKS, line, strlen(line));
}

/* Every process of the step: its cgroup (v2), else its process group,
 * whose leader (task 0) stays unreaped until the end, so the id is the
 * step's. */
void stepd_signal(struct stepd *d, int sig)
{
    const struct cgroup *cg = d->a->ctx->cg;

    if (cg != NULL && cg->version == CGROUP_V2 &&
        cgroup_step_signal(cg, d->s->job_id, d->s->step_id, sig) > 0)
        return;
    stepd_signal_groups(d, sig);
}

void stepd_signal_groups(struct stepd *d, int sig)
{
    if (d->pgid > 1)
        kill(-d->pgid, sig);
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i].own_group && !d->t[i].reaped && d->t[i].pid > 1)
            kill(-d->t[i].pid, sig);
}

void stepd_kill(struct stepd *d, const char *reason, uint32_t wait_s)
{
    int64_t at = stepd_now_ms() + (int64_t)wait_s * 1000;
    char line[256];

    if (reason[0] != '\0' && d->reason[0] == '\0') {
        snprintf(d->reason, sizeof(d->reason), "%s", reason);
        stepd_kill_message(d->s->job_id, d->s->step_id, d->a->ctx->node, reason,
                           time(NULL), line, sizeof(line));
        stepd_message(d, "%s", line);
    }
    if (d->killing) {
        if (d->kill_ms == 0 || at < d->kill_ms)
            d->kill_ms = at > 0 ? at : 1;
        return;
    }
    d->killing = true;
    stepd_signal(d, SIGCONT);
    stepd_signal(d, SIGTERM);
    d->kill_ms = at > 0 ? at : 1;
}

static struct stepd_task *local_task(struct stepd *d, uint32_t id)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i].id == id)
            return &d->t[i];
    return NULL;
}

static bool task_done(const struct stepd_task *t)
{
    return t->exited && t->out < 0 && t->err < 0;
}

/* OUT_EOF once the task's pipes are closed, TASK_EXIT once it also
 * ended: srun has all of a task's output before its exit. */
static void progress(struct stepd *d, struct stepd_task *t)
{
    char text[32];

    if (t->out < 0 && t->err < 0 && !t->eof_sent) {
        stepd_send(d, STEPIO_OUT_EOF, t->id, NULL, 0);
        t->eof_sent = true;
    }
    if (t->exited && t->eof_sent && !t->exit_sent) {
        snprintf(text, sizeof(text), "%d %d", t->exit_code, t->sig);
        stepd_send(d, STEPIO_TASK_EXIT, t->id, text, strlen(text));
        t->exit_sent = true;
    }
}

static void one_exit(struct stepd *d, size_t i, const siginfo_t *info)
{
    struct stepd_task *t = &d->t[i];
    struct rusage ru;
    int ws;

    t->exited = true;
    if (info->si_code == CLD_EXITED)
        t->exit_code = info->si_status;
    else
        t->sig = info->si_status;
    close_fd(&t->in);
    /* task 0's pid is the group's id: reaped last (finish) */
    if (i > 0 && wait4(t->pid, &ws, 0, &ru) == t->pid) {
        stepusage_rusage(&t->use, &ru);
        t->reaped = true;
    }
    if ((t->exit_code != 0 || t->sig != 0) && d->s->kill_on_bad_exit)
        stepd_kill(d, "", d->s->kill_wait_s);
    progress(d, t);
}

void stepd_reap(struct stepd *d)
{
    struct signalfd_siginfo ssi;
    bool all = true;

    while (read(d->sigfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
        ;
    for (size_t i = 0; i < d->n; i++) {
        siginfo_t info = {0};
        if (d->t[i].exited)
            continue;
        if (waitid(P_PID, (id_t)d->t[i].pid, &info,
                   WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == d->t[i].pid)
            one_exit(d, i, &info);
        all = all && d->t[i].exited;
    }
    if (all && d->drain_ms == 0) {
        /* what the tasks left behind in the step goes with them */
        stepd_signal(d, SIGKILL);
        d->drain_ms = stepd_now_ms() + STEPD_DRAIN_MS;
    }
}

void stepd_sample(struct stepd *d)
{
    struct stepusage_proc *procs;
    struct stepusage_task *use = xcalloc(d->n, sizeof(*use));
    int64_t peak = -1, cpu = -1;
    size_t n;
    char *text;
    json_t *u;
    struct err e;

    stepusage_scan(&procs, &n);
    for (size_t i = 0; i < d->n; i++) {
        if (!d->t[i].reaped)
            stepusage_tree(procs, n, d->t[i].pid, &d->t[i].use);
        use[i] = d->t[i].use;
    }
    free(procs);
    if (d->a->ctx->cg != NULL)
        cgroup_step_usage(d->a->ctx->cg, d->s->job_id, d->s->step_id, &peak,
                          &cpu);
    u = stepusage_json(use, d->n, peak, cpu);
    free(use);
    if ((text = json_dumps(u, JSON_COMPACT)) != NULL)
        spool_write_volatile(d->a->dir, "usage", text, strlen(text), 0600,
                             (uid_t)-1, (gid_t)-1, &e);
    free(text);
    json_decref(u);
}

/* --- srun ------------------------------------------------------------ */

/* srun is gone (EOF, error, a bad frame): the step ends with it. */
static void srun_lost(struct stepd *d)
{
    close_fd(&d->sock);
    d->out.len = 0;
    if (d->drain_ms == 0)
        stepd_kill(d, "", d->s->kill_wait_s);
}

static void stdin_add(struct stepd *d, struct stepd_task *t,
                      const struct stepio_msg *m)
{
    int veof;

    if (t->in < 0 || t->stdin_eof)
        return;
    if (m->type == STEPIO_STDIN) {
        buf_add(&t->stdin_q, m->data, m->len);
        return;
    }
    t->stdin_eof = true;
    /* A terminal cannot be closed for input alone (closing the master
     * hangs up the task): its EOF character ends a canonical read, as ^D
     * does on a local terminal.  Only the task's duplicate of the master
     * closes once that is written. */
    if (t->on_pty && (veof = stepd_pty_veof(d)) >= 0) {
        uint8_t c = (uint8_t)veof;
        buf_add(&t->stdin_q, &c, 1);
    }
    if (t->stdin_q.len == 0)
        close_fd(&t->in);
}

static void on_frame(struct stepd *d, const struct stepio_msg *m)
{
    char num[16];
    struct stepd_task *t;
    int sig;

    switch (m->type) {
    case STEPIO_STDIN:
    case STEPIO_STDIN_EOF:
        if (m->task == STEPIO_ALL_TASKS)
            for (size_t i = 0; i < d->n; i++)
                stdin_add(d, &d->t[i], m);
        else if ((t = local_task(d, m->task)) != NULL)
            stdin_add(d, t, m);
        break;
    case STEPIO_SIGNAL:
        snprintf(num, sizeof(num), "%.*s", (int)(m->len < 15 ? m->len : 15),
                 (const char *)m->data);
        sig = atoi(num);
        if (sig > 0 && sig < NSIG)
            stepd_signal(d, sig);
        break;
    case STEPIO_KILL:
        stepd_kill(d, "cancelled", d->s->kill_wait_s);
        break;
    case STEPIO_WINSIZE:
        stepd_pty_winsize(d, m);
        break;
    default:
        break; /* a later srun's frame: nothing to do with it here */
    }
}

int stepd_srun_recv(struct stepd *d)
{
    size_t room = STEPIO_MAX_DATA + STEPIO_OVERHEAD;
    ssize_t n;

    if (d->in.cap < room) {
        d->in.p = xrealloc(d->in.p, room);
        d->in.cap = room;
    }
    n = read(d->sock, d->in.p + d->in.len, d->in.cap - d->in.len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        srun_lost(d);
        return -1;
    }
    d->in.len += (size_t)n;
    return 0;
}

/* Act on every whole frame in d->in. */
static void srun_frames(struct stepd *d)
{
    struct stepio_msg m;
    size_t used;
    struct err e;
    int rc = 0;

    while (d->sock >= 0 && (rc = stepio_parse(&d->io, d->in.p, d->in.len, &m,
                                              &used, &e)) == 1) {
        on_frame(d, &m);
        buf_drop(&d->in, used);
    }
    if (d->sock >= 0 && rc < 0)
        srun_lost(d);
}

static void srun_read(struct stepd *d)
{
    if (stepd_srun_recv(d) == 0)
        srun_frames(d);
}

static void srun_write(struct stepd *d)
{
    ssize_t n = send(d->sock, d->out.p, d->out.len, MSG_NOSIGNAL);

    if (n > 0)
        buf_drop(&d->out, (size_t)n);
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
        srun_lost(d);
}

/* --- the tasks' pipes and sluiced's ctl ------------------------------ */

static void pipe_read(struct stepd *d, struct stepd_task *t, int *fd,
                      uint8_t type)
{
    static uint8_t buf[STEPD_READ_MAX];
    ssize_t n = read(*fd, buf, sizeof(buf));

    if (n > 0)
        stepd_send(d, type, t->id, buf, (size_t)n);
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        close_fd(fd);
    progress(d, t);
}

static void stdin_write(struct stepd_task *t)
{
    ssize_t n = write(t->in, t->stdin_q.p, t->stdin_q.len);

    if (n > 0)
        buf_drop(&t->stdin_q, (size_t)n);
    else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        close_fd(&t->in); /* the task closed its stdin: drop the rest */
        t->stdin_q.len = 0;
    }
    if (t->in >= 0 && t->stdin_eof && t->stdin_q.len == 0)
        close_fd(&t->in);
}

/* sluiced: "signal N" or "kill REASON WAIT_S", one line a connection. */
static void ctl_accept(struct stepd *d)
{
    int fd = accept4(d->ctl, NULL, NULL, SOCK_CLOEXEC);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char line[128], reason[32];
    ssize_t n = -1;
    unsigned wait_s;
    int sig;

    if (fd < 0)
        return;
    if (poll(&p, 1, 1000) == 1)
        n = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (n <= 0)
        return;
    line[n] = '\0';
    if (sscanf(line, "signal %d", &sig) == 1 && sig > 0 && sig < NSIG)
        stepd_signal(d, sig);
    else if (sscanf(line, "kill %31s %u", reason, &wait_s) == 2)
        stepd_kill(d, strcmp(reason, "-") == 0 ? "" : reason, wait_s);
}

/* --- the loop -------------------------------------------------------- */

static bool all_done(const struct stepd *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (!task_done(&d->t[i]))
            return false;
    return true;
}

static size_t stdin_queued(const struct stepd *d)
{
    size_t q = 0;

    for (size_t i = 0; i < d->n; i++)
        q += d->t[i].stdin_q.len;
    return q;
}

static void timers(struct stepd *d)
{
    int64_t now = stepd_now_ms();

    if (d->limit_ms != 0 && now >= d->limit_ms) {
        d->limit_ms = 0;
        stepd_kill(d, "timeout", d->s->kill_wait_s);
    }
    if (d->kill_ms != 0 && now >= d->kill_ms) {
        d->kill_ms = 0;
        stepd_signal(d, SIGKILL);
    }
    if (d->usage_ms != 0 && now >= d->usage_ms) {
        stepd_sample(d);
        d->usage_ms = now + (int64_t)d->a->ctx->usage_period_s * 1000;
    }
    if (d->drain_ms != 0 && now >= d->drain_ms)
        for (size_t i = 0; i < d->n; i++) {
            close_fd(&d->t[i].out);
            close_fd(&d->t[i].err);
            progress(d, &d->t[i]);
        }
}

static int poll_timeout(const struct stepd *d)
{
    int64_t now = stepd_now_ms(), next = now + 60000;
    const int64_t at[] = {d->limit_ms, d->kill_ms, d->usage_ms, d->drain_ms};

    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
        if (at[i] != 0 && at[i] < next)
            next = at[i];
    return next > now ? (int)(next - now) : 0;
}

/* Which task pipe each pollfd is; -1: not a task's. */
struct slot {
    struct stepd_task *t;
    int which; /* 0 in, 1 out, 2 err */
};

static size_t fill(struct stepd *d, struct pollfd *p, struct slot *sl)
{
    size_t k = 0;

    p[k++] = (struct pollfd){.fd = d->sigfd, .events = POLLIN};
    p[k++] = (struct pollfd){.fd = d->ctl, .events = POLLIN};
    p[k] = (struct pollfd){.fd = d->sock, .events = 0};
    if (d->sock >= 0 && stdin_queued(d) < STEPD_IN_HIGH)
        p[k].events |= POLLIN;
    if (d->sock >= 0 && d->out.len > 0)
        p[k].events |= POLLOUT;
    k++;
    for (size_t i = 0; i < d->n; i++) {
        struct stepd_task *t = &d->t[i];
        bool room = d->out.len < STEPD_OUT_HIGH;
        const int fds[3] = {t->stdin_q.len > 0 ? t->in : -1, room ? t->out : -1,
                            room ? t->err : -1};
        for (int w = 0; w < 3; w++) {
            if (fds[w] < 0)
                continue;
            sl[k] = (struct slot){t, w};
            p[k++] = (struct pollfd){.fd = fds[w],
                                     .events = w == 0 ? POLLOUT : POLLIN};
        }
    }
    return k;
}

static void dispatch(struct stepd *d, struct pollfd *p, struct slot *sl,
                     size_t k)
{
    if (p[0].revents)
        stepd_reap(d);
    if (p[1].revents & POLLIN)
        ctl_accept(d);
    if (d->sock >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)))
        srun_read(d);
    if (d->sock >= 0 && (p[2].revents & POLLOUT))
        srun_write(d);
    for (size_t i = 3; i < k; i++) {
        struct stepd_task *t = sl[i].t;
        if (p[i].revents == 0)
            continue;
        if (sl[i].which == 0 && t->in >= 0)
            stdin_write(t);
        else if (sl[i].which == 1 && t->out >= 0)
            pipe_read(d, t, &t->out, STEPIO_STDOUT);
        else if (sl[i].which == 2 && t->err >= 0)
            pipe_read(d, t, &t->err, STEPIO_STDERR);
    }
}

/* DONE, and the queue to srun written out (STEPD_FLUSH_MS at most). */
static void flush_done(struct stepd *d)
{
    int64_t until = stepd_now_ms() + STEPD_FLUSH_MS;

    stepd_send(d, STEPIO_DONE, STEPIO_ALL_TASKS, NULL, 0);
    while (d->sock >= 0 && d->out.len > 0 && stepd_now_ms() < until) {
        struct pollfd p = {.fd = d->sock, .events = POLLOUT};
        if (poll(&p, 1, (int)(until - stepd_now_ms())) > 0)
            srun_write(d);
    }
    /* Closing with srun's frames unread would reset the connection and
     * drop what is still in flight (DONE, the last output): end our
     * side, then read to srun's close. */
    if (d->sock >= 0 && shutdown(d->sock, SHUT_WR) == 0) {
        char junk[65536];
        while (stepd_now_ms() < until) {
            struct pollfd p = {.fd = d->sock, .events = POLLIN};
            if (poll(&p, 1, (int)(until - stepd_now_ms())) <= 0 ||
                read(d->sock, junk, sizeof(junk)) <= 0)
                break;
        }
    }
    close_fd(&d->sock);
}

static void input_routing(struct stepd *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->s->input_task == -2 ||
            (d->s->input_task >= 0 && d->t[i].id != d->s->input_task))
            close_fd(&d->t[i].in);
}

void stepd_loop(struct stepd *d)
{
    size_t cap = 3 + 3 * d->n;
    struct pollfd *p = xcalloc(cap, sizeof(*p));
    struct slot *sl = xcalloc(cap, sizeof(*sl));
    int64_t now = stepd_now_ms();

    if (d->s->time_limit_s > 0)
        d->limit_ms = now + d->s->time_limit_s * 1000;
    if (d->a->ctx->usage_period_s > 0)
        d->usage_ms = now + (int64_t)d->a->ctx->usage_period_s * 1000;
    input_routing(d);
    srun_frames(d); /* what came before the tasks ran (--pty) */
    stepd_reap(d);  /* a task may have ended before the signalfd */
    while (!all_done(d)) {
        size_t k = fill(d, p, sl);
        if (poll(p, k, poll_timeout(d)) < 0 && errno != EINTR)
            break;
        dispatch(d, p, sl, k);
        timers(d);
    }
    stepd_sample(d);
    flush_done(d);
    free(p);
    free(sl);
}
