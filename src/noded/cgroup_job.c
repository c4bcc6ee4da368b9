/*
 * A job's cgroup: created with its limits (memory, CPUs, devices) before
 * the job starts, entered by the job's process, read to find its
 * processes, frozen and killed when the job ends or is cancelled, asked
 * whether the OOM killer struck, and removed.
 */
#include "noded/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup_int.h"

#define put cgroup_file_write
#define get cgroup_file_read

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

void cgroup_job_path(const struct cgroup *cg, enum cgroup_ctl ctl,
                     uint32_t job_id, char *buf, size_t len)
{
    const char *base = cg->version == CGROUP_V2 ? cg->node : cg->v1[ctl];

    if (cg->version == CGROUP_NONE || base[0] == '\0' ||
        snprintf(buf, len, "%s/job_%" PRIu32, base, job_id) >= (int)len)
        buf[0] = '\0';
}

/* The directory that lists the job's processes: the v2 cgroup, or the
 * first v1 hierarchy there is (freezer first). */
static bool track_dir(const struct cgroup *cg, uint32_t id, char *buf,
                      size_t len)
{
    for (int c = 0; c < CGROUP_NCTL; c++) {
        cgroup_job_path(cg, (enum cgroup_ctl)c, id, buf, len);
        if (buf[0] != '\0')
            return true;
    }
    return false;
}

int cgroup_dir_pids(const char *dir, pid_t **pids, size_t *n)
{
    char *text, *p, *end;
    size_t cap = 16;

    *pids = NULL;
    *n = 0;
    if ((text = get(dir, "cgroup.procs")) == NULL)
        return -1;
    *pids = xcalloc(cap, sizeof(pid_t));
    for (p = text;; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v <= 0)
            continue;
        if (*n == cap)
            *pids = xreallocarray(*pids, cap *= 2, sizeof(pid_t));
        (*pids)[(*n)++] = (pid_t)v;
    }
    free(text);
    return 0;
}

int cgroup_job_pids(const struct cgroup *cg, uint32_t job_id, pid_t **pids,
                    size_t *n)
{
    char dir[CGROUP_PATH_MAX];

    *pids = NULL;
    *n = 0;
    if (!track_dir(cg, job_id, dir, sizeof(dir))) {
        errno = ENOENT;
        return -1;
    }
    return cgroup_dir_pids(dir, pids, n);
}

int cgroup_job_signal(const struct cgroup *cg, uint32_t job_id, int sig)
{
    pid_t *pids;
    size_t n;
    int sent = 0;

    if (cgroup_job_pids(cg, job_id, &pids, &n) < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        sent += kill(pids[i], sig) == 0;
    free(pids);
    return sent;
}

/* Freeze (true) or thaw the job, waiting briefly for it to settle. */
static void freeze(const struct cgroup *cg, uint32_t id, bool on)
{
    char dir[CGROUP_PATH_MAX], *st;

    if (cg->version == CGROUP_V2) {
        cgroup_job_path(cg, 0, id, dir, sizeof(dir));
        put(dir, "cgroup.freeze", on ? "1" : "0", NULL);
        return;
    }
    cgroup_job_path(cg, CGROUP_FREEZER, id, dir, sizeof(dir));
    if (dir[0] == '\0')
        return;
    put(dir, "freezer.state", on ? "FROZEN" : "THAWED", NULL);
    for (int i = 0; on && i < 50; i++) {
        st = get(dir, "freezer.state");
        bool frozen = st == NULL || strncmp(st, "FROZEN", 6) == 0;
        free(st);
        if (frozen)
            break;
        sleep_ms(2);
    }
}

int cgroup_job_freeze(const struct cgroup *cg, uint32_t job_id, bool on)
{
    char dir[CGROUP_PATH_MAX];
    struct err e;

    cgroup_job_path(cg, CGROUP_FREEZER, job_id, dir, sizeof(dir));
    if (dir[0] == '\0') {
        errno = ENOTSUP;
        return -1;
    }
    if (put(dir, cg->version == CGROUP_V2 ? "cgroup.freeze" : "freezer.state",
            cg->version == CGROUP_V2 ? (on ? "1" : "0")
                                     : (on ? "FROZEN" : "THAWED"),
            &e) < 0)
        return -1;
    freeze(cg, job_id, on); /* waits for FROZEN on v1 */
    return 0;
}

int cgroup_job_kill(const struct cgroup *cg, uint32_t job_id)
{
    char dir[CGROUP_PATH_MAX];
    pid_t *pids;
    size_t n;

    for (int round = 0; round < 100; round++) {
        if (cgroup_job_pids(cg, job_id, &pids, &n) < 0 || n == 0) {
            free(pids);
            return 0;
        }
        if (cg->version == CGROUP_V2 && cg->has_kill) {
            cgroup_job_path(cg, 0, job_id, dir, sizeof(dir));
            put(dir, "cgroup.kill", "1", NULL);
        } else {
            /* frozen, nothing can fork while the list is killed */
            freeze(cg, job_id, true);
            free(pids);
            if (cgroup_job_pids(cg, job_id, &pids, &n) < 0)
                n = 0;
            for (size_t i = 0; i < n; i++)
                kill(pids[i], SIGKILL);
            freeze(cg, job_id, false);
        }
        free(pids);
        sleep_ms(round < 10 ? 5 : 30);
    }
    errno = EBUSY;
    return -1;
}

bool cgroup_job_oom(const struct cgroup *cg, uint32_t job_id)
{
    const char *file =
        cg->version == CGROUP_V2 ? "memory.events" : "memory.oom_control";
    char dir[CGROUP_PATH_MAX], *text, *p;
    bool oom = false;

    cgroup_job_path(cg, CGROUP_MEMORY, job_id, dir, sizeof(dir));
    if (dir[0] == '\0' || !cg->memory || (text = get(dir, file)) == NULL)
        return false;
    for (p = text; p != NULL; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (strncmp(p, "oom_kill ", 9) == 0) {
            oom = strtoll(p + 9, NULL, 10) > 0;
            break;
        }
    }
    free(text);
    return oom;
}

/* --- the v1 pool ----------------------------------------------------------
 * On v1 a job's cgroups are not removed at its end when they can be used
 * again: they are reset (no memory limit), renamed free_<id> and renamed
 * to the next job's name at its start.  A rename holds the kernel's
 * cgroup lock for a moment, where a mkdir allocates a controller's state
 * under it (memory's per-CPU counters) and an rmdir tears it down, and
 * every job start and end on the machine waits behind the others' for
 * that lock.  The pool holds at most as many as ran at once.  A cgroup
 * with a process left, frozen, whose job the OOM killer struck or left
 * more than a few MiB charged is removed instead; so is a devices cgroup
 * (its rules only add up).  v2 cannot rename a cgroup: there each job's
 * is made and removed. */

/* The most memory an ended job may leave charged to a kept cgroup. */
#define CGROUP_POOL_MAX_USAGE (4ull << 20)

/* A hierarchy whose job cgroups are kept for the next job. */
static bool pooled(const struct cgroup *cg, int c)
{
    return cg->version == CGROUP_V1 && c != CGROUP_DEVICES &&
           cg->v1[c][0] != '\0';
}

/* The hierarchy whose free_<id> names are listed and claimed first. */
static int pool_first(const struct cgroup *cg)
{
    for (int c = 0; c < CGROUP_NCTL; c++)
        if (pooled(cg, c))
            return c;
    return -1;
}

static int rename_in(const struct cgroup *cg, int c, const char *from,
                     const char *to)
{
    char a[CGROUP_PATH_MAX], b[CGROUP_PATH_MAX];

    if (snprintf(a, sizeof(a), "%s/%s", cg->v1[c], from) >= (int)sizeof(a) ||
        snprintf(b, sizeof(b), "%s/%s", cg->v1[c], to) >= (int)sizeof(b)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return rename(a, b);
}

/* Whether the job's cgroups can go back to the pool: empty, thawed, no
 * OOM kill, next to nothing charged; their memory limits lifted for the
 * next job. */
static bool pool_can_keep(const struct cgroup *cg, uint32_t id)
{
    char dir[CGROUP_PATH_MAX], *st;
    pid_t *pids;
    size_t n;
    bool ok;

    if (pool_first(cg) < 0 || !track_dir(cg, id, dir, sizeof(dir)))
        return false;
    /* processes enter the tracking hierarchy first and inherit all */
    if (cgroup_dir_pids(dir, &pids, &n) < 0)
        return false;
    free(pids);
    if (n > 0)
        return false;
    cgroup_job_path(cg, CGROUP_FREEZER, id, dir, sizeof(dir));
    if (dir[0] != '\0') {
        st = get(dir, "freezer.state");
        ok = st != NULL && strncmp(st, "THAWED", 6) == 0;
        free(st);
        if (!ok)
            return false;
    }
    cgroup_job_path(cg, CGROUP_MEMORY, id, dir, sizeof(dir));
    if (dir[0] == '\0' || !cg->memory)
        return true;
    if (cgroup_job_oom(cg, id))
        return false;
    /* what the job left charged (its files' pages in the page cache,
     * on tmpfs) would count against the next job's limit: kept only
     * when it is next to nothing, as a short job's is */
    if ((st = get(dir, "memory.usage_in_bytes")) == NULL)
        return false;
    ok = strtoull(st, NULL, 10) <= CGROUP_POOL_MAX_USAGE;
    free(st);
    if (!ok)
        return false;
    if (!cg->conf.constrain_ram)
        return true; /* no limit was set */
    /* the swap limit first: it may not be below the memory limit */
    if (put(dir, "memory.memsw.limit_in_bytes", "-1", NULL) < 0 &&
        errno != ENOENT)
        return false;
    return put(dir, "memory.limit_in_bytes", "-1", NULL) == 0;
}

/*
 * Claim a free cgroup for job id in the first pooled hierarchy: its old
 * name into name.  false when there is none (or the job's name is taken:
 * the caller's mkdir then finds the debris).
 */
static bool pool_take(const struct cgroup *cg, uint32_t id, char *name,
                      size_t len)
{
    int c = pool_first(cg);
    char job[32];
    struct dirent *de;
    DIR *d;
    bool got = false;

    if (c < 0 || (d = opendir(cg->v1[c])) == NULL)
        return false;
    snprintf(job, sizeof(job), "job_%" PRIu32, id);
    while (!got && (de = readdir(d)) != NULL) {
        size_t nlen = strlen(de->d_name);
        if (strncmp(de->d_name, "free_", 5) != 0 || nlen >= len)
            continue;
        if (rename_in(cg, c, de->d_name, job) == 0) {
            memcpy(name, de->d_name, nlen + 1);
            got = true;
        } else if (errno != ENOENT) { /* not taken by another supervisor */
            break;
        }
    }
    closedir(d);
    return got;
}

void cgroup_pool_drain(const struct cgroup *cg)
{
    char dir[CGROUP_PATH_MAX];
    struct dirent *de;
    DIR *d;

    for (int c = 0; c < CGROUP_NCTL; c++) {
        if (!pooled(cg, c) || (d = opendir(cg->v1[c])) == NULL)
            continue;
        while ((de = readdir(d)) != NULL)
            if (strncmp(de->d_name, "free_", 5) == 0 &&
                snprintf(dir, sizeof(dir), "%s/%s", cg->v1[c], de->d_name) <
                    (int)sizeof(dir))
                rmdir(dir);
        closedir(d);
    }
}

int cgroup_job_destroy(const struct cgroup *cg, uint32_t job_id)
{
    char dir[CGROUP_PATH_MAX], job[32], name[32];
    bool keep = pool_can_keep(cg, job_id);
    int rc = 0;

    snprintf(job, sizeof(job), "job_%" PRIu32, job_id);
    snprintf(name, sizeof(name), "free_%" PRIu32, job_id);
    for (int c = 0; c < (cg->version == CGROUP_V2 ? 1 : CGROUP_NCTL); c++) {
        cgroup_job_path(cg, (enum cgroup_ctl)c, job_id, dir, sizeof(dir));
        if (dir[0] == '\0')
            continue;
        if (keep && pooled(cg, c) && rename_in(cg, c, job, name) == 0)
            continue;
        for (int i = 0; rmdir(dir) < 0 && errno == EBUSY && i < 50; i++)
            sleep_ms(10);
        if (access(dir, F_OK) == 0)
            rc = -1;
    }
    return rc;
}

int cgroup_job_enter(const struct cgroup *cg, uint32_t job_id, struct err *e)
{
    char dir[CGROUP_PATH_MAX], pid[24];

    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    for (int c = 0; c < (cg->version == CGROUP_V2 ? 1 : CGROUP_NCTL); c++) {
        cgroup_job_path(cg, (enum cgroup_ctl)c, job_id, dir, sizeof(dir));
        if (dir[0] != '\0' && put(dir, "cgroup.procs", pid, e) < 0)
            return -1;
    }
    return 0;
}

int cgroup_job_cpus(const struct cgroup *cg, uint32_t job_id, cpu_set_t *set)
{
    char dir[CGROUP_PATH_MAX], *text;
    int rc;

    cgroup_job_path(cg, CGROUP_CPUSET, job_id, dir, sizeof(dir));
    if (dir[0] == '\0' || !cg->cpuset ||
        (text = get(dir, "cpuset.cpus")) == NULL)
        return -1;
    text[strcspn(text, "\n")] = '\0';
    rc = text[0] ? cgroup_cpus_parse(text, set) : -1;
    free(text);
    return rc;
}

/* --- creating ------------------------------------------------------------ */

/* The limits of one v1 hierarchy, or of the v2 cgroup (ctl -1). */
static int limit_memory(const struct cgroup *cg, const char *dir,
                        const struct cgroup_job_spec *s, struct err *e)
{
    uint64_t bytes = s->mem_mib * 1024 * 1024 / 100 * cg->conf.allowed_ram_pct;
    char val[32];

    if (!cg->memory || !cg->conf.constrain_ram || s->mem_mib == 0)
        return 0;
    snprintf(val, sizeof(val), "%" PRIu64, bytes);
    if (cg->version == CGROUP_V2) {
        if (put(dir, "memory.max", val, e) < 0)
            return -1;
        /* no swap accounting (swapaccount=0): nothing to limit */
        if (cg->conf.constrain_swap &&
            put(dir, "memory.swap.max", "0", e) < 0 && errno != ENOENT)
            return -1;
        return 0;
    }
    if (put(dir, "memory.limit_in_bytes", val, e) < 0)
        return -1;
    if (cg->conf.constrain_swap &&
        put(dir, "memory.memsw.limit_in_bytes", val, e) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

static int limit_v1_devices(const char *dir, const struct cgroup_job_spec *s,
                            struct err *e)
{
    char val[64];

    for (size_t i = 0; i < s->n_deny; i++) {
        snprintf(val, sizeof(val), "c %u:%u rwm", major(s->deny[i]),
                 minor(s->deny[i]));
        if (put(dir, "devices.deny", val, e) < 0)
            return -1;
    }
    return 0;
}

static int limit_cpus(const struct cgroup *cg, const char *dir,
                      const struct cgroup_job_spec *s, struct err *e)
{
    char parent[CGROUP_PATH_MAX], *mems;
    int rc;

    if (cg->version == CGROUP_V1) {
        /* a v1 cpuset takes no task before it has memory nodes */
        snprintf(parent, sizeof(parent), "%s", dir);
        *strrchr(parent, '/') = '\0';
        if ((mems = get(parent, "cpuset.mems")) == NULL)
            return err_set(e, "cannot read %s/cpuset.mems: %s", parent,
                           strerror(errno));
        mems[strcspn(mems, "\n")] = '\0';
        rc = put(dir, "cpuset.mems", mems, e);
        free(mems);
        if (rc < 0)
            return -1;
        if (s->cpus[0] == '\0' || !cg->conf.constrain_cores) {
            if ((mems = get(parent, "cpuset.cpus")) == NULL)
                return err_set(e, "cannot read %s/cpuset.cpus", parent);
            mems[strcspn(mems, "\n")] = '\0';
            rc = put(dir, "cpuset.cpus", mems, e);
            free(mems);
            return rc;
        }
    }
    if (!cg->cpuset || !cg->conf.constrain_cores || s->cpus[0] == '\0')
        return 0;
    return put(dir, "cpuset.cpus", s->cpus, e);
}

static int create_one(const struct cgroup *cg, int ctl,
                      const struct cgroup_job_spec *s, const char *dir,
                      bool reused, struct err *e)
{
    bool v2 = cg->version == CGROUP_V2;

    if (!reused && mkdir(dir, 0755) < 0)
        return err_set(e, "cannot create the job's cgroup %s: %s", dir,
                       strerror(errno));
    if ((v2 || ctl == CGROUP_MEMORY) && limit_memory(cg, dir, s, e) < 0)
        return -1;
    if ((v2 || ctl == CGROUP_CPUSET) && limit_cpus(cg, dir, s, e) < 0)
        return -1;
    if (!cg->conf.constrain_devices || s->n_deny == 0)
        return 0;
    if (v2)
        return cgroup_bpf_devices(dir, s->deny, s->n_deny, e);
    if (ctl == CGROUP_DEVICES)
        return limit_v1_devices(dir, s, e);
    return 0;
}

/* Make every directory of the job's cgroup with its limits, from the
 * pool where it has one; -1 with EEXIST when the first one is there
 * already. */
static int create_all(const struct cgroup *cg, const struct cgroup_job_spec *s,
                      struct err *e)
{
    char dir[CGROUP_PATH_MAX], job[32], name[32];
    bool took = pool_take(cg, s->job_id, name, sizeof(name));
    int first = pool_first(cg);

    snprintf(job, sizeof(job), "job_%" PRIu32, s->job_id);
    for (int c = 0; c < (cg->version == CGROUP_V2 ? 1 : CGROUP_NCTL); c++) {
        cgroup_job_path(cg, (enum cgroup_ctl)c, s->job_id, dir, sizeof(dir));
        if (dir[0] == '\0')
            continue;
        /* the others' free_<id> may be gone (removed, not kept): mkdir */
        bool reused = took && pooled(cg, c) &&
                      (c == first || rename_in(cg, c, name, job) == 0);
        if (create_one(cg, c, s, dir, reused, e) < 0)
            return -1;
    }
    return 0;
}

int cgroup_job_create(const struct cgroup *cg, const struct cgroup_job_spec *s,
                      struct err *e)
{
    int saved;

    if (cg->version == CGROUP_NONE)
        return 0;
    if (create_all(cg, s, e) == 0)
        return 0;
    /* debris of an earlier job with this id (found by a mkdir that failed
     * with EEXIST, so that a clean start costs no lookups): empty it,
     * start afresh */
    if (errno == EEXIST) {
        cgroup_job_kill(cg, s->job_id);
        cgroup_job_destroy(cg, s->job_id);
        if (create_all(cg, s, e) == 0)
            return 0;
    }
    saved = errno;
    cgroup_job_destroy(cg, s->job_id);
    errno = saved;
    return -1;
}

/* --- CPU lists ----------------------------------------------------------- */

void cgroup_pick_cpus(const cpu_set_t *avail, const uint32_t *use,
                      uint32_t want, cpu_set_t *out)
{
    uint32_t have = (uint32_t)CPU_COUNT(avail);

    CPU_ZERO(out);
    if (want >= have) {
        CPU_OR(out, out, avail);
        return;
    }
    for (uint32_t k = 0; k < want; k++) {
        int best = -1;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, avail) && !CPU_ISSET(c, out) &&
                (best < 0 || use[c] < use[best]))
                best = c;
        CPU_SET(best, out);
    }
}

void cgroup_cpus_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used + 1 < len; c++) {
        int d = c;
        if (!CPU_ISSET(c, set))
            continue;
        while (d + 1 < CPU_SETSIZE && CPU_ISSET(d + 1, set))
            d++;
        used +=
            (size_t)snprintf(buf + used, len - used, d > c ? "%s%d-%d" : "%s%d",
                             used ? "," : "", c, d);
        c = d;
    }
}

int cgroup_cpus_parse(const char *s, cpu_set_t *set)
{
    char *end;
    long lo, hi;

    CPU_ZERO(set);
    for (const char *p = s; *p != '\0';) {
        lo = hi = strtol(p, &end, 10);
        if (end == p || lo < 0)
            return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo)
                return -1;
        }
        if (hi >= CPU_SETSIZE)
            return -1;
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*end != ',' && *end != '\0')
            return -1;
        p = *end ? end + 1 : end;
    }
    return CPU_COUNT(set) > 0 ? 0 : -1;
}
