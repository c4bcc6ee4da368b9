/*
 * sluicectld's nodes as a process on loopback (ctld_harness.h):
 * reconciliation after a controller restart, launches the node never
 * confirmed, INVALID nodes, SlurmdTimeout
 * and heartbeats, admin DRAIN/RESUME across a restart, and query paging.
 */
#include "ctld_harness.h"

/* ---- tests ------------------------------------------------------------ */

static void test_restart_and_reconcile(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t a = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    uint64_t b = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": "
                           "\"node01\", \"requeue\": false");
    uint64_t c = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    json_t *reply, *jobs, *r;
    char *st;

    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    peer_close(n1);
    stop(f, SIGKILL);
    spawn(f);
    assert_job(f, a, "job_state", "RUNNING");
    assert_job(f, b, "job_state", "PENDING");
    /* the node comes back running a, plus a job we never gave it */
    jobs = json_pack("[{s:I, s:s}, {s:i, s:s}]", "job_id", (json_int_t)a,
                     "state", "running", "job_id", 999, "state", "running");
    n1 = node_up(f, "node01", 4, jobs, &reply);
    assert_int_equal(json_integer_value(json_array_get(
                         json_object_get(reply, "kill_jobs"), 0)),
                     999);
    json_decref(reply);
    assert_job(f, a, "job_state", "RUNNING");
    peer_close(n1);
    /* ... and again with a reported as ended */
    jobs = json_pack("[{s:I, s:s, s:i, s:i}]", "job_id", (json_int_t)a, "state",
                     "ended", "exit_code", 0, "signal", 0);
    n1 = node_up(f, "node01", 4, jobs, NULL);
    assert_job(f, a, "job_state", "COMPLETED");
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    assert_job(f, b, "job_state", "RUNNING");
    peer_close(n1);
    /* ... and without b: NODE_FAIL (it may not be requeued) */
    n1 = node_up(f, "node01", 4, NULL, NULL);
    assert_job(f, b, "job_state", "NODE_FAIL");
    /* c runs next; the node comes back without it: it is requeued and,
     * the node vouching that nothing of it is left, launched again */
    r = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    assert_int_equal(launched_id(r), c);
    json_decref(r);
    peer_close(n1);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    r = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    assert_int_equal(launched_id(r), c);
    json_decref(r);
    assert_job(f, c, "restart_count", "1");
    peer_close(n1);
    /* ... and again, its run listed as ended by the machine's going down
     * (a spool of an earlier boot): lost, not FAILED; launched again */
    jobs = json_pack("[{s:I, s:s, s:i, s:i, s:b}]", "job_id", (json_int_t)c,
                     "state", "ended", "exit_code", 0, "signal", 9, "node_lost",
                     1);
    n1 = node_up(f, "node01", 4, jobs, NULL);
    r = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    assert_int_equal(launched_id(r), c);
    json_decref(r);
    assert_job(f, c, "restart_count", "2");
    job_end(n1, "node01", c, 0, 0);
    assert_job(f, c, "job_state", "COMPLETED");
    st = node_field(f, "node01", "state");
    assert_string_equal(st, "IDLE");
    free(st);
    peer_close(n1);
}

/* The next frame, a JOB_LAUNCH left unanswered (the node never got it):
 * its job id. */
static uint64_t launch_lost(struct peer *p)
{
    struct proto_frame fr;
    uint64_t id;

    assert_int_equal(peer_recv(p, &fr, 5000), 1);
    assert_int_equal(fr.type, PROTO_MSG_JOB_LAUNCH);
    id = launched_id(fr.body);
    proto_frame_clear(&fr);
    return id;
}

/* A job whose launch the node never confirmed, and which the node does
 * not list when it registers again, never ran: it waits again (after a
 * lost connection or a controller crash), or ends CANCELLED when it was
 * cancelled meanwhile.  A confirmed one still ends NODE_FAIL. */
static void test_unconfirmed_launch(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t a = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    json_t *r;
    struct err e;
    uint64_t b;

    assert_int_equal(launch_lost(n1), a);
    assert_job(f, a, "job_state", "RUNNING");
    peer_close(n1);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    /* a goes back to the queue and is launched again at once */
    assert_int_equal(launch_lost(n1), a);
    assert_job(f, a, "job_state", "RUNNING");
    /* the controller dies between committing the start and sending it */
    peer_close(n1);
    stop(f, SIGKILL);
    spawn(f);
    assert_job(f, a, "job_state", "RUNNING");
    n1 = node_up(f, "node01", 4, NULL, NULL);
    r = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    assert_int_equal(launched_id(r), a);
    json_decref(r);
    assert_job(f, a, "restart_count", "0");
    /* confirmed now: a node that comes back without it fails it */
    job_end(n1, "node01", a, 0, 0);
    assert_job(f, a, "job_state", "COMPLETED");
    b = submit(f, ", \"nodelist\": \"node01\"");
    assert_int_equal(launch_lost(n1), b);
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[I]}", "job_ids", (json_int_t)b), &e);
    assert_non_null(r);
    json_decref(r);
    peer_close(n1);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    assert_job(f, b, "job_state", "CANCELLED");
    peer_close(n1);
}

static void test_invalid_node_and_timeout(void **state)
{
    struct fx *f = *state;
    struct peer *n2 = node_up(f, "node02", 2, NULL, NULL);
    struct peer *n1;
    char *st, *reason;
    json_t *k;

    st = node_field(f, "node02", "state");
    reason = node_field(f, "node02", "reason");
    assert_string_equal(st, "INVALID");
    assert_string_equal(reason, "Low CPUs (2 < 4)");
    free(st);
    free(reason);
    peer_close(n2);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t id = submit(f, ", \"nodelist\": \"node01\", \"requeue\": false");
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    /* silent for SlurmdTimeout=3, the connection kept */
    sleep(2);
    wait_node_state(f, "node01", "DOWN", 6000);
    reason = node_field(f, "node01", "reason");
    assert_string_equal(reason, "Not responding");
    free(reason);
    assert_job(f, id, "job_state", "NODE_FAIL");
    /* a heartbeat brings it back; the job it still runs is killed */
    json_decref(peer_call(
        n1, PROTO_MSG_NODE_HEARTBEAT,
        json_pack("{s:s, s:[I]}", "node", "node01", "jobs", (json_int_t)id),
        NULL));
    k = peer_expect(n1, PROTO_MSG_JOB_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "node_down");
    json_decref(k);
    st = node_field(f, "node01", "state");
    assert_string_equal(st, "IDLE");
    free(st);
    peer_close(n1);
    /* a closed connection: DOWN until it registers again */
    sleep(2);
    wait_node_state(f, "node01", "DOWN", 6000);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    st = node_field(f, "node01", "state");
    reason = node_field(f, "node01", "reason");
    assert_string_equal(st, "IDLE");
    assert_string_equal(reason, "null");
    free(st);
    free(reason);
    peer_close(n1);
}

/* node01 registered with job id, then silent past SlurmdTimeout (3 s):
 * id is requeued behind a fence on node01 and not launched on node02,
 * which has room. */
static void lose_node01(struct fx *f, struct peer **n1, struct peer **n2,
                        uint64_t *id)
{
    char *st;

    *n1 = node_up(f, "node01", 4, NULL, NULL);
    *id = submit(f, ", \"cpus_per_task\": 4");
    json_decref(peer_expect(*n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    assert_job(f, *id, "job_state", "RUNNING");
    wait_node_state(f, "node01", "DOWN", 8000);
    *n2 = node_up(f, "node02", 4, NULL, NULL);
    assert_job(f, *id, "job_state", "PENDING");
    assert_job(f, *id, "state_reason", "NodeDown");
    assert_job(f, *id, "restart_count", "1");
    st = job_field(f, *id, "fence_node");
    assert_string_equal(st, "node01");
    free(st);
    /* node02 keeps heartbeating, and gets no launch */
    for (int i = 0; i < 2; i++) {
        json_decref(peer_call(
            *n2, PROTO_MSG_NODE_HEARTBEAT,
            json_pack("{s:s, s:[]}", "node", "node02", "jobs"), NULL));
        assert_null(peer_expect(*n2, PROTO_MSG_JOB_LAUNCH, 500, NULL));
    }
}

/* A job whose node was lost starts again only once that node confirmed
 * that its last run is gone: back on its old connection, the node is
 * told to kill the run and its end lifts the fence; registering without
 * the job, or with its end, lifts it; an operator's DOWN of the node
 * while it cannot be reached lifts it; the fence holds across a
 * controller restart. */
static void test_lost_node_fence(void **state)
{
    struct fx *f = *state;
    struct peer *n1, *n2;
    json_t *k, *r, *jobs;
    struct err e;
    uint64_t id;
    char *st;

    /* back on the same connection: killed there, its end lifts the fence */
    lose_node01(f, &n1, &n2, &id);
    json_decref(peer_call(
        n1, PROTO_MSG_NODE_HEARTBEAT,
        json_pack("{s:s, s:[I]}", "node", "node01", "jobs", (json_int_t)id),
        NULL));
    k = peer_expect(n1, PROTO_MSG_JOB_KILL, 5000, NULL);
    assert_int_equal(json_integer_value(json_object_get(k, "job_id")), id);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "node_down");
    json_decref(k);
    assert_job(f, id, "job_state", "PENDING");
    job_end(n1, "node01", id, 0, 15);
    assert_job(f, id, "job_state", "RUNNING");
    assert_job(f, id, "state_reason", "None");
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[I]}", "job_ids", (json_int_t)id), &e);
    json_decref(r);
    peer_close(n1);
    peer_close(n2);

    /* registering again with the run: killed (kill_jobs), fenced until
     * its end; a controller restart keeps the fence */
    lose_node01(f, &n1, &n2, &id);
    peer_close(n1);
    stop(f, SIGKILL);
    spawn(f);
    st = job_field(f, id, "fence_node");
    assert_string_equal(st, "node01");
    free(st);
    peer_close(n2);
    n2 = node_up(f, "node02", 4, NULL, NULL);
    assert_null(peer_expect(n2, PROTO_MSG_JOB_LAUNCH, 500, NULL));
    jobs =
        json_pack("[{s:I, s:s}]", "job_id", (json_int_t)id, "state", "running");
    n1 = node_up(f, "node01", 4, jobs, &r);
    assert_int_equal(
        json_integer_value(json_array_get(json_object_get(r, "kill_jobs"), 0)),
        id);
    json_decref(r);
    assert_job(f, id, "job_state", "PENDING");
    peer_close(n1);
    /* ... with its end: lifted */
    jobs = json_pack("[{s:I, s:s, s:i, s:i}]", "job_id", (json_int_t)id,
                     "state", "ended", "exit_code", 0, "signal", 15);
    n1 = node_up(f, "node01", 4, jobs, NULL);
    assert_job(f, id, "job_state", "RUNNING");
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[I]}", "job_ids", (json_int_t)id), &e);
    json_decref(r);
    peer_close(n1);
    peer_close(n2);

    /* an operator sets the unreachable node01 DOWN: lifted */
    lose_node01(f, &n1, &n2, &id);
    r = call(f, false, PROTO_MSG_NODE_UPDATE,
             json_pack("{s:[s], s:s, s:s}", "nodes", "node01", "state", "DOWN",
                       "reason", "powered off"),
             &e);
    assert_non_null(r);
    json_decref(r);
    json_decref(peer_expect(n2, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    assert_job(f, id, "job_state", "RUNNING");
    peer_close(n1);
    peer_close(n2);
}

/* A JOB_END with its run: on its own call, for the node's current
 * connection, as a registered daemon sends it. */
static json_t *end_of_run(struct peer *p, uint64_t id, json_int_t restart,
                          uint8_t *flags)
{
    return peer_call(p, PROTO_MSG_JOB_END,
                     json_pack("{s:I, s:s, s:i, s:i, s:I}", "job_id",
                               (json_int_t)id, "node", "node01", "exit_code", 0,
                               "signal", 0, "restart_count", restart),
                     flags);
}

/* Ends of earlier runs are not the current run's: a frame of a connection
 * the node gave up (delivered when a cut link returns, after the node
 * registered anew) is refused, and an end naming an earlier restart is
 * acknowledged but ends nothing (both found by bench/chaos.sh: a stale
 * end completed a job that ran on, and its GPUs went to another job). */
static void test_stale_run_ends(void **state)
{
    struct fx *f = *state;
    struct peer *old = node_up(f, "node01", 4, NULL, NULL), *n1;
    uint64_t a = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    json_t *jobs, *r;
    uint8_t flags;

    json_decref(peer_expect(old, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    jobs =
        json_pack("[{s:I, s:s}]", "job_id", (json_int_t)a, "state", "running");
    n1 = node_up(f, "node01", 4, jobs, NULL);
    /* the old connection's reply is no longer signed for node01's
     * daemon (it speaks for no node now): sent, not waited for */
    peer_send(old, old->a, PROTO_MSG_JOB_END, 0, ++old->seq,
              jobs = json_pack("{s:I, s:s, s:i, s:i, s:i}", "job_id",
                               (json_int_t)a, "node", "node01", "exit_code", 0,
                               "signal", 0, "restart_count", 0));
    json_decref(jobs);
    usleep(300 * 1000);
    assert_job(f, a, "job_state", "RUNNING");
    r = end_of_run(n1, a, 3, &flags);
    assert_false(flags & PROTO_F_ERROR);
    json_decref(r);
    assert_job(f, a, "job_state", "RUNNING");
    r = end_of_run(n1, a, 0, &flags);
    assert_false(flags & PROTO_F_ERROR);
    json_decref(r);
    assert_job(f, a, "job_state", "COMPLETED");
    peer_close(old);
    peer_close(n1);
}

/* Queries page; an admin DRAIN holds new work off a node until RESUME,
 * and survives a restart. */
static void test_paging_and_drain(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    json_t *r, *jobs;
    struct err e;
    uint64_t id;
    char *st;

    r = call(f, false, PROTO_MSG_NODE_UPDATE,
             json_pack("{s:[s], s:s, s:s}", "nodes", "node01", "state", "DRAIN",
                       "reason", "fan"),
             &e);
    assert_non_null(r);
    json_decref(r);
    st = node_field(f, "node01", "state");
    assert_string_equal(st, "DRAIN");
    free(st);
    for (int i = 0; i < 5; i++)
        id = submit(f, ", \"nodelist\": \"node01\"");
    r = call(f, false, PROTO_MSG_JOB_QUERY, json_pack("{s:i}", "limit", 2), &e);
    assert_non_null(r);
    jobs = json_object_get(r, "jobs");
    assert_int_equal(json_array_size(jobs), 2);
    assert_int_equal(
        json_integer_value(json_object_get(r, "next_after_job_id")), 2);
    json_decref(r);
    r = call(f, false, PROTO_MSG_JOB_QUERY,
             json_pack("{s:i, s:i}", "limit", 2, "after_job_id", 4), &e);
    assert_int_equal(json_array_size(json_object_get(r, "jobs")), 1);
    assert_true(json_is_null(json_object_get(r, "next_after_job_id")));
    json_decref(r);
    /* squeue's default states walk the unfinished jobs alone, and page
     * the same: jobs 2 and 4 ended, 1, 3 and 5 are listed, two a page */
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[II]}", "job_ids", (json_int_t)2, (json_int_t)4),
             &e);
    assert_non_null(r);
    json_decref(r);
    r = call(
        f, false, PROTO_MSG_JOB_QUERY,
        json_pack("{s:i, s:[ss]}", "limit", 2, "states", "PENDING", "RUNNING"),
        &e);
    jobs = json_object_get(r, "jobs");
    assert_int_equal(json_array_size(jobs), 2);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(jobs, 1), "job_id")),
        3);
    assert_int_equal(
        json_integer_value(json_object_get(r, "next_after_job_id")), 3);
    json_decref(r);
    r = call(f, false, PROTO_MSG_JOB_QUERY,
             json_pack("{s:i, s:i, s:[s]}", "limit", 2, "after_job_id", 3,
                       "states", "PENDING"),
             &e);
    jobs = json_object_get(r, "jobs");
    assert_int_equal(json_array_size(jobs), 1);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(jobs, 0), "job_id")),
        5);
    assert_true(json_is_null(json_object_get(r, "next_after_job_id")));
    json_decref(r);
    /* a final state among them: every job, the ended ones too */
    r = call(f, false, PROTO_MSG_JOB_QUERY,
             json_pack("{s:[ss]}", "states", "PENDING", "CANCELLED"), &e);
    assert_int_equal(json_array_size(json_object_get(r, "jobs")), 5);
    json_decref(r);
    assert_job(f, id, "job_state", "PENDING");
    peer_close(n1);
    stop(f, SIGTERM);
    spawn(f);
    n1 = node_up(f, "node01", 4, NULL, NULL);
    st = node_field(f, "node01", "reason");
    assert_string_equal(st, "fan");
    free(st);
    r = call(f, false, PROTO_MSG_NODE_UPDATE,
             json_pack("{s:[s], s:s}", "nodes", "node01", "state", "RESUME"),
             &e);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    peer_close(n1);
}

/* The integer a node field holds (NODE_QUERY). */
static long long node_int(struct fx *f, const char *node, const char *key)
{
    char *v = node_field(f, node, key);
    long long n = strtoll(v, NULL, 10);

    free(v);
    return n;
}

/* What a node says of itself for sluice doctor: its host name, cgroup,
 * GPU fence and clock (registration and heartbeats) are in its NODE
 * object; a daemon that says nothing of it shows nulls; a malformed
 * report is refused. */
static void test_health_report(void **state)
{
    struct fx *f = *state;
    struct peer *p = peer_open(f), *n2;
    json_t *r;
    uint8_t flags = 0;
    long long off;
    char *v;

    peer_as_node(f, p, "node01");
    r = peer_call(
        p, PROTO_MSG_NODE_REGISTER,
        json_pack("{s:s, s:i, s:i, s:[], s:s, s:I, s:s, s:{s:s, s:s}}", "node",
                  "node01", "cpus", 4, "mem_mib", 8000, "jobs", "hostname",
                  "gpu-a", "time", (json_int_t)time(NULL) + 40, "cgroup", "v2",
                  "gpu_fence", "state", "off", "reason", "ConstrainDevices=no"),
        NULL);
    assert_true(json_is_true(json_object_get(r, "accepted")));
    json_decref(r);
    v = node_field(f, "node01", "hostname_reported");
    assert_string_equal(v, "gpu-a");
    free(v);
    v = node_field(f, "node01", "node_hostname");
    assert_string_equal(v, "node01"); /* NodeHostname: the name */
    free(v);
    v = node_field(f, "node01", "cgroup");
    assert_string_equal(v, "v2");
    free(v);
    v = node_field(f, "node01", "gpu_fence");
    assert_string_equal(v, "{\"state\": \"off\", \"reason\": "
                           "\"ConstrainDevices=no\"}");
    free(v);
    /* the second that may pass between the node's stamp and our reading */
    off = node_int(f, "node01", "clock_offset_s");
    assert_true(off >= 39 && off <= 40);
    /* a heartbeat measures it again */
    json_decref(
        peer_call(p, PROTO_MSG_NODE_HEARTBEAT,
                  json_pack("{s:s, s:[], s:I}", "node", "node01", "jobs",
                            "time", (json_int_t)time(NULL) - 100),
                  NULL));
    off = node_int(f, "node01", "clock_offset_s");
    assert_true(off >= -101 && off <= -100);
    peer_close(p);
    /* a daemon of an older sluice says nothing of it */
    n2 = node_up(f, "node02", 4, NULL, NULL);
    v = node_field(f, "node02", "clock_offset_s");
    assert_string_equal(v, "null");
    free(v);
    v = node_field(f, "node02", "hostname_reported");
    assert_string_equal(v, "null");
    free(v);
    peer_close(n2);
    /* a malformed report is refused */
    p = peer_open(f);
    peer_as_node(f, p, "node01");
    r = peer_call(p, PROTO_MSG_NODE_REGISTER,
                  json_pack("{s:s, s:i, s:i, s:[], s:i}", "node", "node01",
                            "cpus", 4, "mem_mib", 8000, "jobs", "hostname", 7),
                  &flags);
    assert_true(flags & PROTO_F_ERROR);
    assert_non_null(strstr(json_string_value(json_object_get(
                               json_object_get(r, "error"), "message")),
                           "hostname must be a string"));
    json_decref(r);
    peer_close(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_restart_and_reconcile, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unconfirmed_launch, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_invalid_node_and_timeout, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_paging_and_drain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_run_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_node_fence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_report, setup, teardown),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
