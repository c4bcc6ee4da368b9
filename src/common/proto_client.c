/*
 * A blocking client: connect with a timeout, send one request, wait for the
 * reply with its seq.  For CLIs and tests; daemons use libevent.
 */
#include "common/proto.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xalloc.h"

#define PROTO_PEER "sluicectld"

struct proto_conn {
    int fd;
    uint32_t next_seq;
    bool authed; /* a signed call on it was answered */
    struct evbuffer *in;
    char *addr;
};

/* Milliseconds left before deadline (-1: none) for poll. */
static int left_ms(int64_t deadline)
{
    int64_t left;

    if (deadline < 0)
        return -1;
    left = deadline - clock_mono_ms();
    if (left < 0)
        return 0;
    return left > 1000000000 ? 1000000000 : (int)left;
}

/* Wait for events on fd; -1 with ETIMEDOUT when the deadline passes. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    struct pollfd pfd = {.fd = fd, .events = events};

    for (;;) {
        int n = poll(&pfd, 1, left_ms(deadline));
        if (n > 0)
            return 0;
        if (n == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR)
            return -1;
    }
}

/* Connect a non-blocking socket to sa, waiting until deadline. */
static int connect_one(int family, const struct sockaddr *sa, socklen_t len,
                       int64_t deadline)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int soerr = 0;
    socklen_t sl = sizeof(soerr);

    if (fd < 0)
        return -1;
    for (;;) {
        if (connect(fd, sa, len) == 0)
            return fd;
        /* A unix socket with a full backlog: no async connect, retry. */
        if (errno != EAGAIN || family != AF_UNIX)
            break;
        if (left_ms(deadline) == 0) {
            errno = ETIMEDOUT;
            goto error;
        }
        usleep(5000);
    }
    if (errno != EINPROGRESS && errno != EINTR)
        goto error;
    if (wait_fd(fd, POLLOUT, deadline) < 0)
        goto error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
        goto error;
    if (soerr != 0) {
        errno = soerr;
        goto error;
    }
    return fd;
error:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

static int connect_unix(const char *path, int64_t deadline)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};

    if (strlen(path) >= sizeof(sun.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sun.sun_path, path);
    return connect_one(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun), deadline);
}

/* Split "host:port" or "[v6]:port"; host and port are fresh strings. */
static int split_addr(const char *addr, char **host, char **port)
{
    const char *colon;

    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (close == NULL || close[1] != ':' || close[2] == '\0')
            return -1;
        *host = xstrndup(addr + 1, (size_t)(close - addr - 1));
        *port = xstrdup(close + 2);
        return 0;
    }
    colon = strrchr(addr, ':');
    if (colon == NULL || colon == addr || colon[1] == '\0')
        return -1;
    *host = xstrndup(addr, (size_t)(colon - addr));
    *port = xstrdup(colon + 1);
    return 0;
}

static int connect_tcp(const char *addr, int64_t deadline, struct err *e)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    char *host = NULL, *port = NULL;
    int fd = -1, rc, one = 1;

    if (split_addr(addr, &host, &port) < 0) {
        errno = EINVAL;
        err_set(e, "bad address \"%s\" (want host:port or unix:/path)", addr);
        goto out;
    }
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        errno = EHOSTUNREACH;
        err_set(e, "cannot reach " PROTO_PEER " at %s: %s", addr,
                gai_strerror(rc));
        goto out;
    }
    errno = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
        fd = connect_one(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline);
    if (fd < 0) {
        err_set(e, "cannot reach " PROTO_PEER " at %s: %s", addr,
                strerror(errno));
        goto out;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
out:
    if (res != NULL)
        freeaddrinfo(res);
    free(host);
    free(port);
    return fd;
}

struct proto_conn *proto_connect(const char *addr, int timeout_ms,
                                 struct err *e)
{
    int64_t deadline = timeout_ms < 0 ? -1 : clock_mono_ms() + timeout_ms;
    struct proto_conn *c;
    int fd;

    if (strncmp(addr, "unix:", 5) == 0) {
        fd = connect_unix(addr + 5, deadline);
        if (fd < 0) {
            err_set(e, "cannot reach " PROTO_PEER " at %s: %s", addr,
                    strerror(errno));
            return NULL;
        }
    } else if ((fd = connect_tcp(addr, deadline, e)) < 0) {
        return NULL;
    }
    c = xcalloc(1, sizeof(*c));
    c->fd = fd;
    c->next_seq = 1;
    c->in = evbuffer_new();
    ASSERT(c->in != NULL);
    c->addr = xstrdup(addr);
    return c;
}

int proto_conn_fd(const struct proto_conn *c)
{
    return c->fd;
}

void proto_close(struct proto_conn *c)
{
    int saved = errno;

    if (c != NULL) {
        close(c->fd);
        evbuffer_free(c->in);
        free(c->addr);
        free(c);
    }
    errno = saved;
}

static int send_all(struct proto_conn *c, struct evbuffer *out,
                    int64_t deadline, struct err *e)
{
    size_t len = evbuffer_get_length(out);
    const uint8_t *p = evbuffer_pullup(out, -1);

    while (len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
        if (n >= 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (errno == EINTR)
            continue;
        if ((errno == EAGAIN || errno == EWOULDBLOCK) &&
            wait_fd(c->fd, POLLOUT, deadline) == 0)
            continue;
        return err_set(e, "cannot send to " PROTO_PEER " at %s: %s", c->addr,
                       strerror(errno));
    }
    return 0;
}

/* Read until the reply to (type, seq) is decoded into *f.  Flags are not
 * covered by credentials, so a reply is known by its type and seq too. */
static int recv_reply(struct proto_conn *c, struct auth *a, uint16_t type,
                      uint32_t seq, struct proto_frame *f, int64_t deadline,
                      struct err *e)
{
    for (;;) {
        int rc = proto_decode(c->in, a, f, e);
        if (rc < 0)
            return err_prefix(e, "bad reply from " PROTO_PEER " at %s",
                              c->addr);
        if (rc > 0) {
            if ((f->flags & PROTO_F_REPLY) && f->seq == seq && f->type == type)
                return 0;
            /* refused as a whole (too many connections, a credential
             * refused before the frame was read): the answer is that */
            if ((f->flags & PROTO_F_ERROR) && f->seq == 0)
                return 0;
            log_debug("proto: skipping frame type=%u seq=%u from %s", f->type,
                      f->seq, c->addr);
            proto_frame_clear(f);
            continue;
        }
        if (wait_fd(c->fd, POLLIN, deadline) < 0)
            return err_set(e, "no reply from " PROTO_PEER " at %s: %s", c->addr,
                           strerror(errno));
        int n = evbuffer_read(c->in, c->fd, 65536);
        if (n == 0) {
            errno = ECONNRESET;
            return err_set(e, PROTO_PEER " at %s closed the connection",
                           c->addr);
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return err_set(e, "cannot read from " PROTO_PEER " at %s: %s",
                           c->addr, strerror(errno));
    }
}

/* A PING first when the controller could not otherwise take a frame of
 * len bytes from us (see proto_call). */
static int introduce(struct proto_conn *c, struct auth *a, size_t len,
                     int timeout_ms, struct err *e)
{
    json_t *pong = NULL;

    if (a == NULL || c->authed || auth_get_type(a) != AUTH_MUNGE ||
        len <= PROTO_UNAUTH_BODY)
        return 0;
    if (proto_call(c, a, PROTO_MSG_PING, NULL, &pong, timeout_ms, e) < 0)
        return -1;
    json_decref(pong);
    return 0;
}

int proto_call(struct proto_conn *c, struct auth *a, uint16_t type, json_t *req,
               json_t **reply, int timeout_ms, struct err *e)
{
    int64_t deadline = timeout_ms < 0 ? -1 : clock_mono_ms() + timeout_ms;
    struct evbuffer *out = evbuffer_new();
    struct proto_frame f = {0};
    uint32_t seq = c->next_seq++;
    int code;
    const char *msg;

    ASSERT(out != NULL);
    if (c->next_seq == 0)
        c->next_seq = 1;
    if (proto_encode_signed(a, type, 0, seq, req, out, e) < 0 ||
        introduce(c, a, evbuffer_get_length(out), timeout_ms, e) < 0 ||
        send_all(c, out, deadline, e) < 0 ||
        recv_reply(c, a, type, seq, &f, deadline, e) < 0)
        goto error;
    if (f.flags & PROTO_F_ERROR) {
        if (proto_error_parse(f.body, &code, &msg) < 0) {
            err_set(e, "malformed error reply from " PROTO_PEER " at %s",
                    c->addr);
            goto error;
        }
        err_set(e, "%s", msg);
        errno = code > 0 && code < 4096 ? code : EPROTO;
        goto error;
    }
    *reply = json_incref(f.body);
    c->authed = a != NULL;
    proto_frame_clear(&f);
    evbuffer_free(out);
    return 0;
error:;
    int saved = errno;
    proto_frame_clear(&f);
    evbuffer_free(out);
    errno = saved;
    return -1;
}
