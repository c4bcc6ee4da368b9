/*
 * scontrol suspend/resume in sluicectld as a process on loopback
 * (ctld_harness.h) with a fake node: JOB_FREEZE to the node, the CPUs
 * lent while SUSPENDED, the state kept across a kill -9 and the job
 * frozen again when its node registers, and a resume that waits for its
 * CPUs and comes as soon as they are free.
 */
#include "ctld_harness.h"

/* JOB_SUSPEND or JOB_RESUME of job id: the per-job error (caller frees;
 * NULL when it was done). */
static char *op(struct fx *f, uint16_t type, uint64_t id)
{
    struct err e;
    json_t *r = call(f, false, type, json_pack("{s:[I]}", "job_ids", id), &e);
    const char *msg;
    char *out;

    if (r == NULL)
        fail_msg("%s: %s", proto_type_name(type), e.text);
    msg = json_string_value(json_object_get(
        json_array_get(json_object_get(r, "results"), 0), "error"));
    out = msg ? strdup(msg) : NULL;
    json_decref(r);
    return out;
}

static void assert_op(struct fx *f, uint16_t type, uint64_t id,
                      const char *want)
{
    char *got = op(f, type, id);

    if (want == NULL && got != NULL)
        fail_msg("%s of job %llu: %s", proto_type_name(type),
                 (unsigned long long)id, got);
    if (want != NULL && (got == NULL || strstr(got, want) == NULL))
        fail_msg("%s of job %llu: got %s, want %s", proto_type_name(type),
                 (unsigned long long)id, got ? got : "(done)", want);
    free(got);
}

/* The node gets JOB_FREEZE for id with freeze as want. */
static void expect_freeze(struct peer *n, uint64_t id, bool want)
{
    json_t *b = peer_expect(n, PROTO_MSG_JOB_FREEZE, 5000, NULL);

    assert_non_null(b);
    assert_int_equal(json_integer_value(json_object_get(b, "job_id")), id);
    assert_int_equal(json_is_true(json_object_get(b, "freeze")), want);
    json_decref(b);
}

static void test_suspend_resume_restart(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t a = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    uint64_t b = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": \"node01\"");
    json_t *jobs;

    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    assert_job(f, a, "job_state", "RUNNING");
    assert_op(f, PROTO_MSG_JOB_SUSPEND, b, "Job is not running");
    assert_op(f, PROTO_MSG_JOB_RESUME, a, "Job is not suspended");

    /* suspended: frozen on its node, its 4 CPUs lent to b */
    assert_op(f, PROTO_MSG_JOB_SUSPEND, a, NULL);
    expect_freeze(n1, a, true);
    assert_job(f, a, "job_state", "SUSPENDED");
    assert_job(f, a, "state_reason", "JobSuspended");
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    assert_job(f, b, "job_state", "RUNNING");
    assert_op(f, PROTO_MSG_JOB_SUSPEND, a, "already suspended");

    /* kill -9: still SUSPENDED, and frozen again when the node is back */
    peer_close(n1);
    stop(f, SIGKILL);
    spawn(f);
    assert_job(f, a, "job_state", "SUSPENDED");
    assert_job(f, b, "job_state", "RUNNING");
    jobs =
        json_pack("[{s:I, s:s}, {s:I, s:s}]", "job_id", (json_int_t)a, "state",
                  "running", "job_id", (json_int_t)b, "state", "running");
    n1 = node_up(f, "node01", 4, jobs, NULL);
    expect_freeze(n1, a, true);

    /* resume waits for the CPUs b holds, then comes by itself */
    assert_op(f, PROTO_MSG_JOB_RESUME, a, NULL);
    assert_job(f, a, "state_reason", "Resuming");
    assert_job(f, a, "job_state", "SUSPENDED");
    job_end(n1, "node01", b, 0, 0);
    expect_freeze(n1, a, false);
    assert_job(f, a, "job_state", "RUNNING");
    assert_job(f, b, "job_state", "COMPLETED");
    job_end(n1, "node01", a, 0, 0);
    assert_job(f, a, "job_state", "COMPLETED");
    peer_close(n1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_suspend_resume_restart, setup,
                                        teardown),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
