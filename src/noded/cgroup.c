/*
 * cgroups for jobs: which hierarchy this machine offers (mountinfo), the
 * node's own cgroup with its controllers, and per job a cgroup with its
 * limits that finds, signals and kills every process of the job.
 */
#include "noded/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup_int.h"

static const char *const ctl_names[CGROUP_NCTL] = {
    [CGROUP_FREEZER] = "freezer", [CGROUP_PIDS] = "pids",
    [CGROUP_MEMORY] = "memory",   [CGROUP_CPUSET] = "cpuset",
    [CGROUP_DEVICES] = "devices",
};

/* --- files ------------------------------------------------------------- */

int cgroup_file_write(const char *dir, const char *file, const char *val,
                      struct err *e)
{
    char path[CGROUP_PATH_MAX + 64];
    size_t len = strlen(val);
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, "cannot open %s: %s", path, strerror(errno));
    n = write(fd, val, len);
    if (n != (ssize_t)len) {
        int saved = n < 0 ? errno : EIO;
        close(fd);
        errno = saved;
        return err_set(e, "cannot write %s to %s: %s", val, path,
                       strerror(saved));
    }
    close(fd);
    return 0;
}

char *cgroup_file_read(const char *dir, const char *file)
{
    char path[CGROUP_PATH_MAX + 64];
    size_t cap = 4096, used = 0;
    char *buf;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return NULL;
    buf = xmalloc(cap);
    while ((n = read(fd, buf + used, cap - used - 1)) > 0) {
        used += (size_t)n;
        if (used + 1 == cap && cap < 65536)
            buf = xrealloc(buf, cap *= 2);
        else if (used + 1 == cap)
            break;
    }
    close(fd);
    if (n < 0) {
        int saved = errno;
        free(buf);
        errno = saved;
        return NULL;
    }
    buf[used] = '\0';
    return buf;
}

/* snprintf that may cut (paths and messages are bounded on purpose). */
static void fmt(char *buf, size_t len, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

static int mkdir_one(const char *path, struct err *e)
{
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return err_set(e, "cannot create %s: %s", path, strerror(errno));
    return 0;
}

/* A v1 cpuset must have CPUs and memory nodes before tasks can join:
 * copy the parent's where dir has none. */
static int cpuset_inherit(const char *dir, const char *which, struct err *e)
{
    char parent[CGROUP_PATH_MAX], *mine = cgroup_file_read(dir, which), *theirs;
    int rc = 0;

    if (mine == NULL || strspn(mine, " \n") != strlen(mine)) {
        free(mine);
        return 0;
    }
    free(mine);
    snprintf(parent, sizeof(parent), "%s", dir);
    *strrchr(parent, '/') = '\0';
    theirs = cgroup_file_read(parent, which);
    if (theirs == NULL)
        return err_set(e, "cannot read %s/%s: %s", parent, which,
                       strerror(errno));
    theirs[strcspn(theirs, "\n")] = '\0';
    rc = cgroup_file_write(dir, which, theirs, e);
    free(theirs);
    return rc;
}

/* --- where the hierarchies are ------------------------------------------ */

/* Field i (0-based, space-separated) of line into buf. */
static bool field(const char *line, int i, char *buf, size_t len)
{
    const char *p = line;
    size_t n;

    for (int k = 0; k < i; k++) {
        p += strcspn(p, " \n");
        if (*p != ' ')
            return false;
        p++;
    }
    n = strcspn(p, " \n");
    if (n == 0 || n >= len)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

/* tok is one of the sep-separated words of list. */
static bool has_token(const char *list, const char *tok, const char *sep)
{
    size_t tl = strlen(tok);

    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, sep);
        if (n == tl && strncmp(p, tok, tl) == 0)
            return true;
        p += n + (p[n] != '\0');
    }
    return false;
}

/* One mountinfo line: "36 25 0:31 / /sys/fs/cgroup/memory rw - cgroup
 * cgroup rw,memory". */
static void mounts_line(const char *line, const char *mountpoint,
                        struct cgroup_mounts *m)
{
    char mnt[CGROUP_PATH_MAX], type[32], opts[256];
    const char *sep = strstr(line, " - ");
    size_t ml = strlen(mountpoint);

    if (sep == NULL || !field(line, 4, mnt, sizeof(mnt)) ||
        !field(sep + 3, 0, type, sizeof(type)) ||
        !field(sep + 3, 2, opts, sizeof(opts)))
        return;
    if (strcmp(type, "cgroup2") == 0 && strcmp(mnt, mountpoint) == 0)
        m->v2 = true;
    if (strcmp(type, "cgroup") != 0 || strncmp(mnt, mountpoint, ml) != 0 ||
        mnt[ml] != '/')
        return;
    for (int c = 0; c < CGROUP_NCTL; c++)
        if (m->v1[c][0] == '\0' && has_token(opts, ctl_names[c], ","))
            snprintf(m->v1[c], sizeof(m->v1[c]), "%s", mnt);
}

void cgroup_mounts_parse(const char *text, const char *mountpoint,
                         struct cgroup_mounts *m)
{
    memset(m, 0, sizeof(*m));
    for (const char *p = text; p != NULL && *p != '\0';) {
        mounts_line(p, mountpoint, m);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
}

/* --- the node's cgroup -------------------------------------------------- */

/* "node01-1a2b3c4d": the node and a hash of its spool (FNV-1a). */
static void node_dir_name(const char *node, const char *spool, char *buf,
                          size_t len)
{
    uint32_t h = 2166136261u;

    for (const unsigned char *p = (const unsigned char *)spool; *p; p++)
        h = (h ^ *p) * 16777619u;
    snprintf(buf, len, "%s-%08" PRIx32, node, h);
}

/* mnt/sluice/name, created; 0 or -1 with e. */
static int make_node_dir(const char *mnt, const char *name, char *out,
                         size_t len, bool cpuset, struct err *e)
{
    char top[CGROUP_PATH_MAX];

    snprintf(top, sizeof(top), "%s/sluice", mnt);
    if (mkdir_one(top, e) < 0)
        return -1;
    if (cpuset && (cpuset_inherit(top, "cpuset.cpus", e) < 0 ||
                   cpuset_inherit(top, "cpuset.mems", e) < 0))
        return -1;
    fmt(out, len, "%s/%s", top, name);
    if (mkdir_one(out, e) < 0)
        return -1;
    if (cpuset && (cpuset_inherit(out, "cpuset.cpus", e) < 0 ||
                   cpuset_inherit(out, "cpuset.mems", e) < 0))
        return -1;
    return 0;
}

static void why_add(struct cgroup *cg, const char *f, ...)
    __attribute__((format(printf, 2, 3)));
static void why_add(struct cgroup *cg, const char *f, ...)
{
    size_t used = strlen(cg->why);
    va_list ap;

    if (used > 0 && used + 2 < sizeof(cg->why)) {
        memcpy(cg->why + used, "; ", 3);
        used += 2;
    }
    va_start(ap, f);
    vsnprintf(cg->why + used, sizeof(cg->why) - used, f, ap);
    va_end(ap);
}

/* ctl is in the space-separated list of dir/file. */
static bool listed(const char *dir, const char *file, const char *ctl)
{
    char *have = cgroup_file_read(dir, file);
    bool yes = have != NULL && has_token(have, ctl, " \n");

    free(have);
    return yes;
}

/* Enable +ctl from the mount point down to the node's cgroup. */
static bool v2_enable(struct cgroup *cg, const char *mnt, const char *ctl)
{
    char top[CGROUP_PATH_MAX], val[32];
    const char *dirs[3] = {mnt, top, cg->node};
    struct err e;

    snprintf(top, sizeof(top), "%s/sluice", mnt);
    snprintf(val, sizeof(val), "+%s", ctl);
    if (!listed(mnt, "cgroup.controllers", ctl))
        return false;
    for (int i = 0; i < 3; i++) {
        if (listed(dirs[i], "cgroup.subtree_control", ctl))
            continue;
        if (cgroup_file_write(dirs[i], "cgroup.subtree_control", val, &e) < 0) {
            why_add(cg, "%s controller not available (%s)", ctl, e.text);
            return false;
        }
    }
    return true;
}

static int setup_v2(struct cgroup *cg, const char *mnt, const char *name)
{
    char path[CGROUP_PATH_MAX + 16];
    struct err e;

    if (make_node_dir(mnt, name, cg->node, sizeof(cg->node), false, &e) < 0) {
        fmt(cg->why, sizeof(cg->why), "cgroup v2 at %s: %s", mnt, e.text);
        return -1;
    }
    cg->version = CGROUP_V2;
    cg->memory = v2_enable(cg, mnt, "memory");
    cg->cpuset = v2_enable(cg, mnt, "cpuset");
    v2_enable(cg, mnt, "pids");
    cg->devices = true; /* a BPF program per job */
    snprintf(path, sizeof(path), "%s/cgroup.kill", cg->node);
    cg->has_kill = access(path, F_OK) == 0;
    if (!cg->memory && strstr(cg->why, "memory") == NULL)
        why_add(cg, "%s controller not in %s/cgroup.controllers", "memory",
                mnt);
    return 0;
}

/* Whether a job needs v1 hierarchy c: the freezer finds and freezes its
 * processes (pids only stands in where there is no freezer), memory holds
 * its limit and OOM count, cpuset its cores (ConstrainCores=yes, on a
 * node that can pin them), devices its device fence (ConstrainDevices=
 * yes).  Each hierarchy costs a job a mkdir, an attach and an rmdir, all
 * under the kernel's one cgroup lock, which every other job's start and
 * end on the machine also takes. */
static bool v1_wanted(const struct cgroup *cg, int c)
{
    if (c == CGROUP_PIDS)
        return cg->v1[CGROUP_FREEZER][0] == '\0';
    if (c == CGROUP_DEVICES)
        return cg->conf.constrain_devices;
    if (c == CGROUP_CPUSET)
        return cg->conf.constrain_cores;
    return true;
}

static int setup_v1(struct cgroup *cg, const struct cgroup_mounts *m,
                    const char *name)
{
    struct err e;
    bool any = false;

    for (int c = 0; c < CGROUP_NCTL; c++) {
        if (m->v1[c][0] == '\0') {
            why_add(cg, "no %s hierarchy", ctl_names[c]);
            continue;
        }
        if (!v1_wanted(cg, c)) {
            if (c == CGROUP_CPUSET)
                why_add(cg, "no cpuset: jobs are not pinned to cores");
            cg->v1[c][0] = '\0';
            continue;
        }
        if (make_node_dir(m->v1[c], name, cg->v1[c], sizeof(cg->v1[c]),
                          c == CGROUP_CPUSET, &e) < 0) {
            why_add(cg, "%s: %s", ctl_names[c], e.text);
            cg->v1[c][0] = '\0';
            continue;
        }
        any = true;
    }
    if (!any)
        return -1;
    cg->version = CGROUP_V1;
    cg->memory = cg->v1[CGROUP_MEMORY][0] != '\0';
    cg->cpuset = cg->v1[CGROUP_CPUSET][0] != '\0';
    cg->devices = cg->v1[CGROUP_DEVICES][0] != '\0';
    return 0;
}

/* Why there is no usable v1 hierarchy. */
static void setup_none(struct cgroup *cg, const struct cgroup_mounts *m,
                       const char *mnt)
{
    char detail[sizeof(cg->why)];
    bool mounted = false;

    for (int c = 0; c < CGROUP_NCTL; c++)
        mounted = mounted || m->v1[c][0] != '\0';
    snprintf(detail, sizeof(detail), "%s", cg->why);
    if (!mounted)
        fmt(cg->why, sizeof(cg->why), "no cgroup file system is mounted at %s",
            mnt);
    else
        fmt(cg->why, sizeof(cg->why),
            "no writable cgroup hierarchy under %s: %s", mnt, detail);
}

static char *read_mountinfo(void)
{
    char *text = cgroup_file_read("/proc/self", "mountinfo");

    return text ? text : xstrdup("");
}

void cgroup_setup(struct cgroup *cg, const struct cgroupconf *conf,
                  const char *node, const char *spool)
{
    struct cgroup_mounts m;
    char name[128], *text;
    const char *mnt = conf->mountpoint;

    memset(cg, 0, sizeof(*cg));
    cg->conf = *conf;
    if (conf->plugin == CGROUPCONF_DISABLED) {
        snprintf(cg->why, sizeof(cg->why), "CgroupPlugin=disabled");
        return;
    }
    text = read_mountinfo();
    cgroup_mounts_parse(text, mnt, &m);
    free(text);
    node_dir_name(node, spool, name, sizeof(name));
    if (m.v2 && conf->plugin != CGROUPCONF_V1) {
        setup_v2(cg, mnt, name);
        return;
    }
    if (conf->plugin == CGROUPCONF_V2) {
        fmt(cg->why, sizeof(cg->why),
            "CgroupPlugin=cgroup/v2 but no cgroup2 file system is mounted at "
            "%s",
            mnt);
        return;
    }
    if (setup_v1(cg, &m, name) == 0) {
        /* kept cgroups of jobs that ended after the last sluiced of this
         * node had stopped (and cleaned up): nothing else removes them */
        cgroup_pool_drain(cg);
        return;
    }
    setup_none(cg, &m, mnt);
}

void cgroup_describe(const struct cgroup *cg, char *buf, size_t len)
{
    size_t used;

    if (cg->version == CGROUP_NONE) {
        snprintf(buf, len, "none (%s)", cg->why);
        return;
    }
    if (cg->version == CGROUP_V2) {
        snprintf(buf, len, "v2 at %s controllers=%s%s%s", cg->node,
                 cg->memory ? "memory," : "", cg->cpuset ? "cpuset," : "",
                 cg->has_kill ? "cgroup.kill" : "freeze");
    } else {
        snprintf(buf, len, "v1 at %s hierarchies=",
                 cg->v1[CGROUP_MEMORY][0] ? cg->v1[CGROUP_MEMORY]
                                          : cg->v1[CGROUP_FREEZER]);
        for (int c = 0; c < CGROUP_NCTL; c++) {
            used = strlen(buf);
            if (cg->v1[c][0] != '\0')
                snprintf(buf + used, len - used, "%s%s",
                         buf[used - 1] == '=' ? "" : ",", ctl_names[c]);
        }
    }
    if (cg->why[0] != '\0') {
        used = strlen(buf);
        snprintf(buf + used, len - used, " (%s)", cg->why);
    }
}

void cgroup_node_cleanup(const struct cgroup *cg)
{
    char top[CGROUP_PATH_MAX];

    cgroup_pool_drain(cg);
    for (int c = -1; c < CGROUP_NCTL; c++) {
        const char *dir = c < 0 ? cg->node : cg->v1[c];
        if (dir[0] == '\0' || rmdir(dir) < 0)
            continue;
        snprintf(top, sizeof(top), "%s", dir);
        *strrchr(top, '/') = '\0';
        rmdir(top); /* sluice/, when no other node uses it */
    }
}
