/*
 * Job steps in the CLI (stepview.h): step ids on the command line, the
 * columns of squeue --steps and the record of scontrol show step, laid
 * out as Slurm prints them.
 */
#include "cli/stepview.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/fmt.h"
#include "cli/jobview.h"
#include "common/proto.h"
#include "common/value.h"
#include "common/xalloc.h"

/* ---- ids -------------------------------------------------------------- */

const char *stepview_step_str(int64_t step_id, char *buf, size_t len)
{
    if (step_id == (int64_t)STEP_BATCH_ID)
        snprintf(buf, len, "batch");
    else if (step_id == (int64_t)STEP_INTERACTIVE_ID)
        snprintf(buf, len, "interactive");
    else
        snprintf(buf, len, "%lld", (long long)step_id);
    return buf;
}

static int bad_id(const char *s, struct err *e)
{
    errno = EINVAL;
    return err_set(e, "Invalid job id: %s", s);
}

/* The part after the dot: a step number or "batch". */
static int parse_step(const char *s, const char *whole, int64_t *out,
                      struct err *e)
{
    uint64_t n;

    if (strcmp(s, "batch") == 0) {
        *out = (int64_t)STEP_BATCH_ID;
        return 0;
    }
    if (strcmp(s, "interactive") == 0) {
        *out = (int64_t)STEP_INTERACTIVE_ID;
        return 0;
    }
    if (strcmp(s, "extern") == 0) {
        errno = EINVAL;
        return err_set(e, "Invalid job id: %s (Sluice has no extern step)",
                       whole);
    }
    if (value_parse_u64(s, 0, STEP_BATCH_ID - 1, &n, NULL) < 0)
        return bad_id(whole, e);
    *out = (int64_t)n;
    return 0;
}

int stepview_id_parse(const char *s, struct stepview_id *out, struct err *e)
{
    const char *dot = strchr(s, '.');
    size_t jlen = dot != NULL ? (size_t)(dot - s) : strlen(s);
    const char *us;
    uint64_t n;

    memset(out, 0, sizeof(*out));
    out->array_task = -1;
    out->step_id = STEPVIEW_NONE;
    if (jlen == 0 || jlen >= sizeof(out->job))
        return bad_id(s, e);
    memcpy(out->job, s, jlen);
    us = strchr(out->job, '_');
    if (value_digits_u64(out->job, us ? (size_t)(us - out->job) : jlen, &n) <
            0 ||
        n == 0 || n > UINT32_MAX)
        return bad_id(s, e);
    out->job_id = n;
    if (us != NULL) {
        if (value_parse_u64(us + 1, 0, UINT32_MAX - 1, &n, NULL) < 0)
            return bad_id(s, e);
        out->array_task = (int64_t)n;
    }
    if (dot != NULL)
        return parse_step(dot + 1, s, &out->step_id, e);
    return 0;
}

/* ---- squeue --steps --------------------------------------------------- */

const char *stepview_header(char letter)
{
    switch (letter) {
    case 'A':
        return "TASKS";
    case 'i':
        return "STEPID";
    case 'I':
        return "STEP";
    case 'j':
        return "NAME";
    case 'l':
        return "TIME_LIMIT";
    case 'M':
        return "TIME";
    case 'N':
        return "NODELIST";
    case 'P':
        return "PARTITION";
    case 'S':
        return "START_TIME";
    case 'u':
        return "USER";
    default: /* 'U' */
        return "UID";
    }
}

long long stepview_elapsed(json_t *step, time_t now)
{
    long long start = jobview_int(step, "start_time", 0),
              end = jobview_int(step, "end_time", 0);

    if (start <= 0)
        return 0;
    if (end <= 0)
        end = (long long)now;
    return end > start ? end - start : 0;
}

/* "12.0" from the STEP's id, or built from its numbers. */
static const char *step_id_text(json_t *step, char *buf, size_t len)
{
    const char *id = jobview_str(step, "id", NULL);
    char s[32];

    if (id != NULL)
        return id;
    snprintf(buf, len, "%lld.%s", jobview_int(step, "job_id", 0),
             stepview_step_str(jobview_int(step, "step_id", 0), s, sizeof(s)));
    return buf;
}

const char *stepview_value(char letter, const void *ctx, char *buf, size_t len)
{
    const struct stepview_row *r = ctx;
    json_t *st = r->step;

    switch (letter) {
    case 'A':
    case 'U':
        snprintf(buf, len, "%lld",
                 jobview_int(st, letter == 'A' ? "ntasks" : "user_id", 0));
        return buf;
    case 'i':
        return step_id_text(st, buf, len);
    case 'I':
        return stepview_step_str(jobview_int(st, "step_id", 0), buf, len);
    case 'j':
        return jobview_str(st, "name", "");
    case 'l':
        return fmt_duration(jobview_int(st, "time_limit_s", -1), "UNLIMITED",
                            buf, len);
    case 'M':
        return fmt_duration(stepview_elapsed(st, r->now), "", buf, len);
    case 'N':
        return jobview_str(st, "nodes", "");
    case 'P':
        return jobview_str(st, "partition", "");
    case 'S':
        return fmt_time((time_t)jobview_int(st, "start_time", 0), "N/A", buf,
                        len);
    default: /* 'u' */
        return jobview_str(st, "user_name", "");
    }
}

static int step_cmp(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    long long jx = jobview_int(x, "job_id", 0),
              jy = jobview_int(y, "job_id", 0);
    long long sx = jobview_int(x, "step_id", 0),
              sy = jobview_int(y, "step_id", 0);

    if (jx != jy)
        return jx < jy ? -1 : 1;
    return sx < sy ? -1 : sx > sy;
}

void stepview_sort(json_t *steps)
{
    size_t n = json_array_size(steps);
    json_t **v;

    if (n < 2)
        return;
    v = xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(steps, i));
    qsort(v, n, sizeof(*v), step_cmp);
    json_array_clear(steps);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(steps, v[i]);
    free(v);
}

/* ---- scontrol show step ----------------------------------------------- */

/* A STEP string, "(null)" when unset, as scontrol prints it. */
static const char *ss(json_t *step, const char *key)
{
    const char *s = jobview_str(step, key, NULL);

    return s != NULL && s[0] != '\0' ? s : "(null)";
}

/* "block" -> "Block", as scontrol prints the distribution. */
static const char *dist_name(const char *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s", d);
    if (buf[0] != '\0')
        buf[0] = (char)toupper((unsigned char)buf[0]);
    return buf;
}

void stepview_show(FILE *fp, json_t *step, bool oneliner)
{
    const char *sep = oneliner ? " " : "\n   ";
    const char *dist = jobview_str(step, "distribution", NULL);
    long long lim = jobview_int(step, "time_limit_s", -1);
    char id[64], start[FMT_BUFLEN], limit[FMT_BUFLEN], d[32];

    fprintf(fp, "StepId=%s UserId=%lld StartTime=%s TimeLimit=%s",
            step_id_text(step, id, sizeof(id)), jobview_int(step, "user_id", 0),
            fmt_time((time_t)jobview_int(step, "start_time", 0), "Unknown",
                     start, sizeof(start)),
            lim < 0 ? "UNLIMITED" : fmt_hms(lim, limit, sizeof(limit)));
    fprintf(fp, "%sState=%s Partition=%s NodeList=%s", sep, ss(step, "state"),
            ss(step, "partition"), ss(step, "nodes"));
    fprintf(fp, "%sNodes=%lld CPUs=%lld Tasks=%lld Name=%s Network=(null)", sep,
            jobview_int(step, "num_nodes", 0), jobview_int(step, "cpus", 0),
            jobview_int(step, "ntasks", 0), ss(step, "name"));
    fprintf(fp, "%sTRES=%s", sep, ss(step, "tres"));
    fprintf(fp, "%sResvPorts=(null)", sep);
    fprintf(fp, "%sCPUFreqReq=Default", sep);
    if (dist != NULL)
        fprintf(fp, " Dist=%s", dist_name(dist, d, sizeof(d)));
    if (json_is_string(json_object_get(step, "srun_host")))
        fprintf(fp, "%sSrunHost:Pid=%s:%lld", sep, ss(step, "srun_host"),
                jobview_int(step, "srun_pid", 0));
    fputc('\n', fp);
}
