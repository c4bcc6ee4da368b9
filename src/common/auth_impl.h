/*
 * Internals shared by auth.c, auth_key.c and auth_munge.c; not for other
 * modules.
 */
#ifndef SLUICE_AUTH_IMPL_H
#define SLUICE_AUTH_IMPL_H

#include <munge.h>

#include "common/auth.h"
#include "common/libcrypto.h"
#include "common/replay.h"

#define AUTH_HASH_LEN 32 /* SHA-256 */

struct auth {
    enum auth_type type;
    int ttl_s;
    time_t (*now)(void);
    char self[AUTH_TAG_MAX + 1]; /* the receiver tag frames to us carry */
    char peer[AUTH_TAG_MAX + 1]; /* the tag auth_sign signs for */
    time_t floor; /* credentials issued before it are refused (0: none) */
    const struct libcrypto *crypto; /* loaded by auth_create */
    EVP_MD *sha256;
    /* auth/key */
    char *key_path;
    EVP_MAC_CTX *mac; /* keyed template, duplicated per use */
    struct replay *replay;
    size_t replay_max;
    /* auth/munge */
    munge_ctx_t munge;     /* encoding: ttl, socket */
    munge_ctx_t munge_dec; /* decoding: munge_decode rewrites it */
    char *munge_socket;    /* NULL: munge's default */
};

/* auth_frame_hash: SHA-256 over u8 strlen(to), to, be16 type, be32 seq,
 * body. */
int auth_frame_hash(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                    const void *body, size_t len, uint8_t out[AUTH_HASH_LEN]);
/* auth_check_floor: EACCES and e when issued is before a->floor. */
int auth_check_floor(const struct auth *a, int64_t issued, struct err *e);
time_t auth_now(const struct auth *a);

int auth_key_init(struct auth *a, const char *path, struct err *e);
void auth_key_fini(struct auth *a);
int auth_key_sign(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                  const void *body, size_t len, char **cred, struct err *e);
int auth_key_precheck(struct auth *a, const char *cred, size_t cred_len,
                      struct err *e);
int auth_key_verify(struct auth *a, const char *cred, size_t cred_len,
                    uint16_t type, uint32_t seq, const void *body, size_t len,
                    struct auth_id *who, struct err *e);

int auth_munge_init(struct auth *a, const char *socket, struct err *e);
void auth_munge_fini(struct auth *a);
void auth_munge_set_ttl(struct auth *a);
int auth_munge_sign(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                    const void *body, size_t len, char **cred, struct err *e);
int auth_munge_verify(struct auth *a, const char *cred, size_t cred_len,
                      uint16_t type, uint32_t seq, const void *body, size_t len,
                      struct auth_id *who, struct err *e);

#endif
