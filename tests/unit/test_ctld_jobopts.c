/*
 * The job options of issue 16 in the controller, in process: SUBMIT
 * checks them (naming the key; Slurm's "Invalid feature specification"),
 * the JOB object echoes them and its record restores them, --exclusive
 * takes whole nodes (ALLOCATED), --deadline ends a pending job DEADLINE,
 * --priority and --uid are for operators and root, --ntasks-per-gpu sets
 * the tasks, and NODE objects carry features, weight, TmpDisk and shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ctld/cluster/nodes.h"
#include "ctld/ctld.h"
#include "ctld/job/job.h"
#include "ctld/queue/jobs.h"
#include "ctld_inproc.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "DefMemPerCPU=100\n"
    "DefMemPerGPU=1000\n"
    "NodeName=node[01-02] CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 "
    "RealMemory=8000 Gres=gpu:4 Features=a100,ib TmpDisk=100000 Weight=10\n"
    "NodeName=node03 CPUs=8 RealMemory=8000 Features=ib\n"
    "PartitionName=batch Nodes=node[01-03] Default=YES MaxTime=72:00:00 "
    "DefaultTime=1:00:00\n";

static const struct auth_id alice = {1001, 1001};
static const struct auth_id root = {0, 0};

static int setup(void **state)
{
    return fx_setup_conf(state, conf_fmt);
}

static int teardown(void **state)
{
    return fx_close(*state);
}

#define SPEC(extra) "{\"script\": \"#!/bin/sh\\ntrue\", " extra "}"

static void test_validation(void **state)
{
    static const struct fx_submit_case cases[] = {
        /* error NULL: accepted */
        {SPEC("\"constraint\": \"a100&ib\""), NULL},
        {SPEC("\"constraint\": \"h100\""),
         "Invalid feature specification: no node of partition batch matches "
         "constraint \"h100\""},
        {SPEC("\"constraint\": \"a100&(ib\""),
         "Invalid feature specification: expected ')'"},
        {SPEC("\"constraint\": \"a100*3\", \"nodes\": 3"),
         "no 3 nodes of partition batch together satisfy constraint"},
        {SPEC("\"constraint\": \"a100*2\""),
         "constraint \"a100*2\" needs 2 nodes but the job asks for 1"},
        {SPEC("\"constraint\": \"[a100|ib]\", \"nodes\": 3"), NULL},
        {SPEC("\"constraint\": 7"), "job constraint: expected a string"},
        {SPEC("\"tmp_mib\": 50000"), NULL},
        {SPEC("\"tmp_mib\": 200000"),
         "Requested node configuration is not available: no node of "
         "partition batch has what the job asks for (TmpDisk=100000 < "
         "tmp_mib 200000)"},
        {SPEC("\"tmp_mib\": 50000, \"nodes\": 3"),
         "requested 3 nodes but partition batch has 2"},
        {SPEC("\"mincpus\": 16"), "CPUs=8 < mincpus 16"},
        {SPEC("\"sockets_per_node\": 16"), "Sockets=2 < sockets_per_node 16"},
        {SPEC("\"threads_per_core\": 2"), "ThreadsPerCore=1 <"},
        {SPEC("\"exclusive\": \"node\""), NULL},
        {SPEC("\"exclusive\": true"), NULL},
        {SPEC("\"exclusive\": \"rack\""),
         "job exclusive: expected \"node\", \"user\" or \"mcs\""},
        {SPEC("\"oversubscribe\": \"yes\""),
         "job oversubscribe: expected true or false"},
        {SPEC("\"time_limit_s\": 600, \"time_min_s\": 1200"),
         "job time_min_s 00:20:00 exceeds its time limit 00:10:00"},
        {SPEC("\"time_min_s\": 0"), "job time_min_s: 0 is out of range"},
        {SPEC("\"deadline\": 1000"), "job deadline: 1000 has already passed"},
        {SPEC("\"gres_flags\": \"bind\""),
         "job gres_flags \"bind\": expected \"enforce-binding\""},
        {SPEC("\"gres_flags\": \"enforce-binding\""), NULL},
        {SPEC("\"priority\": 5"),
         "Access/permission denied: only an operator or administrator may "
         "set --priority"},
        {SPEC("\"uid\": 0"), "only root or SlurmUser may submit with --uid"},
        {SPEC("\"ntasks_per_gpu\": 2"),
         "job ntasks_per_gpu: the job asks for no GPUs"},
        {SPEC("\"comment\": 1"), "job comment: expected a string"},
        {SPEC("\"mincpus\": -1"), "job mincpus: -1 is out of range"},
    };
    struct fx *f = *state;

    fx_submit_cases(f, cases, sizeof(cases) / sizeof(cases[0]), &alice);
}

static const char all_opts[] = SPEC(
    "\"comment\": \"hello world\", \"wckey\": \"submitit\", "
    "\"constraint\": \"a100\", \"time_limit_s\": 3600, \"time_min_s\": 600, "
    "\"tmp_mib\": 1024, \"mincpus\": 2, \"exclusive\": \"user\", "
    "\"oversubscribe\": true, \"sockets_per_node\": 1, "
    "\"cores_per_socket\": 2, \"threads_per_core\": 1, "
    "\"gres\": \"gpu:2\", \"ntasks_per_gpu\": 3, "
    "\"gres_flags\": \"enforce-binding\", \"gpu_bind\": \"closest\", "
    "\"cpu_bind\": \"cores\", \"hint\": \"nomultithread\", "
    "\"distribution\": \"block:cyclic\", \"spread_job\": true, "
    "\"use_min_nodes\": true, \"deadline\": 4000000000");

/* Every option is echoed as given, and a record restores it. */
static void test_echo_and_record(void **state)
{
    static const char *const keys[] = {"comment",          "wckey",
                                       "constraint",       "time_min_s",
                                       "tmp_mib",          "mincpus",
                                       "exclusive",        "oversubscribe",
                                       "sockets_per_node", "cores_per_socket",
                                       "threads_per_core", "ntasks_per_gpu",
                                       "gres_flags",       "gpu_bind",
                                       "cpu_bind",         "hint",
                                       "distribution",     "spread_job",
                                       "use_min_nodes",    "deadline"};
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, all_opts, &alice, &e);
    struct job *j, *back;
    json_t *o, *rec, *o2;

    if (id == 0)
        fail_msg("refused: %s", e.text);
    j = fx_job(f, id);
    assert_int_equal(j->ntasks, 6); /* 2 GPUs x 3 */
    assert_true(j->ntasks_set);
    o = job_to_json(j, f->conf, false);
    assert_string_equal(json_string_value(json_object_get(o, "comment")),
                        "hello world");
    assert_string_equal(json_string_value(json_object_get(o, "exclusive")),
                        "user");
    assert_int_equal(json_integer_value(json_object_get(o, "time_min_s")), 600);
    assert_int_equal(json_integer_value(json_object_get(o, "deadline")),
                     4000000000LL);
    assert_true(json_is_true(json_object_get(o, "oversubscribe")));
    rec = job_to_json(j, f->conf, true);
    back = job_from_json(rec, f->conf, &e);
    assert_non_null(back);
    o2 = job_to_json(back, f->conf, false);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (json_object_get(o, keys[i]) == NULL)
            fail_msg("%s not echoed", keys[i]);
        if (!json_equal(json_object_get(o, keys[i]),
                        json_object_get(o2, keys[i])))
            fail_msg("%s not restored", keys[i]);
    }
    /* not given: absent */
    o = (json_decref(o),
         job_to_json(fx_job(f, fx_submit(f, SPEC("\"nice\": 0"), &alice, &e)),
                     f->conf, false));
    assert_null(json_object_get(o, "comment"));
    assert_null(json_object_get(o, "exclusive"));
    json_decref(o);
    json_decref(o2);
    json_decref(rec);
    job_free(back);
}

/* --exclusive: the job holds all CPUs and memory of its node, which
 * shows ALLOCATED; the node object tells its features and shape. */
static void test_exclusive_node(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, SPEC("\"exclusive\": \"node\""), &alice, &e);
    const size_t n0 = 0;
    struct node *nd = nodes_get(f->c->nodes, 0);
    struct job *j = fx_job(f, id);
    json_t *o;

    nd->registered = true;
    assert_int_equal(jobs_start(f->c->jobs, j, &n0, 1, time(NULL), &e), 0);
    assert_int_equal(j->cpus_per_node, 8);
    assert_int_equal(job_mem_per_node(j), 8000);
    assert_int_equal(nd->cpus_alloc, 8);
    assert_string_equal(node_state_name(nd), "ALLOCATED");
    o = node_to_json(f->c->nodes, nd, json_array());
    assert_string_equal(json_string_value(json_object_get(o, "features")),
                        "a100,ib");
    assert_string_equal(
        json_string_value(json_object_get(o, "active_features")), "a100,ib");
    assert_int_equal(json_integer_value(json_object_get(o, "weight")), 10);
    assert_int_equal(json_integer_value(json_object_get(o, "tmp_disk_mib")),
                     100000);
    assert_int_equal(json_integer_value(json_object_get(o, "sockets")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "cores_per_socket")),
                     4);
    assert_int_equal(json_integer_value(json_object_get(o, "threads_per_core")),
                     1);
    assert_int_equal(json_integer_value(json_object_get(o, "boards")), 1);
    json_decref(o);
}

/* --exclusive=user (and mcs) hold the node to the user, as ExclusiveUser
 * does; --exclusive holds it whole; both are given back at the end. */
static void test_exclusive_user_marks(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t u = fx_submit(f, SPEC("\"exclusive\": \"user\""), &alice, &e);
    uint64_t m = fx_submit(f, SPEC("\"exclusive\": \"mcs\""), &alice, &e);
    const size_t n1 = 1;
    struct node *nd = nodes_get(f->c->nodes, 1);

    nd->registered = true;
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, u), &n1, 1, time(NULL), &e), 0);
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, m), &n1, 1, time(NULL), &e), 0);
    assert_int_equal(nd->n_users, 1);
    assert_int_equal(nd->users[0].exclusive, 2);
    assert_int_equal(nd->users[0].whole, 0);
    assert_int_equal(fx_job(f, u)->cpus_per_node, 1); /* not the whole */
    assert_string_equal(node_state_name(nd), "MIXED");
    assert_int_equal(jobs_cancel(f->c->jobs, fx_job(f, u), 0, 0, &e), 0);
}

/* A pending job that can no longer end by its deadline ends DEADLINE. */
static void test_deadline(void **state)
{
    struct fx *f = *state;
    struct err e;
    char spec[256];
    time_t now = time(NULL);
    uint64_t id, ok;

    snprintf(spec, sizeof(spec),
             SPEC("\"time_limit_s\": 3600, \"deadline\": %lld"),
             (long long)now + 1800);
    id = fx_submit(f, spec, &alice, &e);
    snprintf(spec, sizeof(spec),
             SPEC("\"time_limit_s\": 3600, \"time_min_s\": 600, "
                  "\"deadline\": %lld"),
             (long long)now + 1800);
    ok = fx_submit(f, spec, &alice, &e);
    assert_int_not_equal(id, 0);
    assert_int_not_equal(ok, 0);
    jobs_tick(f->c->jobs, now);
    loop_flush(f->c->loop);
    assert_int_equal(fx_job(f, id)->state, JOB_DEADLINE);
    assert_string_equal(job_reason(fx_job(f, id)), "DeadLine");
    assert_string_equal(job_state_name(JOB_DEADLINE), "DEADLINE");
    assert_true(job_state_final(JOB_DEADLINE));
    /* time-min 10 minutes still fits before the deadline */
    assert_int_equal(fx_job(f, ok)->state, JOB_PENDING);
    jobs_tick(f->c->jobs, now + 1300);
    assert_int_equal(fx_job(f, ok)->state, JOB_DEADLINE);
}

/* --priority (operators) is fixed; --uid (root) submits as that user. */
static void test_priority_and_uid(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f,
                            SPEC("\"priority\": 777, \"uid\": 1001, "
                                 "\"gid\": 1001"),
                            &root, &e);
    struct job *j;

    if (id == 0)
        fail_msg("refused: %s", e.text);
    j = fx_job(f, id);
    assert_true(j->prio_fixed);
    assert_int_equal(j->priority, 777);
    assert_int_equal(j->user_id, 1001);
    assert_int_equal(j->group_id, 1001);
    id = fx_submit(f, SPEC("\"priority\": \"TOP\""), &root, &e);
    assert_int_not_equal(id, 0);
    assert_int_equal(fx_job(f, id)->priority, UINT32_MAX - 1);
}

/* DefMemPerGPU for a job with GPUs, else DefMemPerCPU (Slurm's rule). */
static void test_mem_defaults(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t g = fx_submit(f, SPEC("\"gres\": \"gpu:2\""), &alice, &e);
    uint64_t c = fx_submit(f, SPEC("\"cpus_per_task\": 2"), &alice, &e);
    uint64_t m =
        fx_submit(f, SPEC("\"gres\": \"gpu:1\", \"mem_mib\": 50"), &alice, &e);

    assert_int_equal(job_mem_per_node(fx_job(f, g)), 2000);
    assert_int_equal(job_mem_per_node(fx_job(f, c)), 200);
    assert_int_equal(job_mem_per_node(fx_job(f, m)), 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_echo_and_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exclusive_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exclusive_user_marks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_priority_and_uid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mem_defaults, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
