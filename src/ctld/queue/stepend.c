/*
 * What the nodes and the clients tell the step table (steps.h): STEP_END
 * per node (the step ends when all its nodes reported), STEP_USAGE
 * samples, STEP_CANCEL, and the STEP objects of STEP_QUERY and JOB_ACCT,
 * from memory and the database.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ctld/core/persist.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/queue/steps.h"

/* Bounds on STEP_QUERY's lists. */
#define QUERY_IDS_MAX 10000

static int not_found(struct steps *ss, uint64_t job_id, struct err *e)
{
    struct job *j = jobs_find(steps_env(ss)->jobs, job_id);

    errno = ENOENT;
    if (j == NULL)
        return err_set(e, "Invalid job id specified");
    return err_set(e, "Invalid step id specified");
}

/* The step the body names by "job_id" and "step_id"; NULL with e. */
static struct step *named(struct steps *ss, json_t *o, const char *what,
                          struct err *e)
{
    json_t *job = json_object_get(o, "job_id");
    json_t *step = json_object_get(o, "step_id");
    struct step *s;

    if (!json_is_integer(job) || !json_is_integer(step) ||
        json_integer_value(job) < 1 || json_integer_value(step) < 0 ||
        json_integer_value(step) > UINT32_MAX) {
        err_inval(e, "%s: job_id and step_id must be integers", what);
        return NULL;
    }
    s = steps_find(ss, (uint64_t)json_integer_value(job),
                   (uint32_t)json_integer_value(step));
    if (s == NULL)
        not_found(ss, (uint64_t)json_integer_value(job), e);
    return s;
}

static struct step_node *node_of(struct step *s, size_t node)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].node == node)
            return &s->nodes[i];
    return NULL;
}

/* ---- STEP_END --------------------------------------------------------- */

/* The state of a step whose nodes all reported. */
static bool any_lost(const struct step *s)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].lost)
            return true;
    return false;
}

static enum step_state end_state(const struct step *s, const char *reason)
{
    if (any_lost(s)) /* --no-kill: some of its tasks died with a node */
        return STEP_NODE_FAIL;
    if (s->kill == STEP_KILL_BAD_EXIT)
        return STEP_FAILED;
    if (s->kill == STEP_KILL_CANCEL || strcmp(reason, "cancelled") == 0)
        return STEP_CANCELLED;
    if (s->kill == STEP_KILL_TIMEOUT || strcmp(reason, "timeout") == 0)
        return STEP_TIMEOUT;
    if (s->oom)
        return STEP_OUT_OF_MEMORY;
    /* Slurm records a step whose task died of a signal CANCELLED (its
     * ExitCode 0:SIG says which), whoever sent it */
    if (s->signal != 0)
        return STEP_CANCELLED;
    if (s->exit_code == 0 && strncmp(reason, "launch failed", 13) != 0)
        return STEP_COMPLETED;
    return STEP_FAILED;
}

static int end_fields(json_t *o, struct err *e)
{
    static const char *const ints[] = {"exit_code", "signal", "end_time"};

    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        json_t *v = json_object_get(o, ints[i]);
        if (v != NULL && !json_is_null(v) && !json_is_integer(v))
            return err_inval(e, "STEP_END: %s must be an integer", ints[i]);
    }
    if (json_object_get(o, "oom") != NULL &&
        !json_is_boolean(json_object_get(o, "oom")))
        return err_inval(e, "STEP_END: oom must be true or false");
    return 0;
}

/* Fold node's report o into s. */
static void end_take(struct step *s, struct step_node *sn, json_t *o)
{
    int code = (int)json_integer_value(json_object_get(o, "exit_code"));
    int sig = (int)json_integer_value(json_object_get(o, "signal"));
    const char *why = json_string_value(json_object_get(o, "reason"));
    json_t *usage = json_object_get(o, "usage");

    sn->reported = true;
    if (json_is_object(usage)) {
        json_decref(sn->usage);
        sn->usage = json_incref(usage);
        s->sampled_at = time(NULL);
    }
    if (code > s->exit_code)
        s->exit_code = code;
    if (sig != 0 && s->signal == 0)
        s->signal = sig;
    s->oom = s->oom || json_is_true(json_object_get(o, "oom"));
    if (why != NULL && why[0] != '\0')
        s->node_killed = true;
    if (why != NULL && why[0] != '\0' && s->reason[0] == '\0') {
        free(s->reason);
        s->reason = xstrdup(why);
        utf8_fix(s->reason);
    }
}

/* srun -K (--kill-on-bad-exit): a node whose tasks failed ends the step
 * on the others; the step then ends FAILED, not CANCELLED. */
static void bad_exit(struct steps *ss, struct step *s,
                     const struct step_node *sn)
{
    const struct conf *conf = steps_env(ss)->conf;

    if (!s->kill_on_bad_exit || s->state != STEP_RUNNING ||
        s->kill != STEP_KILL_NONE || (s->exit_code == 0 && s->signal == 0))
        return;
    s->kill = STEP_KILL_BAD_EXIT;
    free(s->reason);
    s->reason = xasprintf("a task on %s failed (exit code %d, signal %d)",
                          conf->nodes[sn->node].name, s->exit_code, s->signal);
    steps_kill(ss, s, "cancelled", (size_t)-1);
}

/* s, ended CANCELLED with its job, was reported by every node as ended
 * by itself (no signal, nothing killed): its tasks had ended before the
 * job and only their reports came late, so it takes their state. */
static void ended_before_job(struct step *s, time_t end)
{
    char id[48];

    if (s->state != STEP_CANCELLED || s->signal != 0 || s->node_killed)
        return;
    s->kill = STEP_KILL_NONE;
    s->state = end_state(s, ""); /* COMPLETED, FAILED or OUT_OF_MEMORY */
    if (end < s->end_time)
        s->end_time = end;
    free(s->reason);
    s->reason = xstrdup("");
    log_info("step=%s state=%s exit=%d: ended before its job",
             step_id_str(s, id, sizeof(id)), step_state_name(s->state),
             s->exit_code);
}

static bool all_reported(const struct step *s)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (!s->nodes[i].reported)
            return false;
    return true;
}

int steps_end(struct steps *ss, size_t node, json_t *body, struct err *e)
{
    const struct conf *conf = steps_env(ss)->conf;
    struct step *s = named(ss, body, "STEP_END", e);
    struct step_node *sn;
    time_t end, now = time(NULL);
    char id[48];

    if (s == NULL || end_fields(body, e) < 0)
        return -1;
    if ((sn = node_of(s, node)) == NULL)
        return err_inval(e, "STEP_END: %s is not a node of step %s",
                         conf->nodes[node].name,
                         step_id_str(s, id, sizeof(id)));
    if (sn->reported)
        return 0; /* a repeat: already counted */
    end_take(s, sn, body);
    bad_exit(ss, s, sn);
    end = (time_t)json_integer_value(json_object_get(body, "end_time"));
    if (end <= s->start_time || end > now)
        end = now;
    if (s->state == STEP_RUNNING && all_reported(s)) {
        steps_finish(ss, s, end_state(s, s->reason), NULL, end);
        return 0;
    }
    if (s->kill == STEP_KILL_JOB && all_reported(s))
        ended_before_job(s, end);
    return steps_save(ss, s, e);
}

/* ---- STEP_USAGE ------------------------------------------------------- */

/* A node samples a step that the controller does not know, or ended
 * without this node's report: a STEP_KILL it was sent may have been lost
 * with its connection, so it is sent again (the batch step excepted: its
 * job's JOB_KILL and registration settle it). */
static void stale(struct steps *ss, size_t node, json_t *v,
                  const struct step *s, const struct step_node *sn)
{
    json_t *job = json_object_get(v, "job_id");
    json_t *step = json_object_get(v, "step_id");

    if (!json_is_integer(job) || !json_is_integer(step) ||
        json_integer_value(step) == STEP_BATCH_ID)
        return;
    if (s != NULL && (sn == NULL || s->state == STEP_RUNNING))
        return;
    nodecmd_step_kill(steps_env(ss)->nodecmd, node,
                      (uint64_t)json_integer_value(job),
                      (uint32_t)json_integer_value(step), "cancelled",
                      steps_env(ss)->conf->kill_wait_s);
}

int steps_usage(struct steps *ss, size_t node, json_t *body, struct err *e)
{
    json_t *list = json_object_get(body, "steps"), *v;
    size_t i;

    if (!json_is_array(list))
        return err_inval(e, "STEP_USAGE: steps must be an array");
    json_array_foreach(list, i, v)
    {
        struct err ignored;
        struct step *s = named(ss, v, "STEP_USAGE", &ignored);
        struct step_node *sn = s ? node_of(s, node) : NULL;
        json_t *usage = json_object_get(v, "usage");

        if (s == NULL || sn == NULL || s->state != STEP_RUNNING) {
            stale(ss, node, v, s, sn);
            continue;
        }
        /* a node that reported keeps the usage of its end */
        if (sn->reported || !json_is_object(usage))
            continue;
        json_decref(sn->usage);
        sn->usage = json_incref(usage);
        s->sampled_at = time(NULL);
    }
    return 0;
}

/* ---- STEP_CANCEL ------------------------------------------------------ */

/* The batch step is the batch script: signals go to its shell. */
static int cancel_batch(struct steps *ss, struct job *j, int signal,
                        struct err *e)
{
    return nodecmd_signal(steps_env(ss)->nodecmd, j, signal ? signal : SIGKILL,
                          true, e);
}

static int signal_step(struct steps *ss, struct step *s, int signal,
                       struct err *e)
{
    int rc = 0;

    for (size_t i = 0; i < s->n_nodes; i++)
        if (!s->nodes[i].reported &&
            nodecmd_step_signal(steps_env(ss)->nodecmd, s->nodes[i].node,
                                s->job_id, s->step_id, signal, e) < 0)
            rc = -1;
    return rc;
}

int steps_signal_job(struct steps *ss, uint64_t job_id, int signal,
                     struct err *e)
{
    int n = 0, rc = 0;

    for (struct step *s = steps_first(ss, job_id); s != NULL; s = s->next) {
        if (s->step_id == STEP_BATCH_ID || s->state != STEP_RUNNING)
            continue;
        if (signal_step(ss, s, signal, e) < 0)
            rc = -1;
        n++;
    }
    return rc < 0 ? -1 : n;
}

int steps_cancel(struct steps *ss, uint64_t job_id, uint32_t step_id,
                 int signal, uid_t uid, struct err *e)
{
    struct job *j = jobs_find(steps_env(ss)->jobs, job_id);
    struct step *s = steps_find(ss, job_id, step_id);
    char id[48];

    if (j == NULL || job_state_final(j->state)) {
        errno = ENOENT;
        return err_set(e, "Invalid job id specified");
    }
    if (s == NULL || s->state != STEP_RUNNING) {
        errno = ENOENT;
        return err_set(e, "Invalid step id specified");
    }
    if (!jobs_may_act(steps_env(ss)->jobs, j, uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (step_id == STEP_BATCH_ID)
        return cancel_batch(ss, j, signal, e);
    if (signal != 0)
        return signal_step(ss, s, signal, e);
    if (s->kill == STEP_KILL_CANCEL)
        return 0;
    s->kill = STEP_KILL_CANCEL;
    log_info("step=%s cancel requested uid=%u", step_id_str(s, id, sizeof(id)),
             (unsigned)uid);
    steps_kill(ss, s, "cancelled", (size_t)-1);
    return steps_save(ss, s, e);
}

/* ---- STEP objects ----------------------------------------------------- */

/* The STEP object of a record: without the controller's own fields. */
static void strip(json_t *o)
{
    json_object_del(o, "alloc");
    json_object_del(o, "kill");
    json_object_del(o, "oom");
    json_object_del(o, "kill_on_bad_exit");
    json_object_del(o, "no_kill");
    json_object_del(o, "node_killed");
}

static int take_row(void *arg, uint64_t job_id, uint32_t step_id,
                    const char *record)
{
    json_t *o = json_loads(record, 0, NULL);
    char key[16];

    if (o == NULL) {
        log_warnx("step=%" PRIu64 ".%u record unreadable: not listed", job_id,
                  step_id);
        return 0;
    }
    strip(o);
    snprintf(key, sizeof(key), "%u", step_id);
    json_object_set_new(arg, key, o);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    /* the batch step first, then by id */
    if (x == STEP_BATCH_ID || y == STEP_BATCH_ID)
        return x == y ? 0 : x == STEP_BATCH_ID ? -1 : 1;
    return x < y ? -1 : x > y;
}

json_t *steps_of_job(struct steps *ss, uint64_t job_id, struct err *e)
{
    json_t *by_id = json_object(), *out = json_array(), *v;
    const char *key;
    uint32_t *ids;
    size_t n = 0;

    if (persist_step_load_job(steps_env(ss)->persist, job_id, take_row, by_id,
                              e) < 0) {
        json_decref(by_id);
        json_decref(out);
        return NULL;
    }
    /* memory is fresher: usage samples of running steps */
    for (struct step *s = steps_first(ss, job_id); s != NULL; s = s->next) {
        char k[16];
        snprintf(k, sizeof(k), "%u", s->step_id);
        json_object_set_new(by_id, k,
                            step_to_json(s, steps_env(ss)->conf, false));
    }
    ids = xcalloc(json_object_size(by_id) + 1, sizeof(*ids));
    json_object_foreach(by_id, key, v) ids[n++] =
        (uint32_t)strtoul(key, NULL, 10);
    qsort(ids, n, sizeof(*ids), cmp_id);
    for (size_t i = 0; i < n; i++) {
        char k[16];
        snprintf(k, sizeof(k), "%u", ids[i]);
        json_array_append(out, json_object_get(by_id, k));
    }
    free(ids);
    json_decref(by_id);
    return out;
}

/* STEP_QUERY's filters. */
struct step_filter {
    json_t *users; /* array of uids, or NULL */
    bool running;
    bool has_step;
    uint32_t step_id;
};

static bool keep(const struct step_filter *f, json_t *st)
{
    json_t *v;
    size_t i;
    bool user = f->users == NULL;

    if (f->running &&
        strcmp(json_string_value(json_object_get(st, "state")), "RUNNING") != 0)
        return false;
    if (f->has_step &&
        json_integer_value(json_object_get(st, "step_id")) != f->step_id)
        return false;
    json_array_foreach(f->users, i, v)
    {
        if (json_integer_value(v) ==
            json_integer_value(json_object_get(st, "user_id")))
            user = true;
    }
    return user;
}

static int filter_parse(json_t *body, json_t *ids, struct step_filter *f,
                        struct err *e)
{
    json_t *users = json_object_get(body, "users");
    json_t *step = json_object_get(body, "step_id"), *v;
    size_t i;

    memset(f, 0, sizeof(*f));
    f->running = json_is_true(json_object_get(body, "running"));
    if (users != NULL && !json_is_null(users)) {
        if (!json_is_array(users))
            return err_inval(e, "STEP_QUERY: users must be an array of uids");
        json_array_foreach(users, i, v)
        {
            if (!json_is_integer(v))
                return err_inval(e, "STEP_QUERY: users must be an array of "
                                    "uids");
        }
        f->users = users;
    }
    if (step != NULL && !json_is_null(step)) {
        if (!json_is_integer(step) || json_array_size(ids) != 1)
            return err_inval(e, "STEP_QUERY: step_id needs exactly one job "
                                "id");
        f->has_step = true;
        f->step_id = (uint32_t)json_integer_value(step);
    }
    return 0;
}

/* The running steps in memory that f keeps, into out. */
static void running_steps(struct steps *ss, const struct step_filter *f,
                          json_t *out)
{
    for (struct job *j = jobs_first(steps_env(ss)->jobs); j; j = j->next) {
        if (!job_on_node(j->state))
            continue;
        for (struct step *s = steps_first(ss, j->id); s; s = s->next) {
            json_t *o;
            if (s->state != STEP_RUNNING)
                continue;
            o = step_to_json(s, steps_env(ss)->conf, false);
            if (keep(f, o))
                json_array_append(out, o);
            json_decref(o);
        }
    }
}

static int by_jobs(struct steps *ss, json_t *ids, const struct step_filter *f,
                   json_t *out, struct err *e)
{
    json_t *v, *st;
    size_t i, k;

    json_array_foreach(ids, i, v)
    {
        json_t *list;
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return err_inval(e, "STEP_QUERY: job_ids must be job ids");
        list = steps_of_job(ss, (uint64_t)json_integer_value(v), e);
        if (list == NULL)
            return -1;
        json_array_foreach(list, k, st)
        {
            if (keep(f, st))
                json_array_append(out, st);
        }
        json_decref(list);
    }
    return 0;
}

int steps_query(struct steps *ss, json_t *body, json_t **reply, struct err *e)
{
    json_t *ids = json_object_get(body, "job_ids"), *out;
    struct step_filter f;

    if (ids != NULL && json_is_null(ids))
        ids = NULL;
    if (ids != NULL &&
        (!json_is_array(ids) || json_array_size(ids) > QUERY_IDS_MAX))
        return err_inval(e,
                         "STEP_QUERY: job_ids must be an array of at most "
                         "%d job ids",
                         QUERY_IDS_MAX);
    if (filter_parse(body, ids, &f, e) < 0)
        return -1;
    out = json_array();
    if (ids == NULL)
        running_steps(ss, &f, out);
    else if (by_jobs(ss, ids, &f, out, e) < 0) {
        json_decref(out);
        return -1;
    }
    *reply = json_pack("{s:o}", "steps", out);
    return 0;
}
