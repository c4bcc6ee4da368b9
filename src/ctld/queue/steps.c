/*
 * The step table (steps.h): each unfinished job's steps in memory, in a
 * hash by job id; the STEP object and its record; saving, loading, the
 * transitions every step shares, and the job table's subscriber that
 * makes and ends the batch step.
 */
#include "ctld/queue/steps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/cluster/tres.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"
#include "ctld/queue/joballoc.h"
#include "ctld/queue/nodecmd.h"

/* One job's steps and the id its next srun step gets. */
struct step_job {
    uint64_t job_id;
    uint32_t next_id;
    struct step *head, *tail;
    struct step_job *hnext;
};

struct steps {
    struct steps_env env;
    struct step_job **buckets;
    size_t nbuckets; /* a power of two */
    size_t n;
};

static const char *const state_names[STEP_STATE_COUNT] = {
    [STEP_RUNNING] = "RUNNING",     [STEP_COMPLETED] = "COMPLETED",
    [STEP_FAILED] = "FAILED",       [STEP_CANCELLED] = "CANCELLED",
    [STEP_TIMEOUT] = "TIMEOUT",     [STEP_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
    [STEP_NODE_FAIL] = "NODE_FAIL",
};

const char *step_state_name(enum step_state s)
{
    return s < STEP_STATE_COUNT ? state_names[s] : "UNKNOWN";
}

char *step_id_str(const struct step *s, char *buf, size_t len)
{
    if (s->step_id == STEP_BATCH_ID)
        snprintf(buf, len, "%" PRIu64 ".batch", s->job_id);
    else if (s->step_id == STEP_INTERACTIVE_ID)
        snprintf(buf, len, "%" PRIu64 ".interactive", s->job_id);
    else
        snprintf(buf, len, "%" PRIu64 ".%u", s->job_id, s->step_id);
    return buf;
}

/* ---- the table -------------------------------------------------------- */

struct steps *steps_create(const struct steps_env *env)
{
    struct steps *ss = xcalloc(1, sizeof(*ss));

    ss->env = *env;
    ss->nbuckets = 256;
    ss->buckets = xcalloc(ss->nbuckets, sizeof(*ss->buckets));
    return ss;
}

void step_free(struct step *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_nodes; i++) {
        free(s->nodes[i].gpus);
        json_decref(s->nodes[i].usage);
    }
    free(s->nodes);
    free(s->name);
    free(s->user_name);
    free(s->partition);
    free(s->account);
    free(s->tasks_per_node);
    free(s->reason);
    json_decref(s->usage_saved);
    free(s);
}

static void job_free_steps(struct step_job *sj)
{
    struct step *s, *next;

    for (s = sj->head; s != NULL; s = next) {
        next = s->next;
        step_free(s);
    }
    free(sj);
}

void steps_destroy(struct steps *ss)
{
    if (ss == NULL)
        return;
    for (size_t b = 0; b < ss->nbuckets; b++) {
        struct step_job *sj, *next;
        for (sj = ss->buckets[b]; sj != NULL; sj = next) {
            next = sj->hnext;
            job_free_steps(sj);
        }
    }
    free(ss->buckets);
    free(ss);
}

const struct steps_env *steps_env(const struct steps *ss)
{
    return &ss->env;
}

static size_t bucket(const struct steps *ss, uint64_t job_id)
{
    return (size_t)(job_id * 0x9E3779B97F4A7C15ull >> 20) & (ss->nbuckets - 1);
}

static struct step_job *job_find(struct steps *ss, uint64_t job_id)
{
    struct step_job *sj = ss->buckets[bucket(ss, job_id)];

    while (sj != NULL && sj->job_id != job_id)
        sj = sj->hnext;
    return sj;
}

static void grow(struct steps *ss)
{
    struct step_job **old = ss->buckets;
    size_t oldn = ss->nbuckets;

    ss->nbuckets *= 2;
    ss->buckets = xcalloc(ss->nbuckets, sizeof(*ss->buckets));
    for (size_t i = 0; i < oldn; i++) {
        struct step_job *sj, *next;
        for (sj = old[i]; sj != NULL; sj = next) {
            size_t b = bucket(ss, sj->job_id);
            next = sj->hnext;
            sj->hnext = ss->buckets[b];
            ss->buckets[b] = sj;
        }
    }
    free(old);
}

static struct step_job *job_get(struct steps *ss, uint64_t job_id)
{
    struct step_job *sj = job_find(ss, job_id);
    size_t b;

    if (sj != NULL)
        return sj;
    if (ss->n >= ss->nbuckets)
        grow(ss);
    sj = xcalloc(1, sizeof(*sj));
    sj->job_id = job_id;
    b = bucket(ss, job_id);
    sj->hnext = ss->buckets[b];
    ss->buckets[b] = sj;
    ss->n++;
    return sj;
}

static void job_drop(struct steps *ss, struct step_job *sj)
{
    struct step_job **pp = &ss->buckets[bucket(ss, sj->job_id)];

    while (*pp != sj)
        pp = &(*pp)->hnext;
    *pp = sj->hnext;
    ss->n--;
    job_free_steps(sj);
}

struct step *steps_find(struct steps *ss, uint64_t job_id, uint32_t step_id)
{
    struct step_job *sj = job_find(ss, job_id);
    struct step *s = sj ? sj->head : NULL;

    while (s != NULL && s->step_id != step_id)
        s = s->next;
    return s;
}

struct step *steps_first(struct steps *ss, uint64_t job_id)
{
    struct step_job *sj = job_find(ss, job_id);

    return sj ? sj->head : NULL;
}

/* Count s, running, for its job (an allocation being killed ends when
 * none is left: joballoc.h). */
static void live_add(struct steps *ss, const struct step *s, int delta)
{
    struct job *j = jobs_find(ss->env.jobs, s->job_id);

    if (j != NULL && (delta > 0 || j->steps_live > 0))
        j->steps_live = (uint32_t)((int64_t)j->steps_live + delta);
}

uint32_t steps_next_id(struct steps *ss, uint64_t job_id)
{
    return job_get(ss, job_id)->next_id++;
}

void steps_add(struct steps *ss, struct step *s)
{
    struct step_job *sj = job_get(ss, s->job_id);

    s->next = NULL;
    if (sj->tail)
        sj->tail->next = s;
    else
        sj->head = s;
    sj->tail = s;
    if (s->step_id < STEP_INTERACTIVE_ID && s->step_id >= sj->next_id)
        sj->next_id = s->step_id + 1;
    if (s->state == STEP_RUNNING)
        live_add(ss, s, 1);
}

/* Take s out of its job's list (and free it). */
static void steps_remove(struct steps *ss, struct step_job *sj, struct step *s)
{
    struct step **pp = &sj->head;

    if (s->state == STEP_RUNNING)
        live_add(ss, s, -1);
    while (*pp != s)
        pp = &(*pp)->next;
    *pp = s->next;
    if (sj->tail == s) {
        sj->tail = NULL;
        for (struct step *k = sj->head; k != NULL; k = k->next)
            sj->tail = k;
    }
    step_free(s);
}

/* ---- JSON ------------------------------------------------------------- */

/* The step's nodes (lost_only: those lost under --no-kill) as a
 * hostlist; NULL when lost_only and none is. */
static char *node_list(const struct step *s, const struct conf *conf,
                       bool lost_only)
{
    struct hostlist *hl = hostlist_create();
    char *out = NULL;
    bool any = false;

    for (size_t i = 0; i < s->n_nodes; i++) {
        if (lost_only && !s->nodes[i].lost)
            continue;
        hostlist_push_host(hl, conf->nodes[s->nodes[i].node].name);
        any = true;
    }
    if (any || !lost_only)
        out = hostlist_compress(hl);
    hostlist_destroy(hl);
    return out;
}

/* The CPUs the step holds, or uses when it holds none (--overlap). */
static uint32_t step_cpus(const struct step *s)
{
    uint32_t held = 0;

    for (size_t i = 0; i < s->n_nodes; i++)
        held += s->nodes[i].cpus;
    return held ? held : s->ntasks * (s->cpus_per_task ? s->cpus_per_task : 1);
}

static void tres_str(const struct step *s, char *buf, size_t len)
{
    struct tres t = {.cpus = step_cpus(s),
                     .mem_mib = s->mem_mib * s->n_nodes,
                     .nodes = s->n_nodes};

    for (size_t i = 0; i < s->n_nodes; i++)
        t.gpus += s->nodes[i].n_gpus;
    tres_format(&t, buf, len);
}

static json_t *alloc_json(const struct step *s, const struct conf *conf)
{
    json_t *a = json_array();

    for (size_t i = 0; i < s->n_nodes; i++) {
        const struct step_node *n = &s->nodes[i];
        json_t *g = json_array();
        for (uint32_t k = 0; k < n->n_gpus; k++)
            json_array_append_new(g, json_integer(n->gpus[k]));
        json_array_append_new(
            a,
            json_pack("{s:s, s:i, s:i, s:o, s:b, s:b, s:b}", "node",
                      conf->nodes[n->node].name, "ntasks", (int)n->ntasks,
                      "cpus", (int)n->cpus, "gpus", g, "gpus_held",
                      n->gpus_held, "reported", n->reported, "lost", n->lost));
    }
    return a;
}

static bool has_samples(const struct step *s)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].usage != NULL)
            return true;
    return false;
}

json_t *step_to_json(const struct step *s, const struct conf *conf, bool record)
{
    char id[48], tres[160];
    char *nl = node_list(s, conf, false), *lost = node_list(s, conf, true);
    json_t *o = json_object();

    tres_str(s, tres, sizeof(tres));
#define S(k, v) json_object_set_new(o, k, v)
    S("job_id", json_integer((json_int_t)s->job_id));
    S("step_id", json_integer((json_int_t)s->step_id));
    S("id", json_string(step_id_str(s, id, sizeof(id))));
    S("name", json_string(s->name));
    S("state", json_string(step_state_name(s->state)));
    S("user_id", json_integer(s->user_id));
    S("user_name", json_string(s->user_name));
    S("partition", json_string(s->partition));
    S("account", json_string(s->account ? s->account : ""));
    S("start_time", json_integer((json_int_t)s->start_time));
    S("end_time", json_integer((json_int_t)s->end_time));
    S("time_limit_s", json_integer(s->time_limit_s));
    S("nodes", json_string(nl));
    S("num_nodes", json_integer((json_int_t)s->n_nodes));
    S("ntasks", json_integer(s->ntasks));
    S("cpus", json_integer(step_cpus(s)));
    S("tasks_per_node", json_string(s->tasks_per_node));
    S("tres", json_string(tres));
    S("exit_code", json_integer(s->exit_code));
    S("signal", json_integer(s->signal));
    S("reason", json_string(s->reason ? s->reason : ""));
    if (lost != NULL)
        S("lost_nodes", json_string(lost));
    if (has_samples(s) || s->usage_saved == NULL)
        S("usage", stepusage_aggregate(s, conf));
    else
        S("usage", json_deep_copy(s->usage_saved));
    if (record) {
        S("alloc", alloc_json(s, conf));
        S("kill", json_integer(s->kill));
        S("cpus_per_task", json_integer(s->cpus_per_task));
        S("mem_mib", json_integer((json_int_t)s->mem_mib));
        S("oom", json_boolean(s->oom));
        S("kill_on_bad_exit", json_boolean(s->kill_on_bad_exit));
        S("no_kill", json_boolean(s->no_kill));
        S("node_killed", json_boolean(s->node_killed));
    }
#undef S
    free(nl);
    free(lost);
    return o;
}

static char *get_str(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return xstrdup(v ? v : "");
}

static int64_t get_int(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* The record's "alloc" into s->nodes; -1 with e naming a node the
 * configuration no longer has. */
static int alloc_from_json(struct step *s, json_t *a, const struct conf *conf,
                           struct err *e)
{
    json_t *v;
    size_t i;

    s->n_nodes = json_array_size(a);
    s->nodes = xcalloc(s->n_nodes ? s->n_nodes : 1, sizeof(*s->nodes));
    json_array_foreach(a, i, v)
    {
        struct step_node *n = &s->nodes[i];
        const char *name = json_string_value(json_object_get(v, "node"));
        const struct conf_node *cn = name ? conf_node_find(conf, name) : NULL;
        json_t *g = json_object_get(v, "gpus");
        if (cn == NULL) {
            errno = EINVAL;
            return err_set(e, "node %s is not in the configuration",
                           name ? name : "(none)");
        }
        n->node = (size_t)(cn - conf->nodes);
        n->ntasks = (uint32_t)get_int(v, "ntasks");
        n->cpus = (uint32_t)get_int(v, "cpus");
        n->gpus_held = json_is_true(json_object_get(v, "gpus_held"));
        n->reported = json_is_true(json_object_get(v, "reported"));
        n->lost = json_is_true(json_object_get(v, "lost"));
        n->n_gpus = (uint32_t)json_array_size(g);
        n->gpus = xcalloc(n->n_gpus ? n->n_gpus : 1, sizeof(*n->gpus));
        for (uint32_t k = 0; k < n->n_gpus; k++)
            n->gpus[k] = (uint32_t)json_integer_value(json_array_get(g, k));
    }
    return 0;
}

/* step_from_record: a step from its record; NULL with e. */
static struct step *step_from_record(json_t *o, const struct conf *conf,
                                     struct err *e)
{
    struct step *s = xcalloc(1, sizeof(*s));
    const char *st = json_string_value(json_object_get(o, "state"));

    s->job_id = (uint64_t)get_int(o, "job_id");
    s->step_id = (uint32_t)get_int(o, "step_id");
    s->name = get_str(o, "name");
    s->state = STEP_STATE_COUNT;
    for (int i = 0; st != NULL && i < STEP_STATE_COUNT; i++)
        if (strcmp(st, state_names[i]) == 0)
            s->state = (enum step_state)i;
    s->kill = (enum step_kill)get_int(o, "kill");
    s->user_id = (uint32_t)get_int(o, "user_id");
    s->user_name = get_str(o, "user_name");
    s->partition = get_str(o, "partition");
    s->account = get_str(o, "account");
    s->start_time = (time_t)get_int(o, "start_time");
    s->end_time = (time_t)get_int(o, "end_time");
    s->time_limit_s = get_int(o, "time_limit_s");
    s->ntasks = (uint32_t)get_int(o, "ntasks");
    s->cpus_per_task = (uint32_t)get_int(o, "cpus_per_task");
    s->mem_mib = (uint64_t)get_int(o, "mem_mib");
    s->tasks_per_node = get_str(o, "tasks_per_node");
    s->exit_code = (int32_t)get_int(o, "exit_code");
    s->signal = (int32_t)get_int(o, "signal");
    s->oom = json_is_true(json_object_get(o, "oom"));
    s->kill_on_bad_exit = json_is_true(json_object_get(o, "kill_on_bad_exit"));
    s->no_kill = json_is_true(json_object_get(o, "no_kill"));
    s->reason = get_str(o, "reason");
    s->usage_saved = json_incref(json_object_get(o, "usage"));
    if (s->state == STEP_STATE_COUNT) {
        errno = EINVAL;
        err_set(e, "unknown state %s", st ? st : "(none)");
        goto error;
    }
    if (alloc_from_json(s, json_object_get(o, "alloc"), conf, e) < 0)
        goto error;
    return s;
error:
    step_free(s);
    return NULL;
}

/* ---- saving and loading ----------------------------------------------- */

int steps_save(struct steps *ss, struct step *s, struct err *e)
{
    json_t *o;
    char *text, id[48];
    int rc;

    if (loop_write(ss->env.loop, e) < 0)
        goto error;
    o = step_to_json(s, ss->env.conf, true);
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (text == NULL)
        fatalx("out of memory encoding step %s",
               step_id_str(s, id, sizeof(id)));
    rc = persist_step_save(ss->env.persist, s->job_id, s->step_id, text, e);
    free(text);
    if (rc == 0)
        return 0;
error:
    log_warnx("step=%s not saved: %s", step_id_str(s, id, sizeof(id)), e->text);
    return -1;
}

static int load_one(void *arg, uint64_t job_id, uint32_t step_id,
                    const char *record)
{
    struct steps *ss = arg;
    json_t *o = json_loads(record, 0, NULL);
    struct step *s = NULL;
    struct err e;

    err_clear(&e);
    if (o != NULL)
        s = step_from_record(o, ss->env.conf, &e);
    json_decref(o);
    if (s == NULL) {
        log_warnx("step=%" PRIu64 ".%u not restored: %s", job_id, step_id,
                  e.text[0] ? e.text : "record unreadable");
        return 0;
    }
    steps_add(ss, s);
    return 0;
}

int steps_load(struct steps *ss, struct err *e)
{
    if (persist_step_load_running(ss->env.persist, load_one, ss, e) < 0)
        return -1;
    log_info("steps loaded jobs=%zu", ss->n);
    return 0;
}

/* ---- transitions ------------------------------------------------------ */

/* The job state an srun allocation ends in when its step 0 ends so. */
static enum job_state job_state_of(enum step_state st)
{
    switch (st) {
    case STEP_COMPLETED:
        return JOB_COMPLETED;
    case STEP_CANCELLED:
        return JOB_CANCELLED;
    case STEP_TIMEOUT:
        return JOB_TIMEOUT;
    case STEP_OUT_OF_MEMORY:
        return JOB_OUT_OF_MEMORY;
    case STEP_NODE_FAIL:
        return JOB_NODE_FAIL;
    default:
        return JOB_FAILED;
    }
}

/* s just ended: an srun allocation ends with its step 0, and one being
 * killed once its last step is gone (joballoc.h). */
static void alloc_step_ended(struct steps *ss, const struct step *s)
{
    struct job *j = jobs_find(ss->env.jobs, s->job_id);
    struct err e;

    if (j == NULL || j->alloc_kind == JOB_ALLOC_NONE)
        return;
    if (s->step_id == 0 && j->alloc_kind == JOB_ALLOC_SRUN)
        joballoc_step0_ended(ss->env.jobs, j, job_state_of(s->state),
                             s->exit_code, s->signal, s->reason);
    else
        joballoc_settle(ss->env.jobs, j, time(NULL), &e);
}

void steps_finish(struct steps *ss, struct step *s, enum step_state state,
                  const char *reason, time_t when)
{
    char id[48];
    struct err e;

    if (s->state != STEP_RUNNING)
        return;
    s->state = state;
    s->end_time = when;
    if (reason != NULL && (s->reason == NULL || s->reason[0] == '\0')) {
        free(s->reason);
        s->reason = xstrdup(reason);
    }
    log_info("step=%s state=%s exit=%d signal=%d reason=\"%s\"",
             step_id_str(s, id, sizeof(id)), step_state_name(state),
             s->exit_code, s->signal, s->reason ? s->reason : "");
    steps_save(ss, s, &e);
    live_add(ss, s, -1);
    alloc_step_ended(ss, s);
}

void steps_kill(struct steps *ss, struct step *s, const char *reason,
                size_t skip)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (!s->nodes[i].reported && s->nodes[i].node != skip)
            nodecmd_step_kill(ss->env.nodecmd, s->nodes[i].node, s->job_id,
                              s->step_id, reason, ss->env.conf->kill_wait_s);
}

/* ---- the batch step (the job table's subscriber) ---------------------- */

static struct step *batch_new(const struct job *j, const struct conf *conf,
                              time_t when)
{
    struct step *s = xcalloc(1, sizeof(*s));

    s->job_id = j->id;
    s->step_id = STEP_BATCH_ID;
    s->name = xstrdup("batch");
    s->state = STEP_RUNNING;
    s->user_id = j->user_id;
    s->user_name = xstrdup(j->user_name);
    s->partition = xstrdup(conf->parts[j->part].name);
    s->account = xstrdup(j->account ? j->account : "");
    s->start_time = when;
    s->time_limit_s = -1;
    s->ntasks = 1;
    s->cpus_per_task = j->cpus_per_node;
    s->mem_mib = job_mem_per_node(j); /* its TRES: the job's memory there */
    s->tasks_per_node = xstrdup("1");
    s->reason = xstrdup("");
    s->n_nodes = 1;
    s->nodes = xcalloc(1, sizeof(*s->nodes));
    s->nodes[0].node = j->alloc[0];
    s->nodes[0].ntasks = 1;
    /* it holds nothing against srun's steps, as in Slurm */
    s->nodes[0].gpus = xcalloc(1, sizeof(uint32_t));
    return s;
}

static void batch_start(struct steps *ss, struct job *j, time_t when)
{
    struct step_job *sj = job_find(ss, j->id);
    struct step *old = sj ? steps_find(ss, j->id, STEP_BATCH_ID) : NULL;
    struct step *s;
    struct err e;

    if (j->n_alloc == 0 || j->alloc_kind != JOB_ALLOC_NONE)
        return;      /* an allocation has no batch script */
    if (old != NULL) /* the run before a requeue */
        steps_remove(ss, sj, old);
    s = batch_new(j, ss->env.conf, when);
    steps_add(ss, s);
    steps_save(ss, s, &e);
}

/* The batch step's state from its job's final state. */
static enum step_state batch_state(const struct job *j)
{
    switch (j->state) {
    case JOB_COMPLETED:
        return STEP_COMPLETED;
    case JOB_OUT_OF_MEMORY:
        return STEP_OUT_OF_MEMORY;
    case JOB_NODE_FAIL:
        return STEP_NODE_FAIL;
    case JOB_FAILED:
        return STEP_FAILED;
    default: /* CANCELLED, TIMEOUT, PREEMPTED, a requeue */
        return STEP_CANCELLED;
    }
}

/* What STEP_KILL tells the nodes of a step its job took with it (the
 * supervisor's message to srun says why). */
static const char *kill_reason(const struct job *j)
{
    switch (j->state) {
    case JOB_TIMEOUT:
        return "timeout";
    case JOB_PREEMPTED:
        return "preempted";
    case JOB_NODE_FAIL:
        return "node_fail";
    default:
        return j->kill == JOB_KILL_REQUEUE ? "preempted" : "cancelled";
    }
}

/* j ended (or waits again after a requeue) at when: its batch step ends
 * with it, and its other running steps with "job ended: STATE", killed
 * on their nodes (a job cancelled or timed out sent JOB_KILL to all of
 * them already; one whose script just ended did not). */
static void job_gone(struct steps *ss, struct job *j, time_t when)
{
    struct step_job *sj = job_find(ss, j->id);
    bool requeued = j->state == JOB_PENDING;
    char reason[64];

    if (sj == NULL)
        return;
    if (requeued)
        snprintf(reason, sizeof(reason), "job requeued");
    else
        snprintf(reason, sizeof(reason), "job ended: %s",
                 job_state_name(j->state));
    for (struct step *s = sj->head; s != NULL; s = s->next) {
        if (s->state != STEP_RUNNING)
            continue;
        if (s->step_id == STEP_BATCH_ID) {
            s->exit_code = j->exit_code;
            s->signal = j->exit_signal;
            s->nodes[0].reported = true;
            steps_finish(ss, s, batch_state(j), requeued ? reason : NULL, when);
        } else {
            steps_kill(ss, s, kill_reason(j), (size_t)-1);
            s->kill = STEP_KILL_JOB;
            steps_finish(ss, s, STEP_CANCELLED, reason, when);
        }
    }
}

static void on_job_event(void *arg, struct job *j, const char *what,
                         time_t when)
{
    struct steps *ss = arg;

    if (what == NULL)
        return;
    if (strcmp(what, "start") == 0)
        batch_start(ss, j, when);
    else if (strcmp(what, "requeue") == 0)
        job_gone(ss, j, when);
}

static void on_job_ended(void *arg, struct job *j, time_t when)
{
    job_gone(arg, j, when);
}

const struct jobs_events steps_job_events = {
    .job_event = on_job_event,
    .job_ended = on_job_ended,
};

void steps_batch_usage(struct steps *ss, uint64_t job_id, size_t node,
                       json_t *usage)
{
    struct step *s = steps_find(ss, job_id, STEP_BATCH_ID);

    if (s == NULL || usage == NULL || !json_is_object(usage) ||
        s->nodes[0].node != node)
        return;
    json_decref(s->nodes[0].usage);
    s->nodes[0].usage = json_incref(usage);
    s->sampled_at = time(NULL);
}

/* ---- nodes, time limits, eviction ------------------------------------- */

static bool on_node(const struct step *s, size_t node)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].node == node)
            return true;
    return false;
}

/* A --no-kill step goes on without node: its tasks there are given up
 * (the node counts as reported, and lost); when it was the last node to
 * report, the step ends now. */
static void lose_node(struct steps *ss, struct step *s, size_t node,
                      const char *reason, time_t now)
{
    bool all = true;
    char id[48];
    struct err e;

    for (size_t i = 0; i < s->n_nodes; i++) {
        struct step_node *n = &s->nodes[i];
        if (n->node == node && !n->reported)
            n->reported = n->lost = true;
        all = all && n->reported;
    }
    if (s->reason[0] == '\0') {
        free(s->reason);
        s->reason = xstrdup(reason);
    }
    log_info("step=%s lost node %s (--no-kill)", step_id_str(s, id, sizeof(id)),
             ss->env.conf->nodes[node].name);
    if (all)
        steps_finish(ss, s, STEP_NODE_FAIL, NULL, now);
    else
        steps_save(ss, s, &e);
}

/* The running steps of sj on node, lost with it (steps_node_down). */
static void job_steps_lost(struct steps *ss, struct step_job *sj, size_t node,
                           const char *reason, time_t now)
{
    for (struct step *s = sj->head; s != NULL; s = s->next) {
        const struct job *j;
        if (s->state != STEP_RUNNING || !on_node(s, node))
            continue;
        j = jobs_find(ss->env.jobs, s->job_id);
        if (s->no_kill && s->step_id != STEP_BATCH_ID && j != NULL &&
            jobs_node_keeps(ss->env.jobs, j, node)) {
            lose_node(ss, s, node, reason, now);
            continue;
        }
        for (size_t i = 0; i < s->n_nodes; i++)
            if (s->nodes[i].node == node)
                s->nodes[i].lost = true; /* srun gives it up */
        if (s->step_id != STEP_BATCH_ID)
            steps_kill(ss, s, "node_fail", node);
        steps_finish(ss, s, STEP_NODE_FAIL, reason, now);
    }
}

void steps_node_down(struct steps *ss, size_t node, time_t now)
{
    char reason[96];

    snprintf(reason, sizeof(reason), "node %s failed",
             ss->env.conf->nodes[node].name);
    for (size_t b = 0; b < ss->nbuckets; b++)
        for (struct step_job *sj = ss->buckets[b]; sj; sj = sj->hnext)
            job_steps_lost(ss, sj, node, reason, now);
}

void steps_job_node_lost(struct steps *ss, uint64_t job_id, size_t node,
                         time_t now)
{
    struct step_job *sj = job_find(ss, job_id);
    char reason[96];

    if (sj == NULL)
        return;
    snprintf(reason, sizeof(reason), "node %s failed",
             ss->env.conf->nodes[node].name);
    job_steps_lost(ss, sj, node, reason, now);
}

/* A step's own time limit (the job's is the job table's). */
static void step_time_limit(struct steps *ss, struct step *s, time_t now)
{
    const struct jobs_env *je = jobs_env(ss->env.jobs);
    uint32_t div = je->time_divisor ? je->time_divisor : 1;
    char id[48];

    if (s->state != STEP_RUNNING || s->kill != STEP_KILL_NONE ||
        s->time_limit_s < 0 ||
        now < s->start_time + (time_t)((s->time_limit_s + div - 1) / div))
        return;
    s->kill = STEP_KILL_TIMEOUT;
    log_info("step=%s time limit reached limit_s=%" PRId64,
             step_id_str(s, id, sizeof(id)), s->time_limit_s);
    steps_kill(ss, s, "timeout", (size_t)-1);
}

/* Whether s may leave memory: final, and a minute past its end (a node
 * that resends its STEP_END, its answer lost, still gets {}), or
 * STEPS_LATE_S when some node has not reported yet. */
static bool done_with(const struct step *s, time_t now)
{
    if (s->state == STEP_RUNNING)
        return false;
    for (size_t i = 0; i < s->n_nodes; i++)
        if (!s->nodes[i].reported)
            return now - s->end_time > STEPS_LATE_S;
    return now - s->end_time > STEPS_DONE_KEEP_S;
}

/* A job's steps: their time limits; finished ones leave memory (the
 * table has them), so that a job running many sruns stays small; the
 * job's entry stays while the job runs, for its next step id. */
static void tick_job(struct steps *ss, struct step_job *sj, time_t now)
{
    struct step *s, *next;

    for (s = sj->head; s != NULL; s = next) {
        next = s->next;
        step_time_limit(ss, s, now);
        if (done_with(s, now))
            steps_remove(ss, sj, s);
    }
}

void steps_tick(struct steps *ss, time_t now)
{
    for (size_t b = 0; b < ss->nbuckets; b++) {
        struct step_job *sj = ss->buckets[b], *next;
        for (; sj != NULL; sj = next) {
            next = sj->hnext;
            tick_job(ss, sj, now);
            if (sj->head == NULL) {
                struct job *j = jobs_find(ss->env.jobs, sj->job_id);
                if (j == NULL || job_state_final(j->state))
                    job_drop(ss, sj);
            }
        }
    }
}
