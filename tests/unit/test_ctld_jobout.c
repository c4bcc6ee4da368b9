/*
 * Unit tests for ctld/web/jobout, a job's output tail as the dashboard
 * reads it: the end of the file up to the cap, text that is not UTF-8
 * made readable, and symbolic links, FIFOs, directories and files of
 * another user refused (without blocking on the FIFO).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctld/web/jobout.h"

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_jobout.XXXXXX");
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown_dir(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path in tmpdir; two in turn, so that a call may take two. */
static char *path_of(const char *name)
{
    static char p[2][128];
    static int turn;

    turn = !turn;
    snprintf(p[turn], sizeof(p[turn]), "%s/%s", tmpdir, name);
    return p[turn];
}

static void write_file(const char *name, const char *data, size_t len)
{
    FILE *f = fopen(path_of(name), "w");

    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void test_tail(void **state)
{
    struct jobout_tail t;
    struct err e;

    (void)state;
    write_file("out", "line one\nline two\n", 18);
    assert_int_equal(jobout_read(path_of("out"), getuid(), 100, &t, &e), 0);
    assert_string_equal(t.text, "line one\nline two\n");
    assert_int_equal(t.size, 18);
    assert_int_equal(t.offset, 0);
    jobout_clear(&t);
    /* the last 9 bytes only */
    assert_int_equal(jobout_read(path_of("out"), getuid(), 9, &t, &e), 0);
    assert_string_equal(t.text, "line two\n");
    assert_int_equal(t.offset, 9);
    jobout_clear(&t);
    /* a cap above the most is the most */
    assert_int_equal(
        jobout_read(path_of("out"), getuid(), JOBOUT_MAX_BYTES * 4, &t, &e), 0);
    assert_int_equal(t.len, 18);
    jobout_clear(&t);
}

static void test_tail_text(void **state)
{
    /* "é" (c3 a9) cut by the window, a NUL, a bad byte, "€" (e2 82 ac)
     * cut at the end */
    static const char data[] = "x\xc3\xa9y\0z\xff"
                               "w\xe2\x82";
    struct jobout_tail t;
    struct err e;

    (void)state;
    write_file("bin", data, sizeof(data) - 1);
    assert_int_equal(
        jobout_read(path_of("bin"), getuid(), sizeof(data) - 3, &t, &e), 0);
    assert_string_equal(t.text, "y?z?w");
    assert_int_equal(t.len, 5);
    jobout_clear(&t);
}

static void test_refused(void **state)
{
    struct jobout_tail t;
    struct err e;

    (void)state;
    write_file("real", "secret\n", 7);
    assert_int_equal(symlink(path_of("real"), path_of("link")), 0);
    assert_int_equal(jobout_read(path_of("link"), getuid(), 100, &t, &e), -1);
    assert_non_null(strstr(e.text, "symbolic link"));
    assert_null(t.text);

    assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
    /* refused without blocking: nobody writes to it */
    assert_int_equal(jobout_read(path_of("fifo"), getuid(), 100, &t, &e), -1);
    assert_non_null(strstr(e.text, "not a regular file"));

    assert_int_equal(jobout_read(tmpdir, getuid(), 100, &t, &e), -1);
    assert_non_null(strstr(e.text, "not a regular file"));

    assert_int_equal(jobout_read(path_of("real"), getuid() + 1, 100, &t, &e),
                     -1);
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(e.text, "not to the job's user"));

    assert_int_equal(jobout_read(path_of("none"), getuid(), 100, &t, &e), -1);
    assert_non_null(strstr(e.text, "no such file on the controller's host"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_tail_text),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
