/*
 * Credentials for frames: each binds the signer's uid and gid, an issue
 * time, a nonce and a hash of the frame (SHA-256 over the receiver's tag,
 * type, seq and the exact body bytes).  The tag names who a frame is for
 * ("sluicectld", "sluiced:NODE", "client"), so a frame cannot be replayed
 * to another receiver; a floor (the verifier's start) refuses credentials
 * issued before it, so none can be replayed across a restart.  Two
 * kinds, chosen by AuthType:
 *
 *   auth/key    HMAC-SHA256 with a shared key file (0600, owned by the
 *               process's effective uid).  The uid and gid are what the
 *               signer claims: whoever holds the key is trusted, so only
 *               root daemons and root CLIs may hold it; other users reach
 *               the controller over its unix socket (auth_peer_cred).
 *   auth/munge  a munge credential (libmunge); munged vouches for the uid
 *               and gid and itself enforces expiry and replay.
 *
 * Credential formats are described in docs/protocol-framing.md.
 */
#ifndef SLUICE_AUTH_H
#define SLUICE_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/err.h"

enum auth_type {
    AUTH_KEY = 1,
    AUTH_MUNGE = 2,
};

#define AUTH_TTL_DEFAULT_S 300
#define AUTH_TAG_MAX 200 /* bytes of a receiver tag */
/* Receiver tags (docs/protocol-framing.md, "Frame hash"). */
#define AUTH_TAG_CTLD "sluicectld"
#define AUTH_TAG_CLIENT "client"
#define AUTH_TAG_NODE_PREFIX "sluiced:"
#define AUTH_SKEW_MAX_S 60 /* how far in the future an issue time may be */
#define AUTH_KEY_MIN 32    /* bytes of key material */
#define AUTH_KEY_MAX 65536
#define AUTH_REPLAY_MAX_DEFAULT (1u << 20) /* nonces (32 MiB when full) */
/* The key file auth/key uses when AuthInfo names none. */
#define AUTH_KEY_DEFAULT_PATH "/etc/sluice/sluice.key"

struct conf;

/* Who a verified credential (or a unix-socket peer) says it is. */
struct auth_id {
    uid_t uid;
    gid_t gid;
};

struct auth;

/*
 * auth_create: info is the key file for AUTH_KEY (required) and the munged
 * socket for AUTH_MUNGE (NULL: munge's default).  auth/key refuses a key
 * file that is not a regular file, has group or other permission bits, is
 * not owned by the effective uid, or holds fewer than AUTH_KEY_MIN bytes
 * (trailing whitespace is not key material); auth/munge checks that munged
 * answers.  Free with auth_destroy.
 */
struct auth *auth_create(enum auth_type type, const char *info, struct err *e);
/*
 * auth_info_path: the file AuthInfo (Slurm's comma-separated options) names
 * for type.  auth/key: "key=PATH", else the whole of info when it is one
 * bare value (no '=' or ','), else AUTH_KEY_DEFAULT_PATH.  auth/munge:
 * "socket=PATH", else a bare value, else NULL (munge's default socket).
 * Other options are ignored.  The result is owned by the caller (free()).
 */
char *auth_info_path(enum auth_type type, const char *info);
/* auth_create_conf: auth_create for c's AuthType, with the file
 * auth_info_path finds in its AuthInfo.  Free with auth_destroy. */
struct auth *auth_create_conf(const struct conf *c, struct err *e);
/* auth_destroy: accepts NULL, keeps errno. */
void auth_destroy(struct auth *a);

enum auth_type auth_get_type(const struct auth *a);
/* "auth/key", "auth/munge"; static strings. */
const char *auth_type_name(enum auth_type type);
/* auth_type_parse: "auth/key" or "auth/munge"; -1 with EINVAL otherwise. */
int auth_type_parse(const char *s, enum auth_type *type);

/* auth_set_ttl: lifetime of credentials this context signs (auth/munge) or
 * accepts (auth/key); default AUTH_TTL_DEFAULT_S. */
void auth_set_ttl(struct auth *a, int ttl_s);
/* auth_set_clock: time source for auth/key (tests); NULL restores time().
 * munged keeps its own clock. */
void auth_set_clock(struct auth *a, time_t (*now)(void));
/* auth_set_tags: self, the tag this context accepts frames for, and peer,
 * the tag auth_sign signs for (each at most AUTH_TAG_MAX bytes, longer is
 * cut).  Default: self "client", peer "sluicectld" (a CLI). */
void auth_set_tags(struct auth *a, const char *self, const char *peer);
/* auth_set_floor: refuse credentials issued before floor (0: none). */
void auth_set_floor(struct auth *a, time_t floor);
/*
 * auth_floor_persist: set the floor to now (auth_set_clock's), or to the
 * floor recorded in path by an earlier start if the clock went back, and
 * record it in path (mode 0600, written to a temporary file, fsynced and
 * renamed).  A credential captured before this start is then refused.
 */
int auth_floor_persist(struct auth *a, const char *path, struct err *e);
/* auth_set_replay_max: capacity of the auth/key replay cache (clears it). */
void auth_set_replay_max(struct auth *a, size_t max_entries);

/*
 * auth_sign: a credential over (type, seq, body[0..len)) for the effective
 * uid and gid.  *cred is a NUL-terminated ASCII string, owned by the caller
 * (free()).
 */
int auth_sign(struct auth *a, uint16_t type, uint32_t seq, const void *body,
              size_t len, char **cred, struct err *e);
/* auth_sign_to: the same for the receiver tag to instead of the peer's. */
int auth_sign_to(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                 const void *body, size_t len, char **cred, struct err *e);

/*
 * auth_verify: check cred (cred_len bytes, need not be NUL-terminated)
 * against the frame; on success fill *who (may be NULL).  Rejects with
 * errno EACCES: a malformed credential, a wrong key or MAC, a frame that
 * does not match the credential (or was meant for another receiver than
 * this context's self tag), an expired one (older than the ttl), one
 * issued more than AUTH_SKEW_MAX_S in the future or before the floor, and
 * a replay.  errno EIO:
 * munged could not be asked.  e says which.
 */
int auth_verify(struct auth *a, const char *cred, size_t cred_len,
                uint16_t type, uint32_t seq, const void *body, size_t len,
                struct auth_id *who, struct err *e);

/*
 * auth_precheck: what can be checked of cred before the body it covers
 * has arrived, changing nothing (no nonce is recorded): for auth/key its
 * format, MAC and time window, so that a peer without the key is refused
 * before its body is buffered.  auth/munge cannot decode a credential
 * twice (munged records it), so it refuses with EACCES ("needs an
 * authenticated connection"); the caller then holds the peer to small
 * frames until one has verified.  0, or -1 with EACCES and e.
 */
int auth_precheck(struct auth *a, const char *cred, size_t cred_len,
                  struct err *e);

/* auth_peer_cred: the uid and gid of a unix-socket peer (SO_PEERCRED);
 * -1 with EAFNOSUPPORT for any other socket (Linux would say uid -1). */
int auth_peer_cred(int fd, struct auth_id *who);

/* auth_uid_name: uid's user name, else the number, into buf (len > 0);
 * returns buf. */
const char *auth_uid_name(uid_t uid, char *buf, size_t len);

/* auth_keygen: write AUTH_KEY_MIN random bytes, hex-encoded, to path with
 * mode 0600, atomically (temporary file and rename). */
int auth_keygen(const char *path, struct err *e);

#endif
