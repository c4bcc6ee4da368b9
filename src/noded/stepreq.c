/*
 * The controller's requests about steps: STEP_LAUNCH (answered once the
 * step supervisor reports that the node's tasks run, or why not),
 * STEP_SIGNAL and STEP_KILL (handed to the supervisor through its ctl
 * socket: it tells srun why and keeps the SIGKILL deadline).
 */
#include "noded/steps_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/conn.h"
#include "noded/jobs_int.h"
#include "noded/launch.h"
#include "noded/steplaunch.h"

#define STEP_FMT "step=%" PRIu32 ".%" PRIu32

static void reply_err(struct nsteps *s, const struct proto_frame *f,
                      uint64_t gen, int code, const char *text)
{
    log_warnx("%s seq=%" PRIu32 " refused: %s", proto_type_name(f->type),
              f->seq, text);
    conn_reply_error(s->nd->conn, gen, f->type, f->seq, code ? code : EIO,
                     text);
}

/* job_id and step_id of a request; NULL (and an error reply) when bad. */
static int get_ids(struct nsteps *s, const struct proto_frame *f, uint64_t gen,
                   uint32_t *job_id, uint32_t *step_id)
{
    json_t *j = json_object_get(f->body, "job_id");
    json_t *k = json_object_get(f->body, "step_id");

    if (!json_is_integer(j) || json_integer_value(j) < 1 ||
        json_integer_value(j) > UINT32_MAX) {
        reply_err(s, f, gen, EINVAL,
                  "job_id: expected an integer 1..4294967295");
        return -1;
    }
    if (!json_is_integer(k) || json_integer_value(k) < 0 ||
        json_integer_value(k) > UINT32_MAX) {
        reply_err(s, f, gen, EINVAL,
                  "step_id: expected an integer 0..4294967295");
        return -1;
    }
    *job_id = (uint32_t)json_integer_value(j);
    *step_id = (uint32_t)json_integer_value(k);
    return 0;
}

static void step_signal(struct nsteps *s, const struct proto_frame *f,
                        uint64_t gen)
{
    json_t *v = json_object_get(f->body, "signal");
    uint32_t job_id, step_id;
    struct nstep *st;
    char text[160], line[32];
    int sig;

    if (get_ids(s, f, gen, &job_id, &step_id) < 0)
        return;
    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        json_integer_value(v) >= NSIG) {
        snprintf(text, sizeof(text), "signal: expected an integer 1..%d",
                 NSIG - 1);
        reply_err(s, f, gen, EINVAL, text);
        return;
    }
    sig = (int)json_integer_value(v);
    st = nsteps_find(s, job_id, step_id);
    snprintf(line, sizeof(line), "signal %d\n", sig);
    if (st == NULL || st->state != NSTEP_RUNNING ||
        (nsteps_tell(st, line) < 0 && nsteps_kill_group(s, st, sig) < 0)) {
        snprintf(text, sizeof(text),
                 "step %" PRIu32 ".%" PRIu32 " is not running on %s", job_id,
                 step_id, s->nd->name);
        reply_err(s, f, gen, ESRCH, text);
        return;
    }
    log_info(STEP_FMT " signal=%d", job_id, step_id, sig);
    conn_reply(s->nd->conn, gen, f->type, f->seq, NULL);
}

/* "reason" and "kill_wait_s" of STEP_KILL (or JOB_KILL); -1 after an
 * error reply. */
static int kill_args(struct nsteps *s, const struct proto_frame *f,
                     uint64_t gen, const char **reason, uint32_t *wait_s)
{
    json_t *w = json_object_get(f->body, "kill_wait_s");

    *reason = "cancelled";
    *wait_s = s->nd->conf->kill_wait_s;
    if (w != NULL && !json_is_null(w)) {
        if (!json_is_integer(w) || json_integer_value(w) < 0 ||
            json_integer_value(w) > 86400) {
            reply_err(s, f, gen, EINVAL,
                      "kill_wait_s: expected an integer 0..86400");
            return -1;
        }
        *wait_s = (uint32_t)json_integer_value(w);
    }
    json_unpack(f->body, "{s?s}", "reason", reason);
    return 0;
}

static void step_kill(struct nsteps *s, const struct proto_frame *f,
                      uint64_t gen)
{
    uint32_t job_id, step_id, wait_s;
    const char *reason;
    struct nstep *st;

    if (get_ids(s, f, gen, &job_id, &step_id) < 0 ||
        kill_args(s, f, gen, &reason, &wait_s) < 0)
        return;
    /* a step that ended, or never came here, is killed already */
    if ((st = nsteps_find(s, job_id, step_id)) != NULL)
        nsteps_kill(s, st, reason, wait_s);
    conn_reply(s->nd->conn, gen, f->type, f->seq, NULL);
}

/* --- STEP_LAUNCH ------------------------------------------------------ */

static void launch_done(struct nsteps *s, struct nstep *st, int code,
                        const char *text)
{
    struct noded *nd = s->nd;
    uint32_t job_id;
    struct err e;

    event_free(st->report_ev);
    st->report_ev = NULL;
    close(st->report_fd);
    st->report_fd = -1;
    if (code != 0) {
        log_warnx(STEP_FMT " launch failed: %s", st->job_id, st->step_id, text);
        conn_reply_error(nd->conn, st->gen, PROTO_MSG_STEP_LAUNCH, st->seq,
                         code, text);
        spool_remove(st->dir);
        job_id = st->job_id;
        nsteps_forget(s, st);
        nsteps_job_cgroup_release(s, job_id);
        return;
    }
    if (spool_pid_read(st->dir, &st->sup, &e) < 0 ||
        spool_pid_read_as(st->dir, "leader", &st->leader, &e) < 0)
        log_warnx(STEP_FMT " %s", st->job_id, st->step_id, e.text);
    st->state = NSTEP_RUNNING;
    log_info(STEP_FMT " state=running supervisor=%d pgid=%d", st->job_id,
             st->step_id, (int)st->sup.pid, (int)st->leader.pid);
    conn_reply(nd->conn, st->gen, PROTO_MSG_STEP_LAUNCH, st->seq, NULL);
    if (st->kill_pending)
        nsteps_kill(s, st, st->kill_reason, st->kill_wait_s);
    nsteps_check(s, st); /* a short step may have ended already */
}

/* A launch that timed out: its supervisor, tasks and cgroup go. */
static void abandon(struct nsteps *s, struct nstep *st)
{
    struct err e;

    if (spool_pid_read(st->dir, &st->sup, &e) == 0 && spool_pid_alive(&st->sup))
        kill(st->sup.pid, SIGKILL);
    if (spool_pid_read_as(st->dir, "leader", &st->leader, &e) == 0)
        nsteps_kill_group(s, st, SIGKILL);
    cgroup_step_destroy(&s->nd->cg, st->job_id, st->step_id);
}

static void on_report(evutil_socket_t fd, short what, void *arg)
{
    struct nstep *st = arg;
    struct nsteps *s = st->steps;
    char text[900];
    int pid, pgid, code, off = 0;
    long long start;
    ssize_t n;

    if (!(what & EV_READ)) {
        snprintf(text, sizeof(text),
                 "step %" PRIu32 ".%" PRIu32 " did not start within %d s on %s",
                 st->job_id, st->step_id, JOBS_LAUNCH_TIMEOUT_S, s->nd->name);
        abandon(s, st);
        launch_done(s, st, ETIMEDOUT, text);
        return;
    }
    n = read(fd, st->rbuf + st->rlen, sizeof(st->rbuf) - 1 - st->rlen);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        st->rlen += (size_t)n;
    st->rbuf[st->rlen] = '\0';
    if (n > 0 && strchr(st->rbuf, '\n') == NULL &&
        st->rlen + 1 < sizeof(st->rbuf))
        return;
    st->rbuf[strcspn(st->rbuf, "\n")] = '\0';
    if (sscanf(st->rbuf, "ok %d %d %lld", &pid, &pgid, &start) == 3)
        launch_done(s, st, 0, NULL);
    else if (sscanf(st->rbuf, "error %d %n", &code, &off) == 1 && off > 0 &&
             code > 0)
        launch_done(s, st, code, st->rbuf + off);
    else {
        snprintf(text, sizeof(text),
                 "the supervisor of step %" PRIu32 ".%" PRIu32
                 " ended without starting it%s%s",
                 st->job_id, st->step_id, st->rlen ? ": " : "", st->rbuf);
        launch_done(s, st, EIO, text);
    }
}

/* Every GPU index of the step names one of this node's. */
static int check_gpus(const struct noded *nd, const struct step_launch *sl,
                      struct err *e)
{
    const uint32_t *lists[2] = {sl->gpus, sl->job_gpus};
    const size_t ns[2] = {sl->n_gpus, sl->n_job_gpus};
    size_t have = nd->res.gpus.n;

    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < ns[k]; i++)
            if (lists[k][i] >= have) {
                errno = EINVAL;
                return err_set(e,
                               "%s: index %" PRIu32 " is not a GPU of %s (it "
                               "has %zu GPU%s)",
                               k ? "job_gpus" : "gpus", lists[k][i], nd->name,
                               have, have == 1 ? "" : "s");
            }
    return 0;
}

/*
 * The job's cgroup: made here (with the job's CPUs, memory and device
 * fence) on a node that does not run the job's batch script, whose
 * supervisor makes it otherwise.  *renumber: the job's GPUs are fenced
 * devices (the tasks count them from 0).
 */
static int job_cgroup(struct nsteps *s, const struct step_launch *sl,
                      bool *renumber, struct err *e)
{
    struct noded *nd = s->nd;
    struct cgroup_job_spec spec = {.job_id = sl->job_id,
                                   .mem_mib = sl->job_mem_mib};
    cpu_set_t cpus;
    int rc = 0;

    *renumber = njobs_fence_gpus(nd, sl->job_gpus, sl->n_job_gpus, &spec);
    if (nd->cg.version != CGROUP_NONE &&
        njobs_find(nd->jobs, sl->job_id) == NULL &&
        !cgroup_job_exists(&nd->cg, sl->job_id)) {
        if (sl->job_cpus > 0 && njobs_pick_cpus(nd->jobs, sl->job_cpus, &cpus))
            cgroup_cpus_format(&cpus, spec.cpus, sizeof(spec.cpus));
        rc = cgroup_job_create(&nd->cg, &spec, e);
        if (rc == 0)
            log_info("job=%" PRIu32 " cgroup made for its steps cpuset=%s "
                     "mem_mib=%" PRIu64,
                     sl->job_id, spec.cpus[0] ? spec.cpus : "-",
                     sl->job_mem_mib);
    }
    free(spec.deny);
    return rc;
}

/* The user check of launch.c, on the step's ids. */
static int check_user(struct nsteps *s, const struct step_launch *sl,
                      const struct ucache_user **user, struct err *e)
{
    struct launch l = {
        .uid = sl->uid, .gid = sl->gid, .user_name = sl->user_name};

    return launch_check_user(&l, s->nd->name, s->nd->jobs->users, user, e);
}

static int start(struct nsteps *s, const struct proto_frame *f, uint64_t gen,
                 const struct step_launch *sl, struct err *e)
{
    struct noded *nd = s->nd;
    int *ordinals = xcalloc(nd->res.gpus.n + 1, sizeof(int));
    struct step_launch_ctx ctx = {.spool = nd->spool,
                                  .node = nd->name,
                                  .notify = nd->jobs->notify_path,
                                  .ordinals = ordinals,
                                  .n_ordinals = nd->res.gpus.n,
                                  .cg = &nd->cg,
                                  .boot_id = nd->boot_id,
                                  .usage_period_s =
                                      nd->conf->job_acct_gather_freq_s,
                                  .auth = nd->auth};
    struct timeval tv = {JOBS_LAUNCH_TIMEOUT_S, 0};
    struct nstep *st;
    pid_t sup;
    int fd = -1;

    for (size_t i = 0; i < nd->res.gpus.n; i++)
        ordinals[i] = nd->res.gpus.v[i].ordinal;
    if (check_gpus(nd, sl, e) < 0 || check_user(s, sl, &ctx.user, e) < 0 ||
        job_cgroup(s, sl, &ctx.renumber, e) < 0 ||
        (fd = step_launch_start(&ctx, sl, &sup, e)) < 0) {
        free(ordinals);
        return -1;
    }
    free(ordinals);
    njobs_reap_add(nd->jobs, sup);
    st = nsteps_add(s, sl->job_id, sl->step_id);
    st->node_id = sl->node_id;
    st->report_fd = fd;
    st->gen = gen;
    st->seq = f->seq;
    st->report_ev =
        event_new(nd->base, fd, EV_READ | EV_PERSIST, on_report, st);
    event_add(st->report_ev, &tv);
    return 0;
}

static void step_launch(struct nsteps *s, const struct proto_frame *f,
                        uint64_t gen)
{
    struct step_launch sl;
    struct nstep *st;
    struct err e;

    if (step_launch_parse(json_object_get(f->body, "step"), &sl, &e) < 0) {
        reply_err(s, f, gen, EINVAL, e.text);
        return;
    }
    if ((st = nsteps_find(s, sl.job_id, sl.step_id)) == NULL) {
        /* a previous sluiced may have left its directory */
        nsteps_adopt(s, sl.job_id, sl.step_id);
        st = nsteps_find(s, sl.job_id, sl.step_id);
    }
    if (st != NULL && st->state == NSTEP_LAUNCHING)
        reply_err(s, f, gen, EALREADY, "step is being launched already");
    else if (st != NULL)
        conn_reply(s->nd->conn, gen, f->type, f->seq, NULL);
    else if (start(s, f, gen, &sl, &e) < 0) {
        reply_err(s, f, gen, errno, e.text);
        nsteps_job_cgroup_release(s, sl.job_id);
    } else
        log_info(STEP_FMT " state=launching user=%s uid=%u node_id=%" PRIu32
                          " tasks=%zu gpus=%zu srun=%s:%u",
                 sl.job_id, sl.step_id, sl.user_name, (unsigned)sl.uid,
                 sl.node_id, sl.n_tasks, sl.n_gpus, sl.srun_host,
                 (unsigned)sl.srun_port);
    step_launch_clear(&sl);
}

void nsteps_request(struct nsteps *s, const struct proto_frame *f, uint64_t gen)
{
    switch (f->type) {
    case PROTO_MSG_STEP_LAUNCH:
        step_launch(s, f, gen);
        break;
    case PROTO_MSG_STEP_SIGNAL:
        step_signal(s, f, gen);
        break;
    case PROTO_MSG_STEP_KILL:
        step_kill(s, f, gen);
        break;
    default:
        reply_err(s, f, gen, EOPNOTSUPP, "not a step request");
    }
}
