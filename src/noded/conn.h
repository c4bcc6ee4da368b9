/*
 * sluiced's one TCP connection to the controller: connect with backoff
 * (100 ms doubling to 5 s), NODE_REGISTER first, heartbeats every
 * heartbeat_s, requests both ways on the same connection, every frame
 * signed and verified with the node's auth context.
 */
#ifndef SLUICE_NODED_CONN_H
#define SLUICE_NODED_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "noded/noded.h"

#define CONN_BACKOFF_MIN_MS 100
#define CONN_BACKOFF_MAX_MS 5000
#define CONN_HEARTBEAT_DEFAULT_S 30

/*
 * Called once with the controller's answer to a request: code 0 and the
 * reply body (borrowed), or an errno-like code and a message (an error
 * reply, or ECONNRESET when the connection went away first; body NULL).
 */
typedef void (*conn_reply_fn)(struct noded *nd, void *arg, int code,
                              const char *message, json_t *body);

/* conn_create: resolve nothing yet; conn_start begins connecting.  Free
 * with conn_destroy (accepts NULL). */
struct conn *conn_create(struct noded *nd, struct err *e);
void conn_start(struct conn *c);
void conn_destroy(struct conn *c);

/* conn_ready: registered, so requests other than NODE_REGISTER may go. */
bool conn_ready(const struct conn *c);

/* conn_generation: changes with every new connection, so that a reply
 * prepared for a request of an older connection can be dropped. */
uint64_t conn_generation(const struct conn *c);

/*
 * conn_request: send a request (body is taken over; NULL sends {}); fn
 * (may be NULL) gets the answer.  -1 with ENOTCONN when not connected
 * (fn is not called then).
 */
int conn_request(struct conn *c, uint16_t type, json_t *body, conn_reply_fn fn,
                 void *arg);

/* conn_reply: answer the request (type, seq) of connection gen with body
 * (taken over; NULL sends {}); dropped when that connection is gone. */
void conn_reply(struct conn *c, uint64_t gen, uint16_t type, uint32_t seq,
                json_t *body);
/* conn_reply_error: an ERROR reply with proto_error_body(code, text). */
void conn_reply_error(struct conn *c, uint64_t gen, uint16_t type, uint32_t seq,
                      int code, const char *text);

#endif
