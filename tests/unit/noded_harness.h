/*
 * A harness for tests that run sluiced as a process against a fake
 * controller written with the proto helpers: a private directory, key,
 * spool and configuration, the real binary started with -D, frames read
 * and written on the controller's side.  Included by test_noded_daemon.c
 * and test_noded_stepd.c.
 */
#ifndef SLUICE_TEST_NODED_HARNESS_H
#define SLUICE_TEST_NODED_HARNESS_H

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

static __attribute__((unused)) void writef(const char *path, const char *fmt,
                                           ...)
    __attribute__((format(printf, 2, 3)));
static __attribute__((unused)) void writef(const char *path, const char *fmt,
                                           ...)
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
static __attribute__((unused)) char *slurp(const char *path)
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

static __attribute__((unused)) int listen_loopback(int *port)
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

static __attribute__((unused)) int group_setup(void **state)
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
           "KillWait=2\nJobAcctGatherFrequency=1\nGresTypes=gpu\n"
           /* the controller's user, trusted like root (test_slurm_user) */
           "SlurmUser=daemon\n"
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

static __attribute__((unused)) void stop_sluiced(int sig)
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

static __attribute__((unused)) int group_teardown(void **state)
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

static __attribute__((unused)) void start_sluiced(void)
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

static __attribute__((unused)) bool wait_fd(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return poll(&p, 1, timeout_ms) == 1;
}

static __attribute__((unused)) void accept_sluiced(void)
{
    assert_true(wait_fd(T.lfd, WAIT_MS));
    T.cfd = accept4(T.lfd, NULL, NULL, SOCK_CLOEXEC);
    assert_true(T.cfd >= 0);
}

static __attribute__((unused)) void send_frame(uint16_t type, uint8_t flags,
                                               uint32_t seq, json_t *body)
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
static __attribute__((unused)) bool read_frame(struct proto_frame *f,
                                               int timeout_ms)
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
static __attribute__((unused)) void expect(uint16_t type, bool reply,
                                           struct proto_frame *out)
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
        /* usage samples (every second here) are taken as they come
         * unless a test waits for one */
        if (f.type == PROTO_MSG_STEP_USAGE && type != f.type) {
            send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
            proto_frame_clear(&f);
            continue;
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
static __attribute__((unused)) int call(uint16_t type, json_t *body, char *msg,
                                        size_t len)
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
static __attribute__((unused)) json_t *register_node(json_t *kill_jobs)
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
static __attribute__((unused)) void expect_end(uint32_t id, int exit_code,
                                               int sig)
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
static __attribute__((unused)) json_t *expect_end_body(uint32_t id)
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
static __attribute__((unused)) bool log_has(const char *what)
{
    const char *log = slurp(T.log), *line;

    line = log ? strstr(log, "cgroup=") : NULL;
    return line != NULL && strncmp(line, "cgroup=none", 11) != 0 &&
           strstr(line, what) != NULL;
}

static __attribute__((unused)) json_t *launch_body(uint32_t id,
                                                   const char *script)
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

static __attribute__((unused)) bool exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* Wait until path exists (true) or ms passed. */
static __attribute__((unused)) bool wait_path(const char *path, int ms)
{
    for (int i = 0; i < ms / 20; i++) {
        if (exists(path))
            return true;
        usleep(20000);
    }
    return exists(path);
}

#endif
