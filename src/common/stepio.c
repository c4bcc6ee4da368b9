/*
 * The step I/O channel (stepio.h): key handling, the handshake and the
 * authenticated frames.  HMAC-SHA256 comes from libcrypto, loaded on first
 * use (libcrypto.h); one MAC context serves the process, re-keyed per
 * frame (processes that use it are single-threaded: srun and the step
 * supervisor).
 */
#include "common/stepio.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hex.h"
#include "common/libcrypto.h"

static const char hello_magic[8] = {'S', 'L', 'S', 'T', 'E', 'P', 'I', 'O'};

/* Process-wide like the library table it comes from; made once. */
static EVP_MAC_CTX *mac_ctx;

static const struct libcrypto *crypto(struct err *e)
{
    const struct libcrypto *c = libcrypto_load(e);
    EVP_MAC *mac;

    if (c == NULL || mac_ctx != NULL)
        return c;
    mac = c->EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac != NULL)
        mac_ctx = c->EVP_MAC_CTX_new(mac);
    c->EVP_MAC_free(mac);
    if (mac_ctx == NULL) {
        errno = ELIBACC;
        err_set(e, "stepio: OpenSSL cannot set up HMAC-SHA256");
        return NULL;
    }
    return c;
}

/* HMAC-SHA256(key, parts[0] | parts[1] | ...) into out.  -1 with e. */
struct part {
    const void *p;
    size_t len;
};

static int hmac(const uint8_t key[STEPIO_KEY_LEN], const struct part *parts,
                size_t n, uint8_t out[STEPIO_MAC_LEN], struct err *e)
{
    const struct libcrypto *c = crypto(e);
    OSSL_PARAM params[2];
    size_t len = 0;

    if (c == NULL)
        return -1;
    params[0] = c->OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0);
    params[1] = c->OSSL_PARAM_construct_end();
    if (!c->EVP_MAC_init(mac_ctx, key, STEPIO_KEY_LEN, params))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (parts[i].len > 0 &&
            !c->EVP_MAC_update(mac_ctx, parts[i].p, parts[i].len))
            goto fail;
    if (!c->EVP_MAC_final(mac_ctx, out, &len, STEPIO_MAC_LEN) ||
        len != STEPIO_MAC_LEN)
        goto fail;
    return 0;
fail:
    errno = EIO;
    return err_set(e, "stepio: cannot compute HMAC-SHA256");
}

static bool same(const uint8_t *a, const uint8_t *b, size_t len)
{
    const struct libcrypto *c = libcrypto_load(NULL);

    return c != NULL && c->CRYPTO_memcmp(a, b, len) == 0;
}

/* --- keys ------------------------------------------------------------- */

static int random_bytes(uint8_t *p, size_t len, struct err *e)
{
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return err_set(e, "getrandom: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int stepio_key_new(uint8_t key[STEPIO_KEY_LEN], struct err *e)
{
    return random_bytes(key, STEPIO_KEY_LEN, e);
}

void stepio_key_hex(const uint8_t key[STEPIO_KEY_LEN],
                    char out[STEPIO_KEY_HEX_LEN + 1])
{
    hex_encode(key, STEPIO_KEY_LEN, out);
}

int stepio_key_parse(const char *hex, uint8_t key[STEPIO_KEY_LEN],
                     struct err *e)
{
    uint8_t tmp[STEPIO_KEY_LEN];

    if (hex == NULL || strlen(hex) != STEPIO_KEY_HEX_LEN ||
        hex_decode(hex, STEPIO_KEY_LEN, tmp) < 0) {
        errno = EINVAL;
        return err_set(e, "step key: expected %d hexadecimal digits",
                       STEPIO_KEY_HEX_LEN);
    }
    memcpy(key, tmp, STEPIO_KEY_LEN);
    return 0;
}

/* --- big-endian helpers ------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

/* --- blocking I/O with a deadline ------------------------------------- */

static int wait_fd(int fd, short events, int64_t deadline_ms, struct err *e)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int64_t left = deadline_ms - clock_mono_ms();
        int n;

        if (left <= 0) {
            errno = ETIMEDOUT;
            return err_set(e, "the step's handshake timed out");
        }
        n = poll(&p, 1, (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return err_set(e, "poll: %s", strerror(errno));
    }
}

static int write_all(int fd, const uint8_t *p, size_t len, int64_t deadline,
                     struct err *e)
{
    while (len > 0) {
        ssize_t n;

        /* poll first: the socket may be blocking, the deadline holds */
        if (wait_fd(fd, POLLOUT, deadline, e) < 0)
            return -1;
        n = write(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return err_set(e, "write: %s", strerror(errno));
    }
    return 0;
}

static int read_all(int fd, uint8_t *p, size_t len, int64_t deadline,
                    struct err *e)
{
    while (len > 0) {
        ssize_t n;

        if (wait_fd(fd, POLLIN, deadline, e) < 0)
            return -1;
        n = read(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET;
            return err_set(e, "the peer closed the connection during the "
                              "step's handshake");
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return err_set(e, "read: %s", strerror(errno));
    }
    return 0;
}

/* --- the handshake ----------------------------------------------------- */

/* proof = HMAC(key, who | hello | nonce_b) */
static int proof(const uint8_t key[STEPIO_KEY_LEN], const char who[4],
                 const uint8_t hello[STEPIO_HELLO_LEN],
                 const uint8_t nonce_b[STEPIO_NONCE_LEN],
                 uint8_t out[STEPIO_MAC_LEN], struct err *e)
{
    struct part parts[] = {
        {who, 4}, {hello, STEPIO_HELLO_LEN}, {nonce_b, STEPIO_NONCE_LEN}};

    return hmac(key, parts, 3, out, e);
}

static int session(const uint8_t key[STEPIO_KEY_LEN],
                   const uint8_t hello[STEPIO_HELLO_LEN],
                   const uint8_t nonce_b[STEPIO_NONCE_LEN], struct stepio *s,
                   char dir, struct err *e)
{
    struct part parts[] = {
        {"sess", 4},
        {hello + STEPIO_HELLO_LEN - STEPIO_NONCE_LEN, STEPIO_NONCE_LEN},
        {nonce_b, STEPIO_NONCE_LEN}};

    memset(s, 0, sizeof(*s));
    s->send_dir = dir;
    s->recv_dir = dir == 'S' ? 'R' : 'S';
    return hmac(key, parts, 3, s->session, e);
}

int stepio_connect_handshake(int fd, const uint8_t key[STEPIO_KEY_LEN],
                             uint32_t job, uint32_t step, uint32_t node_id,
                             struct stepio *s, int timeout_ms, struct err *e)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    uint8_t hello[STEPIO_HELLO_LEN], answer[STEPIO_NONCE_LEN + STEPIO_MAC_LEN];
    uint8_t want[STEPIO_MAC_LEN], mine[STEPIO_MAC_LEN];

    memcpy(hello, hello_magic, sizeof(hello_magic));
    put32(hello + 8, job);
    put32(hello + 12, step);
    put32(hello + 16, node_id);
    if (random_bytes(hello + 20, STEPIO_NONCE_LEN, e) < 0 ||
        write_all(fd, hello, sizeof(hello), deadline, e) < 0 ||
        read_all(fd, answer, sizeof(answer), deadline, e) < 0 ||
        proof(key, "srun", hello, answer, want, e) < 0)
        return -1;
    if (!same(want, answer + STEPIO_NONCE_LEN, STEPIO_MAC_LEN)) {
        errno = EACCES;
        return err_set(e, "srun did not prove the step's key");
    }
    if (proof(key, "supv", hello, answer, mine, e) < 0 ||
        write_all(fd, mine, sizeof(mine), deadline, e) < 0)
        return -1;
    return session(key, hello, answer, s, 'S', e);
}

int stepio_accept_handshake(int fd, const uint8_t key[STEPIO_KEY_LEN],
                            uint32_t job, uint32_t step, uint32_t *node_id,
                            struct stepio *s, int timeout_ms, struct err *e)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    uint8_t hello[STEPIO_HELLO_LEN], answer[STEPIO_NONCE_LEN + STEPIO_MAC_LEN];
    uint8_t want[STEPIO_MAC_LEN], theirs[STEPIO_MAC_LEN];

    if (read_all(fd, hello, sizeof(hello), deadline, e) < 0)
        return -1;
    if (memcmp(hello, hello_magic, sizeof(hello_magic)) != 0 ||
        get32(hello + 8) != job || get32(hello + 12) != step) {
        errno = EACCES;
        return err_set(e, "a connection that is not for step %u.%u", job, step);
    }
    if (random_bytes(answer, STEPIO_NONCE_LEN, e) < 0 ||
        proof(key, "srun", hello, answer, answer + STEPIO_NONCE_LEN, e) < 0 ||
        write_all(fd, answer, sizeof(answer), deadline, e) < 0 ||
        read_all(fd, theirs, sizeof(theirs), deadline, e) < 0 ||
        proof(key, "supv", hello, answer, want, e) < 0)
        return -1;
    if (!same(want, theirs, STEPIO_MAC_LEN)) {
        errno = EACCES;
        return err_set(e, "a connection for step %u.%u without its key", job,
                       step);
    }
    *node_id = get32(hello + 16);
    return session(key, hello, answer, s, 'R', e);
}

/* --- frames ------------------------------------------------------------ */

static int frame_mac(const struct stepio *s, char dir, uint64_t ctr,
                     const uint8_t *hdr, const uint8_t *data, size_t len,
                     uint8_t out[STEPIO_MAC_LEN], struct err *e)
{
    uint8_t pre[9];
    struct part parts[] = {
        {pre, sizeof(pre)}, {hdr, STEPIO_HDR_LEN}, {data, len}};

    pre[0] = (uint8_t)dir;
    put64(pre + 1, ctr);
    return hmac(s->session, parts, 3, out, e);
}

size_t stepio_frame(struct stepio *s, uint8_t type, uint32_t task,
                    const void *data, size_t len, uint8_t *out)
{
    struct err e;

    put32(out, (uint32_t)len);
    out[4] = type;
    out[5] = out[6] = out[7] = 0;
    put32(out + 8, task);
    if (len > 0)
        memmove(out + STEPIO_HDR_LEN, data, len);
    /* A MAC that cannot be computed (libcrypto gone) leaves zeros, which
     * the peer refuses: the stream ends instead of going on unsigned. */
    if (frame_mac(s, s->send_dir, s->send_ctr, out, out + STEPIO_HDR_LEN, len,
                  out + STEPIO_HDR_LEN + len, &e) < 0)
        memset(out + STEPIO_HDR_LEN + len, 0, STEPIO_MAC_LEN);
    s->send_ctr++;
    return STEPIO_HDR_LEN + len + STEPIO_MAC_LEN;
}

int stepio_parse(struct stepio *s, const uint8_t *buf, size_t avail,
                 struct stepio_msg *m, size_t *used, struct err *e)
{
    uint8_t want[STEPIO_MAC_LEN];
    uint32_t len;

    if (avail < STEPIO_HDR_LEN)
        return 0;
    len = get32(buf);
    if (len > STEPIO_MAX_DATA || buf[5] != 0 || buf[6] != 0 || buf[7] != 0) {
        errno = EBADMSG;
        return err_set(e, "a step I/O frame with a bad header (length %u)",
                       len);
    }
    if (avail < (size_t)STEPIO_OVERHEAD + len)
        return 0;
    if (frame_mac(s, s->recv_dir, s->recv_ctr, buf, buf + STEPIO_HDR_LEN, len,
                  want, e) < 0)
        return -1;
    if (!same(want, buf + STEPIO_HDR_LEN + len, STEPIO_MAC_LEN)) {
        errno = EBADMSG;
        return err_set(e, "a step I/O frame failed its authentication");
    }
    s->recv_ctr++;
    m->type = buf[4];
    m->task = get32(buf + 8);
    m->data = buf + STEPIO_HDR_LEN;
    m->len = len;
    *used = STEPIO_OVERHEAD + len;
    return 1;
}

/* --- WINSIZE ----------------------------------------------------------- */

size_t stepio_winsize_format(uint16_t rows, uint16_t cols,
                             char out[STEPIO_WINSIZE_MAX])
{
    return (size_t)snprintf(out, STEPIO_WINSIZE_MAX, "%u %u", (unsigned)rows,
                            (unsigned)cols);
}

/* One canonical decimal number 0..65535 at p[*i..len); advances *i. */
static int winsize_num(const char *p, size_t len, size_t *i, uint16_t *out)
{
    size_t start = *i;
    uint32_t v = 0;

    while (*i < len && p[*i] >= '0' && p[*i] <= '9' && *i - start < 5)
        v = v * 10 + (uint32_t)(p[(*i)++] - '0');
    if (*i == start || v > 65535 || (p[start] == '0' && *i - start > 1) ||
        (*i < len && p[*i] >= '0' && p[*i] <= '9'))
        return -1;
    *out = (uint16_t)v;
    return 0;
}

int stepio_winsize_parse(const void *data, size_t len, uint16_t *rows,
                         uint16_t *cols, struct err *e)
{
    const char *p = data;
    uint16_t r, c;
    size_t i = 0;

    if (len >= STEPIO_WINSIZE_MAX || winsize_num(p, len, &i, &r) < 0 ||
        i >= len || p[i++] != ' ' || winsize_num(p, len, &i, &c) < 0 ||
        i != len) {
        errno = EBADMSG;
        return err_set(e, "a WINSIZE frame that is not \"ROWS COLS\" "
                          "(0..65535 each)");
    }
    *rows = r;
    *cols = c;
    return 0;
}
