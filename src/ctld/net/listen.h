/*
 * The controller's sockets: a TCP listener (credentials on every frame)
 * and a unix socket (identity from SO_PEERCRED), one bufferevent per
 * connection, frame decoding, dispatch of requests to the rpc handlers,
 * replies, and requests the controller itself sends down node connections
 * (nodecmd.h: launch, signal, freeze, kill) with their reply callbacks.
 *
 * Output produced while the iteration's transaction is open is held on the
 * connection and released by listen_release after the commit.
 */
#ifndef SLUICE_CTLD_LISTEN_H
#define SLUICE_CTLD_LISTEN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "common/proto.h"

struct ctld;
struct listen;
struct conn;

/*
 * listen_bind_tcp: a listening TCP socket on host:port (SO_REUSEADDR),
 * before the daemon forks.  listen_bind_unix: the same for a unix socket
 * at path, mode 0666; a stale socket file is replaced.  -1 with e, e.g.
 * "cannot listen on 127.0.0.1:7817: Address already in use".
 */
int listen_bind_tcp(const char *host, uint16_t port, struct err *e);
int listen_bind_unix(const char *path, struct err *e);

/* listen_create: serve tcp_fd and unix_fd (either may be -1; taken over). */
struct listen *listen_create(struct ctld *c, int tcp_fd, int unix_fd,
                             struct err *e);
/* listen_destroy: close every connection and listener (accepts NULL). */
void listen_destroy(struct listen *l);

/*
 * A reply to a request the controller sent.  reply is NULL when the
 * connection closed first; otherwise it is borrowed for the call (check
 * reply->flags & PROTO_F_ERROR).  ctx and arg are the caller's (its
 * context and a job id).
 */
typedef void (*listen_reply_fn)(void *ctx, struct conn *conn, uint64_t arg,
                                const struct proto_frame *reply);

/*
 * listen_request: send a request (body borrowed; NULL is "{}") down conn,
 * signed on TCP, held until the commit like every output.  fn (may be
 * NULL) gets its reply with ctx and arg.  -1 with e when it cannot be
 * encoded.
 */
int listen_request(struct conn *conn, uint16_t type, json_t *body,
                   listen_reply_fn fn, void *ctx, uint64_t arg, struct err *e);

/* listen_release: after a commit, send what was held.  (A failed commit
 * stops the controller before this: ctld_flush.) */
void listen_release(struct listen *l);
/* listen_has_held: whether output waits for a commit. */
bool listen_has_held(const struct listen *l);

/* The node a connection speaks for (-1: none), set on registration. */
void listen_conn_set_node(struct conn *conn, long node);
long listen_conn_node(const struct conn *conn);
/* listen_conn_peer: "127.0.0.1:40312" or "unix:uid=1000"; static to conn. */
const char *listen_conn_peer(const struct conn *conn);
bool listen_conn_is_unix(const struct conn *conn);

#endif
