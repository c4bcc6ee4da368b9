/*
 * The controller connection of sluiced: a bufferevent that connects to
 * SlurmctldHost:SlurmctldPort, registers, heartbeats, matches replies to
 * requests by type and seq, hands the controller's requests to jobs.c,
 * and reconnects with backoff when anything breaks.  State changes are
 * logged once, not per attempt.
 */
#include "noded/conn.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/health.h"
#include "noded/jobs.h"
#include "noded/steps.h"

enum conn_state {
    CONN_IDLE,        /* waiting to retry */
    CONN_CONNECTING,  /* TCP connect in progress */
    CONN_REGISTERING, /* NODE_REGISTER sent */
    CONN_READY,       /* registered */
};

struct pending {
    uint32_t seq;
    uint16_t type;
    conn_reply_fn fn;
    void *arg;
};

struct conn {
    struct noded *nd;
    enum conn_state state;
    struct bufferevent *bev;
    uint64_t gen;
    uint32_t next_seq;
    struct pending *pend;
    size_t n_pend, cap_pend;
    struct event *retry_ev, *hb_ev;
    int backoff_ms;
    int heartbeat_s;
    time_t last_rx;
    char host[256];
    char port[8];
    char problem[512]; /* the last problem logged, so it is logged once */
};

static void conn_drop(struct conn *c, const char *why);
static void conn_send_register(struct conn *c);

/* Log a problem once: the same text again is not logged. */
static void problem(struct conn *c, const char *text)
{
    if (strcmp(c->problem, text) == 0)
        return;
    snprintf(c->problem, sizeof(c->problem), "%s", text);
    log_warnx("controller=%s:%s %s", c->host, c->port, text);
}

static void schedule_retry(struct conn *c)
{
    struct timeval tv = {c->backoff_ms / 1000, (c->backoff_ms % 1000) * 1000};

    c->state = CONN_IDLE;
    evtimer_add(c->retry_ev, &tv);
    c->backoff_ms *= 2;
    if (c->backoff_ms > CONN_BACKOFF_MAX_MS)
        c->backoff_ms = CONN_BACKOFF_MAX_MS;
}

static void send_frame(struct conn *c, uint16_t type, uint8_t flags,
                       uint32_t seq, json_t *body)
{
    struct err e;

    if (c->bev == NULL)
        return;
    if (proto_encode_signed(c->nd->auth, type, flags, seq, body,
                            bufferevent_get_output(c->bev), &e) < 0)
        log_warnx("controller=%s:%s cannot send %s: %s", c->host, c->port,
                  proto_type_name(type), e.text);
}

int conn_request(struct conn *c, uint16_t type, json_t *body, conn_reply_fn fn,
                 void *arg)
{
    struct pending *p;

    if (c->bev == NULL || c->state < CONN_REGISTERING) {
        json_decref(body);
        errno = ENOTCONN;
        return -1;
    }
    if (c->n_pend == c->cap_pend) {
        c->cap_pend = c->cap_pend ? 2 * c->cap_pend : 16;
        c->pend = xreallocarray(c->pend, c->cap_pend, sizeof(*c->pend));
    }
    if (++c->next_seq == 0)
        c->next_seq = 1;
    p = &c->pend[c->n_pend++];
    *p = (struct pending){c->next_seq, type, fn, arg};
    send_frame(c, type, 0, c->next_seq, body);
    json_decref(body);
    return 0;
}

void conn_reply(struct conn *c, uint64_t gen, uint16_t type, uint32_t seq,
                json_t *body)
{
    if (gen == c->gen && c->bev != NULL)
        send_frame(c, type, PROTO_F_REPLY, seq, body);
    json_decref(body);
}

void conn_reply_error(struct conn *c, uint64_t gen, uint16_t type, uint32_t seq,
                      int code, const char *text)
{
    json_t *body = proto_error_body(code, "%s", text);

    if (gen == c->gen && c->bev != NULL)
        send_frame(c, type, PROTO_F_REPLY | PROTO_F_ERROR, seq, body);
    json_decref(body);
}

/* Take the pending request (type, seq) out of the table. */
static bool pending_take(struct conn *c, uint16_t type, uint32_t seq,
                         struct pending *out)
{
    for (size_t i = 0; i < c->n_pend; i++) {
        if (c->pend[i].seq != seq || c->pend[i].type != type)
            continue;
        *out = c->pend[i];
        memmove(&c->pend[i], &c->pend[i + 1],
                (c->n_pend - i - 1) * sizeof(*c->pend));
        c->n_pend--;
        return true;
    }
    return false;
}

static void on_reply(struct conn *c, const struct proto_frame *f)
{
    struct pending p;
    const char *msg = NULL;
    int code = 0;

    if (!pending_take(c, f->type, f->seq, &p)) {
        log_debug("controller reply type=%u seq=%u matches no request", f->type,
                  f->seq);
        return;
    }
    if (f->flags & PROTO_F_ERROR) {
        if (proto_error_parse(f->body, &code, &msg) < 0 || code == 0) {
            code = EPROTO;
            msg = "malformed error reply";
        }
    }
    if (p.fn != NULL)
        p.fn(c->nd, p.arg, code, msg, code ? NULL : f->body);
}

static void on_request(struct conn *c, const struct proto_frame *f)
{
    const char *name = proto_type_name(f->type);
    char text[128];

    switch (f->type) {
    case PROTO_MSG_PING:
        conn_reply(c, c->gen, f->type, f->seq,
                   json_pack("{s:s, s:I}", "version", SLUICE_VERSION, "now",
                             (json_int_t)time(NULL)));
        return;
    case PROTO_MSG_JOB_LAUNCH:
    case PROTO_MSG_JOB_SIGNAL:
    case PROTO_MSG_JOB_KILL:
    case PROTO_MSG_JOB_FREEZE:
        njobs_request(c->nd->jobs, f, c->gen);
        return;
    case PROTO_MSG_STEP_LAUNCH:
    case PROTO_MSG_STEP_SIGNAL:
    case PROTO_MSG_STEP_KILL:
        nsteps_request(c->nd->steps, f, c->gen);
        return;
    default:
        if (name != NULL)
            snprintf(text, sizeof(text), "%s is not served by sluiced", name);
        else
            snprintf(text, sizeof(text), "unknown message type %u", f->type);
        conn_reply_error(c, c->gen, f->type, f->seq, name ? EOPNOTSUPP : ENOSYS,
                         text);
    }
}

/* Who may speak for the controller: root or our own user. */
static bool trusted(const struct proto_frame *f)
{
    return f->verified && (f->who.uid == 0 || f->who.uid == geteuid());
}

static void on_frame(struct conn *c, const struct proto_frame *f)
{
    c->last_rx = time(NULL);
    if (!trusted(f)) {
        log_warnx("controller=%s:%s frame type=%u from uid %u refused", c->host,
                  c->port, f->type, (unsigned)f->who.uid);
        if (!(f->flags & PROTO_F_REPLY))
            conn_reply_error(c, c->gen, f->type, f->seq, EACCES,
                             "sluiced accepts requests only from uid 0 or "
                             "its own uid");
        return;
    }
    if (f->flags & PROTO_F_REPLY)
        on_reply(c, f);
    else
        on_request(c, f);
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;
    uint64_t gen = c->gen;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct proto_frame f = {0};
    struct err e;
    int rc;

    while (c->gen == gen && c->bev == bev &&
           (rc = proto_decode(in, c->nd->auth, &f, &e)) != 0) {
        if (rc == 1) {
            on_frame(c, &f);
            proto_frame_clear(&f);
            continue;
        }
        int err_no = errno;
        log_warnx("controller=%s:%s bad frame type=%u seq=%u: %s", c->host,
                  c->port, f.type, f.seq, e.text);
        if (!(f.flags & PROTO_F_REPLY))
            conn_reply_error(c, c->gen, f.type, f.seq, err_no, e.text);
        if (err_no != EPROTONOSUPPORT && err_no != EACCES) {
            proto_frame_clear(&f);
            conn_drop(c, "the controller sent a frame that cannot be read");
            return;
        }
        proto_frame_clear(&f);
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;
    char why[300];
    int one = 1;

    (void)bev;
    if (what & BEV_EVENT_CONNECTED) {
        setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one,
                   sizeof(one));
        c->state = CONN_REGISTERING;
        c->last_rx = time(NULL);
        conn_send_register(c);
        return;
    }
    if (what & BEV_EVENT_EOF)
        snprintf(why, sizeof(why), "connection closed by the controller");
    else
        snprintf(why, sizeof(why), "%s",
                 evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
    conn_drop(c, why);
}

/* Fail every pending request with ECONNRESET. */
static void fail_pending(struct conn *c)
{
    while (c->n_pend > 0) {
        struct pending p = c->pend[--c->n_pend];
        if (p.fn != NULL)
            p.fn(c->nd, p.arg, ECONNRESET, "connection lost", NULL);
    }
}

/* Close the connection and try again with backoff; why is logged (once
 * while it stays the same), or nothing when it is NULL (the caller said
 * it). */
static void conn_drop(struct conn *c, const char *why)
{
    char text[400];

    if (why != NULL && c->state == CONN_READY) {
        log_warnx("controller=%s:%s state=lost reason=\"%s\" (reconnecting)",
                  c->host, c->port, why);
    } else if (why != NULL) {
        snprintf(text, sizeof(text),
                 "state=unreachable reason=\"%s\" "
                 "(retrying with backoff)",
                 why);
        problem(c, text);
    }
    if (c->bev != NULL)
        bufferevent_free(c->bev);
    c->bev = NULL;
    c->gen++;
    evtimer_del(c->hb_ev);
    fail_pending(c);
    schedule_retry(c);
}

static void conn_connect(struct conn *c)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char why[300];
    int rc;

    rc = getaddrinfo(c->host, c->port, &hints, &ai);
    if (rc != 0) {
        snprintf(why, sizeof(why), "cannot resolve %s: %s", c->host,
                 gai_strerror(rc));
        conn_drop(c, why);
        return;
    }
    c->bev = bufferevent_socket_new(
        c->nd->base, -1, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
    bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    c->state = CONN_CONNECTING;
    rc = bufferevent_socket_connect(c->bev, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (rc < 0)
        conn_drop(c, strerror(errno));
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    conn_connect(arg);
}

/* The controller answers a heartbeat on a connection it does not know as
 * registered (it restarted, or declared us gone) with EAGAIN: register
 * again on a fresh connection. */
static void on_heartbeat_reply(struct noded *nd, void *arg, int code,
                               const char *message, json_t *body)
{
    char why[300];

    (void)arg;
    (void)body;
    if (code == 0 || code == ECONNRESET)
        return;
    snprintf(why, sizeof(why), "heartbeat refused: %s", message);
    if (code == EAGAIN)
        conn_drop(nd->conn, why);
    else
        log_warnx("controller=%s:%s %s", nd->conn->host, nd->conn->port, why);
}

static void on_heartbeat(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    time_t silent = time(NULL) - c->last_rx;
    char why[128];

    (void)fd;
    (void)what;
    if (silent > 3 * c->heartbeat_s + 5) {
        snprintf(why, sizeof(why), "no word from the controller for %llds",
                 (long long)silent);
        conn_drop(c, why);
        return;
    }
    conn_request(c, PROTO_MSG_NODE_HEARTBEAT,
                 json_pack("{s:s, s:o, s:I}", "node", c->nd->name, "jobs",
                           njobs_running_ids(c->nd->jobs), "time",
                           (json_int_t)health_now(c->nd)),
                 on_heartbeat_reply, NULL);
}

struct reg_arg {
    uint32_t *ended;
    size_t n_ended;
};

static void registered(struct conn *c, json_t *body, struct reg_arg *ra)
{
    json_t *hb = json_object_get(body, "heartbeat_s");
    struct timeval tv;

    c->heartbeat_s = CONN_HEARTBEAT_DEFAULT_S;
    if (json_is_integer(hb) && json_integer_value(hb) >= 1 &&
        json_integer_value(hb) <= 86400)
        c->heartbeat_s = (int)json_integer_value(hb);
    c->state = CONN_READY;
    c->backoff_ms = CONN_BACKOFF_MIN_MS;
    c->problem[0] = '\0';
    log_info("controller=%s:%s state=registered node=%s heartbeat_s=%d",
             c->host, c->port, c->nd->name, c->heartbeat_s);
    tv = (struct timeval){c->heartbeat_s, 0};
    event_add(c->hb_ev, &tv);
    njobs_registered(c->nd->jobs, ra->ended, ra->n_ended,
                     json_object_get(body, "kill_jobs"));
}

static void on_register_reply(struct noded *nd, void *arg, int code,
                              const char *message, json_t *body)
{
    struct conn *c = nd->conn;
    struct reg_arg *ra = arg;
    json_t *acc = body ? json_object_get(body, "accepted") : NULL;
    const char *reason = NULL;
    char text[400];

    if (code == ECONNRESET) {
        /* the connection is gone already */
    } else if (code != 0) {
        /* refused (a full state directory, ENOSPC/EROFS, among others):
         * one line while the reason stays the same, then again with
         * backoff */
        snprintf(text, sizeof(text), "state=refused reason=\"%s\"", message);
        problem(c, text);
        conn_drop(c, NULL);
    } else if (!json_is_true(acc)) {
        json_unpack(body, "{s?s}", "reason", &reason);
        snprintf(text, sizeof(text), "state=refused reason=\"%s\"",
                 reason ? reason : "registration not accepted");
        problem(c, text);
        conn_drop(c, NULL);
    } else {
        registered(c, body, ra);
    }
    free(ra->ended);
    free(ra);
}

static void conn_send_register(struct conn *c)
{
    struct noded *nd = c->nd;
    struct reg_arg *ra = xcalloc(1, sizeof(*ra));
    json_t *jobs = njobs_register_list(nd->jobs, &ra->ended, &ra->n_ended);
    json_t *body =
        json_pack("{s:s, s:I, s:I, s:s, s:o, s:o, s:I, s:s}", "node", nd->name,
                  "cpus", (json_int_t)nd->res.cpus, "mem_mib",
                  (json_int_t)nd->res.mem_mib, "gres", nd->res.gres, "gpus",
                  resources_gpus_json(&nd->res), "jobs", jobs, "boot_time",
                  (json_int_t)nd->boot_time, "version", SLUICE_VERSION);

    if (nd->res.gpus.note[0] != '\0')
        json_object_set_new(body, "gres_note", json_string(nd->res.gpus.note));
    health_register(nd, body);

    if (conn_request(c, PROTO_MSG_NODE_REGISTER, body, on_register_reply, ra) <
        0) {
        free(ra->ended);
        free(ra);
    }
}

struct conn *conn_create(struct noded *nd, struct err *e)
{
    struct conn *c = xcalloc(1, sizeof(*c));
    const struct conf_ctld_host *h;

    c->nd = nd;
    if (nd->conf->n_ctld_hosts == 0) {
        free(c);
        errno = EINVAL;
        err_set(e, "%s: no SlurmctldHost", nd->conf_path);
        return NULL;
    }
    h = &nd->conf->ctld_hosts[0];
    snprintf(c->host, sizeof(c->host), "%s", h->addr[0] ? h->addr : h->host);
    snprintf(c->port, sizeof(c->port), "%u", nd->conf->slurmctld_port);
    c->backoff_ms = CONN_BACKOFF_MIN_MS;
    c->heartbeat_s = CONN_HEARTBEAT_DEFAULT_S;
    c->retry_ev = evtimer_new(nd->base, on_retry, c);
    c->hb_ev = event_new(nd->base, -1, EV_PERSIST, on_heartbeat, c);
    return c;
}

void conn_start(struct conn *c)
{
    log_info("controller=%s:%s state=connecting node=%s", c->host, c->port,
             c->nd->name);
    conn_connect(c);
}

bool conn_ready(const struct conn *c)
{
    return c->state == CONN_READY;
}

uint64_t conn_generation(const struct conn *c)
{
    return c->gen;
}

void conn_destroy(struct conn *c)
{
    int saved = errno;

    if (c == NULL)
        return;
    if (c->bev != NULL)
        bufferevent_free(c->bev);
    c->bev = NULL;
    fail_pending(c);
    event_free(c->retry_ev);
    event_free(c->hb_ev);
    free(c->pend);
    free(c);
    errno = saved;
}
