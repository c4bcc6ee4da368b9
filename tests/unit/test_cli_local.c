/*
 * sluice up's view of the daemons it started: local_running and
 * local_gone against real processes (ours, another program, a zombie, one
 * without a command line to read, as a process in the middle of its exec
 * is), and local_exiting against one killed that cannot exit yet.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/local.h"

static char tmpdir[64];
static struct local_dir dir;

static int setup(void **state)
{
    struct err e;

    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sluice-test-local.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    return local_dir_init(&dir, tmpdir, true, &e);
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    local_dir_clear(&dir);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void pid_file(const char *name, pid_t pid)
{
    char *path = local_pid_file(&dir, name);
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fprintf(fp, "%ld\n", (long)pid);
    assert_int_equal(fclose(fp), 0);
    free(path);
}

/* A process whose command line is the controller's on dir's
 * configuration: sh running a sleep, with argv[0] .../sluicectld. */
static pid_t fake_ctld(void)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        /* "; :" keeps sh from replacing itself with sleep */
        execl("/bin/sh", "/opt/sluice/bin/sluicectld", "-c",
              "sleep 30; :", "-f", dir.conf, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait until pid has exec'd (its command line is no longer ours). */
static void wait_exec(pid_t pid)
{
    char path[64], buf[256];
    FILE *fp;
    size_t n = 0;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    for (int i = 0; i < 500; i++) {
        if ((fp = fopen(path, "r")) != NULL) {
            n = fread(buf, 1, sizeof(buf) - 1, fp);
            fclose(fp);
        }
        buf[n] = '\0';
        if (n > 0 && strstr(buf, "sluicectld") != NULL)
            return;
        usleep(10000);
    }
    fail_msg("pid %d did not exec", (int)pid);
}

static void test_ours(void **state)
{
    pid_t pid = fake_ctld();
    int status;

    (void)state;
    wait_exec(pid);
    pid_file(LOCAL_CTLD_NAME, pid);
    assert_int_equal(local_running(&dir, LOCAL_CTLD_NAME), pid);
    assert_false(local_gone(&dir, LOCAL_CTLD_NAME));
    /* a node's name needs -N NAME too */
    pid_file("node01", pid);
    assert_int_equal(local_running(&dir, "node01"), 0);
    assert_true(local_gone(&dir, "node01"));
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    /* exited and reaped */
    assert_int_equal(local_running(&dir, LOCAL_CTLD_NAME), 0);
    assert_true(local_gone(&dir, LOCAL_CTLD_NAME));
}

static void test_gone(void **state)
{
    char *path = local_pid_file(&dir, LOCAL_CTLD_NAME);
    pid_t pid;
    int status;

    (void)state;
    unlink(path);
    free(path);
    assert_true(local_gone(&dir, LOCAL_CTLD_NAME)); /* no pid file */
    pid_file(LOCAL_CTLD_NAME, getpid()); /* another program: this test */
    assert_int_equal(local_running(&dir, LOCAL_CTLD_NAME), 0);
    assert_true(local_gone(&dir, LOCAL_CTLD_NAME));

    /* a zombie: exited, not reaped yet */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    for (int i = 0; i < 500; i++) {
        siginfo_t si = {0};
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0 &&
            si.si_pid == pid)
            break;
        usleep(10000);
    }
    pid_file(LOCAL_CTLD_NAME, pid);
    assert_true(local_gone(&dir, LOCAL_CTLD_NAME));
    assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* A live process with no command line to read (a process between the
 * switch to its new image and the setup of its arguments shows none) is
 * not taken for gone, though it is not known to be ours either.  A kernel
 * thread is such a process that stays: kthreadd, pid 2. */
static void test_no_cmdline(void **state)
{
    char comm[32] = "";
    FILE *fp = fopen("/proc/2/comm", "r");
    int c = EOF;

    (void)state;
    if (fp != NULL) {
        if (fgets(comm, sizeof(comm), fp) == NULL)
            comm[0] = '\0';
        fclose(fp);
    }
    if ((fp = fopen("/proc/2/cmdline", "r")) != NULL) {
        c = fgetc(fp);
        fclose(fp);
    }
    if (strncmp(comm, "kthreadd", 8) != 0 || c != EOF ||
        (kill(2, 0) < 0 && errno != EPERM)) {
        printf("# SKIP no kthreadd at pid 2 here\n");
        return;
    }
    pid_file(LOCAL_CTLD_NAME, 2);
    assert_int_equal(local_running(&dir, LOCAL_CTLD_NAME), 0);
    assert_false(local_gone(&dir, LOCAL_CTLD_NAME));
}

/* local_dir_check walks the spool while a node daemon of the cluster
 * (up restarts only what is missing) makes and removes job directories:
 * a directory removed between nftw's listing and its opening must not
 * fail the check (it did, with an empty reason, in a CI run of t05). */
static pid_t churn = -1;

/* After test_check_churn, also when it failed: the churning child goes. */
static int churn_cleanup(void **state)
{
    (void)state;
    if (churn > 0) {
        kill(churn, SIGKILL);
        waitpid(churn, NULL, 0);
    }
    churn = -1;
    return 0;
}

static void test_check_churn(void **state)
{
    char node[128], job[192], file[224];
    struct err e = {""};
    pid_t pid;

    (void)state;
    snprintf(node, sizeof(node), "%s/node01", dir.spool);
    assert_int_equal(mkdir(node, 0700), 0);
    churn = pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (unsigned n = 0;; n++) {
            snprintf(job, sizeof(job), "%s/job.%u", node, n % 64);
            snprintf(file, sizeof(file), "%s/status", job);
            if (mkdir(job, 0700) == 0) {
                FILE *fp = fopen(file, "w");
                if (fp != NULL)
                    fclose(fp);
            } else {
                unlink(file);
                rmdir(job);
            }
        }
    }
    for (int i = 0; i < 2000; i++)
        if (local_dir_check(&dir, &e) != 0)
            fail_msg("check %d failed: \"%s\"", i, e.text);
}

/* Write text to file in cgdir; 0 or -1. */
static int put_file(const char *cgdir, const char *file, const char *text)
{
    char path[256];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", cgdir, file);
    if ((fp = fopen(path, "w")) == NULL)
        return -1;
    fputs(text, fp);
    return fclose(fp) == 0 ? 0 : -1;
}

/* Whether file in cgdir starts with text. */
static bool file_is(const char *cgdir, const char *file, const char *text)
{
    char path[256], buf[64] = "";
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", cgdir, file);
    if ((fp = fopen(path, "r")) == NULL)
        return false;
    if (fgets(buf, sizeof(buf), fp) == NULL)
        buf[0] = '\0';
    fclose(fp);
    return strncmp(buf, text, strlen(text)) == 0;
}

/* A daemon killed while it cannot leave the kernel (here: in a frozen
 * cgroup v1 freezer; also a wait on a kernel lock) keeps its command line
 * and its files: local_running still names it, and local_exiting tells
 * that it is on its way out, so that sluice up waits for it instead of
 * taking it for running or starting a second one that cannot lock the
 * pid file.  Skipped without a v1 freezer we may write. */
static char cg[128];
static pid_t frozen = -1;

/* After test_exiting, also when it failed: nothing left frozen. */
static int exiting_cleanup(void **state)
{
    (void)state;
    if (cg[0] != '\0') {
        put_file(cg, "freezer.state", "THAWED");
        if (frozen > 0) {
            kill(frozen, SIGKILL);
            waitpid(frozen, NULL, 0);
        }
        rmdir(cg);
    }
    frozen = -1;
    cg[0] = '\0';
    return 0;
}

static void test_exiting(void **state)
{
    char pidtext[24], st = 0;
    pid_t pid;
    int status;

    (void)state;
    snprintf(cg, sizeof(cg), "/sys/fs/cgroup/freezer/sluice-test-local-%d",
             (int)getpid());
    if (access("/sys/fs/cgroup/freezer/cgroup.procs", W_OK) < 0 ||
        mkdir(cg, 0755) < 0) {
        cg[0] = '\0';
        printf("# SKIP no cgroup v1 freezer to write here\n");
        return;
    }
    frozen = pid = fake_ctld();
    wait_exec(pid);
    pid_file(LOCAL_CTLD_NAME, pid);
    assert_int_equal(local_exiting(&dir, LOCAL_CTLD_NAME, &st), 0);

    snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
    assert_int_equal(put_file(cg, "cgroup.procs", pidtext), 0);
    assert_int_equal(put_file(cg, "freezer.state", "FROZEN"), 0);
    for (int i = 0; i < 500 && !file_is(cg, "freezer.state", "FROZEN"); i++)
        usleep(10000);
    assert_true(file_is(cg, "freezer.state", "FROZEN"));
    kill(pid, SIGKILL);
    usleep(100000);
    assert_int_equal(local_running(&dir, LOCAL_CTLD_NAME), pid);
    assert_false(local_gone(&dir, LOCAL_CTLD_NAME));
    assert_int_equal(local_exiting(&dir, LOCAL_CTLD_NAME, &st), pid);
    assert_int_equal(st, 'D');

    assert_int_equal(put_file(cg, "freezer.state", "THAWED"), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    frozen = -1;
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_int_equal(local_exiting(&dir, LOCAL_CTLD_NAME, &st), 0);
    assert_true(local_gone(&dir, LOCAL_CTLD_NAME));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ours),
        cmocka_unit_test(test_gone),
        cmocka_unit_test(test_no_cmdline),
        cmocka_unit_test_teardown(test_check_churn, churn_cleanup),
        cmocka_unit_test_teardown(test_exiting, exiting_cleanup),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
