/*
 * Job mail (ctld/job/mail.c): --mail-type names into Slurm's canonical
 * list, the events a transition asks for, the time-limit marks, and
 * Slurm's subject lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/timefmt.h"
#include "ctld/job/job.h"
#include "ctld/job/mail.h"

static void test_parse(void **state)
{
    static const struct {
        const char *in, *canon; /* canon NULL: none; "!" refused */
    } cases[] = {
        {"BEGIN", "BEGIN"},
        {"end,begin", "BEGIN,END"},
        {"FAIL,END,FAIL", "END,FAIL"},
        {"ALL", "BEGIN,END,FAIL,REQUEUE,INVALID_DEPEND,STAGE_OUT"},
        {"NONE", NULL},
        {"TIME_LIMIT_80,ARRAY_TASKS", "TIME_LIMIT_80,ARRAY_TASKS"},
        {"BEGINN", "!"},
        {"BEGIN,,END", "!"},
        {"", NULL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *canon = NULL;
        struct err e;
        int rc = mail_type_parse(cases[i].in, &canon, &e);
        if (cases[i].canon != NULL && strcmp(cases[i].canon, "!") == 0) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(e.text, "invalid mail type"));
            continue;
        }
        assert_int_equal(rc, 0);
        if (cases[i].canon == NULL)
            assert_null(canon);
        else
            assert_string_equal(canon, cases[i].canon);
        free(canon);
    }
}

static struct job job_with(const char *types, enum job_state st)
{
    struct job j;

    memset(&j, 0, sizeof(j));
    j.id = 12;
    j.name = (char *)"train";
    j.user_name = (char *)"alice";
    j.mail_type = (char *)types;
    j.state = st;
    j.submit_time = 1000;
    j.start_time = 1001;
    j.end_time = 1061;
    j.time_limit_s = 100;
    j.array_task_id = -1;
    return j;
}

static void test_wanted(void **state)
{
    struct job j = job_with("BEGIN,END,FAIL", JOB_RUNNING);

    (void)state;
    assert_int_equal(mail_wanted(&j, "start", false, false), JOB_MAIL_BEGIN);
    assert_int_equal(mail_wanted(&j, "requeue", false, false), 0);
    assert_int_equal(mail_wanted(&j, "end", false, false), 0); /* not final */
    j.state = JOB_COMPLETED;
    assert_int_equal(mail_wanted(&j, "end", false, false), JOB_MAIL_END);
    j.state = JOB_FAILED;
    assert_int_equal(mail_wanted(&j, "end", false, false), JOB_MAIL_FAIL);
    j = job_with("END", JOB_TIMEOUT);
    assert_int_equal(mail_wanted(&j, "end", false, false), JOB_MAIL_END);
    j = job_with("FAIL", JOB_COMPLETED);
    assert_int_equal(mail_wanted(&j, "end", false, false), 0);
    /* an array task without ARRAY_TASKS speaks only for the array */
    j = job_with("BEGIN,END", JOB_RUNNING);
    j.array_job_id = 10;
    j.array_task_id = 2;
    assert_int_equal(mail_wanted(&j, "start", false, false), 0);
    assert_int_equal(mail_wanted(&j, "start", true, false), JOB_MAIL_BEGIN);
    j.mail_type = (char *)"BEGIN,ARRAY_TASKS";
    assert_int_equal(mail_wanted(&j, "start", false, false), JOB_MAIL_BEGIN);
    j = job_with(NULL, JOB_RUNNING);
    assert_int_equal(mail_wanted(&j, "start", false, false), 0);
}

static void test_time_due(void **state)
{
    struct job j = job_with("TIME_LIMIT_50,TIME_LIMIT_90", JOB_RUNNING);

    (void)state;
    j.start_time = 1000;
    assert_int_equal(mail_time_due(&j, 1049, 1), 0);
    assert_int_equal(mail_time_due(&j, 1050, 1), JOB_MAIL_TIME_LIMIT_50);
    j.mail_sent = JOB_MAIL_TIME_LIMIT_50;
    assert_int_equal(mail_time_due(&j, 1060, 1), 0);
    assert_int_equal(mail_time_due(&j, 1090, 1), JOB_MAIL_TIME_LIMIT_90);
    j.mail_sent |= JOB_MAIL_TIME_LIMIT_90;
    assert_int_equal(mail_time_due(&j, 1099, 1), 0);
    j.time_limit_s = TIMEFMT_INFINITE;
    j.mail_sent = 0;
    assert_int_equal(mail_time_due(&j, 5000, 1), 0);
}

static void test_subject(void **state)
{
    struct job j = job_with("ALL", JOB_COMPLETED);
    char *s;

    (void)state;
    s = mail_subject(&j, JOB_MAIL_BEGIN, 1001, false);
    assert_string_equal(s, "Slurm Job_id=12 Name=train Began, Queued time "
                           "00:00:01");
    free(s);
    s = mail_subject(&j, JOB_MAIL_END, 1061, false);
    assert_string_equal(s, "Slurm Job_id=12 Name=train Ended, Run time "
                           "00:01:00, COMPLETED, ExitCode 0");
    free(s);
    j.state = JOB_FAILED;
    j.exit_code = 3;
    s = mail_subject(&j, JOB_MAIL_FAIL, 1061, false);
    assert_string_equal(s, "Slurm Job_id=12 Name=train Failed, Run time "
                           "00:01:00, FAILED, ExitCode 3");
    free(s);
    j.array_job_id = 10;
    j.array_task_id = 2;
    s = mail_subject(&j, JOB_MAIL_END, 1061, true);
    assert_string_equal(s, "Slurm Array Summary Job_id=10_* (10) Name=train "
                           "Ended, Run time 00:01:00, FAILED, ExitCode 3");
    free(s);
    s = mail_subject(&j, JOB_MAIL_TIME_LIMIT_80, 1061, false);
    assert_string_equal(s, "Slurm Array Task Job_id=10_2 (12) Name=train "
                           "Reached 80% of time limit, Run time 00:01:00");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_wanted),
        cmocka_unit_test(test_time_due),
        cmocka_unit_test(test_subject),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
