/*
 * The node's step table: adopted from the spool at start and rescanned
 * every second (step supervisors outlive sluiced: the spool is the
 * truth), woken early by supervisors' notes; STEP_END until the
 * controller acknowledges (then the step's directory goes, and the job's
 * cgroup when it was made for steps alone), STEP_USAGE every usage
 * period.
 */
#include "noded/steps_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/conn.h"
#include "noded/jobs_int.h"

#define STEP_FMT "step=%" PRIu32 ".%" PRIu32

struct nstep *nsteps_find(struct nsteps *s, uint32_t job_id, uint32_t step_id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i]->job_id == job_id && s->v[i]->step_id == step_id)
            return s->v[i];
    return NULL;
}

struct nstep *nsteps_add(struct nsteps *s, uint32_t job_id, uint32_t step_id)
{
    struct nstep *st = xcalloc(1, sizeof(*st));

    st->steps = s;
    st->job_id = job_id;
    st->step_id = step_id;
    st->state = NSTEP_LAUNCHING;
    st->dir = spool_step_dir(s->nd->spool, job_id, step_id);
    st->report_fd = -1;
    st->mark = true;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
    }
    s->v[s->n++] = st;
    return st;
}

static void nstep_free(struct nstep *st)
{
    if (st->report_ev != NULL)
        event_free(st->report_ev);
    if (st->report_fd >= 0)
        close(st->report_fd);
    json_decref(st->status);
    free(st->dir);
    free(st);
}

void nsteps_forget(struct nsteps *s, struct nstep *st)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == st) {
            s->v[i] = s->v[--s->n];
            break;
        }
    nstep_free(st);
}

bool nsteps_has_job(const struct nsteps *s, uint32_t job_id)
{
    for (size_t i = 0; s != NULL && i < s->n; i++)
        if (s->v[i]->job_id == job_id && s->v[i]->state != NSTEP_ENDED)
            return true;
    return false;
}

int nsteps_tell(const struct nstep *st, const char *line)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int fd, rc = -1, saved;

    if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/ctl", st->dir) >=
        (int)sizeof(sun.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 &&
        write(fd, line, strlen(line)) == (ssize_t)strlen(line))
        rc = 0;
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int nsteps_kill_group(struct nsteps *s, const struct nstep *st, int sig)
{
    const struct cgroup *cg = &s->nd->cg;
    struct spool_pid now;
    int reached = 0;

    if (cg->version != CGROUP_NONE)
        reached = cgroup_step_signal(cg, st->job_id, st->step_id, sig);
    if (st->leader.pid > 1 && spool_pid_of(st->leader.pid, &now) == 0 &&
        now.start_ticks == st->leader.start_ticks &&
        kill(-st->leader.pid, sig) == 0)
        reached++;
    if (reached > 0)
        return 0;
    errno = ESRCH;
    return -1;
}

void nsteps_kill(struct nsteps *s, struct nstep *st, const char *reason,
                 uint32_t wait_s)
{
    char line[80];

    if (st->state == NSTEP_LAUNCHING) {
        st->kill_pending = true;
        snprintf(st->kill_reason, sizeof(st->kill_reason), "%s", reason);
        st->kill_wait_s = wait_s;
        return;
    }
    if (st->state != NSTEP_RUNNING)
        return;
    log_info(STEP_FMT " kill reason=\"%s\" kill_wait_s=%" PRIu32, st->job_id,
             st->step_id, reason, wait_s);
    /* a suspended step is resumed first: a frozen task takes no signal */
    cgroup_step_freeze(&s->nd->cg, st->job_id, st->step_id, false);
    nsteps_kill_group(s, st, SIGCONT);
    /* the supervisor tells srun why, and keeps the SIGKILL deadline */
    snprintf(line, sizeof(line), "kill %s %" PRIu32 "\n",
             reason[0] && !strchr(reason, ' ') ? reason : "-", wait_s);
    if (nsteps_tell(st, line) < 0 && nsteps_kill_group(s, st, SIGKILL) < 0)
        log_info(STEP_FMT " not signalled: its supervisor and tasks are gone",
                 st->job_id, st->step_id);
}

size_t nsteps_kill_job(struct nsteps *s, uint32_t job_id, const char *reason,
                       uint32_t wait_s)
{
    size_t k = 0;

    for (size_t i = 0; s != NULL && i < s->n; i++)
        if (s->v[i]->job_id == job_id) {
            nsteps_kill(s, s->v[i], reason, wait_s);
            k++;
        }
    return k;
}

/* One step of JOB_FREEZE; -1 with errno when its tasks were not reached. */
static int freeze_one(struct nsteps *s, const struct nstep *st, bool on)
{
    const char *how = "freezer";

    if (cgroup_step_freeze(&s->nd->cg, st->job_id, st->step_id, on) < 0) {
        how = "signal";
        if (on && nsteps_kill_group(s, st, SIGSTOP) < 0)
            return -1;
    }
    /* a stopped task goes on only with SIGCONT; a CONT trap sees it */
    if (!on && nsteps_kill_group(s, st, SIGCONT) < 0 &&
        strcmp(how, "signal") == 0)
        return -1;
    log_info(STEP_FMT " %s by=%s pgid=%d", st->job_id, st->step_id,
             on ? "suspended" : "resumed", how, (int)st->leader.pid);
    return 0;
}

size_t nsteps_freeze_job(struct nsteps *s, uint32_t job_id, bool on)
{
    size_t k = 0;

    for (size_t i = 0; s != NULL && i < s->n; i++) {
        struct nstep *st = s->v[i];
        if (st->job_id != job_id || st->state != NSTEP_RUNNING)
            continue;
        if (freeze_one(s, st, on) == 0)
            k++;
        else
            log_warn(STEP_FMT " %s", st->job_id, st->step_id,
                     on ? "suspend" : "resume");
    }
    return k;
}

/* The job's cgroup, made for its steps on a node without its batch
 * script, goes with the last of them. */
void nsteps_job_cgroup_release(struct nsteps *s, uint32_t job_id)
{
    const struct cgroup *cg = &s->nd->cg;
    const struct njob *batch = njobs_find(s->nd->jobs, job_id);

    /* a batch script that ended tried to remove it too, and could not
     * while a step's cgroup (v2) was in it */
    if (cg->version == CGROUP_NONE || nsteps_has_job(s, job_id) ||
        (batch != NULL && batch->state != NJOB_ENDED) ||
        !cgroup_job_exists(cg, job_id))
        return;
    cgroup_job_kill(cg, job_id);
    cgroup_job_destroy(cg, job_id);
    log_debug("job=%" PRIu32 " cgroup removed with its last step", job_id);
}

/* Which step a STEP_END was for (the entry may be gone by the reply). */
struct end_key {
    uint32_t job_id, step_id;
};

static void on_end_reply(struct noded *nd, void *arg, int code,
                         const char *message, json_t *body)
{
    struct nsteps *s = nd->steps;
    struct end_key k = *(struct end_key *)arg;
    struct nstep *st = s ? nsteps_find(s, k.job_id, k.step_id) : NULL;
    char what[64];

    (void)body;
    free(arg);
    if (st == NULL)
        return;
    st->end_sent = false;
    snprintf(what, sizeof(what), STEP_FMT " STEP_END", st->job_id, st->step_id);
    /* after a lost connection: the rescan sends it again */
    if (!njobs_end_settled(what, code, message, &st->end_failed_logged))
        return;
    if (spool_remove(st->dir) < 0)
        log_warn(STEP_FMT " cannot remove %s", st->job_id, st->step_id,
                 st->dir);
    nsteps_forget(s, st);
    nsteps_job_cgroup_release(s, k.job_id);
}

static void send_end(struct nsteps *s, struct nstep *st)
{
    struct noded *nd = s->nd;
    struct end_key *k;
    json_t *body;

    if (st->state != NSTEP_ENDED || st->end_sent || !conn_ready(nd->conn))
        return;
    body = json_deep_copy(st->status);
    json_object_set_new(body, "job_id", json_integer(st->job_id));
    json_object_set_new(body, "step_id", json_integer(st->step_id));
    json_object_set_new(body, "node", json_string(nd->name));
    json_object_set_new(body, "node_id", json_integer(st->node_id));
    k = xmalloc(sizeof(*k));
    *k = (struct end_key){st->job_id, st->step_id};
    if (conn_request(nd->conn, PROTO_MSG_STEP_END, body, on_end_reply, k) == 0)
        st->end_sent = true;
    else
        free(k);
}

static void ended(struct nsteps *s, struct nstep *st)
{
    st->state = NSTEP_ENDED;
    log_info(
        STEP_FMT " state=ended exit_code=%" PRId64 " signal=%" PRId64 "%s",
        st->job_id, st->step_id,
        (int64_t)json_integer_value(json_object_get(st->status, "exit_code")),
        (int64_t)json_integer_value(json_object_get(st->status, "signal")),
        json_is_true(json_object_get(st->status, "oom")) ? " oom=true" : "");
    send_end(s, st);
}

static json_t *read_status(const char *dir)
{
    struct err e;
    char *text = spool_read(dir, "status", 16 << 20, &e);
    json_t *st = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    if (st != NULL && !json_is_object(st)) {
        json_decref(st);
        st = NULL;
    }
    return st;
}

/* The supervisor is gone without a status: kill what is left, and report
 * the step killed. */
static void lost(struct nsteps *s, struct nstep *st, const char *why,
                 bool other_boot)
{
    struct stat sb;
    struct err e;
    char *text;

    log_warnx(STEP_FMT " supervisor pid=%d is gone without a status (%s); "
                       "reporting the step killed",
              st->job_id, st->step_id, (int)st->sup.pid, why);
    if (!other_boot) {
        nsteps_kill_group(s, st, SIGKILL);
        cgroup_step_destroy(&s->nd->cg, st->job_id, st->step_id);
    }
    json_decref(st->status);
    st->status =
        json_pack("{s:[], s:i, s:i, s:I, s:I, s:b, s:s, s:{s:[]}}", "tasks",
                  "exit_code", 0, "signal", SIGKILL, "start_time",
                  (json_int_t)(stat(st->dir, &sb) == 0 ? sb.st_mtime : 0),
                  "end_time", (json_int_t)time(NULL), "oom", 0, "reason",
                  "step supervisor lost", "usage", "tasks");
    text = json_dumps(st->status, JSON_COMPACT);
    if (text == NULL || spool_write(st->dir, "status", text, strlen(text), 0600,
                                    (uid_t)-1, (gid_t)-1, &e) < 0)
        log_warnx(STEP_FMT " cannot write its status", st->job_id, st->step_id);
    free(text);
    ended(s, st);
}

void nsteps_check(struct nsteps *s, struct nstep *st)
{
    if (st->state != NSTEP_RUNNING)
        return;
    if ((st->status = read_status(st->dir)) != NULL) {
        ended(s, st);
        return;
    }
    if (spool_pid_alive(&st->sup))
        return;
    if ((st->status = read_status(st->dir)) != NULL) {
        ended(s, st);
        return;
    }
    /* under load a supervisor may look gone just before its status */
    if (st->gone_since == 0) {
        st->gone_since = time(NULL);
        return;
    }
    if (time(NULL) - st->gone_since >= JOBS_GONE_GRACE_S)
        lost(s, st, "no status", false);
}

/* node_id of the step's launch.json (0 when unreadable). */
static uint32_t launch_node_id(const char *dir)
{
    struct err e;
    char *text = spool_read(dir, "launch.json", 64 << 20, &e);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    uint32_t id = (uint32_t)json_integer_value(json_object_get(o, "node_id"));

    json_decref(o);
    free(text);
    return id;
}

void nsteps_adopt(struct nsteps *s, uint32_t job_id, uint32_t step_id)
{
    char *dir = spool_step_dir(s->nd->spool, job_id, step_id);
    json_t *status = read_status(dir);
    struct spool_pid sup;
    struct nstep *st;
    char what[48];
    struct err e;

    snprintf(what, sizeof(what), STEP_FMT, job_id, step_id);
    if (status == NULL && spool_pid_read(dir, &sup, &e) < 0 &&
        njobs_unrecorded(what, dir, &sup) < 0)
        goto out;
    st = nsteps_add(s, job_id, step_id);
    st->node_id = launch_node_id(dir);
    if (status != NULL) {
        st->status = status;
        st->state = NSTEP_ENDED;
        log_info(STEP_FMT " adopted state=ended", job_id, step_id);
        goto out;
    }
    st->sup = sup;
    st->state = NSTEP_RUNNING;
    if (spool_pid_read_as(dir, "leader", &st->leader, &e) < 0)
        st->leader.pid = 0;
    if (s->nd->boot_id[0] != '\0' &&
        spool_same_boot(dir, s->nd->boot_id, &e) == 0) {
        lost(s, st, "the machine rebooted", true);
        goto out;
    }
    log_info(STEP_FMT " adopted state=running supervisor=%d", job_id, step_id,
             (int)sup.pid);
    nsteps_check(s, st);
out:
    free(dir);
}

static void scan(struct nsteps *s)
{
    struct spool_step_id *ids;
    size_t n;
    struct err e;

    if (spool_step_list(s->nd->spool, &ids, &n, &e) < 0) {
        log_warnx("%s", e.text);
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        s->v[i]->mark = false;
    for (size_t i = 0; i < n; i++) {
        struct nstep *st = nsteps_find(s, ids[i].job_id, ids[i].step_id);
        if (st == NULL)
            nsteps_adopt(s, ids[i].job_id, ids[i].step_id);
        else
            st->mark = true;
    }
    free(ids);
    for (size_t i = 0; i < s->n;) {
        struct nstep *st = s->v[i];
        if (!st->mark && st->state != NSTEP_LAUNCHING && !st->end_sent) {
            log_warnx(STEP_FMT " %s vanished from the spool", st->job_id,
                      st->step_id, st->dir);
            nsteps_forget(s, st);
            continue;
        }
        i++;
        if (st->state == NSTEP_RUNNING)
            nsteps_check(s, st);
        else if (st->state == NSTEP_ENDED)
            send_end(s, st);
    }
}

static void on_scan(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    scan(arg);
}

void nsteps_note(struct nsteps *s, const char *line)
{
    unsigned long job, step;
    struct nstep *st;

    if (sscanf(line, "step %lu %lu", &job, &step) == 2 &&
        (st = nsteps_find(s, (uint32_t)job, (uint32_t)step)) != NULL)
        nsteps_check(s, st);
    else
        scan(s);
}

/* The batch scripts' process trees, sampled here (their supervisors only
 * wait): the batch step's entries of STEP_USAGE. */
static void batch_usage(struct nsteps *s, json_t *steps)
{
    struct njobs *j = s->nd->jobs;
    struct stepusage_proc *procs = NULL;
    struct spool_pid now;
    size_t n = 0;
    bool scanned = false;

    for (size_t i = 0; i < j->n; i++) {
        struct njob *job = j->v[i];
        /* only while the group's leader is still the script */
        if (job->state != NJOB_RUNNING || job->pgid <= 1 ||
            job->leader.pid != job->pgid || spool_pid_of(job->pgid, &now) < 0 ||
            now.start_ticks != job->leader.start_ticks)
            continue;
        if (!scanned)
            stepusage_scan(&procs, &n);
        scanned = true;
        stepusage_tree(procs, n, job->pgid, &job->usage);
        json_array_append_new(
            steps, json_pack("{s:I, s:I, s:o}", "job_id", (json_int_t)job->id,
                             "step_id", (json_int_t)STEP_BATCH_ID, "usage",
                             stepusage_json(&job->usage, 1, -1, -1)));
    }
    free(procs);
}

/* STEP_USAGE: the latest sample of every running step (the supervisors
 * write them to their directories) and of the batch scripts. */
static void on_usage(evutil_socket_t fd, short what, void *arg)
{
    struct nsteps *s = arg;
    json_t *steps = json_array();
    struct err e;

    (void)fd;
    (void)what;
    if (!conn_ready(s->nd->conn)) {
        json_decref(steps);
        return; /* the next period's samples are as good */
    }
    for (size_t i = 0; i < s->n; i++) {
        struct nstep *st = s->v[i];
        char *text = st->state == NSTEP_RUNNING
                         ? spool_read(st->dir, "usage", 16 << 20, &e)
                         : NULL;
        json_t *u = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        if (u != NULL)
            json_array_append_new(
                steps,
                json_pack("{s:I, s:I, s:o}", "job_id", (json_int_t)st->job_id,
                          "step_id", (json_int_t)st->step_id, "usage", u));
    }
    batch_usage(s, steps);
    if (json_array_size(steps) == 0) {
        json_decref(steps);
        return;
    }
    conn_request(s->nd->conn, PROTO_MSG_STEP_USAGE,
                 json_pack("{s:s, s:o}", "node", s->nd->name, "steps", steps),
                 NULL, NULL);
}

struct nsteps *nsteps_create(struct noded *nd, struct err *e)
{
    struct nsteps *s = xcalloc(1, sizeof(*s));
    struct timeval one = {1, 0}, period = {nd->conf->job_acct_gather_freq_s, 0};

    (void)e; /* nothing here is fatal */
    s->nd = nd;
    nd->steps = s;
    s->scan_ev = event_new(nd->base, -1, EV_PERSIST, on_scan, s);
    event_add(s->scan_ev, &one);
    if (period.tv_sec > 0) {
        s->usage_ev = event_new(nd->base, -1, EV_PERSIST, on_usage, s);
        event_add(s->usage_ev, &period);
    }
    scan(s);
    return s;
}

void nsteps_destroy(struct nsteps *s)
{
    int saved = errno;

    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        nstep_free(s->v[i]);
    free(s->v);
    if (s->scan_ev != NULL)
        event_free(s->scan_ev);
    if (s->usage_ev != NULL)
        event_free(s->usage_ev);
    free(s);
    errno = saved;
}
