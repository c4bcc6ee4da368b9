/*
 * Unit tests for sshare's and sprio's views fed fixed replies.  Slurm
 * 22.05's sshare, each column followed by a blank (the last too), Account
 * left-justified in 20 and indented one blank per level below root:
 *
 * Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare
 * -------------------- ---------- ---------- ----------- ----------- ------------- ----------
 * root                                          1.000000        3600      1.000000
 *  quant                                   1    1.000000        3600      1.000000
 *   quant                   alice          1    1.000000        3600      1.000000   0.500000
 *
 * sprio's default columns: JOBID PARTITION PRIORITY, then only the
 * factors whose weight is non-zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/prioview.h"
#include "cli/shareview.h"

static json_t *reply(void)
{
    return json_pack(
        "{s:[{s:s, s:n, s:n, s:i, s:i, s:f, s:f, s:f, s:n, s:n},"
        " {s:s, s:n, s:s, s:i, s:i, s:f, s:f, s:f, s:n, s:f},"
        " {s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:f},"
        " {s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:f}]}",
        "shares", "account", "root", "user", "parent", "depth", 0, "raw_shares",
        1, "norm_shares", 1.0, "raw_usage", 3600.0, "effective_usage", 1.0,
        "fairshare", "level_fs", "account", "quant", "user", "parent", "root",
        "depth", 1, "raw_shares", 1, "norm_shares", 1.0, "raw_usage", 3600.0,
        "effective_usage", 1.0, "fairshare", "level_fs", 1.0, "account",
        "quant", "user", "alice", "parent", "quant", "depth", 2, "raw_shares",
        1, "norm_shares", 1.0, "raw_usage", 3600.0, "effective_usage", 1.0,
        "fairshare", 0.5, "level_fs", 1.0, "account", "quant", "user", "bob",
        "parent", "quant", "depth", 2, "raw_shares", 1, "norm_shares", 1.0,
        "raw_usage", 0.0, "effective_usage", 0.0, "fairshare", 1.0, "level_fs",
        10.0);
}

static char *print(struct shareview_args *a, json_t *r, int want_rc)
{
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    struct err e;

    assert_int_equal(shareview_print(fp, a, r, &e), want_rc);
    fclose(fp);
    return out;
}

static void test_columns(void **state)
{
    struct shareview_args a = {.me = "alice"};
    json_t *r = reply();
    char *s;

    (void)state;
    s = print(&a, r, 0);
    assert_string_equal(
        s, "Account                    User  RawShares  NormShares    RawUsage "
           " EffectvUsage  FairShare \n"
           "-------------------- ---------- ---------- ----------- ----------- "
           "------------- ---------- \n"
           "root                                          1.000000        3600 "
           "     1.000000            \n"
           " quant                                   1    1.000000        3600 "
           "     1.000000            \n"
           "  quant                   alice          1    1.000000        3600 "
           "     1.000000   0.500000 \n");
    free(s);
    /* the newer snakemake executor: sshare -U --format Account --noheader */
    a.users_only = true;
    a.noheader = true;
    a.format = "Account";
    s = print(&a, r, 0);
    assert_string_equal(s, "  quant              \n");
    free(s);
    /* -a -P -o, -l's NormUsage (of root's usage) */
    a = (struct shareview_args){.all = true,
                                .mode = FMT_TAB_PARSABLE2,
                                .format = "Account,User,RawShares,NormUsage,"
                                          "LevelFS"};
    s = print(&a, r, 0);
    assert_string_equal(s, "Account|User|RawShares|NormUsage|LevelFS\n"
                           "root|||1.000000|\n"
                           " quant||1|1.000000|1.000000\n"
                           "  quant|alice|1|1.000000|1.000000\n"
                           "  quant|bob|1|0.000000|10.000000\n");
    free(s);
    /* -A, -u, -m */
    a = (struct shareview_args){.users = "bob",
                                .accounts = "quant",
                                .partition = true,
                                .mode = FMT_TAB_PARSABLE,
                                .format = "Account,User",
                                .noheader = true};
    s = print(&a, r, 0);
    assert_string_equal(s, " quant|||\n  quant|bob||\n");
    free(s);
    a.format = "Account,Bogus";
    s = print(&a, r, -1);
    assert_string_equal(s, "");
    free(s);
    json_decref(r);
}

static void test_prio_columns(void **state)
{
    json_t *w =
        json_pack("{s:i, s:i, s:i, s:i, s:i, s:s}", "age", 1000, "fairshare", 0,
                  "jobsize", 0, "partition", 0, "qos", 2000, "tres", "");
    json_t *r = json_pack(
        "{s:[{s:i, s:i, s:s}, {s:i, s:i, s:s}, {s:i, s:i, s:s, s:b}]}", "jobs",
        "job_id", 1, "priority", 100, "partition", "dev", "job_id", 2,
        "priority", 0, "partition", "dev", "job_id", 3, "priority", 0,
        "partition", "prod", "fixed", 1);
    char buf[256];
    json_t *l;

    (void)state;
    prioview_default_format(false, false, w, buf, sizeof(buf));
    assert_string_equal(buf, "%.15i %9r %.10Y %.10A %.10Q");
    prioview_default_format(true, false, w, buf, sizeof(buf));
    assert_string_equal(buf, "%.15i %9r %.8u %.10o %.10Y %.10A %.10Q %.11N");
    json_object_set_new(w, "tres", json_string("CPU=1000"));
    json_object_set_new(w, "age", json_integer(0));
    prioview_default_format(false, true, w, buf, sizeof(buf));
    assert_string_equal(buf, "%.15i %9r %.10y %.10Q %.20T");
    /* a held job (priority 0) is not listed; one fixed at 0 is */
    l = prioview_listed(NULL, r);
    assert_int_equal(json_array_size(l), 2);
    json_decref(l);
    l = prioview_listed("prod", r);
    assert_int_equal(json_array_size(l), 1);
    json_decref(l);
    json_decref(w);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_prio_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
