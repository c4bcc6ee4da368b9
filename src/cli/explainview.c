/*
 * sluice explain's text (see explainview.h).  Every line comes from one
 * field of the EXPLAIN object; nothing is decided here.
 */
#include "cli/explainview.h"

#include <inttypes.h>
#include <string.h>

#include "cli/fmt.h"

#define GET(o, k) json_object_get(o, k)
#define STR(o, k) json_string_value(json_object_get(o, k)) /* or NULL */
#define TXT(o, k) txt(json_object_get(o, k))               /* or "?" */
#define INT(o, k) json_integer_value(json_object_get(o, k))

/* A field that should be a string; a reply without it still prints. */
static const char *txt(json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "?";
}

static const char *when(json_t *v, time_t now, char *buf, size_t len)
{
    char t[FMT_BUFLEN], d[FMT_BUFLEN];
    time_t at = (time_t)json_integer_value(v);

    if (!json_is_integer(v) || at <= 0)
        return "unknown";
    fmt_time(at, "unknown", t, sizeof(t));
    if (at > now)
        snprintf(buf, len, "%s (in %s)", t,
                 fmt_duration(at - now, "", d, sizeof(d)));
    else
        snprintf(buf, len, "%s", t);
    return buf;
}

static const char *limit_str(json_t *v, char *buf, size_t len)
{
    if (!json_is_integer(v))
        return "UNLIMITED";
    return fmt_hms(json_integer_value(v), buf, len);
}

/* "4 CPUs, 8000M memory, 2 GPUs" of an amount object. */
static const char *amount(json_t *a, char *buf, size_t len)
{
    char m[FMT_BUFLEN];
    size_t off = 0;
    int k;

    buf[0] = '\0';
    if (INT(a, "cpus") > 0) {
        k = snprintf(buf, len, "%" PRId64 " CPU%s", (int64_t)INT(a, "cpus"),
                     INT(a, "cpus") == 1 ? "" : "s");
        off = k > 0 ? (size_t)k : 0;
    }
    if (INT(a, "mem_mib") > 0 && off < len) {
        k = snprintf(buf + off, len - off, "%s%s memory", off ? ", " : "",
                     fmt_mem((uint64_t)INT(a, "mem_mib"), m, sizeof(m)));
        off += k > 0 ? (size_t)k : 0;
    }
    if (INT(a, "gpus") > 0 && off < len)
        snprintf(buf + off, len - off, "%s%" PRId64 " GPU%s", off ? ", " : "",
                 (int64_t)INT(a, "gpus"), INT(a, "gpus") == 1 ? "" : "s");
    return buf;
}

static void header(FILE *fp, json_t *o)
{
    char lim[FMT_BUFLEN], m[FMT_BUFLEN];

    fprintf(fp, "Job %" PRId64 " (%s, user %s) is %s in partition %s",
            (int64_t)INT(o, "job_id"), TXT(o, "name"), TXT(o, "user_name"),
            TXT(o, "job_state"), TXT(o, "partition"));
    if (strcmp(TXT(o, "job_state"), "PENDING") == 0)
        fprintf(fp, ": %s", TXT(o, "state_reason"));
    fprintf(fp, "\n  asks for %" PRId64 " node%s with %" PRId64 " CPU(s)",
            (int64_t)INT(o, "num_nodes"), INT(o, "num_nodes") == 1 ? "" : "s",
            (int64_t)INT(o, "cpus_per_node"));
    if (INT(o, "mem_per_node_mib") > 0)
        fprintf(fp, ", %s memory",
                fmt_mem((uint64_t)INT(o, "mem_per_node_mib"), m, sizeof(m)));
    if (INT(o, "gpus_per_node") > 0)
        fprintf(fp, ", %" PRId64 " GPU%s", (int64_t)INT(o, "gpus_per_node"),
                INT(o, "gpus_per_node") == 1 ? "" : "s");
    fprintf(fp, "%s; time limit %s\n", INT(o, "num_nodes") == 1 ? "" : " each",
            limit_str(GET(o, "time_limit_s"), lim, sizeof(lim)));
}

static void started(FILE *fp, json_t *o, time_t now)
{
    char a[96], b[96];

    if (GET(o, "end_time") != NULL) {
        json_t *ec = GET(o, "exit_code");
        fprintf(fp,
                "  ran on %s from %s, ended %s (exit code %" PRId64 ":%" PRId64
                ")\n",
                STR(o, "node_list") ? STR(o, "node_list") : "no node",
                when(GET(o, "start_time"), now, a, sizeof(a)),
                when(GET(o, "end_time"), now, b, sizeof(b)),
                (int64_t)INT(ec, "return_code"), (int64_t)INT(ec, "signal"));
        return;
    }
    fprintf(fp, "  on %s since %s", TXT(o, "node_list"),
            when(GET(o, "start_time"), now, a, sizeof(a)));
    if (json_is_integer(GET(o, "end_time_est")))
        fprintf(fp, "; its time limit ends it by %s",
                when(GET(o, "end_time_est"), now, b, sizeof(b)));
    fputc('\n', fp);
}

static void node_line(FILE *fp, json_t *n, time_t now)
{
    const char *st = TXT(n, "status"), *why = STR(n, "reason");
    char a[128], b[128];

    fprintf(fp, "    %-10s ", TXT(n, "name"));
    if (strcmp(st, "busy") == 0) {
        fprintf(fp, "busy: lacks %s (free %s)",
                amount(GET(n, "lacks"), a, sizeof(a)),
                amount(GET(n, "free"), b, sizeof(b))[0] ? b : "nothing");
        if (json_is_integer(GET(n, "until")))
            fprintf(fp, "; enough free %s when job %" PRId64 " ends",
                    when(GET(n, "until"), now, a, sizeof(a)),
                    (int64_t)INT(n, "until_job"));
        else if (json_is_integer(GET(n, "no_time_limit_job")))
            fprintf(fp,
                    "; not before job %" PRId64 " ends (it has no time "
                    "limit)",
                    (int64_t)INT(n, "no_time_limit_job"));
    } else if (strcmp(st, "fits") == 0) {
        fprintf(fp, "has room now (free %s)",
                amount(GET(n, "free"), a, sizeof(a)));
    } else if (strcmp(st, "down") == 0 || strcmp(st, "drained") == 0) {
        fprintf(fp, "%s%s%s", TXT(n, "state"), why ? ": " : "", why ? why : "");
    } else if (strcmp(st, "too_small") == 0) {
        fprintf(fp, "too small: has only %s",
                amount(GET(n, "configured"), a, sizeof(a)));
    } else if (strcmp(st, "excluded") == 0) {
        fprintf(fp, "excluded by -x/--exclude");
    } else if (strcmp(st, "reserved") == 0) {
        fprintf(fp, "held by reservation %s (docs/reservations.md)",
                TXT(n, "reservation"));
    } else if (strcmp(st, "not_requested") == 0) {
        fprintf(fp, "not among the -w/--nodelist nodes");
    } else if (strcmp(st, "unsuitable") == 0) {
        fprintf(fp, "does not meet the job's needs: %s", TXT(n, "why"));
    } else if (strcmp(st, "not_in_partition") == 0) {
        fprintf(fp, "asked for with -w but not in partition");
    } else {
        fprintf(fp, "%s", st);
    }
    fputc('\n', fp);
}

static void queue(FILE *fp, json_t *q)
{
    json_t *a = GET(q, "ahead"), *v;
    size_t i;

    if (INT(q, "ahead_count") == 0) {
        fprintf(fp, "  queue: first in line in its partition\n");
        return;
    }
    fprintf(fp, "  queue: number %" PRId64 " in its partition; ahead:",
            (int64_t)INT(q, "rank"));
    json_array_foreach(a, i, v)
    {
        fprintf(fp, "%s job %" PRId64 " (priority %" PRId64 ", %s)",
                i ? "," : "", (int64_t)INT(v, "job_id"),
                (int64_t)INT(v, "priority"), TXT(v, "reason"));
    }
    if ((size_t)INT(q, "ahead_count") > json_array_size(a))
        fprintf(fp, " and %" PRId64 " more",
                (int64_t)(INT(q, "ahead_count") - (int64_t)json_array_size(a)));
    fputc('\n', fp);
}

static void suggestion(FILE *fp, json_t *o, json_t *s)
{
    const char *k = TXT(s, "kind");
    char lim[FMT_BUFLEN];
    int64_t id = (int64_t)INT(o, "job_id");

    if (strcmp(k, "time_limit") == 0) {
        limit_str(GET(s, "time_limit_s"), lim, sizeof(lim));
        if (json_is_true(GET(s, "would_start")))
            fprintf(fp,
                    "    - with a time limit of %s or less it would start "
                    "now: scontrol update JobId=%" PRId64 " TimeLimit=%s\n",
                    lim, id, lim);
        else
            fprintf(fp,
                    "    - its time limit must be at most %s to be "
                    "considered: scontrol update JobId=%" PRId64
                    " TimeLimit=%s\n",
                    lim, id, lim);
    } else if (strcmp(k, "partition") == 0) {
        fprintf(fp,
                "    - partition %s has room now (on %s): scontrol update "
                "JobId=%" PRId64 " Partition=%s\n",
                TXT(s, "partition"), TXT(s, "node_list"), id,
                TXT(s, "partition"));
    } else if (strcmp(k, "limit") == 0) {
        fprintf(fp,
                "    - the limit %s is the only obstacle: without it the "
                "job would start now\n",
                TXT(s, "reason"));
    } else if (strcmp(k, "resume_node") == 0) {
        fprintf(fp,
                "    - it would start on %s if that node were resumed "
                "(%s%s%s)\n",
                TXT(s, "node"), TXT(s, "state"), STR(s, "reason") ? ": " : "",
                STR(s, "reason") ? STR(s, "reason") : "");
    } else if (strcmp(k, "release") == 0) {
        fprintf(fp, "    - release it: scontrol release %" PRId64 "%s\n", id,
                strcmp(TXT(s, "by"), "admin") == 0 ? " (an administrator)"
                                                   : "");
    }
}

/* "afterok:12 (job 12 RUNNING), singleton" */
static void dep_line(FILE *fp, json_t *d)
{
    json_t *v;
    size_t i;
    const char *st = TXT(d, "state");

    fprintf(fp, "  dependency %s: %s", TXT(d, "expression"),
            strcmp(st, "met") == 0     ? "met"
            : strcmp(st, "never") == 0 ? "can never be satisfied"
                                       : "waiting");
    json_array_foreach(GET(d, "on"), i, v)
    {
        if (!json_is_integer(GET(v, "job_id")))
            continue;
        fprintf(fp, "%s %s on job %" PRId64, i ? "," : ";", TXT(v, "type"),
                (int64_t)INT(v, "job_id"));
        if (json_is_integer(GET(v, "task")))
            fprintf(fp, "_%" PRId64, (int64_t)INT(v, "task"));
        fprintf(fp, " (%s)",
                STR(v, "job_state") ? STR(v, "job_state") : "gone");
    }
    fputc('\n', fp);
}

static void gates(FILE *fp, json_t *o, time_t now)
{
    json_t *pl = GET(o, "partition_limit"), *lim = GET(o, "limit");
    char a[96], b[FMT_BUFLEN];

    if (STR(o, "held"))
        fprintf(fp, "  held by %s\n",
                strcmp(TXT(o, "held"), "admin") == 0 ? "an administrator"
                                                     : "its user");
    if (json_is_object(GET(o, "dependency")))
        dep_line(fp, GET(o, "dependency"));
    if (STR(o, "fence_node"))
        fprintf(fp,
                "  requeued after a node failure: waits for %s to confirm "
                "that its last run is gone (or for an operator to set %s "
                "DOWN)\n",
                TXT(o, "fence_node"), TXT(o, "fence_node"));
    if (json_is_integer(GET(o, "begin_time")))
        fprintf(fp, "  may not begin before %s\n",
                when(GET(o, "begin_time"), now, a, sizeof(a)));
    if (STR(o, "partition_state") && strcmp(STR(o, "partition_state"), "UP"))
        fprintf(fp, "  partition %s is %s\n", TXT(o, "partition"),
                TXT(o, "partition_state"));
    if (json_is_object(pl) && GET(pl, "max_time_s") != NULL)
        fprintf(fp, "  its time limit %s is over the partition's MaxTime %s\n",
                limit_str(GET(pl, "time_limit_s"), a, sizeof(a)),
                limit_str(GET(pl, "max_time_s"), b, sizeof(b)));
    else if (json_is_object(pl))
        fprintf(fp,
                "  %" PRId64 " nodes is outside the partition's "
                "MinNodes-MaxNodes\n",
                (int64_t)INT(pl, "nodes"));
    if (json_is_object(lim))
        fprintf(fp, "  limit: %s\n",
                STR(lim, "detail") ? STR(lim, "detail") : TXT(lim, "reason"));
}

static void pending(FILE *fp, json_t *o, time_t now)
{
    json_t *np = GET(o, "next_pass"), *v, *s = GET(o, "suggestions");
    char a[96];
    size_t i;

    gates(fp, o, now);
    if (json_array_size(GET(o, "preempting")) > 0) {
        fprintf(fp, "  preempting for it:");
        json_array_foreach(GET(o, "preempting"), i, v)
        {
            fprintf(fp, "%s job %" PRId64, i ? "," : "",
                    (int64_t)json_integer_value(v));
        }
        fprintf(fp, "; it starts as soon as they have ended\n");
    }
    if (json_is_true(GET(np, "would_start")))
        fprintf(fp, "  it would start at the next pass on %s\n",
                TXT(np, "node_list"));
    fprintf(fp, "  nodes:\n");
    json_array_foreach(GET(o, "nodes"), i, v) node_line(fp, v, now);
    if (json_is_object(GET(o, "queue")))
        queue(fp, GET(o, "queue"));
    if (json_is_integer(GET(o, "estimated_start")))
        fprintf(fp, "  estimated start: %s\n",
                when(GET(o, "estimated_start"), now, a, sizeof(a)));
    else
        fprintf(fp, "  estimated start: no estimate%s\n",
                json_array_size(GET(o, "preempting")) > 0
                    ? " (when the preempted jobs have ended)"
                : json_is_true(GET(o, "backfill"))
                    ? " (no backfill reservation for it)"
                    : " (SchedulerType=sched/builtin makes none)");
    if (json_array_size(s) > 0) {
        fprintf(fp, "  it would start sooner:\n");
        json_array_foreach(s, i, v) suggestion(fp, o, v);
    }
    if (json_is_false(GET(o, "suggestions_complete")))
        fprintf(fp, "  (the search for what would help was cut short: the "
                    "queue is long)\n");
}

void explainview_print(FILE *fp, json_t *o, time_t now)
{
    header(fp, o);
    if (strcmp(TXT(o, "job_state"), "PENDING") == 0)
        pending(fp, o, now);
    else
        started(fp, o, now);
}
