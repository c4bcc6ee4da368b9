/*
 * HS256 JSON Web Tokens for auth/jwt (jwt.h): issue and check, with the
 * HMAC from the lazily loaded libcrypto (libcrypto.h).
 */
#include "common/jwt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/fsmode.h"
#include "common/libcrypto.h"
#include "common/xalloc.h"

#define JWT_MAC_LEN 32
/* The one header Sluice writes; others are read, and must say HS256. */
#define JWT_HEADER "{\"alg\":\"HS256\",\"typ\":\"JWT\"}"

struct jwt_key {
    const struct libcrypto *crypto;
    EVP_MAC_CTX *mac; /* initialised with the key: reset per use */
};

char *jwt_param_key(const char *params)
{
    const char *p = params;

    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 8 && strncmp(p, "jwt_key=", 8) == 0)
            return xstrndup(p + 8, len - 8);
        p += len;
        if (*p == ',')
            p++;
    }
    return NULL;
}

struct jwt_key *jwt_key_from(const void *key, size_t len, struct err *e)
{
    const struct libcrypto *c;
    struct jwt_key *k;
    EVP_MAC *mac;
    OSSL_PARAM params[2];

    if (len < JWT_KEY_MIN || len > JWT_KEY_MAX) {
        errno = EINVAL;
        err_set(e, "auth/jwt: the key has %zu bytes; %d to %d are needed", len,
                JWT_KEY_MIN, JWT_KEY_MAX);
        return NULL;
    }
    if ((c = libcrypto_load(e)) == NULL)
        return NULL;
    k = xcalloc(1, sizeof(*k));
    k->crypto = c;
    mac = c->EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac != NULL)
        k->mac = c->EVP_MAC_CTX_new(mac);
    c->EVP_MAC_free(mac);
    params[0] = c->OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0);
    params[1] = c->OSSL_PARAM_construct_end();
    if (k->mac == NULL || !c->EVP_MAC_init(k->mac, key, len, params)) {
        jwt_key_free(k);
        errno = ELIBACC;
        err_set(e, "auth/jwt: libcrypto has no HMAC-SHA256");
        return NULL;
    }
    return k;
}

struct jwt_key *jwt_key_load(const char *path, struct err *e)
{
    uint8_t *buf = xmalloc(JWT_KEY_MAX + 1);
    struct jwt_key *k = NULL;
    size_t len;

    if (fsmode_read_secret(path, "auth/jwt", buf, JWT_KEY_MAX, &len, e) == 0) {
        k = jwt_key_from(buf, len, e);
        if (k == NULL)
            err_prefix(e, "%s", path);
    }
    explicit_bzero(buf, JWT_KEY_MAX + 1);
    free(buf);
    return k;
}

void jwt_key_free(struct jwt_key *k)
{
    int saved = errno;

    if (k == NULL)
        return;
    if (k->mac != NULL)
        k->crypto->EVP_MAC_CTX_free(k->mac);
    free(k);
    errno = saved;
}

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *b64url_encode(const void *p, size_t len)
{
    const uint8_t *s = p;
    char *out = xmalloc(len / 3 * 4 + 5), *o = out;
    size_t i = 0;

    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        *o++ = b64url[v >> 18];
        *o++ = b64url[(v >> 12) & 63];
        *o++ = b64url[(v >> 6) & 63];
        *o++ = b64url[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)s[i] << 16;
        *o++ = b64url[v >> 18];
        *o++ = b64url[(v >> 12) & 63];
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8;
        *o++ = b64url[v >> 18];
        *o++ = b64url[(v >> 12) & 63];
        *o++ = b64url[(v >> 6) & 63];
    }
    *o = '\0';
    return out;
}

static int b64url_val(char c)
{
    const char *p = c != '\0' ? strchr(b64url, c) : NULL;
    return p != NULL ? (int)(p - b64url) : -1;
}

int b64url_decode(const char *s, size_t len, char **out, size_t *out_len)
{
    char *buf;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;

    if (len % 4 == 1)
        return -1;
    buf = xmalloc(len / 4 * 3 + 4);
    for (size_t i = 0; i < len; i++) {
        int v = b64url_val(s[i]);
        if (v < 0) {
            free(buf);
            return -1;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    /* the bits left over must be zero, or two texts would decode alike */
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

static int sign(const struct jwt_key *k, const char *text, size_t len,
                uint8_t out[JWT_MAC_LEN])
{
    const struct libcrypto *c = k->crypto;
    size_t n = 0;

    if (!c->EVP_MAC_init(k->mac, NULL, 0, NULL) ||
        !c->EVP_MAC_update(k->mac, (const unsigned char *)text, len) ||
        !c->EVP_MAC_final(k->mac, out, &n, JWT_MAC_LEN) || n != JWT_MAC_LEN) {
        errno = EIO;
        return -1;
    }
    return 0;
}

char *jwt_issue(const struct jwt_key *k, const char *user, time_t iat,
                time_t exp, struct err *e)
{
    json_t *claims;
    char *payload, *head, *body, *text, *sig, *token;
    uint8_t mac[JWT_MAC_LEN];
    size_t n = user != NULL ? strlen(user) : 0;

    if (n == 0 || n > JWT_USER_MAX) {
        errno = EINVAL;
        err_set(e, "auth/jwt: a user name of 1 to %d bytes is needed",
                JWT_USER_MAX);
        return NULL;
    }
    claims = json_pack("{s:I, s:I, s:s}", "exp", (json_int_t)exp, "iat",
                       (json_int_t)iat, "sun", user);
    payload = claims ? json_dumps(claims, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(claims);
    if (payload == NULL) {
        errno = EINVAL;
        err_set(e, "auth/jwt: the user name is not UTF-8");
        return NULL;
    }
    head = b64url_encode(JWT_HEADER, strlen(JWT_HEADER));
    body = b64url_encode(payload, strlen(payload));
    free(payload);
    text = xasprintf("%s.%s", head, body);
    free(head);
    free(body);
    if (sign(k, text, strlen(text), mac) < 0) {
        err_set(e, "auth/jwt: HMAC failed");
        free(text);
        return NULL;
    }
    sig = b64url_encode(mac, sizeof(mac));
    token = xasprintf("%s.%s", text, sig);
    free(text);
    free(sig);
    return token;
}

/* The JSON object base64url-encoded in s[0..len), or NULL. */
static json_t *part_json(const char *s, size_t len)
{
    char *raw;
    size_t n;
    json_t *j;

    if (b64url_decode(s, len, &raw, &n) < 0)
        return NULL;
    j = json_loadb(raw, n, JSON_REJECT_DUPLICATES, NULL);
    free(raw);
    if (j != NULL && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* refuse: errno EACCES and e "malformed token: WHAT" (malformed) or WHAT. */
static int refuse(struct err *e, bool malformed, const char *what)
{
    errno = EACCES;
    return err_set(e, "%s%s", malformed ? "malformed token: " : "", what);
}

/* The header says HS256 (any "typ" is taken; "none" never is). */
static bool header_ok(const char *s, size_t len)
{
    json_t *h = part_json(s, len);
    const char *alg = json_string_value(json_object_get(h, "alg"));
    bool ok = alg != NULL && strcmp(alg, "HS256") == 0;

    json_decref(h);
    return ok;
}

static int claims_check(json_t *c, time_t now, char **user, time_t *exp,
                        struct err *e)
{
    json_t *jexp = json_object_get(c, "exp"), *jiat = json_object_get(c, "iat");
    const char *sun = json_string_value(json_object_get(c, "sun"));

    if (sun == NULL) /* newer Slurm writes "username" too */
        sun = json_string_value(json_object_get(c, "username"));
    if (!json_is_integer(jexp))
        return refuse(e, true, "no \"exp\" claim");
    if (sun == NULL || *sun == '\0' || strlen(sun) > JWT_USER_MAX)
        return refuse(e, true, "no user name (\"sun\")");
    if (json_integer_value(jexp) <= (json_int_t)now) {
        errno = EACCES;
        return err_set(e, "token expired %lld s ago",
                       (long long)((json_int_t)now - json_integer_value(jexp)));
    }
    if (jiat != NULL &&
        (!json_is_integer(jiat) ||
         json_integer_value(jiat) > (json_int_t)now + AUTH_SKEW_MAX_S))
        return refuse(e, false, "token issued in the future (\"iat\")");
    *user = xstrdup(sun);
    *exp = (time_t)json_integer_value(jexp);
    return 0;
}

int jwt_check(const struct jwt_key *k, const char *token, time_t now,
              char **user, time_t *exp, struct err *e)
{
    size_t len = token != NULL ? strnlen(token, JWT_TOKEN_MAX + 1) : 0;
    const char *dot1, *dot2;
    uint8_t want[JWT_MAC_LEN];
    char *sig = NULL;
    size_t sig_len = 0;
    json_t *claims;
    int rc;

    if (len == 0 || len > JWT_TOKEN_MAX)
        return refuse(e, true, len ? "too long" : "empty");
    dot1 = memchr(token, '.', len);
    dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - token)) : 0;
    if (dot2 == NULL || memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - token)))
        return refuse(e, true, "not three parts");
    if (!header_ok(token, (size_t)(dot1 - token)))
        return refuse(e, true, "the header is not HS256");
    if (sign(k, token, (size_t)(dot2 - token), want) < 0)
        return refuse(e, false, "HMAC failed");
    if (b64url_decode(dot2 + 1, len - (size_t)(dot2 + 1 - token), &sig,
                      &sig_len) < 0 ||
        sig_len != JWT_MAC_LEN ||
        k->crypto->CRYPTO_memcmp(sig, want, JWT_MAC_LEN) != 0) {
        free(sig);
        return refuse(e, false, "bad signature");
    }
    free(sig);
    claims = part_json(dot1 + 1, (size_t)(dot2 - dot1 - 1));
    if (claims == NULL)
        return refuse(e, true, "the claims are not JSON");
    rc = claims_check(claims, now, user, exp, e);
    json_decref(claims);
    return rc;
}
