/*
 * Unit tests for sacct's view (acctview.h): field lists,
 * State/ExitCode/Elapsed/AllocTRES of job records and their .batch step,
 * Slurm's columns with the "+" of a cut value, -p/-P, and --json; and
 * sbatch's --signal specification.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/acctview.h"
#include "cli/jobspec.h"

static void test_spec(void **state)
{
    struct acctview_spec sp;
    struct err e;

    (void)state;
    assert_int_equal(acctview_spec_parse(ACCTVIEW_DEFAULT, &sp, &e), 0);
    assert_int_equal(sp.n, 7);
    assert_int_equal(sp.cols[0].width, 12);
    acctview_spec_free(&sp);
    assert_int_equal(acctview_spec_parse("jobid,state%20", &sp, &e), 0);
    assert_int_equal(sp.n, 2);
    assert_int_equal(sp.cols[1].width, 20);
    acctview_spec_free(&sp);
    assert_int_equal(acctview_spec_parse(ACCTVIEW_LONG, &sp, &e), 0);
    acctview_spec_free(&sp);
    assert_int_equal(acctview_spec_parse("JobID,Nope", &sp, &e), -1);
    assert_non_null(strstr(e.text, "\"Nope\""));
    assert_int_equal(acctview_spec_parse("State%x", &sp, &e), -1);
    assert_int_equal(acctview_spec_parse(",", &sp, &e), -1);
}

static json_t *record(const char *state, int code, int sig, json_t *extra)
{
    json_t *o = json_pack(
        "{s:i, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i, s:s, s:s, s:{s:i, "
        "s:i}, s:i, s:i, s:s, s:s}",
        "job_id", 42, "name", "train", "partition", "dev", "job_state", state,
        "user_id", 1000, "user_name", "zhangsan", "submit_time", 1000,
        "start_time", 1010, "end_time", 1075, "node_list", "node04",
        "batch_host", "node04", "exit_code", "return_code", code, "signal", sig,
        "cpus", 4, "restart_count", 0, "tres_alloc_str",
        "cpu=4,mem=16G,node=1,billing=4,gres/gpu=2", "tres_req_str",
        "cpu=4,mem=16G,node=1,billing=4,gres/gpu=2");
    if (extra != NULL) {
        json_object_update(o, extra);
        json_decref(extra);
    }
    return o;
}

static void test_values(void **state)
{
    static const struct {
        const char *state;
        int code, sig;
        const char *job, *batch, *exit;
    } cases[] = {
        {"COMPLETED", 0, 0, "COMPLETED", "COMPLETED", "0:0"},
        {"FAILED", 3, 0, "FAILED", "FAILED", "3:0"},
        {"TIMEOUT", 0, 9, "TIMEOUT", "CANCELLED", "0:9"},
        {"NODE_FAIL", 0, 0, "NODE_FAIL", "NODE_FAIL", "0:0"},
        {"OUT_OF_MEMORY", 0, 9, "OUT_OF_MEMORY", "OUT_OF_MEMORY", "0:9"},
        {"PREEMPTED", 0, 15, "PREEMPTED", "CANCELLED", "0:15"},
    };
    char buf[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *j = record(cases[i].state, cases[i].code, cases[i].sig, NULL);
        struct acctview_row r = {j, NULL, 2000, NULL, false},
                            b = {j, "batch", 2000, NULL, false};
        assert_string_equal(acctview_state(&r, buf, sizeof(buf)), cases[i].job);
        assert_string_equal(acctview_state(&b, buf, sizeof(buf)),
                            cases[i].batch);
        assert_string_equal(
            acctview_value(acctview_field("ExitCode"), &r, buf, sizeof(buf)),
            cases[i].exit);
        json_decref(j);
    }
    json_t *j =
        record("CANCELLED", 0, 15, json_pack("{s:i}", "cancelled_by", 0));
    struct acctview_row r = {j, NULL, 2000, NULL, false},
                        b = {j, "batch", 2000, NULL, false};
    assert_string_equal(acctview_state(&r, buf, sizeof(buf)), "CANCELLED by 0");
    assert_string_equal(acctview_state(&b, buf, sizeof(buf)), "CANCELLED");
    assert_string_equal(
        acctview_value(acctview_field("Elapsed"), &r, buf, sizeof(buf)),
        "00:01:05");
    assert_string_equal(
        acctview_value(acctview_field("AllocTRES"), &r, buf, sizeof(buf)),
        "billing=4,cpu=4,gres/gpu=2,mem=16G,node=1");
    assert_string_equal(
        acctview_value(acctview_field("JobID"), &b, buf, sizeof(buf)),
        "42.batch");
    assert_string_equal(
        acctview_value(acctview_field("Timelimit"), &r, buf, sizeof(buf)),
        "UNLIMITED");
    json_decref(j);
    /* running: elapsed up to now; pending: no start, not allocated */
    j = record("RUNNING", 0, 0, json_pack("{s:n}", "end_time"));
    r.job = j;
    assert_string_equal(
        acctview_value(acctview_field("ElapsedRaw"), &r, buf, sizeof(buf)),
        "990");
    assert_string_equal(
        acctview_value(acctview_field("End"), &r, buf, sizeof(buf)), "Unknown");
    json_decref(j);
    j = record("PENDING", 0, 0,
               json_pack("{s:n, s:n, s:n, s:i, s:i}", "start_time", "node_list",
                         "end_time", "restart_count", 2, "time_limit_s",
                         90000));
    r.job = j;
    assert_false(acctview_has_batch(j));
    assert_string_equal(acctview_state(&r, buf, sizeof(buf)), "REQUEUED");
    assert_string_equal(
        acctview_value(acctview_field("Restarts"), &r, buf, sizeof(buf)), "2");
    assert_string_equal(
        acctview_value(acctview_field("Timelimit"), &r, buf, sizeof(buf)),
        "1-01:00:00");
    json_decref(j);
}

static char *print(enum fmt_tab_mode mode, const char *fields, json_t *job)
{
    struct acctview_spec sp;
    struct acctview_row r = {job, NULL, 2000, NULL, false};
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    struct err e;

    assert_int_equal(acctview_spec_parse(fields, &sp, &e), 0);
    acctview_header(fp, &sp, mode);
    acctview_print(fp, &sp, mode, &r);
    acctview_spec_free(&sp);
    fclose(fp);
    return out;
}

static void test_output(void **state)
{
    json_t *j =
        record("CANCELLED", 0, 15, json_pack("{s:i}", "cancelled_by", 0));
    char *s;

    (void)state;
    s = print(FMT_TAB_COLUMNS, "JobID,State,ExitCode", j);
    assert_string_equal(s, "JobID             State ExitCode \n"
                           "------------ ---------- -------- \n"
                           "42           CANCELLED+     0:15 \n");
    free(s);
    s = print(FMT_TAB_PARSABLE2, "JobID,State", j);
    assert_string_equal(s, "JobID|State\n42|CANCELLED by 0\n");
    free(s);
    s = print(FMT_TAB_PARSABLE, "JobID,State%5", j);
    assert_string_equal(s, "JobID|State|\n42|CANCELLED by 0|\n");
    free(s);
    json_t *o = acctview_json(j, 2000);
    assert_string_equal(json_string_value(json_object_get(o, "state")),
                        "CANCELLED by 0");
    assert_int_equal(json_integer_value(json_object_get(o, "elapsed_s")), 65);
    assert_int_equal(json_array_size(json_object_get(o, "steps")), 1);
    assert_true(json_is_array(json_object_get(o, "events")));
    json_decref(o);
    json_decref(j);
}

static void test_signal(void **state)
{
    static const struct {
        const char *in;
        int sig;
        unsigned secs;
        bool batch;
    } ok[] = {
        {"USR1", 10, 60, false},       {"B:USR1@30", 10, 30, true},
        {"R:SIGTERM@0", 15, 0, false}, {"12@600", 12, 600, false},
        {"b:usr2", -1, 0, false},
    };
    struct err e;
    unsigned secs;
    bool batch;
    int sig;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int rc = jobspec_signal_parse(ok[i].in, &sig, &secs, &batch, &e);
        if (ok[i].sig < 0) { /* the prefix is B or R, upper case */
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(sig, ok[i].sig);
        assert_int_equal(secs, ok[i].secs);
        assert_int_equal(batch, ok[i].batch);
    }
    assert_int_equal(jobspec_signal_parse("USR1@", &sig, &secs, &batch, &e),
                     -1);
    assert_int_equal(jobspec_signal_parse("65", &sig, &secs, &batch, &e), -1);
    assert_int_equal(
        jobspec_signal_parse("USR1@70000", &sig, &secs, &batch, &e), -1);
    assert_non_null(strstr(e.text, "[{R|B}:]SIG[@SECONDS]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
