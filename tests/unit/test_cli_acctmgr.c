/*
 * Unit tests for sacctmgr's views (acctmgr.h) fed fixed ACCT_LIST
 * replies: "list user NAME withassoc" (-s) with a line per association,
 * "show assoc tree" indenting accounts one blank per level, "show tres"
 * and "show events" in Slurm 22.05's columns:
 *
 *     Type            Name     ID          (show tres)
 *   -------- --------------- ------
 *        cpu                      1
 *
 * right-justified, cut with '+', no blank after the last column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/acctmgr.h"

/* What fn printed on stdout. */
static char *capture(int (*fn)(void *), void *arg)
{
    char path[] = "/tmp/test_cli_acctmgr.XXXXXX";
    int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
    char *out = calloc(1, 65536);
    FILE *fp;

    fflush(stdout);
    dup2(fd, STDOUT_FILENO);
    assert_int_equal(fn(arg), 0);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    fp = fopen(path, "r");
    fread(out, 1, 65535, fp);
    fclose(fp);
    close(fd);
    unlink(path);
    return out;
}

static json_t *assocs(void)
{
    return json_pack(
        "[{s:i, s:n, s:s, s:n, s:s, s:i}, {s:i, s:i, s:s, s:s, s:s, s:i},"
        " {s:i, s:i, s:s, s:n, s:s, s:i}, {s:i, s:i, s:s, s:n, s:s, s:i},"
        " {s:i, s:i, s:s, s:s, s:s, s:i}, {s:i, s:i, s:s, s:s, s:s, s:i}]",
        "id", 1, "parent_id", "account", "root", "user", "cluster", "c",
        "fairshare", 1, "id", 2, "parent_id", 1, "account", "root", "user",
        "root", "cluster", "c", "fairshare", 1, "id", 3, "parent_id", 1,
        "account", "quant", "user", "cluster", "c", "fairshare", 1, "id", 4,
        "parent_id", 3, "account", "research", "user", "cluster", "c",
        "fairshare", 2, "id", 5, "parent_id", 4, "account", "research", "user",
        "alice", "cluster", "c", "fairshare", 1, "id", 6, "parent_id", 3,
        "account", "quant", "user", "alice", "cluster", "c", "fairshare", 1);
}

static void test_tree(void **state)
{
    json_t *as = assocs(), *t = acctmgr_tree(as), *a;
    const char *want[][2] = {
        {"root", NULL},       {" root", "root"},    {" quant", NULL},
        {"  quant", "alice"}, {"  research", NULL}, {"   research", "alice"},
    };
    size_t i;

    (void)state;
    assert_int_equal(json_array_size(t), 6);
    json_array_foreach(t, i, a)
    {
        const char *u = json_string_value(json_object_get(a, "user"));
        assert_string_equal(json_string_value(json_object_get(a, "account")),
                            want[i][0]);
        if (want[i][1] == NULL)
            assert_null(u);
        else
            assert_string_equal(u, want[i][1]);
    }
    json_decref(t);
    json_decref(as);
}

struct print_args {
    const char *entity, *format;
    json_t *reply;
    struct acctmgr_out out;
};

static int do_print(void *arg)
{
    struct print_args *a = arg;
    struct err e;

    return acctmgr_print(a->entity, a->reply, a->format, &a->out, &e);
}

static void test_withassoc(void **state)
{
    json_t *users =
        json_pack("[{s:s, s:s, s:s}]", "name", "alice", "default_account",
                  "quant", "admin_level", "None");
    json_t *as = assocs();
    json_t *rows = acctmgr_with_assoc("user", users, as, NULL);
    struct print_args a = {"user", "account%20", NULL, {.noheader = true}};
    char *s;

    (void)state;
    assert_int_equal(json_array_size(rows), 2);
    a.reply = json_pack("{s:o}", "users", rows);
    a.out.withassoc = true;
    /* snakemake: sacctmgr -n -s list user alice format=account%20 */
    s = capture(do_print, &a);
    assert_string_equal(s, "            research\n"
                           "               quant\n");
    free(s);
    /* where account= selects associations */
    json_t *w = json_pack("{s:s}", "Account", "quant");
    json_decref(a.reply);
    a.reply =
        json_pack("{s:o}", "users", acctmgr_with_assoc("user", users, as, w));
    a.format = "User,Account,Share";
    a.out.noheader = false;
    s = capture(do_print, &a);
    assert_string_equal(s, "      User    Account     Share\n"
                           "---------- ---------- ---------\n"
                           "     alice      quant         1\n");
    free(s);
    json_decref(w);
    json_decref(a.reply);
    json_decref(users);
    json_decref(as);
}

static int do_tres(void *arg)
{
    struct acctmgr_out out = {0};
    struct err e;

    (void)arg;
    return acctmgr_print_tres(NULL, &out, &e);
}

static void test_tres(void **state)
{
    char *s = capture(do_tres, NULL);

    (void)state;
    assert_non_null(strstr(s, "    Type            Name     ID\n"
                              "-------- --------------- ------\n"
                              "     cpu                      1\n"
                              "     mem                      2\n"));
    assert_non_null(strstr(s, "      fs            disk      6\n"));
    assert_non_null(strstr(s, "    gres             gpu   1001\n"));
    free(s);
}

static void test_events(void **state)
{
    struct print_args a = {
        "events",
        "NodeName,TimeEnd,State,Reason",
        json_pack("{s:[{s:s, s:s, s:i, s:i, s:s, s:s, s:s}]}", "events",
                  "cluster", "c", "node", "node02", "time_start", 1000,
                  "time_end", 0, "state", "DRAIN", "reason", "disk swap",
                  "user", ""),
        {.parsable2 = true}};
    char *s;

    (void)state;
    assert_string_equal(acctmgr_entity("events"), "events");
    assert_string_equal(acctmgr_entity("event"), "events");
    s = capture(do_print, &a);
    assert_string_equal(s, "NodeName|TimeEnd|State|Reason\n"
                           "node02|Unknown|DRAIN|disk swap\n");
    free(s);
    json_decref(a.reply);
}

static void test_flags(void **state)
{
    struct acctmgr_out o = {0};

    (void)state;
    assert_true(acctmgr_flag_word("withassoc", &o));
    assert_true(o.withassoc);
    assert_true(acctmgr_flag_word("Tree", &o));
    assert_true(o.tree);
    assert_true(acctmgr_flag_word("WithCoord", &o));
    assert_false(acctmgr_flag_word("alice", &o));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),  cmocka_unit_test(test_withassoc),
        cmocka_unit_test(test_tres),  cmocka_unit_test(test_events),
        cmocka_unit_test(test_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
