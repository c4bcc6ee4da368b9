/*
 * Framing: encode frames into libevent buffers, decode them from bytes or
 * buffers with every length checked before it is trusted, the message type
 * registry and error bodies.  The client side is in proto_client.c.
 */
#include "common/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"

static const struct {
    uint16_t type;
    const char *name;
} proto_types[] = {
    {PROTO_MSG_ERROR, "ERROR"},
    {PROTO_MSG_PING, "PING"},
    {PROTO_MSG_SUBMIT, "SUBMIT"},
    {PROTO_MSG_JOB_QUERY, "JOB_QUERY"},
    {PROTO_MSG_JOB_CANCEL, "JOB_CANCEL"},
    {PROTO_MSG_JOB_HOLD, "JOB_HOLD"},
    {PROTO_MSG_JOB_RELEASE, "JOB_RELEASE"},
    {PROTO_MSG_JOB_UPDATE, "JOB_UPDATE"},
    {PROTO_MSG_JOB_ACCT, "JOB_ACCT"},
    {PROTO_MSG_JOB_EXPLAIN, "JOB_EXPLAIN"},
    {PROTO_MSG_JOB_SUSPEND, "JOB_SUSPEND"},
    {PROTO_MSG_JOB_RESUME, "JOB_RESUME"},
    {PROTO_MSG_NODE_QUERY, "NODE_QUERY"},
    {PROTO_MSG_PART_QUERY, "PART_QUERY"},
    {PROTO_MSG_NODE_UPDATE, "NODE_UPDATE"},
    {PROTO_MSG_PART_UPDATE, "PART_UPDATE"},
    {PROTO_MSG_NODE_REGISTER, "NODE_REGISTER"},
    {PROTO_MSG_NODE_HEARTBEAT, "NODE_HEARTBEAT"},
    {PROTO_MSG_JOB_LAUNCH, "JOB_LAUNCH"},
    {PROTO_MSG_JOB_SIGNAL, "JOB_SIGNAL"},
    {PROTO_MSG_JOB_KILL, "JOB_KILL"},
    {PROTO_MSG_JOB_FREEZE, "JOB_FREEZE"},
    {PROTO_MSG_JOB_END, "JOB_END"},
    {PROTO_MSG_ACCT_ADD, "ACCT_ADD"},
    {PROTO_MSG_JOB_CHECKPOINT, "JOB_CHECKPOINT"},
    {PROTO_MSG_ACCT_MODIFY, "ACCT_MODIFY"},
    {PROTO_MSG_ACCT_DELETE, "ACCT_DELETE"},
    {PROTO_MSG_ACCT_LIST, "ACCT_LIST"},
    {PROTO_MSG_PRIO_QUERY, "PRIO_QUERY"},
    {PROTO_MSG_SHARE_QUERY, "SHARE_QUERY"},
    {PROTO_MSG_SCHED_DIAG, "SCHED_DIAG"},
    {PROTO_MSG_STEP_CREATE, "STEP_CREATE"},
    {PROTO_MSG_STEP_LAUNCH, "STEP_LAUNCH"},
    {PROTO_MSG_STEP_SIGNAL, "STEP_SIGNAL"},
    {PROTO_MSG_STEP_KILL, "STEP_KILL"},
    {PROTO_MSG_STEP_END, "STEP_END"},
    {PROTO_MSG_STEP_USAGE, "STEP_USAGE"},
    {PROTO_MSG_STEP_QUERY, "STEP_QUERY"},
    {PROTO_MSG_STEP_CANCEL, "STEP_CANCEL"},
    {PROTO_MSG_JOB_COMPLETE, "JOB_COMPLETE"},
    {PROTO_MSG_ACCT_EVENTS, "ACCT_EVENTS"},
    {PROTO_MSG_JOB_REQUEUE, "JOB_REQUEUE"},
    {PROTO_MSG_RECONFIGURE, "RECONFIGURE"},
    {PROTO_MSG_CONFIG_QUERY, "CONFIG_QUERY"},
    {PROTO_MSG_SET_DEBUG, "SET_DEBUG"},
    {PROTO_MSG_RESV_CREATE, "RESV_CREATE"},
    {PROTO_MSG_RESV_UPDATE, "RESV_UPDATE"},
    {PROTO_MSG_RESV_DELETE, "RESV_DELETE"},
    {PROTO_MSG_RESV_QUERY, "RESV_QUERY"},
    {PROTO_MSG_AUTH_TOKEN, "AUTH_TOKEN"},
};

const char *proto_type_name(uint16_t type)
{
    for (size_t i = 0; i < sizeof(proto_types) / sizeof(proto_types[0]); i++)
        if (proto_types[i].type == type)
            return proto_types[i].name;
    return NULL;
}

void proto_frame_clear(struct proto_frame *f)
{
    free(f->cred);
    json_decref(f->body);
    memset(f, 0, sizeof(*f));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool printable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return false;
    return true;
}

/*
 * Bound a JSON text's nesting and element count before jansson builds it:
 * a 16 MiB body of "[0,0,..." would otherwise cost hundreds of MiB.
 */
static int scan_json(const uint8_t *p, size_t len, int err_no, struct err *e)
{
    size_t values = 1;
    int depth = 0;
    bool in_str = false;

    for (size_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > PROTO_MAX_DEPTH) {
                errno = err_no;
                return err_set(e, "body nested deeper than %d",
                               PROTO_MAX_DEPTH);
            }
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (c == ',' || c == ':') {
            if (++values > PROTO_MAX_VALUES) {
                errno = err_no;
                return err_set(e, "body has more than %u elements",
                               PROTO_MAX_VALUES);
            }
        }
    }
    return 0;
}

static int encode_raw(uint16_t type, uint8_t version, uint8_t flags,
                      uint32_t seq, const char *cred, size_t cred_len,
                      const char *body, size_t body_len, struct evbuffer *out,
                      struct err *e)
{
    uint8_t h[PROTO_HEADER_LEN];

    if (body_len > PROTO_MAX_BODY) {
        errno = EMSGSIZE;
        return err_set(e, "frame body of %zu bytes is over the limit of %u",
                       body_len, PROTO_MAX_BODY);
    }
    if (cred_len > PROTO_MAX_CRED) {
        errno = EMSGSIZE;
        return err_set(e, "credential of %zu bytes is over the limit of %d",
                       cred_len, PROTO_MAX_CRED);
    }
    if (scan_json((const uint8_t *)body, body_len, EMSGSIZE, e) < 0)
        return err_prefix(e, "cannot encode frame");
    errno = EINVAL;
    if (cred_len > 0 && !printable(cred, cred_len))
        return err_set(e, "credential is not printable ASCII");
    if ((flags & ~PROTO_F_KNOWN) != 0)
        return err_set(e, "unknown frame flags 0x%02x", flags);
    put32(h, PROTO_MAGIC);
    put32(h + 4, (uint32_t)body_len);
    put16(h + 8, (uint16_t)cred_len);
    put16(h + 10, type);
    h[12] = version;
    h[13] = flags;
    put16(h + 14, 0);
    put32(h + 16, seq);
    /* Reserve first so that the adds cannot fail half way. */
    if (evbuffer_expand(out, sizeof(h) + cred_len + body_len) < 0 ||
        evbuffer_add(out, h, sizeof(h)) < 0 ||
        (cred_len > 0 && evbuffer_add(out, cred, cred_len) < 0) ||
        evbuffer_add(out, body, body_len) < 0) {
        errno = ENOMEM;
        return err_set(e, "cannot buffer frame");
    }
    return 0;
}

/* Compact JSON text of an object body (NULL: "{}"); free() it. */
static char *dump_body(json_t *body, struct err *e)
{
    char *text;

    if (body == NULL)
        return xstrdup("{}");
    if (!json_is_object(body)) {
        errno = EINVAL;
        err_set(e, "frame body must be a JSON object");
        return NULL;
    }
    text = json_dumps(body, JSON_COMPACT);
    if (text == NULL) {
        errno = EINVAL;
        err_set(e, "cannot serialise frame body");
    }
    return text;
}

int proto_encode(const struct proto_frame *f, struct evbuffer *out,
                 struct err *e)
{
    char *body = dump_body(f->body, e);
    size_t cred_len = f->cred_len;
    int rc;

    if (body == NULL)
        return -1;
    if (f->cred != NULL && cred_len == 0)
        cred_len = strlen(f->cred);
    rc = encode_raw(f->type, f->version ? f->version : PROTO_VERSION, f->flags,
                    f->seq, f->cred, f->cred ? cred_len : 0, body, strlen(body),
                    out, e);
    free(body);
    return rc;
}

int proto_encode_signed(struct auth *a, uint16_t type, uint8_t flags,
                        uint32_t seq, json_t *body, struct evbuffer *out,
                        struct err *e)
{
    return proto_encode_signed_to(a, NULL, type, flags, seq, body, out, e);
}

int proto_encode_signed_to(struct auth *a, const char *to, uint16_t type,
                           uint8_t flags, uint32_t seq, json_t *body,
                           struct evbuffer *out, struct err *e)
{
    char *text = dump_body(body, e);
    char *cred = NULL;
    size_t len;
    int rc = -1;

    if (text == NULL)
        return -1;
    len = strlen(text);
    if (a != NULL &&
        (to != NULL ? auth_sign_to(a, to, type, seq, text, len, &cred, e)
                    : auth_sign(a, type, seq, text, len, &cred, e)) < 0)
        goto out;
    rc = encode_raw(type, PROTO_VERSION, flags, seq, cred,
                    cred ? strlen(cred) : 0, text, len, out, e);
out:
    free(cred);
    free(text);
    return rc;
}

int proto_decode_buf(const uint8_t *p, size_t len, size_t *consumed,
                     struct proto_view *v, struct err *e)
{
    uint32_t magic, body_len;
    uint16_t cred_len, reserved;
    size_t total;

    memset(v, 0, sizeof(*v));
    *consumed = 0;
    if (len < 4)
        return 0;
    magic = get32(p);
    errno = EBADMSG;
    if (magic != PROTO_MAGIC)
        return err_set(e, "bad magic 0x%08x (not a sluice frame)", magic);
    if (len < PROTO_HEADER_LEN)
        return 0;
    body_len = get32(p + 4);
    cred_len = get16(p + 8);
    reserved = get16(p + 14);
    if (reserved != 0)
        return err_set(e, "reserved header field is 0x%04x, not 0", reserved);
    if ((p[13] & ~PROTO_F_KNOWN) != 0)
        return err_set(e, "unknown frame flags 0x%02x", p[13]);
    v->type = get16(p + 10);
    v->version = p[12];
    v->flags = p[13];
    v->seq = get32(p + 16);
    errno = EMSGSIZE;
    if (body_len > PROTO_MAX_BODY)
        return err_set(e, "frame body of %u bytes is over the limit of %u",
                       body_len, PROTO_MAX_BODY);
    if (cred_len > PROTO_MAX_CRED)
        return err_set(e, "credential of %u bytes is over the limit of %d",
                       cred_len, PROTO_MAX_CRED);
    total = PROTO_HEADER_LEN + (size_t)cred_len + body_len;
    *consumed = total;
    if (v->version != PROTO_VERSION) {
        errno = EPROTONOSUPPORT;
        return err_set(e, "unsupported protocol version %u (this is %d)",
                       v->version, PROTO_VERSION);
    }
    if (len < total)
        return 0;
    v->cred = cred_len > 0 ? (const char *)p + PROTO_HEADER_LEN : NULL;
    v->cred_len = cred_len;
    v->body = p + PROTO_HEADER_LEN + cred_len;
    v->body_len = body_len;
    if (!printable(v->cred, cred_len)) {
        errno = EBADMSG;
        return err_set(e, "credential is not printable ASCII");
    }
    return 1;
}

int proto_view_parse(const struct proto_view *v, struct proto_frame *out,
                     struct err *e)
{
    json_error_t jerr;
    json_t *body;

    errno = EBADMSG;
    if (v->body_len == 0)
        return err_set(e, "frame has an empty body");
    if (scan_json(v->body, v->body_len, EBADMSG, e) < 0)
        return -1;
    body = json_loadb((const char *)v->body, v->body_len,
                      JSON_REJECT_DUPLICATES, &jerr);
    if (body == NULL) {
        errno = EBADMSG;
        return err_set(e, "body is not JSON: %s at byte %d", jerr.text,
                       jerr.position);
    }
    if (!json_is_object(body)) {
        json_decref(body);
        errno = EBADMSG;
        return err_set(e, "body is not a JSON object");
    }
    out->type = v->type;
    out->version = v->version;
    out->flags = v->flags;
    out->seq = v->seq;
    out->cred = v->cred_len > 0 ? xstrndup(v->cred, v->cred_len) : NULL;
    out->cred_len = v->cred_len;
    out->body = body;
    return 0;
}

static void copy_header(struct proto_frame *out, const struct proto_view *v)
{
    out->type = v->type;
    out->version = v->version;
    out->flags = v->flags;
    out->seq = v->seq;
}

/* Drop a frame from in, keeping errno for the caller. */
static int skip(struct evbuffer *in, size_t len, int err_no)
{
    evbuffer_drain(in, len);
    errno = err_no;
    return -1;
}

int proto_decode(struct evbuffer *in, struct auth *a, struct proto_frame *out,
                 struct err *e)
{
    size_t have = evbuffer_get_length(in);
    size_t want = have < PROTO_HEADER_LEN ? have : PROTO_HEADER_LEN;
    size_t total = 0;
    struct proto_view v;
    const uint8_t *p;
    int rc;

    memset(out, 0, sizeof(*out));
    if (have == 0)
        return 0;
    p = evbuffer_pullup(in, (ev_ssize_t)want);
    rc = proto_decode_buf(p, want, &total, &v, e);
    copy_header(out, &v);
    if (rc < 0 && errno != EPROTONOSUPPORT)
        return -1;
    if (want < PROTO_HEADER_LEN || have < total)
        return 0; /* a skipped frame, too, is waited for in full */
    if (rc < 0)
        return skip(in, total, EPROTONOSUPPORT);
    p = evbuffer_pullup(in, (ev_ssize_t)total);
    if (proto_decode_buf(p, total, &total, &v, e) < 0)
        return -1;
    if (a != NULL) {
        if (auth_verify(a, v.cred, v.cred_len, v.type, v.seq, v.body,
                        v.body_len, &out->who, e) < 0)
            return skip(in, total, EACCES);
        out->verified = true;
    }
    if (proto_view_parse(&v, out, e) < 0)
        return skip(in, total, EBADMSG);
    evbuffer_drain(in, total);
    return 1;
}

/* jansson wants UTF-8; a message built from bad input may not be. */
static json_t *message_string(char *msg)
{
    json_t *s = json_string(msg);

    if (s != NULL)
        return s;
    for (char *q = msg; *q != '\0'; q++)
        if ((unsigned char)*q >= 0x80 || (unsigned char)*q < 0x20)
            *q = '?';
    return json_string(msg);
}

json_t *proto_error_body(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    json_t *body;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    body = json_pack("{s:{s:i,s:o}}", "error", "code", code, "message",
                     message_string(msg));
    ASSERT(body != NULL);
    return body;
}

int proto_error_parse(json_t *body, int *code, const char **message)
{
    json_t *err = json_object_get(body, "error");
    json_t *c = json_object_get(err, "code");
    json_t *m = json_object_get(err, "message");

    if (!json_is_integer(c) || !json_is_string(m)) {
        errno = EBADMSG;
        return -1;
    }
    *code = (int)json_integer_value(c);
    *message = json_string_value(m);
    return 0;
}
