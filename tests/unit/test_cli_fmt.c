/*
 * Unit tests for the CLI's output: Slurm's durations and sizes, format
 * strings, squeue and sinfo rows over JOB and NODE objects, job filters
 * and scontrol's output paths.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/fmt.h"
#include "cli/jobfilter.h"
#include "cli/jobview.h"
#include "cli/nodeview.h"
#include "cli/showview.h"

#define NOW 1710072000

static void test_durations(void **state)
{
    static const struct {
        long long s;
        const char *squeue, *hms;
    } cases[] = {
        {0, "0:00", "00:00:00"},
        {59, "0:59", "00:00:59"},
        {307, "5:07", "00:05:07"},
        {3600, "1:00:00", "01:00:00"},
        {86399, "23:59:59", "23:59:59"},
        {259200, "3-00:00:00", "3-00:00:00"},
        {93784, "1-02:03:04", "1-02:03:04"},
    };
    char buf[FMT_BUFLEN];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(
            fmt_duration(cases[i].s, "UNLIMITED", buf, sizeof(buf)),
            cases[i].squeue);
        assert_string_equal(fmt_hms(cases[i].s, buf, sizeof(buf)),
                            cases[i].hms);
    }
    assert_string_equal(fmt_duration(-1, "infinite", buf, sizeof(buf)),
                        "infinite");
}

static void test_sizes_and_times(void **state)
{
    char buf[FMT_BUFLEN];

    (void)state;
    assert_string_equal(fmt_mem(0, buf, sizeof(buf)), "0");
    assert_string_equal(fmt_mem(64000, buf, sizeof(buf)), "64000M");
    assert_string_equal(fmt_mem(4096, buf, sizeof(buf)), "4G");
    assert_string_equal(fmt_mem(2u << 20, buf, sizeof(buf)), "2T");
    assert_string_equal(fmt_time(NOW, "N/A", buf, sizeof(buf)),
                        "2024-03-10T12:00:00");
    assert_string_equal(fmt_time(0, "Unknown", buf, sizeof(buf)), "Unknown");
}

static void test_spec_parse(void **state)
{
    struct fmt_spec sp;
    struct err e;

    (void)state;
    assert_int_equal(
        fmt_spec_parse("<%.18i|%-10j %8u%%%R>", JOBVIEW_LETTERS, &sp, &e), 0);
    assert_string_equal(sp.prefix, "<");
    assert_int_equal(sp.n, 4);
    assert_true(sp.fields[0].right);
    assert_int_equal(sp.fields[0].width, 18);
    assert_string_equal(sp.fields[0].suffix, "|");
    assert_false(sp.fields[1].right);
    assert_int_equal(sp.fields[1].width, 10);
    assert_int_equal(sp.fields[2].letter, 'u');
    assert_string_equal(sp.fields[2].suffix, "%");
    assert_int_equal(sp.fields[3].width, 0);
    assert_string_equal(sp.fields[3].suffix, ">");
    fmt_spec_free(&sp);

    assert_int_equal(fmt_spec_parse("%i %.5@", JOBVIEW_LETTERS, &sp, &e), -1);
    assert_string_equal(e.text, "invalid field \"%.5@\" at column 4");
    assert_int_equal(fmt_spec_parse("%.5", JOBVIEW_LETTERS, &sp, &e), -1);
    assert_int_equal(fmt_spec_parse("plain text", JOBVIEW_LETTERS, &sp, &e),
                     -1);
    assert_string_equal(e.text, "no field in format \"plain text\"");
}

/* Print one squeue line of job (header when job is NULL) into a string. */
static char *render(const char *format, json_t *job)
{
    struct jobview_row row = {job, NOW};
    struct fmt_spec sp;
    struct err e;
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);

    assert_int_equal(fmt_spec_parse(format, JOBVIEW_LETTERS, &sp, &e), 0);
    if (job == NULL) {
        for (size_t i = 0; i < sp.n; i++) {
            fmt_cell(fp, jobview_header(sp.fields[i].letter),
                     sp.fields[i].width, sp.fields[i].right);
            fputs(sp.fields[i].suffix, fp);
        }
        fputc('\n', fp);
    } else {
        fmt_spec_print(fp, &sp, jobview_value, &row);
    }
    fclose(fp);
    fmt_spec_free(&sp);
    return out;
}

static json_t *running_job(void)
{
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:i, "
                     "s:i, s:i, s:s}",
                     "job_id", 42, "name", "a-very-long-name", "user_name",
                     "zhangsan", "partition", "backtest", "job_state",
                     "RUNNING", "start_time", NOW - 3725, "submit_time",
                     NOW - 4000, "time_limit_s", 86400, "node_list",
                     "node[02-03]", "nodes", 2, "cpus", 8, "mem_mib", 4096,
                     "state_reason", "None");
}

static void test_squeue_rows(void **state)
{
    json_t *job = running_job();
    json_t *pend =
        json_pack("{s:i, s:s, s:s, s:s, s:s, s:s}", "job_id", 7, "name", "wait",
                  "user_name", "u", "partition", "dev", "job_state", "PENDING",
                  "state_reason", "Resources");
    char *s;

    (void)state;
    s = render(JOBVIEW_FORMAT, NULL);
    assert_string_equal(s, "             JOBID PARTITION     NAME     USER ST "
                           "      TIME  NODES NODELIST(REASON)\n");
    free(s);
    s = render(JOBVIEW_FORMAT, job);
    assert_string_equal(s, "                42  backtest a-very-l zhangsan  R "
                           "   1:02:05      2 node[02-03]\n");
    free(s);
    s = render(JOBVIEW_FORMAT, pend);
    assert_string_equal(s, "                 7       dev     wait        u PD "
                           "      0:00      1 (Resources)\n");
    free(s);
    s = render("%i %T %l %L %C %m %e %b %-6j|", job);
    assert_string_equal(s, "42 RUNNING 1-00:00:00 22:57:55 8 4G "
                           "2024-03-11T10:57:55 N/A a-very|\n");
    free(s);
    s = render("%l %S %r", pend);
    assert_string_equal(s, "UNLIMITED N/A Resources\n");
    free(s);
    json_decref(job);
    json_decref(pend);
}

static void test_states_and_sort(void **state)
{
    json_t *jobs = json_pack(
        "[{s:i,s:s,s:s,s:i}, {s:i,s:s,s:s,s:i}, {s:i,s:s,s:s,s:i},"
        " {s:i,s:s,s:s,s:i}]",
        "job_id", 4, "partition", "b", "job_state", "RUNNING", "priority", 1,
        "job_id", 3, "partition", "b", "job_state", "PENDING", "priority", 1,
        "job_id", 2, "partition", "b", "job_state", "PENDING", "priority", 9,
        "job_id", 1, "partition", "c", "job_state", "PENDING", "priority", 1);
    struct err e;
    int want[] = {2, 3, 4, 1};

    (void)state;
    assert_string_equal(jobview_state_code("COMPLETING"), "CG");
    assert_string_equal(jobview_state_code("OUT_OF_MEMORY"), "OOM");
    assert_string_equal(jobview_state_parse("pd", &e), "PENDING");
    assert_string_equal(jobview_state_parse("Completed", &e), "COMPLETED");
    assert_null(jobview_state_parse("XX", &e));
    assert_non_null(strstr(e.text, "invalid job state \"XX\""));
    jobview_sort(jobs);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(jobview_int(json_array_get(jobs, i), "job_id", 0),
                         want[i]);
    json_decref(jobs);
}

static void test_jobfilter(void **state)
{
    struct jobfilter f = {0};
    json_t *job = running_job(), *req;
    struct err e;

    (void)state;
    assert_true(jobfilter_empty(&f));
    assert_int_equal(jobfilter_add(&f, JOBFILTER_IDS, "41,42", &e), 0);
    assert_int_equal(jobfilter_add(&f, JOBFILTER_STATES, "R,pd", &e), 0);
    assert_int_equal(jobfilter_add(&f, JOBFILTER_NODES, "node[03-04]", &e), 0);
    assert_int_equal(jobfilter_add(&f, JOBFILTER_USERS, "1000", &e), 0);
    assert_true(jobfilter_match(&f, job) == false); /* uid 1000 not set */
    json_object_set_new(job, "user_id", json_integer(1000));
    assert_true(jobfilter_match(&f, job));
    req = jobfilter_request(&f);
    assert_int_equal(json_array_size(json_object_get(req, "job_ids")), 2);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(req, "states"), 1)),
        "PENDING");
    assert_int_equal(json_array_size(json_object_get(req, "nodes")), 2);
    json_decref(req);
    jobfilter_clear(&f);

    assert_int_equal(jobfilter_add(&f, JOBFILTER_PARTITIONS, "dev", &e), 0);
    assert_false(jobfilter_match(&f, job));
    assert_int_equal(jobfilter_add(&f, JOBFILTER_IDS, "x1", &e), -1);
    assert_string_equal(e.text, "Invalid job id: x1");
    assert_int_equal(jobfilter_add(&f, JOBFILTER_USERS, "no-such-user-x", &e),
                     -1);
    assert_string_equal(e.text, "Invalid user: no-such-user-x");
    assert_int_equal(jobfilter_add(&f, JOBFILTER_STATES, "all", &e), 0);
    assert_true(f.all_states);
    jobfilter_clear(&f);
    json_decref(job);
}

/* sinfo: group nodes into rows by the shown fields and print them. */
static void test_sinfo_rows(void **state)
{
    json_t *part = json_pack("{s:s, s:s, s:b, s:s, s:i}", "name", "backtest",
                             "state", "UP", "default", 1, "nodes",
                             "node[01-04]", "max_time_s", 259200);
    json_t *nodes =
        json_pack("[{s:s,s:s,s:i,s:i}, {s:s,s:s,s:i,s:i}, {s:s,s:s,s:i,s:i},"
                  " {s:s,s:s,s:s,s:i,s:i}]",
                  "name", "node01", "state", "IDLE", "cpus", 16, "cpus_alloc",
                  0, "name", "node02", "state", "MIXED", "cpus", 16,
                  "cpus_alloc", 4, "name", "node03", "state", "IDLE", "cpus",
                  16, "cpus_alloc", 0, "name", "node04", "state", "DOWN",
                  "reason", "Not responding", "cpus", 16, "cpus_alloc", 0);
    json_t *rows = json_array(), *row;
    struct fmt_spec sp;
    struct err e;
    char *out = NULL;
    size_t len = 0, i;
    FILE *fp = open_memstream(&out, &len);

    (void)state;
    assert_int_equal(
        fmt_spec_parse(NODEVIEW_FORMAT " %C", NODEVIEW_LETTERS, &sp, &e), 0);
    nodeview_group(rows, part, nodes, &sp, false);
    assert_int_equal(json_array_size(rows), 3);
    json_array_foreach(rows, i, row)
    {
        struct nodeview_row r = {json_object_get(row, "part"),
                                 json_object_get(row, "nodes")};
        fmt_spec_print(fp, &sp, nodeview_value, &r);
    }
    fclose(fp);
    assert_string_equal(out, "backtest*    up 3-00:00:00      2   idle "
                             "node[01,03] 0/32/0/32\n"
                             "backtest*    up 3-00:00:00      1    mix "
                             "node02 4/12/0/16\n"
                             "backtest*    up 3-00:00:00      1  down* "
                             "node04 0/0/16/16\n");
    free(out);
    assert_true(nodeview_state_match(json_array_get(nodes, 3), "DOWN"));
    assert_true(nodeview_state_valid("drng"));
    assert_false(nodeview_state_valid("sleepy"));
    fmt_spec_free(&sp);
    json_decref(rows);
    json_decref(nodes);
    json_decref(part);
}

static void test_stdpath(void **state)
{
    json_t *job = json_pack("{s:i, s:s, s:s, s:s, s:s}", "job_id", 42, "name",
                            "train", "user_name", "zs", "work_dir", "/home/zs",
                            "batch_host", "node01");
    char buf[256];

    (void)state;
    assert_string_equal(showview_stdpath(job, NULL, buf, sizeof(buf)),
                        "/home/zs/slurm-42.out");
    assert_string_equal(
        showview_stdpath(job, "/logs/%x-%j.%u.%N.%%.%q", buf, sizeof(buf)),
        "/logs/train-42.zs.node01.%.%q");
    json_decref(job);
}

/* The table printer: one header, a rule and two rows in each mode. */
static char *tab_print(enum fmt_tab_mode mode, bool trailing)
{
    static const struct fmt_col cols[] = {
        {5, true, FMT_CUT_PLUS},
        {4, false, FMT_CUT},
        {3, false, FMT_CUT_NONE},
    };
    static const char *const rows[][3] = {
        {"Name", "Cnt", "N"},
        {"abcdefg", "123456", "12345"},
        {"ab", "1", ""},
    };
    struct fmt_tab t = {NULL, mode, cols, 3, trailing};
    char *out = NULL;
    size_t len = 0;

    t.fp = open_memstream(&out, &len);
    assert_non_null(t.fp);
    for (size_t i = 0; i < 3; i++)
        fmt_tab_cell(&t, i, rows[0][i]);
    fmt_tab_rule(&t);
    for (size_t r = 1; r < 3; r++)
        for (size_t i = 0; i < 3; i++)
            fmt_tab_cell(&t, i, rows[r][i]);
    fclose(t.fp);
    return out;
}

static void test_tab(void **state)
{
    char *s;

    (void)state;
    s = tab_print(FMT_TAB_COLUMNS, false);
    assert_string_equal(s, "Name   Cnt   N\n"
                           "----- ---- ---\n"
                           "abcd+ 1234 12345\n"
                           "ab       1    \n");
    free(s);
    s = tab_print(FMT_TAB_COLUMNS, true);
    assert_string_equal(s, "Name   Cnt   N \n"
                           "----- ---- --- \n"
                           "abcd+ 1234 12345 \n"
                           "ab       1     \n");
    free(s);
    s = tab_print(FMT_TAB_PARSABLE, false);
    assert_string_equal(s, "Name|Cnt|N|\nabcdefg|123456|12345|\nab|1||\n");
    free(s);
    s = tab_print(FMT_TAB_PARSABLE2, true);
    assert_string_equal(s, "Name|Cnt|N\nabcdefg|123456|12345\nab|1|\n");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_sizes_and_times),
        cmocka_unit_test(test_spec_parse),
        cmocka_unit_test(test_squeue_rows),
        cmocka_unit_test(test_states_and_sort),
        cmocka_unit_test(test_jobfilter),
        cmocka_unit_test(test_sinfo_rows),
        cmocka_unit_test(test_stdpath),
        cmocka_unit_test(test_tab),
    };

    setenv("TZ", "UTC", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
