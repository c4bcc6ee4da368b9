/*
 * "scontrol show hostnames" and "scontrol show hostlist[sorted]", which
 * batch scripts use to turn $SLURM_JOB_NODELIST into names and back.  The
 * verb runs in-process with stdout and stderr captured; neither command
 * reaches the controller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"

/* slurp: what tmp holds, into out; closes tmp. */
static void slurp(FILE *tmp, char *out, size_t len)
{
    size_t n;

    rewind(tmp);
    n = fread(out, 1, len - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
}

/* run: scontrol on words (NULL-terminated); its exit code, and what it
 * wrote on stdout and stderr. */
static int run(const char *const *words, char *out, char *err, size_t len)
{
    char *argv[8];
    int argc = 0, saved_out, saved_err, rc;
    FILE *tmp_out = tmpfile(), *tmp_err = tmpfile();

    assert_non_null(tmp_out);
    assert_non_null(tmp_err);
    for (; words[argc] != NULL; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    saved_out = dup(STDOUT_FILENO);
    saved_err = dup(STDERR_FILENO);
    dup2(fileno(tmp_out), STDOUT_FILENO);
    dup2(fileno(tmp_err), STDERR_FILENO);
    rc = cmd_scontrol(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    slurp(tmp_out, out, len);
    slurp(tmp_err, err, len);
    return rc;
}

static void expect(const char *const *words, int want_rc, const char *want_out,
                   const char *want_err)
{
    char out[1024], err[1024];

    assert_int_equal(run(words, out, err, sizeof(out)), want_rc);
    assert_string_equal(out, want_out);
    assert_string_equal(err, want_err);
}

static void test_hostnames(void **state)
{
    (void)state;
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_NODELIST");
    expect((const char *[]){"scontrol", "show", "hostnames", "node[01-03],gpu7",
                            NULL},
           0, "node01\nnode02\nnode03\ngpu7\n", "");
    expect((const char *[]){"scontrol", "show", "hostnames", NULL}, 1, "",
           "scontrol: error: No nodelist specified and SLURM_JOB_NODELIST is "
           "not set\n");
    expect((const char *[]){"scontrol", "show", "hostnames", "n[1", NULL}, 1,
           "", "scontrol: error: bad hostlist \"n[1\": unterminated '['\n");
    setenv("SLURM_NODELIST", "old[1-2]", 1);
    expect((const char *[]){"scontrol", "show", "hostnames", NULL}, 0,
           "old1\nold2\n", "");
    setenv("SLURM_JOB_NODELIST", "node[08-10]", 1);
    expect((const char *[]){"scontrol", "SHOW", "HostNames", NULL}, 0,
           "node08\nnode09\nnode10\n", "");
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_NODELIST");
}

static void test_hostlist(void **state)
{
    char path[] = "/tmp/test_cli_hostnames.XXXXXX";
    int fd;

    (void)state;
    expect((const char *[]){"scontrol", "show", "hostlist",
                            "node01,node02,node03,gpu7", NULL},
           0, "node[01-03],gpu7\n", "");
    /* written order is kept; hostlistsorted sorts and drops duplicates */
    expect(
        (const char *[]){"scontrol", "show", "hostlist", "node02,node01", NULL},
        0, "node[02,01]\n", "");
    expect((const char *[]){"scontrol", "show", "hostlistsorted",
                            "node02,node01,node01", NULL},
           0, "node[01-02]\n", "");
    expect((const char *[]){"scontrol", "show", "hostlist", NULL}, 2, "",
           "scontrol: error: usage: show hostlist LIST|FILE\n");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "node03\nnode01 node02,\n", 22), 22);
    close(fd);
    expect((const char *[]){"scontrol", "show", "hostlistsorted", path, NULL},
           0, "node[01-03]\n", "");
    unlink(path);
    expect((const char *[]){"scontrol", "show", "hostlist",
                            "/nonexistent/hosts", NULL},
           1, "",
           "scontrol: error: /nonexistent/hosts: No such file or directory\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostnames),
        cmocka_unit_test(test_hostlist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
