/*
 * The preemption review (src/common/preempt_report.c) on hand-made
 * accounting jobs: suffered and caused per user, QOS and partition, lost
 * GPU- and CPU-hours from the last checkpoint (or start) to the kill,
 * requeues and the median wait before running again, the flag share, and
 * the preemptors missing from the window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/preempt_report.h"

/* victim 1 (alice, dev_qos, dev, 2 GPUs): start 100, checkpoint 160,
 * preempted at 200 by 3, requeued at 205, runs again at 215, preempted
 * again at 300 by 3 (no checkpoint in that run), ends at 310.
 * victim 2 (bob, dev_qos, dev, CPU only, 4 CPUs): start 100, preempted at
 * 150 by 4 (outside the window), requeued at 151, runs at 181, ends.
 * preemptor 3 (carol, prod_qos, prod). */
static const char *jobs_json =
    "[{\"job_id\": 1, \"user_name\": \"alice\", \"qos\": \"dev_qos\","
    "  \"partition\": \"dev\", \"cpus\": 2,"
    "  \"tres_req_str\": \"cpu=2,node=1,gres/gpu=2\", \"events\": ["
    "  {\"time\": 90, \"event\": \"submit\", \"detail\": \"by uid 1\"},"
    "  {\"time\": 100, \"event\": \"start\", \"detail\": \"nodes=n1\"},"
    "  {\"time\": 160, \"event\": \"checkpoint\", \"detail\": \"by uid 1\"},"
    "  {\"time\": 200, \"event\": \"preempt\", \"detail\": \"by job 3 "
    "mode=REQUEUE grace=0\"},"
    "  {\"time\": 205, \"event\": \"requeue\", \"detail\": \"x\"},"
    "  {\"time\": 215, \"event\": \"start\", \"detail\": \"nodes=n1\"},"
    "  {\"time\": 300, \"event\": \"preempt\", \"detail\": \"by job 3 "
    "mode=CANCEL grace=0\"},"
    "  {\"time\": 310, \"event\": \"end\", \"detail\": \"state=PREEMPTED\"}]},"
    " {\"job_id\": 2, \"user_name\": \"bob\", \"qos\": \"dev_qos\","
    "  \"partition\": \"dev\", \"cpus\": 4, \"tres_req_str\": \"cpu=4\","
    "  \"events\": ["
    "  {\"time\": 100, \"event\": \"start\", \"detail\": \"\"},"
    "  {\"time\": 150, \"event\": \"preempt\", \"detail\": \"by job 4\"},"
    "  {\"time\": 151, \"event\": \"requeue\", \"detail\": \"\"},"
    "  {\"time\": 181, \"event\": \"start\", \"detail\": \"\"},"
    "  {\"time\": 200, \"event\": \"end\", \"detail\": \"\"}]},"
    " {\"job_id\": 3, \"user_name\": \"carol\", \"qos\": \"prod_qos\","
    "  \"partition\": \"prod\", \"cpus\": 1,"
    "  \"tres_req_str\": \"cpu=1,gres/gpu=2\", \"events\": ["
    "  {\"time\": 201, \"event\": \"start\", \"detail\": \"\"},"
    "  {\"time\": 400, \"event\": \"end\", \"detail\": \"\"}]}]";

static json_t *find(json_t *rows, const char *name)
{
    json_t *g;
    size_t i;

    json_array_foreach(rows, i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
            return g;
    }
    fail_msg("no row %s", name);
    return NULL;
}

static long long num(json_t *g, const char *k)
{
    return json_integer_value(json_object_get(g, k));
}

static void test_report(void **state)
{
    json_t *jobs = json_loads(jobs_json, 0, NULL), *rep, *g, *miss;

    (void)state;
    assert_non_null(jobs);
    rep = preempt_report_build(jobs, 0.5);
    g = json_object_get(rep, "totals");
    assert_int_equal(num(g, "preempted"), 3);
    assert_int_equal(num(g, "requeues"), 2);
    assert_int_equal(num(g, "runs"), 5);
    /* alice: 2 GPUs x (205-160) + 2 x (310-215) = 280 GPU-s (to the
     * kill: the requeue or end that follows the preempt event) */
    g = find(json_object_get(rep, "users"), "alice");
    assert_int_equal(num(g, "preempted"), 2);
    assert_int_equal(num(g, "runs"), 2);
    assert_true(json_is_true(json_object_get(g, "flagged"))); /* 1.0 > .5 */
    assert_float_equal(json_real_value(json_object_get(g, "gpu_hours_lost")),
                       280 / 3600.0, 1e-9);
    assert_int_equal(num(g, "median_requeue_wait_s"), 10);
    /* bob: CPU-only, 4 x 51 s; preempted in 1 of 2 runs: not above .5 */
    g = find(json_object_get(rep, "users"), "bob");
    assert_float_equal(json_real_value(json_object_get(g, "cpu_hours_lost")),
                       4 * 51 / 3600.0, 1e-9);
    assert_false(json_is_true(json_object_get(g, "flagged")));
    assert_int_equal(num(g, "median_requeue_wait_s"), 30);
    /* the two requeue waits (10 and 30) in dev_qos: median 20 */
    g = find(json_object_get(rep, "qos"), "dev_qos");
    assert_int_equal(num(g, "median_requeue_wait_s"), 20);
    assert_int_equal(num(g, "preempted"), 3);
    /* carol caused both of alice's; job 4 is not in the window */
    g = find(json_object_get(rep, "qos"), "prod_qos");
    assert_int_equal(num(g, "caused"), 2);
    assert_int_equal(
        num(find(json_object_get(rep, "partitions"), "prod"), "caused"), 2);
    assert_true(json_is_null(json_object_get(g, "median_requeue_wait_s")));
    miss = preempt_report_missing(jobs);
    assert_int_equal(json_array_size(miss), 1);
    assert_int_equal(json_integer_value(json_array_get(miss, 0)), 4);
    json_decref(miss);
    json_decref(rep);
    json_decref(jobs);
}

/* A victim suspended by its preemptor (PreemptMode=SUSPEND) counts as
 * preempted and loses nothing: it resumes where it stopped. */
static void test_suspended_victim(void **state)
{
    json_t *jobs = json_loads(
        "[{\"job_id\": 5, \"user_name\": \"dave\", \"qos\": \"dev_qos\","
        "  \"partition\": \"dev\", \"cpus\": 4, \"tres_req_str\": \"cpu=4\","
        "  \"events\": ["
        "  {\"time\": 100, \"event\": \"start\", \"detail\": \"\"},"
        "  {\"time\": 150, \"event\": \"suspend\", \"detail\": \"x\"},"
        "  {\"time\": 150, \"event\": \"preempt\", \"detail\": \"by job 6 "
        "mode=SUSPEND\"},"
        "  {\"time\": 400, \"event\": \"resume\", \"detail\": \"\"},"
        "  {\"time\": 500, \"event\": \"end\", \"detail\": \"\"}]}]",
        0, NULL);
    json_t *rep, *g;

    (void)state;
    assert_non_null(jobs);
    rep = preempt_report_build(jobs, 0.5);
    g = find(json_object_get(rep, "users"), "dave");
    assert_int_equal(num(g, "preempted"), 1);
    assert_int_equal(num(g, "requeues"), 0);
    assert_float_equal(json_real_value(json_object_get(g, "cpu_hours_lost")), 0,
                       1e-12);
    json_decref(rep);
    json_decref(jobs);
}

static void test_share(void **state)
{
    (void)state;
    assert_float_equal(preempt_report_share(NULL), 0.3, 1e-12);
    assert_float_equal(preempt_report_share("youngest_first"), 0.3, 1e-12);
    assert_float_equal(preempt_report_share("youngest_first,report_share=0.5"),
                       0.5, 1e-12);
    assert_float_equal(preempt_report_share("report_share=0.2,strict_order"),
                       0.2, 1e-12);
    assert_float_equal(preempt_report_share("report_share=2"), 0.3, 1e-12);
    assert_float_equal(preempt_report_share("report_share=x"), 0.3, 1e-12);
    assert_float_equal(preempt_report_share("xreport_share=0.9"), 0.3, 1e-12);
}

/* No history at all (a new cluster, sluice doctor's first week): empty
 * tables and zero totals. */
static void test_empty(void **state)
{
    json_t *jobs = json_array(), *rep;

    (void)state;
    rep = preempt_report_build(jobs, 0.3);
    assert_int_equal(json_array_size(json_object_get(rep, "users")), 0);
    assert_int_equal(json_array_size(json_object_get(rep, "partitions")), 0);
    assert_int_equal(num(json_object_get(rep, "totals"), "preempted"), 0);
    json_decref(rep);
    json_decref(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_suspended_victim),
        cmocka_unit_test(test_empty),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
