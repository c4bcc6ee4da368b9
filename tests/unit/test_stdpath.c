/*
 * Unit tests for common/stdpath: a job's output file as the controller
 * finds it from the JOB object (the dashboard's output tail) and as
 * sluiced opens it (test_noded_jobenv.c covers every letter through
 * jobenv_expand).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/stdpath.h"

static void test_resolve(void **state)
{
    static const struct stdpath_job plain = {
        .job_id = 7, .name = "train", .user = "lisi", .node = "node03.lan"};
    static const struct stdpath_job task = {.job_id = 12,
                                            .is_array = true,
                                            .array_job_id = 10,
                                            .array_task_id = 2,
                                            .name = "",
                                            .user = "u",
                                            .node = "n"};
    static const struct {
        const char *pattern;
        const struct stdpath_job *job;
        const char *want;
    } cases[] = {
        {NULL, &plain, "/home/lisi/slurm-7.out"},
        {"", &plain, "/home/lisi/slurm-7.out"},
        {"logs/%x-%u-%N.log", &plain, "/home/lisi/logs/train-lisi-node03.log"},
        {"/scratch/%j.out", &plain, "/scratch/7.out"},
        {"%A_%a.out", &plain, "/home/lisi/7_4294967294.out"},
        {"%A_%a.out", &task, "/home/lisi/10_2.out"},
        {"out-%3a-%j", &task, "/home/lisi/out-002-12"},
        {"a\\%j", &task, "/home/lisi/a%j"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got =
            stdpath_resolve(cases[i].pattern, cases[i].job, "/home/lisi");
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("resolve(%s) = \"%s\", want \"%s\"",
                     cases[i].pattern ? cases[i].pattern : "NULL", got,
                     cases[i].want);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
