/*
 * sacct's fields and output (acctview.h).  Widths, justification and the
 * "+" that marks a cut value follow Slurm's sacct; times print as
 * YYYY-MM-DDTHH:MM:SS, "Unknown" when not reached.  The usage fields
 * (MaxRSS, TotalCPU, ...) are usageview's, numbered after ours.
 */
#include "cli/acctview.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/fmt.h"
#include "cli/jobspec.h"
#include "cli/jobview.h"
#include "cli/stepview.h"
#include "cli/usageview.h"
#include "common/xalloc.h"

enum {
    F_JOBID,
    F_JOBIDRAW,
    F_JOBNAME,
    F_PARTITION,
    F_ACCOUNT,
    F_QOS,
    F_USER,
    F_UID,
    F_ALLOCCPUS,
    F_NNODES,
    F_STATE,
    F_EXITCODE,
    F_SUBMIT,
    F_ELIGIBLE,
    F_START,
    F_END,
    F_ELAPSED,
    F_ELAPSEDRAW,
    F_TIMELIMIT,
    F_SUSPENDED,
    F_NODELIST,
    F_ALLOCTRES,
    F_REQTRES,
    F_RESTARTS,
    F_REASON,
    F_PRIORITY,
    F_WORKDIR,
    F_NTASKS,
    F_COMMENT,
    F_WCKEY,
    F_CONSTRAINTS,
    F_RESERVATION,
    F_REQMEM,
    F_REQCPUS,
    F_REQNODES,
    F_TIMELIMITRAW,
    F_CLUSTER,
    F_GROUP,
    F_GID,
    F_DERIVEDEXITCODE,
    F_FLAGS,
    F_COUNT /* usageview's field u is F_COUNT + u */
};

static const struct {
    const char *name;
    int width;
    bool left;
} fields[F_COUNT] = {
    [F_JOBID] = {"JobID", 12, true},
    [F_JOBIDRAW] = {"JobIDRaw", 12, true},
    [F_JOBNAME] = {"JobName", 10, false},
    [F_PARTITION] = {"Partition", 10, false},
    [F_ACCOUNT] = {"Account", 10, false},
    [F_QOS] = {"QOS", 10, false},
    [F_USER] = {"User", 9, false},
    [F_UID] = {"UID", 6, false},
    [F_ALLOCCPUS] = {"AllocCPUS", 10, false},
    [F_NNODES] = {"NNodes", 8, false},
    [F_STATE] = {"State", 10, false},
    [F_EXITCODE] = {"ExitCode", 8, false},
    [F_SUBMIT] = {"Submit", 19, false},
    [F_ELIGIBLE] = {"Eligible", 19, false},
    [F_START] = {"Start", 19, false},
    [F_END] = {"End", 19, false},
    [F_ELAPSED] = {"Elapsed", 10, false},
    [F_ELAPSEDRAW] = {"ElapsedRaw", 10, false},
    [F_TIMELIMIT] = {"Timelimit", 10, false},
    [F_SUSPENDED] = {"Suspended", 10, false},
    [F_NODELIST] = {"NodeList", 15, false},
    [F_ALLOCTRES] = {"AllocTRES", 10, false},
    [F_REQTRES] = {"ReqTRES", 10, false},
    [F_RESTARTS] = {"Restarts", 8, false},
    [F_REASON] = {"Reason", 20, false},
    [F_PRIORITY] = {"Priority", 10, false},
    [F_WORKDIR] = {"WorkDir", 20, false},
    [F_NTASKS] = {"NTasks", 8, false},
    [F_COMMENT] = {"Comment", 15, false},
    [F_WCKEY] = {"WCKey", 10, false},
    [F_CONSTRAINTS] = {"Constraints", 19, false},
    [F_RESERVATION] = {"Reservation", 20, false},
    [F_REQMEM] = {"ReqMem", 10, false},
    [F_REQCPUS] = {"ReqCPUS", 8, false},
    [F_REQNODES] = {"ReqNodes", 8, false},
    [F_TIMELIMITRAW] = {"TimelimitRaw", 12, false},
    [F_CLUSTER] = {"Cluster", 10, false},
    [F_GROUP] = {"Group", 9, false},
    [F_GID] = {"GID", 6, false},
    [F_DERIVEDEXITCODE] = {"DerivedExitCode", 15, false},
    [F_FLAGS] = {"Flags", 20, false},
};

static const char *field_name(int f)
{
    return f < F_COUNT ? fields[f].name : usageview_name(f - F_COUNT);
}

static int field_width(int f)
{
    return f < F_COUNT ? fields[f].width : usageview_width(f - F_COUNT);
}

int acctview_field(const char *name)
{
    int u;

    for (int i = 0; i < F_COUNT; i++)
        if (strcasecmp(name, fields[i].name) == 0)
            return i;
    u = usageview_field(name);
    return u < 0 ? -1 : F_COUNT + u;
}

const char *acctview_fields(void)
{
    static char buf[2048];

    if (buf[0] == '\0')
        for (int i = 0; i < F_COUNT + usageview_count(); i++)
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
                     i ? "," : "", field_name(i));
    return buf;
}

int acctview_spec_parse(const char *s, struct acctview_spec *out, struct err *e)
{
    char *copy = xstrdup(s), *save = NULL, *tok;

    memset(out, 0, sizeof(*out));
    for (tok = strtok_r(copy, ", ", &save); tok != NULL;
         tok = strtok_r(NULL, ", ", &save)) {
        char *pct = strchr(tok, '%'), *end;
        long w = -1;
        int f;
        if (pct != NULL) {
            *pct = '\0';
            w = strtol(pct + 1, &end, 10);
            if (pct[1] == '\0' || *end != '\0' || w < 0 || w > 1000) {
                errno = EINVAL;
                err_set(e, "invalid width in field \"%s%%%s\"", tok, pct + 1);
                goto error;
            }
        }
        if ((f = acctview_field(tok)) < 0) {
            errno = EINVAL;
            err_set(e, "Invalid field requested: \"%s\" (fields: %s)", tok,
                    acctview_fields());
            goto error;
        }
        out->cols = xreallocarray(out->cols, out->n + 1, sizeof(*out->cols));
        out->tab = xreallocarray(out->tab, out->n + 1, sizeof(*out->tab));
        out->cols[out->n] =
            (struct acctview_col){f, w >= 0 ? (int)w : field_width(f)};
        out->tab[out->n] =
            (struct fmt_col){out->cols[out->n].width,
                             f < F_COUNT && fields[f].left, FMT_CUT_PLUS};
        out->n++;
    }
    free(copy);
    if (out->n == 0) {
        errno = EINVAL;
        return err_set(e, "no fields given");
    }
    return 0;
error:
    free(copy);
    acctview_spec_free(out);
    return -1;
}

void acctview_spec_free(struct acctview_spec *sp)
{
    free(sp->cols);
    free(sp->tab);
    memset(sp, 0, sizeof(*sp));
}

/* ---- values ----------------------------------------------------------- */

static time_t jtime(json_t *job, const char *key)
{
    return (time_t)jobview_int(job, key, 0);
}

json_t *acctview_steps(json_t *job)
{
    json_t *steps = json_object_get(job, "steps");

    return json_is_array(steps) ? steps : NULL;
}

bool acctview_has_batch(json_t *job)
{
    return jtime(job, "start_time") > 0 &&
           json_is_string(json_object_get(job, "node_list"));
}

const char *acctview_state(const struct acctview_row *r, char *buf, size_t len)
{
    const char *st = jobview_str(r->job, "job_state", "UNKNOWN");
    json_t *by = json_object_get(r->job, "cancelled_by");

    if (r->rec != NULL)
        return jobview_str(r->rec, "state", "UNKNOWN");
    if (r->step != NULL) {
        /* the script was killed by a signal for these */
        if (strcmp(st, "TIMEOUT") == 0 || strcmp(st, "PREEMPTED") == 0)
            return "CANCELLED";
        return st;
    }
    if (strcmp(st, "CANCELLED") == 0 && json_is_integer(by)) {
        snprintf(buf, len, "CANCELLED by %lld",
                 (long long)json_integer_value(by));
        return buf;
    }
    if (strcmp(st, "PENDING") == 0 && jobview_int(r->job, "restart_count", 0))
        return "REQUEUED";
    return st;
}

static int64_t elapsed(const struct acctview_row *r)
{
    json_t *o = r->rec != NULL ? r->rec : r->job;
    time_t s = jtime(o, "start_time"), e = jtime(o, "end_time");

    if (s <= 0)
        return 0;
    if (e <= 0)
        e = r->now;
    return e > s ? (int64_t)(e - s) : 0;
}

/* Slurm's "HH:MM:SS" / "D-HH:MM:SS". */
static char *hms(int64_t secs, char *buf, size_t len)
{
    if (secs >= 86400)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld",
                 (long long)(secs / 86400), (long long)(secs / 3600 % 24),
                 (long long)(secs / 60 % 60), (long long)(secs % 60));
    else
        snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)(secs / 3600),
                 (long long)(secs / 60 % 60), (long long)(secs % 60));
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A TRES string with its items sorted by name, as sacct prints them. */
static const char *tres_sorted(const char *s, char *buf, size_t len)
{
    char *copy, *save = NULL, *items[32];
    size_t n = 0, off = 0;

    if (s == NULL)
        return "";
    copy = xstrdup(s);
    for (char *t = strtok_r(copy, ",", &save); t && n < 32;
         t = strtok_r(NULL, ",", &save))
        items[n++] = t;
    qsort(items, n, sizeof(items[0]), cmp_str);
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
                                items[i]);
    free(copy);
    return buf;
}

static const char *when(json_t *job, const char *key, char *buf, size_t len)
{
    return fmt_time(jtime(job, key), "Unknown", buf, len);
}

/* The job's id as JobID shows it: "12", "10_3" for task 3 of array job
 * 10, "10_[4-9]" for its tasks not yet started (raw: always the job's own
 * id, as JobIDRaw). */
static char *job_id_str(json_t *job, bool raw, char *buf, size_t len)
{
    if (!raw && jobview_int(job, "array_job_id", 0) > 0)
        jobview_id(job, buf, len); /* 10_3, or 10_[4-9] still pending */
    else
        snprintf(buf, len, "%lld", jobview_int(job, "job_id", 0));
    return buf;
}

/* "code:signal" of an exit_code object; on the job's own line (job) a
 * job that was cancelled, timed out or preempted shows 0:0, as Slurm
 * records it, the signal showing on its batch step. */
static const char *exit_str(json_t *ec, bool job_line, const char *state,
                            char *buf, size_t len)
{
    long long rc = jobview_int(ec, "return_code", 0);
    long long sig = jobview_int(ec, "signal", 0);

    if (buf == NULL || len == 0)
        return "";
    if (job_line && rc == 0 && state != NULL &&
        (strcmp(state, "CANCELLED") == 0 || strcmp(state, "TIMEOUT") == 0 ||
         strcmp(state, "PREEMPTED") == 0 || strcmp(state, "DEADLINE") == 0))
        sig = 0;
    snprintf(buf, len, "%lld:%lld", rc, sig);
    return buf;
}

/* The made-up .batch step's own values; NULL: as the job's. */
static const char *step_value(int f, const struct acctview_row *r, char *buf,
                              size_t len)
{
    if (f >= F_COUNT) /* nothing measured */
        return "";
    switch (f) {
    case F_JOBNAME:
        return r->step;
    case F_NTASKS:
        return "1";
    case F_SUBMIT:
        return when(r->job, "start_time", buf, len);
    case F_NNODES:
        return "1";
    case F_NODELIST:
        return jobview_str(r->job, "batch_host", "");
    case F_PARTITION:
    case F_QOS:
    case F_USER:
    case F_UID:
    case F_TIMELIMIT:
    case F_SUSPENDED:
    case F_REQTRES:
    case F_RESTARTS:
    case F_REASON:
    case F_PRIORITY:
    case F_WORKDIR:
    case F_ELIGIBLE:
    case F_COMMENT:
    case F_WCKEY:
    case F_CONSTRAINTS:
    case F_RESERVATION:
    case F_REQMEM:
    case F_REQCPUS:
    case F_REQNODES:
    case F_TIMELIMITRAW:
    case F_GROUP:
    case F_GID:
    case F_DERIVEDEXITCODE:
    case F_FLAGS:
        return "";
    case F_EXITCODE: /* the signal that ended the script */
        return exit_str(json_object_get(r->job, "exit_code"), false, NULL, buf,
                        len);
    default:
        return NULL;
    }
}

static const char *rec_int(json_t *rec, const char *key, char *buf, size_t len)
{
    snprintf(buf, len, "%lld", jobview_int(rec, key, 0));
    return buf;
}

/* A STEP record's values other than times; NULL: the job's, "": none. */
static const char *rec_value(int f, const struct acctview_row *r, char *buf,
                             size_t len)
{
    json_t *rec = r->rec;
    struct usageview_src src = {json_object_get(rec, "usage"),
                                jobview_int(rec, "ntasks", 0), r->noconvert};
    char sid[32];

    if (f >= F_COUNT)
        return usageview_value(f - F_COUNT, &src, buf, len);
    switch (f) {
    case F_JOBID:
    case F_JOBIDRAW: {
        char id[64];
        snprintf(buf, len, "%s.%s",
                 job_id_str(r->job, f == F_JOBIDRAW, id, sizeof(id)),
                 stepview_step_str(jobview_int(rec, "step_id", 0), sid,
                                   sizeof(sid)));
        return buf;
    }
    case F_JOBNAME:
        return jobview_str(rec, "name", "");
    case F_ACCOUNT:
        return jobview_str(rec, "account", jobview_str(r->job, "account", ""));
    case F_ALLOCCPUS:
        return rec_int(rec, "cpus", buf, len);
    case F_NNODES:
        return rec_int(rec, "num_nodes", buf, len);
    case F_NTASKS:
        return rec_int(rec, "ntasks", buf, len);
    case F_EXITCODE:
        snprintf(buf, len, "%lld:%lld", jobview_int(rec, "exit_code", 0),
                 jobview_int(rec, "signal", 0));
        return buf;
    case F_NODELIST:
        return jobview_str(rec, "nodes", "");
    case F_ALLOCTRES:
        return tres_sorted(jobview_str(rec, "tres", NULL), buf, len);
    case F_REASON:
        return jobview_str(rec, "reason", "");
    case F_STATE:
    case F_ELAPSED:
    case F_ELAPSEDRAW:
        return NULL;
    case F_SUBMIT:
    case F_START:
        return when(rec, "start_time", buf, len);
    case F_END:
        return when(rec, "end_time", buf, len);
    default: /* what Slurm leaves empty on a step's line */
        return "";
    }
}

/* A job's own line: CPU times summed over its steps, other usage empty. */
static const char *job_usage(int f, json_t *job, char *buf, size_t len)
{
    static const char *const sums[][2] = {
        {"TotalCPU", "total_cpu_us"},
        {"UserCPU", "user_cpu_us"},
        {"SystemCPU", "sys_cpu_us"},
    };
    json_t *steps = acctview_steps(job), *st;
    const char *name = usageview_name(f - F_COUNT);
    uint64_t us = 0;
    size_t i;

    for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++) {
        if (strcmp(name, sums[k][0]) != 0)
            continue;
        json_array_foreach(steps, i, st) us +=
            usageview_num(json_object_get(st, "usage"), sums[k][1]);
        return usageview_cpu(us, buf, len);
    }
    return "";
}

static const char *id_value(int f, const struct acctview_row *r, char *buf,
                            size_t len)
{
    char id[64];

    snprintf(buf, len, "%s%s%s",
             job_id_str(r->job, f == F_JOBIDRAW, id, sizeof(id)),
             r->step ? "." : "", r->step ? r->step : "");
    return buf;
}

/* ReqMem: the memory asked for, per node ("4000M"; per CPU times the
 * job's CPUs per node), "0" when none was. */
static const char *req_mem(json_t *j, char *buf, size_t len)
{
    long long per_cpu = jobview_int(j, "mem_per_cpu_mib", 0);
    long long mib = jobview_int(j, "mem_mib", 0);
    long long nodes = jobview_int(j, "nodes", 1);

    if (per_cpu > 0)
        mib = per_cpu * jobview_int(j, "cpus", 1) / (nodes > 0 ? nodes : 1);
    if (mib <= 0)
        return "0";
    snprintf(buf, len, "%lldM", mib);
    return buf;
}

/* The new JOB keys (comment, wckey, constraint, reservation) and the
 * other fields of the job's line that are plain; NULL: not one. */
static const char *more_value(int f, const struct acctview_row *r, char *buf,
                              size_t len)
{
    json_t *j = r->job;
    int64_t lim = jobview_int(j, "time_limit_s", -1);

    switch (f) {
    case F_COMMENT:
        return jobview_str(j, "comment", "");
    case F_WCKEY:
        return jobview_str(j, "wckey", "");
    case F_CONSTRAINTS:
        return jobview_str(j, "constraint", "");
    case F_RESERVATION:
        return jobview_str(j, "reservation", "");
    case F_REQMEM:
        if (usageview_units() != 0 &&
            jobview_int(j, "mem_mib", 0) +
                    jobview_int(j, "mem_per_cpu_mib", 0) >
                0) {
            char tmp[64];
            return usageview_in_units(
                strtoull(req_mem(j, tmp, sizeof(tmp)), NULL, 10) * 1024,
                usageview_units(), buf, len);
        }
        return req_mem(j, buf, len);
    case F_REQCPUS:
    case F_REQNODES:
    case F_GID:
        snprintf(buf, len, "%lld",
                 f == F_REQCPUS    ? jobview_int(j, "cpus", 0)
                 : f == F_REQNODES ? jobview_int(j, "nodes", 1)
                                   : jobview_int(j, "group_id", 0));
        return buf;
    case F_TIMELIMITRAW:
        if (lim < 0)
            return "UNLIMITED";
        snprintf(buf, len, "%lld", (long long)((lim + 59) / 60));
        return buf;
    case F_CLUSTER:
        return jobview_str(j, "cluster", "");
    case F_GROUP: {
        struct group *g = getgrgid((gid_t)jobview_int(j, "group_id", 0));
        if (g == NULL)
            return rec_int(j, "group_id", buf, len);
        snprintf(buf, len, "%s", g->gr_name);
        return buf;
    }
    case F_DERIVEDEXITCODE:
        return "0:0";
    case F_FLAGS:
        return jtime(j, "start_time") > 0 ? "SchedMain" : "";
    default:
        return NULL;
    }
}

static const char *time_value(int f, const struct acctview_row *r, char *buf,
                              size_t len)
{
    int64_t lim = jobview_int(r->job, "time_limit_s", -1);

    switch (f) {
    case F_SUBMIT:
        return when(r->job, "submit_time", buf, len);
    case F_ELIGIBLE:
        return when(r->job, "eligible_time", buf, len);
    case F_START:
        return when(r->job, "start_time", buf, len);
    case F_END:
        return when(r->job, "end_time", buf, len);
    case F_ELAPSED:
        return hms(elapsed(r), buf, len);
    case F_ELAPSEDRAW:
        snprintf(buf, len, "%lld", (long long)elapsed(r));
        return buf;
    case F_SUSPENDED:
        return hms(jobview_int(r->job, "suspended_s", 0), buf, len);
    default: /* F_TIMELIMIT */
        return lim < 0 ? "UNLIMITED" : hms(lim, buf, len);
    }
}

const char *acctview_value(int f, const struct acctview_row *r, char *buf,
                           size_t len)
{
    json_t *j = r->job, *ec = json_object_get(j, "exit_code");
    const char *v;

    if (r->rec != NULL && (v = rec_value(f, r, buf, len)) != NULL)
        return v;
    if (r->step != NULL && (v = step_value(f, r, buf, len)) != NULL)
        return v;
    if (f >= F_COUNT)
        return job_usage(f, j, buf, len);
    switch (f) {
    case F_JOBID:
    case F_JOBIDRAW:
        return id_value(f, r, buf, len);
    case F_JOBNAME:
        return jobview_str(j, "name", "");
    case F_PARTITION:
        return jobview_str(j, "partition", "");
    case F_ACCOUNT:
        return jobview_str(j, "account", "");
    case F_QOS:
        return jobview_str(j, "qos", "");
    case F_USER:
        return jobview_str(j, "user_name", "");
    case F_UID:
    case F_ALLOCCPUS:
    case F_NNODES:
    case F_RESTARTS:
    case F_PRIORITY:
        snprintf(buf, len, "%lld",
                 f == F_UID              ? jobview_int(j, "user_id", 0)
                 : f == F_RESTARTS       ? jobview_int(j, "restart_count", 0)
                 : f == F_PRIORITY       ? jobview_int(j, "priority", 0)
                 : f == F_NNODES         ? jobview_int(j, "nodes", 1)
                 : acctview_has_batch(j) ? jobview_int(j, "cpus", 0)
                                         : 0);
        return buf;
    case F_STATE:
        return acctview_state(r, buf, len);
    case F_EXITCODE:
        return exit_str(ec, true, jobview_str(j, "job_state", ""), buf, len);
    case F_NODELIST:
        return jobview_str(j, "node_list", "None assigned");
    case F_ALLOCTRES:
        return tres_sorted(jobview_str(j, "tres_alloc_str", NULL), buf, len);
    case F_REQTRES:
        return tres_sorted(jobview_str(j, "tres_req_str", NULL), buf, len);
    case F_REASON:
        return jobview_str(j, "state_reason", "None");
    case F_WORKDIR:
        return jobview_str(j, "work_dir", "");
    case F_NTASKS:
        return "";
    default:
        v = more_value(f, r, buf, len);
        return v != NULL ? v : time_value(f, r, buf, len);
    }
}

/* ---- output ----------------------------------------------------------- */

/* Slurm's columns (a blank after each, the last too), -p or -P. */
static struct fmt_tab tab_of(FILE *fp, const struct acctview_spec *sp,
                             enum fmt_tab_mode mode)
{
    return (struct fmt_tab){fp, mode, sp->tab, sp->n, true};
}

/* -p/-P with --delimiter: the cells joined by it (and after the last
 * with -p). */
static void delim_row(FILE *fp, const struct acctview_spec *sp,
                      enum fmt_tab_mode mode, const char *const *cells)
{
    for (size_t i = 0; i < sp->n; i++)
        fprintf(fp, "%s%s", cells[i],
                i + 1 < sp->n || mode == FMT_TAB_PARSABLE ? sp->delim : "");
    fputc('\n', fp);
}

void acctview_header(FILE *fp, const struct acctview_spec *sp,
                     enum fmt_tab_mode mode)
{
    struct fmt_tab t = tab_of(fp, sp, mode);

    if (sp->delim != NULL && mode != FMT_TAB_COLUMNS) {
        const char **cells = xcalloc(sp->n, sizeof(*cells));
        for (size_t i = 0; i < sp->n; i++)
            cells[i] = field_name(sp->cols[i].field);
        delim_row(fp, sp, mode, cells);
        free(cells);
        return;
    }

    for (size_t i = 0; i < sp->n; i++)
        fmt_tab_cell(&t, i, field_name(sp->cols[i].field));
    fmt_tab_rule(&t);
}

void acctview_print(FILE *fp, const struct acctview_spec *sp,
                    enum fmt_tab_mode mode, const struct acctview_row *r)
{
    struct fmt_tab t = tab_of(fp, sp, mode);
    char buf[1024];

    if (sp->delim != NULL && mode != FMT_TAB_COLUMNS) {
        char **cells = xcalloc(sp->n, sizeof(*cells));
        for (size_t i = 0; i < sp->n; i++)
            cells[i] =
                xstrdup(acctview_value(sp->cols[i].field, r, buf, sizeof(buf)));
        delim_row(fp, sp, mode, (const char *const *)cells);
        for (size_t i = 0; i < sp->n; i++)
            free(cells[i]);
        free(cells);
        return;
    }
    for (size_t i = 0; i < sp->n; i++)
        fmt_tab_cell(&t, i,
                     acctview_value(sp->cols[i].field, r, buf, sizeof(buf)));
}

/* The steps of recs that started in [from, to] (to 0: no end); new. */
static json_t *steps_between(json_t *recs, time_t from, time_t to)
{
    json_t *out = json_array(), *rec;
    size_t i;

    json_array_foreach(recs, i, rec)
    {
        time_t st = jtime(rec, "start_time");
        if (st == 0 || (st >= from && (to == 0 || st <= to)))
            json_array_append(out, rec);
    }
    return out;
}

/* "exit=3 signal=15" in a requeue event's detail into exit_code. */
static json_t *detail_exit(const char *detail)
{
    const char *x = detail ? strstr(detail, "exit=") : NULL;
    const char *s = detail ? strstr(detail, "signal=") : NULL;

    return json_pack("{s:i, s:i}", "return_code", x ? atoi(x + 5) : 0, "signal",
                     s ? atoi(s + 7) : 0);
}

/* The run that a requeue event ended: the job with that run's values. */
static json_t *earlier_run(json_t *job, time_t start, const char *nodes,
                           json_t *ev)
{
    json_t *o = json_copy(job);
    const char *detail = jobview_str(ev, "detail", "");
    time_t end = jtime(ev, "time");
    const char *st = strncmp(detail, "after preemption", 16) == 0 ? "PREEMPTED"
                     : strstr(detail, "node") != NULL             ? "NODE_FAIL"
                                                                  : "REQUEUED";

    json_object_set_new(o, "start_time", json_integer((json_int_t)start));
    json_object_set_new(o, "end_time", json_integer((json_int_t)end));
    json_object_set_new(o, "job_state", json_string(st));
    json_object_set_new(o, "exit_code", detail_exit(detail));
    json_object_set_new(o, "node_list", json_string(nodes ? nodes : ""));
    json_object_set_new(o, "cancelled_by", json_null());
    json_object_set_new(o, "restart_count", json_integer(0));
    if (acctview_steps(job) != NULL)
        json_object_set_new(o, "steps",
                            steps_between(acctview_steps(job), start, end));
    return o;
}

json_t *acctview_incarnations(json_t *job, bool dups)
{
    json_t *out = json_array(), *ev, *last = json_copy(job);
    time_t start = 0, cur = jtime(job, "start_time");
    char nodes[256] = "";
    size_t i;

    json_array_foreach(json_object_get(job, "events"), i, ev)
    {
        const char *name = jobview_str(ev, "event", "");
        if (strcmp(name, "start") == 0) {
            const char *d = strstr(jobview_str(ev, "detail", ""), "nodes=");
            start = jtime(ev, "time");
            snprintf(nodes, sizeof(nodes), "%.*s",
                     d ? (int)strcspn(d + 6, " ") : 0, d ? d + 6 : "");
        } else if (strcmp(name, "requeue") == 0 && start > 0) {
            if (dups)
                json_array_append_new(out, earlier_run(job, start, nodes, ev));
            start = 0;
        }
    }
    /* after a requeue the last run has the steps since its start: none
     * while it waits again */
    if (acctview_steps(job) != NULL && jobview_int(job, "restart_count", 0) > 0)
        json_object_set_new(last, "steps",
                            cur > 0 ? steps_between(acctview_steps(job), cur, 0)
                                    : json_array());
    json_array_append_new(out, last);
    return out;
}

/* One STEP record in --json: its ids and values as sacct shows them. */
static json_t *rec_json(json_t *job, json_t *rec, time_t now)
{
    struct acctview_row r = {job, NULL, now, rec, false};
    json_t *o = json_object(), *end = json_object_get(rec, "end_time");
    char buf[1024], sid[32];

#define SET(k, v) json_object_set_new(o, k, v)
#define COPY(k) json_object_set(o, k, json_object_get(rec, k))
    SET("step_id", json_string(stepview_step_str(jobview_int(rec, "step_id", 0),
                                                 sid, sizeof(sid))));
    SET("id", json_string(acctview_value(F_JOBID, &r, buf, sizeof(buf))));
    COPY("name");
    COPY("state");
    SET("exit_code",
        json_pack("{s:I, s:I}", "return_code",
                  (json_int_t)jobview_int(rec, "exit_code", 0), "signal",
                  (json_int_t)jobview_int(rec, "signal", 0)));
    COPY("start_time");
    SET("end_time",
        json_integer_value(end) > 0 ? json_incref(end) : json_null());
    SET("elapsed_s", json_integer(elapsed(&r)));
    SET("node_list", json_string(jobview_str(rec, "nodes", "")));
    COPY("num_nodes");
    COPY("ntasks");
    COPY("cpus");
    SET("alloc_tres",
        json_string(acctview_value(F_ALLOCTRES, &r, buf, sizeof(buf))));
    COPY("reason");
    SET("usage", json_is_object(json_object_get(rec, "usage"))
                     ? json_incref(json_object_get(rec, "usage"))
                     : json_object());
#undef SET
#undef COPY
    return o;
}

/* The job's steps in --json: its STEP records, or the made-up batch. */
static json_t *steps_json(json_t *job, time_t now)
{
    json_t *steps = json_array(), *recs = acctview_steps(job), *rec;
    char buf[256];
    size_t i;

    json_array_foreach(recs, i, rec)
        json_array_append_new(steps, rec_json(job, rec, now));
    if (recs == NULL && acctview_has_batch(job)) {
        struct acctview_row s = {job, "batch", now, NULL, false};
        json_array_append_new(
            steps, json_pack("{s:s, s:s, s:O}", "step_id", "batch", "state",
                             acctview_state(&s, buf, sizeof(buf)), "exit_code",
                             json_object_get(job, "exit_code")));
    }
    return steps;
}

json_t *acctview_json(json_t *job, time_t now)
{
    struct acctview_row r = {job, NULL, now, NULL, false};
    json_t *o = json_object();
    char buf[1024];

#define SET(k, v) json_object_set_new(o, k, v)
#define COPY(k) json_object_set(o, k, json_object_get(job, k))
    COPY("job_id");
    COPY("name");
    COPY("partition");
    COPY("account");
    COPY("qos");
    COPY("user_name");
    COPY("user_id");
    SET("state", json_string(acctview_state(&r, buf, sizeof(buf))));
    COPY("job_state");
    COPY("state_reason");
    COPY("exit_code");
    COPY("submit_time");
    COPY("eligible_time");
    COPY("start_time");
    COPY("end_time");
    SET("elapsed_s", json_integer(elapsed(&r)));
    COPY("time_limit_s");
    COPY("node_list");
    COPY("cpus");
    COPY("nodes");
    SET("alloc_tres",
        json_string(acctview_value(F_ALLOCTRES, &r, buf, sizeof(buf))));
    SET("req_tres",
        json_string(acctview_value(F_REQTRES, &r, buf, sizeof(buf))));
    SET("restarts", json_integer(jobview_int(job, "restart_count", 0)));
    COPY("cancelled_by");
    SET("steps", steps_json(job, now));
    if (json_is_array(json_object_get(job, "events")))
        COPY("events");
    else
        SET("events", json_array());
#undef SET
#undef COPY
    return o;
}
