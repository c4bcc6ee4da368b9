/*
 * Job selections of squeue and scancel: parsed and checked, sent to the
 * controller, and applied again to what comes back.
 */
#include "cli/jobfilter.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/jobview.h"
#include "common/hostlist.h"
#include "common/value.h"
#include "common/arrayspec.h"
#include "common/xalloc.h"

void jobfilter_clear(struct jobfilter *f)
{
    json_decref(f->job_ids);
    json_decref(f->users);
    json_decref(f->partitions);
    json_decref(f->states);
    json_decref(f->names);
    json_decref(f->nodes);
    memset(f, 0, sizeof(*f));
}

bool jobfilter_empty(const struct jobfilter *f)
{
    return !f->all_states && f->job_ids == NULL && f->users == NULL &&
           f->partitions == NULL && f->states == NULL && f->names == NULL &&
           f->nodes == NULL;
}

static void jf_push(json_t **list, json_t *v)
{
    if (*list == NULL)
        *list = json_array();
    json_array_append_new(*list, v);
}

static int jf_user(struct jobfilter *f, const char *s, struct err *e)
{
    uint64_t uid;

    if (value_parse_u64(s, 0, UINT32_MAX - 1, &uid, NULL) == 0) {
        jf_push(&f->users, json_integer((json_int_t)uid));
        return 0;
    }
    if (getpwnam(s) == NULL) {
        errno = EINVAL;
        return err_set(e, "Invalid user: %s", s);
    }
    jf_push(&f->users, json_string(s));
    return 0;
}

static int jf_nodes(struct jobfilter *f, const char *s, struct err *e)
{
    struct hostlist *hl = hostlist_expand(s, e);

    if (hl == NULL)
        return err_prefix(e, "invalid node list \"%s\"", s);
    for (size_t i = 0; i < hostlist_count(hl); i++)
        jf_push(&f->nodes, json_string(hostlist_nth(hl, i)));
    hostlist_destroy(hl);
    return 0;
}

/* "123_4", "123_[1-3,7]": tasks of an array, sent as text. */
static int jf_array_ref(struct jobfilter *f, const char *s, struct err *e)
{
    const char *us = strchr(s, '_') + 1;
    char *id = xstrndup(s, (size_t)(us - s - 1)), *tasks;
    size_t len = strlen(us);
    struct arrayset set;
    uint64_t v;
    int rc;

    if (len >= 2 && us[0] == '[' && us[len - 1] == ']')
        tasks = xstrndup(us + 1, len - 2);
    else
        tasks = xstrdup(us);
    rc = value_parse_u64(id, 1, UINT32_MAX, &v, NULL);
    if (rc == 0 &&
        (rc = arrayset_parse(tasks, ARRAYSPEC_MAX_SIZE, &set, NULL)) == 0)
        arrayset_clear(&set);
    free(id);
    free(tasks);
    if (rc < 0) {
        errno = EINVAL;
        return err_set(e, "Invalid job id: %s", s);
    }
    jf_push(&f->job_ids, json_string(s));
    return 0;
}

/* One item of a list of kind. */
static int jf_item(struct jobfilter *f, enum jobfilter_kind kind, const char *s,
                   struct err *e)
{
    const char *state;
    uint64_t id;
    json_t *str;

    switch (kind) {
    case JOBFILTER_IDS:
        if (strchr(s, '_') != NULL)
            return jf_array_ref(f, s, e);
        if (value_parse_u64(s, 1, INT64_MAX, &id, NULL) < 0) {
            errno = EINVAL;
            return err_set(e, "Invalid job id: %s", s);
        }
        jf_push(&f->job_ids, json_integer((json_int_t)id));
        return 0;
    case JOBFILTER_USERS:
        return jf_user(f, s, e);
    case JOBFILTER_STATES:
        if (strcasecmp(s, "all") == 0) {
            f->all_states = true;
            return 0;
        }
        if ((state = jobview_state_parse(s, e)) == NULL)
            return -1;
        jf_push(&f->states, json_string(state));
        return 0;
    case JOBFILTER_NODES:
        return jf_nodes(f, s, e);
    default:
        if ((str = json_string(s)) == NULL) {
            errno = EINVAL;
            return err_set(e, "\"%s\" is not UTF-8", s);
        }
        jf_push(kind == JOBFILTER_NAMES ? &f->names : &f->partitions, str);
        return 0;
    }
}

int jobfilter_add(struct jobfilter *f, enum jobfilter_kind kind,
                  const char *arg, struct err *e)
{
    const char *p = arg;

    /* The node list is one hostlist expression: its commas are its own. */
    if (kind == JOBFILTER_NODES)
        return jf_nodes(f, arg, e);
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        const char *br = strchr(p, '[');
        /* "123_[1,3]": the commas inside brackets belong to the id */
        if (kind == JOBFILTER_IDS && br != NULL && br < p + len &&
            strchr(br, ']') != NULL)
            len = (size_t)(strchr(br, ']') - p) + 1;
        if (len > 0) {
            char *item = xstrndup(p, len);
            int rc = jf_item(f, kind, item, e);
            free(item);
            if (rc < 0)
                return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

json_t *jobfilter_request(const struct jobfilter *f)
{
    json_t *o = json_object();

    if (f->job_ids != NULL)
        json_object_set(o, "job_ids", f->job_ids);
    if (f->users != NULL)
        json_object_set(o, "users", f->users);
    if (f->partitions != NULL)
        json_object_set(o, "partitions", f->partitions);
    if (f->states != NULL && !f->all_states)
        json_object_set(o, "states", f->states);
    if (f->names != NULL)
        json_object_set(o, "names", f->names);
    if (f->nodes != NULL)
        json_object_set(o, "nodes", f->nodes);
    return o;
}

/* Whether list (strings) holds s; an empty list holds everything. */
static bool jf_has_str(json_t *list, const char *s)
{
    size_t i;
    json_t *v;

    if (json_array_size(list) == 0)
        return true;
    json_array_foreach(list, i, v)
    {
        if (json_is_string(v) && s != NULL &&
            strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool jf_match_user(json_t *users, json_t *job)
{
    size_t i;
    json_t *v;

    if (json_array_size(users) == 0)
        return true;
    json_array_foreach(users, i, v)
    {
        if (json_is_integer(v) &&
            json_integer_value(v) == jobview_int(job, "user_id", -1))
            return true;
        if (json_is_string(v) && strcmp(json_string_value(v),
                                        jobview_str(job, "user_name", "")) == 0)
            return true;
    }
    return false;
}

/* Whether job is among the tasks ref ("123_[1-3]") names. */
static bool jf_match_tasks(const char *ref, json_t *job)
{
    const char *us = strchr(ref, '_') + 1, *pend;
    long long task = jobview_int(job, "array_task_id", -1);
    size_t len = strlen(us);
    struct arrayset want, have;
    char *tasks;
    bool hit = false;

    if (strtoll(ref, NULL, 10) != jobview_int(job, "array_job_id", -1))
        return false;
    if (len >= 2 && us[0] == '[' && us[len - 1] == ']')
        tasks = xstrndup(us + 1, len - 2);
    else
        tasks = xstrdup(us);
    if (arrayset_parse(tasks, ARRAYSPEC_MAX_SIZE, &want, NULL) < 0) {
        free(tasks);
        return false;
    }
    free(tasks);
    pend = jobview_str(job, "array_task_str", NULL);
    if (task >= 0) {
        hit = arrayset_has(&want, (uint32_t)task);
    } else if (pend != NULL &&
               arrayset_parse(
                   pend, (uint32_t)jobview_int(job, "array_task_max", 0) + 1,
                   &have, NULL) == 0) {
        for (int64_t t = arrayset_next(&have, 0); t >= 0 && !hit;
             t = arrayset_next(&have, (uint32_t)t + 1))
            hit = arrayset_has(&want, (uint32_t)t);
        arrayset_clear(&have);
    }
    arrayset_clear(&want);
    return hit;
}

static bool jf_match_ids(json_t *ids, json_t *job)
{
    size_t i;
    json_t *v;

    if (json_array_size(ids) == 0)
        return true;
    json_array_foreach(ids, i, v)
    {
        if (json_is_string(v)
                ? jf_match_tasks(json_string_value(v), job)
                : json_integer_value(v) == jobview_int(job, "job_id", -1) ||
                      json_integer_value(v) ==
                          jobview_int(job, "array_job_id", -1))
            return true;
    }
    return false;
}

/* Whether any of nodes is among the job's nodes. */
static bool jf_match_nodes(json_t *nodes, json_t *job)
{
    const char *expr = jobview_str(job, "node_list", "");
    struct hostlist *hl;
    bool found = false;
    size_t i;
    json_t *v;

    if (json_array_size(nodes) == 0)
        return true;
    if (expr[0] == '\0' || (hl = hostlist_expand(expr, NULL)) == NULL)
        return false;
    json_array_foreach(nodes, i, v)
    {
        if (json_is_string(v) && hostlist_find(hl, json_string_value(v)) >= 0)
            found = true;
    }
    hostlist_destroy(hl);
    return found;
}

bool jobfilter_match(const struct jobfilter *f, json_t *job)
{
    return jf_match_ids(f->job_ids, job) && jf_match_user(f->users, job) &&
           jf_has_str(f->partitions, jobview_str(job, "partition", NULL)) &&
           (f->all_states ||
            jf_has_str(f->states, jobview_str(job, "job_state", NULL))) &&
           jf_has_str(f->names, jobview_str(job, "name", NULL)) &&
           jf_match_nodes(f->nodes, job);
}
