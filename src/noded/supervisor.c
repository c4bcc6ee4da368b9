/*
 * The per-job supervisor and the job's own start: the supervisor forks
 * the job into a process group of its own, learns through a close-on-exec
 * pipe whether the script was executed (or why not), reports that to
 * sluiced, waits, writes the status file and notifies sluiced.
 */
#include "noded/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "noded/jobenv.h"
#include "noded/spool.h"

#define REPORT_FD 3
#define LOCK_FD 4

/* Write "CODE text" to fd: how the job's process tells a failed start. */
static void tell(int fd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void tell(int fd, int code, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "%d ", code);

    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    utf8_fix(buf); /* a long path may be cut inside a character */
    (void)!write(fd, buf, strlen(buf));
}

/* Write one line to sluiced on the report pipe. */
static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
    char buf[700];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    buf[strcspn(buf, "\n")] = '\0';
    utf8_fix(buf);
    strcat(buf, "\n");
    (void)!write(REPORT_FD, buf, strlen(buf));
}

static void reset_signals(void)
{
    sigset_t none;

    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static int become_user(const struct launch *l, const struct ucache_user *u,
                       int fd)
{
    if (geteuid() != 0) {
        if (geteuid() == l->uid)
            return 0;
        tell(fd, EPERM, "cannot run a job of uid %u as uid %u",
             (unsigned)l->uid, (unsigned)geteuid());
        return -1;
    }
    /* the groups sluiced resolved: no NSS modules loaded in this process */
    if (setgroups(u->n_groups, u->groups) < 0 || setgid(l->gid) < 0 ||
        setuid(l->uid) < 0) {
        tell(fd, errno, "cannot become user %s (uid %u, gid %u): %s", u->name,
             (unsigned)l->uid, (unsigned)l->gid, strerror(errno));
        return -1;
    }
    if (l->uid != 0 && setuid(0) == 0) {
        tell(fd, EPERM, "dropping privileges to uid %u did not hold",
             (unsigned)l->uid);
        return -1;
    }
    return 0;
}

/* Open path for the job's output as the user: created 0666 less the
 * submitter's umask, truncated. */
static int open_output(const char *path, int fd)
{
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);

    if (out < 0)
        tell(fd, errno, "cannot open output file %s: %s", path,
             strerror(errno));
    return out;
}

static int redirect(const struct launch *l, const char *user, const char *node,
                    const char *work_dir, int fd)
{
    char *out = jobenv_output_path(l, 0, user, node, work_dir);
    char *err = jobenv_output_path(l, 1, user, node, work_dir);
    int in = open("/dev/null", O_RDONLY), ofd, efd, rc = -1;

    if ((ofd = open_output(out, fd)) < 0)
        goto done;
    efd = strcmp(out, err) == 0 ? ofd : open_output(err, fd);
    if (efd < 0)
        goto done;
    if (in < 0 || dup2(in, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0) {
        tell(fd, errno, "cannot redirect the job's output: %s",
             strerror(errno));
        goto done;
    }
    rc = 0;
done:
    free(out);
    free(err);
    return rc;
}

/* The interpreter line of the script, for messages: "#!/bin/bash". */
static void interp_of(const char *script, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(script, "\n"), script);
}

static bool has_cgroup(const struct supervisor_args *a)
{
    return a->cg != NULL && a->cg->version != CGROUP_NONE && a->cgs != NULL;
}

/* In the job's process, once the supervisor said go: become the job, or
 * tell fd why not and exit. */
static void job_exec(const struct supervisor_args *a, int fd)
{
    const struct launch *l = a->launch;
    char interp[128];
    const char *user, *work_dir;
    char *script = xasprintf("%s/script", a->jobdir), **argv, **env;
    struct err e;

    if (has_cgroup(a) && cgroup_job_enter(a->cg, l->job_id, &e) < 0) {
        tell(fd, errno ? errno : EIO, "cannot enter the job's cgroup: %s",
             e.text);
        _exit(127);
    }
    user = l->user_name[0] ? l->user_name : a->user->name;
    work_dir = l->work_dir[0] ? l->work_dir : a->user->home;
    if (become_user(l, a->user, fd) < 0)
        _exit(127);
    /* Until execve this process is a copy of sluiced's memory, auth key
     * included, now running as the user: not dumpable, so the user cannot
     * ptrace it whatever fs.suid_dumpable says (the change of uid just
     * set the flag from it).  execve sets it again for the job. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
        tell(fd, errno, "cannot make the job's process undumpable: %s",
             strerror(errno));
        _exit(127);
    }
    if (chdir(work_dir) < 0) {
        tell(fd, errno, "cannot chdir to %s: %s", work_dir, strerror(errno));
        _exit(127);
    }
    if (redirect(l, user, a->node, work_dir, fd) < 0)
        _exit(127);
    env = jobenv_build(l, a->gpus, user, a->node);
    /* created by sluiced before SIGTERM when the job is preempted
     * (docs/preemption.md) */
    char *marker = xasprintf("%s/%s", a->jobdir, JOBENV_PREEMPT_FILE);
    env = jobenv_set(env, "SLUICE_PREEMPT_FILE", marker);
    free(marker);
    argv = xcalloc(l->argc + 2, sizeof(*argv));
    argv[0] = script;
    for (size_t i = 1; i < l->argc; i++)
        argv[i] = l->argv[i];
    execve(script, argv, env);
    interp_of(l->script, interp, sizeof(interp));
    tell(fd, errno, "cannot execute the job script (%s): %s", interp,
         strerror(errno));
    _exit(127);
}

/* Read what the job's process told before exec; "" when it exec'd. */
static void read_all(int fd, char *buf, size_t len)
{
    size_t used = 0;
    ssize_t n;

    while (used + 1 < len) {
        n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    buf[used] = '\0';
}

static void notify_sluiced(const char *path, uint32_t job_id)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    char buf[32];
    int fd;

    if (path == NULL || strlen(path) >= sizeof(sun.sun_path))
        return;
    strcpy(sun.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
        snprintf(buf, sizeof(buf), "%u\n", (unsigned)job_id);
        (void)!write(fd, buf, strlen(buf));
    }
    close(fd);
}

/* Descriptors: the report pipe on REPORT_FD, the job directory's lock on
 * LOCK_FD, /dev/null on 0-2, nothing else. */
static void setup_fds(int report_fd, int lock_fd)
{
    int r = fcntl(report_fd, F_DUPFD_CLOEXEC, LOCK_FD + 1);
    int l = fcntl(lock_fd, F_DUPFD_CLOEXEC, LOCK_FD + 1);
    int null;

    dup2(r, REPORT_FD);
    dup2(l, LOCK_FD);
    fcntl(REPORT_FD, F_SETFD, FD_CLOEXEC);
    fcntl(LOCK_FD, F_SETFD, FD_CLOEXEC);
    null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        for (int fd = 0; fd < 3; fd++)
            if (fd != null)
                dup2(null, fd);
    }
    close_range(LOCK_FD + 1, ~0U, 0);
}

/* The job's process, forked before the supervisor recorded itself and
 * made the cgroup, so that its creation overlaps that work: it waits for
 * one byte on go, and exits without running anything on EOF. */
struct job_proc {
    pid_t pid;
    int go;  /* write end: one byte, go; closed without one, give up */
    int err; /* read end: what the job's process told before its exec */
};

static void job_wait_go(int go)
{
    char c;
    ssize_t n;

    while ((n = read(go, &c, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127); /* the supervisor failed, and reports it */
}

/* Fork the job's process; 0, or -1 after reporting why not. */
static int job_fork(const struct supervisor_args *a, struct job_proc *jp)
{
    int g[2] = {-1, -1}, p[2] = {-1, -1};

    if (pipe2(g, O_CLOEXEC) < 0 || pipe2(p, O_CLOEXEC) < 0 ||
        (jp->pid = fork()) < 0) {
        report("error %d cannot start the job: %s", EAGAIN, strerror(errno));
        return -1;
    }
    if (jp->pid == 0) {
        /* the directory's lock goes with the supervisor's copy alone */
        close(LOCK_FD);
        close(REPORT_FD);
        close(g[1]);
        close(p[0]);
        setpgid(0, 0);
        reset_signals();
        /* the submitter's umask (SLURM_UMASK) for the output files and
         * whatever the job creates, not sluiced's 077 */
        umask(jobenv_umask(a->launch));
        job_wait_go(g[0]);
        close(g[0]);
        job_exec(a, p[1]);
    }
    setpgid(jp->pid, jp->pid);
    close(g[0]);
    close(p[1]);
    jp->go = g[1];
    jp->err = p[0];
    return 0;
}

/* The supervisor could not record itself or make the cgroup: the job's
 * process exits unstarted, and is reaped. */
static void job_cancel(struct job_proc *jp)
{
    close(jp->go);
    close(jp->err);
    while (waitpid(jp->pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Let the job's process go; its pid once it exec'd, or -1 after
 * reporting why not. */
static pid_t job_go(struct job_proc *jp)
{
    char msg[600];
    int code;

    (void)!write(jp->go, "g", 1);
    close(jp->go);
    read_all(jp->err, msg, sizeof(msg));
    close(jp->err);
    if (msg[0] == '\0')
        return jp->pid;
    while (waitpid(jp->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    code = atoi(msg);
    report("error %d %s", code > 0 ? code : EIO,
           strchr(msg, ' ') ? strchr(msg, ' ') + 1 : msg);
    return -1;
}

void supervisor_main(const struct supervisor_args *a, int report_fd)
{
    struct spool_status st = {0};
    struct spool_pid self, leader;
    struct err e = {"cannot read /proc/self/stat"};
    siginfo_t info;
    struct job_proc jp;
    pid_t pid;
    int wstatus;
    /* the launch's stage stamps, which sluiced logs at debug level (one
     * clock for every process) */
    long long t_sup = clock_mono_us(), t_pid, t_cg, t_exec;

    setup_fds(report_fd, a->lock_fd);
    reset_signals();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    if (job_fork(a, &jp) < 0) {
        spool_remove(a->jobdir);
        _exit(1);
    }
    /* the job's process (its group's leader) with its start ticks, also
     * before it runs: whoever signals the group later checks that its
     * leader is still this process, and a launch that times out finds the
     * process even if it never reached exec */
    if (spool_pid_self(&self) < 0 ||
        spool_pid_write(a->jobdir, &self, &e) < 0 ||
        spool_pid_of(jp.pid, &leader) < 0 ||
        spool_pid_write_as(a->jobdir, "leader", &leader, &e) < 0) {
        job_cancel(&jp);
        spool_remove(a->jobdir);
        report("error %d cannot record the supervisor: %s", EIO, e.text);
        _exit(1);
    }
    close(LOCK_FD); /* recorded: a restarted sluiced adopts the job */
    t_pid = clock_mono_us();
    if (has_cgroup(a) && cgroup_job_create(a->cg, a->cgs, &e) < 0) {
        int saved = errno;
        job_cancel(&jp);
        spool_remove(a->jobdir);
        report("error %d cannot set up the job's cgroup: %s",
               saved ? saved : EIO, e.text);
        _exit(1);
    }
    t_cg = clock_mono_us();
    if ((pid = job_go(&jp)) < 0) {
        if (has_cgroup(a))
            cgroup_job_destroy(a->cg, a->cgs->job_id);
        spool_remove(a->jobdir);
        _exit(1);
    }
    t_exec = clock_mono_us();
    st.start_time = time(NULL);
    spool_int_write(a->jobdir, "pgid", pid, 0600, &e);
    report("ok %d %d %lld %lld %lld %lld %lld", (int)self.pid, (int)pid,
           (long long)st.start_time, t_sup, t_pid, t_cg, t_exec);
    close(REPORT_FD);
    /* wait without reaping, so that the group's id cannot be reused
     * before what the script left behind is killed with it */
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
        if (errno != EINTR)
            break;
    kill(-pid, SIGKILL);
    if (has_cgroup(a)) {
        /* whatever left the process group: daemons, setsid, nohup */
        cgroup_job_kill(a->cg, a->cgs->job_id);
        st.oom = cgroup_job_oom(a->cg, a->cgs->job_id);
        cgroup_job_destroy(a->cg, a->cgs->job_id);
    }
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            _exit(1);
    st.end_time = time(NULL);
    if (WIFEXITED(wstatus))
        st.exit_code = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
        st.signal = WTERMSIG(wstatus);
    if (spool_status_publish(a->jobdir, &st, &e) < 0)
        _exit(1); /* sluiced finds no status: it records the end itself */
    notify_sluiced(a->notify, a->launch->job_id);
    /* durable after the note; sluiced may have removed the directory
     * already (the controller acknowledged): nothing left to sync then */
    spool_status_sync(a->jobdir, &e);
    _exit(0);
}
