/*
 * Job steps on sluiced, against a fake controller and a fake srun: the
 * real binary gets STEP_LAUNCH, its step supervisor connects to the srun
 * side of this test and proves the step's key (stepio), and the tasks'
 * output, exits, execve failures, stdin, signals, kills, time limits,
 * STEP_USAGE and STEP_END are checked on the wire.
 */
#include "noded_harness.h"

#include "common/stepio.h"

static const uint8_t key[STEPIO_KEY_LEN] = {
    1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

/* What srun saw of one node. */
struct seen {
    char out[2][4096], err[2][4096];
    char exit[2][16]; /* TASK_EXIT data per task */
    char msg[1024];   /* MESSAGE lines, '\n' after each */
    size_t out_bytes[2];
    bool done;
};

struct srun {
    int lfd, fd;
    int port;
    struct stepio io;
    uint8_t buf[STEPIO_MAX_DATA + STEPIO_OVERHEAD];
    size_t len;
};

static void srun_listen(struct srun *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    s->lfd = listen_loopback(&s->port);
    assert_true(s->lfd >= 0);
}

static void srun_close(struct srun *s)
{
    if (s->fd >= 0)
        close(s->fd);
    close(s->lfd);
}

/* Accept the supervisor of node 0 of job.step and check its proof. */
static void srun_accept(struct srun *s, uint32_t job, uint32_t step)
{
    uint32_t node_id = 99;
    struct err e;

    assert_true(wait_fd(s->lfd, WAIT_MS));
    s->fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
    assert_true(s->fd >= 0);
    if (stepio_accept_handshake(s->fd, key, job, step, &node_id, &s->io,
                                STEPIO_HANDSHAKE_MS, &e) < 0)
        fail_msg("handshake: %s", e.text);
    assert_int_equal(node_id, 0);
}

static void srun_send(struct srun *s, uint8_t type, uint32_t task,
                      const char *data)
{
    uint8_t out[256 + STEPIO_OVERHEAD];
    size_t n = stepio_frame(&s->io, type, task, data, strlen(data), out);

    assert_int_equal(write(s->fd, out, n), (ssize_t)n);
}

static void note(struct seen *w, const struct stepio_msg *m)
{
    char *dst = NULL;
    size_t cap = 4096;

    if (m->task < 2 && m->type == STEPIO_STDOUT) {
        dst = w->out[m->task];
        w->out_bytes[m->task] += m->len;
    } else if (m->task < 2 && m->type == STEPIO_STDERR)
        dst = w->err[m->task];
    else if (m->task < 2 && m->type == STEPIO_TASK_EXIT) {
        dst = w->exit[m->task];
        cap = sizeof(w->exit[0]);
    } else if (m->type == STEPIO_MESSAGE) {
        dst = w->msg;
        cap = sizeof(w->msg);
    } else if (m->type == STEPIO_DONE)
        w->done = true;
    if (dst != NULL && strlen(dst) + m->len + 2 < cap) {
        strncat(dst, (const char *)m->data, m->len);
        if (m->type == STEPIO_MESSAGE)
            strcat(dst, "\n");
    }
}

/* Read frames until DONE (or until stop_on_msg and a MESSAGE came). */
static void srun_collect(struct srun *s, struct seen *w, bool stop_on_msg)
{
    struct stepio_msg m;
    struct err e;
    size_t used;
    ssize_t n;
    int rc;

    while (!w->done && !(stop_on_msg && w->msg[0] != '\0')) {
        while ((rc = stepio_parse(&s->io, s->buf, s->len, &m, &used, &e)) ==
               1) {
            note(w, &m);
            memmove(s->buf, s->buf + used, s->len - used);
            s->len -= used;
            if (w->done || (stop_on_msg && w->msg[0] != '\0'))
                return;
        }
        if (rc < 0)
            fail_msg("frame from the supervisor: %s", e.text);
        if (!wait_fd(s->fd, WAIT_MS))
            fail_msg("nothing from the supervisor within %d ms", WAIT_MS);
        n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
        if (n <= 0)
            fail_msg("the supervisor closed before DONE");
        s->len += (size_t)n;
    }
}

static json_t *step_body(uint32_t job, uint32_t step, int port, json_t *argv,
                         int ntasks)
{
    json_t *tasks = json_array();

    for (int i = 0; i < ntasks; i++)
        json_array_append_new(tasks, json_integer(i));
    return json_pack(
        "{s:{s:i, s:i, s:s, s:i, s:i, s:s, s:s, s:o, s:[s, s], s:s, s:i,"
        " s:s, s:i, s:i, s:o, s:s, s:i, s:i, s:i, s:i, s:s, s:i, s:s,"
        " s:s, s:i}}",
        "step", "job_id", (int)job, "step_id", (int)step, "name", "t",
        "user_id", 0, "group_id", 0, "user_name", "root", "partition", "dev",
        "argv", argv, "env", "PATH=/usr/bin:/bin", "FOO=bar", "cwd", T.work,
        "node_id", 0, "node_list", "node01", "num_nodes", 1, "ntasks", ntasks,
        "tasks", tasks, "tasks_per_node", ntasks == 2 ? "2" : "1",
        "cpus_per_task", 1, "cpus", ntasks, "time_limit_s", -1, "kill_wait_s",
        2, "srun_host", "127.0.0.1", "srun_port", port, "key",
        "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
        "job_node_list", "node01", "job_cpus", 4);
}

/* Send STEP_LAUNCH (no wait: its supervisor needs srun first). */
static uint32_t launch_step(json_t *body)
{
    uint32_t seq = ++T.seq;

    send_frame(PROTO_MSG_STEP_LAUNCH, 0, seq, body);
    return seq;
}

static int launch_reply(uint32_t seq, char *msg, size_t len)
{
    struct proto_frame r;
    const char *m = "";
    int code = 0;

    expect(PROTO_MSG_STEP_LAUNCH, true, &r);
    assert_int_equal(r.seq, seq);
    if (r.flags & PROTO_F_ERROR)
        assert_int_equal(proto_error_parse(r.body, &code, &m), 0);
    snprintf(msg, len, "%s", m);
    proto_frame_clear(&r);
    return code;
}

/* Launch the step of body, srun s accepting its supervisor: the launch
 * must succeed. */
static void start_step(struct srun *s, json_t *body)
{
    json_t *o = json_object_get(body, "step");
    uint32_t job = (uint32_t)json_integer_value(json_object_get(o, "job_id"));
    uint32_t step = (uint32_t)json_integer_value(json_object_get(o, "step_id"));
    uint32_t seq = launch_step(body);
    char msg[300];

    srun_accept(s, job, step);
    if (launch_reply(seq, msg, sizeof(msg)) != 0)
        fail_msg("STEP_LAUNCH %u.%u: %s", (unsigned)job, (unsigned)step, msg);
}

/* The STEP_END of job.step, acknowledged; its body (caller decrefs). */
static json_t *expect_step_end(uint32_t job, uint32_t step)
{
    struct proto_frame f;
    json_t *body;

    expect(PROTO_MSG_STEP_END, false, &f);
    assert_int_equal(json_integer_value(json_object_get(f.body, "job_id")),
                     job);
    assert_int_equal(json_integer_value(json_object_get(f.body, "step_id")),
                     step);
    assert_string_equal(json_string_value(json_object_get(f.body, "node")),
                        "node01");
    body = json_incref(f.body);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
    return body;
}

static int group_start(void **state)
{
    if (group_setup(state) < 0)
        return -1;
    start_sluiced();
    accept_sluiced();
    json_decref(register_node(NULL));
    return 0;
}

static char *step_dir(uint32_t job, uint32_t step)
{
    static char path[400];

    snprintf(path, sizeof(path), "%s/step.%u.%u", T.spool, (unsigned)job,
             (unsigned)step);
    return path;
}

static void wait_gone(const char *path)
{
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path));
}

static void test_step_runs(void **state)
{
    struct srun s;
    struct seen w = {0};
    json_t *end, *t0;

    (void)state;
    srun_listen(&s);
    start_step(
        &s, step_body(
                21, 0, s.port,
                json_pack(
                    "[s, s, s]", "/bin/sh", "-c",
                    "echo out $SLURM_PROCID $SLURM_STEP_ID $FOO $SLURM_NTASKS;"
                    " echo err$SLURM_LOCALID >&2; exit $((3 + SLURM_PROCID))"),
                2));
    srun_collect(&s, &w, false);
    assert_string_equal(w.out[0], "out 0 0 bar 2\n");
    assert_string_equal(w.out[1], "out 1 0 bar 2\n");
    assert_string_equal(w.err[1], "err1\n");
    assert_string_equal(w.exit[0], "3 0");
    assert_string_equal(w.exit[1], "4 0");
    end = expect_step_end(21, 0);
    assert_int_equal(json_integer_value(json_object_get(end, "exit_code")), 4);
    assert_int_equal(json_integer_value(json_object_get(end, "signal")), 0);
    assert_int_equal(json_integer_value(json_object_get(end, "node_id")), 0);
    t0 = json_array_get(json_object_get(end, "tasks"), 1);
    assert_int_equal(json_integer_value(json_object_get(t0, "task")), 1);
    assert_int_equal(json_integer_value(json_object_get(t0, "exit_code")), 4);
    assert_int_equal(json_array_size(json_object_get(
                         json_object_get(end, "usage"), "tasks")),
                     2);
    json_decref(end);
    wait_gone(step_dir(21, 0));
    srun_close(&s);
}

/* The tasks run as the step's user (here nobody, when root runs this). */
static void test_user(void **state)
{
    struct srun s;
    struct seen w = {0};
    json_t *body, *o;

    (void)state;
    if (geteuid() != 0)
        skip();
    srun_listen(&s);
    body = step_body(29, 0, s.port,
                     json_pack("[s, s, s]", "/bin/sh", "-c",
                               "echo $(id -u):$(id -g) $(umask)"),
                     1);
    o = json_object_get(body, "step");
    json_object_set_new(o, "user_id", json_integer(65534));
    json_object_set_new(o, "group_id", json_integer(65534));
    json_object_set_new(o, "user_name", json_string("nobody"));
    json_object_set_new(
        o, "env",
        json_pack("[s, s]", "PATH=/usr/bin:/bin", "SLURM_UMASK=0027"));
    start_step(&s, body);
    srun_collect(&s, &w, false);
    assert_string_equal(w.out[0], "65534:65534 0027\n");
    json_decref(expect_step_end(29, 0));
    srun_close(&s);
}

static void test_exec_failure(void **state)
{
    struct srun s;
    struct seen w = {0};

    (void)state;
    srun_listen(&s);
    start_step(
        &s, step_body(22, 0, s.port, json_pack("[s]", "no-such-program-x"), 1));
    srun_collect(&s, &w, false);
    assert_string_equal(
        w.msg,
        "error: execve(): no-such-program-x: No such file or directory\n");
    assert_string_equal(w.exit[0], "2 0"); /* Slurm's: errno */
    json_decref(expect_step_end(22, 0));
    srun_close(&s);
}

static void test_stdin_and_signal(void **state)
{
    struct srun s;
    struct seen w = {0};

    (void)state;
    srun_listen(&s);
    start_step(
        &s, step_body(
                23, 0, s.port,
                json_pack(
                    "[s, s, s]", "/bin/sh", "-c",
                    "trap 'echo got USR1; exit 7' USR1; read x; echo \"[$x]\";"
                    " while :; do sleep 0.05; done"),
                1));
    srun_send(&s, STEPIO_STDIN, STEPIO_ALL_TASKS, "hello\n");
    srun_send(&s, STEPIO_STDIN_EOF, STEPIO_ALL_TASKS, "");
    usleep(300000);
    srun_send(&s, STEPIO_SIGNAL, STEPIO_ALL_TASKS, "10");
    srun_collect(&s, &w, false);
    assert_string_equal(w.out[0], "[hello]\ngot USR1\n");
    assert_string_equal(w.exit[0], "7 0");
    json_decref(expect_step_end(23, 0));
    srun_close(&s);
}

static void test_time_limit(void **state)
{
    struct srun s;
    struct seen w = {0};
    json_t *body, *end;

    (void)state;
    srun_listen(&s);
    body = step_body(24, 2, s.port, json_pack("[s, s]", "sleep", "60"), 1);
    json_object_set_new(json_object_get(body, "step"), "time_limit_s",
                        json_integer(1));
    start_step(&s, body);
    srun_collect(&s, &w, false);
    assert_non_null(strstr(w.msg, "*** STEP 24.2 ON node01 CANCELLED AT "));
    assert_non_null(strstr(w.msg, " DUE TO TIME LIMIT ***"));
    assert_string_equal(w.exit[0], "0 15");
    end = expect_step_end(24, 2);
    assert_string_equal(json_string_value(json_object_get(end, "reason")),
                        "timeout");
    assert_int_equal(json_integer_value(json_object_get(end, "signal")), 15);
    json_decref(end);
    srun_close(&s);
}

static void test_kill_and_usage(void **state)
{
    struct srun s;
    struct seen w = {0};
    struct proto_frame f;
    char msg[300];
    json_t *end, *u;

    (void)state;
    srun_listen(&s);
    start_step(&s,
               step_body(25, 0, s.port, json_pack("[s, s]", "sleep", "60"), 1));
    /* sampled every JobAcctGatherFrequency=1 s */
    expect(PROTO_MSG_STEP_USAGE, false, &f);
    assert_string_equal(json_string_value(json_object_get(f.body, "node")),
                        "node01");
    u = json_array_get(json_object_get(f.body, "steps"), 0);
    assert_int_equal(json_integer_value(json_object_get(u, "job_id")), 25);
    assert_true(
        json_integer_value(json_object_get(
            json_array_get(
                json_object_get(json_object_get(u, "usage"), "tasks"), 0),
            "rss_kib")) > 0);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
    /* the signal of an unknown step, then the kill of this one */
    assert_int_equal(call(PROTO_MSG_STEP_SIGNAL,
                          json_pack("{s:i, s:i, s:i}", "job_id", 25, "step_id",
                                    9, "signal", 10),
                          msg, sizeof(msg)),
                     ESRCH);
    assert_int_equal(call(PROTO_MSG_JOB_KILL,
                          json_pack("{s:i, s:s, s:i}", "job_id", 25, "reason",
                                    "cancelled", "kill_wait_s", 1),
                          msg, sizeof(msg)),
                     0);
    srun_collect(&s, &w, false);
    assert_non_null(strstr(w.msg, "*** STEP 25.0 ON node01 CANCELLED AT "));
    assert_null(strstr(w.msg, "DUE TO"));
    end = expect_step_end(25, 0);
    assert_string_equal(json_string_value(json_object_get(end, "reason")),
                        "cancelled");
    json_decref(end);
    /* killing it again, or a step never here: {} */
    assert_int_equal(call(PROTO_MSG_STEP_KILL,
                          json_pack("{s:i, s:i, s:s}", "job_id", 25, "step_id",
                                    0, "reason", "cancelled"),
                          msg, sizeof(msg)),
                     0);
    srun_close(&s);
}

/* Read what the supervisor sends for ms milliseconds. */
static void srun_drain(struct srun *s, struct seen *w, int ms)
{
    struct stepio_msg m;
    struct err e;
    size_t used;
    ssize_t n;

    for (int left = ms; left > 0; left -= 20) {
        while (stepio_parse(&s->io, s->buf, s->len, &m, &used, &e) == 1) {
            note(w, &m);
            memmove(s->buf, s->buf + used, s->len - used);
            s->len -= used;
        }
        if (!wait_fd(s->fd, 20))
            continue;
        n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
        assert_true(n > 0);
        s->len += (size_t)n;
    }
}

/* JOB_FREEZE on a node with the job's step but not its batch script: {},
 * and the step's task stops printing until the resume. */
static void test_freeze(void **state)
{
    struct srun s;
    struct seen w = {0};
    char msg[300];
    size_t frozen;

    (void)state;
    srun_listen(&s);
    start_step(&s, step_body(31, 0, s.port,
                             json_pack("[s, s, s]", "/bin/sh", "-c",
                                       "i=0; while :; do echo $i;"
                                       " i=$((i+1)); sleep 0.05; done"),
                             1));
    srun_drain(&s, &w, 300);
    assert_true(w.out_bytes[0] > 0);
    assert_int_equal(call(PROTO_MSG_JOB_FREEZE,
                          json_pack("{s:i, s:b}", "job_id", 31, "freeze", 1),
                          msg, sizeof(msg)),
                     0);
    srun_drain(&s, &w, 200); /* what was on its way */
    frozen = w.out_bytes[0];
    srun_drain(&s, &w, 600);
    assert_int_equal(w.out_bytes[0], frozen);
    assert_int_equal(call(PROTO_MSG_JOB_FREEZE,
                          json_pack("{s:i, s:b}", "job_id", 31, "freeze", 0),
                          msg, sizeof(msg)),
                     0);
    srun_drain(&s, &w, 400);
    assert_true(w.out_bytes[0] > frozen);
    /* a job with neither its batch script nor a step here: ESRCH */
    assert_int_equal(call(PROTO_MSG_JOB_FREEZE,
                          json_pack("{s:i, s:b}", "job_id", 32, "freeze", 1),
                          msg, sizeof(msg)),
                     ESRCH);
    /* suspended again, it still dies with the job */
    assert_int_equal(call(PROTO_MSG_JOB_FREEZE,
                          json_pack("{s:i, s:b}", "job_id", 31, "freeze", 1),
                          msg, sizeof(msg)),
                     0);
    assert_int_equal(call(PROTO_MSG_JOB_KILL,
                          json_pack("{s:i, s:s, s:i}", "job_id", 31, "reason",
                                    "cancelled", "kill_wait_s", 1),
                          msg, sizeof(msg)),
                     0);
    srun_collect(&s, &w, false);
    json_decref(expect_step_end(31, 0));
    srun_close(&s);
}

/* A task that floods its stdout (more than the supervisor queues) gets
 * all of it through, and the other task's output and exit come too. */
static void test_flood(void **state)
{
    struct srun s;
    struct seen w = {0};

    (void)state;
    srun_listen(&s);
    start_step(&s, step_body(28, 0, s.port,
                             json_pack("[s, s, s]", "/bin/sh", "-c",
                                       "if [ $SLURM_PROCID = 0 ]; then "
                                       "head -c 20000000 /dev/zero; "
                                       "else echo small; fi"),
                             2));
    srun_collect(&s, &w, false);
    assert_int_equal(w.out_bytes[0], 20000000);
    assert_string_equal(w.out[1], "small\n");
    assert_string_equal(w.exit[0], "0 0");
    assert_string_equal(w.exit[1], "0 0");
    json_decref(expect_step_end(28, 0));
    srun_close(&s);
}

/* A step outlives a kill -9 of sluiced; the next one adopts it from the
 * spool and reports its end. */
static void test_restart_adopts(void **state)
{
    struct srun s;
    struct seen w = {0};
    json_t *end, *reg;

    (void)state;
    srun_listen(&s);
    start_step(&s, step_body(27, 3, s.port,
                             json_pack("[s, s, s]", "/bin/sh", "-c",
                                       "sleep 1.5; echo survived"),
                             1));
    stop_sluiced(SIGKILL);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    json_decref(reg);
    srun_collect(&s, &w, false);
    assert_string_equal(w.out[0], "survived\n");
    assert_string_equal(w.exit[0], "0 0");
    end = expect_step_end(27, 3);
    assert_int_equal(json_integer_value(json_object_get(end, "exit_code")), 0);
    json_decref(end);
    wait_gone(step_dir(27, 3));
    assert_true(strstr(slurp(T.log), "step=27.3 adopted state=running") !=
                NULL);
    srun_close(&s);
}

/* The batch script is the batch step: sampled for STEP_USAGE while it
 * runs, its wait4 usage in JOB_END. */
static void test_batch_usage(void **state)
{
    struct proto_frame f;
    char msg[300];
    json_t *u = NULL, *end, *task;
    size_t i;

    (void)state;
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(30, "#!/bin/sh\nsleep 2.5\n"), msg,
                          sizeof(msg)),
                     0);
    for (int tries = 0; u == NULL && tries < 5; tries++) {
        json_t *v;
        expect(PROTO_MSG_STEP_USAGE, false, &f);
        json_array_foreach(json_object_get(f.body, "steps"), i, v)
        {
            if (json_integer_value(json_object_get(v, "job_id")) == 30 &&
                json_integer_value(json_object_get(v, "step_id")) ==
                    4294967291LL)
                u = json_incref(v);
        }
        send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
        proto_frame_clear(&f);
    }
    assert_non_null(u);
    task = json_array_get(json_object_get(json_object_get(u, "usage"), "tasks"),
                          0);
    assert_int_equal(json_integer_value(json_object_get(task, "task")), 0);
    assert_true(json_integer_value(json_object_get(task, "rss_kib")) > 0);
    json_decref(u);
    end = expect_end_body(30);
    task = json_array_get(
        json_object_get(json_object_get(end, "usage"), "tasks"), 0);
    assert_true(json_integer_value(json_object_get(task, "rss_kib")) > 0);
    json_decref(end);
}

static void test_srun_unreachable(void **state)
{
    struct srun s;
    char msg[300], want[100];
    uint32_t seq;
    int port;

    (void)state;
    srun_listen(&s);
    port = s.port;
    srun_close(&s); /* nobody listens there now */
    seq = launch_step(step_body(26, 0, port, json_pack("[s]", "/bin/true"), 1));
    assert_int_equal(launch_reply(seq, msg, sizeof(msg)), ECONNREFUSED);
    snprintf(want, sizeof(want), "cannot reach srun at 127.0.0.1:%d: ", port);
    assert_non_null(strstr(msg, want));
    assert_false(exists(step_dir(26, 0)));
    /* a bad step object: the member is named */
    assert_int_equal(call(PROTO_MSG_STEP_LAUNCH,
                          json_pack("{s:{s:i}}", "step", "job_id", 26), msg,
                          sizeof(msg)),
                     EINVAL);
    assert_non_null(strstr(msg, "STEP_LAUNCH: step_id: expected"));
}

/* ---- srun --pty: task 0 on a pseudo-terminal ---- */

/* Read what comes until task 0's output holds text. */
static void srun_until(struct srun *s, struct seen *w, const char *text)
{
    for (int i = 0; i < WAIT_MS / 50 && strstr(w->out[0], text) == NULL; i++)
        srun_drain(s, w, 50);
    assert_non_null(strstr(w->out[0], text));
}

/* Launch body's step with "pty": true; srun sends the terminal's size
 * first, as the real one does as soon as the supervisor is there. */
static void start_pty_step(struct srun *s, json_t *body, const char *size)
{
    json_t *o = json_object_get(body, "step");
    uint32_t job = (uint32_t)json_integer_value(json_object_get(o, "job_id"));
    uint32_t seq;
    char msg[300];

    json_object_set_new(o, "pty", json_true());
    seq = launch_step(body);
    srun_accept(s, job, 0);
    srun_send(s, STEPIO_WINSIZE, 0, size);
    if (launch_reply(seq, msg, sizeof(msg)) != 0)
        fail_msg("STEP_LAUNCH %u.0: %s", (unsigned)job, msg);
}

/* Task 0 has a terminal of the size srun sent, and follows a later size;
 * a bad WINSIZE is reported, not fatal; task 1's output goes nowhere;
 * task 0's exit code comes back. */
static void test_pty_terminal(void **state)
{
    struct srun s;
    struct seen w = {0};

    (void)state;
    srun_listen(&s);
    start_pty_step(
        &s,
        step_body(40, 0, s.port,
                  json_pack("[s, s, s]", "/bin/sh", "-c",
                            "if [ $SLURM_PROCID != 0 ]; then echo task1; "
                            "exit 0; fi; tty; [ -t 0 ] && echo in-is-tty; "
                            "stty size; read x; stty size; exit 7"),
                  2),
        "30 100");
    srun_until(&s, &w, "30 100\r\n");
    srun_send(&s, STEPIO_WINSIZE, 0, "40 x");
    srun_send(&s, STEPIO_WINSIZE, 0, "41 120");
    srun_send(&s, STEPIO_STDIN, 0, "go\n");
    srun_collect(&s, &w, false);
    assert_true(strncmp(w.out[0], "/dev/pts/", 9) == 0);
    assert_non_null(strstr(w.out[0], "\r\nin-is-tty\r\n30 100\r\n"));
    assert_non_null(strstr(w.out[0], "go\r\n41 120\r\n"));
    assert_string_equal(w.out[1], "");
    assert_string_equal(w.exit[0], "7 0");
    assert_string_equal(w.exit[1], "0 0");
    assert_non_null(strstr(w.msg, "error: node01: a WINSIZE frame that is "
                                  "not \"ROWS COLS\""));
    json_decref(expect_step_end(40, 0));
    wait_gone(step_dir(40, 0));
    srun_close(&s);
}

/* Everything task 0 wrote before it exited reaches srun (the master is
 * read to its EIO), before the task's exit. */
static void test_pty_drain(void **state)
{
    struct srun s;
    struct seen w = {0};

    (void)state;
    srun_listen(&s);
    start_pty_step(&s,
                   step_body(41, 0, s.port,
                             json_pack("[s, s, s]", "/bin/sh", "-c",
                                       "i=0; while [ $i -lt 2000 ]; do "
                                       "echo line$i; i=$((i+1)); done; exit 3"),
                             1),
                   "24 80");
    srun_collect(&s, &w, false);
    /* "lineN\r\n" for N = 0..1999 */
    assert_int_equal(w.out_bytes[0], 10 * 7 + 90 * 8 + 900 * 9 + 1000 * 10);
    assert_string_equal(w.exit[0], "3 0");
    json_decref(expect_step_end(41, 0));
    srun_close(&s);
}

/* ^C typed is a byte that the terminal turns into SIGINT for the task's
 * foreground group; STDIN_EOF is the terminal's ^D; STEPIO_SIGNAL still
 * reaches the task. */
static void test_pty_keys(void **state)
{
    struct srun s;
    struct seen w = {0}, v = {0};

    (void)state;
    srun_listen(&s);
    start_pty_step(&s,
                   step_body(42, 0, s.port,
                             json_pack("[s, s, s]", "/bin/sh", "-c",
                                       "trap 'echo got-int; exit 6' INT; "
                                       "echo ready; "
                                       "while :; do sleep 0.05; done"),
                             1),
                   "24 80");
    srun_until(&s, &w, "ready");
    srun_send(&s, STEPIO_STDIN, 0, "\003");
    srun_collect(&s, &w, false);
    assert_non_null(strstr(w.out[0], "got-int"));
    assert_string_equal(w.exit[0], "6 0");
    json_decref(expect_step_end(42, 0));
    srun_close(&s);

    srun_listen(&s);
    start_pty_step(
        &s,
        step_body(43, 0, s.port,
                  json_pack("[s, s, s]", "/bin/sh", "-c",
                            "cat; echo after-eof; "
                            "trap 'echo got-usr1; exit 5' USR1; "
                            "echo ready; while :; do sleep 0.05; done"),
                  1),
        "24 80");
    srun_send(&s, STEPIO_STDIN, 0, "abc\n");
    srun_send(&s, STEPIO_STDIN_EOF, 0, "");
    srun_until(&s, &v, "ready");
    assert_non_null(strstr(v.out[0], "abc\r\nabc\r\nafter-eof"));
    srun_send(&s, STEPIO_SIGNAL, STEPIO_ALL_TASKS, "10");
    srun_collect(&s, &v, false);
    assert_non_null(strstr(v.out[0], "got-usr1"));
    assert_string_equal(v.exit[0], "5 0");
    json_decref(expect_step_end(43, 0));
    srun_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_runs),
        cmocka_unit_test(test_user),
        cmocka_unit_test(test_exec_failure),
        cmocka_unit_test(test_stdin_and_signal),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_kill_and_usage),
        cmocka_unit_test(test_freeze),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_restart_adopts),
        cmocka_unit_test(test_batch_usage),
        cmocka_unit_test(test_srun_unreachable),
        cmocka_unit_test(test_pty_terminal),
        cmocka_unit_test(test_pty_drain),
        cmocka_unit_test(test_pty_keys),
    };

    return cmocka_run_group_tests(tests, group_start, group_teardown);
}
