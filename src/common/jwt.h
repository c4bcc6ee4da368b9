/*
 * auth/jwt as Slurm has it (AuthAltTypes=auth/jwt): HS256 JSON Web Tokens
 * (RFC 7519) signed with the key file AuthAltParameters=jwt_key= names,
 * carrying the user name in the claim "sun" with "iat" and "exp".  The
 * controller issues them (`scontrol token`) and checks them on REST
 * requests; nothing else holds the key.
 */
#ifndef SLUICE_COMMON_JWT_H
#define SLUICE_COMMON_JWT_H

#include <stddef.h>
#include <time.h>

#include "common/err.h"

/* The fewest bytes of key taken (Slurm's recipe makes 32 random bytes). */
#define JWT_KEY_MIN 32
#define JWT_KEY_MAX 4096
/* The longest token looked at; a longer one is refused unread. */
#define JWT_TOKEN_MAX 4096
/* The longest user name a token may carry. */
#define JWT_USER_MAX 255
/* scontrol token's lifespan when none is given, and the longest taken. */
#define JWT_LIFESPAN_DEFAULT_S 1800
#define JWT_LIFESPAN_MAX_S (365 * 86400)

struct jwt_key;

/*
 * jwt_param_key: the jwt_key= path of AuthAltParameters (a comma-separated
 * list), or NULL when it names none.  Newly allocated.
 */
char *jwt_param_key(const char *params);

/*
 * jwt_key_load: the key in path, which must be a regular file of the
 * effective user that nobody else may read (fsmode_read_secret), holding
 * JWT_KEY_MIN..JWT_KEY_MAX bytes, used as they are.  NULL with e
 * ("auth/jwt: /x/jwt_hs256.key must be mode 0600 (is 0644)").
 * jwt_key_from: the same from memory (tests).  jwt_key_free accepts NULL.
 */
struct jwt_key *jwt_key_load(const char *path, struct err *e);
struct jwt_key *jwt_key_from(const void *key, size_t len, struct err *e);
void jwt_key_free(struct jwt_key *k);

/*
 * jwt_issue: a token for user valid from iat until exp, as
 * "header.payload.signature" (base64url, no padding).  The caller frees
 * it.  NULL with e (a user name that is empty or too long, no libcrypto).
 */
char *jwt_issue(const struct jwt_key *k, const char *user, time_t iat,
                time_t exp, struct err *e);

/*
 * jwt_check: whether token is one of ours, whole and in date at now: the
 * header must say HS256, the signature must match (compared in constant
 * time), "exp" must be after now, "iat" not more than the allowed skew
 * ahead of it, and "sun" a user name.  0 with *user (newly allocated) and
 * *exp, or -1 with errno EACCES and e saying what is wrong ("token
 * expired 42 s ago", "bad signature", "malformed token: ...").
 */
int jwt_check(const struct jwt_key *k, const char *token, time_t now,
              char **user, time_t *exp, struct err *e);

/*
 * base64url without padding (RFC 4648 section 5), as JWTs use it.
 * b64url_encode: newly allocated text.  b64url_decode: the bytes of the
 * len characters at s into a new buffer (*out, NUL-terminated, *out_len
 * without the NUL); -1 on a character outside the alphabet, padding, or a
 * length no encoding has.
 */
char *b64url_encode(const void *p, size_t len);
int b64url_decode(const char *s, size_t len, char **out, size_t *out_len);

#endif
