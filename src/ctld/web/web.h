/*
 * The controller's HTTP server (SluiceRestAddr): the REST API (rest*.c),
 * Prometheus metrics (metrics.c) and the dashboard's static files
 * (static.c), on libevent's evhttp in the controller's own loop.  It
 * authenticates each request (auth/jwt tokens, docs/rest.md), routes it by
 * method and path pattern to a handler, and holds a reply made while the
 * iteration's transaction is open until the commit, as the RPC transport
 * does: a client is never told of what the database might lose.
 */
#ifndef SLUICE_CTLD_WEB_H
#define SLUICE_CTLD_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"

struct conf;
struct listen;
struct loop;
struct rpc_env;
struct web;
struct web_req;
struct web_route;

/* The largest request body taken (larger: 413, read no further). */
#define WEB_MAX_BODY (4u << 20)
/* The largest request head (request line and headers): larger, 400. */
#define WEB_MAX_HEADERS (64u << 10)
/* A connection silent for this long is closed. */
#define WEB_TIMEOUT_S 30

/* What the server runs in and serves (all borrowed). */
struct web_env {
    struct event_base *base;
    struct loop *loop;       /* loop_holding: replies wait for the commit */
    const struct conf *conf; /* SluiceRest*, SluiceMetricsAuth, ClusterName */
    /* the subsystems (rpc.h): REST requests are served by rpc_dispatch,
     * and /metrics reads the state and the counters through them; its jwt
     * key checks the tokens (NULL: no auth/jwt, only public routes) */
    const struct rpc_env *rpc;
    /* the protocol's listener, whose connections /metrics counts (may be
     * NULL) */
    const struct listen *listen;
    /* the route tables, each ended by an entry with pattern NULL, the
     * list ended by NULL; the first route that matches serves */
    const struct web_route *const *routes;
};

/*
 * A handler serves one request: it reads it with the web_req_* accessors
 * and answers with exactly one web_reply_* call before it returns.  Its
 * return value is ignored; a handler that forgets to reply is answered
 * 500 by the server.
 */
typedef void (*web_fn)(struct web_req *wr);

/* A route: method ("GET", "POST", "DELETE"; "GET" also serves HEAD) and a
 * path pattern whose "{name}" segments match one non-empty path segment
 * (web_req_arg), and whose last segment "{*}" matches the rest of the path
 * (web_req_arg(wr, "*")). */
struct web_route {
    const char *method;
    const char *pattern;
    web_fn fn;
    unsigned flags;
};
/* no token needed (the dashboard's files, the OpenAPI document; /metrics
 * when SluiceMetricsAuth=none) */
#define WEB_ROUTE_PUBLIC 0x1u
/* public only when SluiceMetricsAuth=none (the default) */
#define WEB_ROUTE_METRICS 0x2u

/* The request. */
const char *web_req_method(const struct web_req *wr); /* "GET" ... */
const char *web_req_path(const struct web_req *wr);   /* decoded, no query */
/* web_req_arg: the path segment the route's "{name}" matched (decoded),
 * or NULL. */
const char *web_req_arg(const struct web_req *wr, const char *name);
/* web_req_query: the value of ?key=... (decoded; "" for a bare key), or
 * NULL when absent. */
const char *web_req_query(const struct web_req *wr, const char *key);
/* web_req_query_unknown: the first query key not in known (a list ended
 * by NULL), or NULL when every key is known (or there is no query). */
const char *web_req_query_unknown(const struct web_req *wr,
                                  const char *const *known);
/* web_req_header: a request header's value, or NULL. */
const char *web_req_header(const struct web_req *wr, const char *name);
/* web_req_body: the body (NUL-terminated; *len without the NUL). */
const char *web_req_body(const struct web_req *wr, size_t *len);
/* web_req_json: the body as a JSON object (borrowed, parsed once), or NULL
 * with e naming where it is malformed ("body: line 1 column 7: ..."). */
json_t *web_req_json(struct web_req *wr, struct err *e);
/* Who asked: authenticated is false on a public route without a token;
 * user is the name from the token (or the uid's name). */
bool web_req_authenticated(const struct web_req *wr);
const struct auth_id *web_req_who(const struct web_req *wr);
const char *web_req_user(const struct web_req *wr);
const struct web_env *web_req_env(const struct web_req *wr);
/* web_req_now: the time the request came in. */
time_t web_req_now(const struct web_req *wr);

/*
 * web_req_rpc: serve a request of message type (proto.h) with body
 * (stolen; NULL is "{}") through rpc_dispatch, as the request's user,
 * exactly as the same request over the unix socket: the same permission
 * rules.  0 with *reply (a new reference, never NULL), or -1 with errno as
 * the handler's code and e its message.
 */
int web_req_rpc(struct web_req *wr, uint16_t type, json_t *body, json_t **reply,
                struct err *e);

/*
 * Replies: exactly one per request.  The body is stolen (json) or copied
 * (text, buf).  web_reply_json sets Content-Type application/json.
 * web_reply_error answers {"meta":..., "errors":[{"error": text,
 * "errno": code, "description": text}], "warnings": []} with status.
 */
void web_reply_json(struct web_req *wr, int status, json_t *body);
void web_reply_text(struct web_req *wr, int status, const char *content_type,
                    const char *data, size_t len);
void web_reply_buf(struct web_req *wr, int status, const char *content_type,
                   struct evbuffer *buf);
void web_reply_error(struct web_req *wr, int status, int code, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
/*
 * web_reply_stream: answer in slices, one per turn of the loop, so that a
 * large answer (10,000 jobs) never holds the loop for long.  After the
 * handler returns, fn is called once per turn, and only while no
 * transaction is open (it sees committed state), with out, an empty
 * buffer: it appends the next part of the body and returns 0 for more, 1
 * when the body is complete, or -1 when it cannot go on.  The head (status,
 * content_type) goes out with the first bytes; until then fn may answer
 * with any other web_reply_* instead (an error found on the way, or the
 * whole answer at the end), which ends the stream.  Once bytes are out, -1
 * cuts the body short.  A reader slower than the slices is waited for.
 * done(arg) is called once when the stream ends, however it ends (NULL:
 * nothing to free).  The request (web_req_*, web_req_rpc) stays valid for
 * fn.
 */
typedef int (*web_stream_fn)(struct web_req *wr, struct evbuffer *out,
                             void *arg);
void web_reply_stream(struct web_req *wr, int status, const char *content_type,
                      web_stream_fn fn, void *arg, void (*done)(void *arg));
/* web_reply_header: add a header to the coming reply (before it). */
void web_reply_header(struct web_req *wr, const char *name, const char *value);
/* web_status_of_errno: the HTTP status for an RPC error code: EPERM and
 * EACCES 403, ENOENT 404, EINVAL/EBADMSG 400, EAGAIN/EBUSY 503, ENOSPC,
 * EDQUOT and EROFS 507 (StateSaveLocation takes no writes), else 500. */
int web_status_of_errno(int code);

/*
 * web_bind: the listening socket for SluiceRestAddr ("[host:]port", host
 * 127.0.0.1 when left out), before the daemon forks; -2 (no error) when
 * the key is unset: no HTTP server.  -1 with e, e.g. "SluiceRestAddr
 * 127.0.0.1:6820: Address already in use".
 */
int web_bind(const struct conf *conf, struct err *e);

/*
 * web_create: serve HTTP on fd (taken over) in env (copied).  Loads the
 * jwt key (AuthAltParameters=jwt_key=) and, when SluiceRestTLSCert is
 * set, the certificate.  NULL with e.  web_destroy: close everything
 * (accepts NULL), answering held replies first.
 */
struct web *web_create(const struct web_env *env, int fd, struct err *e);
void web_destroy(struct web *w);
/* web_release: after a commit, send the replies that waited for it. */
void web_release(struct web *w);

#endif
