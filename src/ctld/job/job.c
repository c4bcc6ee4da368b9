/*
 * Job states and reasons by Slurm's names, and the JOB object both ways:
 * out for queries and persistence, back in when the controller restarts.
 */
#include "ctld/job/job.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ctld/job/jobgpu.h"
#include "ctld/job/jobopts.h"
#include "sched/limits.h"

static const struct {
    const char *name;
    const char *abbrev;
} state_names[JOB_STATE_COUNT] = {
    [JOB_PENDING] = {"PENDING", "PD"},
    [JOB_RUNNING] = {"RUNNING", "R"},
    [JOB_COMPLETING] = {"COMPLETING", "CG"},
    [JOB_COMPLETED] = {"COMPLETED", "CD"},
    [JOB_FAILED] = {"FAILED", "F"},
    [JOB_CANCELLED] = {"CANCELLED", "CA"},
    [JOB_TIMEOUT] = {"TIMEOUT", "TO"},
    [JOB_NODE_FAIL] = {"NODE_FAIL", "NF"},
    [JOB_PREEMPTED] = {"PREEMPTED", "PR"},
    [JOB_BOOT_FAIL] = {"BOOT_FAIL", "BF"},
    [JOB_OUT_OF_MEMORY] = {"OUT_OF_MEMORY", "OOM"},
    [JOB_SUSPENDED] = {"SUSPENDED", "S"},
    [JOB_DEADLINE] = {"DEADLINE", "DL"},
};

const char *job_state_name(enum job_state s)
{
    if ((unsigned)s >= JOB_STATE_COUNT)
        return "UNKNOWN";
    return state_names[s].name;
}

int job_state_parse(const char *s, enum job_state *out)
{
    for (int i = 0; i < JOB_STATE_COUNT; i++) {
        if (strcasecmp(s, state_names[i].name) == 0 ||
            strcasecmp(s, state_names[i].abbrev) == 0) {
            *out = (enum job_state)i;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

bool job_state_final(enum job_state s)
{
    return s != JOB_PENDING && !job_on_node(s);
}

bool job_on_node(enum job_state s)
{
    return s == JOB_RUNNING || s == JOB_COMPLETING || s == JOB_SUSPENDED;
}

int64_t job_suspended_s(const struct job *j, time_t now)
{
    int64_t s = j->suspended_s;

    if (j->state == JOB_SUSPENDED && j->suspend_time > 0 &&
        now > j->suspend_time)
        s += now - j->suspend_time;
    return s;
}

const char *job_reason(const struct job *j)
{
    if (j->reason_text != NULL)
        return j->reason_text;
    return j->reason != NULL ? j->reason : "None";
}

void job_set_reason(struct job *j, const char *reason)
{
    free(j->reason_text);
    j->reason_text = NULL;
    free(j->reason_detail);
    j->reason_detail = NULL;
    j->reason = reason;
}

void job_set_reason_detail(struct job *j, const char *detail)
{
    free(j->reason_detail);
    j->reason_detail = detail ? xstrdup(detail) : NULL;
}

void job_set_reason_text(struct job *j, const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* a cut must not split a character: json_string() would refuse the
     * reason and it would vanish from the job and its stored record */
    utf8_fix(buf);
    free(j->reason_text);
    j->reason_text = xstrdup(buf);
    free(j->reason_detail);
    j->reason_detail = NULL;
}

const char *job_alloc_name(enum job_alloc a)
{
    switch (a) {
    case JOB_ALLOC_SALLOC:
        return "salloc";
    case JOB_ALLOC_SRUN:
        return "srun";
    default:
        return NULL;
    }
}

int job_alloc_parse(const char *s, enum job_alloc *out)
{
    if (strcmp(s, "salloc") == 0)
        *out = JOB_ALLOC_SALLOC;
    else if (strcmp(s, "srun") == 0)
        *out = JOB_ALLOC_SRUN;
    else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

uint64_t job_mem_per_node(const struct job *j)
{
    if (j->mem_mib != 0)
        return j->mem_mib;
    if (j->mem_per_gpu_mib != 0)
        return j->mem_per_gpu_mib * j->gpus_per_node;
    return j->mem_per_cpu_mib * j->cpus_per_node;
}

void job_free(struct job *j)
{
    if (j == NULL)
        return;
    limits_charge_destroy(j->lim_charge);
    free(j->user_name);
    free(j->name);
    free(j->std_out);
    free(j->std_err);
    free(j->open_mode);
    free(j->mail_type);
    free(j->mail_user);
    free(j->get_user_env);
    free(j->propagate);
    free(j->submit_host);
    free(j->submit_dir);
    free(j->work_dir);
    free(j->qos);
    free(j->account);
    free(j->nodelist);
    free(j->exclude);
    free(j->gres);
    free(j->gpus);
    free(j->reservation);
    free(j->req_gpus_per_node);
    free(j->req_gpus_per_task);
    free(j->gpu_type);
    free(j->node_allowed);
    free(j->reason_text);
    free(j->reason_detail);
    free(j->preempted_part);
    free(j->alloc);
    free(j->gpu_alloc);
    free(j->fence_gpus);
    arrayset_clear(j->array_pending);
    free(j->array_pending);
    arrayset_clear(j->dep_ready);
    free(j->dep_ready);
    depend_clear(&j->dep);
    free(j->factors);
    jobopts_clear(&j->opt);
    free(j);
}

bool job_is_array_meta(const struct job *j)
{
    return j->array_pending != NULL;
}

char *job_array_str(const struct job *j)
{
    char *set, *s;

    if (j->array_job_id == 0)
        return xasprintf("%llu", (unsigned long long)j->id);
    if (j->array_pending == NULL)
        return xasprintf("%llu_%lld", (unsigned long long)j->array_job_id,
                         (long long)j->array_task_id);
    set = arrayset_format(j->array_pending);
    if (j->array_throttle > 0)
        s = xasprintf("%llu_[%s%%%u]", (unsigned long long)j->array_job_id, set,
                      j->array_throttle);
    else
        s = xasprintf("%llu_[%s]", (unsigned long long)j->array_job_id, set);
    free(set);
    return s;
}

char *job_alloc_list(const struct job *j, const struct conf *conf)
{
    struct hostlist *hl = hostlist_create();
    char *s;

    for (size_t i = 0; i < j->n_alloc; i++)
        hostlist_push_host(hl, conf->nodes[j->alloc[i]].name);
    hostlist_sort_uniq(hl);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

static json_t *str_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *time_or_null(time_t t)
{
    return t != 0 ? json_integer((json_int_t)t) : json_null();
}

/* Where job_to_json writes: o, the fields of want alone when want (a set
 * of names) is not NULL. */
struct jout {
    json_t *o;
    const json_t *want;
};

static bool wants(const struct jout *w, const char *key)
{
    return w->want == NULL || json_object_get(w->want, key) != NULL;
}

static void set(const struct jout *w, const char *key, json_t *v)
{
    if (wants(w, key))
        json_object_set_new(w->o, key, v);
    else
        json_decref(v);
}

/* The fields w wants of from (what jobgpu_to_json or jobopts_to_json
 * wrote into an object of its own); from is taken. */
static void set_all(const struct jout *w, json_t *from)
{
    const char *k;
    json_t *v;

    json_object_foreach(from, k, v) set(w, k, json_incref(v));
    json_decref(from);
}

static void add_spec_fields(const struct jout *o, const struct job *j,
                            const struct conf *conf)
{
    set(o, "name", json_string(j->name));
    set(o, "partition", json_string(conf->parts[j->part].name));
    set(o, "time_limit_s",
        j->time_limit_s == TIMEFMT_INFINITE ? json_null()
                                            : json_integer(j->time_limit_s));
    set(o, "cpus_per_task", json_integer(j->cpus_per_task));
    set(o, "ntasks", json_integer(j->ntasks));
    set(o, "ntasks_per_node",
        j->ntasks_per_node ? json_integer(j->ntasks_per_node) : json_null());
    set(o, "nodes", json_integer(j->nodes));
    set(o, "mem_mib",
        j->mem_mib ? json_integer((json_int_t)j->mem_mib) : json_null());
    set(o, "mem_per_cpu_mib",
        j->mem_per_cpu_mib ? json_integer((json_int_t)j->mem_per_cpu_mib)
                           : json_null());
    set(o, "std_out", str_or_null(j->std_out));
    set(o, "std_err", str_or_null(j->std_err));
    set(o, "open_mode", str_or_null(j->open_mode));
    set(o, "mail_type", str_or_null(j->mail_type));
    set(o, "mail_user", str_or_null(j->mail_user));
    set(o, "get_user_env",
        j->get_user_env == NULL      ? json_null()
        : j->get_user_env[0] == '\0' ? json_true()
                                     : json_string(j->get_user_env));
    set(o, "propagate", str_or_null(j->propagate));
    set(o, "submit_host", str_or_null(j->submit_host));
    set(o, "submit_dir", str_or_null(j->submit_dir));
    set(o, "work_dir", str_or_null(j->work_dir));
    set(o, "qos", str_or_null(j->qos));
    set(o, "account", str_or_null(j->account));
    set(o, "nodelist", str_or_null(j->nodelist));
    set(o, "exclude", str_or_null(j->exclude));
    set(o, "gres", str_or_null(j->gres));
    set(o, "gpus", str_or_null(j->gpus));
    set(o, "reservation", str_or_null(j->reservation));
    set(o, "hold", json_boolean(j->held_user || j->held_admin));
    set(o, "begin_time", time_or_null(j->begin_time));
}

static void add_array_fields(const struct jout *o, const struct job *j)
{
    char *pend = j->array_pending && wants(o, "array_task_str")
                     ? arrayset_format(j->array_pending)
                     : NULL;
    char *dep =
        j->dep.n && wants(o, "dependency") ? depend_format(&j->dep) : NULL;
    bool arr = j->array_job_id != 0;

    set(o, "array_job_id",
        arr ? json_integer((json_int_t)j->array_job_id) : json_null());
    set(o, "array_task_id",
        arr && j->array_task_id >= 0 ? json_integer(j->array_task_id)
                                     : json_null());
    set(o, "array_task_str", str_or_null(pend));
    set(o, "array_max_tasks", json_integer(j->array_throttle));
    if (arr) {
        set(o, "array_task_count", json_integer(j->array_count));
        set(o, "array_task_min", json_integer(j->array_min));
        set(o, "array_task_max", json_integer(j->array_max));
        set(o, "array_task_step", json_integer(j->array_step));
    }
    set(o, "dependency", str_or_null(dep));
    set(o, "kill_on_invalid_dep", json_boolean(j->kill_invalid_dep));
    free(pend);
    free(dep);
}

/* "alloc" for an allocation, "preempted_by" when known: absent else. */
static void add_alloc_fields(const struct jout *o, const struct job *j)
{
    const char *kind = job_alloc_name(j->alloc_kind);

    if (kind != NULL)
        set(o, "alloc", json_string(kind));
    if (j->preempted_by != 0)
        set(o, "preempted_by",
            json_pack("{s:I, s:s}", "job_id", (json_int_t)j->preempted_by,
                      "partition", j->preempted_part ? j->preempted_part : ""));
}

static json_t *to_json(const struct job *j, const struct conf *conf,
                       bool record, const json_t *want)
{
    const struct jout w = {json_object(), want}, *o = &w;
    char *nl =
        j->n_alloc && wants(o, "node_list") ? job_alloc_list(j, conf) : NULL;
    json_t *sub;

    set(o, "job_id", json_integer((json_int_t)j->id));
    add_spec_fields(o, j, conf);
    set(o, "user_id", json_integer(j->user_id));
    set(o, "user_name", json_string(j->user_name));
    set(o, "group_id", json_integer(j->group_id));
    set(o, "job_state", json_string(job_state_name(j->state)));
    set(o, "state_reason", json_string(job_reason(j)));
    set(o, "state_description", str_or_null(j->reason_detail));
    set(o, "submit_time", time_or_null(j->submit_time));
    set(o, "eligible_time", time_or_null(j->eligible_time));
    /* a pending job's start_time is the scheduler's estimate */
    set(o, "start_time",
        time_or_null(!record && j->state == JOB_PENDING ? j->start_est
                                                        : j->start_time));
    set(o, "end_time", time_or_null(j->end_time));
    set(o, "node_list", str_or_null(nl));
    set(o, "batch_host",
        j->n_alloc ? json_string(conf->nodes[j->alloc[0]].name) : json_null());
    set(o, "exit_code",
        json_pack("{s:i, s:i}", "return_code", j->exit_code, "signal",
                  j->exit_signal));
    set(o, "restart_count", json_integer(j->restart_count));
    set(o, "requeue", json_boolean(j->requeue));
    set(o, "no_kill", json_boolean(j->no_kill));
    set(o, "fence_node",
        j->fenced ? json_string(conf->nodes[j->fence_node].name) : json_null());
    if (j->fenced) {
        json_t *g = json_array();
        for (uint32_t i = 0; i < j->fence_ngpus; i++)
            json_array_append_new(g, json_integer(j->fence_gpus[i]));
        set(o, "fence_hold",
            json_pack("{s:I, s:I, s:o}", "cpus", (json_int_t)j->fence_cpus,
                      "mem_mib", (json_int_t)j->fence_mem_mib, "gpus", g));
    }
    set(o, "last_checkpoint", time_or_null(j->last_checkpoint));
    set(o, "suspend_time",
        time_or_null(j->state == JOB_SUSPENDED ? j->suspend_time : 0));
    set(o, "suspended_s",
        json_integer(record ? j->suspended_s : job_suspended_s(j, time(NULL))));
    set(o, "cancelled_by",
        j->cancel_uid >= 0 ? json_integer(j->cancel_uid) : json_null());
    set(o, "warn_signal",
        j->warn_signal ? json_integer(j->warn_signal) : json_null());
    set(o, "warn_time_s", json_integer(j->warn_time_s));
    set(o, "warn_batch", json_boolean(j->warn_batch));
    set(o, "priority", json_integer(j->priority));
    set(o, "nice", json_integer(j->nice));
    set(o, "cpus", json_integer((json_int_t)j->cpus_per_node * j->nodes));
    if (want == NULL) {
        jobgpu_to_json(w.o, j, conf);
    } else {
        jobgpu_to_json(sub = json_object(), j, conf);
        set_all(o, sub);
    }
    add_array_fields(o, j);
    add_alloc_fields(o, j);
    if (want == NULL) {
        jobopts_to_json(w.o, &j->opt);
    } else {
        jobopts_to_json(sub = json_object(), &j->opt);
        set_all(o, sub);
    }
    if (record) {
        set(o, "held_admin", json_boolean(j->held_admin));
        set(o, "part_time_limit", json_boolean(j->part_time_limit));
        set(o, "part_node_limit", json_boolean(j->part_node_limit));
        set(o, "kill", json_integer(j->kill));
        set(o, "requeue_req", json_integer(j->requeue_req));
        set(o, "mail_sent", json_integer(j->mail_sent));
        set(o, "kill_sent", json_boolean(j->kill_sent));
        set(o, "kill_deadline", json_integer((json_int_t)j->kill_deadline));
        set(o, "launched", json_boolean(j->launched));
        set(o, "ntasks_set", json_boolean(j->ntasks_set));
        set(o, "cpus_per_task_set", json_boolean(j->cpus_per_task_set));
        set(o, "warn_sent", json_boolean(j->warn_sent));
        set(o, "priority_fixed", json_boolean(j->prio_fixed));
        set(o, "accrued_s", json_integer(j->accrual.accrued_s));
        set(o, "accrue_since", json_integer(j->accrual.since));
        set(o, "suspend_by", json_integer(j->susp_by));
        set(o, "suspend_for", json_integer((json_int_t)j->susp_for));
    }
    free(nl);
    return w.o;
}

json_t *job_to_json(const struct job *j, const struct conf *conf, bool record)
{
    return to_json(j, conf, record, NULL);
}

json_t *job_to_json_fields(const struct job *j, const struct conf *conf,
                           const json_t *want)
{
    json_t *o = to_json(j, conf, false, want);

    /* job_id always */
    json_object_set_new(o, "job_id", json_integer((json_int_t)j->id));
    return o;
}

/* Readers for records: absent or null keep the default. */
static char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? xstrdup(s) : NULL;
}

static int64_t get_int(json_t *o, const char *key, int64_t dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static int restore_alloc(struct job *j, json_t *o, const struct conf *conf,
                         struct err *e)
{
    const char *nl = json_string_value(json_object_get(o, "node_list"));
    struct hostlist *hl;

    if (nl == NULL || j->state == JOB_PENDING)
        return 0;
    hl = hostlist_expand(nl, e);
    if (hl == NULL)
        return job_state_final(j->state) ? 0 : -1;
    j->alloc = xcalloc(hostlist_count(hl), sizeof(*j->alloc));
    for (size_t i = 0; i < hostlist_count(hl); i++) {
        const struct conf_node *n = conf_node_find(conf, hostlist_nth(hl, i));
        if (n == NULL && job_state_final(j->state))
            continue; /* history: keep the nodes still configured */
        if (n == NULL) {
            hostlist_destroy(hl);
            errno = EINVAL;
            return err_set(e, "node %s is no longer configured",
                           hostlist_nth(hl, i));
        }
        j->alloc[j->n_alloc++] = (size_t)(n - conf->nodes);
    }
    /* the batch host comes first, as at start */
    {
        const char *bh = json_string_value(json_object_get(o, "batch_host"));
        for (size_t i = 1; bh != NULL && i < j->n_alloc; i++) {
            if (strcmp(conf->nodes[j->alloc[i]].name, bh) == 0) {
                size_t t = j->alloc[0];
                j->alloc[0] = j->alloc[i];
                j->alloc[i] = t;
            }
        }
    }
    hostlist_destroy(hl);
    return 0;
}

static void restore_fields(struct job *j, json_t *o)
{
    json_t *ec = json_object_get(o, "exit_code");

    j->name = get_str(o, "name");
    j->user_name = get_str(o, "user_name");
    j->std_out = get_str(o, "std_out");
    j->std_err = get_str(o, "std_err");
    j->open_mode = get_str(o, "open_mode");
    j->mail_type = get_str(o, "mail_type");
    j->mail_user = get_str(o, "mail_user");
    j->get_user_env = json_is_true(json_object_get(o, "get_user_env"))
                          ? xstrdup("")
                          : get_str(o, "get_user_env");
    j->propagate = get_str(o, "propagate");
    j->submit_host = get_str(o, "submit_host");
    j->submit_dir = get_str(o, "submit_dir");
    j->work_dir = get_str(o, "work_dir");
    j->qos = get_str(o, "qos");
    j->account = get_str(o, "account");
    j->nodelist = get_str(o, "nodelist");
    j->exclude = get_str(o, "exclude");
    j->gres = get_str(o, "gres");
    j->gpus = get_str(o, "gpus");
    j->reservation = get_str(o, "reservation");
    j->user_id = (uint32_t)get_int(o, "user_id", 0);
    j->group_id = (uint32_t)get_int(o, "group_id", 0);
    j->time_limit_s = get_int(o, "time_limit_s", TIMEFMT_INFINITE);
    j->cpus_per_task = (uint32_t)get_int(o, "cpus_per_task", 1);
    j->ntasks = (uint32_t)get_int(o, "ntasks", 1);
    j->ntasks_per_node = (uint32_t)get_int(o, "ntasks_per_node", 0);
    j->ntasks_set = json_is_true(json_object_get(o, "ntasks_set"));
    j->cpus_per_task_set =
        json_is_true(json_object_get(o, "cpus_per_task_set"));
    j->nodes = (uint32_t)get_int(o, "nodes", 1);
    j->mem_mib = (uint64_t)get_int(o, "mem_mib", 0);
    j->mem_per_cpu_mib = (uint64_t)get_int(o, "mem_per_cpu_mib", 0);
    j->submit_time = get_int(o, "submit_time", 0);
    j->eligible_time = get_int(o, "eligible_time", 0);
    j->begin_time = get_int(o, "begin_time", 0);
    j->start_time = get_int(o, "start_time", 0);
    j->end_time = get_int(o, "end_time", 0);
    j->priority = (uint32_t)get_int(o, "priority", 1);
    j->prio_fixed = json_is_true(json_object_get(o, "priority_fixed"));
    j->nice = (int32_t)get_int(o, "nice", 0);
    j->accrual.accrued_s = get_int(o, "accrued_s", 0);
    j->accrual.since = get_int(o, "accrue_since", 0);
    j->restart_count = (uint32_t)get_int(o, "restart_count", 0);
    j->requeue = !json_is_false(json_object_get(o, "requeue"));
    j->no_kill = json_is_true(json_object_get(o, "no_kill"));
    j->last_checkpoint = get_int(o, "last_checkpoint", 0);
    j->cancel_uid = get_int(o, "cancelled_by", -1);
    j->suspend_time = get_int(o, "suspend_time", 0);
    j->suspended_s = get_int(o, "suspended_s", 0);
    j->susp_by = (enum job_susp)get_int(o, "suspend_by", JOB_SUSP_NONE);
    j->susp_for = (uint64_t)get_int(o, "suspend_for", 0);
    if (j->susp_by > JOB_SUSP_AUTO)
        j->susp_by = JOB_SUSP_ADMIN;
    j->warn_signal = (int)get_int(o, "warn_signal", 0);
    j->warn_time_s = (uint32_t)get_int(o, "warn_time_s", 0);
    j->warn_batch = json_is_true(json_object_get(o, "warn_batch"));
    j->warn_sent = json_is_true(json_object_get(o, "warn_sent"));
    j->exit_code = (int32_t)get_int(ec, "return_code", 0);
    j->exit_signal = (int32_t)get_int(ec, "signal", 0);
    j->kill = (enum job_kill)get_int(o, "kill", JOB_KILL_NONE);
    j->requeue_req = (uint8_t)get_int(o, "requeue_req", 0);
    j->mail_sent = (uint16_t)get_int(o, "mail_sent", 0);
    j->kill_sent = json_is_true(json_object_get(o, "kill_sent"));
    j->kill_deadline = get_int(o, "kill_deadline", 0);
    /* records older than the field: count the job as launched */
    j->launched = !json_is_false(json_object_get(o, "launched"));
    j->held_admin = json_is_true(json_object_get(o, "held_admin"));
    j->part_time_limit = json_is_true(json_object_get(o, "part_time_limit"));
    j->part_node_limit = json_is_true(json_object_get(o, "part_node_limit"));
    j->held_user = !j->held_admin && json_is_true(json_object_get(o, "hold"));
}

/* A pending job's fence (job.h), by node name: a node no longer
 * configured cannot run anything of the job, so its fence goes. */
static void restore_fence(struct job *j, json_t *o, const struct conf *conf)
{
    const char *name = json_string_value(json_object_get(o, "fence_node"));
    const struct conf_node *n = name ? conf_node_find(conf, name) : NULL;

    json_t *hold = json_object_get(o, "fence_hold");
    json_t *gpus = json_object_get(hold, "gpus"), *v;
    size_t i;

    if (n == NULL || j->state != JOB_PENDING)
        return;
    j->fenced = true;
    j->fence_node = (size_t)(n - conf->nodes);
    /* what its lost run held there (absent in a record of before it was
     * kept: nothing is held then, as before) */
    if (json_integer_value(json_object_get(hold, "cpus")) > 0 &&
        json_integer_value(json_object_get(hold, "cpus")) <= UINT32_MAX)
        j->fence_cpus =
            (uint32_t)json_integer_value(json_object_get(hold, "cpus"));
    if (json_integer_value(json_object_get(hold, "mem_mib")) > 0)
        j->fence_mem_mib =
            (uint64_t)json_integer_value(json_object_get(hold, "mem_mib"));
    if (json_array_size(gpus) > 0 && json_array_size(gpus) <= 1024) {
        j->fence_gpus = xcalloc(json_array_size(gpus), sizeof(uint32_t));
        json_array_foreach(gpus, i, v)
        {
            if (json_is_integer(v) && json_integer_value(v) >= 0 &&
                json_integer_value(v) <= UINT32_MAX)
                j->fence_gpus[j->fence_ngpus++] =
                    (uint32_t)json_integer_value(v);
        }
    }
}

/* An allocation's kind and who preempted the job. */
static void restore_alloc_fields(struct job *j, json_t *o)
{
    const char *kind = json_string_value(json_object_get(o, "alloc"));
    json_t *by = json_object_get(o, "preempted_by");

    if (kind == NULL || job_alloc_parse(kind, &j->alloc_kind) < 0)
        j->alloc_kind = JOB_ALLOC_NONE;
    j->preempted_by = (uint64_t)get_int(by, "job_id", 0);
    if (j->preempted_by != 0)
        j->preempted_part = get_str(by, "partition");
}

/* Array and dependency fields; the dependency state is worked out again
 * by the controller once every job is loaded. */
static int restore_array(struct job *j, json_t *o, struct err *e)
{
    const char *pend = json_string_value(json_object_get(o, "array_task_str"));
    const char *dep = json_string_value(json_object_get(o, "dependency"));

    j->array_job_id = (uint64_t)get_int(o, "array_job_id", 0);
    j->array_task_id = get_int(o, "array_task_id", -1);
    j->array_throttle = (uint32_t)get_int(o, "array_max_tasks", 0);
    j->array_count = (uint32_t)get_int(o, "array_task_count", 0);
    j->array_min = (uint32_t)get_int(o, "array_task_min", 0);
    j->array_max = (uint32_t)get_int(o, "array_task_max", 0);
    j->array_step = (uint32_t)get_int(o, "array_task_step", 1);
    j->kill_invalid_dep =
        json_is_true(json_object_get(o, "kill_on_invalid_dep"));
    if (pend != NULL && j->array_job_id != 0) {
        struct arrayset set;
        if (arrayset_parse(pend, j->array_max + 1, &set, e) < 0)
            return -1;
        j->array_pending = xmalloc(sizeof(*j->array_pending));
        *j->array_pending = set;
    }
    if (dep != NULL && depend_parse(dep, &j->dep, e) < 0)
        return -1;
    j->dep_state = j->dep.n ? DEP_WAIT : DEP_MET;
    return 0;
}

struct job *job_from_json(json_t *o, const struct conf *conf, struct err *e)
{
    struct job *j = xcalloc(1, sizeof(*j));
    const char *part = json_string_value(json_object_get(o, "partition"));
    const char *state = json_string_value(json_object_get(o, "job_state"));
    const char *reason = json_string_value(json_object_get(o, "state_reason"));
    const struct conf_part *cp = part ? conf_part_find(conf, part) : NULL;

    j->id = (uint64_t)get_int(o, "job_id", 0);
    if (j->id == 0 || state == NULL || job_state_parse(state, &j->state) < 0) {
        errno = EINVAL;
        err_set(e, "job record without a valid job_id or job_state");
        goto error;
    }
    if (cp == NULL) {
        errno = EINVAL;
        err_set(e, "job %llu: partition \"%s\" is no longer configured",
                (unsigned long long)j->id, part ? part : "");
        goto error;
    }
    j->part = (size_t)(cp - conf->parts);
    restore_fields(j, o);
    restore_alloc_fields(j, o);
    jobopts_from_json(&j->opt, o);
    if (jobopts_resolve(&j->opt, conf, e) < 0)
        goto error;
    if (j->name == NULL)
        j->name = xstrdup("");
    if (j->user_name == NULL)
        j->user_name = xasprintf("%u", j->user_id);
    if (j->nodes == 0)
        j->nodes = 1;
    j->cpus_per_node =
        (uint32_t)((get_int(o, "cpus", 1) + j->nodes - 1) / j->nodes);
    if (reason != NULL && strcmp(reason, "None") != 0) {
        job_set_reason_text(j, "%s", reason);
        job_set_reason_detail(
            j, json_string_value(json_object_get(o, "state_description")));
    }
    restore_fence(j, o, conf);
    if (restore_alloc(j, o, conf, e) < 0)
        goto error;
    jobgpu_from_json(j, o, conf);
    if (restore_array(j, o, e) < 0)
        goto error;
    return j;
error:
    job_free(j);
    return NULL;
}
