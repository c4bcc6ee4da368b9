/*
 * sd_notify's datagram, as systemd's manager receives it: a socket of our
 * own stands in for systemd's (a path, then an abstract name), and what
 * the daemons send must arrive whole; without NOTIFY_SOCKET nothing is
 * sent, and the variable never reaches what the daemon starts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sdnotify.h"

/* A datagram socket bound to name ("/path" or "@abstract"). */
static int bound(const char *name)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    size_t n = strlen(name);
    socklen_t len;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    memcpy(sun.sun_path, name, n);
    if (name[0] == '@')
        sun.sun_path[0] = '\0';
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    assert_int_equal(bind(fd, (struct sockaddr *)&sun, len), 0);
    return fd;
}

/* The next datagram on fd, or "" after 2 s. */
static char *received(int fd)
{
    static char buf[512];
    struct timeval tv = {2, 0};
    ssize_t n;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    n = recv(fd, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void test_path_socket(void **state)
{
    char dir[] = "/tmp/sluice-sdnotify.XXXXXX", path[64];
    struct err e;
    int fd;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/notify", dir);
    fd = bound(path);
    setenv("NOTIFY_SOCKET", path, 1);
    assert_int_equal(sdnotify_init(&e), 0);
    assert_true(sdnotify_enabled());
    /* gone from the environment: jobs and MailProg never see it */
    assert_null(getenv("NOTIFY_SOCKET"));
    assert_int_equal(sdnotify_send("READY=1\nSTATUS=serving"), 0);
    assert_string_equal(received(fd), "READY=1\nSTATUS=serving");
    assert_int_equal(sdnotify_send("STOPPING=1"), 0);
    assert_string_equal(received(fd), "STOPPING=1");
    close(fd);
    unlink(path);
    rmdir(dir);
}

static void test_abstract_socket(void **state)
{
    char name[64];
    struct err e;
    int fd;

    (void)state;
    snprintf(name, sizeof(name), "@sluice-test-sdnotify-%d", (int)getpid());
    fd = bound(name);
    setenv("NOTIFY_SOCKET", name, 1);
    assert_int_equal(sdnotify_init(&e), 0);
    assert_int_equal(sdnotify_send("READY=1"), 0);
    assert_string_equal(received(fd), "READY=1");
    close(fd);
}

static void test_not_under_systemd(void **state)
{
    struct err e;

    (void)state;
    unsetenv("NOTIFY_SOCKET");
    assert_int_equal(sdnotify_init(&e), 0);
    assert_false(sdnotify_enabled());
    assert_int_equal(sdnotify_send("READY=1"), 0);
}

static void test_bad_address(void **state)
{
    static const char *const bad[] = {"relative/notify", "@", "",
                                      "vsock:2:1234"};
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("NOTIFY_SOCKET", bad[i], 1);
        assert_int_equal(sdnotify_init(&e), -1);
        assert_non_null(strstr(e.text, "NOTIFY_SOCKET="));
        assert_false(sdnotify_enabled());
        assert_null(getenv("NOTIFY_SOCKET"));
        assert_int_equal(sdnotify_send("READY=1"), 0);
    }
}

/* Nobody listening: the daemon hears why, and goes on. */
static void test_nobody_listening(void **state)
{
    struct err e;

    (void)state;
    setenv("NOTIFY_SOCKET", "/tmp/sluice-sdnotify-nonexistent/notify", 1);
    assert_int_equal(sdnotify_init(&e), 0);
    assert_int_equal(sdnotify_send("READY=1"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_socket),
        cmocka_unit_test(test_abstract_socket),
        cmocka_unit_test(test_not_under_systemd),
        cmocka_unit_test(test_bad_address),
        cmocka_unit_test(test_nobody_listening),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
