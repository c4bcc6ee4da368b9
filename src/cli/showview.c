/*
 * scontrol show's layout (Slurm 22.05's fields, order and line grouping):
 * Key=Value pairs, several to a line, the lines after the first indented
 * three spaces.  Fields Sluice has no notion of print the value Slurm
 * prints for them unset ((null), N/A, 0, *), so that parsers find every
 * key where they look for it.
 */
#include "cli/showview.h"

#include <ctype.h>
#include <grp.h>
#include <stdarg.h>
#include <string.h>

#include "cli/fmt.h"
#include "cli/jobview.h"
#include "common/version.h"

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

/* Slurm keeps time limits in whole minutes, rounding seconds up: a
 * 90-second limit shows as 00:02:00. */
static const char *jlimit_min(long long secs, const char *none, char *buf,
                              size_t len)
{
    if (secs < 0)
        return none;
    return fmt_hms((secs + 59) / 60 * 60, buf, len);
}

char *showview_underscores(const char *s, char *buf, size_t len)
{
    size_t i;

    for (i = 0; s[i] != '\0' && i + 1 < len; i++)
        buf[i] = isspace((unsigned char)s[i]) ? '_' : s[i];
    buf[i] = '\0';
    return buf;
}

static void job_ids(struct kv *k, json_t *job)
{
    long long uid = jobview_int(job, "user_id", -1);
    long long gid = jobview_int(job, "group_id", -1);
    struct group *g = gid >= 0 ? getgrgid((gid_t)gid) : NULL;
    char b[4096];

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
    kv(k, "MCS_label", "N/A");
    kv_line(k);
    /* a held job's priority is 0, as Slurm shows it */
    kv(k, "Priority", "%lld", jobview_priority(job));
    kv(k, "Nice", "%lld", jobview_int(job, "nice", 0));
    kv(k, "Account", "%s", js(job, "account"));
    kv(k, "QOS", "%s", jobview_str(job, "qos", "normal"));
    if (jobview_str(job, "wckey", NULL) != NULL)
        kv(k, "WCKey", "%s", js(job, "wckey"));
    kv_line(k);
    kv(k, "JobState", "%s", jobview_str(job, "job_state", "UNKNOWN"));
    /* the long form, naming unavailable nodes and why, when there is
     * one, with its blanks as '_' as Slurm prints it (so that a parser
     * splitting the record at blanks keeps it whole) */
    kv(k, "Reason", "%s",
       showview_underscores(
           jobview_str(job, "state_description",
                       jobview_str(job, "state_reason", "None")),
           b, sizeof(b)));
    kv(k, "Dependency", "%s", jobview_dependency(job, b, sizeof(b)));
}

static void job_exit(struct kv *k, json_t *job, int detail)
{
    json_t *ec = json_object_get(job, "exit_code");
    long long rc =
        (long long)json_integer_value(json_object_get(ec, "return_code"));
    long long sig =
        (long long)json_integer_value(json_object_get(ec, "signal"));
    json_t *rq = json_object_get(job, "requeue");

    kv_line(k);
    kv(k, "Requeue", "%d", json_is_false(rq) ? 0 : 1);
    kv(k, "Restarts", "%lld", jobview_int(job, "restart_count", 0));
    kv(k, "BatchFlag", "%d", jobview_str(job, "alloc", NULL) != NULL ? 0 : 1);
    kv(k, "Reboot", "0");
    kv(k, "ExitCode", "%lld:%lld", rc, sig);
    if (detail > 0) {
        kv_line(k);
        kv(k, "DerivedExitCode", "%lld:%lld", rc, sig);
    }
}

static void job_times(struct kv *k, json_t *job, time_t now)
{
    char b[FMT_BUFLEN];
    long long susp = jobview_int(job, "suspend_time", 0);
    long long eval = jobview_int(job, "last_sched_eval", 0);

    kv_line(k);
    kv(k, "RunTime", "%s", fmt_hms(jobview_elapsed(job, now), b, sizeof(b)));
    kv(k, "TimeLimit", "%s",
       jlimit_min(jobview_int(job, "time_limit_s", -1), "UNLIMITED", b,
                  sizeof(b)));
    kv(k, "TimeMin", "%s",
       jlimit_min(jobview_int(job, "time_min_s", -1), "N/A", b, sizeof(b)));
    kv_line(k);
    kv(k, "SubmitTime", "%s", jtime(job, "submit_time", b, sizeof(b)));
    kv(k, "EligibleTime", "%s", jtime(job, "eligible_time", b, sizeof(b)));
    kv_line(k);
    kv(k, "AccrueTime", "%s", jtime(job, "accrue_since", b, sizeof(b)));
    kv_line(k);
    kv(k, "StartTime", "%s", jtime(job, "start_time", b, sizeof(b)));
    kv(k, "EndTime", "%s", jtime(job, "end_time", b, sizeof(b)));
    kv(k, "Deadline", "%s",
       fmt_time((time_t)jobview_int(job, "deadline", 0), "N/A", b, sizeof(b)));
    kv_line(k);
    kv(k, "SuspendTime", "%s", fmt_time((time_t)susp, "None", b, sizeof(b)));
    kv(k, "SecsPreSuspend", "%lld",
       susp > 0 && jobview_int(job, "start_time", 0) > 0
           ? susp - jobview_int(job, "start_time", 0) -
                 jobview_int(job, "suspended_s", 0)
           : 0);
    if (eval <= 0)
        eval = jobview_int(job, "start_time", 0);
    kv(k, "LastSchedEval", "%s",
       fmt_time((time_t)eval, "Unknown", b, sizeof(b)));
    kv(k, "Scheduler", "%s", jobview_str(job, "scheduler", "Main"));
}

/* TRES (22.05: the allocated ones once allocated, else those asked for)
 * and, once allocated, the GPU indices on each node (what scontrol show
 * job -d prints; shown here always). */
static void job_tres(struct kv *k, json_t *job)
{
    json_t *detail = json_object_get(job, "gres_detail"), *v;
    const char *alloc = jobview_str(job, "tres_alloc_str", NULL);
    const char *per_node = jobview_str(job, "tres_per_node", NULL);
    size_t i;

    kv_line(k);
    kv(k, "TRES", "%s",
       alloc != NULL && alloc[0] != '\0' ? alloc : js(job, "tres_req_str"));
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

/* An integer field as scontrol prints an unset one: "*" (or dflt). */
static const char *jstar(json_t *job, const char *key, const char *dflt,
                         char *buf, size_t len)
{
    long long v = jobview_int(job, key, -1);

    if (v <= 0)
        return dflt;
    snprintf(buf, len, "%lld", v);
    return buf;
}

static void job_shape(struct kv *k, json_t *job)
{
    char b[FMT_BUFLEN], s[FMT_BUFLEN], c[FMT_BUFLEN], t[FMT_BUFLEN];
    long long npn = jobview_int(job, "ntasks_per_node", 0);

    kv_line(k);
    kv(k, "NumNodes", "%lld", jobview_int(job, "nodes", 1));
    kv(k, "NumCPUs", "%s",
       jobview_value('C', &(struct jobview_row){job, 0}, b, sizeof(b)));
    kv(k, "NumTasks", "%lld", jobview_int(job, "ntasks", 1));
    kv(k, "CPUs/Task", "%lld", jobview_int(job, "cpus_per_task", 1));
    kv(k, "ReqB:S:C:T", "0:%s:%s:%s",
       jstar(job, "sockets_per_node", "0", s, sizeof(s)),
       jstar(job, "cores_per_socket", "*", c, sizeof(c)),
       jstar(job, "threads_per_core", "*", t, sizeof(t)));
    job_tres(k, job);
    kv_line(k);
    kv(k, "Socks/Node", "%s",
       jstar(job, "sockets_per_node", "*", s, sizeof(s)));
    kv(k, "NtasksPerN:B:S:C", "%lld:0:*:*", npn > 0 ? npn : 0);
    kv(k, "CoreSpec", "*");
}

static void job_mem(struct kv *k, json_t *job)
{
    char b[FMT_BUFLEN];
    long long mem = jobview_int(job, "mem_mib", -1);
    long long mpc = jobview_int(job, "mem_per_cpu_mib", -1);
    long long npn = jobview_int(job, "ntasks_per_node", 0);
    long long mincpus = jobview_int(job, "mincpus", 0);
    long long per_node =
        jobview_int(job, "cpus_per_task", 1) * (npn > 0 ? npn : 1);

    kv_line(k);
    kv(k, "MinCPUsNode", "%lld", mincpus > per_node ? mincpus : per_node);
    if (mpc > 0)
        kv(k, "MinMemoryCPU", "%s", fmt_mem((uint64_t)mpc, b, sizeof(b)));
    else
        kv(k, "MinMemoryNode", "%s",
           fmt_mem((uint64_t)(mem > 0 ? mem : 0), b, sizeof(b)));
    kv(k, "MinTmpDiskNode", "%s",
       fmt_mem((uint64_t)(jobview_int(job, "tmp_mib", 0) > 0
                              ? jobview_int(job, "tmp_mib", 0)
                              : 0),
               b, sizeof(b)));
    kv_line(k);
    kv(k, "Features", "%s", js(job, "constraint"));
    kv(k, "DelayBoot", "00:00:00");
    kv_line(k);
    kv(k, "OverSubscribe", "%s", jobview_oversubscribe(job));
    kv(k, "Contiguous", "0");
    kv(k, "Licenses", "(null)");
    kv(k, "Network", "(null)");
}

static void job_place(struct kv *k, json_t *job)
{
    kv_line(k);
    kv(k, "Partition", "%s", js(job, "partition"));
    kv(k, "AllocNode:Sid", "%s:%lld", js(job, "submit_host"),
       jobview_int(job, "alloc_sid", 0));
    if (jobview_str(job, "reservation", NULL) != NULL) {
        kv_line(k);
        kv(k, "Reservation", "%s", js(job, "reservation"));
    }
    kv_line(k);
    kv(k, "ReqNodeList", "%s", js(job, "nodelist"));
    kv(k, "ExcNodeList", "%s", js(job, "exclude"));
    kv_line(k);
    kv(k, "NodeList", "%s", js(job, "node_list"));
    if (jobview_str(job, "batch_host", NULL) != NULL) {
        kv_line(k);
        kv(k, "BatchHost", "%s", js(job, "batch_host"));
    }
    job_shape(k, job);
    job_mem(k, job);
}

/* The optional one-per-line TRES requests, in scontrol's order. */
static void job_tres_requests(struct kv *k, json_t *job)
{
    const char *per_node = jobview_str(job, "tres_per_node", NULL);

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
    if (jobview_str(job, "gpus", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerJob", "gres:gpu:%s", jobview_str(job, "gpus", ""));
    }
    if (per_node != NULL) {
        kv_line(k);
        kv(k, "TresPerNode", "%s", per_node);
    } else if (jobview_str(job, "gres", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerNode", "gres:%s", jobview_str(job, "gres", ""));
    }
    if (jobview_str(job, "gpus_per_task", NULL) != NULL) {
        kv_line(k);
        kv(k, "TresPerTask", "gres:gpu:%s",
           jobview_str(job, "gpus_per_task", ""));
    }
}

static void job_files(struct kv *k, json_t *job)
{
    char b[4096];
    json_t *argv = json_object_get(job, "argv");
    const char *cmd = json_string_value(json_array_get(argv, 0));
    const char *out = jobview_str(job, "std_out", NULL);
    const char *err = jobview_str(job, "std_err", NULL);
    const char *in = jobview_str(job, "std_in", NULL);

    kv_line(k);
    kv(k, "Command", "%s", cmd ? cmd : "(null)");
    kv_line(k);
    kv(k, "WorkDir", "%s", js(job, "work_dir"));
    if (jobview_str(job, "comment", NULL) != NULL) {
        kv_line(k);
        kv(k, "Comment", "%s", js(job, "comment"));
    }
    if (jobview_str(job, "alloc", NULL) == NULL) { /* batch jobs only */
        kv_line(k);
        kv(k, "StdErr", "%s",
           showview_stdpath(job, err ? err : out, b, sizeof(b)));
        kv_line(k);
        kv(k, "StdIn", "%s",
           in != NULL ? showview_stdpath(job, in, b, sizeof(b)) : "/dev/null");
        kv_line(k);
        kv(k, "StdOut", "%s", showview_stdpath(job, out, b, sizeof(b)));
    }
    kv_line(k);
    kv(k, "Power", "%s", "");
    job_tres_requests(k, job);
    kv_line(k);
    kv(k, "MailUser", "%s",
       jobview_str(job, "mail_user", jobview_str(job, "user_name", "(null)")));
    kv(k, "MailType", "%s", jobview_str(job, "mail_type", "NONE"));
    if (jobview_int(job, "ntasks_per_gpu", 0) > 0) {
        kv_line(k);
        kv(k, "NtasksPerTRES", "%lld", jobview_int(job, "ntasks_per_gpu", 0));
    }
}

/* -dd: the batch script after the record, as scontrol prints it.  The
 * reply reached us escaped (client.c: a newline is "^J", a tab "^I"):
 * those two are written back, every other control stays visible. */
static void job_script(FILE *fp, json_t *job)
{
    const char *p = jobview_str(job, "batch_script", NULL);
    bool nl = true;

    if (p == NULL)
        return;
    fputs("   BatchScript=\n", fp);
    for (; *p != '\0'; p++) {
        if (p[0] == '^' && (p[1] == 'J' || p[1] == 'I')) {
            fputc(p[1] == 'J' ? '\n' : '\t', fp);
            nl = p[1] == 'J';
            p++;
            continue;
        }
        fputc(*p, fp);
        nl = false;
    }
    if (!nl)
        fputc('\n', fp);
}

void showview_job(FILE *fp, json_t *job, time_t now, bool oneliner, int detail)
{
    struct kv k = {fp, oneliner, true, false};

    job_ids(&k, job);
    job_exit(&k, job, detail);
    job_times(&k, job, now);
    job_place(&k, job);
    job_files(&k, job);
    kv_end(&k);
    if (detail >= 2)
        job_script(fp, job);
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

/* A NODE integer field, or dflt when absent. */
static long long nint(json_t *node, const char *key, long long dflt)
{
    return jobview_int(node, key, dflt);
}

static void node_head(struct kv *k, json_t *node)
{
    long long cpus = nint(node, "cpus", 0);
    long long cps = nint(node, "cores_per_socket", 1);
    char b[FMT_BUFLEN];

    kv(k, "NodeName", "%s", jobview_str(node, "name", "?"));
    kv(k, "Arch", "%s", jobview_str(node, "arch", "x86_64"));
    /* Slurm infers from CPUs= alone one core per socket */
    kv(k, "CoresPerSocket", "%lld", cps > 0 ? cps : 1);
    kv_line(k);
    kv(k, "CPUAlloc", "%lld", nint(node, "cpus_alloc", 0));
    kv(k, "CPUEfctv", "%lld", cpus);
    kv(k, "CPUTot", "%lld", cpus);
    if (json_is_number(json_object_get(node, "cpu_load")))
        snprintf(b, sizeof(b), "%.2f",
                 json_number_value(json_object_get(node, "cpu_load")));
    else
        snprintf(b, sizeof(b), "N/A");
    kv(k, "CPULoad", "%s", b);
    kv_line(k);
    kv(k, "AvailableFeatures", "%s", js(node, "features"));
    kv_line(k);
    kv(k, "ActiveFeatures", "%s",
       jobview_str(node, "active_features", NULL) != NULL
           ? js(node, "active_features")
           : js(node, "features"));
    kv_line(k);
    kv(k, "Gres", "%s", js(node, "gres"));
    if (jobview_str(node, "gres_used", NULL) != NULL) {
        kv_line(k);
        kv(k, "GresUsed", "%s", js(node, "gres_used"));
    }
    kv_line(k);
    kv(k, "NodeAddr", "%s", js(node, "addr"));
    kv(k, "NodeHostName", "%s",
       jobview_str(node, "hostname", jobview_str(node, "name", "(null)")));
    kv(k, "Version", "%s", jobview_str(node, "version", SLUICE_VERSION));
}

/* AllocTRES: empty while nothing is allocated, as scontrol shows it. */
static const char *node_alloc_tres(json_t *node)
{
    const char *s = jobview_str(node, "tres_used", "");

    for (const char *p = s; (p = strchr(p, '=')) != NULL; p++)
        if (p[1] != '0' || (p[2] != '\0' && p[2] != ',' && p[2] != 'M'))
            return s;
    return "";
}

/* Sockets: given, else CPUs over cores and threads (Slurm's inference). */
static long long node_sockets(json_t *node)
{
    long long s = nint(node, "sockets", 0);
    long long per =
        nint(node, "cores_per_socket", 1) * nint(node, "threads_per_core", 1);

    if (s <= 0 && per > 0)
        s = nint(node, "cpus", 1) / per;
    return s > 0 ? s : 1;
}

void showview_node(FILE *fp, json_t *node, bool oneliner)
{
    struct kv k = {fp, oneliner, true, false};
    char b[4096];
    const char *reason = jobview_str(node, "reason", "");
    long long mem = nint(node, "mem_mib", 0);
    long long alloc = nint(node, "mem_alloc_mib", 0);

    node_head(&k, node);
    kv_line(&k);
    kv(&k, "OS", "%s", jobview_str(node, "os", "Linux"));
    kv_line(&k);
    kv(&k, "RealMemory", "%lld", mem);
    kv(&k, "AllocMem", "%lld", alloc);
    if (json_is_integer(json_object_get(node, "free_mem_mib")))
        kv(&k, "FreeMem", "%lld", nint(node, "free_mem_mib", 0));
    else
        kv(&k, "FreeMem", "N/A");
    kv(&k, "Sockets", "%lld", node_sockets(node));
    kv(&k, "Boards", "%lld", nint(node, "boards", 1));
    kv_line(&k);
    kv(&k, "State", "%s", node_state(node));
    kv(&k, "ThreadsPerCore", "%lld", nint(node, "threads_per_core", 1));
    kv(&k, "TmpDisk", "%lld", nint(node, "tmp_disk_mib", 0));
    kv(&k, "Weight", "%lld", nint(node, "weight", 1));
    kv(&k, "Owner", "N/A");
    kv(&k, "MCS_label", "N/A");
    kv_line(&k);
    kv(&k, "Partitions", "%s",
       jlist(json_object_get(node, "partitions"), b, sizeof(b)));
    kv_line(&k);
    kv(&k, "BootTime", "%s", jtime(node, "boot_time", b, sizeof(b)));
    kv(&k, "SlurmdStartTime", "%s",
       jtime(node,
             json_object_get(node, "slurmd_start_time") ? "slurmd_start_time"
                                                        : "boot_time",
             b, sizeof(b)));
    kv_line(&k);
    kv(&k, "LastBusyTime", "%s",
       jtime(node,
             json_object_get(node, "last_busy") ? "last_busy" : "boot_time", b,
             sizeof(b)));
    kv_line(&k);
    kv(&k, "CfgTRES", "%s", js(node, "tres"));
    kv_line(&k);
    kv(&k, "AllocTRES", "%s", node_alloc_tres(node));
    kv_line(&k);
    kv(&k, "CapWatts", "n/a");
    kv_line(&k);
    kv(&k, "CurrentWatts", "0");
    kv(&k, "AveWatts", "0");
    kv_line(&k);
    kv(&k, "ExtSensorsJoules", "n/s");
    kv(&k, "ExtSensorsWatts", "0");
    kv(&k, "ExtSensorsTemp", "n/s");
    if (reason[0] != '\0') {
        char t[FMT_BUFLEN];
        kv_line(&k);
        kv(&k, "Reason", "%s [%s@%s]", reason,
           jobview_str(node, "reason_user", "Unknown"),
           jtime(node, "reason_time", t, sizeof(t)));
    }
    kv_end(&k);
}

static const char *yesno(json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key)) ? "YES" : "NO";
}

/* A count where null or absent means UNLIMITED. */
static const char *plimit(json_t *part, const char *key, char *buf, size_t len)
{
    if (!json_is_integer(json_object_get(part, key)))
        return "UNLIMITED";
    snprintf(buf, len, "%lld", jobview_int(part, key, 0));
    return buf;
}

static void part_limits(struct kv *k, json_t *part)
{
    char b[FMT_BUFLEN];

    kv_line(k);
    kv(k, "DefaultTime", "%s",
       jlimit_min(jobview_int(part, "default_time_s", -1), "NONE", b,
                  sizeof(b)));
    kv(k, "DisableRootJobs", "NO");
    kv(k, "ExclusiveUser", "%s", yesno(part, "exclusive_user"));
    kv(k, "GraceTime", "%lld", jobview_int(part, "grace_time_s", 0));
    kv(k, "Hidden", "%s", yesno(part, "hidden"));
    kv_line(k);
    kv(k, "MaxNodes", "%s", plimit(part, "max_nodes", b, sizeof(b)));
    kv(k, "MaxTime", "%s",
       jlimit_min(jobview_int(part, "max_time_s", -1), "UNLIMITED", b,
                  sizeof(b)));
    kv(k, "MinNodes", "%lld", jobview_int(part, "min_nodes", 0));
    kv(k, "LLN", "NO");
    kv(k, "MaxCPUsPerNode", "%s",
       plimit(part, "max_cpus_per_node", b, sizeof(b)));
}

static const char *part_mem(json_t *part, const char *key, char *buf,
                            size_t len)
{
    long long v = jobview_int(part, key, 0);

    if (v <= 0)
        return "UNLIMITED";
    snprintf(buf, len, "%lld", v);
    return buf;
}

void showview_part(FILE *fp, json_t *part, bool oneliner)
{
    struct kv k = {fp, oneliner, true, false};
    char b[FMT_BUFLEN];
    const char *pm = jobview_str(part, "preempt_mode", "OFF");

    kv(&k, "PartitionName", "%s", jobview_str(part, "name", "?"));
    kv_line(&k);
    kv(&k, "AllowGroups", "%s", jobview_str(part, "allow_groups", "ALL"));
    kv(&k, "AllowAccounts", "%s", jobview_str(part, "allow_accounts", "ALL"));
    kv(&k, "AllowQos", "%s", jobview_str(part, "allow_qos", "ALL"));
    kv_line(&k);
    kv(&k, "AllocNodes", "ALL");
    kv(&k, "Default", "%s", yesno(part, "default"));
    kv(&k, "QoS", "%s", jobview_str(part, "qos", "N/A"));
    part_limits(&k, part);
    kv_line(&k);
    kv(&k, "Nodes", "%s", js(part, "nodes"));
    kv_line(&k);
    kv(&k, "PriorityJobFactor", "%lld",
       jobview_int(part, "priority_job_factor", 1));
    kv(&k, "PriorityTier", "%lld", jobview_int(part, "priority_tier", 1));
    kv(&k, "RootOnly", "NO");
    kv(&k, "ReqResv", "NO");
    kv(&k, "OverSubscribe", "%s", jobview_str(part, "oversubscribe", "NO"));
    kv_line(&k);
    kv(&k, "OverTimeLimit", "NONE");
    kv(&k, "PreemptMode", "%s", showview_upper(pm, b, sizeof(b)));
    kv_line(&k);
    kv(&k, "State", "%s", jobview_str(part, "state", "UP"));
    kv(&k, "TotalCPUs", "%lld", jobview_int(part, "total_cpus", 0));
    kv(&k, "TotalNodes", "%lld", jobview_int(part, "total_nodes", 0));
    kv(&k, "SelectTypeParameters", "NONE");
    kv_line(&k);
    kv(&k, "JobDefaults", "%s", js(part, "job_defaults"));
    kv_line(&k);
    kv(&k, "DefMemPerNode", "%s",
       part_mem(part, "def_mem_per_node_mib", b, sizeof(b)));
    kv(&k, "MaxMemPerNode", "%s",
       part_mem(part, "max_mem_per_node_mib", b, sizeof(b)));
    if (jobview_str(part, "tres", NULL) != NULL) {
        kv_line(&k);
        kv(&k, "TRES", "%s", js(part, "tres"));
    }
    kv_end(&k);
}

char *showview_upper(const char *s, char *buf, size_t len)
{
    size_t i;

    for (i = 0; s[i] != '\0' && i + 1 < len; i++)
        buf[i] = (char)toupper((unsigned char)s[i]);
    buf[i] = '\0';
    return buf;
}
