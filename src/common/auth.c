/*
 * Credentials: the context, the frame hash both kinds sign, dispatch to
 * auth_key.c and auth_munge.c, unix-socket peer identity and key
 * generation.
 */
#include "common/auth_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hex.h"
#include "common/xalloc.h"

struct auth *auth_create(enum auth_type type, const char *info, struct err *e)
{
    struct auth *a = xcalloc(1, sizeof(*a));

    a->type = type;
    a->ttl_s = AUTH_TTL_DEFAULT_S;
    auth_set_tags(a, AUTH_TAG_CLIENT, AUTH_TAG_CTLD);
    a->replay_max = AUTH_REPLAY_MAX_DEFAULT;
    if ((a->crypto = libcrypto_load(e)) == NULL) {
        err_prefix(e, "auth");
        goto error;
    }
    a->sha256 = a->crypto->EVP_MD_fetch(NULL, "SHA256", NULL);
    if (a->sha256 == NULL) {
        errno = EIO;
        err_set(e, "auth: OpenSSL has no SHA256");
        goto error;
    }
    switch (type) {
    case AUTH_KEY:
        if (auth_key_init(a, info, e) < 0)
            goto error;
        break;
    case AUTH_MUNGE:
        if (auth_munge_init(a, info, e) < 0)
            goto error;
        break;
    default:
        errno = EINVAL;
        err_set(e, "auth: unknown type %d", (int)type);
        goto error;
    }
    return a;
error:
    auth_destroy(a);
    return NULL;
}

void auth_destroy(struct auth *a)
{
    int saved = errno;

    if (a != NULL) {
        auth_key_fini(a);
        auth_munge_fini(a);
        if (a->sha256 != NULL)
            a->crypto->EVP_MD_free(a->sha256);
        free(a);
    }
    errno = saved;
}

enum auth_type auth_get_type(const struct auth *a)
{
    return a->type;
}

const char *auth_type_name(enum auth_type type)
{
    switch (type) {
    case AUTH_KEY:
        return "auth/key";
    case AUTH_MUNGE:
        return "auth/munge";
    }
    return "auth/unknown";
}

int auth_type_parse(const char *s, enum auth_type *type)
{
    if (strcmp(s, "auth/key") == 0) {
        *type = AUTH_KEY;
        return 0;
    }
    if (strcmp(s, "auth/munge") == 0) {
        *type = AUTH_MUNGE;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

void auth_set_ttl(struct auth *a, int ttl_s)
{
    a->ttl_s = ttl_s > 0 ? ttl_s : AUTH_TTL_DEFAULT_S;
    if (a->type == AUTH_MUNGE)
        auth_munge_set_ttl(a);
}

void auth_set_clock(struct auth *a, time_t (*now)(void))
{
    a->now = now;
}

void auth_set_replay_max(struct auth *a, size_t max_entries)
{
    a->replay_max = max_entries;
    if (a->replay != NULL) {
        replay_destroy(a->replay);
        a->replay = NULL;
    }
}

time_t auth_now(const struct auth *a)
{
    return a->now != NULL ? a->now() : time(NULL);
}

void auth_set_tags(struct auth *a, const char *self, const char *peer)
{
    snprintf(a->self, sizeof(a->self), "%s", self);
    snprintf(a->peer, sizeof(a->peer), "%s", peer);
}

void auth_set_floor(struct auth *a, time_t floor)
{
    a->floor = floor;
}

int auth_check_floor(const struct auth *a, int64_t issued, struct err *e)
{
    if (issued >= (int64_t)a->floor)
        return 0;
    errno = EACCES;
    return err_set(e,
                   "%s: credential issued %" PRId64
                   " s before this daemon started (replayed from before a "
                   "restart?)",
                   auth_type_name(a->type), (int64_t)a->floor - issued);
}

int auth_sign(struct auth *a, uint16_t type, uint32_t seq, const void *body,
              size_t len, char **cred, struct err *e)
{
    return auth_sign_to(a, a->peer, type, seq, body, len, cred, e);
}

int auth_sign_to(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                 const void *body, size_t len, char **cred, struct err *e)
{
    if (strlen(to) > AUTH_TAG_MAX) {
        errno = EINVAL;
        return err_set(e, "%s: receiver tag over %d bytes",
                       auth_type_name(a->type), AUTH_TAG_MAX);
    }
    if (a->type == AUTH_MUNGE)
        return auth_munge_sign(a, to, type, seq, body, len, cred, e);
    return auth_key_sign(a, to, type, seq, body, len, cred, e);
}

int auth_verify(struct auth *a, const char *cred, size_t cred_len,
                uint16_t type, uint32_t seq, const void *body, size_t len,
                struct auth_id *who, struct err *e)
{
    struct auth_id id;

    if (cred == NULL || cred_len == 0) {
        errno = EACCES;
        return err_set(e, "%s: frame has no credential",
                       auth_type_name(a->type));
    }
    if (a->type == AUTH_MUNGE) {
        if (auth_munge_verify(a, cred, cred_len, type, seq, body, len, &id, e) <
            0)
            return -1;
    } else if (auth_key_verify(a, cred, cred_len, type, seq, body, len, &id,
                               e) < 0) {
        return -1;
    }
    if (who != NULL)
        *who = id;
    return 0;
}

int auth_precheck(struct auth *a, const char *cred, size_t cred_len,
                  struct err *e)
{
    errno = EACCES;
    if (cred == NULL || cred_len == 0)
        return err_set(e, "%s: frame has no credential",
                       auth_type_name(a->type));
    if (a->type == AUTH_MUNGE)
        return err_set(e, "auth/munge: a large frame needs a connection that "
                          "has already authenticated");
    return auth_key_precheck(a, cred, cred_len, e);
}

int auth_frame_hash(struct auth *a, const char *to, uint16_t type, uint32_t seq,
                    const void *body, size_t len, uint8_t out[AUTH_HASH_LEN])
{
    size_t to_len = strlen(to);
    uint8_t tag_len = (uint8_t)(to_len > AUTH_TAG_MAX ? AUTH_TAG_MAX : to_len);
    uint8_t hdr[6] = {
        (uint8_t)(type >> 8), (uint8_t)type,       (uint8_t)(seq >> 24),
        (uint8_t)(seq >> 16), (uint8_t)(seq >> 8), (uint8_t)seq,
    };
    EVP_MD_CTX *ctx = a->crypto->EVP_MD_CTX_new();
    unsigned int n = 0;
    int ok;

    if (ctx == NULL) {
        errno = ENOMEM;
        return -1;
    }
    ok = a->crypto->EVP_DigestInit_ex(ctx, a->sha256, NULL) &&
         a->crypto->EVP_DigestUpdate(ctx, &tag_len, 1) &&
         (tag_len == 0 || a->crypto->EVP_DigestUpdate(ctx, to, tag_len)) &&
         a->crypto->EVP_DigestUpdate(ctx, hdr, sizeof(hdr)) &&
         (len == 0 || a->crypto->EVP_DigestUpdate(ctx, body, len)) &&
         a->crypto->EVP_DigestFinal_ex(ctx, out, &n) && n == AUTH_HASH_LEN;
    a->crypto->EVP_MD_CTX_free(ctx);
    if (!ok) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int auth_peer_cred(int fd, struct auth_id *who)
{
    struct ucred uc;
    socklen_t len = sizeof(uc);
    int domain = 0;
    socklen_t dlen = sizeof(domain);

    /* Linux answers SO_PEERCRED on TCP too, with uid -1: refuse it. */
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) < 0)
        return -1;
    if (domain != AF_UNIX) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
        return -1;
    if (len != sizeof(uc) || uc.uid == (uid_t)-1 || uc.gid == (gid_t)-1) {
        errno = EPROTO;
        return -1;
    }
    who->uid = uc.uid;
    who->gid = uc.gid;
    return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int auth_keygen(const char *path, struct err *e)
{
    uint8_t key[AUTH_KEY_MIN];
    char text[2 * AUTH_KEY_MIN + 2];
    const struct libcrypto *crypto = libcrypto_load(e);
    char *tmp = xasprintf("%s.XXXXXX", path);
    int fd = -1;

    if (crypto == NULL) {
        err_prefix(e, "auth/key");
        goto error;
    }
    if (crypto->RAND_bytes(key, sizeof(key)) != 1) {
        errno = EIO;
        err_set(e, "auth/key: no random bytes from OpenSSL");
        goto error;
    }
    hex_encode(key, sizeof(key), text);
    strcat(text, "\n");
    fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0) {
        err_set(e, "auth/key: %s: %s", tmp, strerror(errno));
        goto error;
    }
    if (fchmod(fd, 0600) < 0 || write_all(fd, text, strlen(text)) < 0 ||
        fsync(fd) < 0) {
        err_set(e, "auth/key: %s: %s", tmp, strerror(errno));
        goto error;
    }
    if (close(fd) < 0) {
        fd = -1;
        err_set(e, "auth/key: %s: %s", tmp, strerror(errno));
        goto error;
    }
    fd = -1;
    if (rename(tmp, path) < 0) {
        err_set(e, "auth/key: %s: %s", path, strerror(errno));
        goto error;
    }
    explicit_bzero(key, sizeof(key));
    explicit_bzero(text, sizeof(text));
    free(tmp);
    return 0;
error:
    explicit_bzero(key, sizeof(key));
    explicit_bzero(text, sizeof(text));
    if (fd >= 0) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    if (tmp != NULL) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
    }
    free(tmp);
    return -1;
}

int auth_floor_persist(struct auth *a, const char *path, struct err *e)
{
    time_t now = auth_now(a), floor = now;
    char *tmp = xasprintf("%s.XXXXXX", path), text[32];
    long long prev;
    FILE *fp = fopen(path, "r");
    int fd = -1, n;

    if (fp != NULL) {
        if (fscanf(fp, "%lld", &prev) == 1 && prev > (long long)now)
            floor = (time_t)prev; /* the clock went back */
        fclose(fp);
    }
    n = snprintf(text, sizeof(text), "%lld\n", (long long)floor);
    if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0600) < 0 ||
        write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0) {
        err_set(e, "auth: replay floor %s: %s", tmp, strerror(errno));
        goto error;
    }
    if (close(fd) < 0) {
        fd = -1;
        err_set(e, "auth: replay floor %s: %s", tmp, strerror(errno));
        goto error;
    }
    fd = -1;
    if (rename(tmp, path) < 0) {
        err_set(e, "auth: replay floor %s: %s", path, strerror(errno));
        goto error;
    }
    free(tmp);
    a->floor = floor;
    return 0;
error:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    errno = EIO;
    return -1;
}

const char *auth_uid_name(uid_t uid, char *buf, size_t len)
{
    struct passwd pw, *res = NULL;
    char pwbuf[4096];

    if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res != NULL)
        snprintf(buf, len, "%s", pw.pw_name);
    else
        snprintf(buf, len, "%u", (unsigned)uid);
    return buf;
}
