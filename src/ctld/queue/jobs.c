/*
 * The job table (a hash by id plus a list in id order) and the state
 * machine described in jobs.h.  Each transition saves the job's record
 * and an accounting event in the iteration's transaction, through save(),
 * which first tells the subscribers (jobs_subscribe).
 */
#include "ctld/acct/acct.h"
#include "ctld/queue/jobs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/queue/joballoc.h"
#include "ctld/queue/jobdep.h"
#include "ctld/queue/jobfence.h"
#include "ctld/queue/jobspec_opts.h"
#include "ctld/queue/nodecmd.h"
#include "ctld/queue/steps.h"
#include "ctld/policy/jlimits.h"
#include "ctld/cluster/nodes.h"
#include "ctld/job/jobopts.h"
#include "ctld/cluster/parts.h"
#include "ctld/core/persist.h"

struct jobs {
    struct jobs_env env;     /* jobs_create's */
    struct nodecmd *nodecmd; /* jobs_set_nodecmd's */
    struct steps *steps;     /* jobs_set_steps's; may be NULL */
    struct job **buckets;
    size_t nbuckets; /* a power of two */
    size_t n;
    struct job *head, *tail;
    struct job *ahead, *atail; /* the unfinished (jobs_first_active) */
    /* the unfinished jobs made with array_pending (an array's compact
     * record), so that MaxJobCount's check at each submission adds
     * their pending tasks without walking every job */
    struct job **parrays;
    size_t nparrays, capparrays;
    struct job *fin_head, *fin_tail; /* finished, in the order they ended */
    size_t nfinished;
    uint64_t next_id;
    struct jobdep *dep;
    size_t nsuspended; /* jobs SUSPENDED (the resume scheduler looks only
                          when there are some) */
    /* jobs whose record changed in the open transaction: written once,
     * when it commits (flush_dirty), however many times they changed —
     * a short job starts, is launched and ends within one or two */
    struct job **dirty;
    size_t ndirty, capdirty;
    /* jobs_subscribe's, in the order they subscribed */
    struct subscriber *subs;
    size_t nsubs;
};

struct subscriber {
    const struct jobs_events *ev;
    void *arg;
};

static void flush_dirty(void *arg);

struct jobs *jobs_create(const struct jobs_env *env)
{
    struct jobs *js = xcalloc(1, sizeof(*js));

    js->env = *env;
    js->nbuckets = 1024;
    js->buckets = xcalloc(js->nbuckets, sizeof(*js->buckets));
    js->next_id = 1;
    js->dep = jobdep_create();
    if (env->persist != NULL)
        persist_on_commit(env->persist, flush_dirty, js);
    return js;
}

void jobs_destroy(struct jobs *js)
{
    struct job *j, *next;

    if (js == NULL)
        return;
    /* the controller committed before (ctld_destroy): nothing is dirty
     * unless a commit failed, and then memory is not what is kept */
    if (js->env.persist != NULL)
        persist_on_commit(js->env.persist, NULL, NULL);
    for (j = js->head; j != NULL; j = next) {
        next = j->next;
        job_free(j);
    }
    free(js->dirty);
    free(js->parrays);
    free(js->buckets);
    jobdep_destroy(js->dep);
    free(js->subs);
    free(js);
}

struct jobdep *jobs_dep(struct jobs *js)
{
    return js->dep;
}

void jobs_subscribe(struct jobs *js, const struct jobs_events *ev, void *arg)
{
    js->subs = xreallocarray(js->subs, js->nsubs + 1, sizeof(*js->subs));
    js->subs[js->nsubs++] = (struct subscriber){ev, arg};
}

/* The one place that tells the subscribers: j changed at when (what: its
 * accounting event, or NULL); ended: it just left its nodes for good.
 * Before its record is written, so that what they set in j is saved. */
static void notify(struct jobs *js, struct job *j, const char *what,
                   time_t when, bool ended)
{
    for (size_t i = 0; i < js->nsubs; i++) {
        const struct jobs_events *ev = js->subs[i].ev;
        if (ended && ev->job_ended != NULL)
            ev->job_ended(js->subs[i].arg, j, when);
        if (ev->job_event != NULL)
            ev->job_event(js->subs[i].arg, j, what, when);
    }
}

/* ---- table ------------------------------------------------------------ */

static size_t bucket(const struct jobs *js, uint64_t id)
{
    return (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & (js->nbuckets - 1);
}

static void grow(struct jobs *js)
{
    struct job **old = js->buckets;
    size_t oldn = js->nbuckets;

    js->nbuckets *= 2;
    js->buckets = xcalloc(js->nbuckets, sizeof(*js->buckets));
    for (size_t i = 0; i < oldn; i++) {
        struct job *j = old[i], *next;
        for (; j != NULL; j = next) {
            size_t b = bucket(js, j->id);
            next = j->hnext;
            j->hnext = js->buckets[b];
            js->buckets[b] = j;
        }
    }
    free(old);
}

/* The unfinished jobs' list, in the order they were added: id order,
 * as the table's own. */
static void active_link(struct jobs *js, struct job *j)
{
    j->aprev = js->atail;
    j->anext = NULL;
    if (js->atail)
        js->atail->anext = j;
    else
        js->ahead = j;
    js->atail = j;
    j->in_active = true;
    /* array_pending is made before a job joins the table, never after */
    if (j->array_pending != NULL) {
        if (js->nparrays == js->capparrays) {
            js->capparrays = js->capparrays ? 2 * js->capparrays : 16;
            js->parrays =
                xrealloc(js->parrays, js->capparrays * sizeof(*js->parrays));
        }
        js->parrays[js->nparrays++] = j;
        j->parray_pos = js->nparrays;
    }
}

static void active_unlink(struct jobs *js, struct job *j)
{
    if (!j->in_active)
        return;
    if (j->aprev)
        j->aprev->anext = j->anext;
    else
        js->ahead = j->anext;
    if (j->anext)
        j->anext->aprev = j->aprev;
    else
        js->atail = j->aprev;
    j->aprev = j->anext = NULL;
    j->in_active = false;
    if (j->parray_pos != 0) {
        struct job *last = js->parrays[--js->nparrays];
        js->parrays[j->parray_pos - 1] = last;
        last->parray_pos = j->parray_pos;
        j->parray_pos = 0;
    }
}

/* Jobs arrive in ascending id order (new ones and loaded ones). */
static void table_add(struct jobs *js, struct job *j)
{
    size_t b;

    if (js->n >= js->nbuckets)
        grow(js);
    b = bucket(js, j->id);
    j->hnext = js->buckets[b];
    js->buckets[b] = j;
    j->prev = js->tail;
    j->next = NULL;
    if (js->tail)
        js->tail->next = j;
    else
        js->head = j;
    js->tail = j;
    js->n++;
    active_link(js, j); /* add_finished takes a finished one off */
}

static void table_remove(struct jobs *js, struct job *j)
{
    struct job **pp = &js->buckets[bucket(js, j->id)];

    while (*pp != j)
        pp = &(*pp)->hnext;
    *pp = j->hnext;
    if (j->prev)
        j->prev->next = j->next;
    else
        js->head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        js->tail = j->prev;
    active_unlink(js, j);
    js->n--;
}

struct job *jobs_find(struct jobs *js, uint64_t id)
{
    struct job *j = js->buckets[bucket(js, id)];

    while (j != NULL && j->id != id)
        j = j->hnext;
    return j;
}

struct job *jobs_first(struct jobs *js)
{
    return js->head;
}

struct job *jobs_first_active(struct jobs *js)
{
    return js->ahead;
}

struct job *jobs_after(struct jobs *js, uint64_t id)
{
    struct job *j = jobs_find(js, id);

    if (j != NULL)
        return j->next;
    for (j = js->head; j != NULL && j->id <= id; j = j->next)
        ;
    return j;
}

void jobs_suspended_add(struct jobs *js, int delta)
{
    js->nsuspended = (size_t)((long)js->nsuspended + delta);
}

size_t jobs_suspended(const struct jobs *js)
{
    return js->nsuspended;
}

size_t jobs_count(const struct jobs *js)
{
    return js->n;
}

void jobs_set_nodecmd(struct jobs *js, struct nodecmd *nc)
{
    js->nodecmd = nc;
}

void jobs_set_steps(struct jobs *js, struct steps *ss)
{
    js->steps = ss;
}

int jobs_warn(struct jobs *js, struct job *j, struct err *e)
{
    if (j->warn_batch)
        return nodecmd_signal(js->nodecmd, j, j->warn_signal, true, e);
    if (js->steps == NULL)
        return 0;
    return steps_signal_job(js->steps, j->id, j->warn_signal, e) < 0 ? -1 : 0;
}

const struct jobs_env *jobs_env(const struct jobs *js)
{
    return &js->env;
}

struct nodecmd *jobs_nodecmd(const struct jobs *js)
{
    return js->nodecmd;
}

size_t jobs_active(const struct jobs *js)
{
    return js->n - js->nfinished;
}

size_t jobs_active_tasks(const struct jobs *js)
{
    size_t n = jobs_active(js);

    /* each unfinished job counts one, an array's compact record its
     * pending tasks instead (none once the last was split off: then it
     * is that task, and counts one) */
    for (size_t i = 0; i < js->nparrays; i++) {
        const struct job *j = js->parrays[i];
        if (j->array_pending != NULL)
            n = n + j->array_pending->count - 1;
    }
    return n;
}

/* Queue a job that just finished; eviction waits for evict_finished, so
 * that a caller walking the job list never loses the job it stands on. */
static void add_finished(struct jobs *js, struct job *j)
{
    active_unlink(js, j);
    j->fnext = NULL;
    if (js->fin_tail)
        js->fin_tail->fnext = j;
    else
        js->fin_head = j;
    js->fin_tail = j;
    js->nfinished++;
}

/* Keep at most JOBS_FINISHED_KEEP finished jobs in memory (one whose
 * record is still to be written waits for the next time). */
static void evict_finished(struct jobs *js)
{
    while (js->nfinished > JOBS_FINISHED_KEEP && !js->fin_head->dirty) {
        struct job *j = js->fin_head;
        js->fin_head = j->fnext;
        if (js->fin_head == NULL)
            js->fin_tail = NULL;
        js->nfinished--;
        table_remove(js, j);
        job_free(j);
    }
}

/* ---- resources -------------------------------------------------------- */

/* How j holds its nodes (NODES_EXCL_*): to its user (ExclusiveUser,
 * --exclusive=user|mcs) or whole (--exclusive). */
static unsigned exclusive_user(const struct jobs *js, const struct job *j)
{
    unsigned x = j->opt.exclusive == JOB_EXCL_NODE ? NODES_EXCL_WHOLE : 0;

    if (js->env.conf->parts[j->part].exclusive_user ||
        j->opt.exclusive == JOB_EXCL_USER || j->opt.exclusive == JOB_EXCL_MCS)
        x |= NODES_EXCL_USER;
    return x;
}

/* The CPUs j holds on each node: none while suspended. */
uint32_t jobs_held_cpus(const struct job *j)
{
    return j->state == JOB_SUSPENDED ? 0 : j->cpus_per_node;
}

/* Charge j's CPUs, memory and GPUs to its nodes. */
static void charge(struct jobs *js, const struct job *j)
{
    uint32_t g = j->gpus_per_node;

    for (size_t i = 0; i < j->n_alloc; i++) {
        nodes_alloc(js->env.nodes, j->alloc[i], jobs_held_cpus(j),
                    job_mem_per_node(j));
        nodes_user_add(js->env.nodes, j->alloc[i], j->user_id,
                       exclusive_user(js, j));
        if (j->gpu_alloc != NULL &&
            nodes_gpus_take(js->env.nodes, j->alloc[i], j->gpu_alloc + i * g,
                            g) > 0)
            log_warnx("job=%" PRIu64 " holds GPUs another job holds", j->id);
    }
}

static void uncharge(struct jobs *js, const struct job *j)
{
    uint32_t g = j->gpus_per_node;

    for (size_t i = 0; i < j->n_alloc; i++) {
        nodes_release(js->env.nodes, j->alloc[i], jobs_held_cpus(j),
                      job_mem_per_node(j));
        nodes_user_remove(js->env.nodes, j->alloc[i], j->user_id,
                          exclusive_user(js, j));
        if (j->gpu_alloc != NULL)
            nodes_gpus_give(js->env.nodes, j->alloc[i], j->gpu_alloc + i * g,
                            g);
    }
}

/* What a fenced job holds on its fence node (jobs_fence_hold), charged. */
static void fence_charge(struct jobs *js, const struct job *j)
{
    nodes_alloc(js->env.nodes, j->fence_node, j->fence_cpus, j->fence_mem_mib);
    if (j->fence_ngpus > 0 &&
        nodes_gpus_take(js->env.nodes, j->fence_node, j->fence_gpus,
                        j->fence_ngpus) > 0)
        log_warnx("job=%" PRIu64 " fence: GPUs of its lost run on %s were "
                  "taken already",
                  j->id, js->env.conf->nodes[j->fence_node].name);
}

void jobs_fence_hold(struct jobs *js, struct job *j, uint32_t cpus,
                     uint64_t mem_mib, const uint32_t *gpus, uint32_t n)
{
    ASSERT(j->fenced && j->fence_gpus == NULL);
    j->fence_cpus = cpus;
    j->fence_mem_mib = mem_mib;
    j->fence_ngpus = n;
    if (n > 0) {
        j->fence_gpus = xcalloc(n, sizeof(*j->fence_gpus));
        memcpy(j->fence_gpus, gpus, n * sizeof(*gpus));
    }
    fence_charge(js, j);
}

void jobs_fence_release(struct jobs *js, struct job *j)
{
    if (j->fence_cpus == 0 && j->fence_mem_mib == 0 && j->fence_ngpus == 0)
        return;
    nodes_release(js->env.nodes, j->fence_node, j->fence_cpus,
                  j->fence_mem_mib);
    if (j->fence_ngpus > 0)
        nodes_gpus_give(js->env.nodes, j->fence_node, j->fence_gpus,
                        j->fence_ngpus);
    free(j->fence_gpus);
    j->fence_gpus = NULL;
    j->fence_cpus = 0;
    j->fence_mem_mib = 0;
    j->fence_ngpus = 0;
    loop_want_pass(js->env.loop); /* what it held may start a job now */
}

/* ---- persistence ------------------------------------------------------ */

static void fill_row(const struct jobs *js, const struct job *j,
                     struct persist_job *row, const char *record)
{
    *row = (struct persist_job){
        .id = j->id,
        .state = job_state_name(j->state),
        .finished = job_state_final(j->state),
        .user_id = j->user_id,
        .partition = js->env.conf->parts[j->part].name,
        .submit_time = j->submit_time,
        .end_time = j->end_time,
        .record = record,
    };
}

static char *record_text(const struct jobs *js, const struct job *j)
{
    json_t *o = job_to_json(j, js->env.conf, true);
    char *s = json_dumps(o, JSON_COMPACT);

    json_decref(o);
    if (s == NULL)
        fatalx("out of memory encoding job %" PRIu64, j->id);
    return s;
}

/* Write the records of the jobs that changed in the open transaction,
 * as they are now (persist_on_commit: before it commits). */
static void flush_dirty(void *arg)
{
    struct jobs *js = arg;
    struct persist_job row;
    struct err e;
    char *rec;

    for (size_t i = 0; i < js->ndirty; i++) {
        struct job *j = js->dirty[i];
        j->dirty = false;
        rec = record_text(js, j);
        fill_row(js, j, &row, rec);
        if (persist_job_update(js->env.persist, &row, &e) < 0)
            log_warnx("job=%" PRIu64 " not saved: %s", j->id, e.text);
        free(rec);
    }
    js->ndirty = 0;
}

/* Every change of a saved job passes here: the subscribers hear of it
 * (notify), then, when event is set, an accounting event is written
 * (stamped with the time it is written), and j's record is written with
 * the transaction's commit (flush_dirty).  when: when the change
 * happened; ended: j just left its nodes for good. */
static int save_at(struct jobs *js, struct job *j, const char *event,
                   const char *detail, time_t when, bool ended, struct err *e)
{
    notify(js, j, event, when, ended);
    if (loop_write(js->env.loop, e) < 0)
        goto error;
    if (!j->dirty) {
        if (js->ndirty == js->capdirty) {
            js->capdirty = js->capdirty ? 2 * js->capdirty : 64;
            js->dirty =
                xreallocarray(js->dirty, js->capdirty, sizeof(*js->dirty));
        }
        js->dirty[js->ndirty++] = j;
        j->dirty = true;
    }
    if (event != NULL && persist_job_event(js->env.persist, j->id, time(NULL),
                                           event, detail, e) < 0)
        goto error;
    return 0;
error:
    log_warnx("job=%" PRIu64 " not saved: %s", j->id, e->text);
    return -1;
}

/* save_at for a change that happens now. */
static int save(struct jobs *js, struct job *j, const char *event,
                const char *detail, struct err *e)
{
    return save_at(js, j, event, detail, time(NULL), false, e);
}

int jobs_save_event(struct jobs *js, struct job *j, const char *event,
                    const char *detail, struct err *e)
{
    return save(js, j, event, detail, e);
}

int jobs_save_at(struct jobs *js, struct job *j, const char *event,
                 const char *detail, time_t when, struct err *e)
{
    return save_at(js, j, event, detail, when, false, e);
}

int jobs_insert_new(struct jobs *js, struct job *j, const char *payload,
                    struct err *e)
{
    struct persist_job row;
    char *rec = NULL, detail[32];

    if (loop_write(js->env.loop, e) < 0)
        goto error;
    j->id = js->next_id;
    if (j->array_pending != NULL && j->array_job_id == 0)
        j->array_job_id = j->id;
    /* the record's first write, which save() does not do */
    notify(js, j, "submit", j->submit_time, false);
    rec = record_text(js, j);
    fill_row(js, j, &row, rec);
    snprintf(detail, sizeof(detail), "by uid %u", (unsigned)j->user_id);
    if (persist_job_insert(js->env.persist, &row, payload, e) < 0 ||
        persist_job_event(js->env.persist, j->id, j->submit_time, "submit",
                          detail, e) < 0 ||
        (j->held_user &&
         persist_job_event(js->env.persist, j->id, j->submit_time, "hold",
                           "at submit (user hold)", e) < 0) ||
        (j->eligible_time != 0 && j->eligible_time <= j->submit_time &&
         persist_job_event(js->env.persist, j->id, j->submit_time, "eligible",
                           "", e) < 0) ||
        persist_meta_set(js->env.persist, "next_job_id", j->id + 1, e) < 0)
        goto error;
    free(rec);
    js->next_id++;
    table_add(js, j);
    jlimits_job_added(js->env.limits, j);
    return 0;
error:
    log_warnx("submission not saved: %s", e->text);
    free(rec);
    job_free(j);
    return -1;
}

static int load_one(void *arg, uint64_t id, const char *record)
{
    struct jobs *js = arg;
    const struct conf *conf = js->env.conf;
    json_error_t jerr;
    json_t *o = json_loads(record, 0, &jerr);
    struct job *j = NULL;
    struct err e;

    if (o == NULL) {
        log_warnx("job=%" PRIu64 " record unreadable: %s; skipped", id,
                  jerr.text);
        return 0;
    }
    j = job_from_json(o, conf, &e);
    json_decref(o);
    if (j == NULL || jobs_node_filter(conf, j->nodelist, j->exclude,
                                      &j->node_allowed, &e) < 0) {
        log_warnx("job=%" PRIu64 " not restored: %s", id, e.text);
        job_free(j);
        return 0;
    }
    table_add(js, j);
    if (id >= js->next_id)
        js->next_id = id + 1;
    if (job_state_final(j->state))
        add_finished(js, j);
    else
        jlimits_job_added(js->env.limits, j); /* counted as it stands */
    if (j->state == JOB_RUNNING || j->state == JOB_SUSPENDED)
        charge(js, j); /* a suspended job: memory and GPUs, not CPUs */
    if (j->fenced)
        fence_charge(js, j);
    if (j->state == JOB_SUSPENDED)
        js->nsuspended++;
    return 0;
}

int jobs_load(struct jobs *js, struct err *e)
{
    uint64_t next = 1;

    if (persist_meta_get(js->env.persist, "next_job_id", &next, e) < 0 ||
        persist_job_load(js->env.persist, JOBS_FINISHED_KEEP, load_one, js, e) <
            0)
        return -1;
    if (next > js->next_id)
        js->next_id = next;
    for (struct job *j = js->head; j != NULL; j = j->next)
        if (j->state == JOB_PENDING && j->dep.n > 0)
            jobdep_track(js, j, time(NULL));
    log_info("jobs loaded=%zu next_id=%" PRIu64, js->n, js->next_id);
    return 0;
}

/* ---- transitions ------------------------------------------------------ */

int jobs_start(struct jobs *js, struct job *j, const size_t *nodes,
               size_t nnodes, time_t now, struct err *e)
{
    return jobs_start_gpus(js, j, nodes, nnodes, NULL, now, e);
}

int jobs_start_gpus(struct jobs *js, struct job *j, const size_t *nodes,
                    size_t nnodes, const uint32_t *gpus, time_t now,
                    struct err *e)
{
    size_t ng = nnodes * j->gpus_per_node;
    char *nl, detail[1200];
    int rc;

    ASSERT(j->state == JOB_PENDING && nnodes > 0);
    free(j->alloc);
    j->alloc = xcalloc(nnodes, sizeof(*j->alloc));
    memcpy(j->alloc, nodes, nnodes * sizeof(*nodes));
    j->n_alloc = nnodes;
    free(j->gpu_alloc);
    j->gpu_alloc = NULL;
    if (gpus != NULL && ng > 0) {
        j->gpu_alloc = xcalloc(ng, sizeof(*j->gpu_alloc));
        memcpy(j->gpu_alloc, gpus, ng * sizeof(*gpus));
    }
    jobopts_take_whole(j, js->env.conf, nodes, nnodes);
    charge(js, j);
    j->state = JOB_RUNNING;
    jlimits_job_started(js->env.limits, j);
    j->start_time = now;
    j->suspended_s = 0;
    j->susp_by = JOB_SUSP_NONE;
    j->last_checkpoint = 0;
    j->kill = JOB_KILL_NONE;
    j->kill_sent = false;
    j->kill_deadline = 0;
    /* an allocation has nothing to launch: its steps are srun's */
    j->launched = j->alloc_kind != JOB_ALLOC_NONE;
    j->warn_sent = false;
    j->steps_live = 0;
    job_set_reason(j, NULL);
    nl = job_alloc_list(j, js->env.conf);
    if (j->gpu_alloc != NULL) {
        char list[512];
        nodegpu_idx_list(j->gpu_alloc, ng, list, sizeof(list));
        log_info("job=%" PRIu64 " state=RUNNING nodes=%s user=%s gpus=%s",
                 j->id, nl, j->user_name, list);
        snprintf(detail, sizeof(detail), "nodes=%s gpus=%s", nl, list);
    } else {
        log_info("job=%" PRIu64 " state=RUNNING nodes=%s user=%s", j->id, nl,
                 j->user_name);
        snprintf(detail, sizeof(detail), "nodes=%s", nl);
    }
    rc = save_at(js, j, "start", detail, now, false, e);
    free(nl);
    jobdep_changed(js, j, now);
    return rc;
}

/* End j in a final state: free its resources, save, schedule. */
/* Whether a job that is not final still needs array a's payload (stored
 * with its first record; a task requeued after that record ended
 * included). */
static bool array_needs_payload(struct jobs *js, uint64_t a)
{
    const struct job *first = jobs_find(js, a);

    /* tasks not yet split off: the common case, found without a scan */
    if (first != NULL && !job_state_final(first->state))
        return true;
    for (const struct job *k = js->ahead; k != NULL; k = k->anext)
        if (k->array_job_id == a && !job_state_final(k->state))
            return true;
    return false;
}

/* j is final, for good (no final job runs again): its script and
 * environment leave the database, or its array's once the last task is
 * final. */
static int purge_payload(struct jobs *js, struct job *j, struct err *e)
{
    uint64_t id = j->array_job_id ? j->array_job_id : j->id;

    if (j->array_job_id != 0 && array_needs_payload(js, id))
        return 0;
    return persist_job_purge(js->env.persist, id, e);
}

static int finish(struct jobs *js, struct job *j, enum job_state state,
                  time_t now, const char *event, const char *detail,
                  struct err *e)
{
    bool held = job_on_node(j->state);
    int rc;

    j->suspended_s = job_suspended_s(j, now);
    j->susp_by = JOB_SUSP_NONE;
    if (j->state == JOB_SUSPENDED)
        js->nsuspended--;
    if (held)
        uncharge(js, j);
    jlimits_job_ended(js->env.limits, j);
    j->state = state;
    j->end_time = now;
    if (j->fenced) /* a final job never runs again */
        jobs_fence_release(js, j);
    j->fenced = false;
    if (j->start_time == 0 && state != JOB_CANCELLED && state != JOB_DEADLINE)
        j->start_time = now;
    log_info("job=%" PRIu64 " state=%s exit=%d signal=%d reason=\"%s\"", j->id,
             job_state_name(state), j->exit_code, j->exit_signal,
             job_reason(j));
    rc = save_at(js, j, event, detail, now, held, e);
    if (rc == 0 && (rc = purge_payload(js, j, e)) < 0)
        log_warnx("job=%" PRIu64 " payload not purged: %s", j->id, e->text);
    add_finished(js, j);
    loop_want_pass(js->env.loop);
    jobdep_changed(js, j, now);
    return rc;
}

int jobs_requeue_run(struct jobs *js, struct job *j, const char *why,
                     struct err *e)
{
    uncharge(js, j);
    /* what it counts for limits as running, as jobs_unstart does */
    jlimits_job_stopped(js->env.limits, j);
    if (j->state == JOB_SUSPENDED)
        js->nsuspended--;
    free(j->alloc);
    j->alloc = NULL;
    j->n_alloc = 0;
    free(j->gpu_alloc);
    j->gpu_alloc = NULL;
    j->state = JOB_PENDING;
    j->start_time = j->end_time = 0;
    j->suspended_s = 0;
    j->susp_by = JOB_SUSP_NONE;
    j->kill = JOB_KILL_NONE;
    j->kill_sent = j->launched = j->warn_sent = false;
    j->kill_deadline = 0;
    j->restart_count++;
    j->eligible_time = time(NULL);
    j->mail_sent = 0;
    job_set_reason(j, NULL);
    if (j->requeue_req == JOB_REQUEUE_HOLD)
        j->held_user = true;             /* Slurm: its owner may release it */
    if (j->held_user || j->held_admin) { /* or held while it ran */
        j->eligible_time = 0;
        job_set_reason(j, j->held_admin ? "JobHeldAdmin" : "JobHeldUser");
    }
    j->requeue_req = JOB_REQUEUE_NONE;
    log_info("job=%" PRIu64 " state=PENDING requeued restarts=%u why=\"%s\"",
             j->id, j->restart_count, why);
    loop_want_pass(js->env.loop);
    return save(js, j, "requeue", why, e);
}

int jobs_preempt(struct jobs *js, struct job *j, uint64_t by_job,
                 bool requeue_it, uint32_t grace_s, struct err *e)
{
    char detail[128];

    if (j->state != JOB_RUNNING) {
        errno = EBUSY;
        return err_set(e, "job %" PRIu64 " is not running", j->id);
    }
    if (j->alloc_kind != JOB_ALLOC_NONE)
        requeue_it = false; /* an allocation's owner waits on it */
    jobs_preempted_by(js, j, by_job);
    j->kill = requeue_it ? JOB_KILL_REQUEUE : JOB_KILL_PREEMPT;
    jobs_kill_wait(js, j, "preempted",
                   grace_s > 0 ? grace_s : js->env.conf->kill_wait_s);
    snprintf(detail, sizeof(detail), "by job %" PRIu64 " mode=%s grace=%u",
             by_job, requeue_it ? "REQUEUE" : "CANCEL", grace_s);
    log_info("job=%" PRIu64 " preempted %s", j->id, detail);
    if (save(js, j, "preempt", detail, e) < 0)
        return -1;
    return joballoc_settle(js, j, time(NULL), e);
}

void jobs_preempted_by(struct jobs *js, struct job *j, uint64_t by_job)
{
    const struct job *by = jobs_find(js, by_job);

    j->preempted_by = by_job;
    free(j->preempted_part);
    j->preempted_part = by ? xstrdup(js->env.conf->parts[by->part].name) : NULL;
}

int jobs_ended(struct jobs *js, struct job *j, const struct job_end *r,
               struct err *e)
{
    enum job_state st;
    char detail[96];
    int exit_code = r->exit_code, signal = r->signal;
    time_t end = r->end;

    if (!job_on_node(j->state))
        return 0;
    j->exit_code = exit_code;
    j->exit_signal = signal;
    if (j->kill == JOB_KILL_REQUEUE) {
        snprintf(detail, sizeof(detail), "%s: exit=%d signal=%d",
                 j->requeue_req != JOB_REQUEUE_NONE ? "by scontrol requeue"
                                                    : "after preemption",
                 exit_code, signal);
        return jobs_requeue_run(js, j, detail, e);
    }
    if (j->kill == JOB_KILL_CANCEL)
        st = JOB_CANCELLED;
    else if (j->kill == JOB_KILL_PREEMPT)
        st = JOB_PREEMPTED;
    else if (j->kill == JOB_KILL_TIMEOUT)
        st = JOB_TIMEOUT;
    else if (r->oom)
        st = JOB_OUT_OF_MEMORY; /* Slurm records this even if it exited 0 */
    else if (exit_code == 0 && signal == 0)
        st = JOB_COMPLETED;
    else
        st = JOB_FAILED;
    if (st == JOB_OUT_OF_MEMORY)
        job_set_reason(j, "OutOfMemory");
    else if (st == JOB_FAILED && signal != 0)
        job_set_reason_text(j, "RaisedSignal:%d", signal);
    else if (st == JOB_FAILED)
        job_set_reason(j, "NonZeroExitCode");
    else if (st == JOB_TIMEOUT)
        job_set_reason(j, "TimeLimit");
    else
        job_set_reason(j, NULL);
    snprintf(detail, sizeof(detail), "state=%s exit=%d signal=%d%s",
             job_state_name(st), exit_code, signal,
             r->oom ? " out of memory" : "");
    if (end <= 0 || end > time(NULL) + 60)
        end = time(NULL);
    return finish(js, j, st, end, "end", detail, e);
}

int jobs_fail(struct jobs *js, struct job *j, enum job_state state,
              const char *reason, time_t now, struct err *e)
{
    char detail[600];

    if (job_state_final(j->state))
        return 0;
    job_set_reason_text(j, "%s", reason);
    snprintf(detail, sizeof(detail), "state=%s reason=%s",
             job_state_name(state), reason);
    utf8_fix(detail); /* sacct --events reads it back as JSON */
    return finish(js, j, state, now,
                  state == JOB_NODE_FAIL ? "node_fail" : "fail", detail, e);
}

void jobs_launched(struct jobs *js, struct job *j)
{
    struct err e;

    if (j->launched)
        return;
    j->launched = true;
    save(js, j, NULL, NULL, &e);
}

int jobs_unstart(struct jobs *js, struct job *j, const char *why, struct err *e)
{
    ASSERT(j->state == JOB_RUNNING && !j->launched);
    if (j->kill == JOB_KILL_CANCEL) {
        job_set_reason(j, NULL);
        return finish(js, j, JOB_CANCELLED, time(NULL), "end",
                      "state=CANCELLED before its launch", e);
    }
    uncharge(js, j); /* CPUs, memory and GPUs */
    free(j->alloc);
    j->alloc = NULL;
    j->n_alloc = 0;
    free(j->gpu_alloc);
    j->gpu_alloc = NULL;
    j->state = JOB_PENDING;
    jlimits_job_stopped(js->env.limits, j);
    j->start_time = 0;
    j->kill = JOB_KILL_NONE;
    j->kill_sent = false;
    j->kill_deadline = 0;
    job_set_reason(j, NULL);
    log_info("job=%" PRIu64 " state=PENDING reason=\"%s\"", j->id, why);
    loop_want_pass(js->env.loop);
    /* not a "requeue": it never ran, so it counts no restart (Restarts
     * and sacct -D's runs follow the requeues) */
    return save(js, j, "launch_lost", why, e);
}

bool jobs_may_act(const struct jobs *js, const struct job *j, uid_t uid)
{
    return j->user_id == uid || acct_is_operator(js->env.acct, uid);
}

void jobs_kill(struct jobs *js, struct job *j, const char *reason)
{
    jobs_kill_wait(js, j, reason, js->env.conf->kill_wait_s);
}

void jobs_kill_wait(struct jobs *js, struct job *j, const char *reason,
                    uint32_t wait_s)
{
    if (j->n_alloc == 0)
        return;
    /* an allocation's steps have until then to report their end */
    if (j->kill_deadline == 0)
        j->kill_deadline = time(NULL) + (time_t)wait_s + JOBALLOC_END_SLACK_S;
    if (nodecmd_kill(js->nodecmd, j, reason, wait_s) == 0)
        j->kill_sent = true;
}

static int deny(struct err *e)
{
    errno = EPERM;
    return err_set(e, "Access/permission denied");
}

int jobs_cancel(struct jobs *js, struct job *j, uid_t uid, int signal,
                struct err *e)
{
    char detail[48];

    if (!jobs_may_act(js, j, uid))
        return deny(e);
    if (job_state_final(j->state)) {
        errno = EALREADY;
        return err_set(e, "Job/step already completing or completed");
    }
    if (signal != 0) {
        if (j->state == JOB_PENDING) {
            errno = EBUSY;
            return err_set(e, "Job is pending execution");
        }
        return nodecmd_signal(js->nodecmd, j, signal, false, e);
    }
    snprintf(detail, sizeof(detail), "by uid %u", (unsigned)uid);
    if (j->state == JOB_PENDING) {
        job_set_reason(j, NULL);
        j->cancel_uid = uid;
        return finish(js, j, JOB_CANCELLED, time(NULL), "cancel", detail, e);
    }
    if (j->kill == JOB_KILL_CANCEL && j->kill_sent)
        return 0;
    j->kill = JOB_KILL_CANCEL;
    j->cancel_uid = uid;
    jobs_kill(js, j, "cancelled");
    log_info("job=%" PRIu64 " cancel requested uid=%u", j->id, (unsigned)uid);
    if (save(js, j, "cancel", detail, e) < 0)
        return -1;
    return joballoc_settle(js, j, time(NULL), e);
}

int jobs_requeue(struct jobs *js, struct job *j, uid_t uid, bool hold,
                 struct err *e)
{
    char detail[64];

    if (!jobs_may_act(js, j, uid))
        return deny(e);
    if (j->alloc_kind != JOB_ALLOC_NONE) {
        errno = EINVAL;
        return err_set(e, "Only batch jobs are accepted or processed");
    }
    if (!j->requeue) {
        errno = EPERM; /* --no-requeue, or JobRequeue=0 */
        return err_set(e, "Requested operation is presently disabled");
    }
    if (j->state == JOB_PENDING) {
        errno = EBUSY;
        return err_set(e, "Job is pending execution");
    }
    if (job_state_final(j->state) ||
        (j->kill != JOB_KILL_NONE && j->kill != JOB_KILL_REQUEUE)) {
        /* a finished job's script is gone (docs/architecture.md) */
        errno = EALREADY;
        return err_set(e, "Job/step already completing or completed");
    }
    j->kill = JOB_KILL_REQUEUE;
    j->requeue_req = hold ? JOB_REQUEUE_HOLD : JOB_REQUEUE_ASKED;
    jobs_kill(js, j, "requeued");
    log_info("job=%" PRIu64 " requeue requested uid=%u hold=%d", j->id,
             (unsigned)uid, hold);
    snprintf(detail, sizeof(detail), "by uid %u%s", (unsigned)uid,
             hold ? " (hold)" : "");
    return save(js, j, "requeue_request", detail, e);
}

static int not_pending(struct err *e)
{
    errno = EBUSY;
    return err_set(e, "Job is no longer pending execution");
}

int jobs_hold(struct jobs *js, struct job *j, uid_t uid, struct err *e)
{
    bool admin = acct_is_operator(js->env.acct, uid);
    char detail[48];

    if (!jobs_may_act(js, j, uid))
        return deny(e);
    if (job_state_final(j->state))
        return not_pending(e);
    if (admin)
        j->held_admin = true;
    else
        j->held_user = true;
    /* a job that runs keeps running: held (priority 0) should it be
     * requeued, as Slurm does */
    if (j->state == JOB_PENDING)
        job_set_reason(j, admin ? "JobHeldAdmin" : "JobHeldUser");
    log_info("job=%" PRIu64 " held by uid=%u", j->id, (unsigned)uid);
    snprintf(detail, sizeof(detail), "by uid %u (%s)", (unsigned)uid,
             admin ? "admin hold" : "user hold");
    return save(js, j, "hold", detail, e);
}

/* j may start from now on (released, BeginTime reached, dependency
 * met): record it once. */
static int eligible(struct jobs *js, struct job *j, time_t now, struct err *e)
{
    if (j->held_user || j->held_admin || j->part_time_limit ||
        j->part_node_limit || j->dep_state != DEP_MET ||
        (j->begin_time != 0 && j->begin_time > now) ||
        (j->eligible_time != 0 && j->eligible_time <= now))
        return 0;
    j->eligible_time = now;
    return save_at(js, j, "eligible", "", now, false, e);
}

int jobs_eligible(struct jobs *js, struct job *j, time_t now, struct err *e)
{
    return eligible(js, j, now, e);
}

int jobs_release(struct jobs *js, struct job *j, uid_t uid, struct err *e)
{
    char detail[32];
    if (!jobs_may_act(js, j, uid))
        return deny(e);
    if (job_state_final(j->state))
        return not_pending(e);
    if (j->held_admin && !acct_is_operator(js->env.acct, uid))
        return deny(e);
    if (!j->held_admin && !j->held_user)
        return 0;
    j->held_admin = j->held_user = false;
    if (j->state != JOB_PENDING) { /* held while it ran: nothing else */
        log_info("job=%" PRIu64 " released by uid=%u", j->id, (unsigned)uid);
        snprintf(detail, sizeof(detail), "by uid %u", (unsigned)uid);
        return save(js, j, "release", detail, e);
    }
    job_set_reason(j, j->part_time_limit   ? "PartitionTimeLimit"
                      : j->part_node_limit ? "PartitionNodeLimit"
                                           : NULL);
    loop_want_pass(js->env.loop);
    log_info("job=%" PRIu64 " released by uid=%u", j->id, (unsigned)uid);
    snprintf(detail, sizeof(detail), "by uid %u", (unsigned)uid);
    if (save(js, j, "release", detail, e) < 0)
        return -1;
    return eligible(js, j, time(NULL), e);
}

/* The time a limit of secs seconds ends for j (the test divisor shortens
 * it; see jobs_env). */
static time_t deadline(const struct jobs *js, const struct job *j, int64_t secs)
{
    uint32_t div = js->env.time_divisor ? js->env.time_divisor : 1;

    /* a record from before JOBS_TIME_LIMIT_MAX_S: never past the end of
     * time_t (a limit that long is no limit) */
    if (secs >= JOBS_TIME_LIMIT_MAX_S)
        return (time_t)INT64_MAX;
    /* time suspended does not count (Slurm extends the end time) */
    return j->start_time + (time_t)j->suspended_s +
           (time_t)((secs + div - 1) / div);
}

/* --signal: warn_signal goes warn_time_s before the limit, once. */
static void warn_before_limit(struct jobs *js, struct job *j, time_t now)
{
    uint32_t div = js->env.time_divisor ? js->env.time_divisor : 1;
    char detail[64];
    struct err e;

    if (j->warn_signal == 0 || j->warn_sent ||
        now < deadline(js, j, j->time_limit_s) - (time_t)(j->warn_time_s / div))
        return;
    j->warn_sent = true;
    if (jobs_warn(js, j, &e) < 0)
        log_warnx("job=%" PRIu64 " warning signal not sent: %s", j->id, e.text);
    snprintf(detail, sizeof(detail), "signal %d to %s, %us before the limit",
             j->warn_signal, j->warn_batch ? "the batch shell" : "all steps",
             j->warn_time_s);
    save(js, j, "signal", detail, &e);
}

static void time_limit(struct jobs *js, struct job *j, time_t now)
{
    char detail[64], lim[TIMEFMT_BUFLEN];
    struct err e;

    if (j->state != JOB_RUNNING || j->kill != JOB_KILL_NONE ||
        j->time_limit_s == TIMEFMT_INFINITE)
        return;
    warn_before_limit(js, j, now);
    if (now < deadline(js, j, j->time_limit_s))
        return;
    j->kill = JOB_KILL_TIMEOUT;
    log_info("job=%" PRIu64 " time limit reached limit_s=%" PRId64, j->id,
             j->time_limit_s);
    jobs_kill(js, j, "timeout");
    snprintf(detail, sizeof(detail), "time limit %s reached",
             timefmt_format(j->time_limit_s, lim, sizeof(lim)));
    if (save(js, j, "timeout", detail, &e) == 0)
        joballoc_settle(js, j, now, &e);
}

void jobs_tick(struct jobs *js, time_t now)
{
    bool due = false;
    struct err e;

    for (struct job *j = js->head; j != NULL; j = j->next) {
        if (j->state == JOB_PENDING && j->dep_recheck != 0 &&
            j->dep_recheck <= now)
            jobdep_judge(js, j, now);
        if (j->state == JOB_PENDING && j->begin_time != 0 &&
            j->begin_time <= now && !j->held_user && !j->held_admin &&
            strcmp(job_reason(j), "BeginTime") == 0) {
            due = true;
            j->eligible_time = 0;
            /* the subscribers hear it: age accrues since the begin time */
            eligible(js, j, now, &e);
        }
        if (jobspec_opts_deadline(js, j, now))
            continue;
        time_limit(js, j, now);
        if (j->alloc_kind != JOB_ALLOC_NONE && j->kill != JOB_KILL_NONE)
            joballoc_settle(js, j, now, &e);
    }
    if (due)
        loop_want_pass(js->env.loop);
    evict_finished(js);
}

void jobs_part_changed(struct jobs *js, size_t part)
{
    const struct part *p = parts_get(js->env.parts, part);
    time_t now = time(NULL);
    struct err e;

    for (struct job *j = js->head; j != NULL; j = j->next) {
        bool over_time, over_nodes, was;
        if (j->state != JOB_PENDING || j->part != part)
            continue;
        over_time = j->time_limit_s > p->max_time_s;
        over_nodes = j->nodes < p->min_nodes || j->nodes > p->max_nodes;
        was = j->part_time_limit || j->part_node_limit;
        if (over_time == j->part_time_limit && over_nodes == j->part_node_limit)
            continue;
        j->part_time_limit = over_time;
        j->part_node_limit = over_nodes;
        if (!j->held_user && !j->held_admin)
            job_set_reason(j, over_time    ? "PartitionTimeLimit"
                              : over_nodes ? "PartitionNodeLimit"
                                           : NULL);
        log_info("job=%" PRIu64 " partition limits now %s", j->id,
                 over_time || over_nodes ? "exceeded" : "met");
        save(js, j, NULL, NULL, &e);
        if (was && !over_time && !over_nodes)
            eligible(js, j, now, &e);
    }
}

struct job **jobs_on_node(struct jobs *js, size_t idx, bool batch_only,
                          size_t *n)
{
    struct job **out = NULL;
    size_t cap = 0;

    *n = 0;
    for (struct job *j = js->head; j != NULL; j = j->next) {
        bool on = false;
        if (!job_on_node(j->state))
            continue;
        for (size_t i = 0; i < (batch_only ? 1 : j->n_alloc); i++)
            on = on || j->alloc[i] == idx;
        if (!on)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            out = xreallocarray(out, cap, sizeof(*out));
        }
        out[(*n)++] = j;
    }
    return out;
}

bool jobs_node_keeps(const struct jobs *js, const struct job *j, size_t idx)
{
    (void)js;
    /* an allocation (salloc, srun) has no batch host to lose */
    return j->no_kill && j->n_alloc > 1 &&
           (j->alloc_kind != JOB_ALLOC_NONE || j->alloc[0] != idx) &&
           (j->state == JOB_RUNNING || j->state == JOB_SUSPENDED) &&
           j->kill == JOB_KILL_NONE;
}

/* Node idx leaves j's allocation: what j held there is freed, and the
 * rest keeps its order (the batch host stays first). */
static void drop_node(struct jobs *js, struct job *j, size_t idx, time_t now)
{
    uint32_t g = j->gpus_per_node;
    size_t k = 0;
    char detail[128];
    struct err e;

    for (size_t i = 0; i < j->n_alloc; i++) {
        if (j->alloc[i] == idx) {
            nodes_release(js->env.nodes, idx, jobs_held_cpus(j),
                          job_mem_per_node(j));
            nodes_user_remove(js->env.nodes, idx, j->user_id,
                              exclusive_user(js, j));
            if (j->gpu_alloc != NULL)
                nodes_gpus_give(js->env.nodes, idx, j->gpu_alloc + i * g, g);
            continue;
        }
        if (j->gpu_alloc != NULL && k != i)
            memmove(j->gpu_alloc + k * g, j->gpu_alloc + i * g,
                    g * sizeof(*j->gpu_alloc));
        j->alloc[k++] = j->alloc[i];
    }
    j->n_alloc = k;
    snprintf(detail, sizeof(detail), "node %s failed; --no-kill: going on",
             js->env.conf->nodes[idx].name);
    log_info("job=%" PRIu64 " lost node %s (--no-kill) nodes_left=%zu", j->id,
             js->env.conf->nodes[idx].name, k);
    loop_want_pass(js->env.loop); /* what it held there is free */
    save_at(js, j, "node_lost", detail, now, false, &e);
}

void jobs_node_down(struct jobs *js, size_t idx, const char *why, time_t now)
{
    size_t n;
    struct job **list = jobs_on_node(js, idx, false, &n);
    struct err e;

    for (size_t i = 0; i < n; i++) {
        if (jobs_node_keeps(js, list[i], idx))
            drop_node(js, list[i], idx, now);
        else
            jobfence_lost(js, list[i], idx, why, false, now, &e);
    }
    free(list);
}
