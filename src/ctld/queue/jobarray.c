/*
 * Job arrays (jobarray.h): the --array field of a submission, splitting
 * a task off its pending array, and the tasks of an array one pass is
 * offered (the pass model, sched/model.c, counts their throttle).
 */
#include "ctld/queue/jobarray.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
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
    const struct conf *conf = jobs_env(js)->conf;
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

size_t jobarray_offer(const struct job *j, int64_t *tasks)
{
    const struct arrayset *ready =
        j->dep_ready ? j->dep_ready : j->array_pending;
    size_t n = 0;

    for (int64_t t = arrayset_next(ready, 0);
         t >= 0 && n < JOBARRAY_OFFER_MAX &&
         (j->array_throttle == 0 || n < j->array_throttle);
         t = arrayset_next(ready, (uint32_t)t + 1))
        tasks[n++] = t;
    return n;
}
