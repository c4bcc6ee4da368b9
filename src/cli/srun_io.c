/*
 * srun's one loop over the step's connections (one per node, opened by
 * each node's step supervisor and authenticated with the step's key,
 * common/stepio.h), its stdin and the signals it forwards.  Sockets are
 * non-blocking with a queue per connection, so that one slow node never
 * holds up the others; srun's own output is written blocking, so that a
 * slow reader of it slows the tasks down instead of losing their output.
 */
#include "cli/srun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/hostlist.h"
#include "common/utf8.h"
#include "common/xalloc.h"

/* Room for the largest frame and then some, per connection. */
#define SR_IN_CAP (STEPIO_MAX_DATA + STEPIO_OVERHEAD + (64u << 10))
/* stdin is read only while every connection's queue is below this. */
#define SR_OUT_HIGH (1u << 20)
#define SR_STDIN_CHUNK (64u << 10)
/* How often the controller is asked about a step still connecting. */
#define SR_QUERY_MS 1000
/* Two interrupts within this end the step. */
#define SR_INTERRUPT_MS 1000
/* How long after killing the step its nodes may take beyond KillWait. */
#define SR_KILL_GRACE_MS 10000

struct sr_conn {
    int fd;           /* -1: not connected, or closed */
    bool finished;    /* DONE came, or the connection was lost */
    uint32_t running; /* the node's tasks whose TASK_EXIT has not come */
    struct stepio sio;
    uint8_t *in;
    size_t in_off, in_len; /* in[in_off..in_len): not yet parsed */
    uint8_t *out;
    size_t out_off, out_len, out_cap;
};

struct sr_io {
    const struct srun_io_conf *c;
    const struct srun_step *s;
    struct sr_conn *conns; /* by node id */
    size_t n_connected, n_finished;
    bool input_open;
    bool kill_sent;
    bool step_over; /* the controller ended the step: give up at
                       kill_deadline_ms on the nodes still out */
    int64_t kill_deadline_ms, last_query_ms, last_sigint_ms;
    bool launch_failed;
};

/* ---- signals ---- */

static int sr_sig_pipe[2] = {-1, -1};

static void sr_sig_handler(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;

    (void)!write(sr_sig_pipe[1], &b, 1);
    errno = saved;
}

int srun_signals_init(struct err *e)
{
    static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                               SIGUSR1, SIGUSR2, SIGCONT};
    struct sigaction sa;

    if (sr_sig_pipe[0] >= 0)
        return sr_sig_pipe[0];
    if (pipe2(sr_sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return err_set(e, "cannot create a pipe: %s", strerror(errno));
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = sr_sig_handler;
    sigemptyset(&sa.sa_mask);
    /* Handlers only write to the pipe the loop polls (no SA_RESTART
     * needed: poll returns at once).  A write to srun's own output that
     * blocks finishes first: a stuck reader of srun's output holds the
     * signals back with everything else. */
    for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return sr_sig_pipe[0];
}

void srun_signal_catch(int sig)
{
    struct sigaction sa = {.sa_handler = sr_sig_handler};

    sigemptyset(&sa.sa_mask);
    if (sr_sig_pipe[0] >= 0)
        sigaction(sig, &sa, NULL);
}

int srun_signal_next(int fd)
{
    unsigned char b;

    return read(fd, &b, 1) == 1 ? b : 0;
}

/* ---- messages ---- */

static void sr_say(const struct sr_io *io, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void sr_say(const struct sr_io *io, bool error, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    srun_out_flush(io->c->out);
    /* raw mode (--pty): no newline translation, the line ends itself */
    fprintf(stderr, "%s: %s%s%s", io->c->prog, error ? "error: " : "", text,
            srun_tty_is_raw() ? "\r\n" : "\n");
}

/* A supervisor's MESSAGE: "*** STEP 12.0 ON node01 CANCELLED AT ... ***"
 * is an error line (slurmstepd's, printed by srun here); any other text
 * carries its own "error: " where it is one. */
static void sr_message(const struct sr_io *io, const uint8_t *data, size_t len)
{
    char *text = xstrndup((const char *)data, len);
    char *safe = utf8_escape(text);

    sr_say(io, strncmp(safe, "***", 3) == 0, "%s", safe);
    free(safe);
    free(text);
}

/* ---- connections ---- */

static void conn_close(struct sr_conn *cn)
{
    if (cn->fd >= 0)
        close(cn->fd);
    cn->fd = -1;
    free(cn->in);
    free(cn->out);
    cn->in = cn->out = NULL;
    cn->in_off = cn->in_len = 0;
    cn->out_off = cn->out_len = cn->out_cap = 0;
}

static void io_kill_all(struct sr_io *io);

/* node is finished: closed, and its tasks without an end get lost (or
 * keep RUNNING: a DONE without their TASK_EXIT counts as exit 0). */
static void io_finish(struct sr_io *io, uint32_t node,
                      enum srun_task_state unended)
{
    struct sr_conn *cn = &io->conns[node];

    if (cn->finished)
        return;
    conn_close(cn);
    cn->finished = true;
    io->n_finished++;
    for (uint32_t t = 0; t < io->s->ntasks; t++)
        if (io->s->task_node[t] == node &&
            io->c->ends[t].state == SRUN_TASK_RUNNING)
            io->c->ends[t].state = unended;
}

/* The node's connection ended before DONE: its tasks are lost. */
static void conn_lost(struct sr_io *io, uint32_t node, const char *why)
{
    if (io->conns[node].finished)
        return;
    if (io->conns[node].running == 0) {
        /* Every task's end (and so all of its output) came: only DONE
         * is missing, which a supervisor that closes with srun's frames
         * unread loses to the reset. */
        io_finish(io, node, SRUN_TASK_RUNNING);
        return;
    }
    sr_say(io, true, "%s: connection to the step lost%s%s", io->s->nodes[node],
           why ? ": " : "", why ? why : "");
    io_finish(io, node, SRUN_TASK_LOST);
    if (!io->c->no_kill)
        io_kill_all(io);
}

/* Write what is queued for node, as much as the socket takes now. */
static void conn_write(struct sr_io *io, uint32_t node)
{
    struct sr_conn *cn = &io->conns[node];

    while (cn->fd >= 0 && cn->out_off < cn->out_len) {
        ssize_t n = send(cn->fd, cn->out + cn->out_off,
                         cn->out_len - cn->out_off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0) {
            conn_lost(io, node, strerror(errno));
            return;
        }
        cn->out_off += (size_t)n;
    }
    cn->out_off = cn->out_len = 0;
}

/* Queue one frame for node and start writing it. */
static void conn_send(struct sr_io *io, uint32_t node, uint8_t type,
                      uint32_t task, const void *data, size_t len)
{
    struct sr_conn *cn = &io->conns[node];

    if (cn->fd < 0 || cn->finished)
        return;
    if (cn->out_len + len + STEPIO_OVERHEAD > cn->out_cap) {
        cn->out_cap = 2 * (cn->out_len + len + STEPIO_OVERHEAD);
        cn->out = xrealloc(cn->out, cn->out_cap);
    }
    cn->out_len +=
        stepio_frame(&cn->sio, type, task, data, len, cn->out + cn->out_len);
    conn_write(io, node);
}

static bool io_all_connected(const struct sr_io *io)
{
    return io->n_connected == io->s->n_nodes;
}

/* End the step: KILL to every node connected, and through the controller
 * when some node never connected (its supervisor has no one to hear). */
static void io_kill_all(struct sr_io *io)
{
    if (io->kill_sent)
        return;
    io->kill_sent = true;
    io->kill_deadline_ms =
        clock_mono_ms() + (int64_t)io->s->kill_wait_s * 1000 + SR_KILL_GRACE_MS;
    for (uint32_t n = 0; n < io->s->n_nodes; n++)
        conn_send(io, n, STEPIO_KILL, STEPIO_ALL_TASKS, NULL, 0);
    if (!io_all_connected(io) && io->c->step_cancel != NULL)
        io->c->step_cancel(io->c->arg, 0);
}

static void io_forward(struct sr_io *io, int sig)
{
    char num[16];
    int len = snprintf(num, sizeof(num), "%d", sig);

    if (!io_all_connected(io)) {
        if (io->c->step_cancel != NULL)
            io->c->step_cancel(io->c->arg, sig);
        return;
    }
    for (uint32_t n = 0; n < io->s->n_nodes; n++)
        conn_send(io, n, STEPIO_SIGNAL, STEPIO_ALL_TASKS, num, (size_t)len);
}

/* ---- frames from the supervisors ---- */

static void io_task_exit(struct sr_io *io, uint32_t task,
                         const struct stepio_msg *m)
{
    char text[32];
    int code = 0, sig = 0;

    snprintf(text, sizeof(text), "%.*s", (int)m->len, (const char *)m->data);
    if (sscanf(text, "%d %d", &code, &sig) != 2 || code < 0 || sig < 0)
        code = 1, sig = 0;
    if (io->c->ends[task].state == SRUN_TASK_RUNNING)
        io->conns[io->s->task_node[task]].running--;
    io->c->ends[task] = (struct srun_task_end){SRUN_TASK_EXITED, code, sig};
    if (io->c->kill_on_bad_exit && (code != 0 || sig != 0) && !io->kill_sent) {
        sr_say(io, false, "Terminating StepId=%u.%u (--kill-on-bad-exit)",
               io->s->job_id, io->s->step_id);
        io_kill_all(io);
    }
}

static void io_done(struct sr_io *io, uint32_t node)
{
    io_finish(io, node, SRUN_TASK_RUNNING);
    if (io->c->verbose)
        sr_say(io, false, "%s: done", io->s->nodes[node]);
}

/* One frame from node; -1 when it breaks the protocol (a task that is
 * not the node's, a type srun does not take). */
static int io_frame(struct sr_io *io, uint32_t node, const struct stepio_msg *m)
{
    bool task_ok = m->task < io->s->ntasks && io->s->task_node[m->task] == node;

    switch (m->type) {
    case STEPIO_STDOUT:
    case STEPIO_STDERR:
    case STEPIO_OUT_EOF:
    case STEPIO_TASK_EXIT:
        if (!task_ok)
            return -1;
        if (m->type == STEPIO_TASK_EXIT)
            io_task_exit(io, m->task, m);
        else if (m->type == STEPIO_OUT_EOF)
            srun_out_eof(io->c->out, m->task);
        else
            srun_out_data(io->c->out, m->task,
                          m->type == STEPIO_STDOUT ? SRUN_STDOUT : SRUN_STDERR,
                          m->data, m->len);
        return 0;
    case STEPIO_MESSAGE:
        sr_message(io, m->data, m->len);
        return 0;
    case STEPIO_DONE:
        io_done(io, node);
        return 0;
    default:
        return -1;
    }
}

/* Make room for the rest of the frame that starts at in_off: moved to
 * the front only when it would not fit (a frame is copied at most once,
 * never again for each read that brings more of it). */
static void conn_room(struct sr_conn *cn)
{
    size_t need = STEPIO_OVERHEAD;

    if (cn->in_off == cn->in_len) {
        cn->in_off = cn->in_len = 0;
        return;
    }
    if (cn->in_len - cn->in_off >= 4)
        need += (size_t)cn->in[cn->in_off] << 24 |
                (size_t)cn->in[cn->in_off + 1] << 16 |
                (size_t)cn->in[cn->in_off + 2] << 8 | cn->in[cn->in_off + 3];
    if (cn->in_off + need <= SR_IN_CAP)
        return;
    memmove(cn->in, cn->in + cn->in_off, cn->in_len - cn->in_off);
    cn->in_len -= cn->in_off;
    cn->in_off = 0;
}

/* Read what node sent and act on every whole frame. */
static void io_read(struct sr_io *io, uint32_t node)
{
    struct sr_conn *cn = &io->conns[node];
    struct stepio_msg m;
    struct err e;
    size_t used;
    ssize_t n;
    int rc;

    n = read(cn->fd, cn->in + cn->in_len, SR_IN_CAP - cn->in_len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        conn_lost(io, node, n < 0 ? strerror(errno) : NULL);
        return;
    }
    cn->in_len += (size_t)n;
    while (cn->fd >= 0 &&
           (rc = stepio_parse(&cn->sio, cn->in + cn->in_off,
                              cn->in_len - cn->in_off, &m, &used, &e)) == 1) {
        cn->in_off += used;
        if (io_frame(io, node, &m) < 0) {
            conn_lost(io, node, "the node broke the protocol");
            return;
        }
    }
    if (cn->fd < 0)
        return; /* DONE (or lost) closed it: the rest is nothing */
    if (rc < 0) {
        conn_lost(io, node, e.text);
        return;
    }
    conn_room(cn);
}

/* ---- new connections ---- */

/* --pty: the terminal's size to task 0. */
static void io_winsize(struct sr_io *io)
{
    char size[STEPIO_WINSIZE_MAX];
    size_t len;
    struct err e;

    if (srun_tty_winsize(io->c->tty_fd, size, &len, &e) == 0)
        conn_send(io, io->s->task_node[0], STEPIO_WINSIZE, 0, size, len);
}

/* --pty, task 0's node connected: the terminal is the remote one's from
 * now on (Slurm's srun also waits for this), and its size goes first. */
static void io_pty_start(struct sr_io *io)
{
    struct err e;

    if (srun_tty_raw(io->c->tty_fd, &e) < 0)
        sr_say(io, true, "cannot put the terminal in raw mode: %s", e.text);
    srun_signal_catch(SIGWINCH);
    io_winsize(io);
}

/* What a node gets as soon as it is connected: under --pty the terminal's
 * size; the end of stdin for tasks that read none. */
static void io_greet(struct sr_io *io, uint32_t node)
{
    int it = io->c->input_task;

    if (io->c->pty && node == io->s->task_node[0])
        io_pty_start(io);

    if (it == SRUN_INPUT_NONE || io->c->input_fd < 0 ||
        (it >= 0 && io->s->task_node[it] != node))
        conn_send(io, node, STEPIO_STDIN_EOF, STEPIO_ALL_TASKS, NULL, 0);
}

static void io_accept(struct sr_io *io)
{
    const struct srun_io_conf *c = io->c;
    uint32_t node;
    struct stepio sio;
    struct err e;
    int fd, one = 1;

    fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (stepio_accept_handshake(fd, c->key, io->s->job_id, io->s->step_id,
                                &node, &sio, STEPIO_HANDSHAKE_MS, &e) < 0 ||
        node >= io->s->n_nodes || io->conns[node].fd >= 0 ||
        io->conns[node].finished) {
        /* Not one of the step's supervisors (or one twice): whoever it is
         * learns nothing; the real one may still come. */
        if (c->verbose)
            sr_say(io, false, "refused a connection: %s",
                   node >= io->s->n_nodes ? "not a node of the step" : e.text);
        close(fd);
        return;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    io->conns[node].fd = fd;
    io->conns[node].sio = sio;
    io->conns[node].in = xmalloc(SR_IN_CAP);
    io->n_connected++;
    if (c->verbose)
        sr_say(io, false, "%s: connected (node %u)", io->s->nodes[node], node);
    io_greet(io, node);
    if (io->kill_sent)
        conn_send(io, node, STEPIO_KILL, STEPIO_ALL_TASKS, NULL, 0);
}

/* ---- stdin ---- */

static void io_stdin_send(struct sr_io *io, uint8_t type, const void *data,
                          size_t len)
{
    int it = io->c->input_task;

    /* A node whose tasks all ended reads no more: nothing is sent to it
     * (it would only be unread data at its close). */
    if (it >= 0) {
        if (io->c->ends[it].state == SRUN_TASK_RUNNING)
            conn_send(io, io->s->task_node[it], type, (uint32_t)it, data, len);
        return;
    }
    for (uint32_t n = 0; n < io->s->n_nodes; n++)
        if (io->conns[n].running > 0)
            conn_send(io, n, type, STEPIO_ALL_TASKS, data, len);
}

static void io_stdin(struct sr_io *io)
{
    static uint8_t buf[SR_STDIN_CHUNK];
    ssize_t n = read(io->c->input_fd, buf, sizeof(buf));

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n > 0) {
        io_stdin_send(io, STEPIO_STDIN, buf, (size_t)n);
        return;
    }
    io_stdin_send(io, STEPIO_STDIN_EOF, NULL, 0);
    io->input_open = false;
}

/* stdin is read once every node is there (nothing read is lost on a node
 * not yet connected) and while no node is behind on it. */
static bool io_want_stdin(const struct sr_io *io)
{
    if (!io->input_open || !io_all_connected(io))
        return false;
    for (uint32_t n = 0; n < io->s->n_nodes; n++)
        if (io->conns[n].out_len > SR_OUT_HIGH)
            return false;
    return true;
}

/* ---- signals, launch and the end ---- */

static void io_interrupt(struct sr_io *io)
{
    int64_t now = clock_mono_ms();

    if (io->kill_sent || now - io->last_sigint_ms <= SR_INTERRUPT_MS) {
        sr_say(io, false, "forcing job termination");
        io_kill_all(io);
        sr_say(io, false,
               "Job step aborted: Waiting up to %u seconds for job step to "
               "finish.",
               io->s->kill_wait_s + 2);
        return;
    }
    io->last_sigint_ms = now;
    sr_say(io, false, "interrupt (one more within 1 sec to abort)");
    io_forward(io, SIGINT);
}

static void io_signals(struct sr_io *io)
{
    int sig;

    while ((sig = srun_signal_next(io->c->sig_fd)) != 0) {
        if (sig == SIGWINCH)
            io_winsize(io);
        else if (sig == SIGINT && !io->c->pty)
            io_interrupt(io);
        else
            io_forward(io, sig);
    }
}

/* Some node finished and another has not: the others may wait on a node
 * that failed. */
static bool io_partial(const struct sr_io *io)
{
    return io->n_finished > 0 && io->n_finished < io->s->n_nodes &&
           !io->step_over;
}

/* The nodes of the step that failed (the controller's "lost_nodes"):
 * their tasks are lost; the step goes on (--no-kill) or ends. */
static void io_lost(struct sr_io *io, const char *lost)
{
    struct err e;
    struct hostlist *hl = hostlist_expand(lost, &e);

    for (uint32_t n = 0; hl != NULL && n < io->s->n_nodes; n++) {
        if (io->conns[n].finished || hostlist_find(hl, io->s->nodes[n]) < 0)
            continue;
        sr_say(io, true, "Node failure on %s", io->s->nodes[n]);
        io_finish(io, n, SRUN_TASK_LOST);
    }
    hostlist_destroy(hl);
}

/* Once every node connected and some finished: a node that failed (the
 * controller says so) is given up, and when the controller ended the
 * step the nodes that do not answer are given up after the kill wait. */
static void io_check_nodes(struct sr_io *io, int64_t now)
{
    char *lost = NULL;
    struct err e;
    int rc;

    io->last_query_ms = now;
    rc = io->c->step_state(io->c->arg, &lost, &e);
    if (lost != NULL)
        io_lost(io, lost);
    free(lost);
    if (rc == 0 && io->n_finished < io->s->n_nodes) {
        io->step_over = true;
        if (!io->kill_sent)
            io->kill_deadline_ms =
                now + (int64_t)io->s->kill_wait_s * 1000 + SR_KILL_GRACE_MS;
    }
}

/* While nodes are still connecting: has the launch failed?  Later: has
 * a node failed (io_check_nodes)? */
static void io_check_launch(struct sr_io *io)
{
    int64_t now = clock_mono_ms();
    struct err e;

    if (io->c->step_state == NULL || now - io->last_query_ms < SR_QUERY_MS)
        return;
    if (io_all_connected(io)) {
        if (io_partial(io))
            io_check_nodes(io, now);
        return;
    }
    io->last_query_ms = now;
    if (io->c->step_state(io->c->arg, NULL, &e) != 0)
        return;
    sr_say(io, true, "Task launch for StepId=%u.%u failed: %s", io->s->job_id,
           io->s->step_id, e.text);
    io->launch_failed = true;
    io_kill_all(io);
    /* The nodes not connected by now never will be. */
    for (uint32_t n = 0; n < io->s->n_nodes; n++)
        if (io->conns[n].fd < 0 && !io->conns[n].finished)
            io_finish(io, n, SRUN_TASK_LOST);
}

/* The step was killed and some node never answered: stop waiting. */
static void io_give_up(struct sr_io *io)
{
    for (uint32_t n = 0; n < io->s->n_nodes; n++) {
        if (io->conns[n].finished)
            continue;
        sr_say(io, true, "%s: no answer %u seconds after the step was killed",
               io->s->nodes[n], io->s->kill_wait_s + SR_KILL_GRACE_MS / 1000);
        io_finish(io, n, SRUN_TASK_LOST);
    }
}

static int io_timeout(const struct sr_io *io)
{
    int64_t now = clock_mono_ms(), ms = -1;

    if (!io_all_connected(io) || io_partial(io))
        ms = io->last_query_ms + SR_QUERY_MS - now;
    if ((io->kill_sent || io->step_over) &&
        (ms < 0 || io->kill_deadline_ms - now < ms))
        ms = io->kill_deadline_ms - now;
    if (ms == -1)
        return -1;
    return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

/* ---- the loop ---- */

/* pollfds: [0] signals, [1] listener, [2] stdin, then one per node. */
static nfds_t io_pollfds(const struct sr_io *io, struct pollfd *p)
{
    const uint32_t n_nodes = (uint32_t)io->s->n_nodes;

    p[0] = (struct pollfd){.fd = io->c->sig_fd, .events = POLLIN};
    p[1] = (struct pollfd){.fd = io_all_connected(io) ? -1 : io->c->listen_fd,
                           .events = POLLIN};
    p[2] = (struct pollfd){.fd = io_want_stdin(io) ? io->c->input_fd : -1,
                           .events = POLLIN};
    for (uint32_t n = 0; n < n_nodes; n++) {
        const struct sr_conn *cn = &io->conns[n];
        p[3 + n] = (struct pollfd){.fd = cn->fd, .events = POLLIN};
        if (cn->out_len > cn->out_off)
            p[3 + n].events |= POLLOUT;
    }
    return 3 + n_nodes;
}

static void io_step(struct sr_io *io, struct pollfd *p, nfds_t np)
{
    /* Output is written when there is nothing else to do (or a lot of it
     * is queued, srun_out.c): a busy step's output leaves in large writes,
     * an idle one's at once. */
    int rc = poll(p, np, 0);

    if (rc == 0) {
        srun_out_flush(io->c->out);
        rc = poll(p, np, io_timeout(io));
    }

    if (rc < 0 && errno != EINTR)
        sr_say(io, true, "poll: %s", strerror(errno));
    if (rc > 0 && (p[0].revents & POLLIN))
        io_signals(io);
    if (rc > 0 && (p[1].revents & POLLIN))
        io_accept(io);
    for (nfds_t i = 3; rc > 0 && i < np; i++) {
        uint32_t n = (uint32_t)(i - 3);
        if (p[i].fd < 0 || io->conns[n].fd != p[i].fd)
            continue;
        if (p[i].revents & POLLOUT)
            conn_write(io, n);
        if (io->conns[n].fd >= 0 &&
            (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
            io_read(io, n);
    }
    if (rc > 0 && p[2].fd >= 0 &&
        (p[2].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
        io_stdin(io);
    io_check_launch(io);
    if ((io->kill_sent || io->step_over) &&
        clock_mono_ms() >= io->kill_deadline_ms)
        io_give_up(io);
}

int srun_io_run(const struct srun_io_conf *c)
{
    struct sr_io io = {.c = c, .s = c->step};
    struct pollfd *p = xcalloc(3 + c->step->n_nodes, sizeof(*p));

    io.conns = xcalloc(c->step->n_nodes, sizeof(*io.conns));
    for (size_t n = 0; n < c->step->n_nodes; n++)
        io.conns[n].fd = -1;
    for (uint32_t t = 0; t < c->step->ntasks; t++)
        io.conns[c->step->task_node[t]].running++;
    io.input_open = c->input_fd >= 0 && c->input_task != SRUN_INPUT_NONE;
    io.last_query_ms = clock_mono_ms();
    io.last_sigint_ms = -SR_INTERRUPT_MS - 1;
    while (io.n_finished < c->step->n_nodes)
        io_step(&io, p, io_pollfds(&io, p));
    srun_out_flush(c->out);
    if (c->pty) {
        srun_tty_restore();
        signal(SIGWINCH, SIG_DFL);
    }
    for (size_t n = 0; n < c->step->n_nodes; n++)
        conn_close(&io.conns[n]);
    free(io.conns);
    free(p);
    return io.launch_failed ? -1 : 0;
}
