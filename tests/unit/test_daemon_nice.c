/*
 * Unit tests for daemon_cpu_priority (common/daemon.c): the nice written
 * to the daemon's autogroup file only when the daemon's session is its
 * own and the kernel has autogroups turned on, with the reason otherwise;
 * and for launch_nice (noded/launch.c): which jobs' launches run at it.
 * Files of the test's own stand in for /proc/self/autogroup and the
 * kernel's switch; the session cases run in forked children.
 */
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "noded/launch.h"

static char top[64], ag[96], on[96];

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static char *get(const char *path)
{
    static char buf[64];
    FILE *fp = fopen(path, "r");
    size_t n;

    assert_non_null(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    strcpy(top, "/tmp/sluice-test-nice.XXXXXX");
    if (mkdtemp(top) == NULL)
        return -1;
    snprintf(ag, sizeof(ag), "%s/autogroup", top);
    snprintf(on, sizeof(on), "%s/enabled", top);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    return system(cmd) == 0 ? 0 : -1;
}

/* Where daemon_cpu_priority runs: a child that leads a session of its
 * own; a grandchild whose session leader has exited (as after
 * daemon_detach); a grandchild whose leader waits for it (a daemon run
 * from a shell). */
enum where { LEADER, ORPHAN, SHARED };

/* Run daemon_cpu_priority(nice) there; its return value, and its message
 * in text. */
static int run_in(enum where w, int nice, char *text, size_t len)
{
    int p[2], status, rc = -9;
    pid_t pid;
    ssize_t n;

    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct err e;
        char out[sizeof(e.text) + 8];

        close(p[0]);
        setsid();
        if (w != LEADER) {
            pid_t g = fork();
            if (g > 0 && w == SHARED)
                _exit(waitpid(g, NULL, 0) == g ? 0 : 1);
            if (g != 0)
                _exit(g < 0);
            while (w == ORPHAN && kill(getsid(0), 0) == 0)
                usleep(1000); /* the leader gone */
        }
        rc = daemon_cpu_priority(nice, ag, on, &e);
        n = snprintf(out, sizeof(out), "%d %s", rc, e.text);
        if (write(p[1], out, (size_t)n) != n)
            _exit(2);
        _exit(0);
    }
    close(p[1]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    n = read(p[0], text, len - 1);
    close(p[0]);
    assert_true(n > 0);
    text[n] = '\0';
    sscanf(text, "%d", &rc);
    memmove(text, strchr(text, ' ') + 1, strlen(strchr(text, ' ') + 1) + 1);
    return rc;
}

/* Applied in a session of its own: the nice is what the file gets. */
static void test_applied(void **state)
{
    char text[512];

    (void)state;
    put(ag, "");
    put(on, "1\n");
    assert_int_equal(run_in(LEADER, -10, text, sizeof(text)), 1);
    assert_string_equal(get(ag), "-10");
    put(ag, "");
    assert_int_equal(run_in(ORPHAN, 5, text, sizeof(text)), 1);
    assert_string_equal(get(ag), "5");
    /* 0 too (a reconfigure back to 0) */
    put(ag, "");
    assert_int_equal(run_in(LEADER, 0, text, sizeof(text)), 1);
    assert_string_equal(get(ag), "0");
    /* no switch file: autogroups are taken to be on */
    put(ag, "");
    unlink(on);
    assert_int_equal(run_in(LEADER, -3, text, sizeof(text)), 1);
    assert_string_equal(get(ag), "-3");
}

/* Not applied, with the reason; the file untouched. */
static void test_not_applied(void **state)
{
    char text[512];

    (void)state;
    put(ag, "");
    put(on, "1\n");
    /* a session whose leader is there: a shell's */
    assert_int_equal(run_in(SHARED, -10, text, sizeof(text)), 0);
    assert_non_null(strstr(text, "shares its session"));
    /* autogroups turned off */
    put(on, "0\n");
    assert_int_equal(run_in(LEADER, -10, text, sizeof(text)), 0);
    assert_non_null(strstr(text, "autogroups are turned off here "
                                 "(kernel.sched_autogroup_enabled=0)"));
    put(on, "1\n");
    assert_string_equal(get(ag), "");
    /* no autogroup file: a kernel without autogroups */
    unlink(ag);
    assert_int_equal(run_in(LEADER, -10, text, sizeof(text)), 0);
    assert_non_null(strstr(text, "this kernel has no autogroups"));
    assert_non_null(strstr(text, "No such file or directory"));
}

/* The kernel refuses the write: -1, with the nice and why. */
static void test_refused(void **state)
{
    char text[512];

    (void)state;
    put(on, "1\n");
    snprintf(ag, sizeof(ag), "/dev/full");
    assert_int_equal(run_in(LEADER, -10, text, sizeof(text)), -1);
    assert_non_null(strstr(text, "cannot set the autogroup's nice to -10: "
                                 "No space left on device"));
    snprintf(ag, sizeof(ag), "%s/autogroup", top);
}

static struct conf *tiers(const char *extra)
{
    char text[1024];
    struct err e;
    struct conf *c;

    snprintf(text, sizeof(text),
             "ClusterName=t\nSlurmctldHost=localhost\n%s"
             "NodeName=node[01-03] CPUs=4 State=UNKNOWN\n"
             "PartitionName=all Nodes=node[01-02] Default=YES PriorityTier=1\n"
             "PartitionName=prod Nodes=node[01-02] PriorityTier=10\n"
             "PartitionName=mid Nodes=node01 PriorityTier=5\n"
             "PartitionName=solo Nodes=node03 PriorityTier=50\n",
             extra);
    c = conf_parse_string(text, "tiers.conf", NULL, &e);
    if (c == NULL)
        fail_msg("%s", e.text);
    return c;
}

/* The highest tier on a node with a lower one beside it gets the daemons'
 * nice; every other launch, and every launch with SluiceDaemonNice=0 (or
 * above), none. */
static void test_launch_nice(void **state)
{
    struct conf *c = tiers("");

    (void)state;
    assert_int_equal(launch_nice(c, "node01", "prod"), -10);
    assert_int_equal(launch_nice(c, "node02", "prod"), -10);
    assert_int_equal(launch_nice(c, "node01", "mid"), 0);
    assert_int_equal(launch_nice(c, "node01", "all"), 0);
    /* alone on its node: nothing to be queued behind */
    assert_int_equal(launch_nice(c, "node03", "solo"), 0);
    assert_int_equal(launch_nice(c, "node09", "prod"), 0);
    assert_int_equal(launch_nice(c, "node01", "nosuch"), 0);
    conf_destroy(c);
    c = tiers("SluiceDaemonNice=-5\n");
    assert_int_equal(launch_nice(c, "node02", "prod"), -5);
    conf_destroy(c);
    c = tiers("SluiceDaemonNice=0\n");
    assert_int_equal(launch_nice(c, "node02", "prod"), 0);
    conf_destroy(c);
    c = tiers("SluiceDaemonNice=3\n");
    assert_int_equal(launch_nice(c, "node02", "prod"), 0);
    conf_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_applied),
        cmocka_unit_test(test_not_applied),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_launch_nice),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
