/*
 * Dependencies in the controller (jobdep.h): the index from a job (or
 * array) id to the jobs waiting on it, the facts gathered about the jobs
 * a clause names, and what the verdict does to the waiting job.
 */
#include "ctld/queue/jobdep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobs.h"

#define NBUCKETS 4096

struct dep_entry {
    uint64_t target, dependent;
    struct dep_entry *next;
};

struct jobdep {
    struct dep_entry *buckets[NBUCKETS];
};

struct jobdep *jobdep_create(void)
{
    return xcalloc(1, sizeof(struct jobdep));
}

void jobdep_destroy(struct jobdep *d)
{
    if (d == NULL)
        return;
    for (size_t b = 0; b < NBUCKETS; b++) {
        struct dep_entry *x = d->buckets[b], *next;
        for (; x != NULL; x = next) {
            next = x->next;
            free(x);
        }
    }
    free(d);
}

static size_t hash(uint64_t id)
{
    return (size_t)(id * 0x9E3779B97F4A7C15ull >> 40) % NBUCKETS;
}

bool jobdep_kill_default(const char *p)
{
    const char *hit = p ? strstr(p, "kill_invalid_depend") : NULL;

    return hit != NULL && (hit == p || hit[-1] == ',') &&
           (hit[19] == '\0' || hit[19] == ',');
}

/* ---- submit: names must exist ------------------------------------------ */

static bool task_known(struct jobs *js, uint64_t a, int64_t task)
{
    for (struct job *j = jobs_find(js, a); j != NULL; j = j->next) {
        if (j->array_job_id != a)
            continue;
        if ((j->array_pending &&
             arrayset_has(j->array_pending, (uint32_t)task)) ||
            j->array_task_id == task)
            return true;
    }
    return false;
}

int jobdep_set(struct jobs *js, struct job *j, const char *text, struct err *e)
{
    struct depend d = {0};

    if (text != NULL && *text != '\0' && depend_parse(text, &d, e) < 0)
        return -1;
    for (size_t i = 0; i < d.n; i++) {
        const struct dep_clause *c = &d.v[i];
        struct job *t = c->job_id ? jobs_find(js, c->job_id) : NULL;
        if (c->type == DEP_SINGLETON)
            continue;
        if (t == NULL ||
            (c->task != DEP_ALL_TASKS && !task_known(js, c->job_id, c->task))) {
            errno = EINVAL;
            if (c->task != DEP_ALL_TASKS)
                err_set(e,
                        "Job dependency problem: job %" PRIu64 "_%" PRId64
                        " is not known",
                        c->job_id, c->task);
            else
                err_set(e,
                        "Job dependency problem: job %" PRIu64 " is not known",
                        c->job_id);
            depend_clear(&d);
            return -1;
        }
        if (j->id != 0 && (c->job_id == j->id ||
                           (j->array_job_id && c->job_id == j->array_job_id))) {
            errno = EINVAL;
            err_set(e, "Job dependency problem: a job cannot depend on itself");
            depend_clear(&d);
            return -1;
        }
    }
    depend_clear(&j->dep);
    j->dep = d;
    j->dep_state = d.n ? DEP_WAIT : DEP_MET;
    j->dep_recheck = 0;
    return 0;
}

/* ---- facts ------------------------------------------------------------- */

static void add_job(struct dep_facts *f, const struct job *j)
{
    bool final = job_state_final(j->state);

    f->total++;
    if (j->start_time != 0 || final) {
        time_t at = j->start_time ? j->start_time : j->end_time;
        f->begun++;
        if (at > f->last_begin)
            f->last_begin = at;
    }
    if (final)
        f->ended++;
    if (j->state == JOB_COMPLETED)
        f->ok++;
}

/* The tasks of pending record j (those named by want, -1: all): not
 * begun while it waits, ended unstarted when it was cancelled. */
static void add_pending(struct dep_facts *f, const struct job *j, int64_t want)
{
    uint32_t n = want < 0 ? j->array_pending->count
                          : arrayset_has(j->array_pending, (uint32_t)want);

    f->total += n;
    if (n > 0 && job_state_final(j->state)) {
        f->begun += n;
        f->ended += n;
        if (j->end_time > f->last_begin)
            f->last_begin = j->end_time;
    }
}

/* Facts about what c names; task is the waiting job's own task id, used
 * by aftercorr. */
static void gather(struct jobs *js, const struct dep_clause *c, int64_t task,
                   struct dep_facts *f)
{
    uint64_t a = c->job_id;
    int64_t want = c->type == DEP_AFTERCORR ? task : c->task;
    struct job *j = jobs_find(js, a);

    memset(f, 0, sizeof(*f));
    if (j == NULL)
        return; /* gone from memory: counts as met, as in Slurm */
    f->known = true;
    if (j->array_job_id != a) {
        add_job(f, j);
        return;
    }
    for (; j != NULL; j = j->next) {
        if (j->array_job_id != a)
            continue;
        if (j->array_pending != NULL)
            add_pending(f, j, want);
        if (j->array_task_id >= 0 && (want < 0 || j->array_task_id == want))
            add_job(f, j);
    }
    if (f->total == 0)
        f->known = false; /* aftercorr without a counterpart: met */
}

static enum dep_result judge_task(struct jobs *js, struct job *j, int64_t task,
                                  time_t now)
{
    enum dep_result *each = xcalloc(j->dep.n, sizeof(*each)), r;
    struct dep_facts f;

    for (size_t i = 0; i < j->dep.n; i++) {
        gather(js, &j->dep.v[i], task, &f);
        each[i] = depend_clause_eval(&j->dep.v[i], &f, now, &j->dep_recheck);
    }
    r = depend_combine(&j->dep, each);
    free(each);
    return r;
}

/* A pending array with aftercorr: which tasks may start. */
/* A pending array with aftercorr: which tasks may start (dep_ready);
 * those that never can go into *nev. */
static enum dep_result judge_tasks(struct jobs *js, struct job *j, time_t now,
                                   struct arrayset *nev)
{
    if (j->dep_ready == NULL)
        j->dep_ready = xcalloc(1, sizeof(*j->dep_ready));
    arrayset_clear(j->dep_ready);
    arrayset_init(j->dep_ready, j->array_pending->nbits);
    arrayset_init(nev, j->array_pending->nbits);
    for (int64_t t = arrayset_next(j->array_pending, 0); t >= 0;
         t = arrayset_next(j->array_pending, (uint32_t)t + 1)) {
        enum dep_result r = judge_task(js, j, t, now);
        if (r == DEP_MET)
            arrayset_add(j->dep_ready, (uint32_t)t);
        else if (r == DEP_NEVER)
            arrayset_add(nev, (uint32_t)t);
    }
    if (j->dep_ready->count > 0)
        return DEP_MET;
    return nev->count == j->array_pending->count ? DEP_NEVER : DEP_WAIT;
}

/* Tasks of array j that can never start while others still may: each
 * becomes a job of its own, judged (and maybe cancelled) alone. */
static void split_never(struct jobs *js, struct job *j,
                        const struct arrayset *nev, time_t now)
{
    struct err e;

    for (int64_t t = arrayset_next(nev, 0); t >= 0;
         t = arrayset_next(nev, (uint32_t)t + 1)) {
        struct job *k = jobarray_split(js, j, (uint32_t)t, &e);
        if (k == NULL) {
            log_warnx("job=%" PRIu64 " task %lld not split off: %s", j->id,
                      (long long)t, e.text);
            continue;
        }
        jobdep_track(js, k, now);
    }
}

/* ---- verdicts ---------------------------------------------------------- */

static void never(struct jobs *js, struct job *j)
{
    struct err e;

    if (!j->kill_invalid_dep) {
        if (!j->held_user && !j->held_admin)
            job_set_reason(j, "DependencyNeverSatisfied");
        return;
    }
    log_info("job=%" PRIu64 " dependency can never be satisfied: cancelled",
             j->id);
    if (jobs_cancel(js, j, 0, 0, &e) < 0)
        log_warnx("job=%" PRIu64 " not cancelled: %s", j->id, e.text);
}

void jobdep_judge(struct jobs *js, struct job *j, time_t now)
{
    enum dep_result old = j->dep_state, r;
    struct err e;

    if (j->dep.n == 0 || j->state != JOB_PENDING)
        return;
    j->dep_recheck = 0;
    if (j->array_pending != NULL && depend_has(&j->dep, DEP_AFTERCORR)) {
        struct arrayset nev;
        r = judge_tasks(js, j, now, &nev);
        if (r != DEP_NEVER && nev.count > 0)
            split_never(js, j, &nev, now);
        arrayset_clear(&nev);
    } else {
        r = judge_task(js, j, j->array_task_id, now);
    }
    j->dep_state = r;
    if (r == DEP_MET && old != DEP_MET) {
        if (strncmp(job_reason(j), "Dependency", 10) == 0)
            job_set_reason(j, NULL);
        /* the wait for a dependency does not count as age: it starts now */
        jobs_eligible(js, j, now, &e);
        loop_want_pass(jobs_env(js)->loop);
    } else if (r == DEP_WAIT && !j->held_user && !j->held_admin) {
        job_set_reason(j, "Dependency");
    }
    if (r != old || r == DEP_MET)
        log_info("job=%" PRIu64 " dependency=%s", j->id,
                 r == DEP_MET    ? "met"
                 : r == DEP_WAIT ? "waiting"
                                 : "never");
    if (r == DEP_NEVER)
        never(js, j);
    if (j->state == JOB_PENDING && r != old) {
        /* age accrues only while nothing but resources holds it: the
         * subscribers (priorities) hear of it */
        jobs_save_at(js, j, NULL, NULL, now, &e);
    }
}

static void index_add(struct jobdep *d, uint64_t target, uint64_t dependent)
{
    struct dep_entry **pp = &d->buckets[hash(target)], *x;

    for (x = *pp; x != NULL; x = x->next)
        if (x->target == target && x->dependent == dependent)
            return;
    x = xmalloc(sizeof(*x));
    *x = (struct dep_entry){target, dependent, *pp};
    *pp = x;
}

void jobdep_track(struct jobs *js, struct job *j, time_t now)
{
    for (size_t i = 0; i < j->dep.n; i++)
        if (j->dep.v[i].type != DEP_SINGLETON)
            index_add(jobs_dep(js), j->dep.v[i].job_id, j->id);
    jobdep_judge(js, j, now);
}

/* The jobs waiting on id, stale entries dropped (caller frees). */
static uint64_t *waiting_on(struct jobs *js, uint64_t id, size_t *n)
{
    struct dep_entry **pp = &jobs_dep(js)->buckets[hash(id)], *x;
    uint64_t *out = NULL;

    *n = 0;
    while ((x = *pp) != NULL) {
        struct job *w = x->target == id ? jobs_find(js, x->dependent) : NULL;
        if (x->target == id && (w == NULL || w->state != JOB_PENDING)) {
            *pp = x->next;
            free(x);
            continue;
        }
        if (w != NULL) {
            out = xreallocarray(out, *n + 1, sizeof(*out));
            out[(*n)++] = x->dependent;
        }
        pp = &x->next;
    }
    return out;
}

void jobdep_changed(struct jobs *js, const struct job *t, time_t now)
{
    uint64_t ids[2] = {t->id, t->array_job_id};

    for (int k = 0; k < 2; k++) {
        size_t n;
        uint64_t *list;
        if (ids[k] == 0 || (k == 1 && ids[1] == ids[0]))
            continue;
        list = waiting_on(js, ids[k], &n);
        for (size_t i = 0; i < n; i++) {
            struct job *w = jobs_find(js, list[i]);
            if (w != NULL)
                jobdep_judge(js, w, now);
        }
        free(list);
    }
}
