/*
 * sluicectld as a process on loopback (ctld_harness.h): jobs submitted,
 * launched, ended, cancelled, signalled and timed out as a user and a node
 * daemon would see them; bad frames; users on the unix socket; auth/munge.
 */
#include "ctld_harness.h"

/* ---- tests ------------------------------------------------------------ */

static void test_submit_run_end_query(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t id = submit(f, ", \"name\": \"hello\", \"cpus_per_task\": 4");
    json_t *l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    json_t *job;

    assert_non_null(l);
    job = json_object_get(l, "job");
    assert_int_equal(launched_id(l), id);
    assert_string_equal(json_string_value(json_object_get(job, "script")),
                        "#!/bin/sh\nexit 0\n");
    assert_string_equal(json_string_value(json_object_get(job, "node_list")),
                        "node01");
    assert_int_equal(json_integer_value(json_object_get(job, "user_id")),
                     (json_int_t)geteuid());
    json_decref(l);
    assert_job(f, id, "job_state", "RUNNING");
    assert_job(f, id, "batch_host", "node01");
    {
        char *st = node_field(f, "node01", "state");
        assert_string_equal(st, "ALLOCATED");
        free(st);
    }
    job_end(n1, "node01", id, 0, 0);
    assert_job(f, id, "job_state", "COMPLETED");
    job_end(n1, "node01", id, 0, 0); /* a resent end is acknowledged */
    id = submit(f, NULL);
    l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL);
    json_decref(l);
    job_end(n1, "node01", id, 2, 0);
    assert_job(f, id, "job_state", "FAILED");
    assert_job(f, id, "exit_code", "{\"return_code\": 2, \"signal\": 0}");
    peer_close(n1);
}

static void test_launch_error_and_unix_socket(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    json_t *spec = json_pack("{s:{s:s}}", "job", "script", "#!/bin/sh\n");
    struct err e;
    json_t *r = call(f, true, PROTO_MSG_SUBMIT, spec, &e);
    uint64_t id;

    assert_non_null(r);
    id = (uint64_t)json_integer_value(json_object_get(r, "job_id"));
    json_decref(r);
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, "no such user"));
    for (int i = 0; i < 50; i++) {
        char *st = job_field(f, id, "job_state");
        bool done = strcmp(st, "FAILED") == 0;
        free(st);
        if (done)
            break;
        usleep(20000);
    }
    assert_job(f, id, "job_state", "FAILED");
    assert_job(f, id, "state_reason", "launch failed: no such user");
    peer_close(n1);
}

static void test_cancel_and_signal(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t run = submit(f, ", \"cpus_per_task\": 4");
    uint64_t pend = submit(f, ", \"cpus_per_task\": 4, \"nodelist\": "
                              "\"node01\"");
    json_t *l = peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL), *k, *r;
    struct err e;

    json_decref(l);
    assert_job(f, pend, "job_state", "PENDING");
    assert_job(f, pend, "state_reason", "Resources");
    r = call(
        f, false, PROTO_MSG_JOB_CANCEL,
        json_pack("{s:[I], s:i}", "job_ids", (json_int_t)run, "signal", 10),
        &e);
    json_decref(r);
    k = peer_expect(n1, PROTO_MSG_JOB_SIGNAL, 5000, NULL);
    assert_non_null(k);
    assert_int_equal(json_integer_value(json_object_get(k, "signal")), 10);
    json_decref(k);
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[I,I,i]}", "job_ids", (json_int_t)run,
                       (json_int_t)pend, 999),
             &e);
    assert_non_null(r);
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(r, "results"), 2), "error")),
        "Invalid job id specified");
    json_decref(r);
    assert_job(f, pend, "job_state", "CANCELLED");
    assert_job(f, run, "job_state", "RUNNING");
    k = peer_expect(n1, PROTO_MSG_JOB_KILL, 5000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "cancelled");
    assert_int_equal(json_integer_value(json_object_get(k, "kill_wait_s")), 1);
    json_decref(k);
    job_end(n1, "node01", run, 0, 15);
    assert_job(f, run, "job_state", "CANCELLED");
    peer_close(n1);
}

static void test_bad_frames(void **state)
{
    struct fx *f = *state;
    struct peer *p = peer_open(f);
    struct proto_frame fr;
    struct err e;
    char other_key[160];
    struct auth *other;
    static const uint8_t garbage[] = "GET / HTTP/1.0\r\n\r\n";
    uint8_t huge[20] = {0x53, 0x4C, 0x43, 0x45, 0x7f, 0, 0, 0, 0, 0,
                        0,    2,    1,    0,    0,    0, 0, 0, 0, 9};
    json_t *r;
    uint8_t flags;

    /* signed with another key: refused, and the connection closed (a
     * peer without the key gets one error reply, nothing more) */
    snprintf(other_key, sizeof(other_key), "%s/other.key", f->dir);
    assert_int_equal(auth_keygen(other_key, &e), 0);
    other = auth_create(AUTH_KEY, other_key, &e);
    peer_send(p, other, PROTO_MSG_PING, 0, 1, NULL);
    assert_int_equal(peer_recv(p, &fr, 5000), 1);
    assert_true(fr.flags & PROTO_F_ERROR);
    assert_int_equal(fr.seq, 1);
    proto_frame_clear(&fr);
    assert_int_equal(peer_recv(p, &fr, 5000), 0);
    peer_close(p);
    /* a large body behind a credential of another key is refused after
     * the header and credential, before the body is read */
    p = peer_open(f);
    {
        json_t *big = json_object();
        char *pad = malloc(200000);
        memset(pad, 'x', 199999);
        pad[199999] = '\0';
        json_object_set_new(big, "pad", json_string(pad));
        free(pad);
        peer_send(p, other, PROTO_MSG_PING, 0, 1, big);
        json_decref(big);
    }
    assert_int_equal(peer_recv(p, &fr, 5000), 1);
    assert_true(fr.flags & PROTO_F_ERROR);
    {
        char *text = json_dumps(fr.body, 0);
        assert_non_null(strstr(text, "has not authenticated"));
        free(text);
    }
    proto_frame_clear(&fr);
    assert_int_equal(peer_recv(p, &fr, 5000), 0);
    peer_close(p);
    auth_destroy(other);
    /* both refusals are counted for the peer's address, with the reason
     * (sdiag's auth_refused, which sluice doctor reads) */
    r = call(f, false, PROTO_MSG_SCHED_DIAG, json_object(), &e);
    assert_non_null(r);
    {
        json_t *a = json_array_get(json_object_get(r, "auth_refused"), 0);
        assert_string_equal(json_string_value(json_object_get(a, "peer")),
                            "127.0.0.1");
        assert_int_equal(json_integer_value(json_object_get(a, "count")), 2);
        assert_non_null(strstr(json_string_value(json_object_get(a, "reason")),
                               "credential MAC does not verify"));
        assert_int_equal(json_array_size(json_object_get(r, "auth_refused")),
                         1);
    }
    json_decref(r);
    /* an unknown type: refused by name, the connection stays */
    p = peer_open(f);
    r = peer_call(p, 77, json_object(), &flags);
    assert_true(flags & PROTO_F_ERROR);
    {
        char *text = json_dumps(r, 0);
        assert_non_null(strstr(text, "unknown message type 77"));
        free(text);
    }
    json_decref(r);
    r = peer_call(p, PROTO_MSG_PING, json_object(), &flags);
    assert_false(flags & PROTO_F_ERROR);
    json_decref(r);
    /* a frame over the size limit: an error reply, then the close */
    peer_raw(p, huge, sizeof(huge));
    assert_int_equal(peer_recv(p, &fr, 5000), 1);
    assert_true(fr.flags & PROTO_F_ERROR);
    proto_frame_clear(&fr);
    assert_int_equal(peer_recv(p, &fr, 5000), 0);
    peer_close(p);
    /* garbage: an error reply with seq 0, then the close; no one else
     * notices */
    p = peer_open(f);
    peer_raw(p, garbage, sizeof(garbage));
    assert_int_equal(peer_recv(p, &fr, 5000), 1);
    assert_true(fr.flags & PROTO_F_ERROR);
    assert_int_equal(fr.seq, 0);
    proto_frame_clear(&fr);
    assert_int_equal(peer_recv(p, &fr, 5000), 0);
    peer_close(p);
    r = call(f, false, PROTO_MSG_PING, json_object(), &e);
    assert_non_null(r);
    json_decref(r);
}

static void test_time_limit(void **state)
{
    struct fx *f = *state;
    struct peer *n1 = node_up(f, "node01", 4, NULL, NULL);
    uint64_t id = submit(f, ", \"time_limit_s\": 1");
    json_t *k;

    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    k = peer_expect(n1, PROTO_MSG_JOB_KILL, 4000, NULL);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "reason")),
                        "timeout");
    json_decref(k);
    job_end(n1, "node01", id, 0, 15);
    assert_job(f, id, "job_state", "TIMEOUT");
    peer_close(n1);
}

/* As root: a job submitted by nobody over the unix socket is nobody's;
 * nobody cannot cancel root's job, root can cancel nobody's. */
static void test_users(void **state)
{
    struct fx *f = *state;
    uint64_t mine, theirs = 0;
    int pfd[2], status;
    pid_t pid;
    struct err e;
    json_t *r;

    if (geteuid() != 0)
        skip();
    mine = submit(f, NULL);
    assert_int_equal(pipe(pfd), 0);
    pid = fork();
    if (pid == 0) {
        char buf[600];
        json_t *x;
        if (setgid(65534) < 0 || setuid(65534) < 0)
            _exit(2);
        x = call(f, true, PROTO_MSG_SUBMIT,
                 json_pack("{s:{s:s}}", "job", "script", "#!/bin/sh\n"), &e);
        snprintf(buf, sizeof(buf), "%lld ",
                 x ? (long long)json_integer_value(json_object_get(x, "job_id"))
                   : -1LL);
        json_decref(x);
        x = call(f, true, PROTO_MSG_JOB_CANCEL,
                 json_pack("{s:[I]}", "job_ids", (json_int_t)mine), &e);
        strncat(
            buf,
            x ? json_string_value(json_object_get(
                    json_array_get(json_object_get(x, "results"), 0), "error"))
              : e.text,
            sizeof(buf) - strlen(buf) - 1);
        json_decref(x);
        if (write(pfd[1], buf, strlen(buf)) < 0)
            _exit(3);
        _exit(0);
    }
    close(pfd[1]);
    {
        char buf[600] = "";
        ssize_t n = read(pfd[0], buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = '\0';
        close(pfd[0]);
        waitpid(pid, &status, 0);
        theirs = strtoull(buf, NULL, 10);
        assert_non_null(strstr(buf, "Access/permission denied"));
    }
    assert_true(theirs > 0);
    assert_job(f, theirs, "user_id", "65534");
    assert_job(f, mine, "job_state", "PENDING");
    r = call(f, false, PROTO_MSG_JOB_CANCEL,
             json_pack("{s:[I]}", "job_ids", (json_int_t)theirs), &e);
    json_decref(r);
    assert_job(f, theirs, "job_state", "CANCELLED");
}

/* auth/munge end to end: AuthInfo=socket=PATH, a client and a node. */
static void test_munge(void **state)
{
    struct fx *f = *state;
    struct peer *n1;
    uint64_t id;

    if (f->munge_sock[0] == '\0')
        skip();
    n1 = node_up(f, "node01", 4, NULL, NULL);
    id = submit(f, NULL);
    json_decref(peer_expect(n1, PROTO_MSG_JOB_LAUNCH, 5000, NULL));
    job_end(n1, "node01", id, 0, 0);
    assert_job(f, id, "job_state", "COMPLETED");
    peer_close(n1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_submit_run_end_query, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_launch_error_and_unix_socket,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_and_signal, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_users, setup, teardown),
        cmocka_unit_test_setup_teardown(test_munge, setup_munge, teardown),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
