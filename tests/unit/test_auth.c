/*
 * Unit tests for credentials: auth/key (HMAC, expiry, skew, replay, key
 * file checks) and auth/munge against a munged this test starts itself.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/auth.h"

#define MUNGED "/usr/sbin/munged"
#define MUNGEKEY "/usr/sbin/mungekey"

static char tmpdir[] = "/tmp/sluice-test-auth.XXXXXX";
static char key_path[256];
static pid_t munged_pid = -1;
static char munge_sock[300];
static time_t fake_now = 1700000000;

static time_t fake_clock(void)
{
    return fake_now;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

static struct auth *key_auth(const char *path)
{
    struct err e;
    struct auth *a = auth_create(AUTH_KEY, path, &e);

    if (a == NULL)
        fail_msg("auth_create: %s", e.text);
    auth_set_clock(a, fake_clock);
    auth_set_tags(a, "test", "test"); /* it verifies what it signs */
    return a;
}

static int group_setup(void **state)
{
    struct err e;

    (void)state;
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    snprintf(key_path, sizeof(key_path), "%s/auth.key", tmpdir);
    if (auth_keygen(key_path, &e) < 0) {
        fprintf(stderr, "auth_keygen: %s\n", e.text);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    char cmd[512];

    (void)state;
    if (munged_pid > 0) {
        kill(munged_pid, SIGTERM);
        waitpid(munged_pid, NULL, 0);
        munged_pid = -1;
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_key_round_trip(void **state)
{
    struct auth *a = key_auth(key_path);
    struct auth_id who = {99, 99};
    struct err e;
    char *cred = NULL;
    const char body[] = "{\"job\":{\"script\":\"#!/bin/sh\\n\"}}";

    (void)state;
    assert_int_equal(auth_get_type(a), AUTH_KEY);
    assert_int_equal(auth_sign(a, 10, 7, body, strlen(body), &cred, &e), 0);
    assert_non_null(strstr(cred, "k2:"));
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 10, 7, body, strlen(body), &who, &e),
        0);
    assert_int_equal(who.uid, geteuid());
    assert_int_equal(who.gid, getegid());
    free(cred);
    /* An empty body signs and verifies too. */
    assert_int_equal(auth_sign(a, 2, 0, NULL, 0, &cred, &e), 0);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 0, NULL, 0, &who, &e), 0);
    free(cred);
    auth_destroy(a);
}

static void test_key_wrong_key(void **state)
{
    char other[300];
    struct auth *a = key_auth(key_path), *b;
    struct auth_id who;
    struct err e;
    char *cred = NULL;

    (void)state;
    snprintf(other, sizeof(other), "%s/other.key", tmpdir);
    assert_int_equal(auth_keygen(other, &e), 0);
    b = key_auth(other);
    assert_int_equal(auth_sign(b, 2, 1, "{}", 2, &cred, &e), 0);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/key: credential MAC does not verify "
                                "(signed with a different key?)");
    free(cred);
    auth_destroy(a);
    auth_destroy(b);
}

static void test_key_tampered(void **state)
{
    struct auth *a = key_auth(key_path);
    struct auth_id who;
    struct err e;
    char *cred = NULL;
    const char *body = "{\"job_ids\":[1]}";
    const char *evil = "{\"job_ids\":[2]}";
    size_t len = strlen(body);

    (void)state;
    assert_int_equal(auth_sign(a, 12, 5, body, len, &cred, &e), 0);
    /* Another body, type or seq under the same credential. */
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 12, 5, evil, len, &who, &e), -1);
    assert_string_equal(e.text, "auth/key: frame does not match its "
                                "credential (altered in transit, or meant "
                                "for another receiver than test?)");
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 13, 5, body, len, &who, &e), -1);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 12, 6, body, len, &who, &e), -1);
    /* Claiming another uid breaks the MAC. */
    char *forged = strdup(cred);
    char *uid = forged + 3;
    *uid = *uid == '1' ? '2' : '1';
    assert_int_equal(
        auth_verify(a, forged, strlen(forged), 12, 5, body, len, &who, &e), -1);
    assert_non_null(strstr(e.text, "MAC does not verify"));
    /* The untouched credential still verifies once. */
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 12, 5, body, len, &who, &e), 0);
    free(forged);
    free(cred);
    auth_destroy(a);
}

static void test_key_expiry_and_skew(void **state)
{
    struct auth *a = key_auth(key_path);
    struct auth_id who;
    struct err e;
    char *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL;

    (void)state;
    fake_now = 1700000000;
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &c1, &e), 0);
    assert_int_equal(auth_sign(a, 2, 2, "{}", 2, &c2, &e), 0);
    fake_now += AUTH_TTL_DEFAULT_S; /* the last second of its life */
    assert_int_equal(auth_verify(a, c1, strlen(c1), 2, 1, "{}", 2, &who, &e),
                     0);
    fake_now += 1;
    assert_int_equal(auth_verify(a, c2, strlen(c2), 2, 2, "{}", 2, &who, &e),
                     -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/key: credential expired (issued 301 s "
                                "ago; ttl 300 s)");
    /* Issued in the future: 60 s of skew is tolerated, 61 s is not. */
    fake_now = 1700001000 + AUTH_SKEW_MAX_S;
    assert_int_equal(auth_sign(a, 2, 3, "{}", 2, &c3, &e), 0);
    fake_now += 1;
    assert_int_equal(auth_sign(a, 2, 4, "{}", 2, &c4, &e), 0);
    fake_now = 1700001000;
    assert_int_equal(auth_verify(a, c3, strlen(c3), 2, 3, "{}", 2, &who, &e),
                     0);
    assert_int_equal(auth_verify(a, c4, strlen(c4), 2, 4, "{}", 2, &who, &e),
                     -1);
    assert_string_equal(e.text, "auth/key: credential issued 61 s in the "
                                "future (clock skew?)");
    /* A shorter ttl applies to what this context accepts. */
    auth_set_ttl(a, 10);
    fake_now = 1700002000;
    free(c1);
    assert_int_equal(auth_sign(a, 2, 5, "{}", 2, &c1, &e), 0);
    fake_now += 11;
    assert_int_equal(auth_verify(a, c1, strlen(c1), 2, 5, "{}", 2, &who, &e),
                     -1);
    assert_non_null(strstr(e.text, "expired"));
    free(c1);
    free(c2);
    free(c3);
    free(c4);
    auth_destroy(a);
}

static void test_key_replay(void **state)
{
    struct auth *a = key_auth(key_path);
    struct auth_id who;
    struct err e;
    char *cred = NULL;

    (void)state;
    fake_now = 1700003000;
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &cred, &e), 0);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), 0);
    fake_now += 100;
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/key: credential replayed");
    free(cred);
    auth_destroy(a);
}

/* A full replay cache refuses old credentials instead of admitting a
 * replay of one it had to forget. */
static void test_key_replay_cache_full(void **state)
{
    struct auth *a = key_auth(key_path);
    struct auth_id who;
    struct err e;
    char *cred[4] = {NULL};

    (void)state;
    auth_set_replay_max(a, 2);
    fake_now = 1700004000;
    for (int i = 0; i < 3; i++)
        assert_int_equal(auth_sign(a, 2, (uint32_t)i, "{}", 2, &cred[i], &e),
                         0);
    fake_now += 1;
    assert_int_equal(auth_sign(a, 2, 3, "{}", 2, &cred[3], &e), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(auth_verify(a, cred[i], strlen(cred[i]), 2,
                                     (uint32_t)i, "{}", 2, &who, &e),
                         0);
    assert_int_equal(
        auth_verify(a, cred[0], strlen(cred[0]), 2, 0, "{}", 2, &who, &e), -1);
    assert_non_null(strstr(e.text, "replay cache full"));
    /* Issued a second later, it lives past the floor. */
    assert_int_equal(
        auth_verify(a, cred[3], strlen(cred[3]), 2, 3, "{}", 2, &who, &e), 0);
    for (int i = 0; i < 4; i++)
        free(cred[i]);
    auth_destroy(a);
}

static void test_key_malformed(void **state)
{
    static const char *bad[] = {
        "",
        "k2:",
        "k3:0:0:1700005000:00000000000000000000000000000000:",
        "k2:0:0:1700005000",
        "k2:x:0:1700005000:",
        "k2:4294967295:0:1700005000:",
        "k2:0:0:99999999999999999999:",
        "k2:0:0:1700005000:zz000000000000000000000000000000:",
        "k2:0:0:1700005000:0000:",
        "MUNGE:AwQFAAB=:",
    };
    struct auth *a = key_auth(key_path);
    struct auth_id who;
    struct err e;
    char *cred = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(
            auth_verify(a, bad[i], strlen(bad[i]), 2, 1, "{}", 2, &who, &e),
            -1);
        assert_int_equal(errno, EACCES);
    }
    assert_int_equal(auth_verify(a, "k2:0", 4, 2, 1, "{}", 2, &who, &e), -1);
    assert_string_equal(e.text, "auth/key: malformed credential");
    /* the format before receiver tags says what it is */
    assert_int_equal(auth_verify(a, "k1:0", 4, 2, 1, "{}", 2, &who, &e), -1);
    assert_string_equal(e.text, "auth/key: credential format k1 is no longer "
                                "accepted (the peer runs an older sluice)");
    assert_int_equal(auth_verify(a, NULL, 0, 2, 1, "{}", 2, &who, &e), -1);
    assert_string_equal(e.text, "auth/key: frame has no credential");
    /* A good credential with a byte more or less, or an extra field. */
    fake_now = 1700005000;
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &cred, &e), 0);
    size_t n = strlen(cred);
    assert_int_equal(auth_verify(a, cred, n - 1, 2, 1, "{}", 2, &who, &e), -1);
    char *longer = malloc(n + 3);
    memcpy(longer, cred, n);
    memcpy(longer + n, ":0", 3);
    assert_int_equal(
        auth_verify(a, longer, strlen(longer), 2, 1, "{}", 2, &who, &e), -1);
    /* Uppercase MAC hex is the same credential: accepted once only. */
    char *upper = strdup(cred);
    for (size_t i = n - 64; i < n; i++)
        upper[i] = (char)toupper((unsigned char)upper[i]);
    assert_int_equal(auth_verify(a, upper, n, 2, 1, "{}", 2, &who, &e), 0);
    assert_int_equal(auth_verify(a, cred, n, 2, 1, "{}", 2, &who, &e), -1);
    assert_string_equal(e.text, "auth/key: credential replayed");
    free(upper);
    free(longer);
    free(cred);
    auth_destroy(a);
}

static void test_key_file_checks(void **state)
{
    char path[300];
    struct err e;

    (void)state;
    snprintf(path, sizeof(path), "%s/loose.key", tmpdir);
    write_file(path, "0123456789abcdef0123456789abcdef0123456789abcdef\n",
               0644);
    assert_null(auth_create(AUTH_KEY, path, &e));
    char want[512];
    snprintf(want, sizeof(want), "auth/key: %s must be mode 0600 (is 0644)",
             path);
    assert_string_equal(e.text, want);

    snprintf(path, sizeof(path), "%s/short.key", tmpdir);
    write_file(path, "0123456789abcdef0123456789abcde\n", 0600);
    assert_null(auth_create(AUTH_KEY, path, &e));
    snprintf(want, sizeof(want),
             "auth/key: %s holds 31 bytes of key; at least 32 are needed",
             path);
    assert_string_equal(e.text, want);

    snprintf(path, sizeof(path), "%s/missing.key", tmpdir);
    assert_null(auth_create(AUTH_KEY, path, &e));
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(e.text, "No such file or directory"));

    assert_null(auth_create(AUTH_KEY, tmpdir, &e));
    assert_non_null(strstr(e.text, "is not a regular file"));
    assert_null(auth_create(AUTH_KEY, NULL, &e));
    assert_string_equal(e.text, "auth/key: no key file given");
    assert_null(auth_create((enum auth_type)7, NULL, &e));
    assert_int_equal(errno, EINVAL);
}

static void test_key_file_owner(void **state)
{
    char path[300], want[512];
    struct err e;

    (void)state;
    if (geteuid() != 0)
        skip(); /* needs root to give a file away */
    snprintf(path, sizeof(path), "%s/theirs.key", tmpdir);
    write_file(path, "0123456789abcdef0123456789abcdef0123456789abcdef\n",
               0600);
    assert_int_equal(chown(path, 1000, 1000), 0);
    assert_null(auth_create(AUTH_KEY, path, &e));
    snprintf(want, sizeof(want),
             "auth/key: %s must be owned by uid 0 (is 1000)", path);
    assert_string_equal(e.text, want);
}

static void test_keygen(void **state)
{
    char path[300], buf[200];
    struct stat st;
    struct err e;

    (void)state;
    snprintf(path, sizeof(path), "%s/gen.key", tmpdir);
    assert_int_equal(auth_keygen(path, &e), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_size, 2 * AUTH_KEY_MIN + 1);
    int fd = open(path, O_RDONLY);
    assert_int_equal(read(fd, buf, sizeof(buf)), 2 * AUTH_KEY_MIN + 1);
    close(fd);
    /* A second key replaces the first atomically and differs from it. */
    assert_int_equal(auth_keygen(path, &e), 0);
    fd = open(path, O_RDONLY);
    char buf2[200];
    assert_int_equal(read(fd, buf2, sizeof(buf2)), 2 * AUTH_KEY_MIN + 1);
    close(fd);
    assert_memory_not_equal(buf, buf2, 2 * AUTH_KEY_MIN);
    auth_destroy(key_auth(path));
    assert_int_equal(auth_keygen("/nonexistent/dir/key", &e), -1);
    assert_non_null(strstr(e.text, "/nonexistent/dir/key"));
}

static void test_peer_cred(void **state)
{
    int sv[2];
    struct auth_id who;

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(auth_peer_cred(sv[0], &who), 0);
    assert_int_equal(who.uid, getuid());
    assert_int_equal(who.gid, getgid());
    close(sv[0]);
    close(sv[1]);
    assert_int_equal(auth_peer_cred(-1, &who), -1);
    /* A TCP connection has no peer credentials, whatever Linux says. */
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l, (struct sockaddr *)&sin, len), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
    assert_int_equal(listen(l, 1), 0);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(c, (struct sockaddr *)&sin, len), 0);
    int s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    assert_int_equal(auth_peer_cred(s, &who), -1);
    assert_int_equal(errno, EAFNOSUPPORT);
    close(s);
    close(c);
    close(l);
}

static void test_type_names(void **state)
{
    enum auth_type t;

    (void)state;
    assert_int_equal(auth_type_parse("auth/munge", &t), 0);
    assert_int_equal(t, AUTH_MUNGE);
    assert_int_equal(auth_type_parse("auth/key", &t), 0);
    assert_int_equal(t, AUTH_KEY);
    assert_int_equal(auth_type_parse("auth/none", &t), -1);
    assert_string_equal(auth_type_name(AUTH_MUNGE), "auth/munge");
    assert_string_equal(auth_type_name(AUTH_KEY), "auth/key");
}

/* AuthInfo as sluicectld, sluiced and the CLI all read it. */
static void test_info_path(void **state)
{
    static const struct {
        enum auth_type type;
        const char *info, *want; /* want NULL: munge's default */
    } cases[] = {
        {AUTH_KEY, "", AUTH_KEY_DEFAULT_PATH},
        {AUTH_KEY, NULL, AUTH_KEY_DEFAULT_PATH},
        {AUTH_KEY, "/d/sluice.key", "/d/sluice.key"},
        {AUTH_KEY, "key=/d/k", "/d/k"},
        {AUTH_KEY, "ttl=60,key=/d/k", "/d/k"},
        {AUTH_KEY, "key=", AUTH_KEY_DEFAULT_PATH},
        {AUTH_KEY, "socket=/run/m.sock", AUTH_KEY_DEFAULT_PATH},
        {AUTH_MUNGE, "", NULL},
        {AUTH_MUNGE, "socket=/run/m.sock", "/run/m.sock"},
        {AUTH_MUNGE, "cred_expire=60,socket=/run/m.sock", "/run/m.sock"},
        {AUTH_MUNGE, "socket=/run/m.sock,ttl=60", "/run/m.sock"},
        {AUTH_MUNGE, "/run/m.sock", "/run/m.sock"},
        {AUTH_MUNGE, "xsocket=/a", NULL},
        {AUTH_MUNGE, "key=/d/k", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = auth_info_path(cases[i].type, cases[i].info);
        if (cases[i].want == NULL) {
            if (got != NULL)
                fail_msg("case %zu: got %s, want NULL", i, got);
        } else {
            if (got == NULL || strcmp(got, cases[i].want) != 0)
                fail_msg("case %zu: got %s, want %s", i, got ? got : "NULL",
                         cases[i].want);
        }
        free(got);
    }
}

static char *xkey_arg(const char *opt, const char *val)
{
    char *s = NULL;

    if (asprintf(&s, "%s%s", opt, val) < 0)
        abort();
    return s;
}

/* Start a private munged once; skip when it is not installed. */
static void munge_start(void)
{
    char key[300], log[300], pid[300], seed[300], cmd[1024];
    char *argv[16];

    if (munged_pid > 0)
        return;
    if (access(MUNGED, X_OK) != 0)
        skip();
    assert_int_equal(chmod(tmpdir, 0755), 0); /* munged wants o+x */
    snprintf(key, sizeof(key), "%s/munge.key", tmpdir);
    snprintf(munge_sock, sizeof(munge_sock), "%s/munge.sock", tmpdir);
    snprintf(log, sizeof(log), "%s/munged.log", tmpdir);
    snprintf(pid, sizeof(pid), "%s/munged.pid", tmpdir);
    snprintf(seed, sizeof(seed), "%s/munged.seed", tmpdir);
    if (access(MUNGEKEY, X_OK) == 0)
        snprintf(cmd, sizeof(cmd), "%s -c -k %s", MUNGEKEY, key);
    else
        snprintf(cmd, sizeof(cmd),
                 "dd if=/dev/urandom of=%s bs=1024 count=1 status=none && "
                 "chmod 0400 %s",
                 key, key);
    assert_int_equal(system(cmd), 0);
    int n = 0;
    argv[n++] = (char *)MUNGED;
    argv[n++] = (char *)"-F";
    argv[n++] = xkey_arg("--key-file=", key);
    argv[n++] = xkey_arg("--socket=", munge_sock);
    argv[n++] = xkey_arg("--pid-file=", pid);
    argv[n++] = xkey_arg("--log-file=", log);
    argv[n++] = xkey_arg("--seed-file=", seed);
    argv[n] = NULL;
    munged_pid = fork();
    assert_true(munged_pid >= 0);
    if (munged_pid == 0) {
        /* Die with the test, even if it crashes. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execv(MUNGED, argv);
        _exit(127);
    }
    for (int i = 0; i < 5; i++)
        free(argv[2 + i]);
    for (int i = 0; i < 100; i++) {
        struct stat st;
        if (stat(munge_sock, &st) == 0)
            return;
        if (waitpid(munged_pid, NULL, WNOHANG) == munged_pid) {
            munged_pid = -1;
            fail_msg("munged exited; see %s", log);
        }
        usleep(50 * 1000);
    }
    fail_msg("munged did not create %s", munge_sock);
}

static struct auth *munge_auth(void)
{
    struct err e;
    struct auth *a;

    munge_start();
    a = auth_create(AUTH_MUNGE, munge_sock, &e);
    if (a == NULL)
        fail_msg("auth_create: %s", e.text);
    auth_set_tags(a, "test", "test"); /* it verifies what it signs */
    return a;
}

static void test_munge_round_trip(void **state)
{
    struct auth *a = munge_auth();
    struct auth_id who = {99, 99};
    struct err e;
    char *cred = NULL;
    const char *body = "{\"node\":\"node01\"}";

    (void)state;
    assert_int_equal(auth_get_type(a), AUTH_MUNGE);
    assert_int_equal(auth_sign(a, 30, 9, body, strlen(body), &cred, &e), 0);
    assert_int_equal(strncmp(cred, "MUNGE:", 6), 0);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 30, 9, body, strlen(body), &who, &e),
        0);
    assert_int_equal(who.uid, geteuid());
    assert_int_equal(who.gid, getegid());
    free(cred);
    auth_destroy(a);
}

static void test_munge_tampered_and_replayed(void **state)
{
    struct auth *a = munge_auth();
    struct auth_id who;
    struct err e;
    char *cred = NULL;
    const char *body = "{\"job_ids\":[1]}";
    const char *evil = "{\"job_ids\":[2]}";

    (void)state;
    assert_int_equal(auth_sign(a, 12, 3, body, strlen(body), &cred, &e), 0);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 12, 3, evil, strlen(evil), &who, &e),
        -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/munge: frame does not match its "
                                "credential (altered in transit, or meant "
                                "for another receiver than test?)");
    /* munged saw it decoded once already: a replay now. */
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 12, 3, body, strlen(body), &who, &e),
        -1);
    assert_string_equal(e.text, "auth/munge: credential replayed");
    free(cred);
    /* Garbage, a key credential, and bytes that are not text. */
    assert_int_equal(
        auth_verify(a, "MUNGE:AAAA:", 11, 12, 3, body, strlen(body), &who, &e),
        -1);
    assert_int_equal(errno, EACCES);
    assert_non_null(strstr(e.text, "auth/munge: invalid credential"));
    assert_int_equal(
        auth_verify(a, "k1:0:0:1:", 9, 12, 3, body, strlen(body), &who, &e),
        -1);
    assert_int_equal(
        auth_verify(a, "MUNGE\0x", 8, 12, 3, body, strlen(body), &who, &e), -1);
    assert_string_equal(e.text, "auth/munge: malformed credential");
    auth_destroy(a);
}

static void test_munge_expired(void **state)
{
    struct auth *a = munge_auth();
    struct auth_id who;
    struct err e;
    char *cred = NULL;

    (void)state;
    auth_set_ttl(a, 1);
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &cred, &e), 0);
    sleep(3);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/munge: credential expired");
    free(cred);
    auth_destroy(a);
}

/* A frame is signed for one receiver (auth.h): a frame for a node is
 * refused by the controller and by another node, and one for the
 * controller by a node; the receiver it was meant for accepts it.  Each
 * try signs afresh (munged refuses a second decode as a replay). */
static int try_frame(struct auth *from, const char *to, struct auth *at,
                     struct err *e)
{
    const char *body = "{\"job\":{\"job_id\":7}}";
    size_t len = strlen(body);
    struct auth_id who;
    char *cred = NULL;
    int rc;

    assert_int_equal(to ? auth_sign_to(from, to, 32, 4, body, len, &cred, e)
                        : auth_sign(from, 32, 4, body, len, &cred, e),
                     0);
    rc = auth_verify(at, cred, strlen(cred), 32, 4, body, len, &who, e);
    free(cred);
    return rc;
}

static void check_receivers(struct auth *ctld, struct auth *node1,
                            struct auth *node2, const char *kind)
{
    struct err e;
    char want[160];

    /* controller -> node01: only node01 takes it */
    assert_int_equal(try_frame(ctld, NULL, ctld, &e), -1);
    snprintf(want, sizeof(want),
             "%s: frame does not match its credential (altered in transit, "
             "or meant for another receiver than sluicectld?)",
             kind);
    assert_string_equal(e.text, want);
    assert_int_equal(try_frame(ctld, NULL, node2, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_int_equal(try_frame(ctld, NULL, node1, &e), 0);
    /* node01 -> controller: a node does not take it */
    assert_int_equal(try_frame(node1, NULL, node2, &e), -1);
    assert_int_equal(try_frame(node1, NULL, ctld, &e), 0);
    /* a reply to a client is no frame for the controller */
    assert_int_equal(try_frame(ctld, AUTH_TAG_CLIENT, ctld, &e), -1);
}

static void test_key_receiver_bound(void **state)
{
    struct auth *ctld = key_auth(key_path), *n1 = key_auth(key_path),
                *n2 = key_auth(key_path);

    (void)state;
    fake_now = 1700000000;
    auth_set_tags(ctld, AUTH_TAG_CTLD, AUTH_TAG_NODE_PREFIX "node01");
    auth_set_tags(n1, AUTH_TAG_NODE_PREFIX "node01", AUTH_TAG_CTLD);
    auth_set_tags(n2, AUTH_TAG_NODE_PREFIX "node02", AUTH_TAG_CTLD);
    check_receivers(ctld, n1, n2, "auth/key");
    auth_destroy(ctld);
    auth_destroy(n1);
    auth_destroy(n2);
}

/* A credential issued before the verifier's floor (its start) is refused,
 * even though it is within the ttl and was never seen: a restart empties
 * the replay cache, the floor keeps what was captured before it out.  The
 * floor is kept in a file, 0600, and never goes back with the clock. */
static void test_key_floor(void **state)
{
    struct auth *a = key_auth(key_path), *b;
    struct auth_id who;
    struct err e;
    struct stat sb;
    char *cred = NULL, path[300];

    (void)state;
    snprintf(path, sizeof(path), "%s/auth_floor", tmpdir);
    unlink(path);
    fake_now = 1700001000;
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &cred, &e), 0);
    /* "the restart": a new verifier, 10 s later */
    fake_now = 1700001010;
    b = key_auth(key_path);
    assert_int_equal(auth_floor_persist(b, path, &e), 0);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(
        auth_verify(b, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "auth/key: credential issued 10 s before this "
                                "daemon started (replayed from before a "
                                "restart?)");
    free(cred);
    /* what is signed from now on passes */
    assert_int_equal(auth_sign(a, 2, 2, "{}", 2, &cred, &e), 0);
    assert_int_equal(
        auth_verify(b, cred, strlen(cred), 2, 2, "{}", 2, &who, &e), 0);
    free(cred);
    auth_destroy(b);
    /* the clock went back 100 s: the recorded floor stands */
    fake_now = 1700000910;
    b = key_auth(key_path);
    assert_int_equal(auth_floor_persist(b, path, &e), 0);
    assert_int_equal(auth_sign(a, 2, 3, "{}", 2, &cred, &e), 0);
    assert_int_equal(
        auth_verify(b, cred, strlen(cred), 2, 3, "{}", 2, &who, &e), -1);
    free(cred);
    auth_destroy(b);
    auth_destroy(a);
    unlink(path);
}

static void test_munge_receiver_bound(void **state)
{
    struct auth *ctld = munge_auth(), *n1 = munge_auth(), *n2 = munge_auth();

    (void)state;
    auth_set_tags(ctld, AUTH_TAG_CTLD, AUTH_TAG_NODE_PREFIX "node01");
    auth_set_tags(n1, AUTH_TAG_NODE_PREFIX "node01", AUTH_TAG_CTLD);
    auth_set_tags(n2, AUTH_TAG_NODE_PREFIX "node02", AUTH_TAG_CTLD);
    check_receivers(ctld, n1, n2, "auth/munge");
    auth_destroy(ctld);
    auth_destroy(n1);
    auth_destroy(n2);
}

static void test_munge_floor(void **state)
{
    struct auth *a = munge_auth();
    struct auth_id who;
    struct err e;
    char *cred = NULL;

    (void)state;
    assert_int_equal(auth_sign(a, 2, 1, "{}", 2, &cred, &e), 0);
    auth_set_floor(a, time(NULL) + 5);
    assert_int_equal(
        auth_verify(a, cred, strlen(cred), 2, 1, "{}", 2, &who, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_non_null(strstr(e.text, "before this daemon started"));
    free(cred);
    auth_destroy(a);
}

static void test_munge_unreachable(void **state)
{
    struct err e;

    (void)state;
    if (access(MUNGED, X_OK) != 0)
        skip();
    assert_null(auth_create(AUTH_MUNGE, "/nonexistent/munge.sock", &e));
    assert_int_equal(errno, EIO);
    assert_non_null(strstr(e.text, "auth/munge: cannot reach munged at "
                                   "/nonexistent/munge.sock: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_round_trip),
        cmocka_unit_test(test_key_wrong_key),
        cmocka_unit_test(test_key_tampered),
        cmocka_unit_test(test_key_expiry_and_skew),
        cmocka_unit_test(test_key_replay),
        cmocka_unit_test(test_key_replay_cache_full),
        cmocka_unit_test(test_key_malformed),
        cmocka_unit_test(test_key_receiver_bound),
        cmocka_unit_test(test_key_floor),
        cmocka_unit_test(test_key_file_checks),
        cmocka_unit_test(test_key_file_owner),
        cmocka_unit_test(test_keygen),
        cmocka_unit_test(test_peer_cred),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_info_path),
        cmocka_unit_test(test_munge_round_trip),
        cmocka_unit_test(test_munge_tampered_and_replayed),
        cmocka_unit_test(test_munge_expired),
        cmocka_unit_test(test_munge_receiver_bound),
        cmocka_unit_test(test_munge_floor),
        cmocka_unit_test(test_munge_unreachable),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
