/*
 * scontrol show's layout: Key=Value pairs, several to a line, the lines
 * after the first indented three spaces.  Fields Sluice does not have are
 * left out rather than shown with made-up values.
 */
#include "cli/showview.h"

#include <grp.h>
#include <stdarg.h>
#include <string.h>

#include "cli/fmt.h"
#include "cli/jobview.h"

struct kv {
    FILE *fp;
    bool oneliner;
    bool at_start; /* nothing printed yet */
    bool new_line; /* the next pair starts a line */
};

static void kv_line(struct kv *k)
{
    k->new_line = true;
}

static void kv(struct kv *k, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void kv(struct kv *k, const char *key, const char *fmt, ...)
{
    va_list ap;

    if (!k->at_start)
        fputs(k->new_line && !k->oneliner ? "\n   " : " ", k->fp);
    k->at_start = false;
    k->new_line = false;
    fprintf(k->fp, "%s=", key);
    va_start(ap, fmt);
    vfprintf(k->fp, fmt, ap);
    va_end(ap);
}

static void kv_end(struct kv *k)
{
    fputc('\n', k->fp);
}

/* A JOB string field, "(null)" when unset, as scontrol prints it. */
static const char *js(json_t *job, const char *key)
{
    const char *s = jobview_str(job, key, NULL);

    return s != NULL && s[0] != '\0' ? s : "(null)";
}

static const char *jtime(json_t *o, const char *key, char *buf, size_t len)
{
    return fmt_time((time_t)jobview_int(o, key, 0), "Unknown", buf, len);
}

static const char *jlimit(long long secs, char *buf, size_t len)
{
    if (secs < 0)
        return "UNLIMITED";
    return fmt_hms(secs, buf, len);
}

char *showview_stdpath(json_t *job, const char *pattern, char *buf, size_t len)
{
    const char *wd = jobview_str(job, "work_dir", "");
    size_t n = 0;

    buf[0] = '\0';
    if (pattern == NULL || pattern[0] == '\0')
        pattern = "slurm-%j.out";
    if (pattern[0] != '/' && wd[0] != '\0')
        n = (size_t)snprintf(buf, len, "%s/", wd);
    for (const char *p = pattern; *p != '\0' && n + 1 < len; p++) {
        const char *s = NULL;
        char num[32];
        if (p[0] == '%' && p[1] != '\0') {
            switch (*++p) {
            case 'j':
            case 'A':
                snprintf(num, sizeof(num), "%lld",
                         jobview_int(job, "job_id", 0));
                s = num;
                break;
            case 'x':
                s = jobview_str(job, "name", "");
                break;
            case 'u':
                s = jobview_str(job, "user_name", "");
                break;
            case 'N':
                s = jobview_str(job, "batch_host", "");
                break;
            case '%':
                s = "%";
                break;
            default:
                snprintf(num, sizeof(num), "%%%c", *p);
                s = num;
            }
            n += (size_t)snprintf(buf + n, len - n, "%s", s);
        } else {
            buf[n++] = *p;
            buf[n] = '\0';
        }
    }
    return buf;
}

static void job_ids(struct kv *k, json_t *job)
{
    long long uid = jobview_int(job, "user_id", -1);
    long long gid = jobview_int(job, "group_id", -1);
    struct group *g = gid >= 0 ? getgrgid((gid_t)gid) : NULL;

    kv(k, "JobId", "%lld", jobview_int(job, "job_id", 0));
    if (jobview_int(job, "array_job_id", 0) > 0) {
        long long t = jobview_int(job, "array_task_id", -1);
        kv(k, "ArrayJobId", "%lld", jobview_int(job, "array_job_id", 0));
        if (t >= 0)
            kv(k, "ArrayTaskId", "%lld", t);
        else
            kv(k, "ArrayTaskId", "%s", js(job, "array_task_str"));
        if (jobview_int(job, "array_max_tasks", 0) > 0)
            kv(k, "ArrayTaskThrottle", "%lld",
               jobview_int(job, "array_max_tasks", 0));
    }
    kv(k, "JobName", "%s", js(job, "name"));
    kv_line(k);
    kv(k, "UserId", "%s(%lld)", jobview_str(job, "user_name", "?"), uid);
    kv(k, "GroupId", "%s(%lld)", g ? g->gr_name : "?", gid);
    kv_line(k);
    kv(k, "Priority", "%lld", jobview_int(job, "priority", 0));
    kv(k, "Nice", "%lld", jobview_int(job, "nice", 0));
    kv(k, "Account", "%s", js(job, "account"));
    kv(k, "QOS", "%s", jobview_str(job, "qos", "normal"));
    kv_line(k);
    kv(k, "JobState", "%s", jobview_str(job, "job_state", "UNKNOWN"));
    /* the long form, naming unavailable nodes and why, when there is one */
    kv(k, "Reason", "%s",
       jobview_str(job, "state_description",
                   jobview_str(job, "state_reason", "None")));
    kv(k, "Dependency", "%s", js(job, "dependency"));
    kv_line(k);
    kv(k, "Restarts", "%lld", jobview_int(job, "restart_count", 0));
    kv(k, "BatchFlag", "1");
    kv(k, "ExitCode", "%lld:%lld",
       (long long)json_integer_value(
           json_object_get(json_object_get(job, "exit_code"), "return_code")),
       (long long)json_integer_value(
           json_object_get(json_object_get(job, "exit_code"), "signal")));
}

static void job_times(struct kv *k, json_t *job, time_t now)
{
    char b[FMT_BUFLEN];

    kv_line(k);
    kv(k, "RunTime", "%s", fmt_hms(jobview_elapsed(job, now), b, sizeof(b)));
    kv(k, "TimeLimit", "%s",
       jlimit(jobview_int(job, "time_limit_s", -1), b, sizeof(b)));
    kv_line(k);
    kv(k, "SubmitTime", "%s", jtime(job, "submit_time", b, sizeof(b)));
    kv(k, "EligibleTime", "%s", jtime(job, "eligible_time", b, sizeof(b)));
    kv_line(k);
    kv(k, "StartTime", "%s", jtime(job, "start_time", b, sizeof(b)));
    kv(k, "EndTime", "%s", jtime(job, "end_time", b, sizeof(b)));
    if (jobview_int(job, "begin_time", 0) > 0)
        kv(k, "BeginTime", "%s", jtime(job, "begin_time", b, sizeof(b)));
}

/* TRES and, once allocated, the GPU indices on each node (as scontrol
 * show job -d prints them). */
static void job_tres(struct kv *k, json_t *job)
{
    json_t *detail = json_object_get(job, "gres_detail"), *v;
    const char *alloc = jobview_str(job, "tres_alloc_str", NULL);
    const char *per_node = jobview_str(job, "tres_per_node", NULL);
    size_t i;

    kv_line(k);
    kv(k, "ReqTRES", "%s", js(job, "tres_req_str"));
    kv_line(k);
    kv(k, "AllocTRES", "%s", alloc ? alloc : "(null)");
    if (per_node != NULL && jobview_int(job, "cpus_per_gpu", 0) > 0) {
        kv_line(k);
        kv(k, "CpusPerTres", "gres:gpu:%lld",
           jobview_int(job, "cpus_per_gpu", 0));
    }
    if (per_node != NULL && jobview_int(job, "mem_per_gpu_mib", 0) > 0) {
        kv_line(k);
        kv(k, "MemPerTres", "gres:gpu:%lld",
           jobview_int(job, "mem_per_gpu_mib", 0));
    }
    if (json_array_size(detail) == 0)
        return;
    kv_line(k);
    kv(k, "JOB_GRES", "%s", per_node ? per_node + 5 : "(null)");
    json_array_foreach(detail, i, v)
    {
        json_t *alloc_by_node = json_object_get(job, "gpu_alloc");
        const char *node = NULL, *key;
        json_t *x;
        size_t n = 0;
        json_object_foreach(alloc_by_node, key, x)
        {
            if (n++ == i)
                node = key;
        }
        kv_line(k);
        kv(k, "Nodes", "%s", node ? node : "?");
        kv(k, "GRES", "%s", json_string_value(v) ? json_string_value(v) : "");
    }
}

static void job_place(struct kv *k, json_t *job)
{
    char b[FMT_BUFLEN];
    long long mem = jobview_int(job, "mem_mib", -1);
    long long mpc = jobview_int(job, "mem_per_cpu_mib", -1);

    kv_line(k);
    kv(k, "Partition", "%s", js(job, "partition"));
    kv_line(k);
    kv(k, "ReqNodeList", "%s", js(job, "nodelist"));
    kv(k, "ExcNodeList", "%s", js(job, "exclude"));
    kv_line(k);
    kv(k, "NodeList", "%s", js(job, "node_list"));
    if (jobview_str(job, "batch_host", NULL) != NULL) {
        kv_line(k);
        kv(k, "BatchHost", "%s", js(job, "batch_host"));
    }
    kv_line(k);
    kv(k, "NumNodes", "%lld", jobview_int(job, "nodes", 1));
    kv(k, "NumCPUs", "%s",
       jobview_value('C', &(struct jobview_row){job, 0}, b, sizeof(b)));
    kv(k, "NumTasks", "%lld", jobview_int(job, "ntasks", 1));
    kv(k, "CPUs/Task", "%lld", jobview_int(job, "cpus_per_task", 1));
    kv_line(k);
    if (mpc > 0)
        kv(k, "MinMemoryCPU", "%s", fmt_mem((uint64_t)mpc, b, sizeof(b)));
    else
        kv(k, "MinMemoryNode", "%s",
           fmt_mem((uint64_t)(mem > 0 ? mem : 0), b, sizeof(b)));
    job_tres(k, job);
}

static void job_files(struct kv *k, json_t *job)
{
    char b[4096];
    json_t *argv = json_object_get(job, "argv");
    const char *cmd = json_string_value(json_array_get(argv, 0));
    const char *out = jobview_str(job, "std_out", NULL);
    const char *err = jobview_str(job, "std_err", NULL);

    kv_line(k);
    kv(k, "Command", "%s", cmd ? cmd : "(null)");
    kv_line(k);
    kv(k, "WorkDir", "%s", js(job, "work_dir"));
    kv_line(k);
    kv(k, "StdErr", "%s", showview_stdpath(job, err ? err : out, b, sizeof(b)));
    kv_line(k);
    kv(k, "StdIn", "/dev/null");
    kv_line(k);
    kv(k, "StdOut", "%s", showview_stdpath(job, out, b, sizeof(b)));
    if (jobview_str(job, "tres_per_node", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerNode", "%s", jobview_str(job, "tres_per_node", ""));
    } else if (jobview_str(job, "gres", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerNode", "gres:%s", jobview_str(job, "gres", ""));
    }
    if (jobview_str(job, "gpus", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerJob", "gres:gpu:%s", jobview_str(job, "gpus", ""));
    }
    if (jobview_str(job, "gpus_per_task", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerTask", "gres:gpu:%s",
           jobview_str(job, "gpus_per_task", ""));
    }
}

void showview_job(FILE *fp, json_t *job, time_t now, bool oneliner)
{
    struct kv k = {fp, oneliner, true, false};

    job_ids(&k, job);
    job_times(&k, job, now);
    job_place(&k, job);
    job_files(&k, job);
    kv_end(&k);
}

/* "a,b" of a JSON array of strings (or numbers) into buf. */
static const char *jlist(json_t *arr, char *buf, size_t len)
{
    size_t i, n = 0;
    json_t *v;

    buf[0] = '\0';
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v))
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
                                  i ? "," : "", json_string_value(v));
        else if (json_is_integer(v))
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%lld",
                                  i ? "," : "",
                                  (long long)json_integer_value(v));
    }
    return buf[0] != '\0' ? buf : "(null)";
}

/* scontrol's State=: the base state with +DRAIN for drained nodes. */
static const char *node_state(json_t *node)
{
    const char *s = jobview_str(node, "state", "UNKNOWN");
    bool busy = jobview_int(node, "cpus_alloc", 0) > 0;

    if (strcmp(s, "DRAIN") == 0)
        return "IDLE+DRAIN";
    if (strcmp(s, "DRAINING") == 0)
        return busy ? "MIXED+DRAIN" : "IDLE+DRAIN";
    if (strcmp(s, "DOWN") == 0 &&
        strcmp(jobview_str(node, "reason", ""), "Not responding") == 0)
        return "DOWN+NOT_RESPONDING";
    if (json_is_true(json_object_get(node, "maint"))) /* docs/reservations.md */
        return strcmp(s, "IDLE") == 0        ? "IDLE+MAINT"
               : strcmp(s, "MIXED") == 0     ? "MIXED+MAINT"
               : strcmp(s, "ALLOCATED") == 0 ? "ALLOCATED+MAINT"
                                             : s;
    return s;
}

void showview_node(FILE *fp, json_t *node, bool oneliner)
{
    struct kv k = {fp, oneliner, true, false};
    char b[4096];
    const char *reason = jobview_str(node, "reason", "");

    kv(&k, "NodeName", "%s", jobview_str(node, "name", "?"));
    kv_line(&k);
    kv(&k, "CPUAlloc", "%lld", jobview_int(node, "cpus_alloc", 0));
    kv(&k, "CPUTot", "%lld", jobview_int(node, "cpus", 0));
    kv_line(&k);
    kv(&k, "Gres", "%s", js(node, "gres"));
    kv_line(&k);
    kv(&k, "NodeAddr", "%s", js(node, "addr"));
    kv_line(&k);
    kv(&k, "RealMemory", "%lld", jobview_int(node, "mem_mib", 0));
    kv(&k, "AllocMem", "%lld", jobview_int(node, "mem_alloc_mib", 0));
    kv_line(&k);
    kv(&k, "State", "%s", node_state(node));
    kv_line(&k);
    kv(&k, "Partitions", "%s",
       jlist(json_object_get(node, "partitions"), b, sizeof(b)));
    kv_line(&k);
    kv(&k, "BootTime", "%s", jtime(node, "boot_time", b, sizeof(b)));
    kv(&k, "LastSeenTime", "%s", jtime(node, "last_seen", b, sizeof(b)));
    if (jobview_str(node, "tres", NULL) != NULL) {
        kv_line(&k);
        kv(&k, "CfgTRES", "%s", js(node, "tres"));
        kv_line(&k);
        kv(&k, "AllocTRES", "%s", js(node, "tres_used"));
    }
    if (json_array_size(json_object_get(node, "jobs")) > 0) {
        kv_line(&k);
        kv(&k, "Jobs", "%s",
           jlist(json_object_get(node, "jobs"), b, sizeof(b)));
    }
    if (reason[0] != '\0') {
        char t[FMT_BUFLEN];
        kv_line(&k);
        kv(&k, "Reason", "%s [%s@%s]", reason,
           jobview_str(node, "reason_user", "Unknown"),
           jtime(node, "reason_time", t, sizeof(t)));
    }
    kv_end(&k);
}

void showview_part(FILE *fp, json_t *part, bool oneliner)
{
    struct kv k = {fp, oneliner, true, false};
    char b[FMT_BUFLEN];

    kv(&k, "PartitionName", "%s", jobview_str(part, "name", "?"));
    kv_line(&k);
    kv(&k, "Default", "%s",
       json_is_true(json_object_get(part, "default")) ? "YES" : "NO");
    kv_line(&k);
    kv(&k, "DefaultTime", "%s",
       jlimit(jobview_int(part, "default_time_s", -1), b, sizeof(b)));
    kv(&k, "MaxTime", "%s",
       jlimit(jobview_int(part, "max_time_s", -1), b, sizeof(b)));
    kv_line(&k);
    kv(&k, "MaxNodes", "%s",
       json_is_integer(json_object_get(part, "max_nodes"))
           ? (snprintf(b, sizeof(b), "%lld", jobview_int(part, "max_nodes", 0)),
              b)
           : "UNLIMITED");
    kv(&k, "MinNodes", "%lld", jobview_int(part, "min_nodes", 0));
    kv(&k, "ExclusiveUser", "%s",
       json_is_true(json_object_get(part, "exclusive_user")) ? "YES" : "NO");
    kv_line(&k);
    kv(&k, "Nodes", "%s", js(part, "nodes"));
    kv_line(&k);
    kv(&k, "PriorityJobFactor", "%lld",
       jobview_int(part, "priority_job_factor", 1));
    kv(&k, "PriorityTier", "%lld", jobview_int(part, "priority_tier", 1));
    kv_line(&k);
    kv(&k, "QoS", "%s", jobview_str(part, "qos", "N/A"));
    kv(&k, "State", "%s", jobview_str(part, "state", "UP"));
    kv(&k, "TotalCPUs", "%lld", jobview_int(part, "total_cpus", 0));
    kv(&k, "TotalNodes", "%lld", jobview_int(part, "total_nodes", 0));
    kv_end(&k);
}
