/*
 * The controller's sockets: a TCP listener (credentials on every frame)
 * and a unix socket (identity from SO_PEERCRED), one bufferevent per
 * connection, frame decoding, dispatch of requests to the function the
 * root installed (listen_ops), replies, and requests the controller itself
 * sends down node connections (launch, signal, kill) with their reply
 * callbacks.  It knows frames and peers, not what the requests mean.
 *
 * Output produced while the iteration's transaction is open (loop_holding)
 * is held on the connection and released by listen_release after the
 * commit.
 */
#ifndef SLUICE_CTLD_LISTEN_H
#define SLUICE_CTLD_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "common/proto.h"

struct listen;
struct loop;
struct conn;

/* What listen needs from above, installed by the root; arg is theirs. */
struct listen_ops {
    /*
     * dispatch: serve the request req (borrowed) that came in on conn from
     * who (its credential; on the unix socket, SO_PEERCRED).  0 with
     * *reply set (a new reference; NULL means "{}"), or -1 with errno as
     * the error code and e as the message of the error reply.  Every type
     * but PING comes here, unknown ones too.
     */
    int (*dispatch)(void *arg, struct conn *conn, const struct proto_frame *req,
                    const struct auth_id *who, json_t **reply, struct err *e);
    /* closed: conn, which spoke for node (listen_conn_set_node), is
     * gone.  Called for such connections only. */
    void (*closed)(void *arg, struct conn *conn, long node);
    /* auth_tag: the receiver tag (auth.h) of frames to a connection that
     * speaks for node, or for none (-1), into out (len bytes). */
    void (*auth_tag)(void *arg, long node, char *out, size_t len);
};

/* Where listen runs and what it checks frames with (all borrowed). */
struct statedir;
struct stats;

struct listen_env {
    struct event_base *base; /* with LOOP_NPRIO priorities */
    struct loop *loop;       /* holds output while a transaction is open */
    struct auth *auth;       /* signs TCP frames, verifies them */
    uid_t self_uid;     /* unix peers of this uid (and root): no per-peer cap */
    const char *params; /* SchedulerParameters: the connection limits */
    /* whether StateSaveLocation takes writes, in PING's reply (may be
     * NULL) */
    const struct statedir *statedir;
    /* where refused credentials are counted per peer address (may be
     * NULL) */
    struct stats *stats;
};

/*
 * listen_bind_tcp: a listening TCP socket on host:port (SO_REUSEADDR),
 * before the daemon forks.  listen_bind_unix: the same for a unix socket
 * at path, mode 0666; a stale socket file is replaced.  -1 with e, e.g.
 * "cannot listen on 127.0.0.1:7817: Address already in use".
 */
int listen_bind_tcp(const char *host, uint16_t port, struct err *e);
int listen_bind_unix(const char *path, struct err *e);

/*
 * listen_create: serve tcp_fd and unix_fd (either may be -1; taken over)
 * in env (copied; what it points to is borrowed), calling ops with arg.
 * NULL with e (bad connection limits in env->params, or no listener).
 */
struct listen *listen_create(const struct listen_env *env,
                             const struct listen_ops *ops, void *arg,
                             int tcp_fd, int unix_fd, struct err *e);
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
 * stops the controller before this: the root's flush.) */
void listen_release(struct listen *l);
/* listen_has_held: whether output waits for a commit. */
bool listen_has_held(const struct listen *l);

/* Open connections by kind (GET /metrics): those of node daemons, and
 * the others on the unix socket and on TCP. */
struct listen_counts {
    size_t nodes, local, tcp;
};
void listen_counts(const struct listen *l, struct listen_counts *out);

/* The node a connection speaks for (-1: none), set on registration. */
void listen_conn_set_node(struct conn *conn, long node);
long listen_conn_node(const struct conn *conn);
/* listen_conn_peer: "127.0.0.1:40312" or "unix:uid=1000"; static to conn. */
const char *listen_conn_peer(const struct conn *conn);
bool listen_conn_is_unix(const struct conn *conn);

#endif
