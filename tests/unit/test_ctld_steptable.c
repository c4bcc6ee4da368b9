/*
 * The controller's step table without sockets (ctld_inproc.h): the batch
 * step that a job's start makes and its end finishes, in each final state
 * of the job; finished steps leaving memory and read back from the
 * database; a restart.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/queue/steps.h"
#include "ctld_inproc.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=1:00:00\n";

static const struct auth_id alice = {1001, 1001};

static int setup(void **state)
{
    return fx_setup_conf(state, conf_fmt);
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* The job's steps from memory and the database, as JOB_ACCT has them. */
static json_t *acct_steps(struct fx *f, uint64_t id)
{
    struct err e;
    json_t *a = steps_of_job(f->c->steps, id, &e);

    if (a == NULL)
        fail_msg("steps_of_job: %s", e.text);
    return a;
}

static const char *field(json_t *step, const char *key)
{
    return json_string_value(json_object_get(step, key));
}

/* Start job id on node 0 and end it as r says (cancelled first when
 * cancel is set); the batch step's state. */
static char *run(struct fx *f, uint64_t id, bool cancel,
                 const struct job_end *r)
{
    struct job *j = fx_job(f, id);
    const size_t node = 0;
    struct err e;
    json_t *a;
    char *st;

    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    assert_non_null(steps_find(f->c->steps, id, STEP_BATCH_ID));
    assert_int_equal(steps_find(f->c->steps, id, STEP_BATCH_ID)->state,
                     STEP_RUNNING);
    if (cancel)
        assert_int_equal(jobs_cancel(f->c->jobs, j, alice.uid, 0, &e), 0);
    assert_int_equal(jobs_ended(f->c->jobs, j, r, &e), 0);
    loop_flush(f->c->loop);
    a = acct_steps(f, id);
    assert_int_equal(json_array_size(a), 1);
    assert_string_equal(field(json_array_get(a, 0), "name"), "batch");
    st = strdup(field(json_array_get(a, 0), "state"));
    json_decref(a);
    return st;
}

static void test_batch_step_states(void **state)
{
    static const struct {
        bool cancel;
        struct job_end end;
        const char *want;
    } cases[] = {
        {false, {0, 0, 0, false}, "COMPLETED"},
        {false, {3, 0, 0, false}, "FAILED"},
        {false, {0, 9, 0, true}, "OUT_OF_MEMORY"},
        {true, {0, 15, 0, false}, "CANCELLED"},
    };
    struct fx *f = *state;
    struct err e;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
        char *got;
        assert_true(id > 0);
        got = run(f, id, cases[i].cancel, &cases[i].end);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: batch step %s, want %s", i, got, cases[i].want);
        free(got);
    }
}

static void test_evicted_and_restarted(void **state)
{
    struct fx *f = *state;
    struct err e;
    struct job_end done = {2, 0, 0, false};
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    uint64_t run_id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    const size_t node = 1;
    char *st = run(f, id, false, &done);
    json_t *a;

    assert_string_equal(st, "FAILED");
    free(st);
    /* a minute after its end, the finished step leaves memory */
    steps_tick(f->c->steps, time(NULL) + STEPS_DONE_KEEP_S + 1);
    assert_null(steps_find(f->c->steps, id, STEP_BATCH_ID));
    a = acct_steps(f, id);
    assert_int_equal(json_array_size(a), 1);
    assert_string_equal(field(json_array_get(a, 0), "id"), "1.batch");
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(a, 0), "exit_code")),
        2);
    json_decref(a);
    /* a running job's batch step comes back after a restart */
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, run_id), &node, 1, time(NULL), &e), 0);
    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    assert_non_null(steps_find(f->c->steps, run_id, STEP_BATCH_ID));
    assert_int_equal(steps_find(f->c->steps, run_id, STEP_BATCH_ID)->state,
                     STEP_RUNNING);
    assert_int_equal(steps_next_id(f->c->steps, run_id), 0);
}

/* Who may add a step, and to which job: STEP_CREATE's refusals that come
 * before any node is asked. */
static void test_create_refusals(void **state)
{
    static const struct auth_id bob = {1002, 1002};
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    const size_t node = 0;
    char text[256];
    json_t *req, *reply = NULL;

    snprintf(text, sizeof(text),
             "{\"job_id\": %llu, \"argv\": [\"true\"], "
             "\"srun_host\": \"127.0.0.1\", \"srun_port\": 4000}",
             (unsigned long long)id);
    req = json_loads(text, 0, NULL);
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, id), &node, 1, time(NULL), &e), 0);
    assert_int_equal(steps_new(f->c->steps, req, &bob, &reply, &e), -1);
    assert_int_equal(errno, EPERM);
    snprintf(text, sizeof(text), "Access denied: job 1 belongs to %s",
             fx_job(f, id)->user_name); /* alice, or 1001 unknown here */
    assert_string_equal(e.text, text);
    /* the job's node has no connection in this harness */
    assert_int_equal(steps_new(f->c->steps, req, &alice, &reply, &e), -1);
    assert_int_equal(errno, EHOSTUNREACH);
    assert_string_equal(e.text, "node node01 of job 1 is not connected");
    json_object_del(req, "srun_port");
    assert_int_equal(steps_new(f->c->steps, req, &alice, &reply, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "STEP_CREATE: srun_host and srun_port are "
                                "needed (where the step's nodes reach srun)");
    json_decref(req);
    assert_null(reply);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_step_states, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_evicted_and_restarted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_refusals, setup, teardown),
    };
    log_init("test", LOG_LEVEL_WARN, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
