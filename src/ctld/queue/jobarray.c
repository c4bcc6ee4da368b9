/*
 * Job arrays (jobarray.h): the --array field of a submission, splitting
 * a task off its pending array, and the pass's model with the counters of
 * array throttles (%N, reason JobArrayTaskLimit) and singleton
 * dependencies (one running job per name and user, reason Dependency).
 */
#include "ctld/queue/jobarray.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/queue/jobs.h"

int jobarray_parse(json_t *spec, uint32_t max_size, struct job *j,
                   struct err *e)
{
    json_t *v = json_object_get(spec, "array");
    struct arrayspec a;

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        errno = EINVAL;
        return err_set(e, "job array: expected a string such as \"0-9%%2\"");
    }
    if (arrayspec_parse(json_string_value(v), max_size, &a, e) < 0)
        return -1;
    j->array_pending = xmalloc(sizeof(*j->array_pending));
    *j->array_pending = a.set;
    j->array_task_id = -1;
    j->array_throttle = a.throttle;
    j->array_count = a.set.count;
    j->array_min = a.min;
    j->array_max = a.max;
    j->array_step = a.step;
    return 0;
}

struct job *jobarray_find_task(struct jobs *js, uint64_t a, int64_t t)
{
    for (struct job *j = jobs_find(js, a); j != NULL; j = j->next)
        if (j->array_job_id == a && j->array_task_id == t)
            return j;
    return NULL;
}

/* A copy of pending array m as its task t (through the record, which
 * holds every field worth copying). */
static struct job *task_copy(struct jobs *js, const struct job *m, uint32_t t,
                             struct err *e)
{
    const struct conf *conf = jobs_ctld(js)->conf;
    json_t *o = job_to_json(m, conf, true);
    struct job *n;

    json_object_set_new(o, "array_task_str", json_null());
    json_object_set_new(o, "array_task_id", json_integer(t));
    n = job_from_json(o, conf, e);
    json_decref(o);
    if (n == NULL)
        return NULL;
    if (jobs_node_filter(conf, n->nodelist, n->exclude, &n->node_allowed, e) <
        0) {
        job_free(n);
        return NULL;
    }
    n->dep_state = m->dep_state;
    n->reason = m->reason_text ? NULL : m->reason;
    return n;
}

struct job *jobarray_split(struct jobs *js, struct job *m, uint32_t t,
                           struct err *e)
{
    struct job *n;

    ASSERT(m->array_pending != NULL && arrayset_has(m->array_pending, t));
    if (m->array_pending->count == 1) {
        arrayset_clear(m->array_pending);
        free(m->array_pending);
        m->array_pending = NULL;
        arrayset_clear(m->dep_ready);
        free(m->dep_ready);
        m->dep_ready = NULL;
        m->array_task_id = t;
        return jobs_save_event(js, m, NULL, NULL, e) < 0 ? NULL : m;
    }
    if ((n = task_copy(js, m, t, e)) == NULL)
        return NULL;
    /* the script stays with the array's record (see launch) */
    if (jobs_insert_new(js, n, "{}", e) < 0)
        return NULL;
    arrayset_del(m->array_pending, t);
    if (m->dep_ready != NULL)
        arrayset_del(m->dep_ready, t);
    log_info("job=%" PRIu64 " array=%" PRIu64 "_%u split off", n->id,
             m->array_job_id, t);
    if (jobs_save_event(js, m, NULL, NULL, e) < 0)
        return NULL;
    return n;
}

/* ---- the pass's model --------------------------------------------------- */

/* Room for cap entries (the arrays grow, never shrink). */
static void model_grow(struct sched_model *m, size_t cap)
{
    m->cap = cap;
    m->pend = xreallocarray(m->pend, m->cap, sizeof(*m->pend));
    m->task = xreallocarray(m->task, m->cap, sizeof(*m->task));
    m->sj = xreallocarray(m->sj, m->cap, sizeof(*m->sj));
    m->chg = xreallocarray(m->chg, 2 * m->cap, sizeof(*m->chg));
    m->nmine = xreallocarray(m->nmine, m->cap, sizeof(*m->nmine));
}

static void push(struct sched_model *m, struct job *j, int64_t task,
                 struct sched_job sj)
{
    if (m->n == m->cap)
        model_grow(m, m->cap ? 2 * m->cap : 256);
    m->pend[m->n] = j;
    m->task[m->n] = task;
    m->sj[m->n] = sj;
    m->sj[m->n].charges = NULL;
    m->sj[m->n].ncharges = 0;
    m->nmine[m->n] = 0;
    m->n++;
}

static size_t new_counter(struct sched_model *m, uint64_t cap,
                          const char *reason)
{
    m->ctr = xreallocarray(m->ctr, m->nctr + 1, sizeof(*m->ctr));
    m->ctr[m->nctr] = (struct sched_counter){cap, 0, reason};
    return m->nctr++;
}

/* Charges wait in chg (indices into m->ctr) for sched_model_merge. */
static void add_charge(struct sched_model *m, size_t entry, size_t counter)
{
    m->chg[2 * entry + m->nmine[entry]] =
        (struct sched_charge){.counter = counter, .amount = 1};
    m->nmine[entry]++;
}

/* Singleton counters: one per (name, user) among the pending jobs. */
struct singles {
    const struct job **key;
    size_t *ctr;
    size_t n;
};

static size_t single_counter(struct sched_model *m, struct singles *s,
                             const struct job *j)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->key[i]->user_id == j->user_id &&
            strcmp(s->key[i]->name, j->name) == 0)
            return s->ctr[i];
    s->key = xreallocarray(s->key, s->n + 1, sizeof(*s->key));
    s->ctr = xreallocarray(s->ctr, s->n + 1, sizeof(*s->ctr));
    s->key[s->n] = j;
    s->ctr[s->n] = new_counter(m, 1, "Dependency");
    return s->ctr[s->n++];
}

/* The throttle counter of j's array (j a pending record or a task split
 * off it), made on first use and remembered in the array's record; -1
 * when the array has no throttle (or its record is gone). */
static int64_t throttle_counter(struct jobs *js, struct sched_model *m,
                                struct job *j)
{
    struct job *a = j->array_job_id ? jobs_find(js, j->array_job_id) : NULL;

    if (j->array_throttle == 0 || a == NULL)
        return -1;
    if (a->sched_slot == 0) {
        a->sched_slot =
            new_counter(m, j->array_throttle, "JobArrayTaskLimit") + 1;
        m->slotted =
            xreallocarray(m->slotted, m->nslotted + 1, sizeof(*m->slotted));
        m->slotted[m->nslotted++] = a;
    }
    return (int64_t)a->sched_slot - 1;
}

/* What turns a job into its sched_job. */
struct modeler {
    struct sched_job (*fn)(void *, const struct job *);
    void *arg;
};

static void offer(struct jobs *js, struct sched_model *m, struct singles *s,
                  struct job *j, const struct modeler *model)
{
    bool single = depend_has(&j->dep, DEP_SINGLETON);
    size_t single_ctr = single ? single_counter(m, s, j) : 0;
    const struct arrayset *ready =
        j->dep_ready ? j->dep_ready : j->array_pending;
    int64_t thr = throttle_counter(js, m, j);
    size_t offered = 0;

    if (j->array_pending == NULL) {
        push(m, j, -1, model->fn(model->arg, j));
        if (thr >= 0)
            add_charge(m, m->n - 1, (size_t)thr);
        if (single)
            add_charge(m, m->n - 1, single_ctr);
        return;
    }
    for (int64_t t = arrayset_next(ready, 0);
         t >= 0 && offered < JOBARRAY_OFFER_MAX &&
         (j->array_throttle == 0 || offered < j->array_throttle);
         t = arrayset_next(ready, (uint32_t)t + 1), offered++) {
        push(m, j, t, model->fn(model->arg, j));
        if (thr >= 0)
            add_charge(m, m->n - 1, (size_t)thr);
        if (single)
            add_charge(m, m->n - 1, single_ctr);
    }
}

/* What running jobs already use of the counters. */
static void count_running(struct jobs *js, struct sched_model *m,
                          const struct singles *s)
{
    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        struct job *a;
        if (!job_on_node(j->state))
            continue;
        if (j->array_job_id != 0 &&
            (a = jobs_find(js, j->array_job_id)) != NULL && a->sched_slot)
            m->ctr[a->sched_slot - 1].used++;
        for (size_t i = 0; i < s->n; i++)
            if (s->key[i]->user_id == j->user_id &&
                strcmp(s->key[i]->name, j->name) == 0)
                m->ctr[s->ctr[i]].used++;
    }
}

void sched_model_collect(struct jobs *js, struct sched_model *m,
                         struct sched_job (*fn)(void *, const struct job *),
                         void *arg)
{
    struct singles s = {0};
    const struct modeler model = {fn, arg};

    memset(m, 0, sizeof(*m));
    /* sized once: doubling a 100k-job model copies megabytes per pass */
    if (jobs_active(js) > 0)
        model_grow(m, jobs_active(js));
    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        if (j->state != JOB_PENDING || j->part_time_limit ||
            j->part_node_limit || j->dep_state != DEP_MET)
            continue;
        offer(js, m, &s, j, &model);
    }
    if (m->nctr > 0)
        count_running(js, m, &s);
    for (size_t i = 0; i < m->nslotted; i++)
        m->slotted[i]->sched_slot = 0;
    free(s.key);
    free(s.ctr);
}

void sched_model_merge(struct sched_model *m, struct sched_cluster *c)
{
    size_t nl = c->counters != NULL ? c->ncounters : 0, total = 0, off = 0;

    if (m->nctr == 0)
        return;
    m->all_ctr = xcalloc(nl + m->nctr, sizeof(*m->all_ctr));
    if (nl > 0)
        memcpy(m->all_ctr, c->counters, nl * sizeof(*m->all_ctr));
    memcpy(m->all_ctr + nl, m->ctr, m->nctr * sizeof(*m->ctr));
    for (size_t i = 0; i < m->n; i++)
        total += m->sj[i].ncharges + m->nmine[i];
    m->all_chg = xcalloc(total ? total : 1, sizeof(*m->all_chg));
    for (size_t i = 0; i < m->n; i++) {
        struct sched_job *sj = &m->sj[i];
        size_t n = sj->ncharges;
        if (n > 0)
            memcpy(m->all_chg + off, sj->charges, n * sizeof(*m->all_chg));
        for (size_t k = 0; k < m->nmine[i]; k++) {
            m->all_chg[off + n + k] = m->chg[2 * i + k];
            m->all_chg[off + n + k].counter += nl;
        }
        sj->charges = m->all_chg + off;
        sj->ncharges = n + m->nmine[i];
        off += sj->ncharges;
    }
    c->counters = m->all_ctr;
    c->ncounters = nl + m->nctr;
}

void sched_model_free(struct sched_model *m)
{
    free(m->slotted);
    free(m->nmine);
    free(m->all_ctr);
    free(m->all_chg);
    free(m->pend);
    free(m->task);
    free(m->sj);
    free(m->ctr);
    free(m->chg);
    memset(m, 0, sizeof(*m));
}
