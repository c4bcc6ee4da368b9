/*
 * Connections of sluicectld: accept on TCP and the unix socket, decode
 * frames as they arrive, answer each request with its type and seq, and
 * carry the controller's own requests to node daemons.  A bad frame costs
 * its connection only; output waits for the iteration's commit.
 */
#include "ctld/net/listen.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/core/statedir.h"
#include "ctld/core/stats.h"
#include "ctld/net/peers.h"

/* Frames handled for one connection before the others get a turn, and
 * the time after which it yields even sooner (a 16 MiB body takes a good
 * part of that to parse). */
#define CONN_FRAMES_PER_TURN 16
#define CONN_TURN_MS 10
/* After accept() ran out of descriptors, listening resumes this late. */
#define LISTEN_PAUSE_MS 250

struct pending {
    uint32_t seq;
    uint16_t type;
    listen_reply_fn fn;
    void *ctx;
    uint64_t arg;
    struct pending *next;
};

struct conn {
    struct listen *l;
    struct bufferevent *bev;
    bool is_unix;
    struct auth_id peer; /* unix socket: SO_PEERCRED */
    char peer_name[NI_MAXHOST + NI_MAXSERV + 2];
    char peer_key[NI_MAXHOST + 8]; /* "uid:1000", "addr:10.0.0.7" */
    bool authed;                   /* TCP: a frame on it verified */
    bool prechecked;       /* TCP: the frame coming in passed auth_precheck */
    int64_t last_ms;       /* accepted, or a frame done */
    int64_t frame_ms;      /* a frame begun and not yet all in (0: none) */
    struct evbuffer *held; /* output waiting for the commit */
    bool dirty;
    struct conn *dirty_next;
    struct conn *prev, *next;
    uint32_t next_seq;
    struct pending *pending;
    long node;
    bool closing;
    bool dead;
    bool throttled; /* reading paused: too much output waits */
};

struct listen {
    struct listen_env env;
    struct listen_ops ops;
    void *arg; /* for ops and the reply callbacks */
    struct evconnlistener *tcp;
    struct evconnlistener *unx;
    struct conn *conns;
    struct conn *dirty;
    struct peers *peers;
    struct peers_limits lim; /* max_conns fitted to RLIMIT_NOFILE */
    struct event *sweep_ev;  /* 1 s: deadlines */
    struct event *resume_ev; /* listening again after EMFILE */
    size_t out_total;        /* unread output of every connection */
    size_t in_total;         /* input buffered by every connection */
    uint64_t refused;        /* connections refused since the last log */
};

/* ---- sockets ---------------------------------------------------------- */

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int listen_bind_tcp(const char *host, uint16_t port, struct err *e)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char svc[16];
    int fd = -1, one = 1, rc, saved = 0;

    snprintf(svc, sizeof(svc), "%u", port);
    rc = getaddrinfo(host, svc, &hints, &res);
    if (rc != 0) {
        errno = EADDRNOTAVAIL;
        return err_set(e, "cannot listen on %s:%u: %s", host, port,
                       gai_strerror(rc));
    }
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
            listen(fd, 1024) == 0 && set_nonblock(fd) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        errno = saved;
        return err_set(e, "cannot listen on %s:%u: %s", host, port,
                       strerror(saved));
    }
    return fd;
}

int listen_bind_unix(const char *path, struct err *e)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    mode_t old;
    int fd, rc;

    if (strlen(path) >= sizeof(sun.sun_path)) {
        errno = ENAMETOOLONG;
        return err_set(e, "unix socket path %s is longer than %zu bytes", path,
                       sizeof(sun.sun_path) - 1);
    }
    strcpy(sun.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set(e, "socket: %s", strerror(errno));
    /* The caller holds the pid file lock, so a socket file left here
     * belongs to a controller that is gone. */
    if (unlink(path) < 0 && errno != ENOENT)
        goto error;
    /* 0666, for every local user, from the umask at bind: a chmod by
     * name afterwards would follow whatever is at path by then */
    old = umask(0111);
    rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
    umask(old);
    if (rc < 0 || listen(fd, 1024) < 0 || set_nonblock(fd) < 0)
        goto error;
    return fd;
error:
    err_set(e, "cannot listen on %s: %s", path, strerror(errno));
    close(fd);
    return -1;
}

/* ---- output ----------------------------------------------------------- */

static void mark_dirty(struct conn *conn)
{
    if (conn->dirty)
        return;
    conn->dirty = true;
    conn->dirty_next = conn->l->dirty;
    conn->l->dirty = conn;
    loop_kick(conn->l->env.loop);
}

/* Where output goes now: held while a transaction is open (or while
 * something older is held, to keep order), else the socket. */
static struct evbuffer *outbuf(struct conn *conn)
{
    if (loop_holding(conn->l->env.loop) ||
        evbuffer_get_length(conn->held) > 0) {
        mark_dirty(conn);
        return conn->held;
    }
    return bufferevent_get_output(conn->bev);
}

static int send_frame(struct conn *conn, uint16_t type, uint8_t flags,
                      uint32_t seq, json_t *body, struct err *e)
{
    struct listen *l = conn->l;
    struct auth *a = conn->is_unix ? NULL : l->env.auth;
    char to[AUTH_TAG_MAX + 1];

    if (conn->dead) {
        errno = ENOTCONN;
        return err_set(e, "connection to %s is closed", conn->peer_name);
    }
    /* a node's connection gets frames for that node alone (auth.h) */
    l->ops.auth_tag(l->arg, conn->node, to, sizeof(to));
    return proto_encode_signed_to(a, to, type, flags, seq, body, outbuf(conn),
                                  e);
}

static void send_error(struct conn *conn, uint16_t type, uint32_t seq, int code,
                       const char *msg)
{
    json_t *body = proto_error_body(code, "%s", msg);
    struct err e;

    if (type == 0)
        type = PROTO_MSG_ERROR;
    if (send_frame(conn, type, PROTO_F_REPLY | PROTO_F_ERROR, seq, body, &e) <
        0)
        log_warnx("peer=%s cannot send an error reply: %s", conn->peer_name,
                  e.text);
    json_decref(body);
}

static void send_reply(struct conn *conn, const struct proto_frame *req,
                       json_t *body)
{
    struct err e;

    if (send_frame(conn, req->type, PROTO_F_REPLY, req->seq, body, &e) == 0)
        return;
    /* a reply over the frame limit: say so rather than go silent */
    log_warnx("peer=%s type=%s reply not sent: %s", conn->peer_name,
              proto_type_name(req->type), e.text);
    send_error(conn, req->type, req->seq, errno, e.text);
}

int listen_request(struct conn *conn, uint16_t type, json_t *body,
                   listen_reply_fn fn, void *ctx, uint64_t arg, struct err *e)
{
    uint32_t seq = ++conn->next_seq;
    struct pending *p;

    if (seq == 0)
        seq = ++conn->next_seq;
    if (send_frame(conn, type, 0, seq, body, e) < 0)
        return -1;
    p = xcalloc(1, sizeof(*p));
    *p = (struct pending){seq, type, fn, ctx, arg, conn->pending};
    conn->pending = p;
    return 0;
}

/* ---- connection life -------------------------------------------------- */

static size_t out_len(struct conn *conn)
{
    return evbuffer_get_length(conn->held) +
           evbuffer_get_length(bufferevent_get_output(conn->bev));
}

/* Keeps listen's out_total: the output of all connections not yet read. */
static void out_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
                   void *arg)
{
    struct listen *l = arg;

    (void)buf;
    l->out_total += info->n_added;
    l->out_total -= info->n_deleted;
}

static void in_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
                  void *arg)
{
    struct listen *l = arg;

    (void)buf;
    l->in_total += info->n_added;
    l->in_total -= info->n_deleted;
}

static void conn_free(struct conn *conn)
{
    struct listen *l = conn->l;
    struct pending *p;

    conn->dead = true;
    if (conn->dirty) {
        struct conn **pp = &l->dirty;
        while (*pp != conn)
            pp = &(*pp)->dirty_next;
        *pp = conn->dirty_next;
    }
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        l->conns = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    if (conn->node >= 0)
        l->ops.closed(l->arg, conn, conn->node);
    peers_del(l->peers, conn->peer_key);
    while ((p = conn->pending) != NULL) {
        conn->pending = p->next;
        if (p->fn)
            p->fn(p->ctx, conn, p->arg, NULL);
        free(p);
    }
    log_debug("peer=%s closed", conn->peer_name);
    evbuffer_remove_cb(bufferevent_get_output(conn->bev), out_cb, l);
    evbuffer_remove_cb(conn->held, out_cb, l);
    evbuffer_remove_cb(bufferevent_get_input(conn->bev), in_cb, l);
    l->out_total -= out_len(conn);
    l->in_total -= evbuffer_get_length(bufferevent_get_input(conn->bev));
    bufferevent_free(conn->bev);
    evbuffer_free(conn->held);
    free(conn);
}

void listen_counts(const struct listen *l, struct listen_counts *out)
{
    *out = (struct listen_counts){0};
    for (const struct conn *c = l != NULL ? l->conns : NULL; c != NULL;
         c = c->next) {
        if (c->node >= 0)
            out->nodes++;
        else if (c->is_unix)
            out->local++;
        else
            out->tcp++;
    }
}

/* A closing connection goes once everything it was sent is written. */
static bool conn_maybe_free(struct conn *conn)
{
    if (!conn->closing || evbuffer_get_length(conn->held) > 0 ||
        evbuffer_get_length(bufferevent_get_output(conn->bev)) > 0)
        return false;
    conn_free(conn);
    return true;
}

static void throttle(struct conn *conn)
{
    conn->throttled = true;
    bufferevent_disable(conn->bev, EV_READ);
    bufferevent_setwatermark(conn->bev, EV_WRITE, PEERS_OUT_LOW, 0);
    log_warnx("peer=%s not reading its replies: paused", conn->peer_name);
}

static void unthrottle(struct conn *conn)
{
    conn->throttled = false;
    bufferevent_setwatermark(conn->bev, EV_WRITE, 0, 0);
    bufferevent_enable(conn->bev, EV_READ);
    /* frames already buffered are read from the loop, not from here */
    bufferevent_trigger(conn->bev, EV_READ, BEV_TRIG_DEFER_CALLBACKS);
}

static void conn_close_after_output(struct conn *conn)
{
    conn->closing = true;
    bufferevent_disable(conn->bev, EV_READ);
}

static void handle_reply(struct conn *conn, const struct proto_frame *f)
{
    struct pending **pp = &conn->pending;

    for (; *pp != NULL; pp = &(*pp)->next) {
        struct pending *p = *pp;
        if (p->seq != f->seq || p->type != f->type)
            continue;
        *pp = p->next;
        if (p->fn)
            p->fn(p->ctx, conn, p->arg, f);
        free(p);
        return;
    }
    log_debug("peer=%s unmatched reply type=%u seq=%u", conn->peer_name,
              f->type, f->seq);
}

static void handle_request(struct conn *conn, const struct proto_frame *f)
{
    struct listen *l = conn->l;
    const struct auth_id *who = conn->is_unix ? &conn->peer : &f->who;
    json_t *reply = NULL;
    struct err e;

    if (f->type == PROTO_MSG_PING) {
        reply = json_pack("{s:s, s:I}", "version", SLUICE_VERSION, "now",
                          (json_int_t)time(NULL));
        if (l->env.statedir != NULL)
            json_object_set_new(reply, "state", statedir_json(l->env.statedir));
        send_reply(conn, f, reply);
        json_decref(reply);
        return;
    }
    err_clear(&e);
    if (l->ops.dispatch(l->arg, conn, f, who, &reply, &e) < 0) {
        send_error(conn, f->type, f->seq, errno ? errno : EINVAL, e.text);
        return;
    }
    send_reply(conn, f, reply);
    json_decref(reply);
}

/* A frame that failed to decode: reply, and close when the stream is
 * no longer trustworthy.  Returns true when reading must stop. */
/* A credential of TCP peer conn refused for why: counted per address, so
 * that sluice doctor can name a node with another key (core/stats.h). */
static void count_refused(struct conn *conn, const char *why)
{
    const char *addr = conn->peer_key;

    if (conn->is_unix)
        return;
    if (strncmp(addr, "addr:", 5) == 0)
        addr += 5;
    stats_auth_refused(conn->l->env.stats, addr, why, time(NULL));
}

static bool handle_bad_frame(struct conn *conn, const struct proto_frame *f,
                             int code, const struct err *e)
{
    log_warnx("peer=%s bad frame type=%u seq=%u: %s", conn->peer_name, f->type,
              f->seq, e->text);
    if (code == EACCES)
        count_refused(conn, e->text);
    send_error(conn, f->type, f->seq, code, e->text);
    /* a refused credential ends the connection: a peer without the key
     * gets nothing more out of it than one error reply */
    if (code == EPROTONOSUPPORT || code == EIO)
        return false;
    conn_close_after_output(conn);
    return true;
}

/* Refuse conn: an error reply saying why, and close after it. */
static void refuse(struct conn *conn, uint16_t type, uint32_t seq, int code,
                   const char *msg)
{
    log_warnx("peer=%s refused: %s", conn->peer_name, msg);
    send_error(conn, type, seq, code, msg);
    conn_close_after_output(conn);
}

/*
 * A TCP peer that has not authenticated may send a body over
 * PROTO_UNAUTH_BODY only once the credential in front of it passed
 * auth_precheck (the key's MAC and the time window), so that nobody
 * without the key makes the controller buffer megabytes.  Returns false
 * when conn was refused.
 */
static bool gate_frame(struct conn *conn, struct evbuffer *in)
{
    struct auth *a = conn->l->env.auth;
    size_t have = evbuffer_get_length(in);
    const uint8_t *p;
    uint32_t body_len;
    uint16_t cred_len;
    char msg[640];
    struct err e;

    if (conn->is_unix || conn->authed || conn->prechecked ||
        have < PROTO_HEADER_LEN)
        return true;
    p = evbuffer_pullup(in, PROTO_HEADER_LEN);
    body_len = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
               (uint32_t)p[6] << 8 | p[7];
    cred_len = (uint16_t)(p[8] << 8 | p[9]);
    if (body_len <= PROTO_UNAUTH_BODY || cred_len > PROTO_MAX_CRED ||
        body_len > PROTO_MAX_BODY)
        return true; /* small, or the decoder refuses it */
    if (have < PROTO_HEADER_LEN + (size_t)cred_len)
        return true;
    p = evbuffer_pullup(in, PROTO_HEADER_LEN + (ev_ssize_t)cred_len);
    err_clear(&e);
    if (auth_precheck(a, (const char *)p + PROTO_HEADER_LEN, cred_len, &e) ==
        0) {
        conn->prechecked = true;
        return true;
    }
    /* auth/munge cannot check before the body: such frames (a node's
     * first registration, an old client) are read while all frames
     * being read stay under PEERS_UNAUTH_ALL */
    if (auth_get_type(a) == AUTH_MUNGE && cred_len > 0 &&
        conn->l->in_total < PEERS_UNAUTH_ALL) {
        conn->prechecked = true;
        return true;
    }
    count_refused(conn, e.text);
    snprintf(msg, sizeof(msg),
             "a frame body of %u bytes from a peer that has not "
             "authenticated (the limit is %u bytes): %s",
             body_len, PROTO_UNAUTH_BODY, e.text);
    refuse(conn, (uint16_t)(p[10] << 8 | p[11]),
           (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 |
               (uint32_t)p[18] << 8 | p[19],
           EACCES, msg);
    return false;
}

/* Too much output waits: for this peer, or for all of them together
 * (then a peer holding more than a little of it waits too). */
static bool too_much_output(struct conn *conn)
{
    size_t n = out_len(conn);

    return n > PEERS_OUT_CONN ||
           (conn->l->out_total > PEERS_OUT_ALL && n > PEERS_OUT_LOW);
}

/* One decoded frame (or a bad one); false when reading must stop. */
static bool conn_frame(struct conn *conn, struct evbuffer *in, bool *none)
{
    struct auth *a = conn->l->env.auth;
    struct proto_frame f;
    struct err e;
    int rc;

    *none = false;
    if (!gate_frame(conn, in))
        return false;
    err_clear(&e);
    rc = proto_decode(in, conn->is_unix ? NULL : a, &f, &e);
    if (rc == 0) {
        *none = true;
        return false;
    }
    conn->prechecked = false;
    conn->last_ms = clock_mono_ms();
    conn->frame_ms = 0;
    if (rc < 0) {
        int code = errno;
        bool stop = handle_bad_frame(conn, &f, code, &e);
        proto_frame_clear(&f);
        return !stop;
    }
    if (f.verified)
        conn->authed = true;
    if (f.flags & PROTO_F_REPLY)
        handle_reply(conn, &f);
    else
        handle_request(conn, &f);
    proto_frame_clear(&f);
    if (too_much_output(conn))
        throttle(conn);
    return true;
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
    struct conn *conn = arg;
    struct loop *loop = conn->l->env.loop;
    struct evbuffer *in = bufferevent_get_input(bev);
    int64_t start = clock_mono_ms();
    bool none = false;
    int n = 0;

    while (!conn->closing && !conn->throttled) {
        if (n > 0 && (n == CONN_FRAMES_PER_TURN ||
                      clock_mono_ms() - start >= CONN_TURN_MS)) {
            /* fairness: the rest on a later turn of the loop */
            bufferevent_trigger(bev, EV_READ, BEV_TRIG_DEFER_CALLBACKS);
            break;
        }
        if (!conn_frame(conn, in, &none))
            break;
        n++;
    }
    if (none && conn->frame_ms == 0 && evbuffer_get_length(in) > 0)
        conn->frame_ms = clock_mono_ms();
    if (none && conn->l->in_total > PEERS_IN_ALL &&
        evbuffer_get_length(in) > PROTO_UNAUTH_BODY) {
        /* many large frames arriving at once: this one waits elsewhere */
        char msg[96];
        snprintf(msg, sizeof(msg),
                 "sluicectld holds over %u MiB of unread frames; try again "
                 "later",
                 PEERS_IN_ALL >> 20);
        refuse(conn, 0, 0, EAGAIN, msg);
        evbuffer_drain(in, evbuffer_get_length(in));
    }
    conn_maybe_free(conn);
    if (loop_txn_old(loop))
        loop_flush(loop);
}

static void conn_write_cb(struct bufferevent *bev, void *arg)
{
    struct conn *conn = arg;

    (void)bev;
    if (conn->throttled && !conn->closing && out_len(conn) <= PEERS_OUT_LOW)
        unthrottle(conn);
    conn_maybe_free(conn);
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct conn *conn = arg;

    (void)bev;
    if (what & BEV_EVENT_TIMEOUT) {
        log_warnx("peer=%s not reading its replies for %u s: closed",
                  conn->peer_name, conn->l->lim.frame_s);
        conn_free(conn);
    } else if (what & BEV_EVENT_ERROR) {
        log_debug("peer=%s connection error: %s", conn->peer_name,
                  strerror(EVUTIL_SOCKET_ERROR()));
        conn_free(conn);
    } else if (what & BEV_EVENT_EOF) {
        /* A peer that closed its side still gets the replies it asked
         * for, some of which may wait for this iteration's commit. */
        conn_close_after_output(conn);
        conn_maybe_free(conn);
    }
}

static void peer_name(struct conn *conn, struct sockaddr *sa)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];

    if (conn->is_unix) {
        snprintf(conn->peer_name, sizeof(conn->peer_name), "unix:uid=%u",
                 (unsigned)conn->peer.uid);
        snprintf(conn->peer_key, sizeof(conn->peer_key), "uid:%u",
                 (unsigned)conn->peer.uid);
        return;
    }
    if (getnameinfo(sa,
                    sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                              : sizeof(struct sockaddr_in),
                    host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(conn->peer_name, sizeof(conn->peer_name), "tcp:?");
        snprintf(conn->peer_key, sizeof(conn->peer_key), "addr:?");
    } else {
        snprintf(conn->peer_name, sizeof(conn->peer_name), "%s:%s", host, serv);
        snprintf(conn->peer_key, sizeof(conn->peer_key), "addr:%s", host);
    }
}

/* Why a new connection from conn's peer is one too many, or NULL. */
static const char *over_limit(struct listen *l, const struct conn *conn,
                              char *buf, size_t size)
{
    bool trusted = conn->is_unix &&
                   (conn->peer.uid == 0 || conn->peer.uid == l->env.self_uid);

    if (peers_total(l->peers) >= l->lim.max_conns) {
        snprintf(buf, size,
                 "sluicectld has too many connections (%u); try again later",
                 l->lim.max_conns);
        return buf;
    }
    if (!trusted &&
        peers_count(l->peers, conn->peer_key) >= l->lim.max_per_peer) {
        snprintf(
            buf, size,
            "too many connections from %.64s (at most %u); try again later",
            conn->is_unix ? conn->peer_name : conn->peer_key + 5,
            l->lim.max_per_peer);
        return buf;
    }
    return NULL;
}

/* An error frame written straight to fd (it is new: the socket buffer
 * takes it whole), and the connection closed. */
static void refuse_fd(struct listen *l, const struct conn *conn, int fd,
                      const char *msg)
{
    struct evbuffer *out = evbuffer_new();
    json_t *body = proto_error_body(EAGAIN, "%s", msg);
    struct auth *a = conn->is_unix ? NULL : l->env.auth;
    struct err e;

    ASSERT(out != NULL);
    if (proto_encode_signed(a, PROTO_MSG_ERROR, PROTO_F_REPLY | PROTO_F_ERROR,
                            0, body, out, &e) == 0)
        (void)evbuffer_write(out, fd);
    json_decref(body);
    evbuffer_free(out);
    close(fd);
    /* one line a second at most, however hard the peers knock */
    if (l->refused++ == 0)
        log_warnx("peer=%s refused: %s", conn->peer_name, msg);
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd,
                      struct sockaddr *sa, int salen, void *arg)
{
    struct listen *l = arg;
    bool is_unix = lev == l->unx;
    struct timeval wtimeout = {(time_t)l->lim.frame_s, 0};
    struct conn *conn;
    const char *why;
    char msg[160];
    int one = 1;

    (void)salen;
    conn = xcalloc(1, sizeof(*conn));
    conn->l = l;
    conn->is_unix = is_unix;
    conn->node = -1;
    if (is_unix && auth_peer_cred(fd, &conn->peer) < 0) {
        log_warn("unix socket peer without credentials");
        close(fd);
        free(conn);
        return;
    }
    if (!is_unix)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    peer_name(conn, sa);
    if ((why = over_limit(l, conn, msg, sizeof(msg))) != NULL) {
        refuse_fd(l, conn, fd, why);
        free(conn);
        return;
    }
    peers_add(l->peers, conn->peer_key);
    conn->last_ms = clock_mono_ms();
    conn->held = evbuffer_new();
    conn->bev = bufferevent_socket_new(l->env.base, fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_priority_set(conn->bev, LOOP_PRIO_IO);
    bufferevent_setcb(conn->bev, conn_read_cb, conn_write_cb, conn_event_cb,
                      conn);
    bufferevent_set_timeouts(conn->bev, NULL, &wtimeout);
    evbuffer_add_cb(bufferevent_get_output(conn->bev), out_cb, l);
    evbuffer_add_cb(conn->held, out_cb, l);
    evbuffer_add_cb(bufferevent_get_input(conn->bev), in_cb, l);
    /* one frame at most waits in memory: the socket holds the rest */
    bufferevent_setwatermark(conn->bev, EV_READ, 0,
                             PROTO_HEADER_LEN + PROTO_MAX_CRED +
                                 PROTO_MAX_BODY);
    bufferevent_enable(conn->bev, EV_READ | EV_WRITE);
    conn->next = l->conns;
    if (l->conns)
        l->conns->prev = conn;
    l->conns = conn;
    log_debug("peer=%s connected", conn->peer_name);
}

static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
    struct listen *l = arg;
    struct timeval tv = {0, LISTEN_PAUSE_MS * 1000};
    int err = EVUTIL_SOCKET_ERROR();

    (void)lev;
    if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM) {
        log_warnx("accept: %s", strerror(err));
        return;
    }
    /* The listener is level-triggered: left on, it would call back on
     * every turn of the loop.  Pause it and try again a little later. */
    if (event_pending(l->resume_ev, EV_TIMEOUT, NULL))
        return;
    log_warnx("accept: %s: not accepting connections for %d ms "
              "(connections=%zu)",
              strerror(err), LISTEN_PAUSE_MS, peers_total(l->peers));
    if (l->tcp)
        evconnlistener_disable(l->tcp);
    if (l->unx)
        evconnlistener_disable(l->unx);
    evtimer_add(l->resume_ev, &tv);
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
    struct listen *l = arg;

    (void)fd;
    (void)what;
    if (l->tcp)
        evconnlistener_enable(l->tcp);
    if (l->unx)
        evconnlistener_enable(l->unx);
}

/* Deadlines, once a second: a frame begun must be in within frame_s, and
 * a connection with nothing going on goes after idle_s (node daemons'
 * connections stay: they heartbeat at their own pace). */
static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
    struct listen *l = arg;
    int64_t now = clock_mono_ms();
    struct conn *conn, *next;
    char msg[96];

    (void)fd;
    (void)what;
    if (l->refused > 1)
        log_warnx("connections refused: %" PRIu64 " in the last second",
                  l->refused);
    l->refused = 0;
    for (conn = l->conns; conn != NULL; conn = next) {
        next = conn->next;
        if (conn->closing)
            continue;
        if (conn->frame_ms > 0 &&
            now - conn->frame_ms > (int64_t)l->lim.frame_s * 1000) {
            snprintf(msg, sizeof(msg), "a frame was not complete within %u s",
                     l->lim.frame_s);
            refuse(conn, 0, 0, ETIMEDOUT, msg);
            conn_maybe_free(conn);
        } else if (conn->node < 0 && conn->frame_ms == 0 &&
                   conn->pending == NULL && out_len(conn) == 0 &&
                   now - conn->last_ms > (int64_t)l->lim.idle_s * 1000) {
            log_debug("peer=%s idle for %u s: closed", conn->peer_name,
                      l->lim.idle_s);
            conn_free(conn);
        }
    }
}

/* The connection cap, below what RLIMIT_NOFILE leaves after the database,
 * the log and the listeners. */
static void fit_nofile(struct peers_limits *lim)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    if (rl.rlim_cur < PEERS_NOFILE_RESERVE + 16)
        lim->max_conns = 16;
    else if (rl.rlim_cur - PEERS_NOFILE_RESERVE < lim->max_conns)
        lim->max_conns = (uint32_t)(rl.rlim_cur - PEERS_NOFILE_RESERVE);
}

static struct evconnlistener *make_listener(struct listen *l, int fd)
{
    struct evconnlistener *lev;

    lev = evconnlistener_new(l->env.base, accept_cb, l,
                             LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0,
                             fd);
    if (lev != NULL)
        evconnlistener_set_error_cb(lev, accept_error_cb);
    return lev;
}

struct listen *listen_create(const struct listen_env *env,
                             const struct listen_ops *ops, void *arg,
                             int tcp_fd, int unix_fd, struct err *e)
{
    struct listen *l = xcalloc(1, sizeof(*l));
    struct timeval sec = {1, 0};

    l->env = *env;
    l->ops = *ops;
    l->arg = arg;
    l->peers = peers_create();
    if (peers_limits_parse(env->params, &l->lim, e) < 0) {
        listen_destroy(l);
        return NULL;
    }
    fit_nofile(&l->lim);
    l->sweep_ev = event_new(env->base, -1, EV_PERSIST, sweep_cb, l);
    l->resume_ev = evtimer_new(env->base, resume_cb, l);
    ASSERT(l->sweep_ev != NULL && l->resume_ev != NULL);
    event_priority_set(l->sweep_ev, LOOP_PRIO_IO);
    event_priority_set(l->resume_ev, LOOP_PRIO_IO);
    event_add(l->sweep_ev, &sec);
    if (tcp_fd >= 0 && (l->tcp = make_listener(l, tcp_fd)) == NULL)
        goto error;
    if (unix_fd >= 0 && (l->unx = make_listener(l, unix_fd)) == NULL)
        goto error;
    log_info("connections max=%u per_peer=%u idle_s=%u read_s=%u",
             l->lim.max_conns, l->lim.max_per_peer, l->lim.idle_s,
             l->lim.frame_s);
    return l;
error:
    err_set(e, "cannot create a listener: %s", strerror(errno));
    listen_destroy(l);
    return NULL;
}

void listen_destroy(struct listen *l)
{
    int saved = errno;

    if (l == NULL)
        return;
    while (l->conns != NULL)
        conn_free(l->conns);
    if (l->tcp)
        evconnlistener_free(l->tcp);
    if (l->unx)
        evconnlistener_free(l->unx);
    if (l->sweep_ev)
        event_free(l->sweep_ev);
    if (l->resume_ev)
        event_free(l->resume_ev);
    peers_destroy(l->peers);
    free(l);
    errno = saved;
}

void listen_release(struct listen *l)
{
    struct conn *conn = l->dirty;

    l->dirty = NULL;
    while (conn != NULL) {
        struct conn *next = conn->dirty_next;
        conn->dirty = false;
        conn->dirty_next = NULL;
        struct evbuffer *out = bufferevent_get_output(conn->bev);

        evbuffer_add_buffer(out, conn->held);
        /* sent now, not at the next turn of the loop: a JOB_LAUNCH leaves
         * right after its commit (start latency).  What the socket does
         * not take, or an error, is the bufferevent's to handle as
         * before.  A closing or throttled connection waits for
         * conn_write_cb, which only the bufferevent's own writes call. */
        if (!conn->closing && !conn->throttled)
            (void)evbuffer_write(out, bufferevent_getfd(conn->bev));
        conn = next;
    }
}

bool listen_has_held(const struct listen *l)
{
    return l != NULL && l->dirty != NULL;
}

void listen_conn_set_node(struct conn *conn, long node)
{
    conn->node = node;
}

long listen_conn_node(const struct conn *conn)
{
    return conn->node;
}

const char *listen_conn_peer(const struct conn *conn)
{
    return conn->peer_name;
}

bool listen_conn_is_unix(const struct conn *conn)
{
    return conn->is_unix;
}
