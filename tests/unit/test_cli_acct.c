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
#include "cli/usageview.h"
#include "common/proto.h"

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
        const char *job, *batch, *exit, *batch_exit;
    } cases[] = {
        /* Slurm records a job killed by a signal on its own line as 0:0
         * (TIMEOUT, CANCELLED, PREEMPTED) and the signal on the batch
         * step's; OUT_OF_MEMORY keeps it on both */
        {"COMPLETED", 0, 0, "COMPLETED", "COMPLETED", "0:0", "0:0"},
        {"FAILED", 3, 0, "FAILED", "FAILED", "3:0", "3:0"},
        {"TIMEOUT", 0, 9, "TIMEOUT", "CANCELLED", "0:0", "0:9"},
        {"NODE_FAIL", 0, 0, "NODE_FAIL", "NODE_FAIL", "0:0", "0:0"},
        {"OUT_OF_MEMORY", 0, 9, "OUT_OF_MEMORY", "OUT_OF_MEMORY", "0:9", "0:9"},
        {"PREEMPTED", 0, 15, "PREEMPTED", "CANCELLED", "0:0", "0:15"},
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
        assert_string_equal(
            acctview_value(acctview_field("ExitCode"), &b, buf, sizeof(buf)),
            cases[i].batch_exit);
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
                           "42           CANCELLED+      0:0 \n");
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

/* Prints every incarnation of job (acctview_incarnations) with its steps,
 * as cmd_acct does, -P. */
static char *print_runs(const char *fields, json_t *job, bool dups)
{
    json_t *runs = acctview_incarnations(job, dups), *run, *rec;
    struct acctview_spec sp;
    char *out = NULL;
    size_t len = 0, i, k;
    FILE *fp = open_memstream(&out, &len);
    struct err e;

    assert_int_equal(acctview_spec_parse(fields, &sp, &e), 0);
    json_array_foreach(runs, i, run)
    {
        struct acctview_row r = {run, NULL, 5000, NULL, false};
        acctview_print(fp, &sp, FMT_TAB_PARSABLE2, &r);
        json_array_foreach(acctview_steps(run), k, rec)
        {
            struct acctview_row sr = {run, NULL, 5000, rec, false};
            acctview_print(fp, &sp, FMT_TAB_PARSABLE2, &sr);
        }
    }
    acctview_spec_free(&sp);
    json_decref(runs);
    fclose(fp);
    return out;
}

/* Slurm 22.05's sacct (documented in docs/cli.md, "sacct"):
 *   JobID        JobIDRaw
 *   ------------ ------------
 *   7_3          9
 *   7_3.batch    9.batch
 * an array task is ARRAYID_TASK with JobIDRaw its own job id. */
static void test_array_rows(void **state)
{
    json_t *j =
        record("COMPLETED", 0, 0,
               json_pack("{s:i, s:i, s:i, s:[{s:I, s:s, s:i}]}", "job_id", 9,
                         "array_job_id", 7, "array_task_id", 3, "steps",
                         "step_id", (json_int_t)STEP_BATCH_ID, "state",
                         "COMPLETED", "start_time", 1010));
    char *s;

    (void)state;
    s = print_runs("JobID,JobIDRaw,State", j, false);
    assert_string_equal(s, "7_3|9|COMPLETED\n7_3.batch|9.batch|COMPLETED\n");
    free(s);
    s = print(FMT_TAB_COLUMNS, "JobID,JobIDRaw", j);
    assert_string_equal(s, "JobID        JobIDRaw     \n"
                           "------------ ------------ \n"
                           "7_3          9            \n");
    free(s);
    json_decref(j);
    /* the tasks not yet started: 7_[4-9] */
    j = record("PENDING", 0, 0,
               json_pack("{s:i, s:i, s:s}", "job_id", 7, "array_job_id", 7,
                         "array_task_str", "4-9"));
    s = print(FMT_TAB_PARSABLE2, "JobID,JobIDRaw", j);
    assert_string_equal(s, "JobID|JobIDRaw\n7_[4-9]|7\n");
    free(s);
    json_decref(j);
}

/* The JOB object's comment, wckey, constraint and reservation (empty when
 * absent, as Slurm prints an unset one), ReqMem, --delimiter. */
static void test_new_fields(void **state)
{
    const char *f = "JobID,Comment,WCKey,Constraints,Reservation,ReqMem";
    json_t *bare = record("COMPLETED", 0, 0, NULL);
    json_t *full =
        record("COMPLETED", 0, 0,
               json_pack("{s:s, s:s, s:s, s:s, s:i}", "comment", "sweep 3",
                         "wckey", "submitit", "constraint", "a100&ib",
                         "reservation", "maint", "mem_mib", 16384));
    struct acctview_spec sp;
    struct err e;
    char *s;

    (void)state;
    s = print(FMT_TAB_PARSABLE2, f, bare);
    assert_string_equal(s, "JobID|Comment|WCKey|Constraints|Reservation|"
                           "ReqMem\n42|||||0\n");
    free(s);
    s = print(FMT_TAB_PARSABLE2, f, full);
    assert_string_equal(s,
                        "JobID|Comment|WCKey|Constraints|Reservation|"
                        "ReqMem\n42|sweep 3|submitit|a100&ib|maint|16384M\n");
    free(s);
    /* --delimiter */
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    struct acctview_row r = {full, NULL, 2000, NULL, false};
    assert_int_equal(acctview_spec_parse("JobIDRaw,State", &sp, &e), 0);
    sp.delim = ",";
    acctview_header(fp, &sp, FMT_TAB_PARSABLE2);
    acctview_print(fp, &sp, FMT_TAB_PARSABLE2, &r);
    acctview_print(fp, &sp, FMT_TAB_PARSABLE, &r);
    acctview_spec_free(&sp);
    fclose(fp);
    assert_string_equal(out, "JobIDRaw,State\n42,COMPLETED\n42,COMPLETED,\n");
    free(out);
    /* --units */
    char ub[32];
    assert_string_equal(usageview_in_units(204800, 'M', ub, sizeof(ub)),
                        "200M");
    assert_string_equal(usageview_in_units(200000, 'M', ub, sizeof(ub)),
                        "195.31M");
    assert_string_equal(usageview_in_units(0, 'G', ub, sizeof(ub)), "0");
    usageview_set_units('G');
    s = print(FMT_TAB_PARSABLE2, "ReqMem", full);
    assert_string_equal(s, "ReqMem\n16G\n");
    free(s);
    usageview_set_units(0);
    assert_int_equal(acctview_spec_parse(ACCTVIEW_BRIEF, &sp, &e), 0);
    assert_int_equal(sp.n, 3);
    acctview_spec_free(&sp);
    json_decref(bare);
    json_decref(full);
}

/* sacct -D: a job preempted (requeued) once, then completed:
 *   JobID|State|ExitCode|NodeList
 *   42|PREEMPTED|0:0|node01        the first run, ended by the requeue
 *   42.batch|CANCELLED|0:15|node01
 *   42|COMPLETED|0:0|node04        the last run
 *   42.batch|COMPLETED|0:0|node04
 * without -D only the last run and its steps. */
static void test_duplicates(void **state)
{
    json_t *j = record(
        "COMPLETED", 0, 0,
        json_pack(
            "{s:i, s:s, s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}, {s:i, s:s, "
            "s:s}], s:[{s:I, s:s, s:i, s:i, s:i, s:s}, {s:I, s:s, s:i, s:i, "
            "s:i, s:s}]}",
            "restart_count", 1, "node_list", "node04", "events", "time", 100,
            "event", "start", "detail", "nodes=node01 gpus=0", "time", 200,
            "event", "requeue", "detail", "after preemption: exit=0 signal=15",
            "time", 1010, "event", "start", "detail", "nodes=node04", "steps",
            "step_id", (json_int_t)STEP_BATCH_ID, "state", "CANCELLED",
            "start_time", 100, "signal", 15, "exit_code", 0, "nodes", "node01",
            "step_id", (json_int_t)STEP_BATCH_ID, "state", "COMPLETED",
            "start_time", 1010, "signal", 0, "exit_code", 0, "nodes",
            "node04"));
    const char *f = "JobID,State,ExitCode,NodeList,Start,End";
    char *s;

    (void)state;
    s = print_runs("JobID,State,ExitCode,NodeList", j, true);
    assert_string_equal(s, "42|PREEMPTED|0:0|node01\n"
                           "42.batch|CANCELLED|0:15|node01\n"
                           "42|COMPLETED|0:0|node04\n"
                           "42.batch|COMPLETED|0:0|node04\n");
    free(s);
    s = print_runs("JobID,State", j, false);
    assert_string_equal(s, "42|COMPLETED\n42.batch|COMPLETED\n");
    free(s);
    s = print_runs(f, j, true);
    assert_non_null(strstr(s, "42|PREEMPTED|0:0|node01|1970-01-01T"));
    free(s);
    json_decref(j);
    /* requeued after its node failed, waiting again: the lost run and its
     * batch step, then the waiting run without steps */
    j = record(
        "PENDING", 0, 0,
        json_pack("{s:i, s:n, s:n, s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}], "
                  "s:[{s:I, s:s, s:i, s:i, s:i, s:s}]}",
                  "restart_count", 1, "start_time", "node_list", "events",
                  "time", 100, "event", "start", "detail", "nodes=node02",
                  "time", 200, "event", "requeue", "detail",
                  "after node failure: node02: NodeDown", "steps", "step_id",
                  (json_int_t)STEP_BATCH_ID, "state", "NODE_FAIL", "start_time",
                  100, "signal", 0, "exit_code", 0, "nodes", "node02"));
    s = print_runs("JobID,State,NodeList", j, true);
    assert_string_equal(s, "42|NODE_FAIL|node02\n"
                           "42.batch|NODE_FAIL|node02\n"
                           "42|REQUEUED|None assigned\n");
    free(s);
    s = print_runs("JobID,State", j, false);
    assert_string_equal(s, "42|REQUEUED\n");
    free(s);
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
        cmocka_unit_test(test_spec),       cmocka_unit_test(test_values),
        cmocka_unit_test(test_output),     cmocka_unit_test(test_array_rows),
        cmocka_unit_test(test_new_fields), cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
