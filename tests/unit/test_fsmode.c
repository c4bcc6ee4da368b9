/*
 * Unit tests for fsmode: which directories and files a daemon or `sluice
 * up` trusts, and creation with explicit modes whatever the umask.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsmode.h"

static char top[64];

static int setup(void **state)
{
    (void)state;
    strcpy(top, "/tmp/sluice-test-fsmode.XXXXXX");
    return mkdtemp(top) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    return system(cmd) == 0 ? 0 : -1;
}

static char *path(const char *name)
{
    static char buf[4][128];
    static int k;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, name);
    return buf[k];
}

static mode_t mode_of(const char *p)
{
    struct stat st;

    assert_int_equal(lstat(p, &st), 0);
    return st.st_mode & 07777;
}

/* Directories by mode: which pass, and what the message says. */
static void test_check_modes(void **state)
{
    static const struct {
        mode_t mode;
        int rc;
        const char *text; /* a part of the message, NULL when it passes */
    } cases[] = {
        {0700, 0, NULL},
        {0711, 0, NULL},
        {0755, 0, NULL},
        {0775, -1,
         "is writable by group or others (mode 0775): run chmod "
         "go-w "},
        {0757, -1, "(mode 0757)"},
        {01777, -1, "(mode 1777)"},
    };
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *d = path("d");
        assert_int_equal(mkdir(d, 0700), 0);
        assert_int_equal(chmod(d, cases[i].mode), 0);
        e.text[0] = '\0';
        assert_int_equal(fsmode_check(d, true, &e), cases[i].rc);
        if (cases[i].text != NULL) {
            assert_non_null(strstr(e.text, cases[i].text));
            assert_non_null(strstr(e.text, d));
            assert_int_equal(errno, EPERM);
        }
        assert_int_equal(rmdir(d), 0);
    }
}

/* A symbolic link is refused, never followed; a file is not a directory;
 * another owner is refused (when we can make one). */
static void test_check_kinds(void **state)
{
    struct err e;
    char *d = path("real"), *l = path("link"), *f = path("file");

    (void)state;
    assert_int_equal(mkdir(d, 0700), 0);
    assert_int_equal(symlink(d, l), 0);
    assert_int_equal(fsmode_check(l, true, &e), -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(e.text, "is a symbolic link: remove it"));
    close(open(f, O_WRONLY | O_CREAT, 0600));
    assert_int_equal(fsmode_check(f, true, &e), -1);
    assert_int_equal(errno, ENOTDIR);
    assert_int_equal(fsmode_check(f, false, &e), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(f, 65534, 65534), 0);
        assert_int_equal(fsmode_check(f, false, &e), -1);
        assert_int_equal(errno, EACCES);
        assert_non_null(strstr(e.text, "belongs to uid 65534, not to uid 0"));
    }
}

/* fsmode_mkdir: modes from chmod, not the umask; parents 0755; an
 * existing directory is checked, not changed. */
static void test_mkdir(void **state)
{
    mode_t old = umask(077);
    struct err e;

    (void)state;
    assert_int_equal(fsmode_mkdir(path("a/b/c"), 0711, &e), 0);
    assert_int_equal(mode_of(path("a")), 0755);
    assert_int_equal(mode_of(path("a/b")), 0755);
    assert_int_equal(mode_of(path("a/b/c")), 0711);
    assert_int_equal(chmod(path("a/b/c"), 0777), 0);
    assert_int_equal(fsmode_mkdir(path("a/b/c"), 0711, &e), -1);
    assert_non_null(strstr(e.text, "(mode 0777)"));
    assert_int_equal(mode_of(path("a/b/c")), 0777);
    umask(old);
}

/* fsmode_create_excl replaces a link planted at the name, never writing
 * through it; fsmode_open_private refuses one and makes a file 0600. */
static void test_create_no_follow(void **state)
{
    char *victim = path("victim"), *tmp = path("x.tmp"), *log = path("log");
    struct err e;
    int fd;

    (void)state;
    fd = open(victim, O_WRONLY | O_CREAT, 0644);
    assert_int_equal(write(fd, "keep\n", 5), 5);
    close(fd);
    assert_int_equal(symlink(victim, tmp), 0);
    fd = fsmode_create_excl(tmp, 0640);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "new\n", 4), 4);
    close(fd);
    assert_int_equal(mode_of(tmp), 0640);
    assert_int_equal(mode_of(victim), 0644);
    {
        struct stat st;
        assert_int_equal(stat(victim, &st), 0);
        assert_int_equal(st.st_size, 5);
    }

    assert_int_equal(symlink(victim, log), 0);
    assert_int_equal(fsmode_open_private(log, O_APPEND, &e), -1);
    assert_int_equal(unlink(log), 0);
    fd = open(log, O_WRONLY | O_CREAT, 0666);
    close(fd);
    assert_int_equal(chmod(log, 0666), 0);
    fd = fsmode_open_private(log, O_APPEND, &e);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mode_of(log), 0600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_check_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_no_follow, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
