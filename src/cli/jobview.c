/*
 * squeue's view of a job: state codes, format letters, default order and
 * filters, over the JOB objects of docs/protocol.md.
 */
#include "cli/jobview.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/fmt.h"
#include "cli/showview.h"
#include "common/xalloc.h"

static const struct {
    const char *name, *code;
    int rank;   /* squeue's order of states */
    bool query; /* a job_state of docs/protocol.md, for -t */
} jv_states[] = {
    {"PENDING", "PD", 0, true},         {"RUNNING", "R", 1, true},
    {"COMPLETING", "CG", 1, true},      {"SUSPENDED", "S", 2, true},
    {"COMPLETED", "CD", 3, true},       {"CANCELLED", "CA", 4, true},
    {"FAILED", "F", 5, true},           {"TIMEOUT", "TO", 6, true},
    {"NODE_FAIL", "NF", 7, true},       {"PREEMPTED", "PR", 8, true},
    {"BOOT_FAIL", "BF", 9, true},       {"DEADLINE", "DL", 10, true},
    {"OUT_OF_MEMORY", "OOM", 11, true}, {"REQUEUED", "RQ", 12, false},
    {"CONFIGURING", "CF", 13, false},
};
#define JV_NSTATES (sizeof(jv_states) / sizeof(jv_states[0]))

const char *jobview_state_code(const char *state)
{
    for (size_t i = 0; i < JV_NSTATES; i++)
        if (strcmp(state, jv_states[i].name) == 0)
            return jv_states[i].code;
    return state;
}

static int jv_state_rank(const char *state)
{
    for (size_t i = 0; i < JV_NSTATES; i++)
        if (strcmp(state, jv_states[i].name) == 0)
            return jv_states[i].rank;
    return 100;
}

const char *jobview_state_parse(const char *s, struct err *e)
{
    for (size_t i = 0; i < JV_NSTATES; i++)
        if (jv_states[i].query && (strcasecmp(s, jv_states[i].name) == 0 ||
                                   strcasecmp(s, jv_states[i].code) == 0))
            return jv_states[i].name;
    if (strcasecmp(s, "COMPLETE") == 0)
        return "COMPLETED";
    errno = EINVAL;
    err_set(e,
            "invalid job state \"%s\" (expected PD, R, CG, S, CD, CA, F, "
            "TO, NF, PR, BF, DL, OOM, their long names, or all)",
            s);
    return NULL;
}

bool jobview_state_active(const char *state)
{
    return strcmp(state, "PENDING") == 0 || strcmp(state, "RUNNING") == 0 ||
           strcmp(state, "COMPLETING") == 0 || strcmp(state, "SUSPENDED") == 0;
}

/* squeue -O's fields: a letter where one prints the same, else a code
 * below ' ' of the fields that have no letter. */
enum {
    JV_X_TRES_ALLOC = 1,
    JV_X_NUM_TASKS,
    JV_X_CPUS_PER_TASK,
    JV_X_ELIGIBLE,
    JV_X_ACCRUE,
    JV_X_DEADLINE,
    JV_X_MIN_TIME,
    JV_X_REQUEUE,
    JV_X_RESTARTS,
    JV_X_EXIT_CODE,
    JV_X_STDOUT,
    JV_X_STDERR,
    JV_X_STDIN,
    JV_X_TRES_PER_JOB,
    JV_X_TRES_PER_TASK,
    JV_X_BATCH_FLAG,
    JV_X_PENDING_TIME,
    JV_X_LAST_SCHED,
    JV_X_REBOOT,
    JV_X_MCS,
    JV_X_NETWORK,
    JV_X_ALLOC_NODE,
    JV_X_ALLOC_SID,
    JV_X_CLUSTER,
    JV_X_DERIVED_EC,
    JV_X_FIRST_LETTER = ' ',
};

static const struct {
    const char *name;
    char code;
    const char *title; /* for the codes without a letter */
} jv_named[] = {
    {"Account", 'a', NULL},
    {"AccrueTime", JV_X_ACCRUE, "ACCRUE_TIME"},
    {"AllocNodes", JV_X_ALLOC_NODE, "ALLOC_NODES"},
    {"AllocSID", JV_X_ALLOC_SID, "ALLOC_SID"},
    {"ArrayJobID", 'F', NULL},
    {"ArrayTaskID", 'K', NULL},
    {"BatchFlag", JV_X_BATCH_FLAG, "BATCH_FLAG"},
    {"BatchHost", 'B', NULL},
    {"Cluster", JV_X_CLUSTER, "CLUSTER"},
    {"Command", 'o', NULL},
    {"Comment", 'k', NULL},
    {"Contiguous", 'O', NULL},
    {"Cores", 'I', NULL},
    {"CoreSpec", 'X', NULL},
    {"cpus-per-task", JV_X_CPUS_PER_TASK, "CPUS_PER_TASK"},
    {"Deadline", JV_X_DEADLINE, "DEADLINE"},
    {"Dependency", 'E', NULL},
    {"DerivedEC", JV_X_DERIVED_EC, "DERIVED_EC"},
    {"EligibleTime", JV_X_ELIGIBLE, "ELIGIBLE_TIME"},
    {"EndTime", 'e', NULL},
    {"ExcNodes", 'x', NULL},
    {"exit_code", JV_X_EXIT_CODE, "EXIT_CODE"},
    {"Feature", 'f', NULL},
    {"GroupID", 'G', NULL},
    {"GroupName", 'g', NULL},
    {"JobArrayID", 'i', NULL},
    {"JobID", 'A', NULL},
    {"LastSchedEval", JV_X_LAST_SCHED, "LAST_SCHED_EVAL"},
    {"Licenses", 'W', NULL},
    {"MCSLabel", JV_X_MCS, "MCSLABEL"},
    {"MinCpus", 'c', NULL},
    {"MinMemory", 'm', NULL},
    {"MinTime", JV_X_MIN_TIME, "MIN_TIME"},
    {"MinTmpDisk", 'd', NULL},
    {"Name", 'j', NULL},
    {"Network", JV_X_NETWORK, "NETWORK"},
    {"Nice", 'y', NULL},
    {"NodeList", 'N', NULL},
    {"NumCPUs", 'C', NULL},
    {"NumNodes", 'D', NULL},
    {"NumTasks", JV_X_NUM_TASKS, "NUM_TASKS"},
    {"OverSubscribe", 'h', NULL},
    {"Partition", 'P', NULL},
    {"PendingTime", JV_X_PENDING_TIME, "PENDING_TIME"},
    {"Priority", 'p', NULL},
    {"PriorityLong", 'Q', NULL},
    {"QOS", 'q', NULL},
    {"Reason", 'r', NULL},
    {"ReasonList", 'R', NULL},
    {"Reboot", JV_X_REBOOT, "REBOOT"},
    {"ReqNodes", 'n', NULL},
    {"Requeue", JV_X_REQUEUE, "REQUEUE"},
    {"Reservation", 'v', NULL},
    {"RestartCnt", JV_X_RESTARTS, "RESTARTCNT"},
    {"SchedNodes", 'Y', NULL},
    {"SCT", 'z', NULL},
    {"SelectJobInfo", 's', NULL},
    {"Sockets", 'H', NULL},
    {"StartTime", 'S', NULL},
    {"State", 'T', NULL},
    {"StateCompact", 't', NULL},
    {"STDERR", JV_X_STDERR, "STDERR"},
    {"STDIN", JV_X_STDIN, "STDIN"},
    {"STDOUT", JV_X_STDOUT, "STDOUT"},
    {"SubmitTime", 'V', NULL},
    {"Threads", 'J', NULL},
    {"TimeLeft", 'L', NULL},
    {"TimeLimit", 'l', NULL},
    {"TimeUsed", 'M', NULL},
    {"tres-alloc", JV_X_TRES_ALLOC, "TRES_ALLOC"},
    {"tres-per-job", JV_X_TRES_PER_JOB, "TRES_PER_JOB"},
    {"tres-per-node", 'b', NULL},
    {"tres-per-task", JV_X_TRES_PER_TASK, "TRES_PER_TASK"},
    {"UserID", 'U', NULL},
    {"UserName", 'u', NULL},
    {"WCKey", 'w', NULL},
    {"WorkDir", 'Z', NULL},
};
#define JV_NAMED (sizeof(jv_named) / sizeof(jv_named[0]))

int jobview_field_code(const char *name, size_t len)
{
    for (size_t i = 0; i < JV_NAMED; i++)
        if (strlen(jv_named[i].name) == len &&
            strncasecmp(jv_named[i].name, name, len) == 0)
            return jv_named[i].code;
    return -1;
}

static const struct {
    char letter;
    const char *title;
} jv_headers[] = {
    {'a', "ACCOUNT"},
    {'b', "TRES_PER_NODE"},
    {'B', "EXEC_HOST"},
    {'c', "MIN_CPUS"},
    {'C', "CPUS"},
    {'D', "NODES"},
    {'e', "END_TIME"},
    {'E', "DEPENDENCY"},
    {'F', "ARRAY_JOB_ID"},
    {'g', "GROUP"},
    {'G', "GROUP"},
    {'i', "JOBID"},
    {'j', "NAME"},
    {'K', "ARRAY_TASK_ID"},
    {'l', "TIME_LIMIT"},
    {'L', "TIME_LEFT"},
    {'m', "MIN_MEMORY"},
    {'M', "TIME"},
    {'n', "REQ_NODES"},
    {'N', "NODELIST"},
    {'o', "COMMAND"},
    {'P', "PARTITION"},
    {'q', "QOS"},
    {'Q', "PRIORITY"},
    {'r', "REASON"},
    {'R', "NODELIST(REASON)"},
    {'S', "START_TIME"},
    {'t', "ST"},
    {'T', "STATE"},
    {'u', "USER"},
    {'U', "UID"},
    {'V', "SUBMIT_TIME"},
    {'x', "EXC_NODES"},
    {'y', "NICE"},
    {'Z', "WORK_DIR"},
    {'A', "JOBID"},
    {'d', "MIN_TMP_DISK"},
    {'f', "FEATURES"},
    {'h', "OVER_SUBSCRIBE"},
    {'H', "SOCKETS_PER_NODE"},
    {'I', "CORES_PER_SOCKET"},
    {'J', "THREADS_PER_CORE"},
    {'k', "COMMENT"},
    {'O', "CONTIGUOUS"},
    {'p', "PRIORITY"},
    {'s', "SELECT_JOBINFO"},
    {'v', "RESERVATION"},
    {'w', "WCKEY"},
    {'W', "LICENSES"},
    {'X', "CORE_SPEC"},
    {'Y', "SCHEDNODES"},
    {'z', "S:C:T"},
};

const char *jobview_header(char letter)
{
    for (size_t i = 0; i < JV_NAMED; i++)
        if (jv_named[i].code == letter && letter < JV_X_FIRST_LETTER)
            return jv_named[i].title;
    for (size_t i = 0; i < sizeof(jv_headers) / sizeof(jv_headers[0]); i++)
        if (jv_headers[i].letter == letter)
            return jv_headers[i].title;
    return "?";
}

const char *jobview_str(json_t *job, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(job, key));

    return s != NULL ? s : dflt;
}

long long jobview_int(json_t *job, const char *key, long long dflt)
{
    json_t *v = json_object_get(job, key);

    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

long long jobview_elapsed(json_t *job, time_t now)
{
    long long start = jobview_int(job, "start_time", 0);
    long long end = jobview_int(job, "end_time", 0);
    const char *state = jobview_str(job, "job_state", "");

    if (start <= 0 || strcmp(state, "PENDING") == 0)
        return 0;
    if (end <= 0 || end < start)
        end = strcmp(state, "RUNNING") == 0 ||
                      strcmp(state, "COMPLETING") == 0 ||
                      strcmp(state, "SUSPENDED") == 0
                  ? (long long)now
                  : start;
    /* time suspended is not run time (squeue's TIME, as in Slurm) */
    start += jobview_int(job, "suspended_s", 0);
    return end > start ? end - start : 0;
}

static const char *jv_num(long long v, char *buf, size_t len)
{
    snprintf(buf, len, "%lld", v);
    return buf;
}

static const char *jv_time(json_t *job, const char *key, char *buf, size_t len)
{
    return fmt_time((time_t)jobview_int(job, key, 0), "N/A", buf, len);
}

/* Slurm keeps limits in whole minutes, seconds rounded up. */
static long long jv_limit_s(json_t *job)
{
    long long s = jobview_int(job, "time_limit_s", -1);

    return s < 0 ? -1 : (s + 59) / 60 * 60;
}

static const char *jv_limit(json_t *job, char *buf, size_t len)
{
    return fmt_duration(jv_limit_s(job), "UNLIMITED", buf, len);
}

static const char *jv_left(const struct jobview_row *r, char *buf, size_t len)
{
    long long lim = jv_limit_s(r->job);
    long long left = lim - jobview_elapsed(r->job, r->now);

    if (lim < 0)
        return "UNLIMITED";
    return fmt_duration(left > 0 ? left : 0, "UNLIMITED", buf, len);
}

static const char *jv_end(const struct jobview_row *r, char *buf, size_t len)
{
    long long lim = jobview_int(r->job, "time_limit_s", -1);
    long long start = jobview_int(r->job, "start_time", 0);

    if (jobview_int(r->job, "end_time", 0) > 0)
        return jv_time(r->job, "end_time", buf, len);
    if (start > 0 && lim >= 0 &&
        strcmp(jobview_str(r->job, "job_state", ""), "RUNNING") == 0)
        return fmt_time((time_t)(start + lim), "N/A", buf, len);
    return "N/A";
}

static const char *jv_cpus(json_t *job, char *buf, size_t len)
{
    long long cpus = jobview_int(job, "cpus", 0);

    if (cpus <= 0)
        cpus = jobview_int(job, "ntasks", 1) *
               jobview_int(job, "cpus_per_task", 1);
    return jv_num(cpus, buf, len);
}

static const char *jv_mem(json_t *job, char *buf, size_t len)
{
    long long mib = jobview_int(job, "mem_mib", -1);

    if (mib < 0)
        mib = jobview_int(job, "mem_per_cpu_mib", 0);
    if (mib <= 0)
        mib = jobview_int(job, "mem_per_gpu_mib", 0);
    return fmt_mem((uint64_t)(mib > 0 ? mib : 0), buf, len);
}

/* %b: the GPUs per node as the controller normalised them
 * ("gres:gpu:4"), else the request as given. */
static const char *jv_gres(json_t *job, char *buf, size_t len)
{
    const char *g = jobview_str(job, "tres_per_node", NULL);

    if (g != NULL && g[0] != '\0')
        return g;
    g = jobview_str(job, "gres", NULL);
    if (g == NULL || g[0] == '\0')
        g = jobview_str(job, "gpus", NULL);
    if (g == NULL || g[0] == '\0')
        return "N/A";
    snprintf(buf, len, "gres:%s", g);
    return buf;
}

static const char *jv_reason_list(json_t *job, char *buf, size_t len)
{
    const char *nodes = jobview_str(job, "node_list", "");

    if (strcmp(jobview_str(job, "job_state", ""), "PENDING") != 0 &&
        nodes[0] != '\0')
        return nodes;
    snprintf(buf, len, "(%s)", jobview_str(job, "state_reason", "None"));
    return buf;
}

static const char *jv_group(json_t *job, char *buf, size_t len)
{
    long long gid = jobview_int(job, "group_id", -1);
    struct group *g = gid >= 0 ? getgrgid((gid_t)gid) : NULL;

    if (g != NULL) {
        snprintf(buf, len, "%s", g->gr_name);
        return buf;
    }
    return jv_num(gid, buf, len);
}

static const char *jv_command(json_t *job)
{
    json_t *argv = json_object_get(job, "argv");
    const char *s = json_string_value(json_array_get(argv, 0));

    return s != NULL ? s : "(null)";
}

const char *jobview_id(json_t *job, char *buf, size_t len)
{
    long long a = jobview_int(job, "array_job_id", 0);
    long long t = jobview_int(job, "array_task_id", -1);
    long long thr = jobview_int(job, "array_max_tasks", 0);
    const char *pend = jobview_str(job, "array_task_str", NULL);

    if (a <= 0)
        return jv_num(jobview_int(job, "job_id", 0), buf, len);
    if (t >= 0)
        snprintf(buf, len, "%lld_%lld", a, t);
    else if (thr > 0)
        snprintf(buf, len, "%lld_[%s%%%lld]", a, pend ? pend : "", thr);
    else
        snprintf(buf, len, "%lld_[%s]", a, pend ? pend : "");
    return buf;
}

/* %K: the task id, the pending tasks ("5-99"), or N/A. */
static const char *jv_task(json_t *job, char *buf, size_t len)
{
    long long t = jobview_int(job, "array_task_id", -1);

    if (t >= 0)
        return jv_num(t, buf, len);
    return jobview_str(job, "array_task_str", "N/A");
}

/* A string field, "(null)" when unset or empty. */
static const char *jv_null(json_t *job, const char *key)
{
    const char *s = jobview_str(job, key, NULL);

    return s != NULL && s[0] != '\0' ? s : "(null)";
}

/* A count of the job's shape, "*" when not asked for. */
static const char *jv_star(json_t *job, const char *key, char *buf, size_t len)
{
    long long v = jobview_int(job, key, 0);

    return v > 0 ? jv_num(v, buf, len) : "*";
}

const char *jobview_oversubscribe(json_t *job)
{
    const char *x = jobview_str(job, "exclusive", NULL);

    if (x != NULL && strcmp(x, "user") == 0)
        return "USER";
    if (x != NULL && strcmp(x, "mcs") == 0)
        return "MCS";
    if (x != NULL || json_is_true(json_object_get(job, "exclusive")))
        return "NO";
    if (json_is_true(json_object_get(job, "oversubscribe")))
        return "YES";
    return "OK";
}

long long jobview_priority(json_t *job)
{
    if (json_is_true(json_object_get(job, "hold")) ||
        strncmp(jobview_str(job, "state_reason", ""), "JobHeld", 7) == 0)
        return 0;
    return jobview_int(job, "priority", 0);
}

static const char *jv_sct(json_t *job, char *buf, size_t len)
{
    char s[32], c[32], t[32];

    snprintf(buf, len, "%s:%s:%s",
             jv_star(job, "sockets_per_node", s, sizeof(s)),
             jv_star(job, "cores_per_socket", c, sizeof(c)),
             jv_star(job, "threads_per_core", t, sizeof(t)));
    return buf;
}

static const char *jv_exit(json_t *job, char *buf, size_t len)
{
    json_t *ec = json_object_get(job, "exit_code");

    snprintf(buf, len, "%lld:%lld",
             (long long)json_integer_value(json_object_get(ec, "return_code")),
             (long long)json_integer_value(json_object_get(ec, "signal")));
    return buf;
}

static const char *jv_tres_alloc(json_t *job)
{
    const char *s = jobview_str(job, "tres_alloc_str", NULL);

    if (s == NULL || s[0] == '\0')
        s = jobview_str(job, "tres_req_str", NULL);
    return s != NULL && s[0] != '\0' ? s : "(null)";
}

static const char *jv_gpu_req(json_t *job, const char *key, char *buf,
                              size_t len)
{
    const char *s = jobview_str(job, key, NULL);

    if (s == NULL || s[0] == '\0')
        return "N/A";
    snprintf(buf, len, "gres:gpu:%s", s);
    return buf;
}

/* PendingTime: seconds from eligible to start (or to now while pending). */
static const char *jv_pending_s(const struct jobview_row *r, char *buf,
                                size_t len)
{
    long long el = jobview_int(r->job, "eligible_time", 0);
    long long to = jobview_int(r->job, "start_time", 0);

    if (strcmp(jobview_str(r->job, "job_state", ""), "PENDING") == 0)
        to = (long long)r->now;
    return jv_num(el > 0 && to > el ? to - el : 0, buf, len);
}

/* The -O fields that have no letter. */
static const char *jv_extra(char code, const struct jobview_row *r, char *buf,
                            size_t len)
{
    json_t *job = r->job;
    const char *s;

    switch (code) {
    case JV_X_TRES_ALLOC:
        return jv_tres_alloc(job);
    case JV_X_NUM_TASKS:
        return jv_num(jobview_int(job, "ntasks", 1), buf, len);
    case JV_X_CPUS_PER_TASK:
        return jv_num(jobview_int(job, "cpus_per_task", 1), buf, len);
    case JV_X_ELIGIBLE:
        return jv_time(job, "eligible_time", buf, len);
    case JV_X_ACCRUE:
        return jv_time(job, "accrue_since", buf, len);
    case JV_X_DEADLINE:
        return jv_time(job, "deadline", buf, len);
    case JV_X_MIN_TIME:
        return jobview_int(job, "time_min_s", 0) > 0
                   ? fmt_duration((jobview_int(job, "time_min_s", 0) + 59) /
                                      60 * 60,
                                  "N/A", buf, len)
                   : "N/A";
    case JV_X_REQUEUE:
        return json_is_false(json_object_get(job, "requeue")) ? "0" : "1";
    case JV_X_RESTARTS:
        return jv_num(jobview_int(job, "restart_count", 0), buf, len);
    case JV_X_EXIT_CODE:
    case JV_X_DERIVED_EC:
        return jv_exit(job, buf, len);
    case JV_X_STDOUT:
        return showview_stdpath(job, jobview_str(job, "std_out", NULL), buf,
                                len);
    case JV_X_STDERR:
        s = jobview_str(job, "std_err", NULL);
        return showview_stdpath(
            job, s != NULL ? s : jobview_str(job, "std_out", NULL), buf, len);
    case JV_X_STDIN:
        s = jobview_str(job, "std_in", NULL);
        return s != NULL ? showview_stdpath(job, s, buf, len) : "/dev/null";
    case JV_X_TRES_PER_JOB:
        return jv_gpu_req(job, "gpus", buf, len);
    case JV_X_TRES_PER_TASK:
        return jv_gpu_req(job, "gpus_per_task", buf, len);
    case JV_X_BATCH_FLAG:
        return jobview_str(job, "alloc", NULL) != NULL ? "0" : "1";
    case JV_X_PENDING_TIME:
        return jv_pending_s(r, buf, len);
    case JV_X_LAST_SCHED:
        return jv_time(job, "last_sched_eval", buf, len);
    case JV_X_REBOOT:
    case JV_X_ALLOC_SID:
        return "0";
    case JV_X_ALLOC_NODE:
        return jv_null(job, "submit_host");
    case JV_X_MCS:
    case JV_X_NETWORK:
        return "(null)";
    case JV_X_CLUSTER:
        return jobview_str(job, "cluster", "N/A");
    default:
        return "?";
    }
}

/* Letters whose text comes straight from one field. */
static const char *jv_plain(char letter, json_t *job, char *buf, size_t len)
{
    switch (letter) {
    case 'a':
        return jobview_str(job, "account", "(null)");
    case 'B':
        return jobview_str(job, "batch_host", "n/a");
    case 'i':
        return jobview_id(job, buf, len);
    case 'E':
        return jobview_dependency(job, buf, len);
    case 'F':
        return jv_num(
            jobview_int(job, "array_job_id", jobview_int(job, "job_id", 0)),
            buf, len);
    case 'K':
        return jv_task(job, buf, len);
    case 'j':
        return jobview_str(job, "name", "");
    case 'n':
        return jobview_str(job, "nodelist", "");
    case 'N':
        return jobview_str(job, "node_list", "");
    case 'P':
        return jobview_str(job, "partition", "");
    case 'q':
        return jobview_str(job, "qos", "normal");
    case 'r':
        return jobview_str(job, "state_reason", "None");
    case 'T':
        return jobview_str(job, "job_state", "UNKNOWN");
    case 'x':
        return jobview_str(job, "exclude", "");
    case 'Z':
        return jobview_str(job, "work_dir", "");
    case 'A':
        return jv_num(jobview_int(job, "job_id", 0), buf, len);
    case 'f':
        return jv_null(job, "constraint");
    case 'h':
        return jobview_oversubscribe(job);
    case 'k':
        return jv_null(job, "comment");
    case 'v':
        return jv_null(job, "reservation");
    case 'w':
        return jv_null(job, "wckey");
    case 'O':
        return "0";
    case 's':
        return "N/A";
    case 'W':
    case 'Y':
        return "(null)";
    case 'X':
        return "*";
    default:
        return NULL;
    }
}

const char *jobview_value(char letter, const void *ctx, char *buf, size_t len)
{
    const struct jobview_row *r = ctx;
    json_t *job = r->job;
    const char *s;

    if (letter > 0 && letter < JV_X_FIRST_LETTER)
        return jv_extra(letter, r, buf, len);
    if ((s = jv_plain(letter, job, buf, len)) != NULL)
        return s;
    switch (letter) {
    case 'b':
        return jv_gres(job, buf, len);
    case 'c':
        return jv_num(jobview_int(job, "cpus_per_task", 1), buf, len);
    case 'C':
        return jv_cpus(job, buf, len);
    case 'D':
        return jv_num(jobview_int(job, "nodes", 1), buf, len);
    case 'e':
        return jv_end(r, buf, len);
    case 'g':
        return jv_group(job, buf, len);
    case 'G':
        return jv_num(jobview_int(job, "group_id", -1), buf, len);
    case 'l':
        return jv_limit(job, buf, len);
    case 'L':
        return jv_left(r, buf, len);
    case 'm':
        return jv_mem(job, buf, len);
    case 'M':
        return fmt_duration(jobview_elapsed(job, r->now), "", buf, len);
    case 'o':
        return jv_command(job);
    case 'Q':
        return jv_num(jobview_priority(job), buf, len);
    case 'p': /* as a fraction of the largest priority */
        snprintf(buf, len, "%.14f",
                 (double)jobview_priority(job) / 4294967295.0);
        return buf;
    case 'd':
        return fmt_mem((uint64_t)(jobview_int(job, "tmp_mib", 0) > 0
                                      ? jobview_int(job, "tmp_mib", 0)
                                      : 0),
                       buf, len);
    case 'H':
        return jv_star(job, "sockets_per_node", buf, len);
    case 'I':
        return jv_star(job, "cores_per_socket", buf, len);
    case 'J':
        return jv_star(job, "threads_per_core", buf, len);
    case 'z':
        return jv_sct(job, buf, len);
    case 'R':
        return jv_reason_list(job, buf, len);
    case 'S':
        return jv_time(job, "start_time", buf, len);
    case 't':
        return jobview_state_code(jobview_str(job, "job_state", "UNKNOWN"));
    case 'u':
        s = jobview_str(job, "user_name", NULL);
        return s ? s : jv_num(jobview_int(job, "user_id", -1), buf, len);
    case 'U':
        return jv_num(jobview_int(job, "user_id", -1), buf, len);
    case 'V':
        return jv_time(job, "submit_time", buf, len);
    case 'y':
        return jv_num(jobview_int(job, "nice", 0), buf, len);
    default:
        return "?";
    }
}

/* The JOB fields an output path's patterns read (showview_stdpath). */
#define JV_PATH_KEYS "work_dir job_id name user_name batch_host"
/* squeue's own: its filters (jobfilter_match), its default order
 * (jobview_sort), which states it shows, and -r's tasks. */
#define JV_BASE_KEYS                                                           \
    "job_id array_job_id array_task_id array_task_str array_task_max "         \
    "user_id user_name partition job_state name node_list priority"

/* The JOB fields each letter and -O code reads (jobview_value); a code
 * without an entry is not known here and makes jobview_fields give up. */
static const char *const jv_keys[128] = {
    [JV_X_TRES_ALLOC] = "tres_alloc_str tres_req_str",
    [JV_X_NUM_TASKS] = "ntasks",
    [JV_X_CPUS_PER_TASK] = "cpus_per_task",
    [JV_X_ELIGIBLE] = "eligible_time",
    [JV_X_ACCRUE] = "accrue_since",
    [JV_X_DEADLINE] = "deadline",
    [JV_X_MIN_TIME] = "time_min_s",
    [JV_X_REQUEUE] = "requeue",
    [JV_X_RESTARTS] = "restart_count",
    [JV_X_EXIT_CODE] = "exit_code",
    [JV_X_DERIVED_EC] = "exit_code",
    [JV_X_STDOUT] = "std_out " JV_PATH_KEYS,
    [JV_X_STDERR] = "std_err std_out " JV_PATH_KEYS,
    [JV_X_STDIN] = "std_in " JV_PATH_KEYS,
    [JV_X_TRES_PER_JOB] = "gpus",
    [JV_X_TRES_PER_TASK] = "gpus_per_task",
    [JV_X_BATCH_FLAG] = "alloc",
    [JV_X_PENDING_TIME] = "eligible_time start_time job_state",
    [JV_X_LAST_SCHED] = "last_sched_eval",
    [JV_X_REBOOT] = "",
    [JV_X_ALLOC_SID] = "",
    [JV_X_MCS] = "",
    [JV_X_NETWORK] = "",
    [JV_X_ALLOC_NODE] = "submit_host",
    [JV_X_CLUSTER] = "cluster",
    ['a'] = "account",
    ['A'] = "job_id",
    ['b'] = "tres_per_node gres gpus",
    ['B'] = "batch_host",
    ['c'] = "cpus_per_task",
    ['C'] = "cpus ntasks cpus_per_task",
    ['d'] = "tmp_mib",
    ['D'] = "nodes",
    ['e'] = "end_time time_limit_s start_time job_state",
    ['E'] = "dependency state_reason job_state",
    ['f'] = "constraint",
    ['F'] = "array_job_id job_id",
    ['g'] = "group_id",
    ['G'] = "group_id",
    ['h'] = "exclusive oversubscribe",
    ['H'] = "sockets_per_node",
    ['i'] = "job_id array_job_id array_task_id array_max_tasks array_task_str",
    ['I'] = "cores_per_socket",
    ['j'] = "name",
    ['J'] = "threads_per_core",
    ['k'] = "comment",
    ['K'] = "array_task_id array_task_str",
    ['l'] = "time_limit_s",
    ['L'] = "time_limit_s start_time end_time job_state suspended_s",
    ['m'] = "mem_mib mem_per_cpu_mib mem_per_gpu_mib",
    ['M'] = "start_time end_time job_state suspended_s",
    ['n'] = "nodelist",
    ['N'] = "node_list",
    ['o'] = "argv",
    ['O'] = "",
    ['p'] = "hold state_reason priority",
    ['P'] = "partition",
    ['q'] = "qos",
    ['Q'] = "hold state_reason priority",
    ['r'] = "state_reason",
    ['R'] = "node_list job_state state_reason",
    ['s'] = "",
    ['S'] = "start_time",
    ['t'] = "job_state",
    ['T'] = "job_state",
    ['u'] = "user_name user_id",
    ['U'] = "user_id",
    ['v'] = "reservation",
    ['V'] = "submit_time",
    ['w'] = "wckey",
    ['W'] = "",
    ['x'] = "exclude",
    ['X'] = "",
    ['y'] = "nice",
    ['Y'] = "",
    ['z'] = "sockets_per_node cores_per_socket threads_per_core",
    ['Z'] = "work_dir",
};

/* The words of keys into set. */
static void jv_add_keys(json_t *set, const char *keys)
{
    while (*keys != '\0') {
        size_t n = strcspn(keys, " ");
        if (n > 0) {
            char *k = xstrndup(keys, n);
            json_object_set_new(set, k, json_true());
            free(k);
        }
        keys += n + (keys[n] == ' ');
    }
}

json_t *jobview_fields(const char *codes, size_t n)
{
    json_t *set = json_object(), *out;
    const char *k;
    json_t *v;

    jv_add_keys(set, JV_BASE_KEYS);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)codes[i];
        if (c >= sizeof(jv_keys) / sizeof(jv_keys[0]) || jv_keys[c] == NULL) {
            json_decref(set);
            return NULL;
        }
        jv_add_keys(set, jv_keys[c]);
    }
    out = json_array();
    json_object_foreach(set, k, v) json_array_append_new(out, json_string(k));
    json_decref(set);
    return out;
}

static int jv_cmp(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(jobview_str(x, "partition", ""),
                   jobview_str(y, "partition", ""));
    long long px, py, ix, iy;

    if (c != 0)
        return c;
    c = jv_state_rank(jobview_str(x, "job_state", "")) -
        jv_state_rank(jobview_str(y, "job_state", ""));
    if (c != 0)
        return c;
    px = jobview_int(x, "priority", 0);
    py = jobview_int(y, "priority", 0);
    if (px != py)
        return px > py ? -1 : 1;
    ix = jobview_int(x, "job_id", 0);
    iy = jobview_int(y, "job_id", 0);
    return ix < iy ? -1 : ix > iy;
}

void jobview_sort(json_t *jobs)
{
    size_t n = json_array_size(jobs);
    json_t **v;

    if (n < 2)
        return;
    v = xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(jobs, i));
    qsort(v, n, sizeof(*v), jv_cmp);
    json_array_clear(jobs);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
}

/* One dependency element "afterok:12:13_4" as "afterok:12(st),afterok:13_4(st)". */
static size_t jv_dep_item(const char *item, size_t ilen, const char *st,
                          char *buf, size_t len, size_t n)
{
    const char *colon = memchr(item, ':', ilen);
    size_t tlen;

    if (colon == NULL) /* singleton */
        return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, "%.*s(%s)",
                                    (int)ilen, item, st);
    tlen = (size_t)(colon - item);
    for (const char *p = colon + 1; p < item + ilen;) {
        const char *q = memchr(p, ':', (size_t)(item + ilen - p));
        size_t plen = q ? (size_t)(q - p) : (size_t)(item + ilen - p);
        if (n > 0 && buf[n - 1] == ')')
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ",");
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%.*s:%.*s(%s)",
                              (int)tlen, item, (int)plen, p, st);
        p += plen + 1;
    }
    return n;
}

const char *jobview_dependency(json_t *job, char *buf, size_t len)
{
    const char *dep = jobview_str(job, "dependency", NULL);
    const char *reason = jobview_str(job, "state_reason", "");
    const char *st = "unfulfilled";
    size_t n = 0;

    if (dep == NULL || dep[0] == '\0' ||
        strcmp(jobview_str(job, "job_state", ""), "PENDING") != 0)
        return "(null)";
    if (strcmp(reason, "DependencyNeverSatisfied") == 0)
        st = "failed";
    buf[0] = '\0';
    for (const char *p = dep; *p != '\0' && n < len;) {
        size_t ilen = strcspn(p, ",?");
        if (n > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%c", p[-1]);
        n = jv_dep_item(p, ilen, st, buf, len, n);
        p += ilen;
        if (*p != '\0')
            p++;
    }
    return buf;
}
