/*
 * Allocation jobs in sluicectld as a process on loopback (ctld_harness.h)
 * with two fake node daemons: SUBMIT "immediate" started in its own reply
 * and sending no JOB_LAUNCH, or refused with nothing kept; an interactive
 * step with a terminal ("step_id": "interactive", "pty"), one per job;
 * JOB_COMPLETE killing the steps on every node and the job ending when
 * they report; an srun allocation ending with its step 0.
 */
#include "ctld_harness.h"

/* SUBMIT an allocation (fields: JSON without braces); its id, or 0 with
 * *code and e. */
static uint64_t alloc(struct fx *f, const char *fields, int *code,
                      struct err *e)
{
    char text[512];
    json_t *r;
    uint64_t id;

    snprintf(text, sizeof(text), "{\"job\": {\"work_dir\": \"/tmp\", %s}}",
             fields);
    r = req(f, PROTO_MSG_SUBMIT, json_loads(text, 0, NULL), code, e);
    if (r == NULL)
        return 0;
    id = (uint64_t)json_integer_value(json_object_get(r, "job_id"));
    json_decref(r);
    return id;
}

/* A message of type to each of the two nodes. */
static void expect_both(struct peer *n1, struct peer *n2, uint16_t type)
{
    struct peer *both[] = {n1, n2};

    for (size_t i = 0; i < 2; i++) {
        json_t *m = peer_expect(both[i], type, 5000, NULL);
        assert_non_null(m);
        json_decref(m);
    }
}

static void test_immediate_interactive_complete(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    struct peer *n2 = node_up(f, "node02", 4, NULL, NULL);
    json_t *r, *l, *st;
    struct err e;
    int code;
    uint64_t id, busy;

    /* started in its own reply: RUNNING at once, nothing to launch */
    id = alloc(f,
               "\"alloc\": \"salloc\", \"nodes\": 2, \"ntasks\": 8, "
               "\"immediate\": true",
               &code, &e);
    if (id == 0)
        fail_msg("immediate: %s", e.text);
    assert_job(f, id, "job_state", "RUNNING");
    assert_job(f, id, "alloc", "salloc");
    assert_job(f, id, "node_list", "node[01-02]");
    assert_null(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 300, NULL));

    /* the nodes are taken: refused, and no job is left */
    busy = alloc(f, "\"alloc\": \"srun\", \"immediate\": true", &code, &e);
    assert_int_equal(busy, 0);
    assert_int_equal(code, EAGAIN);
    assert_string_equal(e.text,
                        "Unable to allocate resources: Requested nodes are "
                        "busy");
    r = req(f, PROTO_MSG_JOB_QUERY, json_pack("{s:[I]}", "job_ids", id + 1),
            &code, &e);
    assert_non_null(r);
    assert_int_equal(json_array_size(json_object_get(r, "jobs")), 0);
    json_decref(r);

    /* salloc's interactive step, on a terminal */
    r = create(f, id,
               "\"step_id\": \"interactive\", \"pty\": true, "
               "\"overlap\": true, \"ntasks\": 1",
               &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE interactive: %s", e.text);
    assert_int_equal(json_integer_value(json_object_get(r, "step_id")),
                     STEP_INTERACTIVE_ID);
    assert_string_equal(json_string_value(json_object_get(r, "name")),
                        "interactive");
    json_decref(r);
    l = peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL);
    assert_non_null(l);
    st = json_object_get(l, "step");
    assert_true(json_is_true(json_object_get(st, "pty")));
    assert_int_equal(json_integer_value(json_object_get(st, "step_id")),
                     STEP_INTERACTIVE_ID);
    json_decref(l);
    assert_null(create(f, id, "\"step_id\": \"interactive\", \"overlap\": true",
                       &code, &e));
    assert_int_equal(code, EEXIST);
    assert_null(create(f, id, "\"step_id\": \"7\"", &code, &e));
    assert_int_equal(code, EINVAL);
    /* an srun inside takes step 0, not one after the interactive id */
    r = create(f, id, "\"ntasks\": 2, \"overlap\": true", &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE: %s", e.text);
    assert_int_equal(json_integer_value(json_object_get(r, "step_id")), 0);
    json_decref(r);
    /* two tasks over the two nodes, one each: both report its end (with
     * node02's report missing the allocation would wait for the node to
     * time out, SlurmdTimeout, before it ends) */
    expect_both(n1, n2, PROTO_MSG_STEP_LAUNCH);
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 0, NULL), 0);
    assert_int_equal(step_end(n2, "node02", id, 0, 0, 0, NULL), 0);

    /* JOB_COMPLETE: the steps are killed on every node; the job ends
     * once its last step is reported */
    r = req(f, PROTO_MSG_JOB_COMPLETE,
            json_pack("{s:I, s:i}", "job_id", (json_int_t)id, "exit_code", 4),
            &code, &e);
    if (r == NULL)
        fail_msg("JOB_COMPLETE: %s", e.text);
    json_decref(r);
    expect_both(n1, n2, PROTO_MSG_JOB_KILL);
    assert_job(f, id, "job_state", "RUNNING");
    assert_int_equal(
        step_end(n1, "node01", id, STEP_INTERACTIVE_ID, 0, 15, NULL), 0);
    assert_job(f, id, "job_state", "FAILED");
    assert_job(f, id, "exit_code", "{\"return_code\": 4, \"signal\": 0}");
    peer_close(n1);
    peer_close(n2);
}

/* srun without a job: its allocation ends with its step 0. */
static void test_srun_allocation(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    json_t *r;
    struct err e;
    int code;
    uint64_t id;

    id = alloc(f, "\"alloc\": \"srun\", \"argv\": [\"hostname\"]", &code, &e);
    if (id == 0)
        fail_msg("submit: %s", e.text);
    assert_job(f, id, "job_state", "RUNNING");
    assert_job(f, id, "name", "hostname");
    r = create(f, id, "\"ntasks\": 1", &code, &e);
    if (r == NULL)
        fail_msg("STEP_CREATE: %s", e.text);
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_STEP_LAUNCH, 5000, NULL));
    assert_int_equal(step_end(n1, "node01", id, 0, 0, 0, NULL), 0);
    assert_job(f, id, "job_state", "COMPLETED");
    /* nothing was left to kill */
    assert_null(peer_expect(n1, PROTO_MSG_JOB_KILL, 200, NULL));
    peer_close(n1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_immediate_interactive_complete,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_srun_allocation, setup, teardown),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
