/*
 * A local cluster's directory: paths, pid files checked against
 * /proc/PID/cmdline, detached daemon start, log tails for messages.
 */
#include "cli/local.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsmode.h"
#include "common/xalloc.h"

int local_dir_init(struct local_dir *d, const char *dir, bool create,
                   struct err *e)
{
    char cwd[4096];
    const char *rel = strncmp(dir, "./", 2) == 0 ? dir + 2 : dir;
    size_t len;

    memset(d, 0, sizeof(*d));
    if (dir[0] == '/') {
        d->dir = xstrdup(dir);
    } else {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return err_set(e, "cannot get the current directory: %s",
                           strerror(errno));
        d->dir = xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", rel);
    }
    len = strlen(d->dir);
    while (len > 1 && d->dir[len - 1] == '/')
        d->dir[--len] = '\0';
    d->conf = xasprintf("%s/sluice.conf", d->dir);
    d->gres = xasprintf("%s/gres.conf", d->dir);
    d->key = xasprintf("%s/sluice.key", d->dir);
    d->jwt = xasprintf("%s/jwt_hs256.key", d->dir);
    d->state = xasprintf("%s/state", d->dir);
    d->spool = xasprintf("%s/spool", d->dir);
    d->log = xasprintf("%s/log", d->dir);
    d->pids = xasprintf("%s/pids", d->dir);
    if (!create)
        return 0;
    /* DIR, state and spool 0711: other users reach sluice.conf, the
     * socket and their jobs' scripts by name, and list nothing; logs and
     * pid files are for the user who runs `sluice up` alone */
    if (fsmode_mkdir(d->dir, 0711, e) < 0 ||
        fsmode_mkdir(d->state, 0711, e) < 0 ||
        fsmode_mkdir(d->spool, 0711, e) < 0 ||
        fsmode_mkdir(d->log, 0700, e) < 0 || fsmode_mkdir(d->pids, 0700, e) < 0)
        return -1;
    return local_dir_check(d, e);
}

void local_dir_clear(struct local_dir *d)
{
    free(d->dir);
    free(d->conf);
    free(d->gres);
    free(d->key);
    free(d->jwt);
    free(d->state);
    free(d->spool);
    free(d->log);
    free(d->pids);
    memset(d, 0, sizeof(*d));
}

char *local_pid_file(const struct local_dir *d, const char *name)
{
    return xasprintf("%s/%s.pid", d->pids, name);
}

char *local_log_file(const struct local_dir *d, const char *name)
{
    return xasprintf("%s/%s.log", d->log, name);
}

/* The NUL-separated command line of pid; *len its length. */
static char *read_cmdline(pid_t pid, size_t *len)
{
    char path[64], *buf = xmalloc(65536);
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        free(buf);
        return NULL;
    }
    n = read(fd, buf, 65535);
    close(fd);
    if (n <= 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Whether the command line is our daemon for name on d->conf. */
static bool cmdline_ours(const struct local_dir *d, const char *name,
                         const char *cl, size_t len)
{
    const char *want =
        strcmp(name, LOCAL_CTLD_NAME) == 0 ? "sluicectld" : "sluiced";
    const char *base = strrchr(cl, '/');
    bool conf = false, node = strcmp(want, "sluicectld") == 0;
    const char *prev = NULL;

    base = base ? base + 1 : cl;
    if (strcmp(base, want) != 0)
        return false;
    for (const char *a = cl; a < cl + len; a += strlen(a) + 1) {
        if (prev != NULL && strcmp(prev, "-f") == 0 && strcmp(a, d->conf) == 0)
            conf = true;
        if (prev != NULL && strcmp(prev, "-N") == 0 && strcmp(a, name) == 0)
            node = true;
        prev = a;
    }
    return conf && node;
}

/* The pid in name's pid file, or 0. */
static pid_t pid_file_pid(const struct local_dir *d, const char *name)
{
    char *path = local_pid_file(d, name);
    FILE *fp = fopen(path, "r");
    long pid = 0;

    free(path);
    if (fp == NULL)
        return 0;
    if (fscanf(fp, "%ld", &pid) != 1 || pid <= 1)
        pid = 0;
    fclose(fp);
    return (pid_t)pid;
}

pid_t local_running(const struct local_dir *d, const char *name)
{
    pid_t pid = pid_file_pid(d, name);
    char *cl;
    size_t len;
    bool ours;

    if (pid == 0)
        return 0;
    if (kill((pid_t)pid, 0) < 0 && errno != EPERM)
        return 0;
    if ((cl = read_cmdline((pid_t)pid, &len)) == NULL)
        return 0;
    ours = cmdline_ours(d, name, cl, len);
    free(cl);
    return ours ? (pid_t)pid : 0;
}

/* The flags (field 9) of /proc/PID/stat, with its state letter in *st;
 * false when it cannot be read. */
static bool proc_flags(pid_t pid, char *st, unsigned long *flags)
{
    char path[64], buf[512], *p;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return false;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* "PID (COMM) S PPID PGRP SESSION TTY TPGID FLAGS ..." */
    if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
        return false;
    *st = p[2];
    return sscanf(p + 3, "%*d %*d %*d %*d %*d %lu", flags) == 1;
}

/* Whether SIGKILL is pending for pid (SigPnd, ShdPnd of its status). */
static bool kill_pending(pid_t pid)
{
    char path[64], line[128];
    unsigned long long mask;
    bool killed = false;
    FILE *fp;

    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    if ((fp = fopen(path, "re")) == NULL)
        return false;
    while (fgets(line, sizeof(line), fp) != NULL)
        if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
             sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
            (mask & (1ULL << (SIGKILL - 1))) != 0)
            killed = true;
    fclose(fp);
    return killed;
}

pid_t local_exiting(const struct local_dir *d, const char *name, char *st)
{
    pid_t pid = pid_file_pid(d, name);
    unsigned long flags;

    if (pid == 0 || !proc_flags(pid, st, &flags) || *st == 'Z' || *st == 'X')
        return 0;
    return (flags & LOCAL_PF_EXITING) != 0 || kill_pending(pid) ? pid : 0;
}

bool local_gone(const struct local_dir *d, const char *name)
{
    pid_t pid = pid_file_pid(d, name);
    unsigned long flags;
    char st, *cl;
    size_t len;
    bool ours;

    if (pid == 0 || (kill(pid, 0) < 0 && errno != EPERM))
        return true;
    if (!proc_flags(pid, &st, &flags) || st == 'Z' || st == 'X')
        return true;
    if ((cl = read_cmdline(pid, &len)) == NULL)
        return false; /* mid-exec: its arguments are not there yet */
    ours = cmdline_ours(d, name, cl, len);
    free(cl);
    return !ours;
}

/* In the grandchild: set up fds and cwd, exec; report errno on failure. */
static void spawn_exec(const struct local_dir *d, const char *name,
                       char *const argv[], int report)
{
    char *out = xasprintf("%s/%s.out", d->log, name);
    int null = open("/dev/null", O_RDONLY);
    int fd = fsmode_open_private(out, O_APPEND, NULL);
    int err;

    if (null < 0 || fd < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 ||
        dup2(fd, 2) < 0 || chdir(d->dir) < 0)
        goto fail;
    close(null);
    close(fd);
    execv(argv[0], argv);
fail:
    err = errno;
    if (write(report, &err, sizeof(err)) < 0)
        _exit(126);
    _exit(127);
}

/* The pid file, written to a temporary name and renamed. */
static int write_pid(const struct local_dir *d, const char *name, pid_t pid,
                     struct err *e)
{
    char *path = local_pid_file(d, name);
    char *tmp = xasprintf("%s.tmp", path);
    int fd = fsmode_create_excl(tmp, 0600);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
    int rc = 0;

    if (fd >= 0 && fp == NULL)
        close(fd);
    if (fp == NULL || fprintf(fp, "%ld\n", (long)pid) < 0 || fclose(fp) != 0 ||
        rename(tmp, path) < 0) {
        rc = err_set(e, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    free(path);
    return rc;
}

/* Read exactly len bytes; 0 at a clean EOF before any, -1 on error. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static void close_pair(int p[2])
{
    close(p[0]);
    close(p[1]);
}

pid_t local_spawn(const struct local_dir *d, const char *name,
                  char *const argv[], struct err *e)
{
    /* pp carries the daemon's pid from the intermediate process, ep the
     * errno of a failed exec from the daemon (closed by a good exec). */
    int pp[2], ep[2], err = 0, status;
    pid_t child, pid = -1;

    if (pipe2(pp, O_CLOEXEC) < 0)
        return err_set(e, "pipe: %s", strerror(errno));
    if (pipe2(ep, O_CLOEXEC) < 0) {
        close_pair(pp);
        return err_set(e, "pipe: %s", strerror(errno));
    }
    if ((child = fork()) < 0) {
        close_pair(pp);
        close_pair(ep);
        return err_set(e, "fork: %s", strerror(errno));
    }
    if (child == 0) {
        /* Intermediate: a new session, then the daemon as its child, so
         * that the daemon is nobody's child and has no terminal. */
        close(pp[0]);
        close(ep[0]);
        setsid();
        signal(SIGHUP, SIG_IGN);
        pid = fork();
        if (pid == 0)
            spawn_exec(d, name, argv, ep[1]);
        if (write(pp[1], &pid, sizeof(pid)) < 0)
            _exit(1);
        _exit(pid < 0 ? 1 : 0);
    }
    close(pp[1]);
    close(ep[1]);
    if (read_full(pp[0], &pid, sizeof(pid)) != sizeof(pid) || pid <= 0)
        pid = -1;
    waitpid(child, &status, 0);
    close(pp[0]);
    if (pid > 0 && read_full(ep[0], &err, sizeof(err)) == sizeof(err)) {
        close(ep[0]);
        return err_set(e, "cannot run %s: %s", argv[0], strerror(err));
    }
    close(ep[0]);
    if (pid < 0)
        return err_set(e, "cannot start %s: fork failed", argv[0]);
    if (write_pid(d, name, pid, e) < 0)
        return -1;
    return pid;
}

void local_tail(const char *path, int n)
{
    FILE *fp = fopen(path, "r");
    char **lines = xcalloc((size_t)n, sizeof(*lines)), buf[1024];
    int k = 0;

    if (fp == NULL) {
        free(lines);
        return;
    }
    while (fgets(buf, sizeof(buf), fp) != NULL) {
        free(lines[k % n]);
        lines[k % n] = xstrdup(buf);
        k++;
    }
    fclose(fp);
    for (int i = k > n ? k - n : 0; i < k; i++) {
        const char *l = lines[i % n];
        fprintf(stderr, "    | %s%s", l, strchr(l, '\n') ? "" : "\n");
    }
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}
