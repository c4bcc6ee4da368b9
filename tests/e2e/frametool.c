/*
 * frametool: hand-made frames sent to a running sluicectld over TCP, for
 * tests/e2e/t06_auth.sh.  It finds the controller and the credential kind
 * as the CLI does (SLUICE_CONF, AuthType, AuthInfo) and prints one line per
 * answer: "accepted job N", "refused ENAME: message", "closed".
 *
 *   frametool ping | submit      a good PING or SUBMIT (a held job)
 *   frametool wrong-key KEYFILE  a SUBMIT signed with another auth/key key
 *   frametool tamper             a SUBMIT whose body changed after signing
 *   frametool unsigned           a SUBMIT with no credential
 *   frametool expired            a SUBMIT whose credential has expired
 *   frametool replay             one signed SUBMIT sent twice
 *   frametool save FILE          a good SUBMIT written to FILE, not sent
 *   frametool send FILE          FILE's bytes sent as they are (a frame
 *                                saved before a restart: replayed after it)
 *   frametool to-node NODE       a SUBMIT signed for node NODE, not for the
 *                                controller
 *   frametool halfclose          a good SUBMIT, then our side shut down:
 *                                the reply must still come
 *   frametool oversize           headers announcing a body and a credential
 *                                over their limits
 *   frametool fuzz N SEED        N random and mutated frames, each on its
 *                                own connection; a summary line; exit 1 if
 *                                any was accepted or left unanswered
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define REPLY_TIMEOUT_MS 5000

struct tool {
    struct conf *conf;
    struct auth *auth;
    char host[256];
    char port[16];
    uint64_t rng;
};

/* One connection and what it has received but not yet decoded. */
struct peer {
    int fd;
    uint8_t buf[1 << 16];
    size_t len;
};

/* What came back for one frame. */
struct reply {
    uint16_t type;
    uint8_t flags;
    uint32_t seq;
    int code;       /* error replies */
    char text[512]; /* error message */
    long long job_id;
};

/* ---- connections ------------------------------------------------------ */

static int peer_open(const struct tool *t, struct peer *p)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
    struct addrinfo *res;

    p->len = 0;
    p->fd = -1;
    if (getaddrinfo(t->host, t->port, &hints, &res) != 0)
        return -1;
    p->fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->fd >= 0 && connect(p->fd, res->ai_addr, res->ai_addrlen) < 0) {
        close(p->fd);
        p->fd = -1;
    }
    freeaddrinfo(res);
    return p->fd < 0 ? -1 : 0;
}

static void peer_close(struct peer *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

/* Write everything; a peer that closed early is not an error here. */
static void peer_send(struct peer *p, const void *buf, size_t n)
{
    const uint8_t *b = buf;

    while (n > 0) {
        ssize_t w = send(p->fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        b += w;
        n -= (size_t)w;
    }
}

/* Decode one frame from the front of p->buf into r; 1, 0 (need more),
 * -1 (not a frame the controller should send). */
static int peer_take(struct peer *p, struct reply *r)
{
    struct proto_view v;
    struct proto_frame f = {0};
    struct err e;
    size_t used = 0;
    const char *msg;
    int rc = proto_decode_buf(p->buf, p->len, &used, &v, &e);

    if (rc <= 0)
        return rc;
    memset(r, 0, sizeof(*r));
    r->type = v.type;
    r->flags = v.flags;
    r->seq = v.seq;
    if (proto_view_parse(&v, &f, &e) < 0)
        return -1;
    if (f.flags & PROTO_F_ERROR) {
        if (proto_error_parse(f.body, &r->code, &msg) == 0)
            snprintf(r->text, sizeof(r->text), "%s", msg);
    } else {
        r->job_id = json_integer_value(json_object_get(f.body, "job_id"));
    }
    proto_frame_clear(&f);
    memmove(p->buf, p->buf + used, p->len - used);
    p->len -= used;
    return 1;
}

/* The next frame from p: 1 with r, 0 when the controller closed, -1 on a
 * timeout or a frame that does not decode. */
static int peer_recv(struct peer *p, struct reply *r, int timeout_ms)
{
    struct pollfd pfd = {.fd = p->fd, .events = POLLIN};

    for (;;) {
        int rc = peer_take(p, r);
        ssize_t n;
        if (rc != 0)
            return rc;
        if (p->len == sizeof(p->buf) || poll(&pfd, 1, timeout_ms) <= 0)
            return -1;
        n = recv(p->fd, p->buf + p->len, sizeof(p->buf) - p->len, 0);
        if (n < 0 && errno == ECONNRESET)
            return 0;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        p->len += (size_t)n;
    }
}

/* ---- frames ----------------------------------------------------------- */

/* A frame's bytes (malloc'd) into *out; a NULL: no credential. */
static size_t frame_bytes(struct auth *a, uint16_t type, uint32_t seq,
                          json_t *body, uint8_t **out)
{
    struct evbuffer *eb = evbuffer_new();
    struct err e;
    size_t n;

    if (proto_encode_signed(a, type, 0, seq, body, eb, &e) < 0) {
        fprintf(stderr, "frametool: encode: %s\n", e.text);
        exit(2);
    }
    n = evbuffer_get_length(eb);
    *out = xmalloc(n);
    evbuffer_remove(eb, *out, n);
    evbuffer_free(eb);
    return n;
}

/* The body of a SUBMIT of a held job named name (new reference). */
static json_t *submit_body(const char *name)
{
    return json_pack("{s:{s:s, s:s, s:s, s:b}}", "job", "name", name, "script",
                     "#!/bin/sh\ntrue\n", "work_dir", "/tmp", "hold", 1);
}

static void print_reply(const char *what, int rc, const struct reply *r)
{
    if (rc == 0)
        printf("%sclosed\n", what);
    else if (rc < 0)
        printf("%sno answer\n", what);
    else if (r->flags & PROTO_F_ERROR)
        printf("%srefused %s: %s\n", what, strerrorname_np(r->code), r->text);
    else if (r->type == PROTO_MSG_SUBMIT)
        printf("%saccepted job %lld\n", what, r->job_id);
    else
        printf("%sanswered %s\n", what, proto_type_name(r->type));
}

/* Send the frame on a new connection, print the answer; 0 if one came. */
static int one_shot(const struct tool *t, const uint8_t *b, size_t n)
{
    struct peer p;
    struct reply r;
    int rc;

    if (peer_open(t, &p) < 0) {
        printf("cannot connect to %s:%s\n", t->host, t->port);
        return 1;
    }
    peer_send(&p, b, n);
    rc = peer_recv(&p, &r, REPLY_TIMEOUT_MS);
    print_reply("", rc, &r);
    peer_close(&p);
    return rc < 0;
}

/* The reply to a request sent before shutdown(SHUT_WR). */
static int cmd_halfclose(struct tool *t)
{
    json_t *body = submit_body("frametool");
    uint8_t *b;
    size_t n = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &b);
    struct peer p;
    struct reply r;
    int rc;

    json_decref(body);
    if (peer_open(t, &p) < 0) {
        free(b);
        return 1;
    }
    peer_send(&p, b, n);
    shutdown(p.fd, SHUT_WR);
    rc = peer_recv(&p, &r, REPLY_TIMEOUT_MS);
    print_reply("", rc, &r);
    peer_close(&p);
    free(b);
    return rc <= 0;
}

static int cmd_simple(struct tool *t, uint16_t type, struct auth *signer)
{
    json_t *body =
        type == PROTO_MSG_SUBMIT ? submit_body("frametool") : json_object();
    uint8_t *b;
    size_t n = frame_bytes(signer, type, 1, body, &b);
    int rc = one_shot(t, b, n);

    json_decref(body);
    free(b);
    return rc;
}

static int cmd_wrong_key(struct tool *t, const char *keyfile)
{
    struct err e;
    struct auth *other;
    int rc;

    if (auth_keygen(keyfile, &e) < 0 ||
        (other = auth_create(AUTH_KEY, keyfile, &e)) == NULL) {
        fprintf(stderr, "frametool: %s\n", e.text);
        return 2;
    }
    rc = cmd_simple(t, PROTO_MSG_SUBMIT, other);
    auth_destroy(other);
    return rc;
}

/* Signed over one body, sent with another of the same length. */
static int cmd_tamper(struct tool *t)
{
    json_t *body = submit_body("frametool-a");
    uint8_t *b;
    size_t n = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &b);
    uint8_t *name = memmem(b, n, "frametool-a", 11);
    int rc;

    name[10] = 'b';
    rc = one_shot(t, b, n);
    json_decref(body);
    free(b);
    return rc;
}

static time_t long_ago(void)
{
    return time(NULL) - 2 * AUTH_TTL_DEFAULT_S;
}

/* auth/key: issued twice the ttl ago; auth/munge: a 1-second ttl, 2 s
 * old (munged keeps its own clock). */
static int cmd_expired(struct tool *t)
{
    json_t *body = submit_body("frametool");
    uint8_t *b;
    size_t n;
    int rc;

    if (auth_get_type(t->auth) == AUTH_KEY)
        auth_set_clock(t->auth, long_ago);
    else
        auth_set_ttl(t->auth, 1);
    n = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &b);
    if (auth_get_type(t->auth) == AUTH_MUNGE)
        sleep(2);
    rc = one_shot(t, b, n);
    json_decref(body);
    free(b);
    return rc;
}

/* The same bytes twice on one connection, then once on another. */
static int cmd_replay(struct tool *t)
{
    json_t *body = submit_body("frametool");
    uint8_t *b;
    size_t n = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &b);
    struct peer p;
    struct reply r;
    int rc;

    if (peer_open(t, &p) < 0)
        return 1;
    peer_send(&p, b, n);
    print_reply("first: ", peer_recv(&p, &r, REPLY_TIMEOUT_MS), &r);
    peer_send(&p, b, n);
    print_reply("again: ", peer_recv(&p, &r, REPLY_TIMEOUT_MS), &r);
    peer_close(&p);
    printf("elsewhere: ");
    fflush(stdout);
    rc = one_shot(t, b, n);
    json_decref(body);
    free(b);
    return rc;
}

/* A good SUBMIT kept for later (cmd_send), as an eavesdropper would. */
static int cmd_save(struct tool *t, const char *path)
{
    json_t *body = submit_body("frametool-saved");
    uint8_t *b;
    size_t n = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &b);
    FILE *fp = fopen(path, "w");
    int rc = fp != NULL && fwrite(b, 1, n, fp) == n;

    if (fp != NULL && fclose(fp) != 0)
        rc = 0;
    json_decref(body);
    free(b);
    if (!rc)
        fprintf(stderr, "frametool: %s: %s\n", path, strerror(errno));
    return !rc;
}

static int cmd_send(struct tool *t, const char *path)
{
    uint8_t b[1 << 16];
    FILE *fp = fopen(path, "r");
    size_t n;

    if (fp == NULL) {
        fprintf(stderr, "frametool: %s: %s\n", path, strerror(errno));
        return 2;
    }
    n = fread(b, 1, sizeof(b), fp);
    fclose(fp);
    return one_shot(t, b, n);
}

/* A frame the controller might have sent node NODE, or that was meant for
 * it: the controller must not take it as its own. */
static int cmd_to_node(struct tool *t, const char *node)
{
    json_t *body = submit_body("frametool");
    struct evbuffer *eb = evbuffer_new();
    char to[AUTH_TAG_MAX + 1];
    struct err e;
    uint8_t *b;
    size_t n;
    int rc;

    snprintf(to, sizeof(to), "%s%s", AUTH_TAG_NODE_PREFIX, node);
    if (proto_encode_signed_to(t->auth, to, PROTO_MSG_SUBMIT, 0, 1, body, eb,
                               &e) < 0) {
        fprintf(stderr, "frametool: encode: %s\n", e.text);
        exit(2);
    }
    n = evbuffer_get_length(eb);
    b = xmalloc(n);
    evbuffer_remove(eb, b, n);
    evbuffer_free(eb);
    rc = one_shot(t, b, n);
    json_decref(body);
    free(b);
    return rc;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

static void header(uint8_t h[PROTO_HEADER_LEN], uint32_t body_len,
                   uint16_t cred_len, uint16_t type, uint32_t seq)
{
    memset(h, 0, PROTO_HEADER_LEN);
    put32(h, PROTO_MAGIC);
    put32(h + 4, body_len);
    put16(h + 8, cred_len);
    put16(h + 10, type);
    h[12] = PROTO_VERSION;
    put32(h + 16, seq);
}

/* An answer, then the close. */
static int oversize_one(struct tool *t, const char *what, uint32_t body_len,
                        uint16_t cred_len)
{
    uint8_t h[PROTO_HEADER_LEN + 4096] = {0};
    struct peer p;
    struct reply r;
    int rc, rc2;

    header(h, body_len, cred_len, PROTO_MSG_SUBMIT, 7);
    memset(h + PROTO_HEADER_LEN, 'x', sizeof(h) - PROTO_HEADER_LEN);
    if (peer_open(t, &p) < 0)
        return 1;
    peer_send(&p, h, sizeof(h));
    rc = peer_recv(&p, &r, REPLY_TIMEOUT_MS);
    print_reply(what, rc, &r);
    rc2 = rc > 0 ? peer_recv(&p, &r, REPLY_TIMEOUT_MS) : rc;
    printf("%s%s\n", what,
           rc2 == 0  ? "then closed"
           : rc2 > 0 ? "then another frame"
                     : "then left open");
    peer_close(&p);
    return rc2 != 0;
}

static int cmd_oversize(struct tool *t)
{
    int rc = oversize_one(t, "body: ", PROTO_MAX_BODY + 1, 0);
    return oversize_one(t, "credential: ", 10, PROTO_MAX_CRED + 1) | rc;
}

/* ---- fuzz ------------------------------------------------------------- */

static uint64_t rnd(struct tool *t)
{
    /* xorshift64*: reproducible from the seed */
    t->rng ^= t->rng >> 12;
    t->rng ^= t->rng << 25;
    t->rng ^= t->rng >> 27;
    return t->rng * 2685821657736338717ull;
}

static size_t rnd_below(struct tool *t, size_t n)
{
    return (size_t)(rnd(t) % n);
}

/* Random bytes, often behind a good magic so that the header is read. */
static size_t fuzz_random(struct tool *t, uint8_t *b, size_t cap)
{
    size_t n = 1 + rnd_below(t, 1024);

    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)rnd(t);
    if (rnd_below(t, 2) && n >= 4)
        put32(b, PROTO_MAGIC);
    (void)cap;
    return n;
}

/* A plausible header with a random credential and body. */
static size_t fuzz_header(struct tool *t, uint8_t *b, size_t cap)
{
    static const char *bodies[] = {
        "{}",
        "{\"job\":{\"script\":\"#!/bin/sh\\n\"}}",
        "[1,2]",
        "{\"a\":",
        "{\"a\":1,\"a\":2}",
        "{\"job_ids\":[1,2,3]}",
        "nul\\u0000",
        "\xff\xfe",
    };
    size_t cred_len = rnd_below(t, 4) ? rnd_below(t, 200) : 0;
    const char *body = bodies[rnd_below(t, sizeof(bodies) / sizeof(*bodies))];
    size_t body_len = strlen(body);
    uint32_t claimed = (uint32_t)body_len;
    size_t n = PROTO_HEADER_LEN;

    if (rnd_below(t, 10) == 0)
        claimed = (uint32_t)rnd(t);
    header(b, claimed, (uint16_t)cred_len, (uint16_t)rnd_below(t, 40),
           (uint32_t)rnd(t));
    if (rnd_below(t, 10) == 0)
        b[12] = (uint8_t)rnd(t); /* version */
    b[13] = (uint8_t)rnd_below(t, 4);
    if (rnd_below(t, 20) == 0)
        b[14] = 1; /* reserved */
    for (size_t i = 0; i < cred_len; i++)
        b[n++] = rnd_below(t, 8) ? (uint8_t)(0x20 + rnd_below(t, 95))
                                 : (uint8_t)rnd(t);
    if (cred_len > 3 && rnd_below(t, 2))
        memcpy(b + PROTO_HEADER_LEN, "k1:0:0:", cred_len > 7 ? 7 : 3);
    memcpy(b + n, body, body_len);
    (void)cap;
    return n + body_len;
}

/* The good frame with a few bytes changed, cut, added or repeated. */
static size_t fuzz_mutate(struct tool *t, const uint8_t *good, size_t len,
                          uint8_t *b, size_t cap)
{
    size_t n = len, ops = 1 + rnd_below(t, 4);

    memcpy(b, good, len);
    for (size_t k = 0; k < ops && n > 0; k++) {
        size_t at = rnd_below(t, n);
        switch (rnd_below(t, 6)) {
        case 0:
            b[at] ^= (uint8_t)(1u << rnd_below(t, 8));
            break;
        case 1:
            b[at] = (uint8_t)rnd(t);
            break;
        case 2:
            b[at] = (uint8_t)(b[at] ^ 0x20); /* letter case, in hex too */
            break;
        case 3:
            n = at + 1; /* truncated */
            break;
        case 4:
            if (n + 16 <= cap) { /* bytes inserted */
                memmove(b + at + 16, b + at, n - at);
                for (size_t i = 0; i < 16; i++)
                    b[at + i] = (uint8_t)rnd(t);
                n += 16;
            }
            break;
        default:
            if (2 * n <= cap) { /* the frame again behind itself */
                memcpy(b + n, b, n);
                n *= 2;
            }
            break;
        }
    }
    return n;
}

struct fuzz_count {
    unsigned errors, closed, accepted, unanswered;
};

/* A frame that was not refused as it should be, for the test's log. */
static void show(const char *what, const uint8_t *b, size_t n)
{
    fprintf(stderr, "frametool: %s (%zu bytes):", what, n);
    for (size_t i = 0; i < n && i < 64; i++)
        fprintf(stderr, " %02x", b[i]);
    fprintf(stderr, "%s\n", n > 64 ? " ..." : "");
}

/* Whether b holds a whole frame, or a header the controller refuses at
 * once (a frame of another version is skipped only once it is whole). */
static bool complete(const uint8_t *b, size_t n)
{
    struct proto_view v;
    struct err e;
    size_t used = 0;
    int rc = proto_decode_buf(b, n, &used, &v, &e);

    if (rc < 0 && errno == EPROTONOSUPPORT)
        return used <= n;
    return rc != 0;
}

/* Send b on a new connection, close our side, read every answer. */
static void fuzz_one(struct tool *t, const uint8_t *b, size_t n,
                     struct fuzz_count *fc)
{
    struct peer p;
    struct reply r;
    int rc, answers = 0;

    if (peer_open(t, &p) < 0) {
        fc->unanswered++;
        return;
    }
    peer_send(&p, b, n);
    shutdown(p.fd, SHUT_WR);
    while ((rc = peer_recv(&p, &r, REPLY_TIMEOUT_MS)) > 0) {
        answers++;
        if (r.flags & PROTO_F_ERROR) {
            fc->errors++;
        } else {
            fc->accepted++;
            show("accepted", b, n);
        }
    }
    /* bytes that end inside a frame are dropped at our close; anything
     * else deserves an answer (docs/protocol-framing.md) */
    if (rc < 0 || (answers == 0 && complete(b, n))) {
        fc->unanswered++;
        show("unanswered", b, n);
    } else if (answers == 0) {
        fc->closed++;
    }
    peer_close(&p);
}

static int cmd_fuzz(struct tool *t, unsigned count, uint64_t seed)
{
    json_t *body = submit_body("frametool-fuzz");
    uint8_t *good, *b = xmalloc(1 << 14);
    size_t glen = frame_bytes(t->auth, PROTO_MSG_SUBMIT, 1, body, &good);
    struct fuzz_count fc = {0};
    struct peer by;
    struct reply r;
    int rc;

    t->rng = seed ? seed : 1;
    /* a bystander: connected all along, served after it all */
    if (peer_open(t, &by) < 0)
        return 1;
    printf("original: ");
    fflush(stdout);
    one_shot(t, good, glen);
    for (unsigned i = 0; i < count; i++) {
        size_t n;
        switch (i % 3) {
        case 0:
            n = fuzz_random(t, b, 1 << 14);
            break;
        case 1:
            n = fuzz_header(t, b, 1 << 14);
            break;
        default:
            n = fuzz_mutate(t, good, glen, b, 1 << 14);
            break;
        }
        fuzz_one(t, b, n, &fc);
    }
    printf("fuzz: %u frames (seed %llu): %u error replies, %u cut short "
           "and closed, %u accepted, %u unanswered\n",
           count, (unsigned long long)seed, fc.errors, fc.closed, fc.accepted,
           fc.unanswered);
    json_decref(body);
    body = json_object();
    free(good);
    glen = frame_bytes(t->auth, PROTO_MSG_PING, 1, body, &good);
    peer_send(&by, good, glen);
    rc = peer_recv(&by, &r, REPLY_TIMEOUT_MS);
    print_reply("bystander: ", rc, &r);
    peer_close(&by);
    json_decref(body);
    free(good);
    free(b);
    return fc.accepted || fc.unanswered || rc <= 0 || (r.flags & PROTO_F_ERROR);
}

/* ---- main ------------------------------------------------------------- */

static int tool_init(struct tool *t, struct err *e)
{
    const char *path = getenv("SLUICE_CONF");
    const struct conf_ctld_host *h;

    t->conf = conf_load(path ? path : CONF_DEFAULT_PATH, NULL, e);
    if (t->conf == NULL)
        return -1;
    if (t->conf->n_ctld_hosts == 0)
        return err_set(e, "%s: no SlurmctldHost", t->conf->path);
    h = &t->conf->ctld_hosts[0];
    snprintf(t->host, sizeof(t->host), "%s", h->addr[0] ? h->addr : h->host);
    snprintf(t->port, sizeof(t->port), "%u", t->conf->slurmctld_port);
    t->auth = auth_create_conf(t->conf, e);
    return t->auth == NULL ? -1 : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: frametool ping|submit|wrong-key KEYFILE|tamper|"
                    "unsigned|expired|replay|save FILE|send FILE|to-node NODE|"
                    "halfclose|oversize|fuzz N SEED\n");
    return 2;
}

static int dispatch(struct tool *t, int argc, char **argv)
{
    const char *cmd = argv[1];

    if (strcmp(cmd, "ping") == 0)
        return cmd_simple(t, PROTO_MSG_PING, t->auth);
    if (strcmp(cmd, "submit") == 0)
        return cmd_simple(t, PROTO_MSG_SUBMIT, t->auth);
    if (strcmp(cmd, "wrong-key") == 0 && argc == 3)
        return cmd_wrong_key(t, argv[2]);
    if (strcmp(cmd, "tamper") == 0)
        return cmd_tamper(t);
    if (strcmp(cmd, "unsigned") == 0)
        return cmd_simple(t, PROTO_MSG_SUBMIT, NULL);
    if (strcmp(cmd, "expired") == 0)
        return cmd_expired(t);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(t);
    if (strcmp(cmd, "save") == 0 && argc == 3)
        return cmd_save(t, argv[2]);
    if (strcmp(cmd, "send") == 0 && argc == 3)
        return cmd_send(t, argv[2]);
    if (strcmp(cmd, "to-node") == 0 && argc == 3)
        return cmd_to_node(t, argv[2]);
    if (strcmp(cmd, "halfclose") == 0)
        return cmd_halfclose(t);
    if (strcmp(cmd, "oversize") == 0)
        return cmd_oversize(t);
    if (strcmp(cmd, "fuzz") == 0 && argc == 4)
        return cmd_fuzz(t, (unsigned)strtoul(argv[2], NULL, 10),
                        strtoull(argv[3], NULL, 10));
    return usage();
}

int main(int argc, char **argv)
{
    struct tool t = {0};
    struct err e = {{0}};
    int rc;

    if (argc < 2)
        return usage();
    signal(SIGPIPE, SIG_IGN);
    if (tool_init(&t, &e) < 0) {
        fprintf(stderr, "frametool: %s\n", e.text);
        conf_destroy(t.conf);
        return 2;
    }
    rc = dispatch(&t, argc, argv);
    auth_destroy(t.auth);
    conf_destroy(t.conf);
    return rc;
}
