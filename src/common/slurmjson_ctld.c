/*
 * The controller's other objects in slurmrestd's v0.0.38 shapes
 * (slurmjson.h): a reservation (RESV) as v0.0.38_reservation, and the
 * scheduler's statistics (SCHED_DIAG) with the jobs' counts as
 * v0.0.38_diag's "statistics".
 */
#include <stdbool.h>
#include <string.h>

#include "common/slurmjson.h"
#include "common/slurmjson_int.h"

json_t *slurmjson_comma_list(const char *s)
{
    json_t *out = json_array();

    while (s != NULL && *s != '\0') {
        size_t len = strcspn(s, ",");
        if (len > 0)
            json_array_append_new(out, json_stringn(s, len));
        s += len;
        if (*s == ',')
            s++;
    }
    return out;
}

json_t *slurmjson_reservation(json_t *resv)
{
    json_t *s = json_object(), *v;
    static const char *const own[] = {"state", "duration_s", NULL};

    for (size_t i = 0; own[i] != NULL; i++)
        if ((v = json_object_get(resv, own[i])) != NULL)
            json_object_set(s, own[i], v);
    return json_pack(
        "{s:o, s:s, s:I, s:i, s:I, s:s, s:o, s:s, s:s, s:i, s:o, s:I, s:o,"
        " s:o, s:{s:i}, s:I, s:i, s:o, s:o, s:o}",
        "accounts", jstr(resv, "accounts"), "burst_buffer", "", "core_count",
        int_of(resv, "core_count", 0), "core_spec_cnt", 0, "end_time",
        int_of(resv, "end_time", 0), "features", "", "flags",
        slurmjson_comma_list(str_of(resv, "flags")), "groups", "", "licenses",
        "", "max_start_delay", 0, "name", jstr(resv, "name"), "node_count",
        int_of(resv, "node_count", 0), "node_list", jstr(resv, "nodes"),
        "partition", jstr(resv, "partition"), "purge_completed", "time", 0,
        "start_time", int_of(resv, "start_time", 0), "watts", 0, "tres",
        jstr(resv, "tres"), "users", jstr(resv, "users"), "sluice", s);
}

/* Whether state is one of the comma list. */
static bool state_in(const char *state, const char *list)
{
    size_t n = strlen(state);

    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, state, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

void slurmjson_diag_count(struct slurmjson_jobcount *c, json_t *job,
                          time_t since)
{
    const char *st = str_of(job, "job_state");
    bool ended_since = int_of(job, "end_time", 0) >= (json_int_t)since;

    if (st == NULL)
        return;
    if (int_of(job, "submit_time", 0) >= (json_int_t)since)
        c->submitted++;
    if (strcmp(st, "PENDING") == 0)
        c->pending++;
    else if (state_in(st, "RUNNING,SUSPENDED,COMPLETING"))
        c->running++;
    else if (ended_since && strcmp(st, "COMPLETED") == 0)
        c->completed++;
    else if (ended_since && strcmp(st, "CANCELLED") == 0)
        c->canceled++;
    else if (ended_since)
        c->failed++; /* FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ... */
}

json_t *slurmjson_diag(json_t *diag, const struct slurmjson_jobcount *c)
{
    json_t *m = json_object_get(diag, "main");
    json_t *b = json_object_get(diag, "backfill");
    json_int_t now = int_of(diag, "now", 0), since = int_of(diag, "since", 0);
    json_int_t passes = int_of(m, "passes", 0);
    json_int_t mins = now > since ? (now - since + 59) / 60 : 1;
    const char *bf = str_of(diag, "backfill_state");
    json_t *o = json_object();

#define SET(k, v) json_object_set_new(o, k, json_integer(v))
    SET("parts_packed", 0);
    SET("req_time", now);
    SET("req_time_start", since);
    SET("server_thread_count", 1);
    SET("agent_queue_size", 0);
    SET("agent_count", 0);
    SET("agent_thread_count", 0);
    SET("dbd_agent_queue_size", 0);
    SET("gettimeofday_latency", 0);
    SET("schedule_cycle_max", int_of(m, "max_us", 0));
    SET("schedule_cycle_last", int_of(m, "last_us", 0));
    SET("schedule_cycle_total", passes);
    SET("schedule_cycle_mean",
        (json_int_t)json_number_value(json_object_get(m, "mean_us")));
    SET("schedule_cycle_mean_depth", 0);
    SET("schedule_cycle_per_minute", passes / (mins > 0 ? mins : 1));
    SET("schedule_queue_length", int_of(m, "queue_length", 0));
    SET("jobs_submitted", c->submitted);
    SET("jobs_started", int_of(m, "jobs_started", 0));
    SET("jobs_completed", c->completed);
    SET("jobs_canceled", c->canceled);
    SET("jobs_failed", c->failed);
    SET("jobs_pending", c->pending);
    SET("jobs_running", c->running);
    SET("job_states_ts", now);
    SET("bf_backfilled_jobs", int_of(b, "jobs_backfilled", 0));
    SET("bf_last_backfilled_jobs", 0);
    SET("bf_backfilled_het_jobs", 0);
    SET("bf_cycle_counter", int_of(b, "cycles", 0));
    SET("bf_cycle_mean",
        (json_int_t)json_number_value(json_object_get(b, "mean_cycle_us")));
    SET("bf_cycle_max", int_of(b, "max_cycle_us", 0));
    SET("bf_last_depth", int_of(b, "last_depth", 0));
    SET("bf_last_depth_try", 0);
    SET("bf_depth_mean", 0);
    SET("bf_depth_mean_try", 0);
    SET("bf_cycle_last", int_of(b, "last_cycle_us", 0));
    SET("bf_queue_len", 0);
    SET("bf_queue_len_mean", 0);
    SET("bf_when_last_cycle", int_of(b, "last_cycle_time", 0));
#undef SET
    json_object_set_new(o, "bf_active",
                        json_boolean(bf != NULL && strcmp(bf, "running") == 0));
    json_object_set_new(o, "sluice",
                        json_is_object(diag) ? json_deep_copy(diag)
                                             : json_object());
    return o;
}
