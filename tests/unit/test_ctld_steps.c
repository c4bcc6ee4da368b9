/*
 * Job steps in sluicectld as a process on loopback (ctld_harness.h), with
 * two fake node daemons: STEP_CREATE laid out over a 2-node job and sent
 * to both nodes, busy and impossible requests, STEP_USAGE and STEP_END
 * folded into one state and one usage, STEP_CANCEL, a refused launch, the
 * batch step at the job's end, JOB_ACCT's steps, and all of it again
 * after a restart.
 */
#include "ctld_harness.h"

static json_t *usage(int rss, int cpu_us)
{
    return json_pack("{s:[{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}]}", "tasks",
                     "task", 0, "rss_kib", rss, "vmsize_kib", 2 * rss,
                     "user_cpu_us", cpu_us, "sys_cpu_us", 10, "pages", 1,
                     "read_bytes", 100, "write_bytes", 200);
}

/* The step's STEP object from STEP_QUERY (new reference), or NULL. */
static json_t *query_step(struct fx *f, uint64_t job, uint32_t step)
{
    struct err e;
    int code;
    json_t *r = req(f, PROTO_MSG_STEP_QUERY,
                    json_pack("{s:[I], s:I}", "job_ids", (json_int_t)job,
                              "step_id", (json_int_t)step),
                    &code, &e);
    json_t *s;

    if (r == NULL)
        fail_msg("STEP_QUERY: %s", e.text);
    s = json_incref(json_array_get(json_object_get(r, "steps"), 0));
    json_decref(r);
    return s;
}

static void assert_step(struct fx *f, uint64_t job, uint32_t step,
                        const char *key, const char *want)
{
    json_t *s = query_step(f, job, step);
    json_t *v = json_object_get(s, key);
    char *got = json_is_string(v) ? strdup(json_string_value(v))
                                  : json_dumps(v, JSON_ENCODE_ANY);

    if (got == NULL || strcmp(got, want) != 0)
        fail_msg("step %llu.%u %s: got %s, want %s", (unsigned long long)job,
                 step, key, got ? got : "(none)", want);
    free(got);
    json_decref(s);
}

/* A 2-node job running on n1 and n2; its id. */
static uint64_t two_node_job(struct fx *f, struct peer *n1)
{
    uint64_t id = submit(f, ", \"nodes\": 2, \"ntasks\": 8");
    json_t *l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);

    assert_non_null(l);
    assert_int_equal(launched_id(l), id);
    json_decref(l);
    assert_job(f, id, "job_state", "RUNNING");
    return id;
}

static void test_create_launch_end(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = two_node_job(f, n1);
    json_t *r, *l1, *l2, *st, *u;
    struct err e;
    int code;

    r = create(f, id, "\"ntasks\": 8", &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE: %s", e.text);
    assert_int_equal(json_integer_value(json_object_get(r, "step_id")), 0);
    assert_string_equal(json_string_value(json_object_get(r, "node_list")),
                        "node[01-02]");
    assert_string_equal(json_string_value(json_object_get(r, "tasks_per_node")),
                        "4(x2)");
    assert_int_equal(strlen(json_string_value(json_object_get(r, "key"))), 64);
    l1 = peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL);
    l2 = peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL);
    assert_non_null(l1);
    assert_non_null(l2);
    st = json_object_get(l2, "step");
    assert_int_equal(json_integer_value(json_object_get(st, "node_id")), 1);
    assert_string_equal(json_string_value(json_object_get(st, "key")),
                        json_string_value(json_object_get(r, "key")));
    assert_int_equal(
        json_integer_value(json_array_get(json_object_get(st, "tasks"), 0)), 4);
    assert_int_equal(json_integer_value(json_object_get(st, "cpus")), 4);
    json_decref(l1);
    json_decref(l2);
    json_decref(r);

    /* the first step holds every CPU of the job: a second waits */
    assert_null(create(f, id, "\"ntasks\": 1", &code, &e));
    assert_int_equal(code, EAGAIN);
    assert_string_equal(e.text, "Requested nodes are busy");
    /* more nodes than the job has never fits */
    assert_null(create(f, id, "\"nodes_min\": 3", &code, &e));
    assert_int_equal(code, EINVAL);
    assert_string_equal(e.text, "Only allocated 2 nodes asked for 3");
    assert_null(create(f, id, "\"nodelist\": \"node03\"", &code, &e));
    assert_int_equal(code, EINVAL);
    assert_string_equal(e.text,
                        "node03 is not in the job's allocation (node[01-02])");
    assert_null(create(f, id, "\"distribution\": \"plane\"", &code, &e));
    assert_string_equal(e.text, "STEP_CREATE: distribution \"plane\" is not "
                                "block or cyclic");
    assert_null(create(f, 999, NULL, &code, &e));
    assert_int_equal(code, ENOENT);
    assert_string_equal(e.text, "Invalid job id specified");
    {
        /* the first job holds every CPU: this one waits */
        uint64_t pend = submit(f, NULL);
        char want[64];
        assert_job(f, pend, "job_state", "PENDING");
        assert_null(create(f, pend, NULL, &code, &e));
        assert_int_equal(code, EBUSY);
        snprintf(want, sizeof(want), "Job %llu is not running (state PENDING)",
                 (unsigned long long)pend);
        assert_string_equal(e.text, want);
        json_decref(req(f, PROTO_MSG_JOB_CANCEL,
                        json_pack("{s:[I]}", "job_ids", (json_int_t)pend),
                        &code, &e));
    }

    /* samples while it runs, then the end of each node */
    assert_int_equal(
        report(n2, PROTO_MSG_STEP_USAGE,
               json_pack("{s:s, s:[{s:I, s:i, s:o}]}", "node", "node02",
                         "steps", "job_id", (json_int_t)id, "step_id", 0,
                         "usage", usage(5000, 100))),
        0);
    st = query_step(f, id, 0);
    u = json_object_get(st, "usage");
    assert_string_equal(json_string_value(json_object_get(st, "state")),
                        "RUNNING");
    assert_int_equal(json_integer_value(json_object_get(u, "max_rss_kib")),
                     5000);
    assert_string_equal(json_string_value(json_object_get(u, "max_rss_node")),
                        "node02");
    json_decref(st);
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 0, usage(7000, 50)), 0);
    assert_step(f, id, 0, "state", "RUNNING"); /* node02 still runs it */
    assert_int_equal(step_end(n2, "node02", id, 0, 3, 0, usage(6000, 90)), 0);
    assert_step(f, id, 0, "state", "FAILED");
    assert_step(f, id, 0, "exit_code", "3");
    st = query_step(f, id, 0);
    u = json_object_get(st, "usage");
    assert_int_equal(json_integer_value(json_object_get(u, "max_rss_kib")),
                     7000);
    assert_string_equal(json_string_value(json_object_get(u, "max_rss_node")),
                        "node01");
    assert_int_equal(json_integer_value(json_object_get(u, "ave_rss_kib")),
                     6500);
    assert_int_equal(json_integer_value(json_object_get(u, "min_cpu_us")), 60);
    assert_string_equal(json_string_value(json_object_get(u, "min_cpu_node")),
                        "node01");
    assert_int_equal(json_integer_value(json_object_get(u, "total_cpu_us")),
                     160);
    json_decref(st);
    /* repeated: acknowledged; unknown: ENOENT so that the node forgets */
    assert_int_equal(step_end(n2, "node02", id, 0, 3, 0, NULL), 0);
    assert_int_equal(step_end(n2, "node02", id, 7, 0, 0, NULL), ENOENT);

    /* what it held is free again */
    r = create(f, id, "\"ntasks\": 2, \"nodes_max\": 1", &code, &e);
    if (r == NULL)
        fail_msg("second STEP_CREATE: %s", e.text);
    assert_int_equal(json_integer_value(json_object_get(r, "step_id")), 1);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    peer_close(n1);
    peer_close(n2);
}

static void test_cancel_launch_fail_job_end(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = two_node_job(f, n1);
    json_t *r, *k, *a, *steps;
    struct err e;
    int code;

    /* STEP_CANCEL: STEP_KILL to both nodes, CANCELLED once they report */
    r = create(f, id, "\"ntasks\": 2", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    r = req(f, PROTO_MSG_STEP_CANCEL,
            json_pack("{s:I, s:i, s:i}", "job_id", (json_int_t)id, "step_id", 0,
                      "signal", 0),
            &code, &e);
    assert_non_null(r);
    json_decref(r);
    k = peer_expect(n2, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "cancelled");
    json_decref(k);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL));
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 15, NULL), 0);
    assert_int_equal(step_end(n2, "node02", id, 0, 0, 15, NULL), 0);
    assert_step(f, id, 0, "state", "CANCELLED");
    assert_null(
        req(f, PROTO_MSG_STEP_CANCEL,
            json_pack("{s:I, s:i}", "job_id", (json_int_t)id, "step_id", 0),
            &code, &e));
    assert_string_equal(e.text, "Invalid step id specified");

    /* a node that refuses the launch fails the step, killed elsewhere */
    r = create(f, id, "\"ntasks\": 2", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000,
                            "user u (uid 1001) is unknown on node02"));
    k = peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "launch_failed");
    json_decref(k);
    assert_step(f, id, 1, "state", "FAILED");
    assert_step(f, id, 1, "reason",
                "launch failed on node02: user u (uid 1001) is unknown on "
                "node02");

    /* the job ends: JOB_KILL on both nodes when cancelled; the batch step
     * takes JOB_END's usage, a running step ends CANCELLED */
    r = create(f, id, "\"ntasks\": 1", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    r = req(f, PROTO_MSG_JOB_CANCEL,
            json_pack("{s:[I]}", "job_ids", (json_int_t)id), &code, &e);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_JOB_KILL, 5000, NULL));
    k = peer_expect(n2, PROTO_MSG_JOB_KILL, 5000, NULL);
    assert_non_null(k);
    json_decref(k);
    assert_int_equal(
        report(n1, PROTO_MSG_JOB_END,
               json_pack("{s:I, s:s, s:i, s:i, s:I, s:o}", "job_id",
                         (json_int_t)id, "node", "node01", "exit_code", 0,
                         "signal", 15, "end_time", (json_int_t)time(NULL),
                         "usage", usage(3000, 20))),
        0);
    assert_job(f, id, "job_state", "CANCELLED");
    assert_step(f, id, 2, "state", "CANCELLED");
    assert_step(f, id, 2, "reason", "job ended: CANCELLED");
    assert_step(f, id, STEP_BATCH_ID, "state", "CANCELLED");
    {
        char want[32];
        snprintf(want, sizeof(want), "%llu.batch", (unsigned long long)id);
        assert_step(f, id, STEP_BATCH_ID, "id", want);
    }
    /* a node that still samples it is told again to kill it, as for a
     * step the controller does not know */
    json_decref(peer_expect(n1, PROTO_MSG_STEP_KILL, 2000, NULL));
    assert_int_equal(
        report(n1, PROTO_MSG_STEP_USAGE,
               json_pack("{s:s, s:[{s:I, s:i, s:o}, {s:I, s:i, "
                         "s:o}]}",
                         "node", "node01", "steps", "job_id", (json_int_t)id,
                         "step_id", 2, "usage", usage(1, 1), "job_id",
                         (json_int_t)id, "step_id", 7, "usage", usage(1, 1))),
        0);
    k = peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_int_equal(json_integer_value(json_object_get(k, "step_id")), 2);
    json_decref(k);
    k = peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_int_equal(json_integer_value(json_object_get(k, "step_id")), 7);
    json_decref(k);
    /* its late end still fills in the exit code */
    assert_int_equal(step_end(n1, "node01", id, 2, 0, 9, NULL), 0);
    assert_step(f, id, 2, "signal", "9");

    /* JOB_ACCT: the batch step first, then by id; the same after a
     * restart, from the database */
    for (int round = 0; round < 2; round++) {
        r = req(f, PROTO_MSG_JOB_ACCT,
                json_pack("{s:[I]}", "job_ids", (json_int_t)id), &code, &e);
        if (r == NULL)
            fail_msg("JOB_ACCT: %s", e.text);
        a = json_array_get(json_object_get(r, "jobs"), 0);
        steps = json_object_get(a, "steps");
        assert_int_equal(json_array_size(steps), 4);
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(steps, 0), "name")),
                            "batch");
        assert_int_equal(json_integer_value(json_object_get(
                             json_object_get(json_array_get(steps, 0), "usage"),
                             "max_rss_kib")),
                         3000);
        assert_int_equal(json_integer_value(json_object_get(
                             json_array_get(steps, 3), "step_id")),
                         2);
        json_decref(r);
        if (round == 0) {
            stop(f, SIGTERM);
            spawn(f);
        }
    }
    peer_close(n1);
    peer_close(n2);
}

/* A step's own time limit, srun -K, and a job whose script ends while
 * a step still runs. */
static void test_limit_bad_exit_job_end(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = two_node_job(f, n1);
    json_t *r, *k;
    struct err e;
    int code;

    r = create(f, id, "\"ntasks\": 2, \"time_limit_s\": 1", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    k = peer_expect(n2, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "timeout");
    json_decref(k);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL));
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 15, NULL), 0);
    assert_int_equal(step_end(n2, "node02", id, 0, 0, 15, NULL), 0);
    assert_step(f, id, 0, "state", "TIMEOUT");

    /* -K: node02's failure ends the step on node01 too, FAILED */
    r = create(f, id, "\"ntasks\": 2, \"kill_on_bad_exit\": true", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    assert_int_equal(step_end(n2, "node02", id, 1, 2, 0, NULL), 0);
    k = peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    json_decref(k);
    assert_int_equal(step_end(n1, "node01", id, 1, 0, 15, NULL), 0);
    assert_step(f, id, 1, "state", "FAILED");
    assert_step(f, id, 1, "exit_code", "2");

    /* the batch script ends first: its steps are killed everywhere */
    r = create(f, id, "\"ntasks\": 2", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    job_end(n1, "node01", id, 0, 0);
    assert_job(f, id, "job_state", "COMPLETED");
    k = peer_expect(n2, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    json_decref(k);
    assert_step(f, id, 2, "state", "CANCELLED");
    assert_step(f, id, STEP_BATCH_ID, "state", "COMPLETED");
    /* ... unless its nodes report that it had ended by itself: its
     * tasks ended before the script, their reports came after */
    assert_int_equal(step_end(n1, "node01", id, 2, 0, 0, NULL), 0);
    assert_step(f, id, 2, "state", "CANCELLED");
    assert_int_equal(step_end(n2, "node02", id, 2, 0, 0, NULL), 0);
    assert_step(f, id, 2, "state", "COMPLETED");
    assert_step(f, id, 2, "reason", "");
    peer_close(n1);
    peer_close(n2);
}

/* --no-kill: node02 goes DOWN under a 2-node --no-kill job.  Its plain
 * step ends NODE_FAIL (killed on node01), its srun -k step goes on on
 * node01 with node02 lost and ends NODE_FAIL when node01 reports; the
 * job keeps node01 and runs on. */
static void test_no_kill(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = submit(f, ", \"nodes\": 2, \"ntasks\": 8, \"no_kill\": true");
    json_t *l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL), *r, *k;
    struct err e;
    int code;

    assert_non_null(l);
    json_decref(l);
    r = create(f, id, "\"ntasks\": 2, \"no_kill\": true", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    r = create(f, id, "\"ntasks\": 2, \"overlap\": true", &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE: %s", e.text);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));

    r = req(f, PROTO_MSG_NODE_UPDATE,
            json_pack("{s:[s], s:s, s:s}", "nodes", "node02", "state", "DOWN",
                      "reason", "test"),
            &code, &e);
    if (r == NULL)
        fail_msg("NODE_UPDATE: %s", e.text);
    json_decref(r);
    k = peer_expect(n1, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_int_equal(json_integer_value(json_object_get(k, "step_id")), 1);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "node_fail");
    json_decref(k);
    assert_step(f, id, 1, "state", "NODE_FAIL");
    assert_step(f, id, 1, "reason", "node node02 failed");
    assert_step(f, id, 0, "state", "RUNNING");
    assert_step(f, id, 0, "lost_nodes", "node02");
    assert_job(f, id, "job_state", "RUNNING");
    assert_job(f, id, "node_list", "node01");

    assert_int_equal(step_end(n1, "node01", id, 0, 0, 0, NULL), 0);
    assert_step(f, id, 0, "state", "NODE_FAIL");
    assert_step(f, id, 0, "reason", "node node02 failed");
    job_end(n1, "node01", id, 0, 0);
    assert_job(f, id, "job_state", "COMPLETED");
    peer_close(n1);
    peer_close(n2);
}

/* A running step survives a restart of the controller: it still holds
 * its CPUs, its nodes' ends still count, and ids go on. */
static void test_restart_running_step(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = two_node_job(f, n1);
    json_t *r, *jobs;
    struct err e;
    int code;

    r = create(f, id, "\"ntasks\": 2, \"exact\": true", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    peer_close(n1);
    peer_close(n2);
    stop(f, SIGTERM);
    spawn(f);
    jobs =
        json_pack("[{s:I, s:s}]", "job_id", (json_int_t)id, "state", "running");
    n1 = node_up(f, "node01", 4, jobs, NULL);
    n2 = node_up(
        f, "node02", 4,
        json_pack("[{s:I, s:s}]", "job_id", (json_int_t)id, "state", "running"),
        &r);
    /* node02 runs only the job's step: not killed */
    assert_int_equal(json_array_size(json_object_get(r, "kill_jobs")), 0);
    json_decref(r);
    assert_step(f, id, 0, "state", "RUNNING");
    /* --exact held one CPU per node: 3 are left on each */
    assert_null(create(f, id,
                       "\"ntasks\": 2, \"cpus_per_task\": 4, "
                       "\"exact\": true",
                       &code, &e));
    assert_int_equal(code, EAGAIN);
    r = create(f, id, "\"ntasks\": 2, \"cpus_per_task\": 3, \"exact\": true",
               &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE after restart: %s", e.text);
    assert_int_equal(json_integer_value(json_object_get(r, "step_id")), 1);
    json_decref(r);
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 0, NULL), 0);
    assert_int_equal(step_end(n2, "node02", id, 0, 0, 0, NULL), 0);
    assert_step(f, id, 0, "state", "COMPLETED");
    peer_close(n1);
    peer_close(n2);
}

/* sbatch -N 2 --ntasks-per-node=4: 2 nodes with 4 CPUs each, and the
 * job's tasks in its launch for its environment. */
static void test_ntasks_per_node(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = submit(f, ", \"nodes\": 2, \"ntasks_per_node\": 4");
    json_t *l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    json_t *job = json_object_get(l, "job");

    assert_non_null(l);
    assert_int_equal(json_integer_value(json_object_get(job, "ntasks")), 8);
    assert_int_equal(
        json_integer_value(json_object_get(job, "ntasks_per_node")), 4);
    assert_int_equal(json_integer_value(json_object_get(job, "num_nodes")), 2);
    assert_int_equal(json_integer_value(json_object_get(job, "cpus")), 4);
    assert_string_equal(
        json_string_value(json_object_get(job, "tasks_per_node")), "4(x2)");
    assert_null(json_object_get(job, "cpus_per_task")); /* -c not given */
    json_decref(l);
    assert_job(f, id, "cpus", "8");
    assert_job(f, id, "node_list", "node[01-02]");
    peer_close(n1);
    peer_close(n2);
}

/* A run lost with its batch host, which is back (it reports the job
 * lost with the machine: a spool of an earlier boot): the job waits
 * again, its batch step and its step there end NODE_FAIL, and the step
 * is killed on the job's other node. */
static void test_run_lost_with_node(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    uint64_t id = two_node_job(f, n1);
    json_t *r, *jobs, *k;
    struct err e;
    int code;

    r = create(f, id, "\"ntasks\": 8", &code, &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    json_decref(peer_expect(n2, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    /* drained, so that the requeued job stays pending for the look */
    json_decref(req(f, PROTO_MSG_NODE_UPDATE,
                    json_pack("{s:[s, s], s:s, s:s}", "nodes", "node01",
                              "node02", "state", "DRAIN", "reason", "look"),
                    &code, &e));
    peer_close(n1);
    jobs = json_pack("[{s:I, s:s, s:i, s:i, s:b}]", "job_id", (json_int_t)id,
                     "state", "ended", "exit_code", 0, "signal", 9, "node_lost",
                     1);
    n1 = node_up(f, "node01", 4, jobs, NULL);
    assert_job(f, id, "job_state", "PENDING");
    assert_job(f, id, "restart_count", "1");
    assert_step(f, id, STEP_BATCH_ID, "state", "NODE_FAIL");
    assert_step(f, id, 0, "state", "NODE_FAIL");
    k = peer_expect(n2, PROTO_MSG_STEP_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "node_fail");
    json_decref(k);
    peer_close(n1);
    peer_close(n2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_launch_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cancel_launch_fail_job_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_limit_bad_exit_job_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_running_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ntasks_per_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_kill, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_lost_with_node, setup,
                                        teardown),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
