/*
 * Unit tests for the node's spool and resource helpers: %n/%h expansion,
 * the status file round trip (and damaged ones), supervisor pids told
 * apart from reused ones, listing and removal, /proc/meminfo parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "noded/resources.h"
#include "noded/spool.h"

static char tmpdir[] = "/tmp/sluice-test-spool.XXXXXX";

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

static void test_expand(void **state)
{
    char *s;

    (void)state;
    s = spool_expand("/var/spool/sluice/%n", "node01", "host1");
    assert_string_equal(s, "/var/spool/sluice/node01");
    free(s);
    s = spool_expand("/d/%h/%n/100%%/%x", "n", "h");
    assert_string_equal(s, "/d/h/n/100%/%x");
    free(s);
}

static void test_status_round_trip(void **state)
{
    char *dir = spool_job_dir(tmpdir, 7);
    struct spool_status in = {.exit_code = 137,
                              .signal = 9,
                              .start_time = 1700000000,
                              .end_time = 1700000100,
                              .oom = true},
                        out;
    struct err e;

    (void)state;
    assert_int_equal(spool_mkdirs(dir, &e), 0);
    assert_int_equal(spool_status_read(dir, &out, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(spool_status_write(dir, &in, &e), 0);
    memset(&out, 0, sizeof(out));
    assert_int_equal(spool_status_read(dir, &out, &e), 0);
    assert_int_equal(out.exit_code, 137);
    assert_int_equal(out.signal, 9);
    assert_int_equal(out.start_time, 1700000000);
    assert_int_equal(out.end_time, 1700000100);
    assert_true(out.oom);
    assert_false(out.node_lost);
    /* a run lost with the machine says so; the flag reads back */
    in.node_lost = true;
    assert_int_equal(spool_status_write(dir, &in, &e), 0);
    memset(&out, 0, sizeof(out));
    assert_int_equal(spool_status_read(dir, &out, &e), 0);
    assert_true(out.node_lost);
    assert_int_equal(out.signal, 9);
    /* no temporary left behind */
    {
        char tmp[512];
        snprintf(tmp, sizeof(tmp), "%s/.status.tmp", dir);
        assert_int_equal(access(tmp, F_OK), -1);
    }
    free(dir);
}

/* The supervisor's order: publish (readable at once), then sync; a sync
 * after sluiced removed the directory fails and changes nothing. */
static void test_status_publish_sync(void **state)
{
    char *dir = spool_job_dir(tmpdir, 8);
    struct spool_status in = {.exit_code = 3,
                              .start_time = 1700000000,
                              .end_time = 1700000009},
                        out;
    struct err e;

    (void)state;
    assert_int_equal(spool_mkdirs(dir, &e), 0);
    assert_int_equal(spool_status_sync(dir, &e), -1); /* nothing yet */
    assert_int_equal(spool_status_publish(dir, &in, &e), 0);
    memset(&out, 0, sizeof(out));
    assert_int_equal(spool_status_read(dir, &out, &e), 0);
    assert_int_equal(out.exit_code, 3);
    assert_int_equal(out.end_time, 1700000009);
    assert_int_equal(spool_status_sync(dir, &e), 0);
    assert_int_equal(spool_remove(dir), 0);
    assert_int_equal(spool_status_sync(dir, &e), -1);
    assert_non_null(strstr(e.text, "status"));
    free(dir);
}

static void test_status_damaged(void **state)
{
    static const char *bad[] = {
        "",
        "{",
        "[]",
        "{\"exit_code\": 0}",
        "{\"exit_code\": 300, \"signal\": 0, \"start_time\": 1, "
        "\"end_time\": 2}",
        "{\"exit_code\": \"0\", \"signal\": 0, \"start_time\": 1, "
        "\"end_time\": 2}",
    };
    char *dir = spool_job_dir(tmpdir, 8);
    struct spool_status st;
    struct err e;

    (void)state;
    assert_int_equal(spool_mkdirs(dir, &e), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(spool_write(dir, "status", bad[i], strlen(bad[i]),
                                     0644, (uid_t)-1, (gid_t)-1, &e),
                         0);
        assert_int_equal(spool_status_read(dir, &st, &e), -1);
        assert_int_equal(errno, EBADMSG);
        assert_non_null(strstr(e.text, "not a job status"));
    }
    free(dir);
}

/* Field n (1-based, as proc(5) numbers them) of /proc/self/stat. */
static unsigned long long self_stat_field(int n)
{
    char buf[1024], *p;
    FILE *fp = fopen("/proc/self/stat", "r");
    unsigned long long v = 0;

    assert_non_null(fp);
    assert_non_null(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    p = strrchr(buf, ')') + 2; /* field 3 */
    for (int field = 3; field < n; field++)
        p = strchr(p, ' ') + 1;
    sscanf(p, "%llu", &v);
    return v;
}

static void test_pid(void **state)
{
    char *dir = spool_job_dir(tmpdir, 9);
    struct spool_pid self, back, gone;
    struct err e;
    pid_t child;

    (void)state;
    assert_int_equal(spool_mkdirs(dir, &e), 0);
    assert_int_equal(spool_pid_self(&self), 0);
    assert_true(spool_pid_alive(&self));
    assert_int_equal(spool_pid_write(dir, &self, &e), 0);
    assert_int_equal(spool_pid_read(dir, &back, &e), 0);
    assert_int_equal(back.pid, self.pid);
    assert_true(back.start_ticks == self.start_ticks);
    /* the identity is the start time (field 22), which does not move
     * when the process maps more memory (vsize, field 23, does) */
    assert_true(self.start_ticks == self_stat_field(22));
    {
        void *m =
            mmap(NULL, 64 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        assert_true(m != MAP_FAILED);
        assert_true(spool_pid_alive(&self));
        munmap(m, 64 << 20);
    }
    /* the same pid with another start time is somebody else */
    back.start_ticks++;
    assert_false(spool_pid_alive(&back));
    /* an exited process */
    child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    gone = (struct spool_pid){child, self.start_ticks};
    assert_false(spool_pid_alive(&gone));
    free(dir);
}

static void test_int_list_remove(void **state)
{
    char dir[256], *j;
    uint32_t *ids;
    size_t n;
    int64_t v;
    struct err e;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/list", tmpdir);
    assert_int_equal(spool_mkdirs(dir, &e), 0);
    for (uint32_t id = 30; id > 0; id -= 10) {
        j = spool_job_dir(dir, id);
        assert_int_equal(mkdir(j, 0711), 0);
        free(j);
    }
    /* not job directories */
    for (const char *const *p =
             (const char *const[]){"job.0", "job.x", "job.007", "job.",
                                   "sluiced.sock", NULL};
         *p; p++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, *p);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    assert_int_equal(spool_list(dir, &ids, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], 10);
    assert_int_equal(ids[1], 20);
    assert_int_equal(ids[2], 30);
    free(ids);

    j = spool_job_dir(dir, 20);
    assert_int_equal(spool_int_write(j, "pgid", 12345, 0600, &e), 0);
    assert_int_equal(spool_int_read(j, "pgid", &v, &e), 0);
    assert_int_equal(v, 12345);
    assert_int_equal(
        spool_write(j, "kill", "x1\n", 3, 0644, (uid_t)-1, (gid_t)-1, &e), 0);
    assert_int_equal(spool_int_read(j, "kill", &v, &e), -1);
    assert_int_equal(errno, EBADMSG);
    assert_int_equal(spool_remove(j), 0);
    assert_int_equal(access(j, F_OK), -1);
    assert_int_equal(spool_remove(j), 0); /* gone already: fine */
    free(j);
}

static void test_meminfo(void **state)
{
    uint64_t mib = 0;

    (void)state;
    assert_int_equal(resources_parse_meminfo("MemTotal:       24683496 kB\n"
                                             "MemFree:         1000 kB\n",
                                             &mib),
                     0);
    assert_int_equal(mib, 24104);
    assert_int_equal(resources_parse_meminfo("MemFree: 1 kB\n"
                                             "MemTotal: 2048 kB\n",
                                             &mib),
                     0);
    assert_int_equal(mib, 2);
    assert_int_equal(resources_parse_meminfo("MemFree: 1 kB\n", &mib), -1);
    assert_int_equal(resources_parse_meminfo("MemTotal: lots\n", &mib), -1);
    assert_true(resources_cpus() >= 1);
}

static void test_dir_join(void **state)
{
    char *p;

    (void)state;
    p = resources_dir_join("/etc/sluice/sluice.conf", "gres.conf");
    assert_string_equal(p, "/etc/sluice/gres.conf");
    free(p);
    p = resources_dir_join("sluice.conf", "gres.conf");
    assert_string_equal(p, "gres.conf");
    free(p);
    p = resources_dir_join("a/b.conf", "/abs/gres.conf");
    assert_string_equal(p, "/abs/gres.conf");
    free(p);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_gres_detect(void **state)
{
    char conf_path[256], gres_path[256];
    struct resources r;
    struct conf *c;
    json_t *gpus;
    struct err e;

    (void)state;
    snprintf(conf_path, sizeof(conf_path), "%s/sluice.conf", tmpdir);
    snprintf(gres_path, sizeof(gres_path), "%s/gres.conf", tmpdir);
    write_file(conf_path, "ClusterName=t\nSlurmctldHost=m\nGresTypes=gpu\n"
                          "SlurmdParameters=config_overrides\n"
                          "NodeName=n[1-2] CPUs=64 RealMemory=1000 "
                          "Gres=gpu:4\nPartitionName=p Nodes=ALL\n");
    c = conf_load(conf_path, NULL, &e);
    if (c == NULL)
        fail_msg("%s", e.text);

    /* no gres.conf and no NVML: no GPUs, and the note says why */
    setenv("SLUICE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(
        resources_detect(c, conf_node_find(c, "n1"), false, &r, &e), 0);
    assert_string_equal(r.gres, "");
    assert_int_equal(r.gpus.n, 0);
    assert_string_equal(r.gpus.note,
                        "no gres.conf and NVML not found: install the "
                        "NVIDIA driver or add gres.conf");
    assert_int_equal(r.cpus, 64); /* config_overrides */
    assert_int_equal(r.mem_mib, 1000);
    resources_fini(&r);

    /* count-only for n1; device files for n2, one of them missing */
    write_file(gres_path, "NodeName=n1 Name=gpu Count=4\n"
                          "NodeName=n2 Name=gpu Type=h200 "
                          "File=/dev/null,/nonexistent/nvidia1\n");
    assert_int_equal(
        resources_detect(c, conf_node_find(c, "n1"), false, &r, &e), 0);
    assert_string_equal(r.gres, "gpu:4");
    assert_int_equal(r.gpus.n, 4);
    assert_null(r.gpus.v[0].file);
    assert_string_equal(r.gpus.note, "");
    resources_fini(&r);
    assert_int_equal(
        resources_detect(c, conf_node_find(c, "n2"), false, &r, &e), 0);
    assert_string_equal(r.gres, "gpu:h200:1");
    assert_int_equal(r.gpus.n, 1);
    assert_non_null(strstr(r.gpus.note, "/nonexistent/nvidia1: No such file "
                                        "or directory (/"));
    gpus = resources_gpus_json(&r);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(gpus, 0), "file")),
        "/dev/null");
    json_decref(gpus);
    resources_fini(&r);

    /* a broken gres.conf is an error with its place */
    write_file(gres_path, "Name=gpu Count=lots\n");
    assert_int_equal(
        resources_detect(c, conf_node_find(c, "n1"), false, &r, &e), -1);
    assert_non_null(strstr(e.text, "gres.conf:1"));
    unlink(gres_path);
    unsetenv("SLUICE_NVML_LIBRARY");
    conf_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_status_round_trip),
        cmocka_unit_test(test_status_publish_sync),
        cmocka_unit_test(test_status_damaged),
        cmocka_unit_test(test_pid),
        cmocka_unit_test(test_int_list_remove),
        cmocka_unit_test(test_meminfo),
        cmocka_unit_test(test_dir_join),
        cmocka_unit_test(test_gres_detect),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
