/*
 * sluice stat / sstat: the live usage of running steps (STEP_QUERY's
 * latest samples), in sstat's columns, -p/-P, or --json.  As in Slurm,
 * -j JOBID alone means the job's lowest-numbered running srun step (-a:
 * all its running steps, the batch step too) and JOBID.batch the batch
 * script.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobview.h"
#include "cli/opt.h"
#include "cli/stepview.h"
#include "cli/usageview.h"
#include "common/proto.h"
#include "common/xalloc.h"

/* Slurm's default fields, in its order. */
#define SSTAT_DEFAULT                                                          \
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,"            \
    "MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,"         \
    "AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,AveCPUFreq,"          \
    "ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,"    \
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"                \
    "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve,"           \
    "TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,"     \
    "TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,"    \
    "TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,"                 \
    "TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask,"                 \
    "TRESUsageOutTot"

/* sstat's own fields; usageview's field u is S_COUNT + u. */
enum { S_JOBID, S_NODELIST, S_NTASKS, S_COUNT };

static const struct {
    const char *name;
    int width;
} own_fields[S_COUNT] = {
    [S_JOBID] = {"JobID", -12},
    [S_NODELIST] = {"Nodelist", 20},
    [S_NTASKS] = {"NTasks", 8},
};

enum {
    T_ALLSTEPS = 1,
    T_FORMAT,
    T_HELPFORMAT,
    T_JOBS,
    T_NOHEADER,
    T_NOCONVERT,
    T_PARSABLE,
    T_PARSABLE2,
    T_JSON,
    T_VERBOSE,
    T_HELP,
    T_VERSION,
};

static const struct opt_def sstat_opts[] = {
    {"allsteps", 'a', OPT_NOARG, T_ALLSTEPS},
    {"format", 'o', OPT_ARG, T_FORMAT},
    {"fields", 0, OPT_ARG, T_FORMAT},
    {"helpformat", 'e', OPT_NOARG, T_HELPFORMAT},
    {"jobs", 'j', OPT_ARG, T_JOBS},
    {"noheader", 'n', OPT_NOARG, T_NOHEADER},
    {"noconvert", 0, OPT_NOARG, T_NOCONVERT},
    {"parsable", 'p', OPT_NOARG, T_PARSABLE},
    {"parsable2", 'P', OPT_NOARG, T_PARSABLE2},
    {"json", 0, OPT_NOARG, T_JSON},
    {"verbose", 'v', OPT_NOARG, T_VERBOSE},
    {"help", 'h', OPT_NOARG, T_HELP},
    {"usage", 0, OPT_NOARG, T_HELP},
    {"version", 'V', OPT_NOARG, T_VERSION},
    {NULL, 0, OPT_NOARG, 0},
};

struct sstat {
    struct stepview_id *sel; /* -j */
    size_t n_sel;
    const char *format;
    bool all_steps, noheader, json, noconvert;
    enum fmt_tab_mode mode;
    int *fields; /* the columns */
    struct fmt_col *cols;
    size_t n;
};

static const char *field_name(int f)
{
    return f < S_COUNT ? own_fields[f].name : usageview_name(f - S_COUNT);
}

/* A field by name: exact, else the first that it begins (as sstat). */
static int field_find(const char *name)
{
    int n = S_COUNT + usageview_count();
    size_t len = strlen(name);

    for (int i = 0; i < n; i++)
        if (strcasecmp(field_name(i), name) == 0)
            return i;
    for (int i = 0; len > 0 && i < n; i++)
        if (strncasecmp(field_name(i), name, len) == 0)
            return i;
    return -1;
}

static void sstat_helpformat(void)
{
    int n = S_COUNT + usageview_count();

    for (int i = 0; i < n; i++)
        printf("%-20s%s", field_name(i), i % 4 == 3 || i + 1 == n ? "\n" : "");
}

/* One "Name" or "Name%W" (W < 0: left-justified) into s's columns. */
static int sstat_column(struct sstat *s, char *tok, struct err *e)
{
    char *pct = strchr(tok, '%'), *end;
    long w = 0;
    int f;

    if (pct != NULL) {
        *pct = '\0';
        w = strtol(pct + 1, &end, 10);
        if (pct[1] == '\0' || *end != '\0' || w < -1000 || w > 1000) {
            errno = EINVAL;
            return err_set(e, "invalid width in field \"%s%%%s\"", tok,
                           pct + 1);
        }
    }
    if ((f = field_find(tok)) < 0) {
        errno = EINVAL;
        return err_set(e, "Invalid field requested: \"%s\" (see --helpformat)",
                       tok);
    }
    if (pct == NULL)
        w = f < S_COUNT ? own_fields[f].width : usageview_width(f - S_COUNT);
    s->fields = xreallocarray(s->fields, s->n + 1, sizeof(*s->fields));
    s->cols = xreallocarray(s->cols, s->n + 1, sizeof(*s->cols));
    s->fields[s->n] = f;
    s->cols[s->n] =
        (struct fmt_col){w < 0 ? (int)-w : (int)w, w < 0, FMT_CUT_PLUS};
    s->n++;
    return 0;
}

static int sstat_columns(struct sstat *s, const char *list, struct err *e)
{
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;

    for (char *t = strtok_r(copy, ", ", &save); t != NULL && rc == 0;
         t = strtok_r(NULL, ", ", &save))
        rc = sstat_column(s, t, e);
    free(copy);
    if (rc == 0 && s->n == 0) {
        errno = EINVAL;
        return err_set(e, "no fields given");
    }
    return rc;
}

static int sstat_jobs(struct sstat *s, const char *arg, struct err *e)
{
    char *copy = xstrdup(arg), *save = NULL;
    int rc = 0;

    for (char *t = strtok_r(copy, ",", &save); t != NULL && rc == 0;
         t = strtok_r(NULL, ",", &save)) {
        s->sel = xreallocarray(s->sel, s->n_sel + 1, sizeof(*s->sel));
        if ((rc = stepview_id_parse(t, &s->sel[s->n_sel], e)) == 0 &&
            s->sel[s->n_sel].array_task >= 0) {
            errno = EINVAL;
            rc = err_set(e,
                         "Invalid job id: %s (give an array task's own "
                         "job id)",
                         t);
        }
        s->n_sel += rc == 0;
    }
    free(copy);
    return rc;
}

static void sstat_help(void)
{
    printf(
        "Usage: %s -j JOBID[.STEP][,...] [OPTIONS]\n"
        "  -a, --allsteps         -o, --format=FIELDS    -e, --helpformat\n"
        "  -n, --noheader         -p, --parsable         -P, --parsable2\n"
        "      --json             --noconvert (memory in K, disk in bytes)\n",
        cli_slurm_face() ? "sstat" : "sluice stat");
}

static int sstat_opt(struct sstat *s, int id, const char *arg, struct err *e)
{
    switch (id) {
    case T_ALLSTEPS:
        s->all_steps = true;
        return 0;
    case T_FORMAT:
        s->format = arg;
        return 0;
    case T_JOBS:
        return sstat_jobs(s, arg, e);
    case T_NOHEADER:
        s->noheader = true;
        return 0;
    case T_NOCONVERT:
        s->noconvert = true;
        return 0;
    case T_PARSABLE:
        s->mode = FMT_TAB_PARSABLE;
        return 0;
    case T_PARSABLE2:
        s->mode = FMT_TAB_PARSABLE2;
        return 0;
    case T_JSON:
        s->json = true;
        cli_set_raw(true); /* exact JSON out */
        return 0;
    default: /* T_VERBOSE */
        return 0;
    }
}

/* 1: parsed, 0: help printed, -1: error printed. */
static int sstat_parse(struct sstat *s, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, sstat_opts, &id, &arg, &e)) > 0) {
        if (id == T_HELP || id == T_VERSION || id == T_HELPFORMAT) {
            if (id == T_HELP)
                sstat_help();
            else if (id == T_VERSION)
                printf("sluice %s\n", SLUICE_VERSION);
            else
                sstat_helpformat();
            opt_free(&st);
            return 0;
        }
        if ((rc = sstat_opt(s, id, arg, &e)) < 0)
            break;
    }
    if (cli_opt_end(&st, rc, &e) < 0)
        return -1;
    if (s->n_sel == 0) {
        cli_error("You didn't give me any jobs to stat (-j JOBID[.STEP])");
        return -1;
    }
    if (!s->json &&
        sstat_columns(s, s->format ? s->format : SSTAT_DEFAULT, &e) < 0) {
        cli_error("%s", e.text);
        return -1;
    }
    return 1;
}

/* ---- steps ------------------------------------------------------------ */

/* The running steps of sel's job (sel's step only, when given); new
 * array, or NULL after an error printed. */
static json_t *sstat_query(const struct stepview_id *sel)
{
    json_t *req = json_pack("{s:[I], s:b}", "job_ids", (json_int_t)sel->job_id,
                            "running", 1),
           *reply = NULL, *steps;
    struct err e;

    if (sel->step_id != STEPVIEW_NONE)
        json_object_set_new(req, "step_id", json_integer(sel->step_id));
    if (cli_call(PROTO_MSG_STEP_QUERY, req, &reply, &e) < 0) {
        cli_error("couldn't get steps for job %llu: %s",
                  (unsigned long long)sel->job_id, e.text);
        json_decref(req);
        return NULL;
    }
    json_decref(req);
    steps = json_object_get(reply, "steps");
    steps = json_is_array(steps) ? json_incref(steps) : json_array();
    json_decref(reply);
    stepview_sort(steps);
    return steps;
}

/* The steps one -j item shows, appended to out; -1 after an error. */
static int sstat_pick(const struct sstat *s, const struct stepview_id *sel,
                      json_t *out)
{
    json_t *steps = sstat_query(sel), *st;
    char step[32];
    size_t i;
    int n = 0;

    if (steps == NULL)
        return -1;
    json_array_foreach(steps, i, st)
    {
        long long id = jobview_int(st, "step_id", -1);
        /* without -a or a step: the lowest srun step (sorted first) */
        if (sel->step_id == STEPVIEW_NONE && !s->all_steps &&
            (n > 0 || id == (long long)STEP_BATCH_ID))
            continue;
        if (sel->step_id != STEPVIEW_NONE && id != sel->step_id)
            continue;
        json_array_append(out, st);
        n++;
    }
    json_decref(steps);
    if (n > 0)
        return 0;
    if (sel->step_id == STEPVIEW_NONE)
        cli_error("no steps running for job %llu",
                  (unsigned long long)sel->job_id);
    else
        cli_error("job step %llu.%s is not running",
                  (unsigned long long)sel->job_id,
                  stepview_step_str(sel->step_id, step, sizeof(step)));
    return -1;
}

/* ---- output ----------------------------------------------------------- */

static const char *sstat_value(const struct sstat *s, int f, json_t *st,
                               char *buf, size_t len)
{
    struct usageview_src src = {json_object_get(st, "usage"),
                                jobview_int(st, "ntasks", 0), s->noconvert};
    struct stepview_row row = {st, 0};

    switch (f) {
    case S_JOBID:
        return stepview_value('i', &row, buf, len);
    case S_NODELIST:
        return jobview_str(st, "nodes", "");
    case S_NTASKS:
        snprintf(buf, len, "%lld", jobview_int(st, "ntasks", 0));
        return buf;
    default:
        return usageview_value(f - S_COUNT, &src, buf, len);
    }
}

static void sstat_print(const struct sstat *s, json_t *steps)
{
    /* Slurm's print_fields: a blank after every column, the last too */
    struct fmt_tab t = {stdout, s->mode, s->cols, s->n, true};
    json_t *empty = json_object(), *st;
    char buf[1024];
    size_t i;

    if (!s->noheader) {
        for (size_t k = 0; k < s->n; k++)
            fmt_tab_cell(&t, k, field_name(s->fields[k]));
        fmt_tab_rule(&t);
    }
    json_array_foreach(steps, i, st)
    {
        /* a step not sampled yet has measured nothing: zeros */
        if (!json_is_object(json_object_get(st, "usage")))
            json_object_set(st, "usage", empty);
        for (size_t k = 0; k < s->n; k++)
            fmt_tab_cell(&t, k,
                         sstat_value(s, s->fields[k], st, buf, sizeof(buf)));
    }
    json_decref(empty);
}

int cmd_sstat(int argc, char **argv)
{
    struct sstat s = {.mode = FMT_TAB_COLUMNS};
    json_t *steps = json_array();
    int rc, failed = 0;

    cli_set_prog(argv[0]);
    rc = sstat_parse(&s, argc, argv);
    if (rc > 0) {
        for (size_t i = 0; i < s.n_sel; i++)
            failed += sstat_pick(&s, &s.sel[i], steps) < 0;
        cli_close();
        if (s.json) {
            json_t *o = json_pack("{s:O}", "steps", steps);
            json_dumpf(o, stdout, JSON_INDENT(2));
            putchar('\n');
            json_decref(o);
        } else {
            sstat_print(&s, steps);
        }
        rc = failed > 0 ? 1 : 0;
    } else {
        rc = rc < 0 ? 1 : 0;
    }
    json_decref(steps);
    free(s.sel);
    free(s.fields);
    free(s.cols);
    return rc;
}
