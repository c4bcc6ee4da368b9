/*
 * Unit tests for the step I/O channel: keys in hex, the handshake over a
 * socket pair against a forked peer (right key, wrong key, wrong step,
 * a peer that says nothing), frames both ways, and every way a frame can
 * be refused (tampered, replayed, reflected, oversize, cut short), and
 * the WINSIZE data of srun --pty.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/stepio.h"

static const uint8_t key_a[STEPIO_KEY_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t key_b[STEPIO_KEY_LEN] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

static void test_key_hex(void **state)
{
    uint8_t k[STEPIO_KEY_LEN], back[STEPIO_KEY_LEN];
    char hex[STEPIO_KEY_HEX_LEN + 1];
    struct err e;

    (void)state;
    assert_int_equal(stepio_key_new(k, &e), 0);
    stepio_key_hex(k, hex);
    assert_int_equal(strlen(hex), STEPIO_KEY_HEX_LEN);
    assert_int_equal(stepio_key_parse(hex, back, &e), 0);
    assert_memory_equal(k, back, sizeof(k));
    hex[5] = 'g';
    assert_int_equal(stepio_key_parse(hex, back, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "64 hexadecimal digits"));
    assert_int_equal(stepio_key_parse("abcd", back, &e), -1);
    assert_int_equal(stepio_key_parse(NULL, back, &e), -1);
}

/*
 * The supervisor's side in a child on sv[1]: handshake with key for
 * job.step, then one STDOUT frame "hello" for task 7 and one it reads
 * back (an echo check); exits 0 on success, 1 on a failed handshake,
 * 2 otherwise.
 */
static pid_t supervisor(int fd, const uint8_t *key, uint32_t job, uint32_t step)
{
    pid_t pid = fork();

    if (pid != 0)
        return pid;
    struct stepio s;
    struct err e;
    uint8_t out[64 + STEPIO_OVERHEAD], in[256];
    size_t len, got = 0, used;
    struct stepio_msg m;

    if (stepio_connect_handshake(fd, key, job, step, 3, &s, 2000, &e) < 0)
        _exit(1);
    len = stepio_frame(&s, STEPIO_STDOUT, 7, "hello", 5, out);
    if (write(fd, out, len) != (ssize_t)len)
        _exit(2);
    for (;;) {
        ssize_t n = read(fd, in + got, sizeof(in) - got);

        if (n <= 0)
            _exit(2);
        got += (size_t)n;
        int rc = stepio_parse(&s, in, got, &m, &used, &e);

        if (rc < 0)
            _exit(2);
        if (rc == 1)
            _exit(m.type == STEPIO_SIGNAL && m.len == 2 &&
                          memcmp(m.data, "15", 2) == 0
                      ? 0
                      : 2);
    }
}

/* A stream with supervisor() on its other end: srun's end into *srun_fd
 * (the child's end is closed here, so the child's exit closes it). */
static pid_t supervisor_pair(int *srun_fd, const uint8_t *key, uint32_t job,
                             uint32_t step)
{
    int sv[2];
    pid_t pid;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid = supervisor(sv[1], key, job, step);
    close(sv[1]);
    *srun_fd = sv[0];
    return pid;
}

static int child_status(pid_t pid)
{
    int st;

    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static void test_handshake_and_frames(void **state)
{
    int fd;
    struct stepio s;
    struct stepio_msg m;
    struct err e;
    uint32_t node = 99;
    uint8_t buf[256], out[16 + STEPIO_OVERHEAD];
    size_t got = 0, used = 0;
    pid_t pid;

    (void)state;
    pid = supervisor_pair(&fd, key_a, 12, 0);
    assert_int_equal(
        stepio_accept_handshake(fd, key_a, 12, 0, &node, &s, 2000, &e), 0);
    assert_int_equal(node, 3);
    while (stepio_parse(&s, buf, got, &m, &used, &e) == 0) {
        ssize_t n = read(fd, buf + got, sizeof(buf) - got);

        assert_true(n > 0);
        got += (size_t)n;
    }
    assert_int_equal(m.type, STEPIO_STDOUT);
    assert_int_equal(m.task, 7);
    assert_int_equal(m.len, 5);
    assert_memory_equal(m.data, "hello", 5);
    assert_int_equal(used, 5 + STEPIO_OVERHEAD);
    size_t len =
        stepio_frame(&s, STEPIO_SIGNAL, STEPIO_ALL_TASKS, "15", 2, out);
    assert_int_equal(write(fd, out, len), (ssize_t)len);
    assert_int_equal(child_status(pid), 0);
    close(fd);
}

/* Handshakes srun (key_a, step 12.0) refuses, and so does the
 * supervisor (it exits 1). */
static void test_refused(void **state)
{
    static const struct {
        const char *name;
        const uint8_t *sup_key;
        uint32_t sup_step;
        int want_errno;        /* 0: any */
        const char *want_text; /* NULL: any */
    } cases[] = {
        /* srun proves key_a; the supervisor, holding key_b, refuses srun */
        {"wrong key", key_b, 0, 0, NULL},
        {"wrong step", key_a, 1, EACCES, "not for step 12.0"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct stepio s;
        struct err e;
        uint32_t node;
        int fd;
        pid_t pid =
            supervisor_pair(&fd, cases[i].sup_key, 12, cases[i].sup_step);

        assert_int_equal(
            stepio_accept_handshake(fd, key_a, 12, 0, &node, &s, 2000, &e), -1);
        if (cases[i].want_errno != 0)
            assert_int_equal(errno, cases[i].want_errno);
        if (cases[i].want_text != NULL)
            assert_non_null(strstr(e.text, cases[i].want_text));
        close(fd);
        assert_int_equal(child_status(pid), 1);
    }
}

static void test_silent_peer(void **state)
{
    int sv[2];
    struct stepio s;
    struct err e;
    uint32_t node;

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(
        stepio_accept_handshake(sv[0], key_a, 12, 0, &node, &s, 100, &e), -1);
    assert_int_equal(errno, ETIMEDOUT);
    close(sv[0]);
    close(sv[1]);
}

/* Two ends of a session without sockets: the same session key, the
 * supervisor's end sends 'S', srun's 'R'. */
static void pair(struct stepio *sup, struct stepio *srun)
{
    memset(sup, 0, sizeof(*sup));
    memset(sup->session, 0x5a, sizeof(sup->session));
    sup->send_dir = 'S';
    sup->recv_dir = 'R';
    *srun = *sup;
    srun->send_dir = 'R';
    srun->recv_dir = 'S';
}

static void test_refusals(void **state)
{
    struct stepio sup, srun;
    struct stepio_msg m;
    struct err e;
    uint8_t f1[8 + STEPIO_OVERHEAD], f2[8 + STEPIO_OVERHEAD];
    size_t len, used;

    (void)state;
    pair(&sup, &srun);
    len = stepio_frame(&sup, STEPIO_STDERR, 1, "abcdefgh", 8, f1);
    /* cut short: more bytes needed, nothing consumed */
    for (size_t cut = 0; cut < len; cut++)
        assert_int_equal(stepio_parse(&srun, f1, cut, &m, &used, &e), 0);
    /* tampered data */
    f1[STEPIO_HDR_LEN] ^= 1;
    assert_int_equal(stepio_parse(&srun, f1, len, &m, &used, &e), -1);
    assert_int_equal(errno, EBADMSG);
    f1[STEPIO_HDR_LEN] ^= 1;
    /* tampered task */
    f1[11] ^= 1;
    assert_int_equal(stepio_parse(&srun, f1, len, &m, &used, &e), -1);
    f1[11] ^= 1;
    assert_int_equal(stepio_parse(&srun, f1, len, &m, &used, &e), 1);
    assert_memory_equal(m.data, "abcdefgh", 8);
    /* replayed: the counter moved on */
    assert_int_equal(stepio_parse(&srun, f1, len, &m, &used, &e), -1);
    /* reflected: a frame of srun's fed back to srun (same counter) */
    pair(&sup, &srun);
    len = stepio_frame(&srun, STEPIO_STDIN, 1, "abcdefgh", 8, f2);
    assert_int_equal(stepio_parse(&srun, f2, len, &m, &used, &e), -1);
    assert_int_equal(stepio_parse(&sup, f2, len, &m, &used, &e), 1);
    /* oversize length: refused from the header alone */
    memset(f2, 0, STEPIO_HDR_LEN);
    f2[0] = 0x7f;
    assert_int_equal(stepio_parse(&srun, f2, STEPIO_HDR_LEN, &m, &used, &e),
                     -1);
    assert_non_null(strstr(e.text, "bad header"));
}

static void test_in_place_and_large(void **state)
{
    struct stepio sup, srun;
    struct stepio_msg m;
    struct err e;
    size_t used, len;
    uint8_t *f = malloc(STEPIO_MAX_DATA + STEPIO_OVERHEAD);

    (void)state;
    pair(&sup, &srun);
    assert_non_null(f);
    for (size_t i = 0; i < STEPIO_MAX_DATA; i++)
        f[STEPIO_HDR_LEN + i] = (uint8_t)(i * 7);
    len = stepio_frame(&sup, STEPIO_STDOUT, 0, f + STEPIO_HDR_LEN,
                       STEPIO_MAX_DATA, f);
    assert_int_equal(len, STEPIO_MAX_DATA + STEPIO_OVERHEAD);
    assert_int_equal(stepio_parse(&srun, f, len, &m, &used, &e), 1);
    assert_int_equal(m.len, STEPIO_MAX_DATA);
    assert_int_equal(m.data[1000], (uint8_t)7000);
    /* an empty frame */
    len = stepio_frame(&sup, STEPIO_DONE, 0, NULL, 0, f);
    assert_int_equal(stepio_parse(&srun, f, len, &m, &used, &e), 1);
    assert_int_equal(m.type, STEPIO_DONE);
    assert_int_equal(m.len, 0);
    free(f);
}

/* WINSIZE data: "ROWS COLS" round-trips; anything else is EBADMSG and
 * leaves the outputs alone. */
static void test_winsize(void **state)
{
    static const struct {
        uint16_t rows, cols;
        const char *text;
    } good[] = {
        {24, 80, "24 80"},
        {0, 0, "0 0"},
        {65535, 65535, "65535 65535"},
        {1, 500, "1 500"},
    };
    static const char *const bad[] = {
        "",         " ",        "24",      "24 ",      " 24 80",   "24 80 ",
        "24  80",   "24\t80",   "024 80",  "24 080",   "+24 80",   "-1 80",
        "65536 80", "24 65536", "99999 1", "1 100000", "24 80\n",  "24 80 1",
        "2x 80",    "24 8O",    "00 1",    "1 00",     "123456 1",
    };
    char buf[STEPIO_WINSIZE_MAX];
    uint16_t r = 7, c = 9;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        size_t n = stepio_winsize_format(good[i].rows, good[i].cols, buf);
        assert_int_equal(n, strlen(good[i].text));
        assert_string_equal(buf, good[i].text);
        assert_int_equal(stepio_winsize_parse(buf, n, &r, &c, &e), 0);
        assert_int_equal(r, good[i].rows);
        assert_int_equal(c, good[i].cols);
    }
    r = c = 7;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        if (stepio_winsize_parse(bad[i], strlen(bad[i]), &r, &c, &e) != -1)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(errno, EBADMSG);
        assert_int_equal(r, 7);
        assert_int_equal(c, 7);
    }
    assert_non_null(strstr(e.text, "ROWS COLS"));
    /* the length counts, not a NUL: "24 80" within "24 800" */
    assert_int_equal(stepio_winsize_parse("24 800", 5, &r, &c, &e), 0);
    assert_int_equal(c, 80);
    assert_int_equal(stepio_winsize_parse(NULL, 0, &r, &c, &e), -1);
    /* a NUL inside is just a bad byte */
    assert_int_equal(stepio_winsize_parse("24\0 80", 6, &r, &c, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_hex),
        cmocka_unit_test(test_handshake_and_frames),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_silent_peer),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_in_place_and_large),
        cmocka_unit_test(test_winsize),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
