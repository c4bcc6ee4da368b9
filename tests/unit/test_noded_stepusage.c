/*
 * Unit tests for a step's usage (a /proc/PID/stat line read, process
 * trees folded, wait4's rusage, the USAGE object and back) and for the
 * line srun prints when a step is killed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noded/stepd.h"
#include "noded/stepusage.h"

static void test_parse_stat(void **state)
{
    /* a name with spaces and parentheses; majflt 7 + cmajflt 2, utime 150
     * + cutime 50, stime 20 + cstime 5 ticks, vsize 8 MiB, rss 300 pages */
    static const char line[] =
        "4242 (my (odd) name) S 4200 4242 4242 0 -1 4194560 100 0 7 2 150 "
        "20 50 5 20 0 1 0 123456 8388608 300 18446744073709551615 1 1 0 0 "
        "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
    struct stepusage_proc p;

    (void)state;
    assert_int_equal(stepusage_parse_stat(line, 100, 4, &p), 0);
    assert_int_equal(p.pid, 4242);
    assert_int_equal(p.ppid, 4200);
    assert_int_equal(p.pages, 9);
    assert_int_equal(p.user_cpu_us, 2000000);
    assert_int_equal(p.sys_cpu_us, 250000);
    assert_int_equal(p.vmsize_kib, 8192);
    assert_int_equal(p.rss_kib, 1200);
    assert_int_equal(stepusage_parse_stat("4242 (x", 100, 4, &p), -1);
    assert_int_equal(stepusage_parse_stat("4242 (x) S 1 2", 100, 4, &p), -1);
}

static void test_tree(void **state)
{
    /* 10 is the task; 11 its child, 12 a grandchild; 20 someone else's */
    const struct stepusage_proc procs[] = {
        {.pid = 10, .ppid = 1, .rss_kib = 100, .user_cpu_us = 5},
        {.pid = 11, .ppid = 10, .rss_kib = 200, .read_bytes = 4096},
        {.pid = 12, .ppid = 11, .rss_kib = 300, .pages = 2},
        {.pid = 20, .ppid = 1, .rss_kib = 9999},
    };
    struct stepusage_task t = {.task = 3};
    struct rusage ru = {.ru_maxrss = 50000, .ru_majflt = 1};

    (void)state;
    stepusage_tree(procs, 4, 10, &t);
    assert_int_equal(t.rss_kib, 600);
    assert_int_equal(t.rss_now_kib, 600);
    assert_int_equal(t.read_bytes, 4096);
    assert_int_equal(t.pages, 2);
    /* smaller later: the largest RSS stays, the latest is kept apart */
    stepusage_tree(procs, 1, 10, &t);
    assert_int_equal(t.rss_kib, 600);
    assert_int_equal(t.rss_now_kib, 100);
    assert_int_equal(t.read_bytes, 4096); /* counters never go back */
    /* gone: the last sample stands */
    stepusage_tree(procs + 3, 1, 10, &t);
    assert_int_equal(t.rss_now_kib, 100);
    ru.ru_utime.tv_sec = 2;
    stepusage_rusage(&t, &ru);
    assert_int_equal(t.rss_kib, 50000);
    assert_int_equal(t.user_cpu_us, 2000000);
    assert_int_equal(t.pages, 2);
}

static void test_json(void **state)
{
    const struct stepusage_task in[2] = {
        {.task = 0,
         .rss_kib = 1,
         .vmsize_kib = 2,
         .user_cpu_us = 3,
         .sys_cpu_us = 4,
         .pages = 5,
         .read_bytes = 6,
         .write_bytes = 7},
        {.task = 1, .rss_kib = 10},
    };
    struct stepusage_task out[2];
    json_t *u = stepusage_json(in, 2, -1, 1234);

    (void)state;
    assert_null(json_object_get(u, "cg_mem_peak_kib"));
    assert_int_equal(json_integer_value(json_object_get(u, "cg_cpu_us")), 1234);
    assert_int_equal(stepusage_parse(u, out, 2), 2);
    assert_int_equal(out[0].write_bytes, 7);
    assert_int_equal(out[0].sys_cpu_us, 4);
    assert_int_equal(out[1].task, 1);
    assert_int_equal(out[1].rss_kib, 10);
    assert_int_equal(stepusage_parse(u, out, 1), 1);
    json_decref(u);
    assert_int_equal(stepusage_parse(NULL, out, 1), -1);
}

static void test_kill_message(void **state)
{
    char line[200];

    (void)state;
    setenv("TZ", "UTC", 1);
    stepd_kill_message(12, 0, "node01", "timeout", 1796212800, line,
                       sizeof(line));
    assert_string_equal(line, "*** STEP 12.0 ON node01 CANCELLED AT "
                              "2026-12-02T12:00:00 DUE TO TIME LIMIT ***");
    stepd_kill_message(12, 3, "node02", "preempted", 1796212800, line,
                       sizeof(line));
    assert_string_equal(line, "*** STEP 12.3 ON node02 CANCELLED AT "
                              "2026-12-02T12:00:00 DUE TO PREEMPTION ***");
    stepd_kill_message(7, 1, "node01", "cancelled", 1796212800, line,
                       sizeof(line));
    assert_string_equal(
        line, "*** STEP 7.1 ON node01 CANCELLED AT 2026-12-02T12:00:00 ***");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_stat),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_kill_message),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
