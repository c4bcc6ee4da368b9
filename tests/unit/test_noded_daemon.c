/*
 * sluiced against a small fake controller written with the proto helpers:
 * the real binary is started on a private spool and key, registers, runs
 * jobs through its supervisors (output files, environment, exit codes),
 * refuses launches it cannot honour, signals and kills, and survives a
 * kill -9 of itself with its jobs still reported, even in mid-launch.
 */
#include "noded_harness.h"

static void test_register(void **state)
{
    json_t *reg, *jobs, *gpus;
    json_int_t cpus, mem;
    const char *node, *gres, *version;

    (void)state;
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    assert_int_equal(json_unpack(reg, "{s:s, s:I, s:I, s:s, s:o, s:o, s:s}",
                                 "node", &node, "cpus", &cpus, "mem_mib", &mem,
                                 "gres", &gres, "gpus", &gpus, "jobs", &jobs,
                                 "version", &version),
                     0);
    assert_string_equal(node, "node01");
    assert_int_equal(cpus, 16); /* config_overrides */
    assert_int_equal(mem, 64000);
    assert_string_equal(gres, "gpu:4");
    assert_int_equal(json_array_size(gpus), 4);
    assert_int_equal(json_array_size(jobs), 0);
    json_decref(reg);
    /* heartbeats every second */
    T.heartbeats = 0;
    {
        struct proto_frame f;
        expect(PROTO_MSG_NODE_HEARTBEAT, false, &f);
        assert_non_null(json_object_get(f.body, "jobs"));
        send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
        proto_frame_clear(&f);
    }
}

static void test_launch_runs_job(void **state)
{
    char path[512], msg[256], *out;

    (void)state;
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(1, "#!/bin/sh\necho \"id=$SLURM_JOB_ID "
                            "twin=$SLUICE_JOB_ID name=$SLURM_JOB_NAME "
                            "foo=$FOO cpus=$SLURM_CPUS_ON_NODE "
                            "node=$SLURMD_NODENAME arg=$1 uid=$(id -u)\"\n"
                            "pwd\necho oops >&2\nexit 3\n"),
             msg, sizeof(msg)),
        0);
    expect_end(1, 3, 0);
    snprintf(path, sizeof(path), "%s/out-1-t1.txt", T.work);
    out = slurp(path);
    assert_non_null(out);
    assert_non_null(strstr(out, "id=1 twin=1 name=t1 foo=bar cpus=4 "
                                "node=node01 arg=arg1 uid=0\n"));
    assert_non_null(strstr(out, T.work));
    assert_non_null(strstr(out, "oops\n")); /* std_err null: with stdout */
    snprintf(path, sizeof(path), "%s/job.1", T.spool);
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path)); /* acknowledged: gone from the spool */
}

static void test_launch_refused(void **state)
{
    char msg[256], path[512];
    json_t *b;

    (void)state;
    b = launch_body(2, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "work_dir",
                        json_string("/nonexistent/dir"));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), ENOENT);
    assert_non_null(strstr(msg, "cannot chdir to /nonexistent/dir"));
    snprintf(path, sizeof(path), "%s/job.2", T.spool);
    assert_false(exists(path));

    b = launch_body(3, "echo no interpreter\n");
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), EINVAL);
    assert_non_null(strstr(msg, "interpreter"));

    b = launch_body(4, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "user_id",
                        json_integer(54321));
    json_object_set_new(json_object_get(b, "job"), "user_name",
                        json_string("nobody54321"));
    assert_int_not_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    assert_non_null(strstr(msg, "unknown on node01"));

    b = launch_body(5, "#!/nonexistent/interp\ntrue\n");
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), ENOENT);
    assert_non_null(strstr(msg, "#!/nonexistent/interp"));
    snprintf(path, sizeof(path), "%s/job.5", T.spool);
    assert_false(exists(path));

    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          json_pack("{s:{s:s}}", "job", "script", "x"), msg,
                          sizeof(msg)),
                     EINVAL);
    assert_non_null(strstr(msg, "job_id"));
}

static void test_signal_and_kill(void **state)
{
    char msg[256], path[512], *out;

    (void)state;
    snprintf(path, sizeof(path), "%s/out-6-t1.txt", T.work);
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(6, "#!/bin/sh\ntrap 'echo got USR1' USR1\n"
                            "trap 'echo got TERM; exit 7' TERM\n"
                            "echo ready\n"
                            "while :; do sleep 0.05; done\n"),
             msg, sizeof(msg)),
        0);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "ready"); i++)
        usleep(10000);
    assert_int_equal(
        call(PROTO_MSG_JOB_SIGNAL,
             json_pack("{s:i, s:i}", "job_id", 6, "signal", SIGUSR1), msg,
             sizeof(msg)),
        0);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "got USR1"); i++)
        usleep(10000);
    assert_non_null(strstr(slurp(path), "got USR1"));
    assert_int_equal(call(PROTO_MSG_JOB_KILL,
                          json_pack("{s:i, s:i, s:s}", "job_id", 6,
                                    "kill_wait_s", 5, "reason", "cancelled"),
                          msg, sizeof(msg)),
                     0);
    expect_end(6, 7, 0);
    out = slurp(path);
    assert_non_null(strstr(out, "got TERM"));

    /* a job that ignores SIGTERM is killed after kill_wait_s */
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(7, "#!/bin/sh\ntrap '' TERM\n"
                                         "echo ready\n"
                                         "while :; do sleep 0.05; done\n"),
                          msg, sizeof(msg)),
                     0);
    snprintf(path, sizeof(path), "%s/out-7-t1.txt", T.work);
    for (int i = 0; i < 200 && !strstr(slurp(path) ?: "", "ready"); i++)
        usleep(10000);
    assert_int_equal(
        call(PROTO_MSG_JOB_KILL,
             json_pack("{s:i, s:i}", "job_id", 7, "kill_wait_s", 1), msg,
             sizeof(msg)),
        0);
    expect_end(7, 0, SIGKILL);

    assert_int_equal(call(PROTO_MSG_JOB_SIGNAL,
                          json_pack("{s:i, s:i}", "job_id", 99, "signal", 10),
                          msg, sizeof(msg)),
                     ESRCH);
}

/* launch_body of run restart of job id. */
static json_t *launch_run(uint32_t id, const char *script, int restart)
{
    json_t *b = launch_body(id, script);

    json_object_set_new(json_object_get(b, "job"), "restart_count",
                        json_integer(restart));
    return b;
}

/* A run's end names its run (restart_count); while an earlier run's end
 * waits for its acknowledgement a launch of a later run is deferred
 * (EAGAIN: nothing starts), and one of the same run is that run. */
static void test_end_names_its_run(void **state)
{
    struct proto_frame f;
    char msg[256], path[512];

    (void)state;
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_run(12, "#!/bin/sh\nexit 0\n", 1), msg,
                          sizeof(msg)),
                     0);
    expect(PROTO_MSG_JOB_END, false, &f);
    assert_int_equal(
        json_integer_value(json_object_get(f.body, "restart_count")), 1);
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_run(12, "#!/bin/sh\nexit 0\n", 2), msg,
                          sizeof(msg)),
                     EAGAIN);
    assert_non_null(strstr(msg, "not acknowledged"));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_run(12, "#!/bin/sh\nexit 0\n", 1), msg,
                          sizeof(msg)),
                     0);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
    snprintf(path, sizeof(path), "%s/job.12", T.spool);
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path));
    /* acknowledged: the later run starts */
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_run(12, "#!/bin/sh\nexit 7\n", 2), msg,
                          sizeof(msg)),
                     0);
    expect(PROTO_MSG_JOB_END, false, &f);
    assert_int_equal(
        json_integer_value(json_object_get(f.body, "restart_count")), 2);
    assert_int_equal(json_integer_value(json_object_get(f.body, "exit_code")),
                     7);
    send_frame(f.type, PROTO_F_REPLY, f.seq, json_object());
    proto_frame_clear(&f);
}

/* The signal call of a job that is not there, signed by uid (the
 * process signs as its effective uid): ESRCH when sluiced listens to that
 * uid, EACCES when it refuses it. */
static int signal_as(uid_t uid, char *msg, size_t len)
{
    int code;

    assert_int_equal(seteuid(uid), 0);
    code = call(PROTO_MSG_JOB_SIGNAL,
                json_pack("{s:i, s:i}", "job_id", 99, "signal", 10), msg, len);
    assert_int_equal(seteuid(0), 0);
    return code;
}

/* SlurmUser (daemon, in the harness's configuration: the user the
 * controller runs as) speaks for the controller as root does; any other
 * user is refused.  The Debian package runs sluicectld as "sluice" and
 * sluiced as root: this is what lets the nodes hear it. */
static void test_slurm_user(void **state)
{
    char msg[256];

    (void)state;
    if (geteuid() != 0)
        skip(); /* signing as another uid needs seteuid */
    assert_int_equal(signal_as(1, msg, sizeof(msg)), ESRCH);
    assert_int_equal(signal_as(2, msg, sizeof(msg)), EACCES);
    assert_non_null(strstr(msg, "SlurmUser"));
    assert_int_equal(signal_as(0, msg, sizeof(msg)), ESRCH);
}

static void test_restart_survival(void **state)
{
    char msg[256], path[512], flag[512];
    json_t *reg, *jobs;

    (void)state;
    snprintf(flag, sizeof(flag), "%s/go", T.work);
    /* job 8 waits for a file; job 9 ends while sluiced is down */
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_run(8,
                        "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.05; "
                        "done\nexit 4\n",
                        0),
             msg, sizeof(msg)),
        0);
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_run(9,
                                     "#!/bin/sh\nwhile [ ! -e go ]; do "
                                     "sleep 0.05; done\nexit 5\n",
                                     0),
                          msg, sizeof(msg)),
                     0);
    stop_sluiced(SIGKILL);
    writef(flag, "go\n");
    snprintf(path, sizeof(path), "%s/job.9/status", T.spool);
    assert_true(wait_path(path, 5000));
    snprintf(path, sizeof(path), "%s/job.8/status", T.spool);
    assert_true(wait_path(path, 5000));
    unlink(flag);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    jobs = json_object_get(reg, "jobs");
    assert_int_equal(json_array_size(jobs), 2);
    for (size_t i = 0; i < 2; i++) {
        json_int_t id, code;
        const char *st;
        assert_int_equal(json_unpack(json_array_get(jobs, i), "{s:I, s:s, s:I}",
                                     "job_id", &id, "state", &st, "exit_code",
                                     &code),
                         0);
        assert_string_equal(st, "ended");
        assert_int_equal(code, id == 8 ? 4 : 5);
        /* the run, read back from launch.json by the new daemon */
        assert_int_equal(json_integer_value(json_object_get(
                             json_array_get(jobs, i), "restart_count")),
                         0);
    }
    json_decref(reg);
    /* the registration acknowledged both: the spool forgets them */
    snprintf(path, sizeof(path), "%s/job.8", T.spool);
    for (int i = 0; i < 100 && exists(path); i++)
        usleep(20000);
    assert_false(exists(path));
}

static void test_running_job_after_restart(void **state)
{
    char msg[256], flag[512];
    json_t *reg;
    const char *st;
    json_int_t id;

    (void)state;
    snprintf(flag, sizeof(flag), "%s/go", T.work);
    assert_int_equal(
        call(PROTO_MSG_JOB_LAUNCH,
             launch_body(10, "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.05; "
                             "done\nexit 6\n"),
             msg, sizeof(msg)),
        0);
    stop_sluiced(SIGTERM);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    assert_int_equal(json_array_size(json_object_get(reg, "jobs")), 1);
    assert_int_equal(
        json_unpack(json_array_get(json_object_get(reg, "jobs"), 0),
                    "{s:I, s:s}", "job_id", &id, "state", &st),
        0);
    assert_int_equal(id, 10);
    assert_string_equal(st, "running");
    json_decref(reg);
    writef(flag, "go\n");
    expect_end(10, 6, 0);
    unlink(flag);

    /* a job the controller does not know is killed on registration */
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(11, "#!/bin/sh\nwhile :; do sleep 0.05; "
                                          "done\n"),
                          msg, sizeof(msg)),
                     0);
    stop_sluiced(SIGKILL);
    start_sluiced();
    accept_sluiced();
    reg = register_node(json_pack("[i]", 11));
    json_decref(reg);
    expect_end(11, 0, SIGTERM);
}

/* What a sluiced killed in the middle of a launch leaves: a directory
 * without supervisor.pid (12: killed while writing the spool, no
 * supervisor) is cleared, so the job can be launched again; one whose
 * supervisor is still recording itself (13: it holds the directory's
 * lock) is waited for and adopted as running. */
static void test_launch_cut_short(void **state)
{
    char dir12[512], dir13[512], path[600], msg[256], c;
    json_t *reg, *jobs;
    json_int_t id;
    const char *st;
    pid_t helper;
    int p[2], n13;

    (void)state;
    stop_sluiced(SIGKILL);
    snprintf(dir12, sizeof(dir12), "%s/job.12", T.spool);
    snprintf(dir13, sizeof(dir13), "%s/job.13", T.spool);
    assert_int_equal(mkdir(dir12, 0711), 0);
    snprintf(path, sizeof(path), "%s/script", dir12);
    writef(path, "#!/bin/sh\n");
    assert_int_equal(mkdir(dir13, 0711), 0);
    assert_int_equal(pipe(p), 0);
    T.helper = helper = fork();
    assert_true(helper >= 0);
    if (helper == 0) { /* a supervisor recording itself, slowly */
        struct spool_pid self;
        struct err e;
        int fd = spool_lock(dir13, 0, &e);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        (void)!write(p[1], "x", 1);
        usleep(300000);
        if (fd < 0 || spool_pid_self(&self) < 0 ||
            spool_pid_write(dir13, &self, &e) < 0)
            _exit(1);
        close(fd);
        sleep(60);
        _exit(0);
    }
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    close(p[1]);
    start_sluiced();
    accept_sluiced();
    reg = register_node(NULL);
    jobs = json_object_get(reg, "jobs");
    n13 = 0;
    for (size_t i = 0; i < json_array_size(jobs); i++) {
        /* (an end of the previous test may still be listed) */
        assert_int_equal(json_unpack(json_array_get(jobs, i), "{s:I, s:s}",
                                     "job_id", &id, "state", &st),
                         0);
        assert_int_not_equal(id, 12);
        if (id == 13) {
            assert_string_equal(st, "running");
            n13++;
        }
    }
    assert_int_equal(n13, 1);
    json_decref(reg);
    assert_false(exists(dir12));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH,
                          launch_body(12, "#!/bin/sh\nexit 2\n"), msg,
                          sizeof(msg)),
                     0);
    expect_end(12, 2, 0);
    /* the adopted supervisor dies without a status: reported killed */
    kill(helper, SIGKILL);
    waitpid(helper, NULL, 0);
    T.helper = 0;
    expect_end(13, 0, SIGKILL);
}

static void test_reregister_when_asked(void **state)
{
    struct proto_frame f;
    json_t *reg;

    (void)state;
    expect(PROTO_MSG_NODE_HEARTBEAT, false, &f);
    send_frame(f.type, PROTO_F_REPLY | PROTO_F_ERROR, f.seq,
               proto_error_body(EAGAIN, "register again"));
    proto_frame_clear(&f);
    /* sluiced drops the connection and registers on a new one */
    while (read_frame(&f, WAIT_MS))
        proto_frame_clear(&f);
    close(T.cfd);
    evbuffer_drain(T.in, evbuffer_get_length(T.in));
    accept_sluiced();
    reg = register_node(NULL);
    assert_string_equal(json_string_value(json_object_get(reg, "node")),
                        "node01");
    json_decref(reg);
}

/* GPU variables for gpus [3, 1], and with ConstrainDevices the other
 * GPUs' device files refused to the job. */
static void test_gpus(void **state)
{
    bool fenced = T.devices && log_has("devices");
    char msg[256], path[512], script[1024], want[256], *out;
    json_t *b, *end;

    (void)state;
    snprintf(script, sizeof(script),
             "#!/bin/sh\necho \"cvd=$CUDA_VISIBLE_DEVICES "
             "jg=$SLURM_JOB_GPUS n=$SLURM_GPUS_ON_NODE "
             "ord=$GPU_DEVICE_ORDINAL\"\n"
             "for i in 0 1 2 3; do [ -c %s/dev/nvidia$i ] || continue\n"
             "  if (exec 3<%s/dev/nvidia$i) 2>&1 | grep -q 'not permitted'\n"
             "  then echo \"$i denied\"; else echo \"$i open\"; fi\n"
             "done\n",
             T.dir, T.dir);
    b = launch_body(20, script);
    json_object_set_new(json_object_get(b, "job"), "gpus",
                        json_pack("[i, i]", 3, 1));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    end = expect_end_body(20);
    assert_int_equal(json_integer_value(json_object_get(end, "exit_code")), 0);
    assert_true(json_is_false(json_object_get(end, "oom")));
    json_decref(end);
    snprintf(path, sizeof(path), "%s/out-20-t1.txt", T.work);
    out = slurp(path);
    assert_non_null(out);
    if (fenced) {
        assert_string_equal(out, "cvd=0,1 jg=1,3 n=2 ord=0,1\n0 denied\n"
                                 "1 open\n2 denied\n3 open\n");
    } else {
        printf("# SKIP device fencing: %s\n",
               T.devices ? "no devices cgroup (see the node's cgroup= line)"
                         : "mknod is not allowed here");
        snprintf(want, sizeof(want), "cvd=1,3 jg=1,3 n=2 ord=1,3\n");
        assert_memory_equal(out, want, strlen(want));
    }

    /* an index the node does not have */
    b = launch_body(21, "#!/bin/sh\ntrue\n");
    json_object_set_new(json_object_get(b, "job"), "gpus", json_pack("[i]", 7));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), EINVAL);
    assert_string_equal(msg,
                        "gpus: index 7 is not a GPU of node01 (it has 4 GPUs)");
}

/* A job over its memory: the OOM killer, and JOB_END says oom. */
static void test_oom(void **state)
{
    char msg[256];
    json_t *b, *end;

    (void)state;
    if (!log_has("memory")) {
        printf("# SKIP OOM: no memory cgroup (see the node's cgroup= line)\n");
        return;
    }
    b = launch_body(22, "#!/bin/sh\nhead -c 1000M /dev/zero | tail "
                        ">/dev/null\necho \"tail $?\"\n");
    json_object_set_new(json_object_get(b, "job"), "mem_mib", json_integer(32));
    assert_int_equal(call(PROTO_MSG_JOB_LAUNCH, b, msg, sizeof(msg)), 0);
    end = expect_end_body(22);
    assert_true(json_is_true(json_object_get(end, "oom")));
    json_decref(end);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register),
        cmocka_unit_test(test_launch_runs_job),
        cmocka_unit_test(test_launch_refused),
        cmocka_unit_test(test_signal_and_kill),
        cmocka_unit_test(test_end_names_its_run),
        cmocka_unit_test(test_slurm_user),
        cmocka_unit_test(test_restart_survival),
        cmocka_unit_test(test_running_job_after_restart),
        cmocka_unit_test(test_launch_cut_short),
        cmocka_unit_test(test_reregister_when_asked),
        cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_oom),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
