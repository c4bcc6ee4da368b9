/*
 * Unit tests for how the CLI verbs report bad command lines: every error
 * line starts with the name the user typed ("sdiag: error: ...",
 * "squeue: error: ...", "sluice: ..."), through the one option-parse
 * ending cli_opt_end.  The verbs run in-process with stderr captured;
 * none of these command lines reaches the controller.
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
#include "cli/client.h"
#include "cli/when.h"

/* Run fn on the words of argv (NULL-terminated); its exit code in *rc and
 * what it wrote on stderr in out. */
static void run(int (*fn)(int, char **), const char *const *words, int *rc,
                char *out, size_t len)
{
    char *argv[16];
    int argc = 0, saved;
    FILE *tmp = tmpfile();
    size_t n;

    assert_non_null(tmp);
    for (; words[argc] != NULL; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    dup2(fileno(tmp), STDERR_FILENO);
    *rc = fn(argc, argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    n = fread(out, 1, len - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
}

static void expect(int (*fn)(int, char **), const char *const *words,
                   int want_rc, const char *want)
{
    char out[1024];
    int rc;

    run(fn, words, &rc, out, sizeof(out));
    assert_int_equal(rc, want_rc);
    assert_string_equal(out, want);
}

static void test_sdiag(void **state)
{
    (void)state;
    expect(cmd_diag, (const char *[]){"sdiag", "--bogus", NULL}, 2,
           "sdiag: error: unrecognized option '--bogus'\n");
    expect(cmd_diag, (const char *[]){"/usr/bin/sdiag", "extra", NULL}, 2,
           "sdiag: error: unexpected argument \"extra\"\n");
    expect(cmd_diag, (const char *[]){"diag", "-x", NULL}, 2,
           "sluice: invalid option -- 'x'\n");
}

static void test_squeue(void **state)
{
    (void)state;
    expect(cmd_queue, (const char *[]){"squeue", "--frob", NULL}, 1,
           "squeue: error: unrecognized option '--frob'\n");
    expect(cmd_queue, (const char *[]){"squeue", "-p", "gpu", "x", NULL}, 1,
           "squeue: error: unexpected argument \"x\"\n");
    expect(cmd_queue, (const char *[]){"queue", "--user", NULL}, 1,
           "sluice: option '--user' requires an argument\n");
}

static void test_sacctmgr(void **state)
{
    (void)state;
    expect(cmd_acctmgr,
           (const char *[]){"sacctmgr", "--frob", "show", "qos", NULL}, 1,
           "sacctmgr: error: unrecognized option '--frob'\n");
    expect(cmd_acctmgr, (const char *[]){"sacctmgr", "show", "qos", "-z", NULL},
           1, "sacctmgr: error: invalid option -- 'z'\n");
    expect(cmd_acctmgr, (const char *[]){"sacctmgr", "-i", "frob", "qos", NULL},
           1, "sacctmgr: error: Unknown command: frob\n");
}

static void test_others(void **state)
{
    (void)state;
    expect(
        cmd_acct, (const char *[]){"sacct", "-S", "soon", NULL}, 1,
        "sacct: error: --starttime: invalid time \"soon\" (expected " WHEN_FORMS
        ")\n");
    expect(cmd_share, (const char *[]){"sshare", "x", NULL}, 1,
           "sshare: error: unexpected argument \"x\"\n");
    expect(cmd_prio, (const char *[]){"sprio", "--nope", NULL}, 1,
           "sprio: error: unrecognized option '--nope'\n");
    expect(cmd_scontrol, (const char *[]){"scontrol", "--nope", NULL}, 2,
           "scontrol: error: unrecognized option '--nope'\n");
    expect(cmd_hold, (const char *[]){"hold", "--nope", NULL}, 2,
           "sluice: unrecognized option '--nope'\n");
    expect(cmd_checkpoint, (const char *[]){"checkpoint", "1", "2", NULL}, 2,
           "sluice: unexpected argument \"2\"\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdiag),
        cmocka_unit_test(test_squeue),
        cmocka_unit_test(test_sacctmgr),
        cmocka_unit_test(test_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
