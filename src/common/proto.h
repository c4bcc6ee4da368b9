/*
 * Frames on the wire (docs/protocol.md, docs/protocol-framing.md): a fixed
 * 20-byte header in network byte order, a credential (ASCII) and a JSON
 * object.  Encoders, an incremental decoder over a libevent buffer, a
 * zero-copy decoder over bytes, the message type registry, error bodies and
 * a small blocking client for CLIs and tests.
 */
#ifndef SLUICE_PROTO_H
#define SLUICE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"

#define PROTO_MAGIC 0x534C4345u /* "SLCE" */
#define PROTO_VERSION 1
#define PROTO_HEADER_LEN 20
#define PROTO_MAX_BODY (16u << 20) /* bytes; job scripts ride in bodies */
#define PROTO_MAX_CRED 4096        /* bytes */
/* The largest body sluicectld reads on a TCP connection on which no frame
 * has verified yet, unless the credential passed auth_precheck. */
#define PROTO_UNAUTH_BODY (64u << 10)
#define PROTO_MAX_DEPTH 32          /* nesting of JSON arrays and objects */
#define PROTO_MAX_VALUES (1u << 20) /* JSON values in one body */

/* flags */
#define PROTO_F_REPLY 0x01
#define PROTO_F_ERROR 0x02
#define PROTO_F_KNOWN (PROTO_F_REPLY | PROTO_F_ERROR)

/* Message types; bodies are described in docs/protocol.md. */
enum proto_type {
    PROTO_MSG_ERROR = 1,
    PROTO_MSG_PING = 2,
    PROTO_MSG_SUBMIT = 10,
    PROTO_MSG_JOB_QUERY = 11,
    PROTO_MSG_JOB_CANCEL = 12,
    PROTO_MSG_JOB_HOLD = 13,
    PROTO_MSG_JOB_RELEASE = 14,
    PROTO_MSG_JOB_UPDATE = 15,
    PROTO_MSG_JOB_ACCT = 16,
    PROTO_MSG_JOB_EXPLAIN = 17,
    PROTO_MSG_JOB_SUSPEND = 18,
    PROTO_MSG_JOB_RESUME = 19,
    PROTO_MSG_NODE_QUERY = 20,
    PROTO_MSG_PART_QUERY = 21,
    PROTO_MSG_NODE_UPDATE = 22,
    PROTO_MSG_PART_UPDATE = 23,
    PROTO_MSG_NODE_REGISTER = 30,
    PROTO_MSG_NODE_HEARTBEAT = 31,
    PROTO_MSG_JOB_LAUNCH = 32,
    PROTO_MSG_JOB_SIGNAL = 33,
    PROTO_MSG_JOB_KILL = 34,
    PROTO_MSG_JOB_END = 35,
    PROTO_MSG_JOB_FREEZE = 36,
    PROTO_MSG_ACCT_ADD = 40,
    PROTO_MSG_ACCT_MODIFY = 41,
    PROTO_MSG_ACCT_DELETE = 42,
    PROTO_MSG_ACCT_LIST = 43,
    PROTO_MSG_ACCT_EVENTS = 44, /* sacctmgr show events */
    PROTO_MSG_PRIO_QUERY = 50,
    PROTO_MSG_SHARE_QUERY = 51,
    PROTO_MSG_SCHED_DIAG = 52,
    PROTO_MSG_JOB_CHECKPOINT = 55,
    PROTO_MSG_JOB_REQUEUE = 56,  /* scontrol requeue, requeuehold */
    PROTO_MSG_RECONFIGURE = 57,  /* scontrol reconfigure */
    PROTO_MSG_CONFIG_QUERY = 58, /* scontrol show config */
    PROTO_MSG_SET_DEBUG = 59,    /* scontrol setdebug */
    /* job steps (docs/protocol.md, "Steps") */
    PROTO_MSG_STEP_CREATE = 60,
    PROTO_MSG_STEP_LAUNCH = 61,
    PROTO_MSG_STEP_SIGNAL = 62,
    PROTO_MSG_STEP_KILL = 63,
    PROTO_MSG_STEP_END = 64,
    PROTO_MSG_STEP_USAGE = 65,
    PROTO_MSG_STEP_QUERY = 66,
    PROTO_MSG_STEP_CANCEL = 67,
    /* interactive allocations (salloc, srun without a job): the end of an
     * allocation job, from its owner (docs/protocol.md, "Allocations") */
    PROTO_MSG_JOB_COMPLETE = 68,
    /* advance reservations (scontrol create|update|delete|show
     * reservation, docs/reservations.md) */
    PROTO_MSG_RESV_CREATE = 70,
    PROTO_MSG_RESV_UPDATE = 71,
    PROTO_MSG_RESV_DELETE = 72,
    PROTO_MSG_RESV_QUERY = 73,
    /* scontrol token: an auth/jwt token for the REST API (docs/rest.md) */
    PROTO_MSG_AUTH_TOKEN = 74,
};

/* The step id of a job's batch script (Slurm's SLURM_BATCH_SCRIPT), shown
 * as "12.batch"; srun's steps are 0, 1, ... */
#define STEP_BATCH_ID 4294967291u
/* The step salloc starts under LaunchParameters=use_interactive_step
 * (Slurm's SLURM_INTERACTIVE_STEP), shown as "12.interactive". */
#define STEP_INTERACTIVE_ID 4294967290u

/* proto_type_name: "SUBMIT" etc. (static), or NULL for an unknown type. */
const char *proto_type_name(uint16_t type);

/* A decoded frame, or one to encode.  The frame owns cred and one
 * reference to body; proto_frame_clear releases both. */
struct proto_frame {
    uint16_t type;
    uint8_t version;
    uint8_t flags;
    uint32_t seq;
    char *cred; /* NUL-terminated, cred_len bytes; NULL when none */
    size_t cred_len;
    json_t *body;       /* a JSON object */
    bool verified;      /* decoded with an auth context that accepted it */
    struct auth_id who; /* when verified */
};

/* proto_frame_clear: free cred and body, zero the frame. */
void proto_frame_clear(struct proto_frame *f);

/*
 * proto_encode: append f (body NULL encodes "{}") to out, compact JSON.
 * Fails with EINVAL (body not an object, cred not printable ASCII) or
 * EMSGSIZE (over the limits); out is unchanged then.
 */
int proto_encode(const struct proto_frame *f, struct evbuffer *out,
                 struct err *e);

/*
 * proto_encode_signed: as proto_encode, with a credential from a over the
 * exact body bytes (a NULL: no credential, for unix sockets).  body is
 * borrowed (NULL: "{}").
 */
int proto_encode_signed(struct auth *a, uint16_t type, uint8_t flags,
                        uint32_t seq, json_t *body, struct evbuffer *out,
                        struct err *e);
/* proto_encode_signed_to: the same for receiver tag to (auth_sign_to; NULL:
 * the context's peer tag). */
int proto_encode_signed_to(struct auth *a, const char *to, uint16_t type,
                           uint8_t flags, uint32_t seq, json_t *body,
                           struct evbuffer *out, struct err *e);

/* A frame seen in place: pointers into the decoded bytes, nothing owned. */
struct proto_view {
    uint16_t type;
    uint8_t version;
    uint8_t flags;
    uint32_t seq;
    const char *cred;
    size_t cred_len;
    const uint8_t *body;
    size_t body_len;
};

/*
 * proto_decode_buf: check the frame at p[0..len) without parsing its body
 * or allocating.  Returns 1 with *v set and *consumed the frame's length;
 * 0 when more bytes are needed (*consumed is the frame's full length once
 * the header is complete, else 0); -1 with errno EBADMSG (bad magic,
 * reserved or flags, a credential that is not printable ASCII), EMSGSIZE
 * (over PROTO_MAX_BODY or PROTO_MAX_CRED) or EPROTONOSUPPORT (another
 * version).  Header faults are reported as soon as the bytes that show
 * them are there, so an oversize frame is refused before it is buffered.
 * Once the header passed its checks, v's header fields are set even on
 * failure, and after EPROTONOSUPPORT *consumed says how much to skip.
 */
int proto_decode_buf(const uint8_t *p, size_t len, size_t *consumed,
                     struct proto_view *v, struct err *e);

/*
 * proto_view_parse: parse v's body into out (which must be clear), after
 * checking it against PROTO_MAX_DEPTH and PROTO_MAX_VALUES; the body must
 * be one JSON object without duplicate keys.  -1 with EBADMSG.
 */
int proto_view_parse(const struct proto_view *v, struct proto_frame *out,
                     struct err *e);

/*
 * proto_decode: take the next frame out of in.  Returns 1 with *out filled
 * (owned by the caller: proto_frame_clear), 0 when in holds only part of
 * a frame, -1 on a bad frame.  With a != NULL the credential is verified
 * over the raw body before the body is parsed (out->verified, out->who);
 * pass NULL on a unix socket and use auth_peer_cred.
 *
 * After -1, out->type, out->seq and out->version are the header's when it
 * could be read (else 0), for the error reply.  errno:
 *   EPROTONOSUPPORT  other version; the frame was skipped, the connection
 *                    may go on
 *   EACCES           the credential was refused (e says why); skipped,
 *                    the connection may go on
 *   EBADMSG, EMSGSIZE  the stream cannot be trusted: reply, then close
 */
int proto_decode(struct evbuffer *in, struct auth *a, struct proto_frame *out,
                 struct err *e);

/*
 * proto_error_body: {"error": {"code": code, "message": "..."}} where code
 * is an errno value.  New reference, owned by the caller.
 */
json_t *proto_error_body(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * proto_error_parse: read an error body; code and message (borrowed from
 * body) are set.  -1 with EBADMSG if body is not an error body.
 */
int proto_error_parse(json_t *body, int *code, const char **message);

/* Blocking client for CLIs and tests. */
struct proto_conn;

/*
 * proto_connect: addr is "host:port", "[v6addr]:port" or "unix:/path".
 * Fails with "cannot reach sluicectld at ADDR: Connection refused" and the
 * like (ETIMEDOUT after timeout_ms; < 0: no limit).  Free with
 * proto_close.
 */
struct proto_conn *proto_connect(const char *addr, int timeout_ms,
                                 struct err *e);

/*
 * proto_call: send one request (signed with a; NULL on a unix socket) and
 * wait up to timeout_ms for the reply carrying its type and seq (other
 * frames are skipped); timeout_ms < 0 waits without limit.  With a != NULL
 * the reply's credential is verified too; under auth/munge a request over
 * PROTO_UNAUTH_BODY on a connection that has not authenticated yet is
 * preceded by a PING (the controller cannot check a munge credential
 * before the body it covers).  *reply is a new reference owned
 * by the caller.  An error reply is -1 with errno set to its code and the
 * server's message in e; a timeout is ETIMEDOUT.  After a transport or
 * framing failure the connection is unusable: close it.
 */
int proto_call(struct proto_conn *c, struct auth *a, uint16_t type, json_t *req,
               json_t **reply, int timeout_ms, struct err *e);

/* proto_conn_fd: the socket, e.g. for auth_peer_cred in tests. */
int proto_conn_fd(const struct proto_conn *c);

/* proto_close: accepts NULL, keeps errno. */
void proto_close(struct proto_conn *c);

#endif
