/*
 * Unit tests for job containment: cgroup.conf, where the hierarchies are
 * (mountinfo), CPU lists, and, where this machine gives a writable cgroup
 * hierarchy to root, real job cgroups: every process found and killed
 * however it forked, the OOM killer recorded, a cpuset applied, and GPU
 * device files fenced (devices.deny on v1, a BPF program on v2).  Without
 * one the live tests say why on a "# SKIP" line and pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cgroupconf.h"
#include "noded/cgroup.h"

static char tmpdir[64];
/* the cgroups the live tests set up, emptied and removed at the end even
 * when a test failed half-way */
static struct cgroup live_cg[2];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sluice-test-cgroup.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    for (int i = 0; i < 2; i++) {
        if (live_cg[i].version == CGROUP_NONE)
            continue;
        for (uint32_t id = 11; id <= 14; id++) {
            cgroup_job_kill(&live_cg[i], id);
            cgroup_job_destroy(&live_cg[i], id);
        }
        cgroup_node_cleanup(&live_cg[i]);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_conf(void **state)
{
    struct cgroupconf c;
    struct conf_diag d;
    struct err e;

    (void)state;
    cgroupconf_defaults(&c);
    assert_int_equal(c.plugin, CGROUPCONF_AUTO);
    assert_string_equal(c.mountpoint, "/sys/fs/cgroup");
    assert_true(c.constrain_ram && c.constrain_cores && c.constrain_swap);
    assert_false(c.constrain_devices);

    conf_diag_init(&d);
    assert_int_equal(
        cgroupconf_parse_string("CgroupPlugin=cgroup/v2\n"
                                "CgroupMountpoint=/mnt/cg\n"
                                "ConstrainDevices=yes ConstrainCores=no\n"
                                "ConstrainRAMSpace=YES\nAllowedRAMSpace=110\n"
                                "CgroupAutomount=yes\nFrobnicate=1\n",
                                "cgroup.conf", &c, &d, &e),
        0);
    assert_int_equal(c.plugin, CGROUPCONF_V2);
    assert_string_equal(c.mountpoint, "/mnt/cg");
    assert_true(c.constrain_devices);
    assert_false(c.constrain_cores);
    assert_int_equal(c.allowed_ram_pct, 110);
    assert_int_equal(d.n_warnings, 2);
    assert_string_equal(d.items[0].text,
                        "CgroupAutomount is not supported by Sluice; ignored");
    assert_int_equal(d.items[0].line, 6);
    assert_string_equal(d.items[1].text,
                        "unknown cgroup.conf key 'Frobnicate' ignored");
    conf_diag_free(&d);

    /* errors name the place; c is left as it was */
    assert_int_equal(cgroupconf_parse_string("ConstrainRAMSpace=yes\n"
                                             "ConstrainDevices=maybe\n",
                                             "cgroup.conf", &c, NULL, &e),
                     -1);
    assert_string_equal(e.text, "cgroup.conf:2:1: ConstrainDevices=maybe: "
                                "expected yes or no");
    assert_int_equal(c.plugin, CGROUPCONF_V2);
    assert_int_equal(cgroupconf_parse_string("CgroupPlugin=cgroup/v3\n",
                                             "cgroup.conf", &c, NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "expected autodetect, cgroup/v1"));
    assert_int_equal(cgroupconf_parse_string("CgroupMountpoint=rel\n",
                                             "cgroup.conf", &c, NULL, &e),
                     -1);
    assert_int_equal(cgroupconf_load("/nonexistent/cgroup.conf", &c, NULL, &e),
                     -1);
    assert_int_equal(errno, ENOENT);
}

static void test_mounts(void **state)
{
    static const char *hybrid =
        "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup "
        "rw,cpu,cpuacct\n"
        "33 30 0:30 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
        "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "36 30 0:33 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer\n"
        "39 30 0:36 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
        "40 22 0:37 / /other/memory rw - cgroup cgroup rw,memory,devices\n";
    static const char *unified = "25 22 0:22 / /sys/fs/cgroup rw,nosuid - "
                                 "cgroup2 cgroup2 rw,nsdelegate\n";
    struct cgroup_mounts m;

    (void)state;
    cgroup_mounts_parse(hybrid, "/sys/fs/cgroup", &m);
    assert_false(m.v2);
    assert_string_equal(m.v1[CGROUP_MEMORY], "/sys/fs/cgroup/memory");
    assert_string_equal(m.v1[CGROUP_FREEZER], "/sys/fs/cgroup/freezer");
    assert_string_equal(m.v1[CGROUP_CPUSET], "/sys/fs/cgroup/cpuset");
    assert_string_equal(m.v1[CGROUP_DEVICES], ""); /* not under the mount */
    assert_string_equal(m.v1[CGROUP_PIDS], "");
    cgroup_mounts_parse(hybrid, "/sys/fs/cgroup/unified", &m);
    assert_true(m.v2);
    cgroup_mounts_parse(unified, "/sys/fs/cgroup", &m);
    assert_true(m.v2);
    assert_string_equal(m.v1[CGROUP_MEMORY], "");
    cgroup_mounts_parse("garbage\n\n", "/sys/fs/cgroup", &m);
    assert_false(m.v2);
}

static void test_cpus(void **state)
{
    uint32_t use[CPU_SETSIZE] = {0};
    cpu_set_t avail, out;
    char buf[64];

    (void)state;
    assert_int_equal(cgroup_cpus_parse("0-3,6,8-9", &avail), 0);
    cgroup_cpus_format(&avail, buf, sizeof(buf));
    assert_string_equal(buf, "0-3,6,8-9");
    assert_int_equal(cgroup_cpus_parse("3-1", &avail), -1);
    assert_int_equal(cgroup_cpus_parse("x", &avail), -1);
    assert_int_equal(cgroup_cpus_parse("", &avail), -1);

    assert_int_equal(cgroup_cpus_parse("0-7", &avail), 0);
    use[0] = use[1] = 1; /* a running job holds 0-1 */
    use[4] = 2;
    cgroup_pick_cpus(&avail, use, 3, &out);
    cgroup_cpus_format(&out, buf, sizeof(buf));
    assert_string_equal(buf, "2-3,5");
    cgroup_pick_cpus(&avail, use, 8, &out);
    cgroup_cpus_format(&out, buf, sizeof(buf));
    assert_string_equal(buf, "0-7");
}

/* --- live: a real hierarchy ------------------------------------------- */

/* A cgroup of this machine per conf, or NULL after a "# SKIP" line. */
static struct cgroup *live(const char *test, enum cgroupconf_plugin plugin,
                           const char *mnt)
{
    struct cgroup *cg = &live_cg[plugin == CGROUPCONF_V2];
    struct cgroupconf cc;

    cgroupconf_defaults(&cc);
    cc.plugin = plugin;
    cc.constrain_devices = true;
    if (mnt != NULL)
        snprintf(cc.mountpoint, sizeof(cc.mountpoint), "%s", mnt);
    if (geteuid() != 0) {
        printf("# SKIP %s: not root, cgroups are not writable\n", test);
        return NULL;
    }
    cgroup_setup(cg, &cc, "utest", tmpdir);
    if (cg->version == CGROUP_NONE) {
        printf("# SKIP %s: %s\n", test, cg->why);
        return NULL;
    }
    return cg;
}

/* Where a cgroup2 file system is mounted here ("" when nowhere). */
static void v2_mount(char *buf, size_t len)
{
    FILE *fp = fopen("/proc/self/mountinfo", "r");
    char line[1024], mnt[512], type[64];

    buf[0] = '\0';
    while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
        char *sep = strstr(line, " - ");
        if (sep && sscanf(sep, " - %63s", type) == 1 &&
            strcmp(type, "cgroup2") == 0 &&
            sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1) {
            snprintf(buf, len, "%s", mnt);
            break;
        }
    }
    if (fp != NULL)
        fclose(fp);
}

/* Fork a child that enters job id's cgroup and runs fn. */
static pid_t in_job(const struct cgroup *cg, uint32_t id, void (*fn)(void *),
                    void *arg)
{
    pid_t pid = fork();
    struct err e;

    assert_true(pid >= 0);
    if (pid == 0) {
        if (cgroup_job_enter(cg, id, &e) < 0) {
            fprintf(stderr, "enter: %s\n", e.text);
            _exit(99);
        }
        fn(arg);
        _exit(0);
    }
    return pid;
}

static void sleepers(void *arg)
{
    (void)arg;
    setsid();
    execl("/bin/sh", "sh", "-c",
          "sleep 300 & setsid sleep 301 & (nohup sleep 302 >/dev/null 2>&1 &)"
          "; exec sleep 303",
          (char *)NULL);
}

static size_t count_pids(const struct cgroup *cg, uint32_t id)
{
    pid_t *pids;
    size_t n;

    if (cgroup_job_pids(cg, id, &pids, &n) < 0)
        return 0;
    free(pids);
    return n;
}

/* Whether pid runs "sleep 303" (sleepers' shell after its exec). */
static bool execed_sleep(pid_t pid)
{
    char path[64], cmd[64] = "";
    FILE *fp;
    size_t n = 0;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    if ((fp = fopen(path, "r")) != NULL) {
        n = fread(cmd, 1, sizeof(cmd) - 1, fp);
        fclose(fp);
    }
    return n == 10 && memcmp(cmd,
                             "sleep\0"
                             "303",
                             9) == 0;
}

static void kill_everything(struct cgroup *cg)
{
    struct cgroup_job_spec s = {.job_id = 11};
    char path[CGROUP_PATH_MAX];
    struct err e;
    int status;
    pid_t pid;

    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    pid = in_job(cg, 11, sleepers, NULL);
    /* settled: the shell has exec'd its last sleep (its subshell, which
     * made a fourth process for a moment, is gone by then) */
    for (int i = 0; i < 300 && !(execed_sleep(pid) && count_pids(cg, 11) == 4);
         i++)
        usleep(10000);
    assert_int_equal(count_pids(cg, 11), 4); /* the shell and 3 sleeps */
    assert_int_equal(cgroup_job_signal(cg, 11, 0), 4);
    assert_int_equal(cgroup_job_kill(cg, 11), 0);
    assert_int_equal(count_pids(cg, 11), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_false(cgroup_job_oom(cg, 11));
    assert_int_equal(cgroup_job_destroy(cg, 11), 0);
    cgroup_job_path(cg, CGROUP_MEMORY, 11, path, sizeof(path));
    assert_int_equal(access(path, F_OK), -1);
}

static void test_kill_v1_or_v2(void **state)
{
    struct cgroup *cg = live("kill (default hierarchy)", CGROUPCONF_AUTO, NULL);

    (void)state;
    if (cg == NULL)
        return;
    kill_everything(cg);
    cgroup_node_cleanup(cg);
}

static void one_sleeper(void *arg)
{
    (void)arg;
    execl("/bin/sleep", "sleep", "300", (char *)NULL);
}

/* An earlier job's cgroup with the same id, a process still in it: the
 * new job's cgroup is made anyway (found by mkdir's EEXIST), emptied. */
static void test_debris(void **state)
{
    struct cgroup *cg = live("debris", CGROUPCONF_AUTO, NULL);
    struct cgroup_job_spec s = {.job_id = 12};
    struct err e;
    pid_t pid;

    (void)state;
    if (cg == NULL)
        return;
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    pid = in_job(cg, 12, one_sleeper, NULL);
    for (int i = 0; i < 300 && count_pids(cg, 12) != 1; i++)
        usleep(10000);
    assert_int_equal(count_pids(cg, 12), 1);
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("over debris: %s", e.text);
    assert_int_equal(count_pids(cg, 12), 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(cgroup_job_destroy(cg, 12), 0);
    cgroup_node_cleanup(cg);
}

static void test_kill_v2(void **state)
{
    char mnt[512];
    struct cgroup *cg;

    (void)state;
    v2_mount(mnt, sizeof(mnt));
    if (mnt[0] == '\0') {
        printf("# SKIP kill (cgroup v2): no cgroup2 file system mounted\n");
        return;
    }
    if ((cg = live("kill (cgroup v2)", CGROUPCONF_V2, mnt)) == NULL)
        return;
    assert_int_equal(cg->version, CGROUP_V2);
    kill_everything(cg);
    cgroup_node_cleanup(cg);
}

/* A job that counts in shared memory, every millisecond. */
static void counting(void *arg)
{
    volatile uint64_t *n = arg;

    for (;;) {
        (*n)++;
        usleep(1000);
    }
}

/* JOB_FREEZE's cgroup side: a frozen job counts no more, a thawed one
 * counts again. */
static void test_freeze(void **state)
{
    struct cgroup *cg = live("freeze", CGROUPCONF_AUTO, NULL);
    struct cgroup_job_spec s = {.job_id = 13};
    volatile uint64_t *n;
    uint64_t at;
    struct err e;
    int status;
    pid_t pid;

    (void)state;
    if (cg == NULL)
        return;
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(n != MAP_FAILED);
    *n = 0;
    pid = in_job(cg, 13, counting, (void *)n);
    for (int i = 0; i < 500 && *n < 5; i++)
        usleep(10000);
    assert_true(*n >= 5);
    if (cgroup_job_freeze(cg, 13, true) < 0) {
        printf("# SKIP freeze: no freezer for the job's cgroup\n");
    } else {
        usleep(20000); /* a v2 freeze settles asynchronously */
        at = *n;
        usleep(200000);
        assert_int_equal(*n, at);
        assert_int_equal(cgroup_job_freeze(cg, 13, false), 0);
        for (int i = 0; i < 500 && *n <= at; i++)
            usleep(10000);
        assert_true(*n > at);
    }
    assert_int_equal(cgroup_job_kill(cg, 13), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(cgroup_job_destroy(cg, 13), 0);
    munmap((void *)n, sizeof(*n));
    cgroup_node_cleanup(cg);
}

static void hog(void *arg)
{
    size_t mib = *(size_t *)arg;

    for (size_t i = 0; i < mib; i++) {
        char *p = malloc(1 << 20);
        if (p == NULL)
            _exit(3);
        memset(p, 1, 1 << 20);
    }
    _exit(0);
}

static void test_oom(void **state)
{
    struct cgroup *cg = live("OOM", CGROUPCONF_AUTO, NULL);
    struct cgroup_job_spec s = {.job_id = 12, .mem_mib = 32};
    size_t small = 4, big = 512;
    struct err e;
    int status;
    pid_t pid;

    (void)state;
    if (cg == NULL)
        return;
    if (!cg->memory) {
        printf("# SKIP OOM: no memory controller (%s)\n", cg->why);
        cgroup_node_cleanup(cg);
        return;
    }
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    pid = in_job(cg, 12, hog, &small); /* within the limit */
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_false(cgroup_job_oom(cg, 12));
    pid = in_job(cg, 12, hog, &big); /* 512 MiB in a 32 MiB cgroup */
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(cgroup_job_oom(cg, 12));
    assert_int_equal(cgroup_job_destroy(cg, 12), 0);
    cgroup_node_cleanup(cg);
}

static void show_cpus(void *arg)
{
    cpu_set_t set;
    char buf[64];
    int fd = *(int *)arg;

    sched_getaffinity(0, sizeof(set), &set);
    cgroup_cpus_format(&set, buf, sizeof(buf));
    (void)!write(fd, buf, strlen(buf) + 1);
}

static void test_cpuset(void **state)
{
    struct cgroup *cg = live("cpuset", CGROUPCONF_AUTO, NULL);
    struct cgroup_job_spec s = {.job_id = 13};
    char buf[64] = "";
    cpu_set_t set;
    struct err e;
    int p[2];
    pid_t pid;

    (void)state;
    if (cg == NULL)
        return;
    if (!cg->cpuset) {
        printf("# SKIP cpuset: no cpuset controller (%s)\n", cg->why);
        cgroup_node_cleanup(cg);
        return;
    }
    snprintf(s.cpus, sizeof(s.cpus), "0");
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    assert_int_equal(pipe(p), 0);
    pid = in_job(cg, 13, show_cpus, &p[1]);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_true(read(p[0], buf, sizeof(buf) - 1) > 0);
    close(p[0]);
    close(p[1]);
    assert_string_equal(buf, "0");
    assert_int_equal(cgroup_job_cpus(cg, 13, &set), 0);
    assert_int_equal(CPU_COUNT(&set), 1);
    assert_int_equal(cgroup_job_destroy(cg, 13), 0);
    cgroup_node_cleanup(cg);
}

struct opener {
    char paths[2][128];
    int fd;
};

static void try_open(void *arg)
{
    struct opener *o = arg;
    int err[2];

    for (int i = 0; i < 2; i++) {
        int fd = open(o->paths[i], O_RDONLY);
        err[i] = fd < 0 ? errno : 0;
    }
    (void)!write(o->fd, err, sizeof(err));
}

/* Device files 195:240 and 195:241: the job may open the first only. */
static void fence(struct cgroup *cg)
{
    struct cgroup_job_spec s = {.job_id = 14};
    struct opener o;
    struct stat st;
    int p[2], err[2] = {-1, -1};
    dev_t deny;
    struct err e;
    pid_t pid;

    for (int i = 0; i < 2; i++) {
        snprintf(o.paths[i], sizeof(o.paths[i]), "%s/nvidia%d", tmpdir, i);
        if (stat(o.paths[i], &st) < 0 &&
            mknod(o.paths[i], S_IFCHR | 0666, makedev(195, 240 + i)) < 0) {
            printf("# SKIP devices: mknod %s: %s\n", o.paths[i],
                   strerror(errno));
            return;
        }
    }
    deny = makedev(195, 241);
    s.deny = &deny;
    s.n_deny = 1;
    if (cgroup_job_create(cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    assert_int_equal(pipe(p), 0);
    o.fd = p[1];
    pid = in_job(cg, 14, try_open, &o);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(read(p[0], err, sizeof(err)), sizeof(err));
    close(p[0]);
    close(p[1]);
    /* no driver behind 195:240 (ENXIO/ENODEV), but the cgroup let it by */
    assert_int_not_equal(err[0], EPERM);
    assert_int_equal(err[1], EPERM);
    assert_int_equal(cgroup_job_destroy(cg, 14), 0);
}

static void test_devices(void **state)
{
    struct cgroup *cg = live("devices", CGROUPCONF_AUTO, NULL);

    (void)state;
    if (cg == NULL)
        return;
    if (!cg->devices)
        printf("# SKIP devices: no devices controller (%s)\n", cg->why);
    else
        fence(cg);
    cgroup_node_cleanup(cg);
}

static void test_devices_bpf(void **state)
{
    char mnt[512];
    struct cgroup *cg;

    (void)state;
    v2_mount(mnt, sizeof(mnt));
    if (mnt[0] == '\0') {
        printf("# SKIP devices (cgroup v2 BPF): no cgroup2 file system\n");
        return;
    }
    if ((cg = live("devices (cgroup v2 BPF)", CGROUPCONF_V2, mnt)) == NULL)
        return;
    fence(cg);
    cgroup_node_cleanup(cg);
}

/* The node's cgroup on v1 with the defaults, as root; false (the test
 * skipped, saying why) where there is no v1 freezer hierarchy. */
static bool v1_node(struct cgroup *cg, struct cgroupconf *cc, const char *what)
{
    cgroupconf_defaults(cc);
    cc->plugin = CGROUPCONF_V1;
    if (geteuid() != 0) {
        printf("# SKIP %s: not root\n", what);
        return false;
    }
    cgroup_setup(cg, cc, "utest", tmpdir);
    if (cg->version != CGROUP_V1 || cg->v1[CGROUP_FREEZER][0] == '\0') {
        printf("# SKIP %s: no v1 freezer here (%s)\n", what, cg->why);
        cgroup_node_cleanup(cg);
        return false;
    }
    return true;
}

/* v1 with the defaults (ConstrainDevices=no): a job gets the freezer,
 * memory and cpuset hierarchies, not pids (the freezer tracks it) nor
 * devices; with ConstrainDevices=yes it gets devices too, with
 * ConstrainCores=no no cpuset. */
static void test_v1_hierarchies(void **state)
{
    struct cgroup_job_spec s = {.job_id = 15};
    struct cgroupconf cc;
    struct cgroup cg;
    char path[CGROUP_PATH_MAX], text[512];
    struct err e;

    (void)state;
    if (!v1_node(&cg, &cc, "v1 hierarchies"))
        return;
    cgroup_describe(&cg, text, sizeof(text));
    assert_non_null(strstr(text, " hierarchies=freezer,"));
    assert_null(strstr(text, "pids"));
    assert_null(strstr(text, "devices"));
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    cgroup_job_path(&cg, CGROUP_PIDS, 15, path, sizeof(path));
    assert_string_equal(path, "");
    cgroup_job_path(&cg, CGROUP_DEVICES, 15, path, sizeof(path));
    assert_string_equal(path, "");
    cgroup_job_path(&cg, CGROUP_FREEZER, 15, path, sizeof(path));
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(cgroup_job_destroy(&cg, 15), 0);
    assert_int_equal(access(path, F_OK), -1);
    cgroup_node_cleanup(&cg);

    cc.constrain_devices = true;
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    cgroup_describe(&cg, text, sizeof(text));
    if (cg.devices)
        assert_non_null(strstr(text, "devices"));
    else
        printf("# SKIP v1 devices: no devices hierarchy (%s)\n", cg.why);
    assert_null(strstr(text, "pids"));
    cgroup_node_cleanup(&cg);

    /* ConstrainCores=no (as sluiced sets for a node that reports more
     * CPUs than it has): no cpuset hierarchy, the line says why, and a
     * job's cgroup is made, entered and removed without one */
    cc.constrain_devices = false;
    cc.constrain_cores = false;
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    assert_int_equal(cg.version, CGROUP_V1);
    assert_false(cg.cpuset);
    cgroup_describe(&cg, text, sizeof(text));
    assert_null(strstr(text, "cpuset,"));
    assert_non_null(strstr(text, "no cpuset: jobs are not pinned to cores"));
    s.job_id = 16;
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    cgroup_job_path(&cg, CGROUP_CPUSET, 16, path, sizeof(path));
    assert_string_equal(path, "");
    cgroup_job_path(&cg, CGROUP_FREEZER, 16, path, sizeof(path));
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(cgroup_job_destroy(&cg, 16), 0);
    cgroup_node_cleanup(&cg);
}

/* Write 8 MiB to the file arg names (on tmpfs: charged until removed). */
static void fill_file(void *arg)
{
    static char block[1 << 20];
    int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    memset(block, 7, sizeof(block));
    for (int i = 0; fd >= 0 && i < 8; i++)
        if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
            _exit(3);
    _exit(fd >= 0 && close(fd) == 0 ? 0 : 3);
}

/* The first line of dir/file, or "" when it cannot be read. */
static void read_line(const char *dir, const char *file, char *buf, size_t len)
{
    char path[CGROUP_PATH_MAX + 64];
    FILE *fp;

    buf[0] = '\0';
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if ((fp = fopen(path, "r")) == NULL)
        return;
    if (fgets(buf, (int)len, fp) == NULL)
        buf[0] = '\0';
    fclose(fp);
}

/* v1: an ended job's cgroups are kept, reset, as free_<id> and taken by
 * the next job instead of a mkdir; a frozen one, or one left with 8 MiB
 * charged, is removed; the node's cleanup removes the kept ones. */
static void test_v1_pool(void **state)
{
    struct cgroup_job_spec s = {.job_id = 16, .mem_mib = 64};
    struct cgroupconf cc;
    struct cgroup cg;
    char path[CGROUP_PATH_MAX + 16], free16[CGROUP_PATH_MAX + 16];
    char free17[CGROUP_PATH_MAX + 16], text[64];
    struct stat before, after;
    struct err e;

    (void)state;
    if (!v1_node(&cg, &cc, "v1 pool"))
        return;
    if (!cg.memory) {
        printf("# SKIP v1 pool: no v1 memory hierarchy here (%s)\n", cg.why);
        cgroup_node_cleanup(&cg);
        return;
    }
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    cgroup_job_path(&cg, CGROUP_MEMORY, 16, path, sizeof(path));
    assert_int_equal(stat(path, &before), 0);
    assert_int_equal(cgroup_job_destroy(&cg, 16), 0);
    assert_int_equal(access(path, F_OK), -1);
    for (int c = 0; c < CGROUP_NCTL; c++) {
        if (cg.v1[c][0] == '\0')
            continue;
        snprintf(free16, sizeof(free16), "%s/free_16", cg.v1[c]);
        assert_int_equal(access(free16, F_OK), 0);
    }
    /* kept without the limit */
    snprintf(free16, sizeof(free16), "%s/free_16", cg.v1[CGROUP_MEMORY]);
    read_line(free16, "memory.limit_in_bytes", text, sizeof(text));
    assert_true(strtoull(text, NULL, 10) > 64ull << 20);

    /* the next job takes it: the same directory, its limit set anew */
    s.job_id = 17;
    s.mem_mib = 0;
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    assert_int_equal(access(free16, F_OK), -1);
    cgroup_job_path(&cg, CGROUP_MEMORY, 17, path, sizeof(path));
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);
    read_line(path, "memory.limit_in_bytes", text, sizeof(text));
    assert_true(strtoull(text, NULL, 10) > 64ull << 20);
    cgroup_job_path(&cg, CGROUP_CPUSET, 17, path, sizeof(path));
    if (path[0] != '\0') {
        read_line(path, "cpuset.cpus", text, sizeof(text));
        assert_true(text[0] >= '0' && text[0] <= '9');
    }

    /* a frozen one is not kept */
    assert_int_equal(cgroup_job_freeze(&cg, 17, true), 0);
    assert_int_equal(cgroup_job_destroy(&cg, 17), 0);
    snprintf(free17, sizeof(free17), "%s/free_17", cg.v1[CGROUP_FREEZER]);
    assert_int_equal(access(free17, F_OK), -1);
    cgroup_job_path(&cg, CGROUP_FREEZER, 17, path, sizeof(path));
    assert_int_equal(access(path, F_OK), -1);

    /* nor one whose job left 8 MiB charged (a file on tmpfs) */
    s.job_id = 19;
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    snprintf(path, sizeof(path), "/dev/shm/sluice-test-pool.%d", (int)getpid());
    pid_t pid = in_job(&cg, 19, fill_file, path);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(cgroup_job_destroy(&cg, 19), 0);
    unlink(path);
    snprintf(path, sizeof(path), "%s/free_19", cg.v1[CGROUP_MEMORY]);
    assert_int_equal(access(path, F_OK), -1);
    cgroup_job_path(&cg, CGROUP_MEMORY, 19, path, sizeof(path));
    assert_int_equal(access(path, F_OK), -1);

    /* one kept after the node's cleanup (its job ended after sluiced
     * stopped): the node's next setup (a new sluiced) removes it */
    s.job_id = 20;
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    assert_int_equal(cgroup_job_destroy(&cg, 20), 0);
    snprintf(path, sizeof(path), "%s/free_20", cg.v1[CGROUP_FREEZER]);
    assert_int_equal(access(path, F_OK), 0);
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    assert_int_equal(access(path, F_OK), -1);

    /* one kept, then the node's cleanup removes it with the node */
    s.job_id = 18;
    if (cgroup_job_create(&cg, &s, &e) < 0)
        fail_msg("%s", e.text);
    assert_int_equal(cgroup_job_destroy(&cg, 18), 0);
    snprintf(path, sizeof(path), "%s/free_18", cg.v1[CGROUP_FREEZER]);
    assert_int_equal(access(path, F_OK), 0);
    cgroup_node_cleanup(&cg);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(access(cg.v1[CGROUP_FREEZER], F_OK), -1);
}

static void test_none(void **state)
{
    struct cgroupconf cc;
    struct cgroup cg;
    char buf[400];

    (void)state;
    cgroupconf_defaults(&cc);
    cc.plugin = CGROUPCONF_DISABLED;
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    assert_int_equal(cg.version, CGROUP_NONE);
    cgroup_describe(&cg, buf, sizeof(buf));
    assert_string_equal(buf, "none (CgroupPlugin=disabled)");
    cgroupconf_defaults(&cc);
    snprintf(cc.mountpoint, sizeof(cc.mountpoint), "%s/nothing", tmpdir);
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    assert_int_equal(cg.version, CGROUP_NONE);
    assert_non_null(strstr(cg.why, "no cgroup file system is mounted at"));
    cc.plugin = CGROUPCONF_V2;
    cgroup_setup(&cg, &cc, "utest", tmpdir);
    assert_non_null(strstr(cg.why, "CgroupPlugin=cgroup/v2 but no cgroup2"));
    /* nothing to do without a cgroup */
    assert_int_equal(cgroup_job_kill(&cg, 1), 0);
    assert_false(cgroup_job_oom(&cg, 1));
    /* no freezer: the caller stops the job with SIGSTOP */
    errno = 0;
    assert_int_equal(cgroup_job_freeze(&cg, 1, true), -1);
    assert_int_equal(errno, ENOTSUP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conf),
        cmocka_unit_test(test_mounts),
        cmocka_unit_test(test_cpus),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_v1_hierarchies),
        cmocka_unit_test(test_v1_pool),
        cmocka_unit_test(test_kill_v1_or_v2),
        cmocka_unit_test(test_freeze),
        cmocka_unit_test(test_kill_v2),
        cmocka_unit_test(test_debris),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_cpuset),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_devices_bpf),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
