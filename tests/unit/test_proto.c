/*
 * Unit tests for framing: round trips, partial delivery, every header and
 * body check, credentials through the decoder, error bodies and the
 * blocking client against a forked server.
 */
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"

static char tmpdir[] = "/tmp/sluice-test-proto.XXXXXX";
static char key_path[256];

static int group_setup(void **state)
{
    struct err e;

    (void)state;
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    snprintf(key_path, sizeof(key_path), "%s/auth.key", tmpdir);
    return auth_keygen(key_path, &e);
}

static int group_teardown(void **state)
{
    char cmd[512];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct auth *key_auth(void)
{
    struct err e;
    struct auth *a = auth_create(AUTH_KEY, key_path, &e);

    if (a == NULL)
        fail_msg("auth_create: %s", e.text);
    auth_set_tags(a, "test", "test"); /* it verifies what it signs */
    return a;
}

/* A raw frame, built by hand so that it can break the rules. */
static struct evbuffer *raw_frame(uint32_t magic, uint32_t body_len,
                                  uint16_t cred_len, uint16_t type,
                                  uint8_t version, uint8_t flags,
                                  uint16_t reserved, uint32_t seq,
                                  const char *cred, const char *body)
{
    struct evbuffer *b = evbuffer_new();
    uint8_t h[PROTO_HEADER_LEN] = {
        magic >> 24,    magic >> 16,    magic >> 8,    magic,
        body_len >> 24, body_len >> 16, body_len >> 8, body_len,
        cred_len >> 8,  cred_len,       type >> 8,     type,
        version,        flags,          reserved >> 8, reserved,
        seq >> 24,      seq >> 16,      seq >> 8,      seq,
    };

    evbuffer_add(b, h, sizeof(h));
    if (cred != NULL)
        evbuffer_add(b, cred, strlen(cred));
    if (body != NULL)
        evbuffer_add(b, body, strlen(body));
    return b;
}

static struct evbuffer *body_frame(const char *body)
{
    return raw_frame(PROTO_MAGIC, (uint32_t)strlen(body), 0, PROTO_MSG_PING,
                     PROTO_VERSION, 0, 0, 77, NULL, body);
}

static void append_frame(struct evbuffer *b, const char *body)
{
    struct evbuffer *f = body_frame(body);

    evbuffer_add_buffer(b, f);
    evbuffer_free(f);
}

static void test_round_trip(void **state)
{
    static const char *bodies[] = {
        "{}",
        "{\"job\":{\"name\":\"train\",\"argv\":[\"a\",\"b\"],\"x\":null}}",
        "{\"unicode\":\"\xe5\xbc\xa0\xe4\xb8\x89 \\u0007\",\"n\":-1.5e3}",
        "{\"t\":true,\"f\":false,\"nested\":[[[{\"a\":[]}]]]}",
    };
    static const uint32_t seqs[] = {0, 1, 0x7fffffff, UINT32_MAX};
    struct evbuffer *b = evbuffer_new();
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        json_t *body = json_loads(bodies[i], 0, NULL);
        struct proto_frame f = {
            .type = PROTO_MSG_SUBMIT,
            .flags = (uint8_t)(i % 4),
            .seq = seqs[i],
            .cred = i % 2 ? (char *)"k1:cred-text" : NULL,
            .body = body,
        };
        struct proto_frame g;
        assert_non_null(body);
        assert_int_equal(proto_encode(&f, b, &e), 0);
        assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
        assert_int_equal(g.type, PROTO_MSG_SUBMIT);
        assert_int_equal(g.version, PROTO_VERSION);
        assert_int_equal(g.flags, i % 4);
        assert_int_equal(g.seq, seqs[i]);
        assert_false(g.verified);
        if (i % 2)
            assert_string_equal(g.cred, "k1:cred-text");
        else
            assert_null(g.cred);
        assert_true(json_equal(g.body, body));
        assert_int_equal(evbuffer_get_length(b), 0);
        proto_frame_clear(&g);
        json_decref(body);
    }
    /* A NULL body is "{}". */
    struct proto_frame f = {.type = PROTO_MSG_PING}, g;
    assert_int_equal(proto_encode(&f, b, &e), 0);
    assert_int_equal(evbuffer_get_length(b), PROTO_HEADER_LEN + 2);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    assert_int_equal(json_object_size(g.body), 0);
    proto_frame_clear(&g);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 0);
    evbuffer_free(b);
}

static void test_signed_round_trip(void **state)
{
    struct auth *a = key_auth();
    struct evbuffer *b = evbuffer_new();
    json_t *body = json_pack("{s:s}", "script", "#!/bin/sh\necho hi\n");
    struct proto_frame g;
    struct err e;

    (void)state;
    assert_int_equal(
        proto_encode_signed(a, PROTO_MSG_SUBMIT, 0, 5, body, b, &e), 0);
    assert_int_equal(proto_decode(b, a, &g, &e), 1);
    assert_true(g.verified);
    assert_int_equal(g.who.uid, geteuid());
    assert_int_equal(g.who.gid, getegid());
    assert_true(json_equal(g.body, body));
    assert_non_null(g.cred);
    assert_int_equal(strlen(g.cred), g.cred_len);
    proto_frame_clear(&g);
    /* Unsigned encoding with a NULL auth. */
    assert_int_equal(proto_encode_signed(NULL, PROTO_MSG_PING, PROTO_F_REPLY, 6,
                                         NULL, b, &e),
                     0);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    assert_null(g.cred);
    assert_int_equal(g.flags, PROTO_F_REPLY);
    proto_frame_clear(&g);
    json_decref(body);
    evbuffer_free(b);
    auth_destroy(a);
}

/* Bytes arriving one at a time: nothing until each frame is whole. */
static void test_partial_delivery(void **state)
{
    struct auth *a = key_auth();
    struct evbuffer *all = evbuffer_new(), *in = evbuffer_new();
    struct proto_frame g;
    struct err e;
    int frames = 0;

    (void)state;
    for (uint32_t seq = 1; seq <= 3; seq++) {
        json_t *body = json_pack("{s:i,s:s}", "seq", seq, "pad", "xxxxxxxx");
        assert_int_equal(
            proto_encode_signed(a, PROTO_MSG_JOB_QUERY, 0, seq, body, all, &e),
            0);
        json_decref(body);
    }
    size_t len = evbuffer_get_length(all);
    const uint8_t *p = evbuffer_pullup(all, -1);
    for (size_t i = 0; i < len; i++) {
        evbuffer_add(in, p + i, 1);
        int rc = proto_decode(in, a, &g, &e);
        assert_true(rc >= 0);
        if (rc == 1) {
            frames++;
            assert_int_equal(g.seq, (uint32_t)frames);
            assert_int_equal(json_integer_value(json_object_get(g.body, "seq")),
                             frames);
            proto_frame_clear(&g);
        }
    }
    assert_int_equal(frames, 3);
    assert_int_equal(evbuffer_get_length(in), 0);
    evbuffer_free(all);
    evbuffer_free(in);
    auth_destroy(a);
}

static void expect_error(struct evbuffer *b, int err_no, const char *text)
{
    struct proto_frame g;
    struct err e;

    assert_int_equal(proto_decode(b, NULL, &g, &e), -1);
    assert_int_equal(errno, err_no);
    if (strstr(e.text, text) == NULL)
        fail_msg("error \"%s\" lacks \"%s\"", e.text, text);
    assert_null(g.body);
    assert_null(g.cred);
}

static void test_oversize_rejected_from_header(void **state)
{
    struct evbuffer *b;

    (void)state;
    /* Only the header is there: refused before anything is buffered. */
    b = raw_frame(PROTO_MAGIC, PROTO_MAX_BODY + 1, 0, 2, 1, 0, 0, 9, NULL,
                  NULL);
    expect_error(b, EMSGSIZE, "frame body of 16777217 bytes is over the limit");
    evbuffer_free(b);
    b = raw_frame(PROTO_MAGIC, 2, PROTO_MAX_CRED + 1, 2, 1, 0, 0, 9, NULL,
                  NULL);
    expect_error(b, EMSGSIZE, "credential of 4097 bytes is over the limit");
    evbuffer_free(b);
    b = raw_frame(PROTO_MAGIC, UINT32_MAX, UINT16_MAX, 2, 1, 0, 0, 9, NULL,
                  NULL);
    expect_error(b, EMSGSIZE, "over the limit");
    evbuffer_free(b);
}

static void test_large_body_limits(void **state)
{
    size_t n = PROTO_MAX_BODY - 64;
    char *big = malloc(n + 1);
    struct evbuffer *b = evbuffer_new();
    struct proto_frame g;
    struct err e;
    json_t *body;

    (void)state;
    memset(big, 'x', n);
    big[n] = '\0';
    /* A script just under the limit goes through... */
    body = json_pack("{s:s}", "script", big);
    assert_int_equal(proto_encode_signed(NULL, 10, 0, 1, body, b, &e), 0);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    assert_int_equal(
        strlen(json_string_value(json_object_get(g.body, "script"))), n);
    proto_frame_clear(&g);
    json_decref(body);
    /* ...one over it is refused by the encoder, and out is untouched. */
    big[n - 1] = '\0';
    memset(big, 'y', n - 1);
    body = json_pack("{s:s,s:s}", "script", big, "more",
                     "0123456789abcdef"
                     "0123456789abcdef"
                     "0123456789abcdef");
    assert_int_equal(proto_encode_signed(NULL, 10, 0, 2, body, b, &e), -1);
    assert_int_equal(errno, EMSGSIZE);
    assert_int_equal(evbuffer_get_length(b), 0);
    json_decref(body);
    free(big);
    evbuffer_free(b);
}

static void test_bad_header(void **state)
{
    struct evbuffer *b;

    (void)state;
    /* Bad magic is known from the first four bytes. */
    b = evbuffer_new();
    evbuffer_add(b, "GET ", 4);
    expect_error(b, EBADMSG, "bad magic 0x47455420");
    evbuffer_free(b);
    b = raw_frame(PROTO_MAGIC, 2, 0, 2, 1, 0, 1, 9, NULL, "{}");
    expect_error(b, EBADMSG, "reserved header field is 0x0001");
    evbuffer_free(b);
    b = raw_frame(PROTO_MAGIC, 2, 0, 2, 1, 0x80, 0, 9, NULL, "{}");
    expect_error(b, EBADMSG, "unknown frame flags 0x80");
    evbuffer_free(b);
    b = raw_frame(PROTO_MAGIC, 2, 3, 2, 1, 0, 0, 9, "a\nb", "{}");
    expect_error(b, EBADMSG, "credential is not printable ASCII");
    evbuffer_free(b);
}

/* Another version: reported with its seq, skipped, and the next frame is
 * read normally, so the server can reply and keep the connection. */
static void test_bad_version_skipped(void **state)
{
    struct evbuffer *b =
        raw_frame(PROTO_MAGIC, 2, 2, 2, 9, 0, 0, 41, "ab", "{}");
    struct evbuffer *half = evbuffer_new();
    struct proto_frame g;
    struct err e;

    (void)state;
    append_frame(b, "{\"next\":1}");
    /* Until the whole unsupported frame is there, wait for it. */
    evbuffer_add(half, evbuffer_pullup(b, 22), 22);
    assert_int_equal(proto_decode(half, NULL, &g, &e), 0);
    evbuffer_free(half);
    assert_int_equal(proto_decode(b, NULL, &g, &e), -1);
    assert_int_equal(errno, EPROTONOSUPPORT);
    assert_string_equal(e.text, "unsupported protocol version 9 (this is 1)");
    assert_int_equal(g.seq, 41);
    assert_int_equal(g.version, 9);
    assert_int_equal(g.type, 2);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    assert_int_equal(g.seq, 77);
    assert_non_null(json_object_get(g.body, "next"));
    proto_frame_clear(&g);
    evbuffer_free(b);
}

static void test_bad_bodies(void **state)
{
    static const struct {
        const char *body;
        const char *error;
    } cases[] = {
        {"", "frame has an empty body"},
        {"[1,2]", "body is not a JSON object"},
        {"\"s\"", "body is not JSON"},
        {"1", "body is not JSON"},
        {"null", "body is not JSON"},
        {"{", "body is not JSON"},
        {"{} x", "body is not JSON"},
        {"{}{}", "body is not JSON"},
        {"{\"a\":1,\"a\":2}", "duplicate object key"},
        {"{\"a\":\"\xff\"}", "body is not JSON"},
        {"{\"a\":\"\\u0000\"}", "body is not JSON"},
    };
    struct proto_frame g;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct evbuffer *b = body_frame(cases[i].body);
        append_frame(b, "{}");
        expect_error(b, EBADMSG, cases[i].error);
        /* The bad frame is gone; the caller closes anyway. */
        assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
        proto_frame_clear(&g);
        evbuffer_free(b);
    }
}

static char *nested(int depth)
{
    char *s = malloc(2 * (size_t)depth + 16);
    size_t n = 0;

    s[n++] = '{';
    s[n++] = '"';
    s[n++] = 'a';
    s[n++] = '"';
    s[n++] = ':';
    for (int i = 1; i < depth; i++)
        s[n++] = '[';
    for (int i = 1; i < depth; i++)
        s[n++] = ']';
    s[n++] = '}';
    s[n] = '\0';
    return s;
}

static void test_json_bounds(void **state)
{
    struct proto_frame g;
    struct err e;
    char *s;
    struct evbuffer *b;

    (void)state;
    s = nested(PROTO_MAX_DEPTH);
    b = body_frame(s);
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    proto_frame_clear(&g);
    evbuffer_free(b);
    free(s);
    s = nested(PROTO_MAX_DEPTH + 1);
    b = body_frame(s);
    expect_error(b, EBADMSG, "body nested deeper than 32");
    evbuffer_free(b);
    free(s);
    /* Brackets inside strings do not count. */
    b = body_frame("{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[\"}");
    assert_int_equal(proto_decode(b, NULL, &g, &e), 1);
    proto_frame_clear(&g);
    evbuffer_free(b);
    /* More elements than PROTO_MAX_VALUES. */
    size_t n = 2 * (size_t)PROTO_MAX_VALUES + 16;
    s = malloc(n);
    size_t k = 0;
    k += (size_t)sprintf(s, "{\"a\":[");
    for (uint32_t i = 0; i < PROTO_MAX_VALUES; i++) {
        s[k++] = '0';
        s[k++] = ',';
    }
    s[k++] = '0';
    strcpy(s + k, "]}");
    b = body_frame(s);
    expect_error(b, EBADMSG, "body has more than 1048576 elements");
    evbuffer_free(b);
    free(s);
    /* The encoder applies the same bound. */
    json_t *deep = json_object(), *cur = json_array();
    json_object_set_new(deep, "a", cur);
    for (int i = 0; i < PROTO_MAX_DEPTH + 2; i++) {
        json_t *next = json_array();
        json_array_append_new(cur, next);
        cur = next;
    }
    b = evbuffer_new();
    assert_int_equal(proto_encode_signed(NULL, 2, 0, 1, deep, b, &e), -1);
    assert_int_equal(errno, EMSGSIZE);
    json_decref(deep);
    evbuffer_free(b);
}

static void test_truncated(void **state)
{
    struct evbuffer *b = body_frame("{\"a\":1}");
    struct evbuffer *cut = evbuffer_new();
    struct proto_frame g;
    struct proto_view v;
    struct err e;
    size_t len = evbuffer_get_length(b), consumed;
    const uint8_t *p = evbuffer_pullup(b, -1);

    (void)state;
    for (size_t n = 0; n < len; n++) {
        assert_int_equal(proto_decode_buf(p, n, &consumed, &v, &e), 0);
        assert_int_equal(consumed, n < PROTO_HEADER_LEN ? 0 : len);
    }
    assert_int_equal(proto_decode_buf(p, len, &consumed, &v, &e), 1);
    assert_int_equal(consumed, len);
    assert_int_equal(v.body_len, 7);
    assert_memory_equal(v.body, "{\"a\":1}", 7);
    evbuffer_add(cut, p, len - 1);
    assert_int_equal(proto_decode(cut, NULL, &g, &e), 0);
    assert_int_equal(evbuffer_get_length(cut), len - 1);
    evbuffer_free(cut);
    evbuffer_free(b);
}

/* A refused credential: the frame is dropped and the next one is read. */
static void test_credential_refused(void **state)
{
    struct auth *a = key_auth();
    struct evbuffer *b = evbuffer_new();
    json_t *body = json_pack("{s:i}", "job_id", 1);
    struct proto_frame g;
    struct err e;

    (void)state;
    assert_int_equal(
        proto_encode_signed(a, PROTO_MSG_JOB_CANCEL, 0, 3, body, b, &e), 0);
    /* Alter the body in flight: "job_id":1 becomes "job_id":7. */
    size_t len = evbuffer_get_length(b);
    uint8_t *p = evbuffer_pullup(b, -1);
    assert_int_equal(p[len - 2], '1');
    p[len - 2] = '7';
    /* And an unsigned frame after it. */
    assert_int_equal(
        proto_encode_signed(NULL, PROTO_MSG_PING, 0, 4, NULL, b, &e), 0);
    assert_int_equal(proto_encode_signed(a, PROTO_MSG_PING, 0, 5, NULL, b, &e),
                     0);
    assert_int_equal(proto_decode(b, a, &g, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_int_equal(g.seq, 3);
    assert_int_equal(g.type, PROTO_MSG_JOB_CANCEL);
    assert_string_equal(e.text, "auth/key: frame does not match its "
                                "credential (altered in transit, or meant "
                                "for another receiver than test?)");
    assert_int_equal(proto_decode(b, a, &g, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/key: frame has no credential");
    assert_int_equal(proto_decode(b, a, &g, &e), 1);
    assert_int_equal(g.seq, 5);
    assert_true(g.verified);
    proto_frame_clear(&g);
    json_decref(body);
    evbuffer_free(b);
    auth_destroy(a);
}

static void test_encode_rejects(void **state)
{
    struct evbuffer *b = evbuffer_new();
    json_t *arr = json_array();
    struct proto_frame f = {.type = 2, .body = arr};
    struct err e;

    (void)state;
    assert_int_equal(proto_encode(&f, b, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "frame body must be a JSON object");
    f.body = NULL;
    f.cred = (char *)"bad\tcred";
    assert_int_equal(proto_encode(&f, b, &e), -1);
    assert_int_equal(errno, EINVAL);
    f.cred = NULL;
    f.flags = 0x10;
    assert_int_equal(proto_encode(&f, b, &e), -1);
    assert_int_equal(evbuffer_get_length(b), 0);
    json_decref(arr);
    evbuffer_free(b);
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(proto_type_name(PROTO_MSG_ERROR), "ERROR");
    assert_string_equal(proto_type_name(PROTO_MSG_PING), "PING");
    assert_string_equal(proto_type_name(PROTO_MSG_SUBMIT), "SUBMIT");
    assert_string_equal(proto_type_name(PROTO_MSG_JOB_END), "JOB_END");
    assert_string_equal(proto_type_name(PROTO_MSG_NODE_REGISTER),
                        "NODE_REGISTER");
    assert_null(proto_type_name(0));
    assert_null(proto_type_name(3));
    assert_null(proto_type_name(65535));
}

static void test_error_body(void **state)
{
    json_t *b = proto_error_body(ENOENT, "unknown partition \"%s\"", "gpu");
    const char *msg;
    int code;
    char *text = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);

    (void)state;
    assert_string_equal(text, "{\"error\":{\"code\":2,\"message\":\"unknown "
                              "partition \\\"gpu\\\"\"}}");
    assert_int_equal(proto_error_parse(b, &code, &msg), 0);
    assert_int_equal(code, ENOENT);
    assert_string_equal(msg, "unknown partition \"gpu\"");
    free(text);
    json_decref(b);
    /* Bytes that are not UTF-8 are replaced, not lost with the reply. */
    b = proto_error_body(EINVAL, "bad name %s", "a\xff\xfe");
    assert_int_equal(proto_error_parse(b, &code, &msg), 0);
    assert_string_equal(msg, "bad name a??");
    json_decref(b);
    b = json_pack("{s:i}", "error", 1);
    assert_int_equal(proto_error_parse(b, &code, &msg), -1);
    assert_int_equal(errno, EBADMSG);
    json_decref(b);
}

/* A port nothing listens on: bind, read it back, close. */
static int free_port(void)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    close(fd);
    return ntohs(sin.sin_port);
}

static void test_connect_refused(void **state)
{
    char addr[64], want[128];
    struct err e;

    (void)state;
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", free_port());
    assert_null(proto_connect(addr, 2000, &e));
    assert_int_equal(errno, ECONNREFUSED);
    snprintf(want, sizeof(want),
             "cannot reach sluicectld at %s: Connection refused", addr);
    assert_string_equal(e.text, want);
    assert_null(proto_connect("unix:/nonexistent/sluicectld.sock", 2000, &e));
    assert_string_equal(e.text, "cannot reach sluicectld at "
                                "unix:/nonexistent/sluicectld.sock: No such "
                                "file or directory");
    assert_null(proto_connect("nocolon", 2000, &e));
    assert_int_equal(errno, EINVAL);
}

/*
 * A one-connection server in a child process: PING is answered (signed
 * with a when given) with the peer's SO_PEERCRED uid, type 99 gets an
 * error reply and type 98 none at all.
 */
static void serve(int lfd, struct auth *a)
{
    int fd = accept(lfd, NULL, NULL);
    struct evbuffer *in = evbuffer_new(), *out = evbuffer_new();
    struct auth_id peer = {0, 0};
    struct proto_frame f;
    struct err e;

    if (fd < 0)
        _exit(2);
    /* SO_PEERCRED on a unix socket; over TCP the credential says who. */
    bool on_unix = auth_peer_cred(fd, &peer) == 0;
    if (on_unix == (a != NULL))
        _exit(4);
    for (;;) {
        int rc = proto_decode(in, a, &f, &e);
        if (rc < 0)
            _exit(3);
        if (rc == 0) {
            if (evbuffer_read(in, fd, 4096) <= 0)
                _exit(0);
            continue;
        }
        json_t *reply = NULL;
        uint8_t flags = PROTO_F_REPLY;
        if (f.type == PROTO_MSG_PING) {
            uid_t uid = on_unix ? peer.uid : f.who.uid;
            reply =
                json_pack("{s:i,s:O}", "peer_uid", (int)uid, "echo", f.body);
        } else if (f.type == 99) {
            reply = proto_error_body(EPERM, "user %u may not cancel job 7",
                                     (unsigned)f.who.uid);
            flags |= PROTO_F_ERROR;
        }
        if (reply != NULL) {
            /* Unrelated frames first: a request, and a reply with the
             * right seq but another type.  The client skips both. */
            proto_encode_signed(a, PROTO_MSG_PING, 0, 1000, NULL, out, &e);
            proto_encode_signed(a, PROTO_MSG_JOB_END, PROTO_F_REPLY, f.seq,
                                NULL, out, &e);
            proto_encode_signed(a, f.type, flags, f.seq, reply, out, &e);
            evbuffer_write(out, fd);
            json_decref(reply);
        }
        proto_frame_clear(&f);
    }
}

/* Listen on a unix socket (tcp false) or 127.0.0.1:any; addr gets the
 * address to give proto_connect. */
static pid_t start_server(bool tcp, struct auth *a, char *addr, size_t size)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int lfd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
    pid_t pid;

    if (tcp) {
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
        assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
        snprintf(addr, size, "127.0.0.1:%d", ntohs(sin.sin_port));
    } else {
        snprintf(sun.sun_path, sizeof(sun.sun_path), "%.80s/ctld.sock", tmpdir);
        unlink(sun.sun_path);
        assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
        snprintf(addr, size, "unix:%s", sun.sun_path);
    }
    assert_int_equal(listen(lfd, 4), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        serve(lfd, a);
    close(lfd);
    return pid;
}

static void client_calls(bool tcp, struct auth *a)
{
    char addr[128];
    struct proto_conn *c;
    json_t *req = json_pack("{s:s}", "hello", "world"), *reply = NULL;
    struct err e;
    pid_t pid;

    pid = start_server(tcp, a, addr, sizeof(addr));
    c = proto_connect(addr, 2000, &e);
    if (c == NULL)
        fail_msg("proto_connect: %s", e.text);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(
            proto_call(c, a, PROTO_MSG_PING, req, &reply, 5000, &e), 0);
        assert_int_equal(json_integer_value(json_object_get(reply, "peer_uid")),
                         getuid());
        assert_true(json_equal(json_object_get(reply, "echo"), req));
        json_decref(reply);
        reply = NULL;
    }
    assert_int_equal(proto_call(c, a, 99, req, &reply, 5000, &e), -1);
    assert_int_equal(errno, EPERM);
    char want[64];
    snprintf(want, sizeof(want), "user %u may not cancel job 7",
             a != NULL ? (unsigned)geteuid() : 0u);
    assert_string_equal(e.text, want);
    assert_null(reply);
    assert_int_equal(proto_call(c, a, 98, req, &reply, 200, &e), -1);
    assert_int_equal(errno, ETIMEDOUT);
    assert_non_null(strstr(e.text, "no reply from sluicectld at "));
    assert_non_null(strstr(e.text, addr));
    proto_close(c);
    proto_close(NULL);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    json_decref(req);
}

static void test_client_unix(void **state)
{
    (void)state;
    client_calls(false, NULL);
}

/* Over TCP, as a remote client: signed both ways. */
static void test_client_tcp_signed(void **state)
{
    struct auth *a = key_auth();

    (void)state;
    client_calls(true, a);
    auth_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_signed_round_trip),
        cmocka_unit_test(test_partial_delivery),
        cmocka_unit_test(test_oversize_rejected_from_header),
        cmocka_unit_test(test_large_body_limits),
        cmocka_unit_test(test_bad_header),
        cmocka_unit_test(test_bad_version_skipped),
        cmocka_unit_test(test_bad_bodies),
        cmocka_unit_test(test_json_bounds),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_credential_refused),
        cmocka_unit_test(test_encode_rejects),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_error_body),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_client_unix),
        cmocka_unit_test(test_client_tcp_signed),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
