/*
 * Connection limits of sluicectld: how many connections it holds in all
 * and per peer (a unix-socket uid, a TCP address), how long a connection
 * may sit idle or take to finish a frame, and how much unread output it
 * may queue.  Defaults fit normal use (hundreds of concurrent sbatch from
 * one user, every node daemon); SchedulerParameters may change them.
 */
#ifndef SLUICE_CTLD_PEERS_H
#define SLUICE_CTLD_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define PEERS_MAX_CONNS 8192       /* connections in all */
#define PEERS_MAX_PER_PEER 1024    /* per uid (unix) or address (TCP) */
#define PEERS_IDLE_S 300           /* no frame begun for this long */
#define PEERS_FRAME_S 30           /* a begun frame must be in by then */
#define PEERS_OUT_CONN (16u << 20) /* unread output: stop reading a peer */
#define PEERS_OUT_LOW (1u << 20)   /* ... and read it again below this */
#define PEERS_OUT_ALL (256u << 20) /* unread output of all connections */
#define PEERS_IN_ALL (128u << 20)  /* frames being read, all connections */
/* auth/munge: a large frame before the connection has authenticated is
 * read only while all frames being read are under this */
#define PEERS_UNAUTH_ALL (64u << 20)
#define PEERS_NOFILE_RESERVE 64 /* descriptors kept for the database etc */

struct peers_limits {
    uint32_t max_conns;
    uint32_t max_per_peer;
    uint32_t idle_s;
    uint32_t frame_s;
};

/*
 * peers_limits_parse: the defaults above, changed by SchedulerParameters
 * keys max_connections, max_connections_per_user, conn_idle_timeout and
 * conn_read_timeout (seconds); other keys are left to their owners.  -1
 * with EINVAL and e ("SchedulerParameters: max_connections=0 is not in
 * 16..1048576").
 */
int peers_limits_parse(const char *params, struct peers_limits *out,
                       struct err *e);

/* Connection counts by peer key ("uid:1000", "addr:10.0.0.7"). */
struct peers;

struct peers *peers_create(void);
/* peers_destroy: accepts NULL. */
void peers_destroy(struct peers *p);
/* peers_add: one more connection for key; returns the new count. */
uint32_t peers_add(struct peers *p, const char *key);
/* peers_del: one fewer (a key at zero is forgotten). */
void peers_del(struct peers *p, const char *key);
/* peers_count: connections of key now. */
uint32_t peers_count(const struct peers *p, const char *key);
/* peers_total: all connections counted. */
size_t peers_total(const struct peers *p);

#endif
