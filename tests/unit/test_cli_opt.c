/*
 * Unit tests for the CLI's option parser (src/cli/opt.c): getopt_long's
 * behaviour without its globals, and the word splitting of #SBATCH lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/opt.h"

enum { O_TIME = 1, O_HOLD, O_PART, O_PARSABLE, O_VERBOSE, O_STATE };

static const struct opt_def defs[] = {
    {"time", 't', OPT_ARG, O_TIME},
    {"hold", 'H', OPT_NOARG, O_HOLD},
    {"partition", 'p', OPT_ARG, O_PART},
    {"parsable", 0, OPT_NOARG, O_PARSABLE},
    {"verbose", 'v', OPT_NOARG, O_VERBOSE},
    {"states", 0, OPT_ARG, O_STATE},
    {"state", 0, OPT_ARG, O_STATE},
    {NULL, 0, OPT_NOARG, 0},
};

/* Parse argv and write "id=arg;" per option into out; returns opt_next's
 * last result. */
static int run(int argc, char **argv, bool permute, char *out, size_t len,
               struct opt_state *st, struct err *e)
{
    const char *arg;
    int id, rc;
    size_t n = 0;

    out[0] = '\0';
    opt_init(st, argc, argv, 1, permute);
    while ((rc = opt_next(st, defs, &id, &arg, e)) > 0)
        n += (size_t)snprintf(out + n, len - n, "%d=%s;", id, arg ? arg : "-");
    return rc;
}

static void test_forms(void **state)
{
    char *argv[] = {"sbatch", "--time=10",  "-t",  "20",    "-t30",
                    "--time", "40",         "-Hv", "-pdev", "--hold",
                    "script", "--time=arg", NULL};
    struct opt_state st;
    struct err e;
    char out[256];

    (void)state;
    assert_int_equal(run(12, argv, false, out, sizeof(out), &st, &e), 0);
    assert_string_equal(out, "1=10;1=20;1=30;1=40;2=-;5=-;3=dev;2=-;");
    /* Parsing stops at the script; its own arguments are left alone. */
    assert_int_equal(st.ind, 10);
    opt_free(&st);
}

static void test_prefixes(void **state)
{
    char *ok[] = {"x", "--part=gpu", "--pars", "--stat=R", NULL};
    char *amb[] = {"x", "--par=gpu", NULL};
    struct opt_state st;
    struct err e;
    char out[256];

    (void)state;
    /* "--stat" matches both --states and --state: the same option. */
    assert_int_equal(run(4, ok, false, out, sizeof(out), &st, &e), 0);
    assert_string_equal(out, "3=gpu;4=-;6=R;");
    opt_free(&st);
    assert_int_equal(run(2, amb, false, out, sizeof(out), &st, &e), -1);
    assert_string_equal(e.text, "option '--par' is ambiguous");
    opt_free(&st);
}

static void test_errors(void **state)
{
    static const struct {
        char *word;
        const char *msg;
    } cases[] = {
        {"--foo", "unrecognized option '--foo'"},
        {"--hold=yes", "option '--hold' doesn't allow an argument"},
        {"--time", "option '--time' requires an argument"},
        {"-z", "invalid option -- 'z'"},
        {"-t", "option requires an argument -- 't'"},
    };
    struct opt_state st;
    struct err e;
    char out[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[] = {"x", cases[i].word, NULL};
        assert_int_equal(run(2, argv, false, out, sizeof(out), &st, &e), -1);
        assert_int_equal(errno, EINVAL);
        assert_string_equal(e.text, cases[i].msg);
        opt_free(&st);
    }
}

static void test_permute(void **state)
{
    char *argv[] = {"scancel", "5", "-v", "7", "--", "-9", NULL};
    struct opt_state st;
    struct err e;
    char out[256];

    (void)state;
    assert_int_equal(run(6, argv, true, out, sizeof(out), &st, &e), 0);
    assert_string_equal(out, "5=-;");
    assert_int_equal(st.n_operands, 3);
    assert_string_equal(st.operands[0], "5");
    assert_string_equal(st.operands[1], "7");
    assert_string_equal(st.operands[2], "-9");
    opt_free(&st);
}

static void test_split(void **state)
{
    struct err e;
    char **w;
    int n;

    (void)state;
    w = opt_split("  -J \"my job\" --output='a b.out'  -t 5 # comment", &n, &e);
    assert_non_null(w);
    assert_int_equal(n, 5);
    assert_string_equal(w[0], "-J");
    assert_string_equal(w[1], "my job");
    assert_string_equal(w[2], "--output=a b.out");
    assert_string_equal(w[3], "-t");
    assert_string_equal(w[4], "5");
    assert_null(w[5]);
    opt_split_free(w);

    w = opt_split("a\\ b x#y", &n, &e);
    assert_int_equal(n, 2);
    assert_string_equal(w[0], "a b");
    assert_string_equal(w[1], "x#y");
    opt_split_free(w);

    assert_null(opt_split("--job-name=\"open", &n, &e));
    assert_string_equal(e.text, "unterminated double quote");
}

static void test_name(void **state)
{
    char buf[32];

    (void)state;
    assert_string_equal(opt_name(defs, O_TIME, buf, sizeof(buf)), "--time");
    assert_string_equal(opt_name(defs, O_STATE, buf, sizeof(buf)), "--states");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),  cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_permute),
        cmocka_unit_test(test_split),  cmocka_unit_test(test_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
