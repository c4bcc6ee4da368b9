/*
 * srun's I/O loop (src/cli/srun_io.c) against fake step supervisors: a
 * child process connects as each node of a step over loopback, proves the
 * step's key (common/stepio.c) and plays the supervisor's side of the
 * frames: output, stdin, task exits, a lost connection, a launch that
 * never connects, and --pty's terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>

#include <cmocka.h>

#include "cli/srun.h"
#include "common/stepio.h"

#define JOB 12
#define STEP 3

static const uint8_t key[STEPIO_KEY_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

/* ---- the supervisors' side (in the child) ---- */

struct sup {
    int fd;
    struct stepio s;
    uint8_t in[STEPIO_MAX_DATA + STEPIO_OVERHEAD];
    size_t in_len;
};

static void sup_connect(struct sup *u, uint16_t port, uint32_t node)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    struct err e;

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    u->in_len = 0;
    u->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (u->fd < 0 || connect(u->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        stepio_connect_handshake(u->fd, key, JOB, STEP, node, &u->s, 5000, &e) <
            0)
        _exit(10 + (int)node);
}

static void sup_send(struct sup *u, uint8_t type, uint32_t task,
                     const char *text)
{
    size_t len = text ? strlen(text) : 0, off = 0;
    uint8_t frame[4096];
    size_t n = stepio_frame(&u->s, type, task, text, len, frame);

    while (off < n) {
        ssize_t k = write(u->fd, frame + off, n - off);
        if (k <= 0)
            _exit(20);
        off += (size_t)k;
    }
}

/* Read frames until one of type comes; STDIN data is appended to got. */
static void sup_expect(struct sup *u, uint8_t type, char *got, size_t len)
{
    for (;;) {
        struct stepio_msg m;
        struct err e;
        size_t used;
        int rc = stepio_parse(&u->s, u->in, u->in_len, &m, &used, &e);
        ssize_t k;
        if (rc < 0)
            _exit(21);
        if (rc == 1) {
            if (m.type == STEPIO_STDIN && got != NULL && m.task != 2 &&
                m.task != STEPIO_ALL_TASKS)
                _exit(23); /* stdin for a task that should get none */
            if (m.type == STEPIO_STDIN && got != NULL)
                strncat(got, (const char *)m.data,
                        m.len < len - strlen(got) - 1 ? m.len
                                                      : len - strlen(got) - 1);
            memmove(u->in, u->in + used, u->in_len - used);
            u->in_len -= used;
            if (m.type == type)
                return;
            continue;
        }
        k = read(u->fd, u->in + u->in_len, sizeof(u->in) - u->in_len);
        if (k <= 0)
            _exit(22);
        u->in_len += (size_t)k;
    }
}

/* The end of a supervisor's connection: no more writes, and what srun
 * sent read to the end (srun closes on DONE), so that the close is a FIN,
 * not a reset that could take DONE with it. */
static void sup_finish(struct sup *u)
{
    char buf[4096];

    shutdown(u->fd, SHUT_WR);
    while (read(u->fd, buf, sizeof(buf)) > 0)
        ;
    close(u->fd);
}

/* ---- srun's side ---- */

struct cancel_log {
    int calls, last_sig;
};

static int state_ended(void *arg, char **lost, struct err *e)
{
    (void)arg;
    (void)lost;
    err_set(e, "cannot reach srun at 127.0.0.1:1: Connection refused");
    return 0;
}

static int state_running(void *arg, char **lost, struct err *e)
{
    (void)arg;
    (void)lost;
    (void)e;
    return 1;
}

static void cancel(void *arg, int sig)
{
    struct cancel_log *l = arg;

    l->calls++;
    l->last_sig = sig;
}

/* Tasks 0, 1 on node0 and 2 on node1. */
static void make_step(struct srun_step *s)
{
    static char *names[] = {"node01", "node02"};
    static uint32_t task_node[] = {0, 0, 1};

    memset(s, 0, sizeof(*s));
    s->job_id = JOB;
    s->step_id = STEP;
    s->ntasks = 3;
    s->n_nodes = 2;
    s->nodes = names;
    s->task_node = task_node;
    s->kill_wait_s = 1;
}

static int listen_any(uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 16), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* The loop over listen_fd with stdin from input_fd; output into *out. */
static int input_task = SRUN_INPUT_ALL;
/* --pty: srun's terminal (the slave of a pair made by the test), and its
 * master (for the child playing the nodes); -1: not --pty. */
static int tty_fd = -1, tty_master = -1;

static int run_loop(int listen_fd, int input_fd, struct srun_task_end *ends,
                    char *out, size_t out_len, struct cancel_log *log,
                    int (*state)(void *, char **, struct err *))
{
    int fd = memfd_create("srun-io", 0), sig_fd, rc;
    struct srun_step s;
    struct err e;
    struct srun_io_conf c = {.prog = "srun",
                             .listen_fd = listen_fd,
                             .input_fd = input_fd,
                             .input_task = input_task,
                             .pty = tty_fd >= 0,
                             .tty_fd = tty_fd,
                             .ends = ends,
                             .step_state = state,
                             .step_cancel = cancel,
                             .arg = log};
    ssize_t n;

    make_step(&s);
    sig_fd = srun_signals_init(&e);
    assert_true(sig_fd >= 0);
    c.sig_fd = sig_fd;
    c.step = &s;
    memcpy(c.key, key, sizeof(key));
    c.out = srun_out_fds(3, fd, fd, true, false);
    rc = srun_io_run(&c);
    srun_out_destroy(c.out);
    n = pread(fd, out, out_len - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    return rc;
}

static int child_status(pid_t pid)
{
    int st;

    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/* Count the lines of text equal to line. */
static int count_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    int count = 0;

    for (const char *p = text; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == n && strncmp(p, line, n) == 0)
            count++;
        p += len + (nl != NULL);
    }
    return count;
}

/* srun's loop here, on a fresh port, against PLAY (the nodes' side) in a
 * child, with stdin from input_fd (-1: none): the loop's result, once
 * the child has exited 0. */
static int play_against(void (*play)(uint16_t), int input_fd,
                        struct srun_task_end *ends, char *out, size_t out_len,
                        struct cancel_log *log)
{
    uint16_t port;
    int lfd = listen_any(&port), rc;
    pid_t pid;

    if ((pid = fork()) == 0)
        play(port);
    rc = run_loop(lfd, input_fd, ends, out, out_len, log, state_running);
    assert_int_equal(child_status(pid), 0);
    close(lfd);
    return rc;
}

/* A pipe holding TEXT, its write end closed: the read end. */
static int input_pipe(const char *text)
{
    int in[2];

    assert_int_equal(pipe(in), 0);
    assert_int_equal(write(in[1], text, strlen(text)), (ssize_t)strlen(text));
    close(in[1]);
    return in[0];
}

/* node02 says its piece and ends; node01 echoes srun's stdin. */
static void play_normal(uint16_t port)
{
    struct sup *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    char got[256] = "", line[300];

    sup_connect(a, port, 0);
    sup_connect(b, port, 1);
    sup_send(b, STEPIO_MESSAGE, 0, "error: a note from node02");
    sup_send(b, STEPIO_STDOUT, 2, "x\n");
    sup_send(b, STEPIO_TASK_EXIT, 2, "0 9");
    sup_send(b, STEPIO_OUT_EOF, 2, NULL);
    sup_send(b, STEPIO_DONE, 0, NULL);
    sup_finish(b);
    sup_send(a, STEPIO_STDOUT, 0, "hel");
    sup_send(a, STEPIO_STDOUT, 1, "b1\n");
    sup_send(a, STEPIO_STDOUT, 0, "lo\n");
    sup_send(a, STEPIO_STDERR, 1, "warn\n");
    sup_expect(a, STEPIO_STDIN_EOF, got, sizeof(got));
    snprintf(line, sizeof(line), "in:%s\n", got);
    sup_send(a, STEPIO_STDOUT, 0, line);
    sup_send(a, STEPIO_TASK_EXIT, 0, "0 0");
    sup_send(a, STEPIO_TASK_EXIT, 1, "2 0");
    sup_send(a, STEPIO_OUT_EOF, 0, NULL);
    sup_send(a, STEPIO_OUT_EOF, 1, NULL);
    sup_send(a, STEPIO_DONE, 0, NULL);
    sup_finish(a);
    _exit(0);
}

static void test_normal(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    char out[4096];
    int in = input_pipe("hello");

    (void)state;
    assert_int_equal(
        play_against(play_normal, in, ends, out, sizeof(out), &log), 0);
    close(in);
    assert_int_equal(count_line(out, "0: hello"), 1);
    assert_int_equal(count_line(out, "1: b1"), 1);
    assert_int_equal(count_line(out, "1: warn"), 1);
    assert_int_equal(count_line(out, "2: x"), 1);
    assert_int_equal(count_line(out, "0: in:hello"), 1);
    assert_int_equal(ends[0].state, SRUN_TASK_EXITED);
    assert_int_equal(ends[1].exit_code, 2);
    assert_int_equal(ends[2].signal, 9);
    assert_int_equal(srun_exit_code(ends, 3), 137);
    assert_int_equal(log.calls, 0);
}

/* node02 drops its connection: srun kills the step on node01. */
static void play_lost(uint16_t port)
{
    struct sup *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

    sup_connect(a, port, 0);
    sup_connect(b, port, 1);
    close(b->fd);
    sup_expect(a, STEPIO_KILL, NULL, 0);
    sup_send(a, STEPIO_TASK_EXIT, 0, "0 15");
    sup_send(a, STEPIO_TASK_EXIT, 1, "0 15");
    sup_send(a, STEPIO_DONE, 0, NULL);
    sup_finish(a);
    _exit(0);
}

static void test_lost(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    char out[256];

    (void)state;
    assert_int_equal(play_against(play_lost, -1, ends, out, sizeof(out), &log),
                     0);
    assert_int_equal(ends[2].state, SRUN_TASK_LOST);
    assert_int_equal(ends[0].signal, 15);
    assert_int_equal(srun_exit_code(ends, 3), 143);
}

/* Nobody connects and the controller says the launch failed. */
static void test_launch_failed(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    char out[256];
    uint16_t port;
    int lfd = listen_any(&port);

    (void)state;
    assert_int_equal(
        run_loop(lfd, -1, ends, out, sizeof(out), &log, state_ended), -1);
    close(lfd);
    /* The step is ended through the controller (no node to tell). */
    assert_int_equal(log.calls, 1);
    assert_int_equal(log.last_sig, 0);
}

/* A connection with the wrong key is turned away; the real node gets in. */
static void play_intruder(uint16_t port)
{
    static const uint8_t wrong[STEPIO_KEY_LEN] = {9, 9, 9};
    struct sup *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    struct stepio s;
    struct err e;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        stepio_connect_handshake(fd, wrong, JOB, STEP, 0, &s, 5000, &e) == 0)
        _exit(30);
    close(fd);
    sup_connect(a, port, 0);
    sup_connect(b, port, 1);
    sup_send(a, STEPIO_DONE, 0, NULL);
    sup_send(b, STEPIO_DONE, 0, NULL);
    sup_finish(a);
    sup_finish(b);
    _exit(0);
}

static void test_intruder(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    char out[256];

    (void)state;
    assert_int_equal(
        play_against(play_intruder, -1, ends, out, sizeof(out), &log), 0);
    assert_int_equal(srun_exit_code(ends, 3), 0);
}

/* -i 2: srun's stdin goes to task 2 alone (on node02); node01's tasks get
 * the end of their stdin at once. */
static void play_one_input(uint16_t port)
{
    struct sup *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    char got[64] = "";

    sup_connect(a, port, 0);
    sup_connect(b, port, 1);
    sup_expect(a, STEPIO_STDIN_EOF, got, sizeof(got));
    if (got[0] != '\0')
        _exit(40);
    sup_expect(b, STEPIO_STDIN_EOF, got, sizeof(got));
    if (strcmp(got, "for two") != 0)
        _exit(41);
    sup_send(a, STEPIO_DONE, 0, NULL);
    sup_send(b, STEPIO_DONE, 0, NULL);
    sup_finish(a);
    sup_finish(b);
    _exit(0);
}

static void test_one_input(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    char out[256];
    int in = input_pipe("for two");

    (void)state;
    input_task = 2;
    assert_int_equal(
        play_against(play_one_input, in, ends, out, sizeof(out), &log), 0);
    input_task = SRUN_INPUT_ALL;
    close(in);
}

/* The next frame from srun: its type, task and data (NUL-terminated). */
static uint8_t sup_next(struct sup *u, uint32_t *task, char *data, size_t cap)
{
    for (;;) {
        struct stepio_msg m;
        struct err e;
        size_t used;
        int rc = stepio_parse(&u->s, u->in, u->in_len, &m, &used, &e);
        ssize_t k;
        if (rc < 0)
            _exit(21);
        if (rc == 1) {
            uint8_t type = m.type;
            size_t n = m.len < cap - 1 ? m.len : cap - 1;
            memcpy(data, m.data, n);
            data[n] = '\0';
            *task = m.task;
            memmove(u->in, u->in + used, u->in_len - used);
            u->in_len -= used;
            return type;
        }
        k = read(u->fd, u->in + u->in_len, sizeof(u->in) - u->in_len);
        if (k <= 0)
            _exit(22);
        u->in_len += (size_t)k;
    }
}

/* --pty: node01 (task 0's) gets the terminal's size before anything else
 * and again after a SIGWINCH; the terminal is raw meanwhile (what is
 * typed, ^C included, comes as task 0's stdin); SIGINT is forwarded as a
 * signal, the second one too (no "forcing job termination"). */
static void play_pty(uint16_t port)
{
    struct sup *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    struct winsize ws = {.ws_row = 40, .ws_col = 100};
    struct termios t;
    char data[256], typed[16] = "";
    uint32_t task;

    sup_connect(a, port, 0);
    sup_connect(b, port, 1);
    if (sup_next(a, &task, data, sizeof(data)) != STEPIO_WINSIZE || task != 0 ||
        strcmp(data, "30 90") != 0)
        _exit(50);
    if (tcgetattr(tty_fd, &t) < 0 || (t.c_lflag & (ICANON | ECHO | ISIG)))
        _exit(51);
    if (ioctl(tty_master, TIOCSWINSZ, &ws) < 0 ||
        kill(getppid(), SIGWINCH) < 0 ||
        sup_next(a, &task, data, sizeof(data)) != STEPIO_WINSIZE ||
        strcmp(data, "40 100") != 0)
        _exit(52);
    if (write(tty_master, "ab\003", 3) != 3)
        _exit(53);
    while (strlen(typed) < 3) {
        if (sup_next(a, &task, data, sizeof(data)) != STEPIO_STDIN || task != 0)
            _exit(53);
        if (strlen(typed) + strlen(data) >= sizeof(typed))
            _exit(53);
        strcat(typed, data);
    }
    if (strcmp(typed, "ab\003") != 0)
        _exit(54);
    for (int i = 0; i < 2; i++)
        if (kill(getppid(), SIGINT) < 0 ||
            sup_next(a, &task, data, sizeof(data)) != STEPIO_SIGNAL ||
            strcmp(data, "2") != 0)
            _exit(55 + i);
    sup_send(a, STEPIO_STDOUT, 0, "hi\r\n");
    sup_send(a, STEPIO_TASK_EXIT, 0, "7 0");
    sup_send(a, STEPIO_TASK_EXIT, 1, "0 0");
    sup_send(a, STEPIO_OUT_EOF, 0, NULL);
    sup_send(a, STEPIO_OUT_EOF, 1, NULL);
    sup_send(a, STEPIO_DONE, 0, NULL);
    sup_finish(a);
    sup_send(b, STEPIO_TASK_EXIT, 2, "0 0");
    sup_send(b, STEPIO_DONE, 0, NULL);
    sup_finish(b);
    _exit(0);
}

static void test_pty(void **state)
{
    struct srun_task_end ends[3] = {0};
    struct cancel_log log = {0};
    struct winsize ws = {.ws_row = 30, .ws_col = 90};
    struct termios before, after;
    char out[256], name[128];

    (void)state;
    tty_master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(tty_master >= 0);
    assert_int_equal(grantpt(tty_master), 0);
    assert_int_equal(unlockpt(tty_master), 0);
    assert_int_equal(ptsname_r(tty_master, name, sizeof(name)), 0);
    tty_fd = open(name, O_RDWR | O_NOCTTY);
    assert_true(tty_fd >= 0);
    assert_int_equal(ioctl(tty_master, TIOCSWINSZ, &ws), 0);
    assert_int_equal(tcgetattr(tty_fd, &before), 0);
    input_task = 0;
    assert_int_equal(
        play_against(play_pty, tty_fd, ends, out, sizeof(out), &log), 0);
    input_task = SRUN_INPUT_ALL;
    assert_non_null(strstr(out, "hi"));
    assert_int_equal(ends[0].exit_code, 7);
    assert_int_equal(srun_exit_code(ends, 1), 7);
    /* the loop's end put the terminal back */
    assert_false(srun_tty_is_raw());
    assert_int_equal(tcgetattr(tty_fd, &after), 0);
    assert_int_equal(after.c_lflag, before.c_lflag);
    assert_int_equal(after.c_iflag, before.c_iflag);
    assert_int_equal(after.c_oflag, before.c_oflag);
    assert_memory_equal(after.c_cc, before.c_cc, sizeof(after.c_cc));
    close(tty_fd);
    close(tty_master);
    tty_fd = tty_master = -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal),        cmocka_unit_test(test_lost),
        cmocka_unit_test(test_launch_failed), cmocka_unit_test(test_intruder),
        cmocka_unit_test(test_one_input),     cmocka_unit_test(test_pty),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
