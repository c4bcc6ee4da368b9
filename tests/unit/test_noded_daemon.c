/*
 * sluiced against a small fake controller written with the proto helpers:
 * the real binary is started on a private spool and key, registers, runs
 * jobs through its supervisors (output files, environment, exit codes),
 * refuses launches it cannot honour, signals and kills, and survives a
 * kill -9 of itself with its jobs still reported, even in mid-launch.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/buffer.h>

#include "common/proto.h"
#include "noded/spool.h"

#define WAIT_MS 15000
#define STASH_MAX 16

static struct {
    char dir[64];
    char conf[256];
    char key[256];
    char spool[256];
    char work[256];
    char log[256];
    int lfd, cfd;
    pid_t pid;
    struct auth *auth;
    struct evbuffer *in;
    uint32_t seq;
    struct proto_frame stash[STASH_MAX];
    size_t n_stash;
    int heartbeats;
    bool devices; /* gres.conf names character devices, fenced */
    pid_t helper; /* test_launch_cut_short's fake supervisor */
} T = {.lfd = -1, .cfd = -1};

static void writef(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void writef(const char *path, const char *fmt, ...)
{
    FILE *fp = fopen(path, "w");
    va_list ap;

    assert_non_null(fp);
    va_start(ap, fmt);
    vfprintf(fp, fmt, ap);
    va_end(ap);
    fclose(fp);
}

/* The whole file at path, or NULL. */
static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *fp = fopen(path, "r");
    size_t n;

    if (fp == NULL)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static int listen_loopback(int *port)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
        listen(fd, 4) < 0 || getsockname(fd, (struct sockaddr *)&sin, &len) < 0)
        return -1;
    *port = ntohs(sin.sin_port);
    return fd;
}

static int group_setup(void **state)
{
    struct err e;
    char path[300];
    int port;

    (void)state;
    snprintf(T.dir, sizeof(T.dir), "/tmp/sluice-test-noded.XXXXXX");
    if (mkdtemp(T.dir) == NULL || chmod(T.dir, 0755) < 0)
        return -1;
    snprintf(T.conf, sizeof(T.conf), "%s/sluice.conf", T.dir);
    snprintf(T.key, sizeof(T.key), "%s/sluice.key", T.dir);
    snprintf(T.spool, sizeof(T.spool), "%s/spool/node01", T.dir);
    snprintf(T.work, sizeof(T.work), "%s/work", T.dir);
    snprintf(T.log, sizeof(T.log), "%s/sluiced.log", T.dir);
    if (mkdir(T.work, 0755) < 0 || auth_keygen(T.key, &e) < 0)
        return -1;
    if ((T.lfd = listen_loopback(&port)) < 0)
        return -1;
    writef(T.conf,
           "ClusterName=test\nSlurmctldHost=localhost(127.0.0.1)\n"
           "SlurmctldPort=%d\nAuthType=auth/key\nAuthInfo=%s\n"
           "SlurmdSpoolDir=%s/spool/%%n\nSlurmdParameters=config_overrides\n"
           "KillWait=2\nGresTypes=gpu\n"
           "NodeName=node01 CPUs=16 RealMemory=64000 Gres=gpu:4\n"
           "PartitionName=dev Nodes=node01 Default=YES\n",
           port, T.key, T.dir);
    /* GPUs as device files (195:240-243, no driver behind them) where
     * mknod works, so that ConstrainDevices has something to fence */
    snprintf(path, sizeof(path), "%s/dev", T.dir);
    T.devices = mkdir(path, 0755) == 0;
    for (int i = 0; T.devices && i < 4; i++) {
        snprintf(path, sizeof(path), "%s/dev/nvidia%d", T.dir, i);
        T.devices = mknod(path, S_IFCHR | 0666, makedev(195, 240 + i)) == 0;
    }
    snprintf(path, sizeof(path), "%s/gres.conf", T.dir);
    if (T.devices)
        writef(path, "NodeName=node01 Name=gpu File=%s/dev/nvidia[0-3]\n",
               T.dir);
    else
        writef(path, "NodeName=node01 Name=gpu Count=4\n");
    snprintf(path, sizeof(path), "%s/cgroup.conf", T.dir);
    writef(path, "ConstrainDevices=yes\n");
    T.auth = auth_create(AUTH_KEY, T.key, &e);
    if (T.auth != NULL) /* this test plays the controller */
        auth_set_tags(T.auth, AUTH_TAG_CTLD, AUTH_TAG_NODE_PREFIX "node01");
    T.in = evbuffer_new();
    return T.auth ? 0 : -1;
}

static void stop_sluiced(int sig)
{
    if (T.pid > 0) {
        kill(T.pid, sig);
        waitpid(T.pid, NULL, 0);
    }
    T.pid = 0;
    if (T.cfd >= 0)
        close(T.cfd);
    T.cfd = -1;
    evbuffer_drain(T.in, evbuffer_get_length(T.in));
    for (size_t i = 0; i < T.n_stash; i++)
        proto_frame_clear(&T.stash[i]);
    T.n_stash = 0;
}

static int group_teardown(void **state)
{
    char cmd[400];

    (void)state;
    stop_sluiced(SIGTERM);
    if (T.helper > 0) {
        kill(T.helper, SIGKILL);
        waitpid(T.helper, NULL, 0);
    }
    /* supervisors of jobs a failed test left behind */
    snprintf(cmd, sizeof(cmd),
             "for f in %s/job.*/pgid; do [ -f \"$f\" ] && kill -9 -$(cat $f) "
             "2>/dev/null; done; true",
             T.spool);
    (void)!system(cmd);
    if (getenv("KEEP") == NULL) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T.dir);
        (void)!system(cmd);
    }
    auth_destroy(T.auth);
    evbuffer_free(T.in);
    close(T.lfd);
    return 0;
}

static void start_sluiced(void)
{
    const char *build = getenv("SLUICE_BUILD");
    char bin[512];
    pid_t pid;

    snprintf(bin, sizeof(bin), "%s/bin/sluiced", build ? build : "build");
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(T.lfd);
        execl(bin, "sluiced", "-f", T.conf, "-N", "node01", "-D", "-L", T.log,
              "-v", (char *)NULL);
        _exit(127);
    }
    T.pid = pid;
}

static bool wait_fd(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return poll(&p, 1, timeout_ms) == 1;
}

static void accept_sluiced(void)
{
    assert_true(wait_fd(T.lfd, WAIT_MS));
    T.cfd = accept4(T.lfd, NULL, NULL, SOCK_CLOEXEC);
    assert_true(T.cfd >= 0);
}

static void send_frame(uint16_t type, uint8_t flags, uint32_t seq, json_t *body)
{
    struct evbuffer *out = evbuffer_new();
    struct err e;

    if (proto_encode_signed(T.auth, type, flags, seq, body, out, &e) < 0)
        fail_msg("encode: %s", e.text);
    while (evbuffer_get_length(out) > 0)
        assert_true(evbuffer_write(out, T.cfd) > 0);
    evbuffer_free(out);
    json_decref(body);
}

/* The next frame off the wire; false when the connection closed. */
static bool read_frame(struct proto_frame *f, int timeout_ms)
{
    struct err e;
    int rc;

    memset(f, 0, sizeof(*f));
    for (;;) {
        rc = proto_decode(T.in, T.auth, f, &e);
        if (rc == 1)
            return true;
        if (rc < 0)
            fail_msg("bad frame from sluiced: %s", e.text);
        if (!wait_fd(T.cfd, timeout_ms))
            fail_msg("no frame from sluiced within %d ms", timeout_ms);
        if (evbuffer_read(T.in, T.cfd, 65536) <= 0)
            return false;
    }
}

/* The next frame of type (and REPLY flag as given), answering heartbeats
 * and keeping other frames for later. */
static void expect(uint16_t type, bool reply, struct proto_frame *out)
{
    for (size_t i = 0; i < T.n_stash; i++) {
        struct proto_frame *s = &T.stash[i];
        if (s->type == type && !!(s->flags & PROTO_F_REPLY) == reply) {
            *out = *s;
            memmove(s, s + 1, (T.n_stash - i - 1) * sizeof(*s));
            T.n_stash--;
            return;
        }
    }
    for (;;) {
        struct proto_frame f;
        if (!read_frame(&f, WAIT_MS))
            fail_msg("sluiced closed the connection waiting for type %u", type);
        assert_true(f.verified);
        if (f.type == type && !!(f.flags & PROTO_F_REPLY) == reply) {
            *out = f;
            return;
        }
        if (f.type == PROTO_MSG_NODE_HEARTBEAT && !(f.flags & PROTO_F_REPLY)) {
            T.heartbeats++;
            send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
            proto_frame_clear(&f);
            continue;
        }
        assert_true(T.n_stash < STASH_MAX);
        T.stash[T.n_stash++] = f;
    }
}

/* Send a request, wait for its reply; the reply's error code (0: ok). */
static int call(uint16_t type, json_t *body, char *msg, size_t len)
{
    struct proto_frame r;
    uint32_t seq = ++T.seq;
    const char *m = "";
    int code = 0;

    send_frame(type, 0, seq, body);
    expect(type, true, &r);
    assert_int_equal(r.seq, seq);
    if (r.flags & PROTO_F_ERROR)
        assert_int_equal(proto_error_parse(r.body, &code, &m), 0);
    if (msg != NULL)
        snprintf(msg, len, "%s", m);
    proto_frame_clear(&r);
    return code;
}

/* Take the registration; answer it.  Returns its body (caller decrefs). */
static json_t *register_node(json_t *kill_jobs)
{
    struct proto_frame f;
    json_t *body;

    expect(PROTO_MSG_NODE_REGISTER, false, &f);
    body = json_incref(f.body);
    send_frame(f.type, PROTO_F_REPLY, f.seq,
               json_pack("{s:b, s:i, s:o}", "accepted", 1, "heartbeat_s", 1,
                         "kill_jobs", kill_jobs ? kill_jobs : json_array()));
    proto_frame_clear(&f);
    return body;
}

/* Wait for the JOB_END of id and acknowledge it. */
static void expect_end(uint32_t id, int exit_code, int sig)
{
    struct proto_frame f;
    json_int_t jid, code, s, start, end;
    const char *node;

    expect(PROTO_MSG_JOB_END, false, &f);
    assert_int_equal(json_unpack(f.body, "{s:I, s:s, s:I, s:I, s:I, s:I}",
                                 "job_id", &jid, "node", &node, "exit_code",
                                 &code, "signal", &s, "start_time", &start,
                                 "end_time", &end),
                     0);
    assert_int_equal(jid, id);
    assert_string_equal(node, "node01");
    assert_int_equal(code, exit_code);
    assert_int_equal(s, sig);
    assert_true(start > 0 && end >= start);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
}

/* Wait for the JOB_END of id, acknowledge it, return its body (caller
 * decrefs). */
static json_t *expect_end_body(uint32_t id)
{
    struct proto_frame f;
    json_t *body;

    expect(PROTO_MSG_JOB_END, false, &f);
    assert_int_equal(json_integer_value(json_object_get(f.body, "job_id")), id);
    body = json_incref(f.body);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
    return body;
}

/* The node's log says its jobs are in cgroups (with what). */
static bool log_has(const char *what)
{
    const char *log = slurp(T.log), *line;

    line = log ? strstr(log, "cgroup=") : NULL;
    return line != NULL && strncmp(line, "cgroup=none", 11) != 0 &&
           strstr(line, what) != NULL;
}

static json_t *launch_body(uint32_t id, const char *script)
{
    return json_pack(
        "{s:{s:i, s:s, s:i, s:i, s:s, s:s, s:s, s:[s, s], s:s, s:s, s:n,"
        " s:{s:s, s:s}, s:i, s:i, s:s, s:i}}",
        "job", "job_id", (int)id, "name", "t1", "user_id", 0, "group_id", 0,
        "user_name", "root", "partition", "dev", "script", script, "argv",
        "job.sh", "arg1", "work_dir", T.work, "std_out", "out-%j-%x.txt",
        "std_err", "environment", "FOO", "bar", "SLURM_JOB_ID", "999", "cpus",
        4, "mem_mib", 1024, "node_list", "node01", "time_limit_s", 600);
}

static bool exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* Wait until path exists (true) or ms passed. */
static bool wait_path(const char *path, int ms)
{
    for (int i = 0; i < ms / 20; i++) {
        if (exists(path))
            return true;
        usleep(20000);
    }
    return exists(path);
}

static void test_register(void **state)
{
    json_t *reg, *jobs, *gpus;
    json_int_t cpus, mem;
    const char *node, *gres, *version;

    (void)state;
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    assert_int_equal(json_unpack(reg, "{s:s, s:I, s:I, s:s, s:o, s:o, s:s}",
                                 "node", &node, "cpus", &cpus, "mem_mib", &mem,
                                 "gres", &gres, "gpus", &gpus, "jobs", &jobs,
                                 "version", &version),
                     0);
    assert_string_equal(node, "node01");
    assert_int_equal(cpus, 16); /* config_overrides */
    assert_int_equal(mem, 64000);
    assert_string_equal(gres, "gpu:4");
    assert_int_equal(json_array_size(gpus), 4);
    assert_int_equal(json_array_size(jobs), 0);
    json_decref(reg);
    /* heartbeats every second */
    T.heartbeats = 0;
    {
        struct proto_frame f;
        expect(PROTO_MSG_NODE_HEARTBEAT, false, &f);
        assert_non_null(json_object_get(f.body, "jobs"));
        send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
        proto_frame_clear(&f);
    }
}

static void test_launch_runs_job(void **state)
{
    char path[512], msg[256], *out;

    (void)state;
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(1, "#!/bin/sh\necho \"id=$SLURM_JOB_ID "
                            "twin=$SLUICE_JOB_ID name=$SLURM_JOB_NAME "
                            "foo=$FOO cpus=$SLURM_CPUS_ON_NODE "
                            "node=$SLURMD_NODENAME arg=$1 uid=$(id -u)\"\n"
                            "pwd\necho oops >&2\nexit 3\n"),
             msg, sizeof(msg)),
        0);
    expect_end(1, 3, 0);
    snprintf(path, sizeof(path), "%s/out-1-t1.txt", T.work);
    out = slurp(path);
    assert_non_null(out);
    assert_non_null(strstr(out, "id=1 twin=1 name=t1 foo=bar cpus=4 "
                                "node=node01 arg=arg1 uid=0\n"));
    assert_non_null(strstr(out, T.work));
    assert_non_null(strstr(out, "oops\n")); /* std_err null: with stdout */
    snprintf(path, sizeof(path), "%s/job.1", T.spool);
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path)); /* acknowledged: gone from the spool */
}

static void test_launch_refused(void **state)
{
    char msg[256], path[512];
    json_t *b;

    (void)state;
    b = launch_body(2, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "work_dir",
                        json_string("/nonexistent/dir"));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), ENOENT);
    assert_non_null(strstr(msg, "cannot chdir to /nonexistent/dir"));
    snprintf(path, sizeof(path), "%s/job.2", T.spool);
    assert_false(exists(path));

    b = launch_body(3, "echo no interpreter\n");
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), EINVAL);
    assert_non_null(strstr(msg, "interpreter"));

    b = launch_body(4, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "user_id",
                        json_integer(54321));
    json_object_set_new(json_object_get(b, "job"), "user_name",
                        json_string("nobody54321"));
    assert_int_not_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    assert_non_null(strstr(msg, "unknown on node01"));

    b = launch_body(5, "#!/nonexistent/interp\ntrue\n");
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), ENOENT);
    assert_non_null(strstr(msg, "#!/nonexistent/interp"));
    snprintf(path, sizeof(path), "%s/job.5", T.spool);
    assert_false(exists(path));

    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          json_pack("{s:{s:s}}", "job", "script", "x"), msg,
                          sizeof(msg)),
                     EINVAL);
    assert_non_null(strstr(msg, "job_id"));
}

static void test_signal_and_kill(void **state)
{
    char msg[256], path[512], *out;

    (void)state;
    snprintf(path, sizeof(path), "%s/out-6-t1.txt", T.work);
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(6, "#!/bin/sh\ntrap 'echo got USR1' USR1\n"
                            "trap 'echo got TERM; exit 7' TERM\n"
                            "echo ready\n"
                            "while :; do sleep 0.05; done\n"),
             msg, sizeof(msg)),
        0);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "ready"); i++)
        usleep(10000);
    assert_int_equal(
        call(PROTO_MSG_JOB_SIGNAL,
             json_pack("{s:i, s:i}", "job_id", 6, "signal", SIGUSR1), msg,
             sizeof(msg)),
        0);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "got USR1"); i++)
        usleep(10000);
    assert_non_null(strstr(slurp(path), "got USR1"));
    assert_int_equal(call(PROTO_MSG_JOB_KILL,
                          json_pack("{s:i, s:i, s:s}", "job_id", 6,
                                    "kill_wait_s", 5, "reason", "cancelled"),
                          msg, sizeof(msg)),
                     0);
    expect_end(6, 7, 0);
    out = slurp(path);
    assert_non_null(strstr(out, "got TERM"));

    /* a job that ignores SIGTERM is killed after kill_wait_s */
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(7, "#!/bin/sh\ntrap '' TERM\n"
                                         "echo ready\n"
                                         "while :; do sleep 0.05; done\n"),
                          msg, sizeof(msg)),
                     0);
    snprintf(path, sizeof(path), "%s/out-7-t1.txt", T.work);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "ready"); i++)
        usleep(10000);
    assert_int_equal(
        call(PROTO_MSG_JOB_KILL,
             json_pack("{s:i, s:i}", "job_id", 7, "kill_wait_s", 1), msg,
             sizeof(msg)),
        0);
    expect_end(7, 0, SIGKILL);

    assert_int_equal(call(PROTO_MSG_JOB_SIGNAL,
                          json_pack("{s:i, s:i}", "job_id", 99, "signal", 10),
                          msg, sizeof(msg)),
                     ESRCH);
}

static void test_restart_survival(void **state)
{
    char msg[256], path[512], flag[512];
    json_t *reg, *jobs;

    (void)state;
    snprintf(flag, sizeof(flag), "%s/go", T.work);
    /* job 8 waits for a file; job 9 ends while sluiced is down */
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(8, "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.05; "
                            "done\nexit 4\n"),
             msg, sizeof(msg)),
        0);
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(9, "#!/bin/sh\nwhile [ ! -e go ]; do "
                                         "sleep 0.05; done\nexit 5\n"),
                          msg, sizeof(msg)),
                     0);
    stop_sluiced(SIGKILL);
    writef(flag, "go\n");
    snprintf(path, sizeof(path), "%s/job.9/status", T.spool);
    assert_true(wait_path(path, 5000));
    snprintf(path, sizeof(path), "%s/job.8/status", T.spool);
    assert_true(wait_path(path, 5000));
    unlink(flag);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    jobs = json_object_get(reg, "jobs");
    assert_int_equal(json_array_size(jobs), 2);
    for (size_t i = 0; i < 2; i++) {
        json_int_t id, code;
        const char *st;
        assert_int_equal(json_unpack(json_array_get(jobs, i), "{s:I, s:s, s:I}",
                                     "job_id", &id, "state", &st, "exit_code",
                                     &code),
                         0);
        assert_string_equal(st, "ended");
        assert_int_equal(code, id == 8 ? 4 : 5);
    }
    json_decref(reg);
    /* the registration acknowledged both: the spool forgets them */
    snprintf(path, sizeof(path), "%s/job.8", T.spool);
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path));
}

static void test_running_job_after_restart(void **state)
{
    char msg[256], flag[512];
    json_t *reg;
    const char *st;
    json_int_t id;

    (void)state;
    snprintf(flag, sizeof(flag), "%s/go", T.work);
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(10, "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.05; "
                             "done\nexit 6\n"),
             msg, sizeof(msg)),
        0);
    stop_sluiced(SIGTERM);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    assert_int_equal(json_array_size(json_object_get(reg, "jobs")), 1);
    assert_int_equal(
        json_unpack(json_array_get(json_object_get(reg, "jobs"), 0),
                    "{s:I, s:s}", "job_id", &id, "state", &st),
        0);
    assert_int_equal(id, 10);
    assert_string_equal(st, "running");
    json_decref(reg);
    writef(flag, "go\n");
    expect_end(10, 6, 0);
    unlink(flag);

    /* a job the controller does not know is killed on registration */
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(11, "#!/bin/sh\nwhile :; do sleep 0.05; "
                                          "done\n"),
                          msg, sizeof(msg)),
                     0);
    stop_sluiced(SIGKILL);
    start_sluiced();
    accept_sluiced();
    reg = register_node(json_pack("[i]", 11));
    json_decref(reg);
    expect_end(11, 0, SIGTERM);
}

/* What a sluiced killed in the middle of a launch leaves: a directory
 * without supervisor.pid (12: killed while writing the spool, no
 * supervisor) is cleared, so the job can be launched again; one whose
 * supervisor is still recording itself (13: it holds the directory's
 * lock) is waited for and adopted as running. */
static void test_launch_cut_short(void **state)
{
    char dir12[512], dir13[512], path[600], msg[256], c;
    json_t *reg, *jobs;
    json_int_t id;
    const char *st;
    pid_t helper;
    int p[2], n13;

    (void)state;
    stop_sluiced(SIGKILL);
    snprintf(dir12, sizeof(dir12), "%s/job.12", T.spool);
    snprintf(dir13, sizeof(dir13), "%s/job.13", T.spool);
    assert_int_equal(mkdir(dir12, 0711), 0);
    snprintf(path, sizeof(path), "%s/script", dir12);
    writef(path, "#!/bin/sh\n");
    assert_int_equal(mkdir(dir13, 0711), 0);
    assert_int_equal(pipe(p), 0);
    T.helper = helper = fork();
    assert_true(helper >= 0);
    if (helper == 0) { /* a supervisor recording itself, slowly */
        struct spool_pid self;
        struct err e;
        int fd = spool_lock(dir13, 0, &e);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        (void)!write(p[1], "x", 1);
        usleep(300000);
        if (fd < 0 || spool_pid_self(&self) < 0 ||
            spool_pid_write(dir13, &self, &e) < 0)
            _exit(1);
        close(fd);
        sleep(60);
        _exit(0);
    }
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    close(p[1]);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    jobs = json_object_get(reg, "jobs");
    n13 = 0;
    for (size_t i = 0; i < json_array_size(jobs); i++) {
        /* (an end of the previous test may still be listed) */
        assert_int_equal(json_unpack(json_array_get(jobs, i), "{s:I, s:s}",
                                     "job_id", &id, "state", &st),
                         0);
        assert_int_not_equal(id, 12);
        if (id == 13) {
            assert_string_equal(st, "running");
            n13++;
        }
    }
    assert_int_equal(n13, 1);
    json_decref(reg);
    assert_false(exists(dir12));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(12, "#!/bin/sh\nexit 2\n"), msg,
                          sizeof(msg)),
                     0);
    expect_end(12, 2, 0);
    /* the adopted supervisor dies without a status: reported killed */
    kill(helper, SIGKILL);
    waitpid(helper, NULL, 0);
    T.helper = 0;
    expect_end(13, 0, SIGKILL);
}

static void test_reregister_when_asked(void **state)
{
    struct proto_frame f;
    json_t *reg;

    (void)state;
    expect(PROTO_MSG_NODE_HEARTBEAT, false, &f);
    send_frame(f.type, PROTO_F_REPLY | PROTO_F_ERROR, f.seq,
               proto_error_body(EAGAIN, "register again"));
    proto_frame_clear(&f);
    /* sluiced drops the connection and registers on a new one */
    while (read_frame(&f, WAIT_MS))
        proto_frame_clear(&f);
    close(T.cfd);
    evbuffer_drain(T.in, evbuffer_get_length(T.in));
    accept_sluiced();
    reg = register_node(NULL);
    assert_string_equal(json_string_value(json_object_get(reg, "node")),
                        "node01");
    json_decref(reg);
}

/* GPU variables for gpus [3, 1], and with ConstrainDevices the other
 * GPUs' device files refused to the job. */
static void test_gpus(void **state)
{
    bool fenced = T.devices && log_has("devices");
    char msg[256], path[512], script[1024], want[256], *out;
    json_t *b, *end;

    (void)state;
    snprintf(script, sizeof(script),
             "#!/bin/sh\necho \"cvd=$CUDA_VISIBLE_DEVICES "
             "jg=$SLURM_JOB_GPUS n=$SLURM_GPUS_ON_NODE "
             "ord=$GPU_DEVICE_ORDINAL\"\n"
             "for i in 0 1 2 3; do [ -c %s/dev/nvidia$i ] || continue\n"
             "  if (exec 3<%s/dev/nvidia$i) 2>&1 | grep -q 'not permitted'\n"
             "  then echo \"$i denied\"; else echo \"$i open\"; fi\n"
             "done\n",
             T.dir, T.dir);
    b = launch_body(20, script);
    json_object_set_new(json_object_get(b, "job"), "gpus",
                        json_pack("[i, i]", 3, 1));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    end = expect_end_body(20);
    assert_int_equal(json_integer_value(json_object_get(end, "exit_code")), 0);
    assert_true(json_is_false(json_object_get(end, "oom")));
    json_decref(end);
    snprintf(path, sizeof(path), "%s/out-20-t1.txt", T.work);
    out = slurp(path);
    assert_non_null(out);
    if (fenced) {
        assert_string_equal(out, "cvd=0,1 jg=1,3 n=2 ord=0,1\n0 denied\n"
                                 "1 open\n2 denied\n3 open\n");
    } else {
        printf("# SKIP device fencing: %s\n",
               T.devices ? "no devices cgroup (see the node's cgroup= line)"
                         : "mknod is not allowed here");
        snprintf(want, sizeof(want), "cvd=1,3 jg=1,3 n=2 ord=1,3\n");
        assert_memory_equal(out, want, strlen(want));
    }

    /* an index the node does not have */
    b = launch_body(21, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "gpus", json_pack("[i]", 7));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), EINVAL);
    assert_string_equal(msg,
                        "gpus: index 7 is not a GPU of node01 (it has 4 GPUs)");
}

/* A job over its memory: the OOM killer, and JOB_END says oom. */
static void test_oom(void **state)
{
    char msg[256];
    json_t *b, *end;

    (void)state;
    if (!log_has("memory")) {
        printf("# SKIP OOM: no memory cgroup (see the node's cgroup= line)\n");
        return;
    }
    b = launch_body(22, "#!/bin/sh\nhead -c 1000M /dev/zero | tail "
                        ">/dev/null\necho \"tail $?\"\n");
    json_object_set_new(json_object_get(b, "job"), "mem_mib", json_integer(32));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    end = expect_end_body(22);
    assert_true(json_is_true(json_object_get(end, "oom")));
    json_decref(end);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register),
        cmocka_unit_test(test_launch_runs_job),
        cmocka_unit_test(test_launch_refused),
        cmocka_unit_test(test_signal_and_kill),
        cmocka_unit_test(test_restart_survival),
        cmocka_unit_test(test_running_job_after_restart),
        cmocka_unit_test(test_launch_cut_short),
        cmocka_unit_test(test_reregister_when_asked),
        cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_oom),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
