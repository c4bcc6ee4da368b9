/*
 * auth/munge: the credential is a munge credential whose payload binds the
 * frame (version, type, seq, frame hash, nonce).  munged vouches for uid
 * and gid and enforces expiry (the ttl set here) and replay.
 */
#include "common/auth_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define MUNGE_PAYLOAD_VERSION 2 /* 2: the frame hash covers the receiver */
#define MUNGE_PAYLOAD_LEN (1 + 2 + 4 + AUTH_HASH_LEN + REPLAY_NONCE_LEN)
#define MUNGE_CRED_MAX 4096

static const char *munge_socket_name(const struct auth *a)
{
    return a->munge_socket != NULL ? a->munge_socket : "its default socket";
}

int auth_munge_init(struct auth *a, const char *socket, struct err *e)
{
    char *cred = NULL;
    munge_err_t rc;

    a->munge = munge_ctx_create();
    a->munge_dec = munge_ctx_create();
    if (a->munge == NULL || a->munge_dec == NULL) {
        errno = ENOMEM;
        return err_set(e, "auth/munge: cannot create a munge context");
    }
    if (socket != NULL) {
        a->munge_socket = xstrdup(socket);
        if (munge_ctx_set(a->munge, MUNGE_OPT_SOCKET, socket) !=
                EMUNGE_SUCCESS ||
            munge_ctx_set(a->munge_dec, MUNGE_OPT_SOCKET, socket) !=
                EMUNGE_SUCCESS) {
            errno = EINVAL;
            return err_set(e, "auth/munge: cannot use socket %s", socket);
        }
    }
    auth_munge_set_ttl(a);
    /* Fail at start, saying why, rather than on the first frame. */
    rc = munge_encode(&cred, a->munge, NULL, 0);
    free(cred);
    if (rc != EMUNGE_SUCCESS) {
        errno = EIO;
        return err_set(e, "auth/munge: cannot reach munged at %s: %s",
                       munge_socket_name(a), munge_ctx_strerror(a->munge));
    }
    return 0;
}

void auth_munge_fini(struct auth *a)
{
    if (a->munge != NULL)
        munge_ctx_destroy(a->munge);
    if (a->munge_dec != NULL)
        munge_ctx_destroy(a->munge_dec);
    a->munge = a->munge_dec = NULL;
    free(a->munge_socket);
    a->munge_socket = NULL;
}

void auth_munge_set_ttl(struct auth *a)
{
    if (a->munge != NULL)
        munge_ctx_set(a->munge, MUNGE_OPT_TTL, a->ttl_s);
}

static int make_payload(struct auth *a, const char *to, uint16_t type,
                        uint32_t seq, const void *body, size_t len,
                        const uint8_t nonce[REPLAY_NONCE_LEN],
                        uint8_t out[MUNGE_PAYLOAD_LEN])
{
    out[0] = MUNGE_PAYLOAD_VERSION;
    out[1] = (uint8_t)(type >> 8);
    out[2] = (uint8_t)type;
    out[3] = (uint8_t)(seq >> 24);
    out[4] = (uint8_t)(seq >> 16);
    out[5] = (uint8_t)(seq >> 8);
    out[6] = (uint8_t)seq;
    memcpy(out + 7 + AUTH_HASH_LEN, nonce, REPLAY_NONCE_LEN);
    return auth_frame_hash(a, to, type, seq, body, len, out + 7);
}

int auth_munge_sign(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                    const void *body, size_t len, char **cred, struct err *e)
{
    uint8_t nonce[REPLAY_NONCE_LEN], payload[MUNGE_PAYLOAD_LEN];
    char *c = NULL;

    if (a->crypto->RAND_bytes(nonce, sizeof(nonce)) != 1) {
        errno = EIO;
        return err_set(e, "auth/munge: no random bytes from OpenSSL");
    }
    if (make_payload(a, to, type, seq, body, len, nonce, payload) < 0)
        return err_set(e, "auth/munge: cannot hash frame");
    if (munge_encode(&c, a->munge, payload, sizeof(payload)) !=
        EMUNGE_SUCCESS) {
        free(c);
        errno = EIO;
        return err_set(e, "auth/munge: cannot sign with munged at %s: %s",
                       munge_socket_name(a), munge_ctx_strerror(a->munge));
    }
    *cred = c; /* malloc'd by libmunge, freed with free() */
    return 0;
}

static int decode_error(struct auth *a, munge_err_t rc, struct err *e)
{
    errno = EACCES;
    switch (rc) {
    case EMUNGE_CRED_EXPIRED:
        return err_set(e, "auth/munge: credential expired");
    case EMUNGE_CRED_REWOUND:
        return err_set(e, "auth/munge: credential issued in the future "
                          "(clock skew?)");
    case EMUNGE_CRED_REPLAYED:
        return err_set(e, "auth/munge: credential replayed");
    case EMUNGE_SOCKET:
    case EMUNGE_SNAFU:
    case EMUNGE_NO_MEMORY:
        errno = EIO;
        return err_set(e, "auth/munge: cannot verify with munged at %s: %s",
                       munge_socket_name(a), munge_ctx_strerror(a->munge_dec));
    default:
        return err_set(e, "auth/munge: invalid credential: %s",
                       munge_ctx_strerror(a->munge_dec) != NULL
                           ? munge_ctx_strerror(a->munge_dec)
                           : munge_strerror(rc));
    }
}

int auth_munge_verify(struct auth *a, const char *cred, size_t cred_len,
                      uint16_t type, uint32_t seq, const void *body, size_t len,
                      struct auth_id *who, struct err *e)
{
    uint8_t want[MUNGE_PAYLOAD_LEN];
    void *got = NULL;
    int got_len = 0;
    uid_t uid;
    gid_t gid;
    time_t issued = 0;
    char *text = NULL;
    munge_err_t rc;

    errno = EACCES;
    if (cred_len > MUNGE_CRED_MAX || memchr(cred, '\0', cred_len) != NULL) {
        err_set(e, "auth/munge: malformed credential");
        goto error;
    }
    text = xstrndup(cred, cred_len);
    rc = munge_decode(text, a->munge_dec, &got, &got_len, &uid, &gid);
    if (rc != EMUNGE_SUCCESS) {
        decode_error(a, rc, e);
        goto error;
    }
    errno = EACCES;
    if (got_len != MUNGE_PAYLOAD_LEN ||
        ((uint8_t *)got)[0] != MUNGE_PAYLOAD_VERSION) {
        err_set(e, "auth/munge: credential is not a sluice credential");
        goto error;
    }
    if (make_payload(a, a->self, type, seq, body, len,
                     (uint8_t *)got + 7 + AUTH_HASH_LEN, want) < 0) {
        err_set(e, "auth/munge: cannot hash frame");
        goto error;
    }
    if (a->crypto->CRYPTO_memcmp(want, got, MUNGE_PAYLOAD_LEN) != 0) {
        errno = EACCES;
        err_set(e,
                "auth/munge: frame does not match its credential (altered "
                "in transit, or meant for another receiver than %s?)",
                a->self);
        goto error;
    }
    if (munge_ctx_get(a->munge_dec, MUNGE_OPT_ENCODE_TIME, &issued) !=
        EMUNGE_SUCCESS) {
        err_set(e, "auth/munge: credential has no encode time");
        goto error;
    }
    if (auth_check_floor(a, (int64_t)issued, e) < 0)
        goto error;
    who->uid = uid;
    who->gid = gid;
    free(got);
    free(text);
    return 0;
error:
    free(got);
    free(text);
    return -1;
}
