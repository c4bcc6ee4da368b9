/*
 * Spool files of sluiced and its supervisors: atomic writes (temporary
 * name, fsync, rename, fsync of the directory), the status file, the
 * supervisor's pid with its process start time, listing and removal.
 */
#include "noded/spool.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common/fsmode.h"
#include "common/xalloc.h"

char *spool_expand(const char *pattern, const char *node, const char *host)
{
    size_t cap = strlen(pattern) + 1, len = 0;
    char *out = xmalloc(cap);

    for (const char *p = pattern; *p != '\0'; p++) {
        const char *add = NULL;
        char one[2] = {*p, '\0'};
        if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h' || p[1] == '%')) {
            add = p[1] == 'n' ? node : p[1] == 'h' ? host : "%";
            p++;
        } else {
            add = one;
        }
        size_t n = strlen(add);
        if (len + n + 1 > cap) {
            cap = 2 * cap + n;
            out = xrealloc(out, cap);
        }
        memcpy(out + len, add, n);
        len += n;
    }
    out[len] = '\0';
    return out;
}

int spool_mkdirs(const char *path, struct err *e)
{
    return fsmode_mkdir(path, 0711, e);
}

char *spool_job_dir(const char *spool, uint32_t job_id)
{
    return xasprintf("%s/job.%" PRIu32, spool, job_id);
}

char *spool_step_dir(const char *spool, uint32_t job_id, uint32_t step_id)
{
    return xasprintf("%s/step.%" PRIu32 ".%" PRIu32, spool, job_id, step_id);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Write dir/name through a temporary and a rename; durable: fsync the
 * file and the directory too. */
static int put(const char *dir, const char *name, const void *data, size_t len,
               mode_t mode, uid_t uid, gid_t gid, bool durable, struct err *e)
{
    char *tmp = xasprintf("%s/.%s.tmp", dir, name);
    char *path = xasprintf("%s/%s", dir, name);
    int fd = -1, saved;

    /* a fresh file, never one found at tmp (a link planted there) */
    fd = fsmode_create_excl(tmp, mode);
    if (fd < 0 || write_all(fd, data, len) < 0)
        goto error;
    if (uid != (uid_t)-1 && fchown(fd, uid, gid) < 0)
        goto error;
    if ((durable && fsync(fd) < 0) || close(fd) < 0) {
        fd = -1;
        goto error;
    }
    fd = -1;
    if (rename(tmp, path) < 0 || (durable && fsync_dir(dir) < 0))
        goto error;
    free(tmp);
    free(path);
    return 0;
error:
    saved = errno;
    err_set(e, "cannot write %s: %s", path, strerror(saved));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    free(path);
    errno = saved;
    return -1;
}

char *spool_read(const char *dir, const char *name, size_t max, struct err *e)
{
    char *path = xasprintf("%s/%s", dir, name);
    char *buf = xmalloc(max + 1);
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), saved;

    if (fd < 0)
        goto error;
    for (;;) {
        ssize_t n = read(fd, buf + len, max + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto error;
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max) {
            errno = EFBIG;
            goto error;
        }
    }
    close(fd);
    buf[len] = '\0';
    free(path);
    return buf;
error:
    saved = errno;
    err_set(e, "cannot read %s: %s", path, strerror(saved));
    if (fd >= 0)
        close(fd);
    free(buf);
    free(path);
    errno = saved;
    return NULL;
}

int spool_write(const char *dir, const char *name, const void *data, size_t len,
                mode_t mode, uid_t uid, gid_t gid, struct err *e)
{
    return put(dir, name, data, len, mode, uid, gid, true, e);
}

int spool_write_volatile(const char *dir, const char *name, const void *data,
                         size_t len, mode_t mode, uid_t uid, gid_t gid,
                         struct err *e)
{
    return put(dir, name, data, len, mode, uid, gid, false, e);
}

static int status_put(const char *jobdir, const struct spool_status *st,
                      bool durable, struct err *e);

int spool_status_write(const char *jobdir, const struct spool_status *st,
                       struct err *e)
{
    return status_put(jobdir, st, true, e);
}

int spool_status_publish(const char *jobdir, const struct spool_status *st,
                         struct err *e)
{
    return status_put(jobdir, st, false, e);
}

int spool_status_sync(const char *jobdir, struct err *e)
{
    char *path = xasprintf("%s/status", jobdir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = -1;

    if (fd >= 0 && fsync(fd) == 0 && fsync_dir(jobdir) == 0)
        rc = 0;
    else
        err_set(e, "cannot sync %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(path);
    return rc;
}

static int status_put(const char *jobdir, const struct spool_status *st,
                      bool durable, struct err *e)
{
    json_t *o = json_pack("{s:i, s:i, s:I, s:I, s:b}", "exit_code",
                          st->exit_code, "signal", st->signal, "start_time",
                          (json_int_t)st->start_time, "end_time",
                          (json_int_t)st->end_time, "oom", st->oom);
    char *text;
    int rc;

    if (st->has_usage)
        json_object_set_new(o, "usage", stepusage_json(&st->usage, 1, -1, -1));
    if (st->node_lost)
        json_object_set_new(o, "node_lost", json_true());
    if (st->has_restart_count)
        json_object_set_new(o, "restart_count",
                            json_integer(st->restart_count));
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    rc = put(jobdir, "status", text, strlen(text), 0600, (uid_t)-1, (gid_t)-1,
             durable, e);
    free(text);
    return rc;
}

int spool_status_read(const char *jobdir, struct spool_status *st,
                      struct err *e)
{
    char *text = spool_read(jobdir, "status", 4096, e);
    json_t *o, *rc;
    json_int_t code, sig, start, end;
    json_error_t je;
    int oom = 0, lost = 0;

    if (text == NULL)
        return -1;
    o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (o == NULL ||
        json_unpack(o, "{s:I, s:I, s:I, s:I, s?b, s?b}", "exit_code", &code,
                    "signal", &sig, "start_time", &start, "end_time", &end,
                    "oom", &oom, "node_lost", &lost) < 0 ||
        code < 0 || code > 255 || sig < 0 || sig > 128) {
        json_decref(o);
        errno = EBADMSG;
        return err_set(e, "%s/status: not a job status", jobdir);
    }
    st->has_usage =
        stepusage_parse(json_object_get(o, "usage"), &st->usage, 1) == 1;
    rc = json_object_get(o, "restart_count");
    st->has_restart_count = json_is_integer(rc) &&
                            json_integer_value(rc) >= 0 &&
                            json_integer_value(rc) <= UINT32_MAX;
    st->restart_count =
        st->has_restart_count ? (uint32_t)json_integer_value(rc) : 0;
    json_decref(o);
    st->exit_code = (int)code;
    st->signal = (int)sig;
    st->start_time = start;
    st->end_time = end;
    st->oom = oom != 0;
    st->node_lost = lost != 0;
    return 0;
}

/* The start time of process pid in clock ticks since boot. */
static int proc_start_ticks(pid_t pid, unsigned long long *ticks)
{
    char path[64], buf[1024];
    const char *p;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* after "pid (comm)", the state is field 3; starttime is field 22: p
     * moves from the ')' to the space before each next field */
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    for (int field = 2; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (p == NULL)
            return -1;
    }
    if (sscanf(p, " %llu", ticks) != 1)
        return -1;
    return 0;
}

int spool_pid_self(struct spool_pid *p)
{
    p->pid = getpid();
    return proc_start_ticks(p->pid, &p->start_ticks);
}

bool spool_pid_alive(const struct spool_pid *p)
{
    unsigned long long t;
    char path[64], state = '?', buf[512];
    const char *s;
    ssize_t n;
    int fd;

    if (p->pid <= 0 || (kill(p->pid, 0) < 0 && errno == ESRCH))
        return false;
    if (proc_start_ticks(p->pid, &t) < 0 || t != p->start_ticks)
        return false;
    /* an exited supervisor that nobody reaped is not alive */
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->pid);
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return false;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n > 0) {
        buf[n] = '\0';
        if ((s = strrchr(buf, ')')) != NULL && s[1] == ' ')
            state = s[2];
    }
    return state != 'Z' && state != 'X';
}

int spool_pid_of(pid_t pid, struct spool_pid *p)
{
    p->pid = pid;
    return proc_start_ticks(pid, &p->start_ticks);
}

int spool_pid_write_as(const char *jobdir, const char *name,
                       const struct spool_pid *p, struct err *e)
{
    char buf[64];
    int n =
        snprintf(buf, sizeof(buf), "%d %llu\n", (int)p->pid, p->start_ticks);

    return spool_write_volatile(jobdir, name, buf, (size_t)n, 0600, (uid_t)-1,
                                (gid_t)-1, e);
}

int spool_pid_write(const char *jobdir, const struct spool_pid *p,
                    struct err *e)
{
    return spool_pid_write_as(jobdir, "supervisor.pid", p, e);
}

int spool_pids_write(const char *jobdir, const struct spool_pid *self,
                     const struct spool_pid *leader, const char *boot_id,
                     struct err *e)
{
    char buf[64 + 64 + SPOOL_BOOT_ID_MAX + 2];
    int n = snprintf(buf, sizeof(buf), "%d %llu\n%d %llu\n", (int)self->pid,
                     self->start_ticks, (int)leader->pid, leader->start_ticks);

    if (boot_id != NULL && boot_id[0] != '\0')
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%.*s\n",
                      SPOOL_BOOT_ID_MAX - 1, boot_id);
    return spool_write_volatile(jobdir, "supervisor.pid", buf, (size_t)n, 0600,
                                (uid_t)-1, (gid_t)-1, e);
}

/* Line i (0-based, without its newline) of supervisor.pid; NULL when the
 * file or the line is missing (errno ENOENT then). */
static char *pids_line(const char *jobdir, int i, struct err *e)
{
    char *text = spool_read(jobdir, "supervisor.pid", 256, e), *p, *line;

    if (text == NULL)
        return NULL;
    p = text;
    for (; i > 0 && p != NULL; i--)
        if ((p = strchr(p, '\n')) != NULL)
            p++;
    if (p == NULL || *p == '\0') {
        free(text);
        errno = ENOENT;
        return NULL;
    }
    line = xstrndup(p, strcspn(p, "\n"));
    free(text);
    return line;
}

int spool_leader_read(const char *jobdir, struct spool_pid *p, struct err *e)
{
    char *line = pids_line(jobdir, 1, e);
    int pid;
    unsigned long long t;

    if (line == NULL)
        return spool_pid_read_as(jobdir, "leader", p, e);
    if (sscanf(line, "%d %llu", &pid, &t) != 2 || pid <= 1) {
        free(line);
        errno = EBADMSG;
        return err_set(e, "%s/supervisor.pid: leader not \"PID START\"",
                       jobdir);
    }
    free(line);
    p->pid = pid;
    p->start_ticks = t;
    return 0;
}

int spool_pid_read(const char *jobdir, struct spool_pid *p, struct err *e)
{
    return spool_pid_read_as(jobdir, "supervisor.pid", p, e);
}

int spool_pid_read_as(const char *jobdir, const char *name, struct spool_pid *p,
                      struct err *e)
{
    /* 256: supervisor.pid holds the leader and the boot id too */
    char *text = spool_read(jobdir, name, 256, e);
    int pid;
    unsigned long long t;

    if (text == NULL)
        return -1;
    if (sscanf(text, "%d %llu", &pid, &t) != 2 || pid <= 1) {
        free(text);
        errno = EBADMSG;
        return err_set(e, "%s/%s: not \"PID START\"", jobdir, name);
    }
    free(text);
    p->pid = pid;
    p->start_ticks = t;
    return 0;
}

int spool_int_write(const char *jobdir, const char *name, int64_t v,
                    mode_t mode, struct err *e)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%" PRId64 "\n", v);

    return spool_write_volatile(jobdir, name, buf, (size_t)n, mode, (uid_t)-1,
                                (gid_t)-1, e);
}

int spool_int_read(const char *jobdir, const char *name, int64_t *v,
                   struct err *e)
{
    char *text = spool_read(jobdir, name, 32, e), *end;
    long long x;

    if (text == NULL)
        return -1;
    errno = 0;
    x = strtoll(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\n' && *end != '\0')) {
        free(text);
        errno = EBADMSG;
        return err_set(e, "%s/%s: not a number", jobdir, name);
    }
    free(text);
    *v = x;
    return 0;
}

int spool_remove(const char *jobdir)
{
    DIR *d = opendir(jobdir);
    struct dirent *de;

    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT) {
            int saved = errno;
            closedir(d);
            errno = saved;
            return -1;
        }
    }
    closedir(d);
    if (rmdir(jobdir) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* "job.<id>" with id a decimal in 1..UINT32_MAX: 0 and *id set. */
static int parse_job_name(const char *name, uint32_t *id)
{
    unsigned long long v = 0;
    const char *p;

    if (strncmp(name, "job.", 4) != 0 || name[4] == '\0' || name[4] == '0')
        return -1;
    for (p = name + 4; *p != '\0'; p++) {
        if (!isdigit((unsigned char)*p) || v > UINT32_MAX / 10)
            return -1;
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (v == 0 || v > UINT32_MAX)
        return -1;
    *id = (uint32_t)v;
    return 0;
}

int spool_lock(const char *jobdir, int timeout_ms, struct err *e)
{
    int fd = open(jobdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), saved;

    if (fd < 0)
        return err_set(e, "cannot open %s: %s", jobdir, strerror(errno));
    for (int waited = 0;; waited += 10) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK || waited >= timeout_ms)
            break;
        usleep(10000);
    }
    saved = errno;
    close(fd);
    errno = saved;
    return err_set(e, "cannot lock %s: %s", jobdir, strerror(errno));
}

/* A decimal in 0..UINT32_MAX without leading zeros, ending at stop. */
static const char *parse_u32(const char *p, char stop, uint32_t *out)
{
    unsigned long long v = 0;
    const char *start = p;

    for (; *p != stop; p++) {
        if (!isdigit((unsigned char)*p) || v > UINT32_MAX / 10)
            return NULL;
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (p == start || (*start == '0' && p - start > 1) || v > UINT32_MAX)
        return NULL;
    *out = (uint32_t)v;
    return p;
}

/* "step.<job>.<step>": 0 and *id set. */
static int parse_step_name(const char *name, struct spool_step_id *id)
{
    const char *p;

    if (strncmp(name, "step.", 5) != 0 ||
        (p = parse_u32(name + 5, '.', &id->job_id)) == NULL ||
        id->job_id == 0 || parse_u32(p + 1, '\0', &id->step_id) == NULL)
        return -1;
    return 0;
}

static int cmp_step(const void *a, const void *b)
{
    const struct spool_step_id *x = a, *y = b;

    if (x->job_id != y->job_id)
        return x->job_id < y->job_id ? -1 : 1;
    return x->step_id < y->step_id ? -1 : x->step_id > y->step_id;
}

/* The names of spool that parse (parse(name, elem) == 0) as an array of
 * elem_size elements (*out, new), sorted with cmp. */
static int list_names(const char *spool, int (*parse)(const char *, void *),
                      size_t elem_size, int (*cmp)(const void *, const void *),
                      void **out, size_t *n, struct err *e)
{
    DIR *d = opendir(spool);
    struct dirent *de;
    size_t cap = 0;
    char *v = NULL;

    *out = NULL;
    *n = 0;
    if (d == NULL)
        return err_set(e, "cannot list %s: %s", spool, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            v = xreallocarray(v, cap, elem_size);
        }
        if (parse(de->d_name, v + *n * elem_size) == 0)
            (*n)++;
    }
    closedir(d);
    if (*n > 1)
        qsort(v, *n, elem_size, cmp);
    *out = v;
    return 0;
}

static int parse_job(const char *name, void *id)
{
    return parse_job_name(name, id);
}

static int parse_step(const char *name, void *id)
{
    return parse_step_name(name, id);
}

int spool_list(const char *spool, uint32_t **ids, size_t *n, struct err *e)
{
    return list_names(spool, parse_job, sizeof(**ids), cmp_u32, (void **)ids, n,
                      e);
}

int spool_step_list(const char *spool, struct spool_step_id **ids, size_t *n,
                    struct err *e)
{
    return list_names(spool, parse_step, sizeof(**ids), cmp_step, (void **)ids,
                      n, e);
}

int spool_boot_id(char out[SPOOL_BOOT_ID_MAX], struct err *e)
{
    char *text = spool_read("/proc/sys/kernel/random", "boot_id",
                            SPOOL_BOOT_ID_MAX - 1, e);

    if (text == NULL)
        return -1;
    text[strcspn(text, "\n")] = '\0';
    snprintf(out, SPOOL_BOOT_ID_MAX, "%s", text);
    free(text);
    return 0;
}

int spool_same_boot(const char *jobdir, const char *boot_id, struct err *e)
{
    char *text = pids_line(jobdir, 2, e);
    int same;

    if (text == NULL)
        text = spool_read(jobdir, "boot_id", SPOOL_BOOT_ID_MAX - 1, e);
    if (text == NULL)
        return -1;
    text[strcspn(text, "\n")] = '\0';
    same = strcmp(text, boot_id) == 0;
    if (!same)
        err_set(e, "%s: boot_id: %.40s, this boot is %.40s", jobdir, text,
                boot_id);
    free(text);
    return same;
}
