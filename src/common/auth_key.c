/*
 * auth/key: HMAC-SHA256 credentials with a shared key file.  The text is
 *   k1:<uid>:<gid>:<issued>:<nonce hex 16B>:<frame hash hex>:<hmac hex>
 * and the HMAC covers everything before its own field.  The verifier keeps
 * a replay cache of nonces until their credentials expire.
 */
#include "common/auth_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsmode.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/xalloc.h"

#define KEY_MAC_LEN 32
#define KEY_CRED_MAX 256

/* Read the key file (fsmode_read_secret: private to us), trimmed of the
 * trailing newline an editor leaves. */
static int read_key(const char *path, uint8_t *buf, size_t *len, struct err *e)
{
    size_t n;

    if (fsmode_read_secret(path, "auth/key", buf, AUTH_KEY_MAX, &n, e) < 0)
        return -1;
    while (n > 0 && isspace(buf[n - 1]))
        n--;
    errno = EINVAL;
    if (n < AUTH_KEY_MIN)
        return err_set(e,
                       "auth/key: %s holds %zu bytes of key; at least %d "
                       "are needed",
                       path, n, AUTH_KEY_MIN);
    *len = n;
    return 0;
}

int auth_key_init(struct auth *a, const char *path, struct err *e)
{
    uint8_t *key = xmalloc(AUTH_KEY_MAX + 1);
    size_t len = 0;
    EVP_MAC *mac = NULL;
    OSSL_PARAM params[2];

    if (path == NULL || *path == '\0') {
        errno = EINVAL;
        err_set(e, "auth/key: no key file given");
        goto error;
    }
    if (read_key(path, key, &len, e) < 0)
        goto error;
    mac = a->crypto->EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac != NULL)
        a->mac = a->crypto->EVP_MAC_CTX_new(mac);
    params[0] = a->crypto->OSSL_PARAM_construct_utf8_string(
        OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = a->crypto->OSSL_PARAM_construct_end();
    if (a->mac == NULL || !a->crypto->EVP_MAC_init(a->mac, key, len, params)) {
        errno = EIO;
        err_set(e, "auth/key: OpenSSL cannot set up HMAC-SHA256");
        goto error;
    }
    a->key_path = xstrdup(path);
    a->crypto->EVP_MAC_free(mac);
    explicit_bzero(key, AUTH_KEY_MAX + 1);
    free(key);
    return 0;
error:
    a->crypto->EVP_MAC_free(mac);
    explicit_bzero(key, AUTH_KEY_MAX + 1);
    free(key);
    return -1;
}

void auth_key_fini(struct auth *a)
{
    if (a->mac != NULL)
        a->crypto->EVP_MAC_CTX_free(a->mac);
    a->mac = NULL;
    replay_destroy(a->replay);
    a->replay = NULL;
    free(a->key_path);
    a->key_path = NULL;
}

static int key_mac(struct auth *a, const char *text, size_t len,
                   uint8_t out[KEY_MAC_LEN])
{
    size_t n = 0;

    /* A NULL key re-initialises the context with the key it holds. */
    if (!a->crypto->EVP_MAC_init(a->mac, NULL, 0, NULL) ||
        !a->crypto->EVP_MAC_update(a->mac, (const unsigned char *)text, len) ||
        !a->crypto->EVP_MAC_final(a->mac, out, &n, KEY_MAC_LEN) ||
        n != KEY_MAC_LEN) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int auth_key_sign(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                  const void *body, size_t len, char **cred, struct err *e)
{
    uint8_t nonce[REPLAY_NONCE_LEN], hash[AUTH_HASH_LEN], mac[KEY_MAC_LEN];
    char nonce_hex[2 * REPLAY_NONCE_LEN + 1], hash_hex[2 * AUTH_HASH_LEN + 1];
    char text[KEY_CRED_MAX];
    int n;

    if (a->crypto->RAND_bytes(nonce, sizeof(nonce)) != 1) {
        errno = EIO;
        return err_set(e, "auth/key: no random bytes from OpenSSL");
    }
    if (auth_frame_hash(a, to, type, seq, body, len, hash) < 0)
        return err_set(e, "auth/key: cannot hash frame");
    hex_encode(nonce, sizeof(nonce), nonce_hex);
    hex_encode(hash, sizeof(hash), hash_hex);
    n = snprintf(
        text, sizeof(text), "k2:%u:%u:%lld:%s:%s:", (unsigned)geteuid(),
        (unsigned)getegid(), (long long)auth_now(a), nonce_hex, hash_hex);
    ASSERT(n > 0 && (size_t)n + 2 * KEY_MAC_LEN < sizeof(text));
    if (key_mac(a, text, (size_t)n, mac) < 0)
        return err_set(e, "auth/key: cannot compute HMAC");
    hex_encode(mac, sizeof(mac), text + n);
    *cred = xstrdup(text);
    return 0;
}

/* The fields of a credential, parsed from text that is not trusted. */
struct key_cred {
    uint32_t uid, gid;
    int64_t issued;
    uint8_t nonce[REPLAY_NONCE_LEN];
    uint8_t hash[AUTH_HASH_LEN];
    uint8_t mac[KEY_MAC_LEN];
    size_t signed_len; /* bytes the MAC covers */
};

/* A decimal field of 1..max_digits digits and a ':' after it. */
static int get_dec(const char **p, const char *end, int max_digits,
                   uint64_t *out)
{
    uint64_t v = 0;
    int n = 0;

    while (*p < end && **p >= '0' && **p <= '9' && n < max_digits) {
        v = v * 10 + (uint64_t)(**p - '0');
        (*p)++;
        n++;
    }
    if (n == 0 || *p >= end || **p != ':')
        return -1;
    (*p)++;
    *out = v;
    return 0;
}

/* A field of exactly 2*len hex digits, then ':' unless it is the last. */
static int get_hex(const char **p, const char *end, size_t len, int last,
                   uint8_t *out)
{
    if ((size_t)(end - *p) < 2 * len + (last ? 0 : 1))
        return -1;
    if (hex_decode(*p, len, out) < 0)
        return -1;
    *p += 2 * len;
    if (last)
        return *p == end ? 0 : -1;
    if (**p != ':')
        return -1;
    (*p)++;
    return 0;
}

static int parse_cred(const char *s, size_t len, struct key_cred *c)
{
    const char *p = s, *end = s + len;
    uint64_t uid, gid, issued;

    if (len > KEY_CRED_MAX || len < 3 || memcmp(s, "k2:", 3) != 0)
        return -1;
    p += 3;
    if (get_dec(&p, end, 10, &uid) < 0 || uid >= UINT32_MAX ||
        get_dec(&p, end, 10, &gid) < 0 || gid >= UINT32_MAX ||
        get_dec(&p, end, 15, &issued) < 0 ||
        get_hex(&p, end, REPLAY_NONCE_LEN, 0, c->nonce) < 0 ||
        get_hex(&p, end, AUTH_HASH_LEN, 0, c->hash) < 0)
        return -1;
    c->signed_len = (size_t)(p - s);
    if (get_hex(&p, end, KEY_MAC_LEN, 1, c->mac) < 0)
        return -1;
    c->uid = (uint32_t)uid;
    c->gid = (uint32_t)gid;
    c->issued = (int64_t)issued;
    return 0;
}

/* Within the time window: not too far in the future, not expired. */
static int check_window(struct auth *a, const struct key_cred *c, struct err *e)
{
    int64_t now = (int64_t)auth_now(a);

    errno = EACCES;
    if (c->issued > now + AUTH_SKEW_MAX_S)
        return err_set(e,
                       "auth/key: credential issued %" PRId64
                       " s in the future (clock skew?)",
                       c->issued - now);
    if (now > c->issued + a->ttl_s)
        return err_set(e,
                       "auth/key: credential expired (issued %" PRId64
                       " s ago; ttl %d s)",
                       now - c->issued, a->ttl_s);
    if (auth_check_floor(a, c->issued, e) < 0)
        return -1;
    return 0;
}

static int check_fresh(struct auth *a, const struct key_cred *c, struct err *e)
{
    int64_t now = (int64_t)auth_now(a);
    int64_t expires = c->issued + a->ttl_s;

    if (check_window(a, c, e) < 0)
        return -1;
    if (a->replay == NULL)
        a->replay = replay_create(a->replay_max);
    if (replay_add(a->replay, c->nonce, expires, now) == 0)
        return 0;
    if (errno == EEXIST) {
        errno = EACCES;
        return err_set(e, "auth/key: credential replayed");
    }
    errno = EACCES;
    return err_set(e,
                   "auth/key: credential refused: replay cache full (over "
                   "%zu credentials within the ttl)",
                   a->replay_max);
}

/* Format and MAC of c (cred); -1 EACCES with e. */
static int check_mac(struct auth *a, const char *cred, size_t cred_len,
                     struct key_cred *c, struct err *e)
{
    uint8_t mac[KEY_MAC_LEN];

    if (parse_cred(cred, cred_len, c) < 0) {
        errno = EACCES;
        if (cred_len >= 3 && memcmp(cred, "k1:", 3) == 0)
            return err_set(e, "auth/key: credential format k1 is no longer "
                              "accepted (the peer runs an older sluice)");
        return err_set(e, "auth/key: malformed credential");
    }
    if (key_mac(a, cred, c->signed_len, mac) < 0)
        return err_set(e, "auth/key: cannot compute HMAC");
    if (a->crypto->CRYPTO_memcmp(mac, c->mac, sizeof(mac)) != 0) {
        errno = EACCES;
        return err_set(e, "auth/key: credential MAC does not verify "
                          "(signed with a different key?)");
    }
    return 0;
}

int auth_key_precheck(struct auth *a, const char *cred, size_t cred_len,
                      struct err *e)
{
    struct key_cred c;

    if (check_mac(a, cred, cred_len, &c, e) < 0)
        return -1;
    return check_window(a, &c, e);
}

int auth_key_verify(struct auth *a, const char *cred, size_t cred_len,
                    uint16_t type, uint32_t seq, const void *body, size_t len,
                    struct auth_id *who, struct err *e)
{
    struct key_cred c;
    uint8_t hash[AUTH_HASH_LEN];

    if (check_mac(a, cred, cred_len, &c, e) < 0)
        return -1;
    if (auth_frame_hash(a, a->self, type, seq, body, len, hash) < 0)
        return err_set(e, "auth/key: cannot hash frame");
    if (a->crypto->CRYPTO_memcmp(hash, c.hash, sizeof(hash)) != 0) {
        errno = EACCES;
        return err_set(e,
                       "auth/key: frame does not match its credential "
                       "(altered in transit, or meant for another "
                       "receiver than %s?)",
                       a->self);
    }
    if (check_fresh(a, &c, e) < 0)
        return -1;
    who->uid = (uid_t)c.uid;
    who->gid = (gid_t)c.gid;
    return 0;
}
