/*
 * sluiced signals a job's process group only while its leader is the
 * process recorded in the spool (audit finding 10); a launch that timed
 * out kills the job's process even when it was stopped before its exec
 * (finding 18); a spool of another boot is told apart by its boot_id.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "noded/jobs_int.h"
#include "noded/spool.h"

static char tmpdir[] = "/tmp/sluice-test-pgid.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A child in a process group of its own; stopped, or waiting. */
static pid_t group_child(bool stop)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        if (stop)
            raise(SIGSTOP);
        for (;;)
            pause();
    }
    setpgid(pid, pid);
    return pid;
}

/* The signal that ended child pid, 0 if it is still there after 2 s. */
static int ended_by(pid_t pid)
{
    int st;

    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
        usleep(10000);
    }
    return 0;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_group_kill_needs_its_leader(void **state)
{
    pid_t leader = group_child(false), decoy = group_child(false);
    struct njob job = {.id = 1};

    (void)state;
    assert_int_equal(spool_pid_of(leader, &job.leader), 0);
    /* the recorded pgid is now someone else's group: left alone */
    job.pgid = decoy;
    assert_int_equal(njobs_group_kill(&job, SIGKILL, true), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(ended_by(decoy), 0);
    /* the leader's pid, but another process (start ticks differ) */
    job.pgid = leader;
    job.leader.start_ticks++;
    assert_int_equal(njobs_group_kill(&job, SIGKILL, true), -1);
    assert_int_equal(ended_by(leader), 0);
    /* no leader recorded (a spool of an older sluiced): left alone */
    job.leader = (struct spool_pid){0};
    assert_int_equal(njobs_group_kill(&job, SIGKILL, true), -1);
    /* the recorded leader itself: signalled */
    assert_int_equal(spool_pid_of(leader, &job.leader), 0);
    assert_int_equal(njobs_group_kill(&job, SIGTERM, true), 0);
    assert_int_equal(ended_by(leader), SIGTERM);
    reap(decoy);
}

/* The job's process was stopped after setuid and before exec (a user's
 * `kill -STOP -1`): no pgid reported yet.  Abandoning the launch kills it
 * and the supervisor. */
static void test_abandon_kills_unstarted_job(void **state)
{
    char dir[256];
    struct cgroup cg = {.version = CGROUP_NONE};
    struct njob job = {.id = 7, .dir = dir};
    struct spool_pid sup, leader;
    struct err e;
    pid_t s = group_child(false), c = group_child(true);
    int st;

    (void)state;
    assert_int_equal(waitpid(c, &st, WUNTRACED), c);
    assert_true(WIFSTOPPED(st));
    snprintf(dir, sizeof(dir), "%s/job.7", tmpdir);
    assert_int_equal(mkdir(dir, 0711), 0);
    assert_int_equal(spool_pid_of(s, &sup), 0);
    assert_int_equal(spool_pid_of(c, &leader), 0);
    assert_int_equal(spool_pid_write(dir, &sup, &e), 0);
    assert_int_equal(spool_pid_write_as(dir, "leader", &leader, &e), 0);
    njobs_launch_abandon(&cg, &job);
    assert_int_equal(ended_by(c), SIGKILL);
    assert_int_equal(ended_by(s), SIGKILL);
}

static void test_boot_id(void **state)
{
    char dir[256], id[SPOOL_BOOT_ID_MAX];
    struct err e;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/job.8", tmpdir);
    assert_int_equal(mkdir(dir, 0711), 0);
    assert_int_equal(spool_boot_id(id, &e), 0);
    assert_int_equal(strlen(id), 36);
    assert_int_equal(spool_same_boot(dir, id, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(spool_write(dir, "boot_id", id, strlen(id), 0644,
                                 (uid_t)-1, (gid_t)-1, &e),
                     0);
    assert_int_equal(spool_same_boot(dir, id, &e), 1);
    assert_int_equal(spool_same_boot(dir,
                                     "00000000-0000-0000-0000-0000000000"
                                     "00",
                                     &e),
                     0);
    assert_non_null(strstr(e.text, "this boot is"));
}

/* A job's supervisor.pid: the supervisor, its leader and the boot id in
 * one file, read back by each reader; the older separate files still
 * read where supervisor.pid has only its first line. */
static void test_pids_in_one_file(void **state)
{
    char dir[256], id[SPOOL_BOOT_ID_MAX];
    struct spool_pid self, leader, got;
    struct err e;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/job.9", tmpdir);
    assert_int_equal(mkdir(dir, 0711), 0);
    assert_int_equal(spool_boot_id(id, &e), 0);
    assert_int_equal(spool_pid_self(&self), 0);
    leader = (struct spool_pid){.pid = 4242, .start_ticks = 99};
    assert_int_equal(spool_pids_write(dir, &self, &leader, id, &e), 0);
    assert_int_equal(spool_pid_read(dir, &got, &e), 0);
    assert_int_equal(got.pid, self.pid);
    assert_true(got.start_ticks == self.start_ticks);
    assert_int_equal(spool_leader_read(dir, &got, &e), 0);
    assert_int_equal(got.pid, 4242);
    assert_true(got.start_ticks == 99);
    assert_int_equal(spool_same_boot(dir, id, &e), 1);
    assert_int_equal(spool_same_boot(dir, "another", &e), 0);
    /* an older spool: supervisor.pid with one line, leader and boot_id
     * in files of their own */
    assert_int_equal(spool_pid_write(dir, &self, &e), 0);
    assert_int_equal(spool_leader_read(dir, &got, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(spool_same_boot(dir, id, &e), -1);
    assert_int_equal(spool_pid_write_as(dir, "leader", &leader, &e), 0);
    assert_int_equal(spool_write(dir, "boot_id", id, strlen(id), 0644,
                                 (uid_t)-1, (gid_t)-1, &e),
                     0);
    assert_int_equal(spool_leader_read(dir, &got, &e), 0);
    assert_int_equal(got.pid, 4242);
    assert_int_equal(spool_same_boot(dir, id, &e), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_kill_needs_its_leader),
        cmocka_unit_test(test_abandon_kills_unstarted_job),
        cmocka_unit_test(test_boot_id),
        cmocka_unit_test(test_pids_in_one_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
