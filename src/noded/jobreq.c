/*
 * The controller's requests about jobs: JOB_LAUNCH (answered once the
 * supervisor reports that the job runs, or why it does not), JOB_SIGNAL,
 * JOB_FREEZE (suspend and resume) and JOB_KILL (SIGCONT and SIGTERM now,
 * SIGKILL after kill_wait_s).
 */
#include "noded/jobs_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/conn.h"
#include "noded/jobenv.h"
#include "noded/launch.h"
#include "noded/steps.h"

static void reply_ok(struct njobs *j, const struct proto_frame *f, uint64_t gen)
{
    conn_reply(j->nd->conn, gen, f->type, f->seq, NULL);
}

static void reply_err(struct njobs *j, const struct proto_frame *f,
                      uint64_t gen, int code, const char *text)
{
    log_warnx("%s seq=%" PRIu32 " refused: %s", proto_type_name(f->type),
              f->seq, text);
    conn_reply_error(j->nd->conn, gen, f->type, f->seq, code ? code : EIO,
                     text);
}

/* --- SIGKILL timers -------------------------------------------------- */

static void on_kill_timer(evutil_socket_t fd, short what, void *arg)
{
    struct njob *job = arg;

    (void)fd;
    (void)what;
    if (job->state != NJOB_RUNNING || job->pgid <= 0)
        return;
    log_info("job=%" PRIu32 " kill_wait over: SIGKILL to pgid=%d", job->id,
             (int)job->pgid);
    if (njobs_group_kill(job, SIGKILL, true) < 0 && errno != ESRCH)
        log_warn("job=%" PRIu32 " kill(-%d, SIGKILL)", job->id, (int)job->pgid);
    /* and to what left the group; the supervisor empties the cgroup */
    if (job->jobs->nd->cg.version != CGROUP_NONE)
        cgroup_job_signal(&job->jobs->nd->cg, job->id, SIGKILL);
}

void njobs_kill_arm(struct njobs *j, struct njob *job)
{
    int64_t left = job->kill_deadline - (int64_t)time(NULL);
    struct timeval tv = {left > 0 ? left : 0, 0};

    if (job->kill_ev == NULL)
        job->kill_ev = evtimer_new(j->nd->base, on_kill_timer, job);
    evtimer_add(job->kill_ev, &tv);
}

void njobs_kill(struct njobs *j, struct njob *job, uint32_t wait_s,
                const char *reason)
{
    int64_t deadline = (int64_t)time(NULL) + wait_s;
    struct err e;
    int reached = 0;

    if (job->state == NJOB_LAUNCHING) {
        job->kill_pending = true;
        job->kill_wait_s = wait_s;
        return;
    }
    if (job->state != NJOB_RUNNING)
        return;
    log_info("job=%" PRIu32 " kill reason=\"%s\" pgid=%d kill_wait_s=%" PRIu32,
             job->id, reason, (int)job->pgid, wait_s);
    /* why and when, for the line in the job's stderr (the first stands) */
    if (job->kill_deadline == 0) {
        char why[80];
        int n = snprintf(why, sizeof(why), "%.32s %lld\n", reason,
                         (long long)time(NULL));
        if (spool_write_volatile(job->dir, JOBENV_KILL_REASON_FILE, why,
                                 (size_t)n, 0600, (uid_t)-1, (gid_t)-1, &e) < 0)
            log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    }
    /* the job's SIGTERM trap can tell a preemption from a cancel */
    if (strcmp(reason, "preempted") == 0 &&
        spool_int_write(job->dir, JOBENV_PREEMPT_FILE, deadline, 0644, &e) < 0)
        log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    /* The deadline first: the supervisor reads it when the script ends
     * of this SIGTERM, to give what the script left the rest of it. */
    if (job->kill_deadline == 0 || deadline < job->kill_deadline) {
        job->kill_deadline = deadline; /* an earlier one stands */
        if (spool_int_write(job->dir, "kill", deadline, 0600, &e) < 0)
            log_warnx("job=%" PRIu32 " %s", job->id, e.text);
        njobs_kill_arm(j, job);
    }
    /* Every process of the job through its cgroup, also those that left
     * its process group; the process group only when the cgroup reached
     * nobody.  One SIGTERM each: a second would run a job's trap twice. */
    /* a suspended job is thawed first: a frozen task takes no signal */
    if (j->nd->cg.version != CGROUP_NONE) {
        cgroup_job_freeze(&j->nd->cg, job->id, false);
        cgroup_job_signal(&j->nd->cg, job->id, SIGCONT);
        reached = cgroup_job_signal(&j->nd->cg, job->id, SIGTERM);
    }
    if (reached <= 0 && job->pgid > 0) {
        njobs_group_kill(job, SIGCONT, true);
        if (njobs_group_kill(job, SIGTERM, true) < 0 && errno != ESRCH)
            log_warn("job=%" PRIu32 " kill(-%d, SIGTERM)", job->id,
                     (int)job->pgid);
    }
}

/* --- JOB_SIGNAL and JOB_KILL ----------------------------------------- */

static int get_id(json_t *body, const char *key, uint32_t *id)
{
    json_t *v = json_object_get(body, key);

    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        json_integer_value(v) > UINT32_MAX)
        return -1;
    *id = (uint32_t)json_integer_value(v);
    return 0;
}

static struct njob *target(struct njobs *j, const struct proto_frame *f,
                           uint64_t gen)
{
    char text[160];
    struct njob *job;
    uint32_t id;

    if (get_id(f->body, "job_id", &id) < 0) {
        reply_err(j, f, gen, EINVAL,
                  "job_id: expected an integer 1..4294967295");
        return NULL;
    }
    if ((job = njobs_find(j, id)) == NULL) {
        snprintf(text, sizeof(text), "job %" PRIu32 " is not on node %s", id,
                 j->nd->name);
        reply_err(j, f, gen, ESRCH, text);
    }
    return job;
}

static void job_signal(struct njobs *j, const struct proto_frame *f,
                       uint64_t gen)
{
    json_t *v = json_object_get(f->body, "signal");
    struct njob *job;
    char text[160];
    bool batch;
    int sig;

    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= NSIG) {
        snprintf(text, sizeof(text), "signal: expected an integer 0..%d",
                 NSIG - 1);
        reply_err(j, f, gen, EINVAL, text);
        return;
    }
    sig = (int)json_integer_value(v);
    if ((job = target(j, f, gen)) == NULL)
        return;
    if (job->state != NJOB_RUNNING || job->pgid <= 0) {
        snprintf(text, sizeof(text), "job %" PRIu32 " is not running on %s",
                 job->id, j->nd->name);
        reply_err(j, f, gen, ESRCH, text);
        return;
    }
    /* batch_only (--signal=B:): the batch shell, the group's leader */
    batch = json_is_true(json_object_get(f->body, "batch_only"));
    log_info("job=%" PRIu32 " signal=%d pgid=%d batch_only=%d", job->id, sig,
             (int)job->pgid, batch);
    if (njobs_group_kill(job, sig, !batch) < 0 && errno != ESRCH) {
        snprintf(text, sizeof(text), "kill(%s%d, %d): %s", batch ? "" : "-",
                 (int)job->pgid, sig, strerror(errno));
        reply_err(j, f, gen, errno, text);
        return;
    }
    reply_ok(j, f, gen);
}

/* sig to every process of the job: through its cgroup, or its process
 * group when the cgroup reached nobody.  -1 with errno when neither. */
static int signal_all(struct njobs *j, struct njob *job, int sig)
{
    if (j->nd->cg.version != CGROUP_NONE &&
        cgroup_job_signal(&j->nd->cg, job->id, sig) > 0)
        return 0;
    if (njobs_group_kill(job, sig, true) < 0 && errno != ESRCH)
        return -1;
    return 0;
}

/* The batch job's part of JOB_FREEZE: suspend it (the cgroup freezer,
 * else SIGSTOP to all its processes) or resume it (thaw, and SIGCONT in
 * either case, so that a job's CONT trap sees the resume).  -1 with errno
 * and text when it could not be stopped. */
static int batch_freeze(struct njobs *j, struct njob *job, bool on, char *text,
                        size_t len)
{
    const char *how = "freezer";

    if (cgroup_job_freeze(&j->nd->cg, job->id, on) < 0) {
        how = "signal";
        if (on && signal_all(j, job, SIGSTOP) < 0) {
            snprintf(text, len, "SIGSTOP to job %" PRIu32 ": %s", job->id,
                     strerror(errno));
            return -1;
        }
    }
    if (!on)
        signal_all(j, job, SIGCONT);
    log_info("job=%" PRIu32 " %s by=%s pgid=%d", job->id,
             on ? "suspended" : "resumed", how, (int)job->pgid);
    return 0;
}

/* JOB_FREEZE {"job_id", "freeze"}: suspend or resume the job's steps here
 * and its batch script when this node runs it.  The controller sends it
 * to every node of the allocation: a node with steps of the job but not
 * its batch script answers {}; one with neither, ESRCH. */
static void job_freeze(struct njobs *j, const struct proto_frame *f,
                       uint64_t gen)
{
    json_t *v = json_object_get(f->body, "freeze");
    struct njob *job;
    size_t steps;
    char text[160];
    uint32_t id;
    bool on;

    if (!json_is_boolean(v)) {
        reply_err(j, f, gen, EINVAL, "freeze: expected true or false");
        return;
    }
    if (get_id(f->body, "job_id", &id) < 0) {
        reply_err(j, f, gen, EINVAL,
                  "job_id: expected an integer 1..4294967295");
        return;
    }
    on = json_is_true(v);
    steps = nsteps_freeze_job(j->nd->steps, id, on);
    job = njobs_find(j, id);
    if (job == NULL || job->state != NJOB_RUNNING || job->pgid <= 0) {
        if (steps > 0) {
            reply_ok(j, f, gen);
            return;
        }
        snprintf(text, sizeof(text), "job %" PRIu32 " is not running on %s", id,
                 j->nd->name);
        reply_err(j, f, gen, ESRCH, text);
        return;
    }
    if (batch_freeze(j, job, on, text, sizeof(text)) < 0) {
        reply_err(j, f, gen, errno, text);
        return;
    }
    reply_ok(j, f, gen);
}

/* JOB_KILL: every step of the job here, then its batch script when this
 * node runs it; a node with neither (or only steps) answers {} too: the
 * controller sends it to every node of the allocation. */
static void job_kill(struct njobs *j, const struct proto_frame *f, uint64_t gen)
{
    json_t *w = json_object_get(f->body, "kill_wait_s");
    uint32_t wait_s = j->nd->conf->kill_wait_s;
    const char *reason = "cancelled";
    struct njob *job;
    uint32_t id;

    if (w != NULL && !json_is_null(w)) {
        if (!json_is_integer(w) || json_integer_value(w) < 0 ||
            json_integer_value(w) > 86400) {
            reply_err(j, f, gen, EINVAL,
                      "kill_wait_s: expected an integer 0..86400");
            return;
        }
        wait_s = (uint32_t)json_integer_value(w);
    }
    json_unpack(f->body, "{s?s}", "reason", &reason);
    if (get_id(f->body, "job_id", &id) < 0) {
        reply_err(j, f, gen, EINVAL,
                  "job_id: expected an integer 1..4294967295");
        return;
    }
    nsteps_kill_job(j->nd->steps, id, reason, wait_s);
    if ((job = njobs_find(j, id)) != NULL)
        njobs_kill(j, job, wait_s, reason);
    reply_ok(j, f, gen);
}

/* --- JOB_LAUNCH ------------------------------------------------------ */

static void launch_done(struct njobs *j, struct njob *job, int code,
                        const char *text)
{
    struct noded *nd = j->nd;
    struct err e;

    event_free(job->report_ev);
    job->report_ev = NULL;
    close(job->report_fd);
    job->report_fd = -1;
    if (code != 0) {
        log_warnx("job=%" PRIu32 " launch failed: %s", job->id, text);
        conn_reply_error(nd->conn, job->gen, PROTO_MSG_JOB_LAUNCH, job->seq,
                         code, text);
        spool_remove(job->dir);
        njobs_forget(j, job);
        return;
    }
    if (spool_pid_read(job->dir, &job->sup, &e) < 0)
        log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    if (spool_leader_read(job->dir, &job->leader, &e) < 0)
        log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    job->state = NJOB_RUNNING;
    log_info("job=%" PRIu32 " state=running supervisor=%d pgid=%d", job->id,
             (int)job->sup.pid, (int)job->pgid);
    conn_reply(nd->conn, job->gen, PROTO_MSG_JOB_LAUNCH, job->seq, NULL);
    if (job->kill_pending)
        njobs_kill(j, job, job->kill_wait_s, "killed while launching");
    njobs_check(j, job); /* a short job may have ended already */
}

/* The launch's stages at debug level, in microseconds, each from the end
 * of the one before: JOB_LAUNCH received → spool written and supervisor
 * forked (sluiced) → supervisor running → supervisor.pid written →
 * cgroup made → job exec'd (the close-on-exec pipe closed) → report
 * read here.  t: the supervisor's stamps (sup, pid, cgroup, exec). */
static void log_stages(const struct njob *job, const long long t[4])
{
    int64_t now = clock_mono_us();

    log_debug("job=%" PRIu32 " launch_us total=%" PRId64 " spool_fork=%" PRId64
              " to_supervisor=%lld pid_file=%lld cgroup=%lld job_exec=%lld "
              "report=%" PRId64,
              job->id, now - job->t_recv_us, job->t_forked_us - job->t_recv_us,
              t[0] - job->t_forked_us, t[1] - t[0], t[2] - t[1], t[3] - t[2],
              (int64_t)(now - t[3]));
}

/* The supervisor's report: "ok PID PGID START [4 stamps]" or "error CODE
 * TEXT". */
static void report_parse(struct njobs *j, struct njob *job)
{
    int pid, pgid, code, off = 0;
    long long start, t[4];
    char text[900];

    job->rbuf[strcspn(job->rbuf, "\n")] = '\0';
    if ((code = sscanf(job->rbuf, "ok %d %d %lld %lld %lld %lld %lld", &pid,
                       &pgid, &start, &t[0], &t[1], &t[2], &t[3])) >= 3 &&
        pgid > 1) {
        if (code == 7)
            log_stages(job, t);
        job->pgid = pgid;
        launch_done(j, job, 0, NULL);
        return;
    }
    if (sscanf(job->rbuf, "error %d %n", &code, &off) == 1 && off > 0 &&
        code > 0) {
        launch_done(j, job, code, job->rbuf + off);
        return;
    }
    snprintf(text, sizeof(text),
             "the supervisor of job %" PRIu32 " ended without starting it%s%s",
             job->id, job->rlen ? ": " : "", job->rbuf);
    launch_done(j, job, EIO, text);
}

static void on_report(evutil_socket_t fd, short what, void *arg)
{
    struct njob *job = arg;
    struct njobs *j = job->jobs;
    char text[160];
    ssize_t n;

    if (!(what & EV_READ)) {
        snprintf(text, sizeof(text),
                 "job %" PRIu32 " did not start within %d s on %s", job->id,
                 JOBS_LAUNCH_TIMEOUT_S, j->nd->name);
        njobs_launch_abandon(&j->nd->cg, job);
        launch_done(j, job, ETIMEDOUT, text);
        return;
    }
    n = read(fd, job->rbuf + job->rlen, sizeof(job->rbuf) - 1 - job->rlen);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        job->rlen += (size_t)n;
    job->rbuf[job->rlen] = '\0';
    if (n > 0 && strchr(job->rbuf, '\n') == NULL &&
        job->rlen + 1 < sizeof(job->rbuf))
        return;
    report_parse(j, job);
}

/* The device numbers of the job's GPUs; each index must be one of this
 * node's.  *ordinals is a new array (caller frees). */
static int bind_gpus(const struct noded *nd, const struct launch *l,
                     int **ordinals, struct err *e)
{
    const struct gpu_list *g = &nd->res.gpus;

    *ordinals = xcalloc(l->n_gpus + 1, sizeof(int));
    for (size_t i = 0; i < l->n_gpus; i++) {
        if (l->gpus[i] >= g->n) {
            free(*ordinals);
            *ordinals = NULL;
            errno = EINVAL;
            return err_set(e,
                           "gpus: index %" PRIu32 " is not a GPU of %s (it "
                           "has %zu GPU%s)",
                           l->gpus[i], nd->name, g->n, g->n == 1 ? "" : "s");
        }
        (*ordinals)[i] = g->v[l->gpus[i]].ordinal;
    }
    return 0;
}

/* CPUs for a job of want CPUs: the least used of this process's own,
 * counting the cpusets of the jobs running; false when not constrained
 * (cores not fenced, the job may use them all, or the node stands in for
 * more CPUs than it has: config_overrides, as in a local cluster, where
 * the node daemons of one machine would pile their jobs onto its first
 * CPUs). */
bool njobs_pick_cpus(struct njobs *j, uint32_t want, cpu_set_t *out)
{
    const struct cgroup *cg = &j->nd->cg;
    const struct resources *r = &j->nd->res;
    uint32_t *use;
    cpu_set_t avail;

    if (cg->version == CGROUP_NONE || !cg->cpuset ||
        !cg->conf.constrain_cores || r->cpus > r->cpus_found ||
        sched_getaffinity(0, sizeof(avail), &avail) < 0 ||
        want >= (uint32_t)CPU_COUNT(&avail))
        return false;
    use = xcalloc(CPU_SETSIZE, sizeof(*use));
    for (size_t i = 0; i < j->n; i++)
        for (int c = 0; j->v[i]->has_cpus && j->v[i]->state != NJOB_ENDED &&
                        c < CPU_SETSIZE;
             c++)
            use[c] += CPU_ISSET(c, &j->v[i]->cpus) ? 1 : 0;
    cgroup_pick_cpus(&avail, use, want, out);
    free(use);
    return true;
}

bool njobs_fence_gpus(const struct noded *nd, const uint32_t *gpus,
                      size_t n_gpus, struct cgroup_job_spec *s)
{
    const struct gpu_list *g = &nd->res.gpus;
    bool mine, all = n_gpus > 0;
    struct stat st;

    if (nd->cg.version == CGROUP_NONE || !nd->cg.devices ||
        !nd->cg.conf.constrain_devices)
        return false;
    s->deny = xcalloc(g->n + 1, sizeof(dev_t));
    for (size_t i = 0; i < g->n; i++) {
        bool chr = g->v[i].file != NULL && stat(g->v[i].file, &st) == 0 &&
                   S_ISCHR(st.st_mode);
        mine = false;
        for (size_t k = 0; k < n_gpus; k++)
            mine = mine || gpus[k] == i;
        if (mine && !chr)
            all = false;
        if (!mine && chr)
            s->deny[s->n_deny++] = st.st_rdev;
    }
    return all;
}

/* "0,1,3" of n GPU indices into buf ("-" for none; cut short with "..."
 * when buf is too small): the launch's log line, which
 * bench/chaos_check.py reads to see that no GPU served two jobs at once. */
static const char *gpu_list(const uint32_t *gpus, size_t n, char *buf,
                            size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "-");
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%" PRIu32, i ? "," : "",
                         gpus[i]);
        if (w < 0 || (size_t)w >= len - used) {
            snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
            break;
        }
        used += (size_t)w;
    }
    return buf;
}

static void job_launch(struct njobs *j, const struct proto_frame *f,
                       uint64_t gen)
{
    struct noded *nd = j->nd;
    struct jobenv_gpus gpus = {NULL, false};
    struct cgroup_job_spec spec = {0};
    struct launch_ctx ctx = {.spool = nd->spool,
                             .node = nd->name,
                             .notify = j->notify_path,
                             .conf_path = nd->conf_path,
                             .gpus = &gpus,
                             .cg = &nd->cg,
                             .cgs = &spec,
                             .user = NULL,
                             .boot_id = nd->boot_id,
                             .auth = nd->auth};
    cpu_set_t cpus;
    bool has_cpus = false;
    int *ordinals = NULL;
    struct timeval tv = {JOBS_LAUNCH_TIMEOUT_S, 0};
    char idx[256];
    struct launch l;
    struct njob *job;
    struct err e;
    uint32_t run;
    int64_t t_recv = clock_mono_us();
    pid_t sup;
    int fd;

    if (launch_parse(json_object_get(f->body, "job"), &l, &e) < 0) {
        reply_err(j, f, gen, EINVAL, e.text);
        return;
    }
    ctx.launch_nice = launch_nice(nd->conf, nd->name, l.partition);
    if ((job = njobs_find(j, l.job_id)) == NULL) {
        /* a previous sluiced may have left its directory: a job that
         * runs or ended here, or debris to clear before launching */
        njobs_adopt(j, l.job_id);
        job = njobs_find(j, l.job_id);
    }
    if (job != NULL) {
        if (job->state == NJOB_LAUNCHING) {
            reply_err(j, f, gen, EALREADY, "job is being launched already");
        } else if (job->state == NJOB_ENDED && njobs_run_of(job, &run) &&
                   run != l.restart_count) {
            /* an earlier run's end the controller has not acknowledged:
             * it takes that end first, then launches again */
            log_info("job=%" PRIu32 " launch deferred: its earlier run "
                     "(restart %" PRIu32 ") ended here unacknowledged",
                     l.job_id, run);
            reply_err(j, f, gen, EAGAIN,
                      "an earlier run of the job ended here and its end is "
                      "not acknowledged yet");
        } else {
            log_info("job=%" PRIu32 " launched again: it is here already",
                     l.job_id);
            reply_ok(j, f, gen);
        }
        goto out;
    }
    if (bind_gpus(nd, &l, &ordinals, &e) < 0 ||
        launch_check_user(&l, nd->name, j->users, &ctx.user, &e) < 0) {
        reply_err(j, f, gen, errno, e.text);
        goto out;
    }
    gpus.ordinals = ordinals;
    spec.job_id = l.job_id;
    spec.mem_mib = l.mem_mib;
    if ((has_cpus = njobs_pick_cpus(j, l.cpus, &cpus)))
        cgroup_cpus_format(&cpus, spec.cpus, sizeof(spec.cpus));
    gpus.renumber = njobs_fence_gpus(nd, l.gpus, l.n_gpus, &spec);
    if ((fd = launch_start(&ctx, &l, &sup, &e)) < 0) {
        reply_err(j, f, gen, errno, e.text);
        goto out;
    }
    njobs_reap_add(j, sup);
    job = njobs_add(j, l.job_id);
    job->restart_count = l.restart_count;
    job->has_restart_count = true;
    job->cpus = cpus;
    job->has_cpus = has_cpus;
    job->report_fd = fd;
    job->gen = gen;
    job->seq = f->seq;
    job->t_recv_us = t_recv;
    job->t_forked_us = clock_mono_us();
    job->report_ev =
        event_new(nd->base, fd, EV_READ | EV_PERSIST, on_report, job);
    event_add(job->report_ev, &tv);
    log_info("job=%" PRIu32 " state=launching user=%s uid=%u gpus=%zu%s "
             "gpu_idx=%s cpuset=%s mem_mib=%" PRIu64
             " devices_denied=%zu launch_nice=%d",
             l.job_id, l.user_name, (unsigned)l.uid, l.n_gpus,
             gpus.renumber ? " (fenced)" : "",
             gpu_list(l.gpus, l.n_gpus, idx, sizeof(idx)),
             has_cpus ? spec.cpus : "-", l.mem_mib, spec.n_deny,
             ctx.launch_nice);
out:
    free(spec.deny);
    free(ordinals);
    launch_clear(&l);
}

void njobs_request(struct njobs *j, const struct proto_frame *f, uint64_t gen)
{
    switch (f->type) {
    case PROTO_MSG_JOB_LAUNCH:
        job_launch(j, f, gen);
        break;
    case PROTO_MSG_JOB_SIGNAL:
        job_signal(j, f, gen);
        break;
    case PROTO_MSG_JOB_KILL:
        job_kill(j, f, gen);
        break;
    case PROTO_MSG_JOB_FREEZE:
        job_freeze(j, f, gen);
        break;
    default:
        reply_err(j, f, gen, EOPNOTSUPP, "not a job request");
    }
}
