/*
 * Allocation jobs in the controller without sockets (ctld_inproc.h):
 * "alloc" at submit and in the record (also after a restart), a start
 * with nothing to launch and no batch step, JOB_COMPLETE (exit codes,
 * another user, a batch job, an unknown job, again), an srun allocation
 * ending with its step 0, a kill that waits for the steps, a preempted
 * allocation ending PREEMPTED with preempted_by, and "immediate" that
 * keeps nothing when the job cannot start.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/queue/steps.h"
#include "ctld_inproc.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "KillWait=5\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000\n"
    "PartitionName=dev Nodes=node[01-02] Default=YES MaxTime=1:00:00\n"
    "PartitionName=prod Nodes=node[01-02] MaxTime=INFINITE\n";

static const struct auth_id alice = {1001, 1001};
static const struct auth_id bob = {1002, 1002};

static int setup(void **state)
{
    return fx_setup_conf(state, conf_fmt);
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* An allocation of kind ("salloc", "srun") by alice, started on node01. */
static struct job *started(struct fx *f, const char *kind)
{
    char spec[128];
    struct err e;
    const size_t node = 0;
    uint64_t id;
    struct job *j;

    snprintf(spec, sizeof(spec), "{\"alloc\": \"%s\"}", kind);
    id = fx_submit(f, spec, &alice, &e);
    if (id == 0)
        fail_msg("submit: %s", e.text);
    j = fx_job(f, id);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    loop_flush(f->c->loop);
    return j;
}

/* What the request handlers use (ctld_listen fills it in the daemon). */
static const struct rpc_env *env_of(struct fx *f)
{
    static struct rpc_env env;

    env = (struct rpc_env){.conf = f->c->conf,
                           .loop = f->c->loop,
                           .persist = f->c->persist,
                           .acct = f->c->acct,
                           .parts = f->c->parts,
                           .nodes = f->c->nodes,
                           .jobs = f->c->jobs,
                           .steps = f->c->steps,
                           .sched = f->c->sched,
                           .prio = f->c->prio,
                           .explain = f->c->explain,
                           .self_uid = f->c->self_uid};
    return &env;
}

/* JOB_COMPLETE as who; 0, or errno with e. */
static int complete(struct fx *f, uint64_t id, int code,
                    const struct auth_id *who, struct err *e)
{
    json_t *body =
        json_pack("{s:I, s:i}", "job_id", (json_int_t)id, "exit_code", code);
    struct proto_frame fr = {.type = PROTO_MSG_JOB_COMPLETE, .body = body};
    struct rpc r = {.env = env_of(f), .req = &fr, .who = *who};
    json_t *reply = NULL;
    int rc;

    err_clear(e);
    rc = rpc_job_complete(&r, &reply, e) < 0 ? errno : 0;
    json_decref(reply);
    json_decref(body);
    loop_flush(f->c->loop);
    return rc;
}

/* A running step of j on its first node (as stepnew.c would make it). */
static struct step *fake_step(struct fx *f, struct job *j, uint32_t id)
{
    struct step *s = xcalloc(1, sizeof(*s));

    s->job_id = j->id;
    s->step_id = id;
    s->name = xstrdup("bash");
    s->state = STEP_RUNNING;
    s->user_id = j->user_id;
    s->user_name = xstrdup(j->user_name);
    s->partition = xstrdup("dev");
    s->account = xstrdup("");
    s->start_time = time(NULL);
    s->time_limit_s = -1;
    s->ntasks = 1;
    s->cpus_per_task = 1;
    s->tasks_per_node = xstrdup("1");
    s->reason = xstrdup("");
    s->n_nodes = 1;
    s->nodes = xcalloc(1, sizeof(*s->nodes));
    s->nodes[0].node = j->alloc[0];
    s->nodes[0].ntasks = 1;
    s->nodes[0].gpus = xcalloc(1, sizeof(uint32_t));
    steps_add(f->c->steps, s);
    return s;
}

static void test_start_without_launch(void **state)
{
    struct fx *f = *state;
    struct job *j = started(f, "salloc");
    json_t *o = job_to_json(j, f->conf, false);

    assert_int_equal(j->state, JOB_RUNNING);
    assert_true(j->launched); /* nothing to wait for from the node */
    assert_false(j->requeue);
    assert_null(steps_find(f->c->steps, j->id, STEP_BATCH_ID));
    assert_string_equal(json_string_value(json_object_get(o, "alloc")),
                        "salloc");
    assert_string_equal(json_string_value(json_object_get(o, "name")),
                        "interactive");
    assert_null(json_object_get(o, "preempted_by"));
    json_decref(o);
}

static void test_bad_specs(void **state)
{
    static const struct {
        const char *spec, *want;
    } cases[] = {
        {"{\"alloc\": \"sbatch\"}",
         "job alloc: expected \"salloc\" or \"srun\""},
        {"{\"alloc\": \"salloc\", \"script\": \"#!/bin/sh\\n\"}",
         "job script: an allocation (alloc) has none"},
        {"{\"alloc\": \"srun\", \"array\": \"1-3\"}",
         "an allocation (salloc, srun) cannot be a job array"},
        {"{}", "job script: missing (a job needs a script)"},
    };
    struct fx *f = *state;
    struct err e;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(fx_submit(f, cases[i].spec, &alice, &e), 0);
        if (strcmp(e.text, cases[i].want) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, e.text,
                     cases[i].want);
    }
    /* the command names an allocation without a name */
    {
        uint64_t id = fx_submit(
            f, "{\"alloc\": \"srun\", \"argv\": [\"/usr/bin/hostname\"]}",
            &alice, &e);
        assert_true(id > 0);
        assert_string_equal(fx_job(f, id)->name, "hostname");
    }
}

static void test_job_complete(void **state)
{
    static const struct {
        int code;
        const char *state;
        int exit_code, signal;
    } cases[] = {
        {0, "COMPLETED", 0, 0},
        {3, "FAILED", 3, 0},
        {-9, "FAILED", 0, 9},
    };
    struct fx *f = *state;
    struct err e;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct job *j = started(f, "salloc");
        assert_int_equal(complete(f, j->id, cases[i].code, &alice, &e), 0);
        assert_string_equal(job_state_name(j->state), cases[i].state);
        assert_int_equal(j->exit_code, cases[i].exit_code);
        assert_int_equal(j->exit_signal, cases[i].signal);
        /* again: the job is final, nothing changes */
        assert_int_equal(complete(f, j->id, 5, &alice, &e), 0);
        assert_string_equal(job_state_name(j->state), cases[i].state);
    }
    {
        struct job *j = started(f, "salloc");
        uint64_t batch =
            fx_submit(f, "{\"script\": \"#!/bin/sh\\n\"}", &alice, &e);
        char want[128];
        assert_int_equal(complete(f, j->id, 0, &bob, &e), EPERM);
        assert_string_equal(e.text, "Access/permission denied");
        assert_int_equal(j->state, JOB_RUNNING);
        assert_int_equal(complete(f, batch, 0, &alice, &e), EINVAL);
        snprintf(want, sizeof(want),
                 "job %llu is not an allocation: it ends with its batch "
                 "script",
                 (unsigned long long)batch);
        assert_string_equal(e.text, want);
        assert_int_equal(complete(f, 9999, 0, &alice, &e), ENOENT);
        assert_string_equal(e.text, "Invalid job id specified");
        assert_int_equal(complete(f, j->id, 300, &alice, &e), EINVAL);
        /* an operator (the controller's own uid) may end it */
        struct auth_id op = {geteuid(), getegid()};
        assert_int_equal(complete(f, j->id, 0, &op, &e), 0);
        assert_int_equal(j->state, JOB_COMPLETED);
    }
}

/* JOB_COMPLETE with a step running: the job ends when the step does. */
static void test_complete_waits_for_steps(void **state)
{
    struct fx *f = *state;
    struct job *j = started(f, "salloc");
    struct step *s = fake_step(f, j, 0);
    struct err e;

    assert_int_equal(j->steps_live, 1);
    assert_int_equal(complete(f, j->id, 0, &alice, &e), 0);
    assert_int_equal(j->state, JOB_RUNNING);
    assert_int_equal(j->kill, JOB_KILL_COMPLETE);
    assert_true(j->kill_deadline > time(NULL));
    s->signal = 15;
    steps_finish(f->c->steps, s, STEP_CANCELLED, "killed", time(NULL));
    loop_flush(f->c->loop);
    assert_int_equal(j->steps_live, 0);
    assert_int_equal(j->state, JOB_COMPLETED);
}

/* scancel with a step that never reports: the job ends at its deadline. */
static void test_cancel_deadline(void **state)
{
    struct fx *f = *state;
    struct job *j = started(f, "salloc");
    struct err e;

    fake_step(f, j, 0);
    assert_int_equal(jobs_cancel(f->c->jobs, j, alice.uid, 0, &e), 0);
    jobs_tick(f->c->jobs, time(NULL));
    assert_int_equal(j->state, JOB_RUNNING);
    jobs_tick(f->c->jobs, j->kill_deadline);
    loop_flush(f->c->loop);
    assert_int_equal(j->state, JOB_CANCELLED);
    /* the step went with its job */
    assert_int_equal(steps_find(f->c->steps, j->id, 0)->state, STEP_CANCELLED);
}

/* An srun allocation ends with its step 0, with the step's result. */
static void test_srun_step0(void **state)
{
    static const struct {
        enum step_state st;
        int code, sig;
        const char *want;
        int want_code, want_sig;
    } cases[] = {
        {STEP_COMPLETED, 0, 0, "COMPLETED", 0, 0},
        {STEP_FAILED, 7, 0, "FAILED", 7, 0},
        {STEP_FAILED, 0, 9, "FAILED", 0, 9},
        {STEP_CANCELLED, 0, 15, "CANCELLED", 0, 0},
    };
    struct fx *f = *state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct job *j = started(f, "srun");
        struct step *s = fake_step(f, j, 0);
        s->exit_code = cases[i].code;
        s->signal = cases[i].sig;
        steps_finish(f->c->steps, s, cases[i].st, NULL, time(NULL));
        loop_flush(f->c->loop);
        if (strcmp(job_state_name(j->state), cases[i].want) != 0)
            fail_msg("case %zu: job %s, want %s", i, job_state_name(j->state),
                     cases[i].want);
        assert_int_equal(j->exit_code, cases[i].want_code);
        assert_int_equal(j->exit_signal, cases[i].want_sig);
    }
    {
        /* another step's end leaves it running; a salloc job too */
        struct job *j = started(f, "srun"), *k = started(f, "salloc");
        struct step *s0 = fake_step(f, j, 0), *s1 = fake_step(f, j, 1);
        struct step *k0 = fake_step(f, k, 0);
        struct err e;
        steps_finish(f->c->steps, s1, STEP_COMPLETED, NULL, time(NULL));
        steps_finish(f->c->steps, k0, STEP_COMPLETED, NULL, time(NULL));
        assert_int_equal(j->state, JOB_RUNNING);
        assert_int_equal(k->state, JOB_RUNNING);
        /* killed first: the job's own state wins over its step's */
        j->time_limit_s = 1;
        j->start_time = time(NULL) - 5;
        jobs_tick(f->c->jobs, time(NULL));
        assert_int_equal(j->kill, JOB_KILL_TIMEOUT);
        steps_finish(f->c->steps, s0, STEP_COMPLETED, NULL, time(NULL));
        loop_flush(f->c->loop);
        assert_int_equal(j->state, JOB_TIMEOUT);
        (void)e;
    }
}

/* A preempted allocation is not requeued, says who preempted it, and
 * both survive a restart. */
static void test_preempted(void **state)
{
    struct fx *f = *state;
    struct job *j = started(f, "salloc");
    uint64_t id = j->id, by;
    json_t *o, *pb;
    struct err e;

    by = fx_submit(f, "{\"script\": \"#!/bin/sh\\n\", \"partition\": \"prod\"}",
                   &bob, &e);
    assert_true(by > 0);
    assert_int_equal(jobs_preempt(f->c->jobs, j, by, true, 0, &e), 0);
    loop_flush(f->c->loop);
    assert_int_equal(j->state, JOB_PREEMPTED); /* no step: at once */
    assert_int_equal(j->restart_count, 0);
    ctld_destroy(f->c);
    fx_start(f);
    j = fx_job(f, id);
    assert_int_equal(j->state, JOB_PREEMPTED);
    assert_int_equal(j->alloc_kind, JOB_ALLOC_SALLOC);
    o = job_to_json(j, f->conf, false);
    pb = json_object_get(o, "preempted_by");
    assert_int_equal(json_integer_value(json_object_get(pb, "job_id")), by);
    assert_string_equal(json_string_value(json_object_get(pb, "partition")),
                        "prod");
    assert_string_equal(json_string_value(json_object_get(o, "alloc")),
                        "salloc");
    json_decref(o);
}

/* A running allocation and its live steps are back after a restart. */
static void test_restart_running(void **state)
{
    struct fx *f = *state;
    struct job *j = started(f, "srun");
    uint64_t id = j->id;
    struct err e;

    fake_step(f, j, 0);
    steps_save(f->c->steps, steps_find(f->c->steps, id, 0), &e);
    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    j = fx_job(f, id);
    assert_int_equal(j->state, JOB_RUNNING);
    assert_int_equal(j->alloc_kind, JOB_ALLOC_SRUN);
    assert_true(j->launched);
    assert_int_equal(j->steps_live, 1);
    steps_finish(f->c->steps, steps_find(f->c->steps, id, 0), STEP_COMPLETED,
                 NULL, time(NULL));
    loop_flush(f->c->loop);
    assert_int_equal(j->state, JOB_COMPLETED);
}

/* SUBMIT immediate: refused at once when it cannot start (the nodes of
 * this fixture never registered: NodeDown), and nothing is kept. */
static void test_immediate_refused(void **state)
{
    static const struct {
        const char *spec, *want;
    } cases[] = {
        /* (nodes that are busy: test_ctld_alloc_daemon.c) */
        {"{\"job\": {\"alloc\": \"salloc\", \"immediate\": true}}",
         "Unable to allocate resources: NodeDown"},
        {"{\"job\": {\"alloc\": \"salloc\", \"immediate\": true, "
         "\"hold\": true}}",
         "Unable to allocate resources: JobHeldUser"},
        {"{\"job\": {\"alloc\": \"salloc\", \"immediate\": 1}}",
         "job immediate: expected true or false"},
    };
    struct fx *f = *state;
    size_t before = jobs_count(f->c->jobs);

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *body = json_loads(cases[i].spec, 0, NULL), *reply = NULL;
        struct proto_frame fr = {.type = PROTO_MSG_SUBMIT, .body = body};
        struct rpc r = {.env = env_of(f), .req = &fr, .who = alice};
        struct err e;
        assert_non_null(body);
        assert_int_equal(rpc_submit(&r, &reply, &e), -1);
        assert_int_equal(errno, i < 2 ? EAGAIN : EINVAL);
        assert_string_equal(e.text, cases[i].want);
        json_decref(body);
        loop_flush(f->c->loop);
    }
    assert_int_equal(jobs_count(f->c->jobs), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_start_without_launch, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_specs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_complete_waits_for_steps, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cancel_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_srun_step0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preempted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_immediate_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
