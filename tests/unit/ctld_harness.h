/*
 * A harness for tests that run sluicectld as a process on loopback: a
 * private state directory, port and auth key (or a private munged), the
 * real binary started with -D and stopped by pid, clients over TCP and the
 * unix socket, and fake node daemons speaking raw frames.  Included by
 * test_ctld_daemon.c and test_ctld_nodes.c.
 */
#ifndef SLUICE_TEST_CTLD_HARNESS_H
#define SLUICE_TEST_CTLD_HARNESS_H

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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"

struct fx {
    char dir[64];
    char conf[128], key[128], sock[128], log[128];
    char tcp[64];
    uint16_t port;
    pid_t pid;
    struct auth *auth;
    char munge_sock[128]; /* "" with auth/key */
    pid_t munged;
};

/* A peer speaking raw frames: a fake node daemon, or a rude client. */
struct peer {
    int fd;
    struct evbuffer *in;
    struct auth *a;
    struct auth *own; /* a node's: frames tagged for it (auth.h); or NULL */
    uint32_t seq;
    json_t *requests; /* requests from the controller not yet taken */
};

static __attribute__((unused)) uint16_t free_port(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    close(fd);
    return ntohs(sa.sin_port);
}

static __attribute__((unused)) void write_conf(struct fx *f)
{
    FILE *fp = fopen(f->conf, "w");

    assert_non_null(fp);
    if (f->munge_sock[0])
        fprintf(fp, "AuthType=auth/munge\nAuthInfo=socket=%s\n", f->munge_sock);
    else
        fprintf(fp, "AuthType=auth/key\nAuthInfo=%s\n", f->key);
    fprintf(fp,
            "ClusterName=t\nSlurmctldHost=localhost(127.0.0.1)\n"
            "SlurmctldPort=%u\n"
            "StateSaveLocation=%s/state\nSlurmdTimeout=3\nKillWait=1\n"
            "NodeName=node[01-02] CPUs=4 RealMemory=8000\n"
            "PartitionName=batch Nodes=node[01-02] Default=YES "
            "MaxTime=1:00:00\n",
            f->port, f->dir);
    fclose(fp);
}

static __attribute__((unused)) void spawn(struct fx *f)
{
    const char *build = getenv("SLUICE_BUILD");
    char bin[256];
    struct proto_conn *c = NULL;
    struct err e;

    snprintf(bin, sizeof(bin), "%s/bin/sluicectld", build ? build : "build");
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0) {
        execl(bin, "sluicectld", "-D", "-f", f->conf, "-L", f->log,
              (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100 && c == NULL; i++) {
        c = proto_connect(f->tcp, 1000, &e);
        if (c == NULL)
            usleep(20000);
    }
    if (c == NULL)
        fail_msg("sluicectld did not start: %s", e.text);
    proto_close(c);
}

static __attribute__((unused)) void stop(struct fx *f, int sig)
{
    int status;

    if (f->pid <= 0)
        return;
    kill(f->pid, sig);
    waitpid(f->pid, &status, 0);
    f->pid = 0;
    /* a clean shutdown exits 0 (under ASan: no leak, no error) */
    if (sig == SIGTERM && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fail_msg("sluicectld exited with status %d after SIGTERM (see %s)",
                 status, f->log);
}

#define MUNGED "/usr/sbin/munged"

/* A private munged with a fresh key, on a socket in f->dir. */
static __attribute__((unused)) int start_munged(struct fx *f)
{
    char key[160], cmd[512], a[4][200];

    snprintf(key, sizeof(key), "%s/munge.key", f->dir);
    snprintf(cmd, sizeof(cmd),
             "dd if=/dev/urandom of=%s bs=1024 count=1 status=none && "
             "chmod 0400 %s",
             key, key);
    if (system(cmd) != 0)
        return -1;
    snprintf(f->munge_sock, sizeof(f->munge_sock), "%s/munge.sock", f->dir);
    snprintf(a[0], sizeof(a[0]), "--key-file=%s", key);
    snprintf(a[1], sizeof(a[1]), "--socket=%s", f->munge_sock);
    snprintf(a[2], sizeof(a[2]), "--pid-file=%s/munged.pid", f->dir);
    snprintf(a[3], sizeof(a[3]), "--seed-file=%s/munged.seed", f->dir);
    f->munged = fork();
    if (f->munged == 0) {
        char log[200];
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        snprintf(log, sizeof(log), "--log-file=%s/munged.log", f->dir);
        execl(MUNGED, "munged", "-F", a[0], a[1], a[2], a[3], log,
              (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100; i++) {
        struct stat st;
        if (stat(f->munge_sock, &st) == 0)
            return 0;
        usleep(50000);
    }
    return -1;
}

static __attribute__((unused)) int setup_common(void **state, bool munge)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;

    strcpy(f->dir, "/tmp/sluice-test-ctld.XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    chmod(f->dir, 0755);
    *state = f;
    if (munge && start_munged(f) < 0)
        return -1;
    snprintf(f->conf, sizeof(f->conf), "%s/sluice.conf", f->dir);
    snprintf(f->key, sizeof(f->key), "%s/auth.key", f->dir);
    snprintf(f->sock, sizeof(f->sock), "unix:%s/state/sluicectld.sock", f->dir);
    snprintf(f->log, sizeof(f->log), "%s/ctld.log", f->dir);
    f->port = free_port();
    snprintf(f->tcp, sizeof(f->tcp), "127.0.0.1:%u", f->port);
    if (auth_keygen(f->key, &e) < 0)
        return -1;
    f->auth = munge ? auth_create(AUTH_MUNGE, f->munge_sock, &e)
                    : auth_create(AUTH_KEY, f->key, &e);
    if (f->auth == NULL)
        return -1;
    write_conf(f);
    spawn(f);
    return 0;
}

static __attribute__((unused)) int setup(void **state)
{
    return setup_common(state, false);
}

static __attribute__((unused)) int setup_munge(void **state)
{
    if (access(MUNGED, X_OK) != 0)
        return setup_common(state, false); /* the test then skips */
    return setup_common(state, true);
}

static __attribute__((unused)) int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[256];

    stop(f, SIGTERM);
    auth_destroy(f->auth);
    if (f->munged > 0) {
        kill(f->munged, SIGTERM);
        waitpid(f->munged, NULL, 0);
    }
    if (getenv("SLUICE_KEEP") == NULL) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
        if (system(cmd) != 0)
            return -1;
    }
    free(f);
    return 0;
}

/* ---- clients ---------------------------------------------------------- */

/* One request over a fresh connection (TCP signed, or the unix socket);
 * the reply, or NULL with e set. */
static __attribute__((unused)) json_t *
call(struct fx *f, bool unix_sock, uint16_t type, json_t *req, struct err *e)
{
    struct proto_conn *c = proto_connect(unix_sock ? f->sock : f->tcp, 2000, e);
    json_t *reply = NULL;

    if (c == NULL)
        fail_msg("connect: %s", e->text);
    if (proto_call(c, unix_sock ? NULL : f->auth, type, req, &reply, 5000, e) <
        0)
        reply = NULL;
    proto_close(c);
    json_decref(req);
    return reply;
}

static __attribute__((unused)) uint64_t submit(struct fx *f, const char *extra)
{
    char text[512];
    json_t *spec, *reply;
    struct err e;
    uint64_t id;

    snprintf(text, sizeof(text),
             "{\"job\": {\"script\": \"#!/bin/sh\\nexit 0\\n\", "
             "\"work_dir\": \"/tmp\"%s}}",
             extra ? extra : "");
    spec = json_loads(text, 0, NULL);
    assert_non_null(spec);
    reply = call(f, false, PROTO_MSG_SUBMIT, spec, &e);
    if (reply == NULL)
        fail_msg("submit: %s", e.text);
    id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
    json_decref(reply);
    return id;
}

/* The job's field key as a string (job_state, state_reason). */
static __attribute__((unused)) char *job_field(struct fx *f, uint64_t id,
                                               const char *key)
{
    struct err e;
    json_t *r = call(f, false, PROTO_MSG_JOB_QUERY,
                     json_pack("{s:[I]}", "job_ids", (json_int_t)id), &e);
    json_t *j;
    char *out;

    if (r == NULL)
        fail_msg("query: %s", e.text);
    j = json_array_get(json_object_get(r, "jobs"), 0);
    assert_non_null(j);
    j = json_object_get(j, key);
    out = json_is_string(j) ? strdup(json_string_value(j))
                            : json_dumps(j, JSON_ENCODE_ANY);
    json_decref(r);
    return out;
}

/* Wait up to 3 s for the job's key to read want (a pass may be
 * deferred on a slow machine), then fail naming what it reads. */
static __attribute__((unused)) void
assert_job(struct fx *f, uint64_t id, const char *key, const char *want)
{
    char got[256] = "";

    for (int i = 0; i <= 150; i++) {
        char *v = job_field(f, id, key);
        snprintf(got, sizeof(got), "%s", v);
        free(v);
        if (strcmp(got, want) == 0)
            return;
        usleep(20000);
    }
    fail_msg("job %llu %s: got %s, want %s", (unsigned long long)id, key, got,
             want);
}

static __attribute__((unused)) char *node_field(struct fx *f, const char *node,
                                                const char *key)
{
    struct err e;
    json_t *r = call(f, false, PROTO_MSG_NODE_QUERY,
                     json_pack("{s:[s]}", "nodes", node), &e);
    json_t *v;
    char *out;

    assert_non_null(r);
    v = json_object_get(json_array_get(json_object_get(r, "nodes"), 0), key);
    out = json_is_string(v) ? strdup(json_string_value(v))
                            : json_dumps(v, JSON_ENCODE_ANY);
    json_decref(r);
    return out;
}

/* Wait up to timeout_ms for the node's state to read want. */
static __attribute__((unused)) void wait_node_state(struct fx *f,
                                                    const char *node,
                                                    const char *want,
                                                    int timeout_ms)
{
    char got[64] = "";

    for (int waited = 0;; waited += 50) {
        char *v = node_field(f, node, "state");
        snprintf(got, sizeof(got), "%s", v);
        free(v);
        if (strcmp(got, want) == 0)
            return;
        if (waited >= timeout_ms)
            break;
        usleep(50000);
    }
    fail_msg("node %s state: got %s, want %s", node, got, want);
}

/* ---- peers ------------------------------------------------------------ */

static __attribute__((unused)) struct peer *peer_open(struct fx *f)
{
    struct peer *p = calloc(1, sizeof(*p));
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons(f->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

    p->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(p->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    p->in = evbuffer_new();
    p->a = f->auth;
    p->requests = json_array();
    return p;
}

static __attribute__((unused)) void peer_close(struct peer *p)
{
    close(p->fd);
    auth_destroy(p->own);
    evbuffer_free(p->in);
    json_decref(p->requests);
    free(p);
}

static __attribute__((unused)) void peer_raw(struct peer *p, const void *buf,
                                             size_t len)
{
    assert_int_equal(write(p->fd, buf, len), (ssize_t)len);
}

static __attribute__((unused)) void peer_send(struct peer *p, struct auth *a,
                                              uint16_t type, uint8_t flags,
                                              uint32_t seq, json_t *body)
{
    struct evbuffer *out = evbuffer_new();
    struct err e;
    size_t len;

    assert_int_equal(proto_encode_signed(a, type, flags, seq, body, out, &e),
                     0);
    len = evbuffer_get_length(out);
    peer_raw(p, evbuffer_pullup(out, -1), len);
    evbuffer_free(out);
}

/* Next frame within timeout_ms: 1, 0 on EOF, -1 on timeout. */
static __attribute__((unused)) int
peer_recv(struct peer *p, struct proto_frame *fr, int timeout_ms)
{
    struct err e;

    for (;;) {
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        int rc = proto_decode(p->in, p->a, fr, &e);
        if (rc == 1)
            return 1;
        if (rc < 0)
            fail_msg("bad frame from sluicectld: %s", e.text);
        if (poll(&pfd, 1, timeout_ms) <= 0)
            return -1;
        rc = evbuffer_read(p->in, p->fd, 65536);
        if (rc <= 0)
            return 0;
    }
}

/* A request from the peer: the reply frame's body (new reference); *flags
 * gets its flags.  Requests from the controller are queued meanwhile. */
static __attribute__((unused)) json_t *peer_call(struct peer *p, uint16_t type,
                                                 json_t *body, uint8_t *flags)
{
    uint32_t seq = ++p->seq;
    struct proto_frame fr;

    peer_send(p, p->a, type, 0, seq, body);
    json_decref(body);
    for (;;) {
        if (peer_recv(p, &fr, 5000) != 1)
            fail_msg("no reply to %s", proto_type_name(type));
        if ((fr.flags & PROTO_F_REPLY) && fr.seq == seq && fr.type == type) {
            json_t *b = json_incref(fr.body);
            if (flags)
                *flags = fr.flags;
            proto_frame_clear(&fr);
            return b;
        }
        json_array_append_new(p->requests,
                              json_pack("{s:i, s:i, s:O}", "type", fr.type,
                                        "seq", (int)fr.seq, "body", fr.body));
        proto_frame_clear(&fr);
    }
}

/* The next request of type from the controller, answered with {} (or the
 * error err); its body (new reference), NULL after timeout_ms. */
static __attribute__((unused)) json_t *
peer_expect(struct peer *p, uint16_t type, int timeout_ms, const char *err)
{
    struct proto_frame fr;

    for (;;) {
        for (size_t i = 0; i < json_array_size(p->requests); i++) {
            json_t *r = json_array_get(p->requests, i);
            json_t *body = json_incref(json_object_get(r, "body"));
            int seq = (int)json_integer_value(json_object_get(r, "seq"));
            if (json_integer_value(json_object_get(r, "type")) != type) {
                json_decref(body);
                continue;
            }
            json_array_remove(p->requests, i);
            if (err != NULL) {
                json_t *eb = proto_error_body(EINVAL, "%s", err);
                peer_send(p, p->a, type, PROTO_F_REPLY | PROTO_F_ERROR,
                          (uint32_t)seq, eb);
                json_decref(eb);
            } else {
                peer_send(p, p->a, type, PROTO_F_REPLY, (uint32_t)seq, NULL);
            }
            return body;
        }
        if (peer_recv(p, &fr, timeout_ms) != 1)
            return NULL;
        json_array_append_new(p->requests,
                              json_pack("{s:i, s:i, s:O}", "type", fr.type,
                                        "seq", (int)fr.seq, "body", fr.body));
        proto_frame_clear(&fr);
    }
}

/* peer_as_node: p takes frames the controller signs for node name alone
 * (auth.h), as that node's sluiced does. */
static __attribute__((unused)) void peer_as_node(struct fx *f, struct peer *p,
                                                 const char *name)
{
    char tag[64];
    struct err e;

    p->own = f->munge_sock[0] ? auth_create(AUTH_MUNGE, f->munge_sock, &e)
                              : auth_create(AUTH_KEY, f->key, &e);
    if (p->own == NULL)
        fail_msg("auth_create: %s", e.text);
    snprintf(tag, sizeof(tag), "%s%s", AUTH_TAG_NODE_PREFIX, name);
    auth_set_tags(p->own, tag, AUTH_TAG_CTLD);
    p->a = p->own;
}

static __attribute__((unused)) struct peer *node_up(struct fx *f,
                                                    const char *name, int cpus,
                                                    json_t *jobs,
                                                    json_t **reply_out)
{
    struct peer *p = peer_open(f);
    json_t *reply;

    peer_as_node(f, p, name);
    reply = peer_call(p, PROTO_MSG_NODE_REGISTER,
                      json_pack("{s:s, s:i, s:i, s:o}", "node", name, "cpus",
                                cpus, "mem_mib", 8000, "jobs",
                                jobs ? jobs : json_array()),
                      NULL);

    assert_true(json_is_true(json_object_get(reply, "accepted")));
    if (reply_out)
        *reply_out = reply;
    else
        json_decref(reply);
    return p;
}

static __attribute__((unused)) void job_end(struct peer *p, const char *node,
                                            uint64_t id, int code, int sig)
{
    uint8_t flags;
    json_t *r =
        peer_call(p, PROTO_MSG_JOB_END,
                  json_pack("{s:I, s:s, s:i, s:i, s:I}", "job_id",
                            (json_int_t)id, "node", node, "exit_code", code,
                            "signal", sig, "end_time", (json_int_t)time(NULL)),
                  &flags);

    assert_false(flags & PROTO_F_ERROR);
    json_decref(r);
}

/* One request as the test's user; the reply, or NULL with *code and e. */
static __attribute__((unused)) json_t *
req(struct fx *f, uint16_t type, json_t *body, int *code, struct err *e)
{
    struct proto_conn *c = proto_connect(f->tcp, 2000, e);
    json_t *reply = NULL;

    if (c == NULL)
        fail_msg("connect: %s", e->text);
    *code = 0;
    if (proto_call(c, f->auth, type, body, &reply, 5000, e) < 0) {
        *code = errno;
        reply = NULL;
    }
    proto_close(c);
    json_decref(body);
    return reply;
}

/* STEP_CREATE for job id with extra fields (JSON text without braces). */
static __attribute__((unused)) json_t *
create(struct fx *f, uint64_t id, const char *extra, int *code, struct err *e)
{
    char text[1024];
    json_t *body;

    snprintf(text, sizeof(text),
             "{\"job_id\": %llu, \"argv\": [\"hostname\"], \"env\": [\"A=1\"],"
             " \"cwd\": \"/tmp\", \"srun_host\": \"127.0.0.1\", "
             "\"srun_port\": 4321%s%s}",
             (unsigned long long)id, extra ? ", " : "", extra ? extra : "");
    body = json_loads(text, 0, NULL);
    assert_non_null(body);
    return req(f, PROTO_MSG_STEP_CREATE, body, code, e);
}

/* A node's report; its error code (0: {}). */
static __attribute__((unused)) int report(struct peer *p, uint16_t type,
                                          json_t *body)
{
    uint8_t flags;
    json_t *r = peer_call(p, type, body, &flags);
    int code = 0;
    const char *msg;

    if (flags & PROTO_F_ERROR)
        proto_error_parse(r, &code, &msg);
    json_decref(r);
    return code;
}

/* A node's STEP_END for its tasks of job.step (use: its USAGE, taken;
 * NULL: none); the error code of the reply (0: {}). */
static __attribute__((unused)) int step_end(struct peer *p, const char *node,
                                            uint64_t job, uint32_t step,
                                            int code, int sig, json_t *use)
{
    return report(p, PROTO_MSG_STEP_END,
                  json_pack("{s:I, s:I, s:s, s:i, s:i, s:I, s:s, s:o}",
                            "job_id", (json_int_t)job, "step_id",
                            (json_int_t)step, "node", node, "exit_code", code,
                            "signal", sig, "end_time", (json_int_t)time(NULL),
                            "reason", "", "usage", use ? use : json_object()));
}

static __attribute__((unused)) uint64_t launched_id(json_t *launch)
{
    json_t *job = json_object_get(launch, "job");

    assert_non_null(job);
    return (uint64_t)json_integer_value(json_object_get(job, "job_id"));
}

#endif
