/*
 * The per-job supervisor and the job's own start: the supervisor forks
 * the job into a process group of its own, learns through a close-on-exec
 * pipe whether the script was executed (or why not), reports that to
 * sluiced, waits, writes the status file and notifies sluiced.
 */
#include "noded/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/daemon.h"
#include "common/xalloc.h"
#include "noded/jobenv.h"
#include "noded/spool.h"
#include "noded/supcommon.h"

#define REPORT_FD SUP_REPORT_FD
#define LOCK_FD SUP_LOCK_FD

/* Open path for the job's output as the user: created 0666 less the
 * submitter's umask, truncated unless append (--open-mode=append, or a
 * requeued job). */
static int open_output(const char *path, bool append, int fd)
{
    int out = open(path, O_WRONLY | O_CREAT | (append ? 0 : O_TRUNC) | O_APPEND,
                   0666);

    if (out < 0)
        sup_tell(fd, errno, "cannot open output file %s: %s", path,
                 strerror(errno));
    return out;
}

static int redirect(const struct launch *l, const char *user, const char *node,
                    const char *work_dir, int fd)
{
    char *out = jobenv_output_path(l, 0, user, node, work_dir);
    char *err = jobenv_output_path(l, 1, user, node, work_dir);
    int in = open("/dev/null", O_RDONLY), ofd, efd, rc = -1;

    if ((ofd = open_output(out, jobenv_append(l), fd)) < 0)
        goto done;
    efd = strcmp(out, err) == 0 ? ofd : open_output(err, jobenv_append(l), fd);
    if (efd < 0)
        goto done;
    if (in < 0 || dup2(in, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0) {
        sup_tell(fd, errno, "cannot redirect the job's output: %s",
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

/* --propagate: the submit side's soft limits, each within the hard limit
 * the job has here (a user cannot raise that; Slurm logs and goes on). */
static void propagate_limits(const struct launch *l)
{
    struct jobenv_rlimit rl[16];
    size_t n = jobenv_rlimits(l, rl, 16);

    for (size_t i = 0; i < n; i++) {
        struct rlimit cur;
        if (getrlimit(rl[i].resource, &cur) < 0)
            continue;
        cur.rlim_cur = (rlim_t)rl[i].soft > cur.rlim_max ? cur.rlim_max
                                                         : (rlim_t)rl[i].soft;
        (void)setrlimit(rl[i].resource, &cur);
    }
}

/* Read fd to its end or until deadline (CLOCK_MONOTONIC ms); the bytes
 * in a new buffer, *len of them. */
static char *read_until(int fd, int64_t deadline_ms, size_t *len)
{
    size_t cap = 1 << 16;
    char *buf = xmalloc(cap);
    struct pollfd pfd = {fd, POLLIN, 0};
    ssize_t n;

    *len = 0;
    for (;;) {
        int64_t left = deadline_ms - clock_mono_us() / 1000;
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        if (*len == cap)
            buf = xrealloc(buf, cap *= 2);
        n = read(fd, buf + *len, cap - *len);
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    return buf;
}

/*
 * --get-user-env[=T][S|L]: the user's login environment, as Slurm takes it
 * ("su - USER -c env"): bash -l run as the user (this process is the user
 * already) with a clean environment, for at most T seconds (default 8).
 * Its variables go under the job's: the submitted environment and the
 * SLURM_* ones win.  On a failure or a timeout the job goes on without.
 */
static char **add_login_env(char **env, const struct launch *l,
                            const char *user, const char *home)
{
    const char *t = l->get_user_env;
    int64_t secs = t != NULL && *t >= '0' && *t <= '9' ? atoll(t) : 8;
    char *envp[6], *out;
    int p[2];
    pid_t pid;
    size_t len;

    if (pipe2(p, O_CLOEXEC) < 0)
        return env;
    if ((pid = fork()) == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(p[1], 1);
        dup2(dn, 2);
        envp[0] = xasprintf("HOME=%s", home);
        envp[1] = xasprintf("USER=%s", user);
        envp[2] = xasprintf("LOGNAME=%s", user);
        envp[3] = xstrdup("SHELL=/bin/bash");
        envp[4] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
        envp[5] = NULL;
        execle("/bin/bash", "bash", "-l", "-c", "env -0", (char *)NULL, envp);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return env;
    }
    out = read_until(p[0], clock_mono_us() / 1000 + secs * 1000, &len);
    close(p[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    for (size_t i = 0; i < len;) {
        char *kv = out + i, *eq;
        size_t n = strnlen(kv, len - i);
        if (n == len - i)
            break; /* cut short: the last one is not whole */
        i += n + 1;
        if ((eq = strchr(kv, '=')) == NULL || eq == kv)
            continue;
        *eq = '\0';
        if (jobenv_get(env, kv) == NULL && strcmp(kv, "_") != 0 &&
            strcmp(kv, "SHLVL") != 0 && strcmp(kv, "PWD") != 0 &&
            strcmp(kv, "OLDPWD") != 0)
            env = jobenv_set(env, kv, eq + 1);
    }
    free(out);
    return env;
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
        sup_tell(fd, errno ? errno : EIO, "cannot enter the job's cgroup: %s",
                 e.text);
        _exit(127);
    }
    user = l->user_name[0] ? l->user_name : a->user->name;
    work_dir = l->work_dir[0] ? l->work_dir : a->user->home;
    if (sup_become_user(l->uid, l->gid, a->user, fd) < 0)
        _exit(127);
    if (chdir(work_dir) < 0) {
        sup_tell(fd, errno, "cannot chdir to %s: %s", work_dir,
                 strerror(errno));
        _exit(127);
    }
    if (redirect(l, user, a->node, work_dir, fd) < 0)
        _exit(127);
    propagate_limits(l);
    env = jobenv_build(l, a->gpus, user, a->node);
    if (l->get_user_env != NULL)
        env = add_login_env(env, l, user, a->user->home);
    /* created by sluiced before SIGTERM when the job is preempted
     * (docs/preemption.md) */
    char *marker = xasprintf("%s/%s", a->jobdir, JOBENV_PREEMPT_FILE);
    env = jobenv_set(env, "SLUICE_PREEMPT_FILE", marker);
    free(marker);
    if (a->conf_path != NULL)
        env = jobenv_set(env, "SLURM_CONF", a->conf_path);
    argv = xcalloc(l->argc + 2, sizeof(*argv));
    argv[0] = script;
    for (size_t i = 1; i < l->argc; i++)
        argv[i] = l->argv[i];
    execve(script, argv, env);
    interp_of(l->script, interp, sizeof(interp));
    sup_tell(fd, errno, "cannot execute the job script (%s): %s", interp,
             strerror(errno));
    _exit(127);
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
        sup_report("error %d cannot start the job: %s", EAGAIN,
                   strerror(errno));
        return -1;
    }
    if (jp->pid == 0) {
        /* the directory's lock goes with the supervisor's copy alone */
        close(LOCK_FD);
        close(REPORT_FD);
        close(g[1]);
        close(p[0]);
        setpgid(0, 0);
        sup_reset_signals();
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

/*
 * After a JOB_KILL (its SIGKILL deadline in the spool's "kill"), what the
 * script left in the job's cgroup got the same SIGTERM and has the rest
 * of KillWait to finish, as Slurm promises (an srun passing on its
 * step's end, a checkpoint being written), before it goes with the
 * script.  Without a kill the script's end ends the job at once.
 */
static void kill_grace(const struct supervisor_args *a)
{
    int64_t deadline;
    pid_t *pids;
    size_t n;
    struct err e;

    if (spool_int_read(a->jobdir, "kill", &deadline, &e) < 0)
        return;
    while ((int64_t)time(NULL) < deadline &&
           cgroup_job_pids(a->cg, a->cgs->job_id, &pids, &n) == 0) {
        free(pids);
        if (n == 0)
            return;
        usleep(20000);
    }
}

/* A killed job's stderr gets Slurm's "*** JOB N ON node CANCELLED AT
 * ... ***" line, written as the user (a child that becomes the user and
 * appends to the file the job opened), once its script ended. */
static void cancel_line(const struct supervisor_args *a)
{
    const struct launch *l = a->launch;
    struct err e;
    char *text = spool_read(a->jobdir, JOBENV_KILL_REASON_FILE, 200, &e);
    char reason[32], line[256];
    long long t;
    size_t n;
    pid_t pid;

    if (text == NULL)
        return;
    if (sscanf(text, "%31s %lld", reason, &t) != 2 ||
        (n = jobenv_cancel_line(l->job_id, a->node, reason, t, line,
                                sizeof(line))) == 0) {
        free(text);
        return;
    }
    free(text);
    if ((pid = fork()) == 0) {
        const char *user = l->user_name[0] ? l->user_name : a->user->name;
        const char *dir = l->work_dir[0] ? l->work_dir : a->user->home;
        char *path = jobenv_output_path(l, 1, user, a->node, dir);
        int devnull = open("/dev/null", O_WRONLY), fd;

        if (sup_become_user(l->uid, l->gid, a->user, devnull) < 0)
            _exit(1);
        if ((fd = open(path, O_WRONLY | O_APPEND)) >= 0)
            (void)!write(fd, line, n);
        _exit(0);
    }
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
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
    sup_read_all(jp->err, msg, sizeof(msg));
    close(jp->err);
    if (msg[0] == '\0')
        return jp->pid;
    while (waitpid(jp->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    code = atoi(msg);
    sup_report("error %d %s", code > 0 ? code : EIO,
               strchr(msg, ' ') ? strchr(msg, ' ') + 1 : msg);
    return -1;
}

void supervisor_main(const struct supervisor_args *a, int report_fd)
{
    struct spool_status st = {.restart_count = a->launch->restart_count,
                              .has_restart_count = true};
    struct spool_pid self, leader;
    struct err e = {"cannot read /proc/self/stat"}, ne;
    siginfo_t info;
    struct job_proc jp;
    pid_t pid;
    int wstatus;
    struct rusage ru;
    char note[24];
    /* the launch's stage stamps, which sluiced logs at debug level (one
     * clock for every process) */
    long long t_sup = clock_mono_us(), t_pid, t_cg, t_exec;
    /* a top-tier job's launch at the daemon's weight (launch_nice); this
     * process leads the session, whose autogroup the job shares */
    bool raised = a->launch_nice != 0 &&
                  daemon_cpu_priority(a->launch_nice, NULL, NULL, &ne) == 1;

    sup_setup_fds(report_fd, a->lock_fd);
    sup_reset_signals();
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
    if (spool_pid_self(&self) < 0 || spool_pid_of(jp.pid, &leader) < 0 ||
        spool_pids_write(a->jobdir, &self, &leader, a->boot_id, &e) < 0) {
        job_cancel(&jp);
        spool_remove(a->jobdir);
        sup_report("error %d cannot record the supervisor: %s", EIO, e.text);
        _exit(1);
    }
    close(LOCK_FD); /* recorded: a restarted sluiced adopts the job */
    t_pid = clock_mono_us();
    if (has_cgroup(a) && cgroup_job_create(a->cg, a->cgs, &e) < 0) {
        int saved = errno;
        job_cancel(&jp);
        spool_remove(a->jobdir);
        sup_report("error %d cannot set up the job's cgroup: %s",
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
    if (raised) /* the job runs at its own weight, as every job does */
        daemon_cpu_priority(0, NULL, NULL, &ne);
    st.start_time = time(NULL);
    /* no pgid file: the job's group is its leader's pid (supervisor.pid),
     * and a file less is an inode less per job (spool.h) */
    sup_report("ok %d %d %lld %lld %lld %lld %lld", (int)self.pid, (int)pid,
               (long long)st.start_time, t_sup, t_pid, t_cg, t_exec);
    close(REPORT_FD);
    /* wait without reaping, so that the group's id cannot be reused
     * before what the script left behind is killed with it */
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
        if (errno != EINTR)
            break;
    cancel_line(a);
    if (has_cgroup(a))
        kill_grace(a);
    kill(-pid, SIGKILL);
    if (has_cgroup(a)) {
        /* whatever left the process group: daemons, setsid, nohup */
        cgroup_job_kill(a->cg, a->cgs->job_id);
        st.oom = cgroup_job_oom(a->cg, a->cgs->job_id);
        cgroup_job_destroy(a->cg, a->cgs->job_id);
    }
    while (wait4(pid, &wstatus, 0, &ru) < 0)
        if (errno != EINTR)
            _exit(1);
    /* the script's usage for JOB_END (its waited-for children in it) */
    st.has_usage = true;
    stepusage_rusage(&st.usage, &ru);
    st.end_time = time(NULL);
    if (WIFEXITED(wstatus))
        st.exit_code = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
        st.signal = WTERMSIG(wstatus);
    if (spool_status_publish(a->jobdir, &st, &e) < 0)
        _exit(1); /* sluiced finds no status: it records the end itself */
    snprintf(note, sizeof(note), "%u\n", (unsigned)a->launch->job_id);
    sup_notify(a->notify, note);
    /* durable after the note; sluiced may have removed the directory
     * already (the controller acknowledged): nothing left to sync then */
    spool_status_sync(a->jobdir, &e);
    _exit(0);
}
