/*
 * The node's job table: adopted from the spool at start and rescanned
 * every second (supervisors outlive sluiced, so the spool, not memory, is
 * the truth), woken early by supervisors through <spool>/sluiced.sock,
 * and the end reports: JOB_END until the controller acknowledges, then
 * the job's spool directory goes.
 */
#include "noded/jobs_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/conn.h"
#include "noded/steps.h"

struct njob *njobs_find(struct njobs *j, uint32_t id)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i]->id == id)
            return j->v[i];
    return NULL;
}

struct njob *njobs_add(struct njobs *j, uint32_t id)
{
    struct njob *job = xcalloc(1, sizeof(*job));

    job->jobs = j;
    job->id = id;
    job->state = NJOB_LAUNCHING;
    job->dir = spool_job_dir(j->nd->spool, id);
    job->report_fd = -1;
    job->mark = true;
    if (j->n == j->cap) {
        j->cap = j->cap ? 2 * j->cap : 32;
        j->v = xreallocarray(j->v, j->cap, sizeof(*j->v));
    }
    j->v[j->n++] = job;
    return job;
}

static void njob_free(struct njob *job)
{
    if (job->report_ev != NULL)
        event_free(job->report_ev);
    if (job->report_fd >= 0)
        close(job->report_fd);
    if (job->kill_ev != NULL)
        event_free(job->kill_ev);
    free(job->dir);
    free(job);
}

void njobs_forget(struct njobs *j, struct njob *job)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i] == job) {
            j->v[i] = j->v[--j->n];
            break;
        }
    njob_free(job);
}

int njobs_group_kill(const struct njob *job, int sig, bool whole)
{
    struct spool_pid now;

    if (job->pgid <= 1 || job->leader.pid != job->pgid ||
        spool_pid_of(job->pgid, &now) < 0 ||
        now.start_ticks != job->leader.start_ticks) {
        errno = ESRCH;
        return -1;
    }
    return kill(whole ? -job->pgid : job->pgid, sig);
}

/* A launch that timed out: stop its supervisor and whatever it started,
 * also a job process stopped before its exec (so that no pgid was
 * reported yet) and what is in the job's cgroup, with which the job would
 * otherwise run on untracked once continued. */
void njobs_launch_abandon(const struct cgroup *cg, struct njob *job)
{
    struct spool_pid sup;
    struct err e;

    if (spool_pid_read(job->dir, &sup, &e) == 0 && spool_pid_alive(&sup))
        kill(sup.pid, SIGKILL);
    if (spool_leader_read(job->dir, &job->leader, &e) == 0) {
        job->pgid = job->leader.pid;
        if (njobs_group_kill(job, SIGKILL, true) == 0)
            log_info("job=%" PRIu32 " launch abandoned: pgid=%d killed",
                     job->id, (int)job->pgid);
    }
    if (cg->version != CGROUP_NONE) {
        if (cgroup_job_kill(cg, job->id) < 0)
            log_warnx("job=%" PRIu32 " processes remain in its cgroup",
                      job->id);
        cgroup_job_destroy(cg, job->id);
    }
}

static void ended(struct njobs *j, struct njob *job)
{
    job->state = NJOB_ENDED;
    if (job->kill_ev != NULL)
        evtimer_del(job->kill_ev);
    log_info("job=%" PRIu32 " state=ended exit_code=%d signal=%d%s", job->id,
             job->st.exit_code, job->st.signal, job->st.oom ? " oom=true" : "");
    njobs_send_end(j, job);
}

/* The supervisor is gone and left no status: kill what may remain and
 * record the job as killed, so that its end is reported all the same.
 * A job of an earlier boot (other_boot) is only recorded: its pids name
 * nothing of it any more. */
static void lost(struct njobs *j, struct njob *job, const char *why,
                 bool other_boot)
{
    const struct cgroup *cg = &j->nd->cg;
    struct err e;
    struct stat sb;
    bool oom = false;

    log_warnx("job=%" PRIu32 " supervisor pid=%d is gone without a status "
              "(%s); reporting the job killed%s",
              job->id, (int)job->sup.pid, why,
              other_boot ? " without signalling anything" : "");
    if (!other_boot && njobs_group_kill(job, SIGKILL, true) < 0 &&
        job->pgid > 1)
        log_info("job=%" PRIu32 " pgid=%d not signalled: its leader is gone "
                 "or another process",
                 job->id, (int)job->pgid);
    if (!other_boot && cg->version != CGROUP_NONE) {
        if (cgroup_job_kill(cg, job->id) < 0)
            log_warnx("job=%" PRIu32 " processes remain in its cgroup",
                      job->id);
        oom = cgroup_job_oom(cg, job->id);
        cgroup_job_destroy(cg, job->id);
    }
    job->st = (struct spool_status){.signal = SIGKILL,
                                    .end_time = time(NULL),
                                    .oom = oom,
                                    .node_lost = other_boot};
    if (stat(job->dir, &sb) == 0)
        job->st.start_time = sb.st_mtime;
    if (spool_status_write(job->dir, &job->st, &e) < 0)
        log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    ended(j, job);
}

void njobs_check(struct njobs *j, struct njob *job)
{
    struct err e;

    if (job->state != NJOB_RUNNING)
        return;
    if (spool_status_read(job->dir, &job->st, &e) == 0) {
        ended(j, job);
        return;
    }
    if (errno != ENOENT)
        log_warnx("job=%" PRIu32 " %s", job->id, e.text);
    if (spool_pid_alive(&job->sup))
        return;
    /* it may have written its status just before it exited */
    if (spool_status_read(job->dir, &job->st, &e) == 0) {
        ended(j, job);
        return;
    }
    /* Under heavy load a supervisor has been seen as gone while its
     * status was still to come: give it until a later rescan before the
     * job is reported killed. */
    if (job->gone_since == 0) {
        job->gone_since = time(NULL);
        return;
    }
    if (time(NULL) - job->gone_since >= JOBS_GONE_GRACE_S)
        lost(j, job, e.text, false);
}

int njobs_unrecorded(const char *what, const char *dir, struct spool_pid *sup)
{
    struct err e;
    int fd = spool_lock(dir, JOBS_LOCK_WAIT_MS, &e);

    if (fd < 0) {
        if (errno != ENOENT)
            log_warnx("%s %s", what, e.text);
        return -1;
    }
    if (spool_pid_read(dir, sup, &e) == 0) {
        close(fd);
        return 0;
    }
    log_warnx("%s %s: removing a directory whose launch was cut short", what,
              dir);
    spool_remove(dir);
    close(fd);
    return -1;
}

bool njobs_run_of(const struct njob *job, uint32_t *restart_count)
{
    if (job->has_restart_count)
        *restart_count = job->restart_count;
    else if (job->st.has_restart_count)
        *restart_count = job->st.restart_count;
    else
        return false;
    return true;
}

/* o with the run's restart_count, when known. */
static json_t *with_run(const struct njob *job, json_t *o)
{
    uint32_t rc;

    if (njobs_run_of(job, &rc))
        json_object_set_new(o, "restart_count", json_integer(rc));
    return o;
}

void njobs_adopt(struct njobs *j, uint32_t id)
{
    char *dir = spool_job_dir(j->nd->spool, id);
    struct spool_status st;
    struct spool_pid sup;
    struct njob *job;
    int64_t v;
    char what[32];
    struct err e;

    if (spool_status_read(dir, &st, &e) == 0) {
        job = njobs_add(j, id);
        job->st = st;
        job->state = NJOB_ENDED;
        log_info("job=%" PRIu32 " adopted state=ended", id);
        goto out;
    }
    snprintf(what, sizeof(what), "job=%" PRIu32, id);
    if (spool_pid_read(dir, &sup, &e) < 0 &&
        njobs_unrecorded(what, dir, &sup) < 0)
        goto out;
    job = njobs_add(j, id);
    job->sup = sup;
    job->state = NJOB_RUNNING;
    if (j->nd->boot_id[0] != '\0' &&
        spool_same_boot(dir, j->nd->boot_id, &e) == 0) {
        /* the machine rebooted: the job died with it, and its pids may
         * be anyone's now */
        log_warnx("job=%" PRIu32 " %s", id, e.text);
        lost(j, job, "the machine rebooted", true);
        goto out;
    }
    job->has_cpus = cgroup_job_cpus(&j->nd->cg, id, &job->cpus) == 0;
    if (spool_leader_read(dir, &job->leader, &e) < 0)
        job->leader.pid = 0;
    /* the group is the leader's (an older sluiced wrote a pgid file); it
     * is signalled only while its leader is that process */
    if (spool_int_read(dir, "pgid", &v, &e) == 0 && v > 1)
        job->pgid = (pid_t)v;
    else if (job->leader.pid > 1)
        job->pgid = job->leader.pid;
    if (spool_int_read(dir, "kill", &v, &e) == 0 && v > 0) {
        job->kill_deadline = v;
        njobs_kill_arm(j, job);
    }
    log_info("job=%" PRIu32 " adopted state=running supervisor=%d pgid=%d", id,
             (int)sup.pid, (int)job->pgid);
    njobs_check(j, job);
out:
    free(dir);
}

static void scan(struct njobs *j)
{
    uint32_t *ids;
    size_t n;
    struct err e;

    if (spool_list(j->nd->spool, &ids, &n, &e) < 0) {
        log_warnx("%s", e.text);
        return;
    }
    for (size_t i = 0; i < j->n; i++)
        j->v[i]->mark = false;
    for (size_t i = 0; i < n; i++) {
        struct njob *job = njobs_find(j, ids[i]);
        if (job == NULL)
            njobs_adopt(j, ids[i]);
        else
            job->mark = true;
    }
    free(ids);
    for (size_t i = 0; i < j->n;) {
        struct njob *job = j->v[i];
        if (!job->mark && job->state != NJOB_LAUNCHING && !job->end_sent) {
            log_warnx("job=%" PRIu32 " %s vanished from the spool", job->id,
                      job->dir);
            njobs_forget(j, job);
            continue;
        }
        i++;
        if (job->state == NJOB_RUNNING)
            njobs_check(j, job);
        else if (job->state == NJOB_ENDED && !job->end_sent)
            njobs_send_end(j, job);
    }
}

static void on_scan(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    scan(arg);
}

static void on_end_reply(struct noded *nd, void *arg, int code,
                         const char *message, json_t *body)
{
    struct njobs *j = nd->jobs;
    uint32_t id = (uint32_t)(uintptr_t)arg;
    struct njob *job = njobs_find(j, id);
    char what[48];

    (void)body;
    if (job == NULL)
        return;
    job->end_sent = false;
    snprintf(what, sizeof(what), "job=%" PRIu32 " JOB_END", id);
    /* after a lost connection: resent after the next registration */
    if (!njobs_end_settled(what, code, message, &job->end_failed_logged))
        return;
    if (code == 0)
        log_debug("job=%" PRIu32 " end acknowledged", id);
    if (spool_remove(job->dir) < 0)
        log_warn("job=%" PRIu32 " cannot remove %s", id, job->dir);
    njobs_forget(j, job);
}

bool njobs_end_settled(const char *what, int code, const char *message,
                       bool *warned)
{
    if (code == ECONNRESET)
        return false;
    if (code != 0 && code != ENOENT && code != ESRCH && code != EINVAL) {
        if (!*warned)
            log_warnx("%s refused, will retry: %s", what, message);
        *warned = true;
        return false;
    }
    if (code != 0)
        log_warnx("%s refused for good: %s", what, message);
    return true;
}

void njobs_send_end(struct njobs *j, struct njob *job)
{
    struct noded *nd = j->nd;
    json_t *body;

    if (job->state != NJOB_ENDED || job->end_sent || !conn_ready(nd->conn))
        return;
    body = json_pack("{s:I, s:s, s:i, s:i, s:I, s:I, s:b}", "job_id",
                     (json_int_t)job->id, "node", nd->name, "exit_code",
                     job->st.exit_code, "signal", job->st.signal, "start_time",
                     (json_int_t)job->st.start_time, "end_time",
                     (json_int_t)job->st.end_time, "oom", job->st.oom);
    with_run(job, body);
    if (job->st.has_usage)
        json_object_set_new(body, "usage",
                            stepusage_json(&job->st.usage, 1, -1, -1));
    if (job->st.node_lost)
        json_object_set_new(body, "node_lost", json_true());
    if (conn_request(nd->conn, PROTO_MSG_JOB_END, body, on_end_reply,
                     (void *)(uintptr_t)job->id) == 0)
        job->end_sent = true;
}

json_t *njobs_register_list(struct njobs *j, uint32_t **ended_ids,
                            size_t *n_ended)
{
    json_t *a = json_array();

    scan(j);
    *ended_ids = xcalloc(j->n + 1, sizeof(**ended_ids));
    *n_ended = 0;
    for (size_t i = 0; i < j->n; i++) {
        struct njob *job = j->v[i];
        if (job->state != NJOB_ENDED) {
            json_array_append_new(a, json_pack("{s:I, s:s}", "job_id",
                                               (json_int_t)job->id, "state",
                                               "running"));
            continue;
        }
        json_t *o =
            json_pack("{s:I, s:s, s:i, s:i, s:I, s:I, s:b}", "job_id",
                      (json_int_t)job->id, "state", "ended", "exit_code",
                      job->st.exit_code, "signal", job->st.signal, "start_time",
                      (json_int_t)job->st.start_time, "end_time",
                      (json_int_t)job->st.end_time, "oom", job->st.oom);
        if (job->st.node_lost)
            json_object_set_new(o, "node_lost", json_true());
        json_array_append_new(a, with_run(job, o));
        (*ended_ids)[(*n_ended)++] = job->id;
    }
    return a;
}

json_t *njobs_running_ids(struct njobs *j)
{
    json_t *a = json_array();

    for (size_t i = 0; i < j->n; i++)
        if (j->v[i]->state != NJOB_ENDED)
            json_array_append_new(a, json_integer(j->v[i]->id));
    return a;
}

static void kill_listed(struct njobs *j, json_t *kill_jobs)
{
    json_t *v;
    size_t i;

    if (!json_is_array(kill_jobs))
        return;
    json_array_foreach(kill_jobs, i, v)
    {
        struct njob *job;
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > UINT32_MAX)
            continue;
        job = njobs_find(j, (uint32_t)json_integer_value(v));
        nsteps_kill_job(j->nd->steps, (uint32_t)json_integer_value(v),
                        "cancelled", j->nd->conf->kill_wait_s);
        if (job != NULL && job->state != NJOB_ENDED)
            njobs_kill(j, job, j->nd->conf->kill_wait_s,
                       "unknown to the "
                       "controller");
    }
}

void njobs_registered(struct njobs *j, const uint32_t *acked, size_t n_acked,
                      json_t *kill_jobs)
{
    for (size_t i = 0; i < n_acked; i++) {
        struct njob *job = njobs_find(j, acked[i]);
        if (job == NULL || job->state != NJOB_ENDED || job->end_sent)
            continue;
        log_debug("job=%" PRIu32 " end acknowledged by registration", job->id);
        if (spool_remove(job->dir) < 0)
            log_warn("job=%" PRIu32 " cannot remove %s", job->id, job->dir);
        njobs_forget(j, job);
    }
    kill_listed(j, kill_jobs);
    for (size_t i = 0; i < j->n; i++)
        njobs_send_end(j, j->v[i]);
}

/* A supervisor's note: the id of a job that ended. */
static void on_note(evutil_socket_t fd, short what, void *arg)
{
    struct njobs *j = arg;
    char buf[32];
    ssize_t n = (what & EV_READ) ? read(fd, buf, sizeof(buf) - 1) : -1;
    unsigned long id;
    struct njob *job;

    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    if (strncmp(buf, "step ", 5) == 0) {
        nsteps_note(j->nd->steps, buf);
        return;
    }
    id = strtoul(buf, NULL, 10);
    if (id > 0 && id <= UINT32_MAX &&
        (job = njobs_find(j, (uint32_t)id)) != NULL)
        njobs_check(j, job);
    else
        scan(j);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
                      struct sockaddr *sa, int len, void *arg)
{
    struct njobs *j = arg;
    struct timeval tv = {1, 0};

    (void)l;
    (void)sa;
    (void)len;
    if (event_base_once(j->nd->base, fd, EV_READ, on_note, j, &tv) < 0)
        close(fd);
}

static int notify_listen(struct njobs *j, struct err *e)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};

    j->notify_path = xasprintf("%s/sluiced.sock", j->nd->spool);
    if (strlen(j->notify_path) >= sizeof(sun.sun_path)) {
        errno = ENAMETOOLONG;
        return err_set(e, "%s: path too long for a unix socket (spool dir %s)",
                       j->notify_path, j->nd->spool);
    }
    strcpy(sun.sun_path, j->notify_path);
    unlink(j->notify_path); /* the pid file lock says it is ours */
    j->notify =
        evconnlistener_new_bind(j->nd->base, on_accept, j,
                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
                                64, (struct sockaddr *)&sun, sizeof(sun));
    if (j->notify == NULL)
        return err_set(e, "cannot listen on %s: %s", j->notify_path,
                       strerror(errno));
    chmod(j->notify_path, 0600);
    return 0;
}

void njobs_reap_add(struct njobs *j, pid_t pid)
{
    if (j->n_kids == j->cap_kids) {
        j->cap_kids = j->cap_kids ? j->cap_kids * 2 : 16;
        j->kids = xreallocarray(j->kids, j->cap_kids, sizeof(*j->kids));
    }
    j->kids[j->n_kids++] = pid;
}

/* SIGCHLD: reap the supervisors that ended (their status is in the spool
 * already; the poke or the rescan reports the job). */
static void on_chld(evutil_socket_t fd, short what, void *arg)
{
    struct njobs *j = arg;
    size_t k = 0;

    (void)fd;
    (void)what;
    for (size_t i = 0; i < j->n_kids; i++) {
        pid_t r = waitpid(j->kids[i], NULL, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR))
            j->kids[k++] = j->kids[i]; /* still running */
    }
    j->n_kids = k;
}

struct njobs *njobs_create(struct noded *nd, struct err *e)
{
    struct njobs *j = xcalloc(1, sizeof(*j));
    struct err ne;
    struct timeval tv = {1, 0};

    (void)e; /* nothing here is fatal */
    j->nd = nd;
    nd->jobs = j;
    j->users = ucache_create(JOBS_USER_TTL_S);
    if (notify_listen(j, &ne) < 0) {
        /* the rescan every second still sees every end */
        log_warnx("%s; job ends are seen by the rescan only", ne.text);
        free(j->notify_path);
        j->notify_path = NULL;
    }
    j->scan_ev = event_new(nd->base, -1, EV_PERSIST, on_scan, j);
    event_add(j->scan_ev, &tv);
    j->chld_ev = evsignal_new(nd->base, SIGCHLD, on_chld, j);
    event_add(j->chld_ev, NULL);
    scan(j);
    return j;
}

void njobs_destroy(struct njobs *j)
{
    int saved = errno;

    if (j == NULL)
        return;
    for (size_t i = 0; i < j->n; i++)
        njob_free(j->v[i]);
    free(j->v);
    if (j->scan_ev != NULL)
        event_free(j->scan_ev);
    if (j->chld_ev != NULL)
        event_free(j->chld_ev);
    free(j->kids); /* running supervisors are init's to reap from now */
    if (j->notify != NULL) {
        evconnlistener_free(j->notify);
        if (j->notify_path != NULL)
            unlink(j->notify_path);
    }
    free(j->notify_path);
    ucache_destroy(j->users);
    free(j);
    errno = saved;
}
