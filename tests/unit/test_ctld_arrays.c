/*
 * Job arrays and dependencies in the controller, without sockets: the
 * pending array record and its tasks split off, a restart, dependencies
 * judged as the jobs they name start and end (afterok chains, afternotok,
 * --kill-on-invalid-dep, '?', arrays, one task, aftercorr), and the
 * eligible time a dependency holds back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld_inproc.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"
#include "ctld/core/persist.h"
#include "ctld/sched/model.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "EnforcePartLimits=%s\nMaxArraySize=100\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "NodeName=small CPUs=2 RealMemory=1000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=72:00:00 "
    "DefaultTime=1:00:00\n"
    "PartitionName=dev Nodes=small MaxTime=24:00:00\n";

static const struct auth_id alice = {1001, 1001};

static int fx_setup(void **state, const char *enforce)
{
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];

    if (fx_make_dir(f) < 0)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir, enforce);
    if (fx_open(f, text) < 0)
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return fx_setup(state, "ALL");
}

/* MaxJobCount=10 (through the EnforcePartLimits line of conf_fmt) */
static int setup_max10(void **state)
{
    return fx_setup(state, "ALL\nMaxJobCount=10");
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* Start job id, end it with exit code code (0: COMPLETED). */
static void run_end(struct fx *f, struct job *j, int code)
{
    const size_t node = 0;
    struct err e;
    struct job_end r = {code, 0, time(NULL), false};

    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    assert_int_equal(jobs_ended(f->c->jobs, j, &r, &e), 0);
    loop_flush(f->c->loop);
}

/* Task t of pending array a, split off and run to the end. */
static struct job *run_task(struct fx *f, uint64_t a, uint32_t t, int code)
{
    struct err e;
    struct job *k = jobarray_split(f->c->jobs, fx_job(f, a), t, &e);

    assert_non_null(k);
    assert_int_equal(k->array_task_id, t);
    run_end(f, k, code);
    return k;
}

#define PLAIN "{\"script\": \"#!/bin/sh\"}"

/* MaxJobCount counts each pending task of an array as one job, though
 * they share one record until they start. */
static void test_array_max_job_count(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-7\"}",
                           &alice, &e);

    assert_int_not_equal(a, 0);
    assert_int_equal(jobs_active(f->c->jobs), 1);
    assert_int_equal(jobs_active_tasks(f->c->jobs), 8);
    assert_int_not_equal(fx_submit(f, PLAIN, &alice, &e), 0); /* 9 */
    assert_int_equal(
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-1\"}", &alice,
                  &e),
        0);
    assert_int_equal(errno, EAGAIN);
    assert_string_equal(e.text, "MaxJobCount (10) reached: 9 jobs are active "
                                "and the array adds 2: try again later");
    assert_int_not_equal(fx_submit(f, PLAIN, &alice, &e), 0); /* 10 */
    assert_int_equal(fx_submit(f, PLAIN, &alice, &e), 0);
    assert_string_equal(e.text, "MaxJobCount (10) reached: try again later");
    assert_int_equal(
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-10\"}", &alice,
                  &e),
        0);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "an array of 11 tasks can never fit "
                                "MaxJobCount (10): each task counts as one "
                                "job");
    /* a task split off and ended makes room for one more */
    run_task(f, a, 3, 0);
    assert_int_equal(jobs_active_tasks(f->c->jobs), 9);
    assert_int_not_equal(fx_submit(f, PLAIN, &alice, &e), 0);
    assert_active_list(f->c->jobs, 4); /* a's record (7 tasks), 3 jobs */
}

static void test_array_record_and_split(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(
        f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-9%3\"}", &alice, &e);
    struct job *m = fx_job(f, a), *k;
    char *s;

    assert_int_not_equal(a, 0);
    assert_int_equal(m->array_job_id, a);
    assert_int_equal(m->array_task_id, -1);
    assert_int_equal(m->array_pending->count, 10);
    assert_int_equal(m->array_throttle, 3);
    s = job_array_str(m);
    assert_string_equal(s, "1_[0-9%3]");
    free(s);
    /* one task leaves the record as a job of its own */
    k = jobarray_split(f->c->jobs, m, 4, &e);
    assert_non_null(k);
    assert_int_equal(k->id, a + 1);
    assert_int_equal(k->array_job_id, a);
    assert_int_equal(k->array_task_id, 4);
    assert_null(k->array_pending);
    assert_int_equal(k->array_count, 10);
    assert_int_equal(m->array_pending->count, 9);
    s = job_array_str(k);
    assert_string_equal(s, "1_4");
    free(s);
    /* spec errors name what is wrong */
    assert_int_equal(fx_submit(f,
                               "{\"script\": \"#!/bin/sh\", \"array\": "
                               "\"0-100\"}",
                               &alice, &e),
                     0);
    assert_non_null(strstr(e.text, "task id 100 is above MaxArraySize-1 (99)"));
    assert_int_equal(
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": 5}", &alice, &e),
        0);
    assert_non_null(strstr(e.text, "job array: expected a string"));
}

static void test_array_last_task_is_record(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"2,5\"}",
                           &alice, &e);
    uint64_t b = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-3\"}",
                           &alice, &e);

    assert_active_list(f->c->jobs, 2); /* 6 tasks */
    assert_int_equal(run_task(f, a, 5, 0)->id, b + 1);
    /* the last pending task takes the record itself */
    assert_int_equal(run_task(f, a, 2, 0)->id, a);
    assert_null(fx_job(f, a)->array_pending);
    assert_int_equal(fx_job(f, a)->array_task_id, 2);
    assert_int_equal(fx_job(f, a)->state, JOB_COMPLETED);
    /* a finished first: b is what MaxJobCount still counts */
    assert_active_list(f->c->jobs, 1);
    assert_int_equal(jobs_active_tasks(f->c->jobs), 4);
    for (uint32_t t = 0; t < 4; t++)
        run_task(f, b, t, 0);
    assert_active_list(f->c->jobs, 0);
}

static void test_array_restart(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(
        f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-99%5\"}", &alice, &e);
    struct job *k = jobarray_split(f->c->jobs, fx_job(f, a), 0, &e);
    const size_t node = 0;
    uint64_t kid = k->id;
    char *s;

    assert_int_equal(jobs_start(f->c->jobs, k, &node, 1, time(NULL), &e), 0);
    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    s = job_array_str(fx_job(f, a));
    assert_string_equal(s, "1_[1-99%5]");
    free(s);
    assert_int_equal(fx_job(f, a)->array_count, 100);
    assert_int_equal(fx_job(f, kid)->state, JOB_RUNNING);
    assert_int_equal(fx_job(f, kid)->array_job_id, a);
    assert_int_equal(fx_job(f, kid)->array_task_id, 0);
}

static void test_dep_chain_and_age(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t j1 = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    char spec[128];
    uint64_t j2;

    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterok:%llu\"}",
             (unsigned long long)j1);
    j2 = fx_submit(f, spec, &alice, &e);
    assert_int_equal(fx_job(f, j2)->dep_state, DEP_WAIT);
    assert_string_equal(job_reason(fx_job(f, j2)), "Dependency");
    assert_int_equal(fx_job(f, j2)->eligible_time, 0);
    run_end(f, fx_job(f, j1), 0);
    assert_int_equal(fx_job(f, j2)->dep_state, DEP_MET);
    assert_true(fx_job(f, j2)->eligible_time >= fx_job(f, j1)->end_time);
    assert_string_not_equal(job_reason(fx_job(f, j2)), "Dependency");
    /* an unknown job id is refused */
    assert_int_equal(fx_submit(f,
                               "{\"script\": \"#!/bin/sh\", \"dependency\": "
                               "\"afterok:999\"}",
                               &alice, &e),
                     0);
    assert_string_equal(e.text, "Job dependency problem: job 999 is not known");
}

static void test_dep_never_and_kill(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t ok = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    char spec[160];
    uint64_t never, killed, any;

    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afternotok:%llu\"}",
             (unsigned long long)ok);
    never = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afternotok:%llu\", "
             "\"kill_on_invalid_dep\": true}",
             (unsigned long long)ok);
    killed = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": "
             "\"afternotok:%llu?afterok:%llu\"}",
             (unsigned long long)ok, (unsigned long long)ok);
    any = fx_submit(f, spec, &alice, &e);
    run_end(f, fx_job(f, ok), 0);
    assert_int_equal(fx_job(f, never)->state, JOB_PENDING);
    assert_string_equal(job_reason(fx_job(f, never)),
                        "DependencyNeverSatisfied");
    assert_int_equal(fx_job(f, killed)->state, JOB_CANCELLED);
    assert_int_equal(fx_job(f, any)->dep_state, DEP_MET);
}

static void test_dep_on_array(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"1-3\"}",
                           &alice, &e);
    char spec[160];
    uint64_t all, one, corr;

    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterok:%llu\"}",
             (unsigned long long)a);
    all = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterok:%llu_2\"}",
             (unsigned long long)a);
    one = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"array\": \"1-3\", "
             "\"dependency\": \"aftercorr:%llu\"}",
             (unsigned long long)a);
    corr = fx_submit(f, spec, &alice, &e);
    assert_int_not_equal(corr, 0);
    assert_int_equal(fx_job(f, corr)->dep_state, DEP_WAIT);
    run_task(f, a, 2, 0);
    assert_int_equal(fx_job(f, one)->dep_state, DEP_MET);
    assert_int_equal(fx_job(f, all)->dep_state, DEP_WAIT);
    /* aftercorr: task 2 of corr may start, 1 and 3 wait */
    assert_int_equal(fx_job(f, corr)->dep_state, DEP_MET);
    assert_true(arrayset_has(fx_job(f, corr)->dep_ready, 2));
    assert_false(arrayset_has(fx_job(f, corr)->dep_ready, 1));
    assert_false(arrayset_has(fx_job(f, corr)->dep_ready, 3));
    run_task(f, a, 3, 0);
    assert_int_equal(fx_job(f, all)->dep_state, DEP_WAIT);
    /* task 1 fails: afterok on the array never; corr's task 1 leaves its
     * array's record as a job of its own that can never run */
    run_task(f, a, 1, 1);
    assert_int_equal(fx_job(f, all)->dep_state, DEP_NEVER);
    assert_string_equal(job_reason(fx_job(f, all)), "DependencyNeverSatisfied");
    {
        struct job *t1 = jobarray_find_task(f->c->jobs, corr, 1);
        assert_non_null(t1);
        assert_int_not_equal(t1->id, corr);
        assert_int_equal(t1->state, JOB_PENDING);
        assert_string_equal(job_reason(t1), "DependencyNeverSatisfied");
        assert_false(arrayset_has(fx_job(f, corr)->array_pending, 1));
        assert_true(arrayset_has(fx_job(f, corr)->dep_ready, 3));
    }
    /* a task named that does not exist */
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterok:%llu_7\"}",
             (unsigned long long)a);
    assert_int_equal(fx_submit(f, spec, &alice, &e), 0);
    assert_non_null(strstr(e.text, "_7 is not known"));
}

static void test_dep_on_cancelled_array(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-4\"}",
                           &alice, &e);
    char spec[160];
    uint64_t any, ok;

    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterany:%llu\"}",
             (unsigned long long)a);
    any = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"dependency\": \"afterok:%llu\"}",
             (unsigned long long)a);
    ok = fx_submit(f, spec, &alice, &e);
    assert_int_equal(jobs_cancel(f->c->jobs, fx_job(f, a), alice.uid, 0, &e),
                     0);
    loop_flush(f->c->loop);
    assert_int_equal(fx_job(f, any)->dep_state, DEP_MET);
    assert_int_equal(fx_job(f, ok)->dep_state, DEP_NEVER);
}

/* The pass's model: a throttled array offers up to %N tasks, each
 * charging the array's one counter, and so does a task split off it
 * (held alone, then released); running tasks fill the counter. */
static void test_model_throttle(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a = fx_submit(
        f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-9%3\"}", &alice, &e);
    struct job *run = jobarray_split(f->c->jobs, fx_job(f, a), 0, &e);
    struct job *alone = jobarray_split(f->c->jobs, fx_job(f, a), 7, &e);
    const size_t node = 0;
    struct pass_model m;
    size_t tasks = 0;

    assert_int_equal(jobs_start(f->c->jobs, run, &node, 1, time(NULL), &e), 0);
    pass_model_build(f->c->model, &m, PASS_MODEL_WHAT_IF, NULL, time(NULL));
    assert_int_equal(m.nctr, 1);
    assert_int_equal(m.ctr[0].capacity, 3);
    assert_int_equal(m.ctr[0].used, 1);
    assert_string_equal(m.ctr[0].reason, "JobArrayTaskLimit");
    for (size_t i = 0; i < m.n; i++) {
        assert_int_equal(m.nmine[i], 1);
        assert_int_equal(m.chg[2 * i].counter, 0);
        if (m.pend[i] == alone)
            assert_int_equal(m.task[i], -1);
        else
            tasks++;
    }
    assert_int_equal(tasks, 3);
    assert_int_equal(m.n, 4);
    assert_int_equal(fx_job(f, a)->sched_slot, 0);
    pass_model_free(&m);
}

/* Whether job id's stored payload (script, environment) is still there. */
static bool has_payload(struct fx *f, uint64_t id)
{
    struct err e;
    char *text = persist_job_payload(f->c->persist, id, &e);
    bool has;

    assert_non_null(text);
    has = strstr(text, "SECRET") != NULL;
    free(text);
    return has;
}

#define SECRET_ENV ", \"environment\": {\"TOKEN\": \"SECRET\"}"

/* A job's payload leaves the database once it is final; an array's, kept
 * with its first record, once the last task is final, even when that
 * record ended before a task split off earlier. */
static void test_payload_purged(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t p =
        fx_submit(f, "{\"script\": \"#!/bin/sh\"" SECRET_ENV "}", &alice, &e);
    uint64_t a = fx_submit(
        f, "{\"script\": \"#!/bin/sh\", \"array\": \"0-2\"" SECRET_ENV "}",
        &alice, &e);
    const size_t node = 0;
    struct job *t0, *t1, *t2;

    assert_true(has_payload(f, p));
    run_end(f, fx_job(f, p), 0);
    assert_false(has_payload(f, p));
    assert_int_equal(fx_job(f, p)->state, JOB_COMPLETED); /* the record stays */

    t0 = jobarray_split(f->c->jobs, fx_job(f, a), 0, &e); /* left running */
    assert_non_null(t0);
    assert_int_equal(jobs_start(f->c->jobs, t0, &node, 1, time(NULL), &e), 0);
    t1 = run_task(f, a, 1, 0);
    assert_true(t1 != fx_job(f, a));
    assert_true(has_payload(f, a)); /* task 2 waits */
    t2 = run_task(f, a, 2, 0);      /* the first record itself, and final */
    assert_true(t2 == fx_job(f, a));
    assert_true(has_payload(f, a)); /* task 0 still runs */
    assert_active_list(f->c->jobs, 1);
    struct job_end r = {0, 0, time(NULL), false};
    assert_int_equal(jobs_ended(f->c->jobs, t0, &r, &e), 0);
    loop_flush(f->c->loop);
    assert_false(has_payload(f, a));
    assert_active_list(f->c->jobs, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_array_max_job_count, setup_max10,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_array_record_and_split, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_array_last_task_is_record, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_array_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dep_chain_and_age, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dep_never_and_kill, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dep_on_array, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dep_on_cancelled_array, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_model_throttle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_payload_purged, setup, teardown),
    };
    log_init("test", LOG_LEVEL_WARN, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
