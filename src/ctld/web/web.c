/*
 * The controller's HTTP server (web.h) on libevent's evhttp: TLS when a
 * certificate is configured, auth/jwt tokens, routing by method and path
 * pattern, and replies held until the iteration's commit.
 */
#include "ctld/web/web.h"

#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/jwt.h"
#include "common/log.h"
#include "common/slurmjson.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/core/stats.h"
#include "ctld/net/listen.h"
#include "ctld/rpc/rpc.h"

/* The most "{name}" segments a pattern may have, and path segments. */
#define WEB_MAX_ARGS 8
#define WEB_MAX_SEGS 32
/* A listener that cannot accept (out of descriptors) rests this long. */
#define WEB_ACCEPT_PAUSE_MS 500

struct web {
    struct web_env env;
    struct evhttp *http;
    struct evconnlistener *listener;
    bool bound;              /* evhttp owns the listener */
    struct event *resume_ev; /* accepting again after a pause */
    SSL_CTX *ssl;
    struct web_req *held, **held_tail; /* replies waiting for the commit */
    struct web_req *streams;           /* answers made in slices */
};

struct web_req {
    struct web *w;
    struct evhttp_request *req;
    const struct web_route *route;
    const char *method;
    char *path; /* decoded */
    char *segs[WEB_MAX_SEGS];
    size_t n_segs;
    const char *arg_name[WEB_MAX_ARGS];
    size_t arg_name_len[WEB_MAX_ARGS];
    const char *arg_val[WEB_MAX_ARGS];
    size_t n_args;
    char *rest; /* what "{*}" matched */
    struct evkeyvalq query;
    bool query_parsed;
    const char *body; /* NUL-terminated, in the input buffer */
    size_t body_len;
    json_t *json;
    bool json_parsed;
    bool authenticated;
    struct auth_id who;
    char *user;
    time_t now;
    int64_t t0_us;
    /* the reply, kept while held */
    bool replied;
    int status;
    struct evbuffer *out;
    struct web_req *next;
    /* an answer made in slices (web_reply_stream) */
    web_stream_fn stream_fn;
    void *stream_arg;
    void (*stream_done)(void *arg);
    const char *stream_type;
    bool streaming; /* the head is out */
    struct event *stream_ev;
    struct web_req *stream_next, **stream_prev;
};

static void req_free(struct web_req *wr)
{
    if (wr == NULL)
        return;
    for (size_t i = 0; i < wr->n_segs; i++)
        free(wr->segs[i]);
    free(wr->path);
    free(wr->rest);
    if (wr->query_parsed)
        evhttp_clear_headers(&wr->query);
    json_decref(wr->json);
    free(wr->user);
    if (wr->out != NULL)
        evbuffer_free(wr->out);
    free(wr);
}

/* ------------------------------------------------------------------ */
/* The request.                                                        */

const char *web_req_method(const struct web_req *wr)
{
    return wr->method;
}

const char *web_req_path(const struct web_req *wr)
{
    return wr->path;
}

const char *web_req_arg(const struct web_req *wr, const char *name)
{
    if (strcmp(name, "*") == 0)
        return wr->rest;
    for (size_t i = 0; i < wr->n_args; i++)
        if (strlen(name) == wr->arg_name_len[i] &&
            strncmp(name, wr->arg_name[i], wr->arg_name_len[i]) == 0)
            return wr->arg_val[i];
    return NULL;
}

const char *web_req_query(const struct web_req *wr, const char *key)
{
    return wr->query_parsed ? evhttp_find_header(&wr->query, key) : NULL;
}

const char *web_req_query_unknown(const struct web_req *wr,
                                  const char *const *known)
{
    struct evkeyval *kv;
    size_t i;

    if (!wr->query_parsed)
        return NULL;
    TAILQ_FOREACH(kv, &wr->query, next)
    {
        for (i = 0; known[i] != NULL && strcmp(known[i], kv->key) != 0; i++)
            ;
        if (known[i] == NULL)
            return kv->key;
    }
    return NULL;
}

const char *web_req_header(const struct web_req *wr, const char *name)
{
    return evhttp_find_header(evhttp_request_get_input_headers(wr->req), name);
}

const char *web_req_body(const struct web_req *wr, size_t *len)
{
    struct web_req *w = (struct web_req *)wr; /* the body is read once */

    if (w->body == NULL) {
        struct evbuffer *in = evhttp_request_get_input_buffer(w->req);
        w->body_len = evbuffer_get_length(in);
        /* a NUL after the body, not counted: the body is text to callers */
        evbuffer_add(in, "", 1);
        w->body = (const char *)evbuffer_pullup(in, -1);
    }
    if (len != NULL)
        *len = w->body_len;
    return w->body;
}

json_t *web_req_json(struct web_req *wr, struct err *e)
{
    json_error_t je;
    size_t len;
    const char *body;

    if (wr->json_parsed) {
        if (wr->json == NULL)
            err_set(e, "body: not a JSON object");
        return wr->json;
    }
    wr->json_parsed = true;
    body = web_req_body(wr, &len);
    wr->json = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (wr->json == NULL) {
        err_set(e, "body: line %d column %d: %s", je.line, je.column, je.text);
        return NULL;
    }
    if (!json_is_object(wr->json)) {
        json_decref(wr->json);
        wr->json = NULL;
        err_set(e, "body: not a JSON object");
    }
    return wr->json;
}

bool web_req_authenticated(const struct web_req *wr)
{
    return wr->authenticated;
}

const struct auth_id *web_req_who(const struct web_req *wr)
{
    return &wr->who;
}

const char *web_req_user(const struct web_req *wr)
{
    return wr->user != NULL ? wr->user : "";
}

const struct web_env *web_req_env(const struct web_req *wr)
{
    return &wr->w->env;
}

time_t web_req_now(const struct web_req *wr)
{
    return wr->now;
}

/* The message types a REST request may send: what a user sends with the
 * CLI.  Node daemons' reports and srun's step traffic never come this
 * way. */
static bool rpc_type_allowed(uint16_t type)
{
    switch (type) {
    case PROTO_MSG_SUBMIT:
    case PROTO_MSG_JOB_QUERY:
    case PROTO_MSG_JOB_CANCEL:
    case PROTO_MSG_JOB_HOLD:
    case PROTO_MSG_JOB_RELEASE:
    case PROTO_MSG_JOB_UPDATE:
    case PROTO_MSG_JOB_ACCT:
    case PROTO_MSG_JOB_EXPLAIN:
    case PROTO_MSG_JOB_SUSPEND:
    case PROTO_MSG_JOB_RESUME:
    case PROTO_MSG_JOB_REQUEUE:
    case PROTO_MSG_NODE_QUERY:
    case PROTO_MSG_PART_QUERY:
    case PROTO_MSG_NODE_UPDATE:
    case PROTO_MSG_PART_UPDATE:
    case PROTO_MSG_ACCT_ADD:
    case PROTO_MSG_ACCT_MODIFY:
    case PROTO_MSG_ACCT_DELETE:
    case PROTO_MSG_ACCT_LIST:
    case PROTO_MSG_PRIO_QUERY:
    case PROTO_MSG_SHARE_QUERY:
    case PROTO_MSG_SCHED_DIAG:
    case PROTO_MSG_CONFIG_QUERY:
    case PROTO_MSG_STEP_QUERY:
    case PROTO_MSG_STEP_CANCEL:
    case PROTO_MSG_RESV_QUERY:
    case PROTO_MSG_RESV_CREATE:
    case PROTO_MSG_RESV_UPDATE:
    case PROTO_MSG_RESV_DELETE:
        return true;
    default:
        return false;
    }
}

int web_req_rpc(struct web_req *wr, uint16_t type, json_t *body, json_t **reply,
                struct err *e)
{
    struct proto_frame f = {.type = type, .version = PROTO_VERSION};
    int rc;

    *reply = NULL;
    if (!wr->authenticated || !rpc_type_allowed(type)) {
        json_decref(body);
        errno = EPERM;
        return err_set(e, "%s is not served over HTTP",
                       proto_type_name(type) ? proto_type_name(type) : "?");
    }
    f.body = body != NULL ? body : json_object();
    f.verified = true;
    f.who = wr->who;
    rc = rpc_dispatch(wr->w->env.rpc, NULL, &f, &wr->who, reply, e);
    json_decref(f.body);
    if (rc == 0 && *reply == NULL)
        *reply = json_object();
    return rc;
}

/* ------------------------------------------------------------------ */
/* Replies.                                                            */

static const char *reason_of(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 204:
        return "No Content";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 503:
        return "Service Unavailable";
    case 507:
        return "Insufficient Storage";
    default:
        return status >= 500 ? "Internal Server Error" : "Error";
    }
}

static void send_now(struct web_req *wr)
{
    const char *peer = "";
    char *host = NULL;
    ev_uint16_t port = 0;
    struct evhttp_connection *ec = evhttp_request_get_connection(wr->req);

    if (ec != NULL) {
        evhttp_connection_get_peer(ec, &host, &port);
        peer = host != NULL ? host : "";
    }
    log_debug("http peer=%s:%u method=%s path=%s user=%s status=%d us=%lld",
              peer, (unsigned)port, wr->method, wr->path ? wr->path : "?",
              wr->user ? wr->user : "-", wr->status,
              (long long)(clock_mono_us() - wr->t0_us));
    stats_http(wr->w->env.rpc->stats, wr->status);
    evhttp_send_reply(wr->req, wr->status, reason_of(wr->status), wr->out);
    req_free(wr);
}

/* A reply is only recorded while the handler runs (the handler may go on
 * after it); serve() sends it when the request is done. */
static void reply_done(struct web_req *wr)
{
    wr->replied = true;
}

/* The request is done: send its reply now, or after the commit when a
 * transaction is open (the reply may tell of what it holds). */
static void stream_arm(struct web_req *wr, int delay_ms);
static void stream_forget(struct web_req *wr);

static void finish(struct web_req *wr)
{
    struct web *w = wr->w;

    if (wr->stream_fn != NULL) {
        if (!wr->replied) {
            stream_arm(wr, 0);
            return;
        }
        stream_forget(wr); /* answered otherwise after all */
    }

    if (loop_holding(w->env.loop)) {
        wr->next = NULL;
        *w->held_tail = wr;
        w->held_tail = &wr->next;
        loop_kick(w->env.loop);
        return;
    }
    send_now(wr);
}

/* ------------------------------------------------------------------ */
/* Answers in slices.                                                  */

/* The most bytes a slow reader may leave unread before the next slice
 * waits, and how long it waits then. */
#define WEB_STREAM_BACKLOG (4u << 20)
#define WEB_STREAM_WAIT_MS 10

static void stream_cb(evutil_socket_t fd, short what, void *arg);

static void stream_arm(struct web_req *wr, int delay_ms)
{
    struct timeval tv = {0, delay_ms * 1000};

    if (wr->stream_ev == NULL) {
        struct web *w = wr->w;
        wr->stream_ev = evtimer_new(w->env.base, stream_cb, wr);
        wr->stream_next = w->streams;
        if (w->streams != NULL)
            w->streams->stream_prev = &wr->stream_next;
        wr->stream_prev = &w->streams;
        w->streams = wr;
    }
    evtimer_add(wr->stream_ev, &tv);
}

/* The stream is over (its reply sent or given up): forget it. */
static void stream_forget(struct web_req *wr)
{
    if (wr->stream_done != NULL)
        wr->stream_done(wr->stream_arg);
    wr->stream_fn = NULL;
    wr->stream_done = NULL;
    if (wr->stream_ev != NULL) {
        event_free(wr->stream_ev);
        wr->stream_ev = NULL;
        *wr->stream_prev = wr->stream_next;
        if (wr->stream_next != NULL)
            wr->stream_next->stream_prev = wr->stream_prev;
    }
}

/* End a stream whose head is out: the last chunk, or, failed, the body
 * cut short (the client sees it end early). */
static void stream_end(struct web_req *wr, bool failed)
{
    if (failed)
        log_warnx("http path=%s: the answer was cut short", wr->path);
    log_debug("http method=%s path=%s user=%s status=%d streamed us=%lld",
              wr->method, wr->path, wr->user ? wr->user : "-", wr->status,
              (long long)(clock_mono_us() - wr->t0_us));
    stats_http(wr->w->env.rpc->stats, wr->status);
    evhttp_send_reply_end(wr->req); /* frees a request whose client left */
    stream_forget(wr);
    req_free(wr);
}

static size_t stream_backlog(struct web_req *wr)
{
    struct evhttp_connection *ec = evhttp_request_get_connection(wr->req);
    struct bufferevent *bev =
        ec != NULL ? evhttp_connection_get_bufferevent(ec) : NULL;

    return bev != NULL ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
}

/* One slice: fn's bytes out as a chunk (the head before the first). */
static void stream_cb(evutil_socket_t fd, short what, void *arg)
{
    struct web_req *wr = arg;
    struct evbuffer *buf;
    int rc;

    (void)fd;
    (void)what;
    if (evhttp_request_get_connection(wr->req) == NULL) { /* client left */
        stream_end(wr, false);
        return;
    }
    /* committed state only; and a slow reader is not fed faster than it
     * reads */
    if (loop_holding(wr->w->env.loop) ||
        stream_backlog(wr) > WEB_STREAM_BACKLOG) {
        stream_arm(wr, loop_holding(wr->w->env.loop) ? 0 : WEB_STREAM_WAIT_MS);
        return;
    }
    buf = evbuffer_new();
    rc = wr->stream_fn(wr, buf, wr->stream_arg);
    if (wr->replied) { /* fn answered as any handler does */
        evbuffer_free(buf);
        stream_forget(wr);
        finish(wr);
        return;
    }
    if (evbuffer_get_length(buf) > 0 || (rc != 0 && !wr->streaming)) {
        if (!wr->streaming) {
            web_reply_header(wr, "Content-Type", wr->stream_type);
            web_reply_header(wr, "Cache-Control", "no-store");
            evhttp_send_reply_start(wr->req, wr->status, reason_of(wr->status));
            wr->streaming = true;
        }
        evhttp_send_reply_chunk(wr->req, buf);
    }
    evbuffer_free(buf);
    if (rc == 0)
        stream_arm(wr, 0);
    else
        stream_end(wr, rc < 0);
}

void web_reply_stream(struct web_req *wr, int status, const char *content_type,
                      web_stream_fn fn, void *arg, void (*done)(void *arg))
{
    if (wr->replied || wr->stream_fn != NULL) {
        log_warnx("http path=%s: a second reply dropped", wr->path);
        if (done != NULL)
            done(arg);
        return;
    }
    wr->status = status;
    wr->stream_type = content_type;
    wr->stream_fn = fn;
    wr->stream_arg = arg;
    wr->stream_done = done;
}

/* web_destroy: a stream still going is ended now. */
static void streams_end(struct web *w)
{
    while (w->streams != NULL) {
        struct web_req *wr = w->streams;
        if (wr->streaming) {
            stream_end(wr, true);
        } else {
            stream_forget(wr);
            web_reply_error(wr, 503, EAGAIN, "the controller is stopping");
            send_now(wr);
        }
    }
}

void web_reply_header(struct web_req *wr, const char *name, const char *value)
{
    evhttp_add_header(evhttp_request_get_output_headers(wr->req), name, value);
}

void web_reply_buf(struct web_req *wr, int status, const char *content_type,
                   struct evbuffer *buf)
{
    if (wr->replied) {
        log_warnx("http path=%s: a second reply dropped", wr->path);
        return;
    }
    wr->status = status;
    if (content_type != NULL)
        web_reply_header(wr, "Content-Type", content_type);
    if (buf != NULL)
        evbuffer_add_buffer(wr->out, buf);
    reply_done(wr);
}

void web_reply_text(struct web_req *wr, int status, const char *content_type,
                    const char *data, size_t len)
{
    if (!wr->replied && len > 0)
        evbuffer_add(wr->out, data, len);
    web_reply_buf(wr, status, content_type, NULL);
}

void web_reply_json(struct web_req *wr, int status, json_t *body)
{
    char *text = NULL;

    if (body != NULL)
        text = json_dumps(body, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(body);
    if (text == NULL) {
        web_reply_error(wr, 500, EIO, "the reply could not be encoded");
        return;
    }
    web_reply_header(wr, "Cache-Control", "no-store");
    web_reply_text(wr, status, "application/json", text, strlen(text));
    free(text);
}

void web_reply_error(struct web_req *wr, int status, int code, const char *fmt,
                     ...)
{
    char text[512];
    va_list ap;
    json_t *body;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    body = json_pack("{s:o, s:[{s:s, s:i, s:s}], s:[]}", "meta",
                     slurmjson_meta(SLURMJSON_CTLD), "errors", "error", text,
                     "errno", code, "description", text, "warnings");
    if (body == NULL) /* text not UTF-8: what it was does not matter */
        body = json_pack("{s:o, s:[{s:s, s:i}], s:[]}", "meta",
                         slurmjson_meta(SLURMJSON_CTLD), "errors", "error",
                         "the error's text is not UTF-8", "errno", code,
                         "warnings");
    web_reply_json(wr, status, body);
}

int web_status_of_errno(int code)
{
    switch (code) {
    case EPERM:
    case EACCES:
        return 403;
    case ENOENT:
    case ESRCH:
        return 404;
    case EINVAL:
    case EBADMSG:
    case E2BIG:
    case ERANGE:
        return 400;
    case EAGAIN:
    case EBUSY:
        return 503;
    case ENOSPC:
    case EDQUOT:
    case EROFS:
        return 507;
    default:
        return 500;
    }
}

/* ------------------------------------------------------------------ */
/* Routing.                                                            */

static const char *method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET:
        return "GET";
    case EVHTTP_REQ_HEAD:
        return "HEAD";
    case EVHTTP_REQ_POST:
        return "POST";
    case EVHTTP_REQ_DELETE:
        return "DELETE";
    case EVHTTP_REQ_PUT:
        return "PUT";
    case EVHTTP_REQ_PATCH:
        return "PATCH";
    case EVHTTP_REQ_OPTIONS:
        return "OPTIONS";
    default:
        return "OTHER";
    }
}

/* Whether every % in s[0..len) starts an escape of two hex digits
 * (evhttp_uridecode passes a bad one through as it is). */
static bool escapes_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '%' &&
            (i + 2 >= len || !isxdigit((unsigned char)s[i + 1]) ||
             !isxdigit((unsigned char)s[i + 2])))
            return false;
    return true;
}

/* Split the raw path into decoded segments ("/a/b%20c/" -> "a", "b c").
 * -1 with e on an encoding error, a NUL, ".", "..", or too many. */
static int split_path(struct web_req *wr, const char *raw, struct err *e)
{
    const char *p = raw;
    size_t total = 0;

    if (raw == NULL || raw[0] != '/')
        return err_set(e, "the path must begin with /");
    while (*p == '/')
        p++;
    while (*p != '\0') {
        size_t len = strcspn(p, "/");
        char *enc = xstrndup(p, len);
        size_t n = 0;
        char *dec = escapes_ok(p, len) ? evhttp_uridecode(enc, 0, &n) : NULL;

        free(enc);
        if (dec == NULL || strlen(dec) != n || strcmp(dec, ".") == 0 ||
            strcmp(dec, "..") == 0 || wr->n_segs == WEB_MAX_SEGS) {
            free(dec);
            return err_set(e, "path %.200s: %s", raw,
                           wr->n_segs == WEB_MAX_SEGS
                               ? "too many segments"
                               : "bad segment (encoding, NUL, . or ..)");
        }
        wr->segs[wr->n_segs++] = dec;
        total += n + 1;
        p += len;
        while (*p == '/')
            p++;
    }
    wr->path = xmalloc(total + 2);
    wr->path[0] = '\0';
    for (size_t i = 0; i < wr->n_segs; i++) {
        strcat(wr->path, "/");
        strcat(wr->path, wr->segs[i]);
    }
    if (wr->n_segs == 0)
        strcpy(wr->path, "/");
    return 0;
}

/* Whether pattern matches the request's segments (recording the
 * arguments). */
static bool match(struct web_req *wr, const char *pattern)
{
    const char *p = pattern;
    size_t i = 0;

    wr->n_args = 0;
    free(wr->rest);
    wr->rest = NULL;
    while (*p == '/')
        p++;
    while (*p != '\0') {
        size_t len = strcspn(p, "/");
        if (len == 3 && strncmp(p, "{*}", 3) == 0) {
            size_t n = 0;
            for (size_t j = i; j < wr->n_segs; j++)
                n += strlen(wr->segs[j]) + 1;
            wr->rest = xcalloc(1, n + 1);
            for (size_t j = i; j < wr->n_segs; j++) {
                if (j > i)
                    strcat(wr->rest, "/");
                strcat(wr->rest, wr->segs[j]);
            }
            return true;
        }
        if (i == wr->n_segs)
            return false;
        if (len > 2 && p[0] == '{' && p[len - 1] == '}') {
            if (wr->n_args == WEB_MAX_ARGS || wr->segs[i][0] == '\0')
                return false;
            wr->arg_name[wr->n_args] = p + 1;
            wr->arg_name_len[wr->n_args] = len - 2;
            wr->arg_val[wr->n_args++] = wr->segs[i];
        } else if (strlen(wr->segs[i]) != len ||
                   strncmp(wr->segs[i], p, len) != 0) {
            return false;
        }
        i++;
        p += len;
        while (*p == '/')
            p++;
    }
    return i == wr->n_segs;
}

/* The route for the request: *path_known tells whether some route has
 * this path under another method (405 rather than 404). */
static const struct web_route *route_of(struct web_req *wr, bool *path_known)
{
    const char *m = strcmp(wr->method, "HEAD") == 0 ? "GET" : wr->method;

    *path_known = false;
    for (const struct web_route *const *t = wr->w->env.routes;
         t != NULL && *t != NULL; t++)
        for (const struct web_route *r = *t; r->pattern != NULL; r++) {
            if (!match(wr, r->pattern))
                continue;
            if (strcmp(r->method, m) == 0)
                return r;
            *path_known = true;
        }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Authentication.                                                     */

static bool route_public(const struct web *w, const struct web_route *r)
{
    if (r == NULL)
        return false;
    if (r->flags & WEB_ROUTE_PUBLIC)
        return true;
    return (r->flags & WEB_ROUTE_METRICS) &&
           w->env.conf->sluice_metrics_auth == CONF_METRICS_AUTH_NONE;
}

/* The token of the request: X-SLURM-USER-TOKEN (Slurm's), else
 * "Authorization: Bearer ...". */
static const char *token_of(struct web_req *wr)
{
    const char *t = web_req_header(wr, "X-SLURM-USER-TOKEN");
    const char *a = web_req_header(wr, "Authorization");

    if (t != NULL)
        return t;
    if (a != NULL && strncasecmp(a, "Bearer ", 7) == 0) {
        a += 7;
        while (*a == ' ')
            a++;
        return a;
    }
    return NULL;
}

static int user_id(const char *name, struct auth_id *who, struct err *e)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
        return err_set(e, "user %.64s is unknown to the controller", name);
    who->uid = pw.pw_uid;
    who->gid = pw.pw_gid;
    return 0;
}

/* Check the request's token: 0 with wr->who and wr->user, or -1 with e
 * (why it is refused), or 1 when it carries none. */
static int authenticate(struct web_req *wr, struct err *e)
{
    const struct rpc_env *rpc = wr->w->env.rpc;
    const char *token = token_of(wr);
    const char *as = web_req_header(wr, "X-SLURM-USER-NAME");
    char *user = NULL;
    time_t exp;

    if (token == NULL)
        return 1;
    if (rpc->jwt == NULL)
        return err_set(e, "auth/jwt is not configured (AuthAltTypes)");
    if (jwt_check(rpc->jwt, token, wr->now, &user, &exp, e) < 0)
        return -1;
    if (user_id(user, &wr->who, e) < 0)
        goto error;
    if (as != NULL && strcmp(as, user) != 0) {
        /* the controller's user and root may speak for others, as
         * slurmrestd lets SlurmUser's tokens do */
        if (wr->who.uid != 0 && wr->who.uid != rpc->self_uid) {
            err_set(e, "the token is for %.64s, not %.64s", user, as);
            goto error;
        }
        free(user);
        user = xstrdup(as);
        if (user_id(user, &wr->who, e) < 0)
            goto error;
    }
    wr->user = user;
    wr->authenticated = true;
    return 0;
error:
    free(user);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Serving.                                                            */

/* A reply larger than one write of the bufferevent (16 KiB: /metrics,
 * REST lists) goes out in two; without TCP_NODELAY the second waits for
 * the client's delayed ACK, 40 ms on every request of a kept-alive
 * connection after its first (Prometheus keeps them). */
static void no_delay(struct evhttp_request *req)
{
    struct evhttp_connection *ec = evhttp_request_get_connection(req);
    struct bufferevent *bev =
        ec != NULL ? evhttp_connection_get_bufferevent(ec) : NULL;
    evutil_socket_t fd = bev != NULL ? bufferevent_getfd(bev) : -1;
    int one = 1;

    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The request's route, authentication and handler; every path records
 * exactly one reply, which serve() then sends. */
static void handle(struct web *w, struct web_req *wr)
{
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(wr->req);
    const char *q = uri != NULL ? evhttp_uri_get_query(uri) : NULL;
    const struct web_route *r;
    bool path_known;
    struct err e;
    int rc;

    if (uri == NULL || split_path(wr, evhttp_uri_get_path(uri), &e) < 0) {
        if (uri == NULL)
            err_set(&e, "the request's URI cannot be parsed");
        web_reply_error(wr, 400, EINVAL, "%s", e.text);
        return;
    }
    if (q != NULL) {
        wr->query_parsed = true;
        if (evhttp_parse_query_str(q, &wr->query) < 0) {
            web_reply_error(wr, 400, EINVAL, "the query string is malformed");
            return;
        }
    }
    r = route_of(wr, &path_known);
    rc = authenticate(wr, &e);
    if (rc < 0 || (rc == 1 && !route_public(w, r))) {
        if (rc == 1)
            err_set(&e, "authentication required: send a token "
                        "(scontrol token) in X-SLURM-USER-TOKEN or "
                        "Authorization: Bearer");
        log_info("http method=%s path=%.200s refused: %s", wr->method, wr->path,
                 e.text);
        web_reply_header(wr, "WWW-Authenticate", "Bearer realm=\"sluice\"");
        web_reply_error(wr, 401, EACCES, "%s", e.text);
        return;
    }
    if (r == NULL) {
        if (path_known)
            web_reply_error(wr, 405, EINVAL, "%s is not allowed on %.200s",
                            wr->method, wr->path);
        else
            web_reply_error(wr, 404, ENOENT, "no such resource: %.200s",
                            wr->path);
        return;
    }
    wr->route = r;
    r->fn(wr);
    if (!wr->replied && wr->stream_fn == NULL) {
        log_warnx("http path=%s: the handler made no reply", wr->path);
        web_reply_error(wr, 500, EIO, "the request was not answered");
    }
}

static void serve(struct evhttp_request *req, void *arg)
{
    struct web *w = arg;
    struct web_req *wr = xcalloc(1, sizeof(*wr));

    wr->w = w;
    wr->req = req;
    wr->now = time(NULL);
    wr->t0_us = clock_mono_us();
    wr->out = evbuffer_new();
    wr->method = method_name(evhttp_request_get_command(req));
    no_delay(req);
    web_reply_header(wr, "X-Content-Type-Options", "nosniff");
    handle(w, wr);
    finish(wr);
    /* a steady stream of requests must not starve the commit */
    if (loop_txn_old(w->env.loop))
        loop_flush(w->env.loop);
}

void web_release(struct web *w)
{
    struct web_req *wr;

    if (w == NULL)
        return;
    while ((wr = w->held) != NULL) {
        w->held = wr->next;
        send_now(wr);
    }
    w->held_tail = &w->held;
}

/* ------------------------------------------------------------------ */
/* Set-up.                                                             */

/* "[host:]port" into host (127.0.0.1 when left out) and port. */
static int parse_addr(const char *s, char *host, size_t host_len,
                      uint16_t *port, struct err *e)
{
    const char *colon = strrchr(s, ':');
    const char *p = colon != NULL ? colon + 1 : s;
    char *end;
    unsigned long v;
    size_t hl = colon != NULL ? (size_t)(colon - s) : 0;

    errno = 0;
    v = strtoul(p, &end, 10);
    if (*p == '\0' || *end != '\0' || errno != 0 || v == 0 || v > 65535)
        return err_inval(e,
                         "SluiceRestAddr=%.100s: a port 1-65535 is needed "
                         "(\"[host:]port\")",
                         s);
    if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') { /* [::1]:6820 */
        s++;
        hl -= 2;
    }
    if (colon != NULL && hl == 0)
        return err_inval(e, "SluiceRestAddr=%.100s: empty host", s);
    if (hl >= host_len)
        return err_inval(e, "SluiceRestAddr=%.100s: host too long", s);
    if (colon == NULL)
        snprintf(host, host_len, "127.0.0.1");
    else
        snprintf(host, host_len, "%.*s", (int)hl, s);
    *port = (uint16_t)v;
    return 0;
}

int web_bind(const struct conf *conf, struct err *e)
{
    char host[256];
    uint16_t port = 0;
    int fd;

    if (conf->sluice_rest_addr[0] == '\0')
        return -2;
    if (parse_addr(conf->sluice_rest_addr, host, sizeof(host), &port, e) < 0)
        return -1;
    fd = listen_bind_tcp(host, port, e);
    if (fd < 0)
        err_prefix(e, "SluiceRestAddr");
    return fd;
}

static struct bufferevent *tls_bev(struct event_base *base, void *arg)
{
    SSL *ssl = SSL_new(arg);

    if (ssl == NULL)
        return NULL;
    return bufferevent_openssl_socket_new(
        base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
}

static int tls_setup(struct web *w, struct err *e)
{
    const struct conf *c = w->env.conf;
    const char *key = c->sluice_rest_tls_key[0] ? c->sluice_rest_tls_key
                                                : c->sluice_rest_tls_cert;
    unsigned long code;
    char buf[256];

    if (c->sluice_rest_tls_cert[0] == '\0') {
        if (c->sluice_rest_tls_key[0] != '\0')
            return err_inval(e, "SluiceRestTLSKey is set without "
                                "SluiceRestTLSCert");
        return 0;
    }
    w->ssl = SSL_CTX_new(TLS_server_method());
    if (w->ssl == NULL)
        goto ssl_error;
    SSL_CTX_set_min_proto_version(w->ssl, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(w->ssl, c->sluice_rest_tls_cert) !=
        1)
        goto ssl_error;
    if (SSL_CTX_use_PrivateKey_file(w->ssl, key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(w->ssl) != 1)
        goto ssl_error;
    evhttp_set_bevcb(w->http, tls_bev, w->ssl);
    return 0;
ssl_error:
    code = ERR_get_error();
    ERR_error_string_n(code, buf, sizeof(buf));
    ERR_clear_error();
    errno = EINVAL;
    return err_set(e, "SluiceRestTLSCert=%.200s SluiceRestTLSKey=%.200s: %s",
                   c->sluice_rest_tls_cert, key, code ? buf : "TLS failed");
}

static void resume_accept(evutil_socket_t fd, short what, void *arg)
{
    struct web *w = arg;

    (void)fd;
    (void)what;
    evconnlistener_enable(w->listener);
}

/* Out of descriptors (or another accept error): rest a moment instead of
 * spinning on a listener that stays readable. */
static void accept_error(struct evconnlistener *l, void *arg)
{
    struct web *w = arg;
    struct timeval tv = {0, WEB_ACCEPT_PAUSE_MS * 1000};

    log_warn("http: accept");
    evconnlistener_disable(l);
    evtimer_add(w->resume_ev, &tv);
}

struct web *web_create(const struct web_env *env, int fd, struct err *e)
{
    struct web *w = xcalloc(1, sizeof(*w));

    w->env = *env;
    w->held_tail = &w->held;
    w->http = evhttp_new(env->base);
    w->resume_ev = evtimer_new(env->base, resume_accept, w);
    if (w->http == NULL || w->resume_ev == NULL) {
        err_set(e, "cannot create the HTTP server");
        goto error;
    }
    evhttp_set_max_body_size(w->http, WEB_MAX_BODY);
    evhttp_set_max_headers_size(w->http, WEB_MAX_HEADERS);
    evhttp_set_timeout(w->http, WEB_TIMEOUT_S);
    evhttp_set_allowed_methods(
        w->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                     EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS);
    evhttp_set_gencb(w->http, serve, w);
    if (tls_setup(w, e) < 0)
        goto error;
    w->listener = evconnlistener_new(
        env->base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
        -1, fd);
    if (w->listener == NULL) {
        err_set(e, "cannot serve HTTP on the SluiceRestAddr socket");
        goto error;
    }
    fd = -1;
    if (evhttp_bind_listener(w->http, w->listener) == NULL) {
        err_set(e, "cannot serve HTTP on the SluiceRestAddr socket");
        goto error;
    }
    w->bound = true;
    evconnlistener_set_error_cb(w->listener, accept_error);
    log_info("http: serving%s (docs/rest.md)", w->ssl ? " with TLS" : "");
    return w;
error:
    if (fd >= 0)
        close(fd);
    web_destroy(w);
    return NULL;
}

void web_destroy(struct web *w)
{
    int saved = errno;

    if (w == NULL)
        return;
    web_release(w);
    streams_end(w);
    /* evhttp owns the listener once bound (evhttp_free frees it) */
    if (w->listener != NULL && !w->bound)
        evconnlistener_free(w->listener);
    if (w->http != NULL)
        evhttp_free(w->http);
    if (w->resume_ev != NULL)
        event_free(w->resume_ev);
    if (w->ssl != NULL)
        SSL_CTX_free(w->ssl);
    free(w);
    errno = saved;
}
