/*
 * The simulation's report (report.h): groups, reasons, series; text,
 * JSON, side by side.
 */
#include "sim/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* Users shown in the text report (all of them are in the JSON). */
#define REPORT_USERS_MAX 20

const char *sim_fmt_dur(double s, char *buf, size_t len)
{
    long long t = (long long)llround(s < 0 ? 0 : s);

    if (t >= 86400)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", t / 86400,
                 t % 86400 / 3600, t % 3600 / 60, t % 60);
    else if (t >= 3600)
        snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t % 3600 / 60,
                 t % 60);
    else
        snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
    return buf;
}

/* ---- groups -------------------------------------------------------------------- */

/* A group under construction: its wait times and slowdowns. */
struct acc {
    double *wait, *sd;
    size_t n, cap;
};

static void acc_add(struct acc *a, double wait, double sd)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->wait = xreallocarray(a->wait, a->cap, sizeof(*a->wait));
        a->sd = xreallocarray(a->sd, a->cap, sizeof(*a->sd));
    }
    a->wait[a->n] = wait;
    a->sd[a->n++] = sd;
}

static void job_into(struct sim_group *g, struct acc *a,
                     const struct sim_job_out *j)
{
    g->jobs++;
    g->never += j->end == SIM_END_NEVER;
    g->rejected += j->end == SIM_END_REJECTED;
    g->timeouts += j->end == SIM_END_TIMEOUT;
    g->preempted_jobs += j->preempted > 0;
    g->preemptions += j->preempted;
    g->gpu_hours += (double)j->gpu_s / 3600;
    g->gpu_hours_lost += (double)j->lost_gpu_s / 3600;
    g->cpu_hours_lost += (double)j->lost_cpu_s / 3600;
    if (j->runs == 0)
        return;
    g->started++;
    double run = (double)(j->in->run_s),
           resp = (double)(j->end_time - j->in->submit), sd;
    if (j->end == SIM_END_TIMEOUT || j->end == SIM_END_PREEMPTED)
        run = (double)(j->end_time - j->first_start);
    sd = resp / (run > SIM_SLOWDOWN_BOUND_S ? run : SIM_SLOWDOWN_BOUND_S);
    acc_add(a, (double)(j->first_start - j->in->submit), sd > 1 ? sd : 1);
}

static void group_done(struct sim_group *g, struct acc *a)
{
    g->wait_s = sim_summarise(a->wait, a->n);
    g->slowdown = sim_summarise(a->sd, a->n);
    g->waits = a->wait;
    free(a->sd);
    memset(a, 0, sizeof(*a));
}

/* Index of name among g (n), added when missing. */
static size_t group_of(struct sim_group **g, struct acc **a, size_t *n,
                       const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*g)[i].name, name) == 0)
            return i;
    *g = xreallocarray(*g, *n + 1, sizeof(**g));
    *a = xreallocarray(*a, *n + 1, sizeof(**a));
    memset(&(*g)[*n], 0, sizeof(**g));
    memset(&(*a)[*n], 0, sizeof(**a));
    (*g)[*n].name = xstrdup(name);
    (*g)[*n].util = -1;
    return (*n)++;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const struct sim_group *)x)->name,
                  ((const struct sim_group *)y)->name);
}

static void never_add(struct sim_report *rep, const struct sim_job_out *j,
                      const char *part)
{
    const char *why = j->reason ? j->reason : "Resources";
    char buf[160];

    if (j->end == SIM_END_REJECTED) {
        snprintf(buf, sizeof(buf), "refused at submit: %s", why);
        why = buf;
    }
    for (size_t i = 0; i < rep->nnever; i++)
        if (strcmp(rep->never[i].reason, why) == 0 &&
            strcmp(rep->never[i].part, part) == 0) {
            rep->never[i].n++;
            return;
        }
    rep->never =
        xreallocarray(rep->never, rep->nnever + 1, sizeof(*rep->never));
    rep->never[rep->nnever++] =
        (struct sim_never){xstrdup(why), xstrdup(part), 1, j->in->id};
}

/* ---- series ---------------------------------------------------------------------- */

static void util_series(const struct sim_result *r, struct sim_report *rep)
{
    static const int64_t widths[] = {60, 300, 900, 3600, 14400, 86400, 604800};
    int64_t span = rep->t_last - rep->t_first + 1;
    size_t np = r->nparts, k = 0;
    int64_t *cur = xcalloc(np + 1, sizeof(*cur));
    time_t *last = xcalloc(np + 1, sizeof(*last));

    while (k + 1 < sizeof(widths) / sizeof(widths[0]) &&
           span / widths[k] >= 200)
        k++;
    rep->bucket_s = widths[k];
    rep->nbuckets = (size_t)((span + rep->bucket_s - 1) / rep->bucket_s);
    rep->util = xcalloc(np + 1, sizeof(*rep->util));
    for (size_t p = 0; p <= np; p++) {
        rep->util[p] = xcalloc(rep->nbuckets, sizeof(**rep->util));
        last[p] = rep->t_first;
    }
    for (size_t i = 0; i <= r->ngpu; i++) {
        time_t t = i < r->ngpu ? r->gpu[i].t : rep->t_last + 1;
        for (size_t p = 0; p <= np; p++) {
            if (i < r->ngpu && p != r->gpu[i].part && p != np)
                continue;
            /* cur[p] GPUs held over [last[p], t) */
            for (time_t a = last[p]; a < t && cur[p] > 0;) {
                size_t b = (size_t)((a - rep->t_first) / rep->bucket_s);
                time_t bend = rep->t_first + (time_t)(b + 1) * rep->bucket_s;
                time_t e = bend < t ? bend : t;
                if (b < rep->nbuckets)
                    rep->util[p][b] += (double)cur[p] * (double)(e - a);
                a = e;
            }
            last[p] = t;
            if (i < r->ngpu)
                cur[p] += r->gpu[i].delta;
        }
    }
    for (size_t p = 0; p <= np; p++) {
        double cap = (double)(p < np ? r->part_gpus[p] : r->cluster_gpus);
        for (size_t b = 0; b < rep->nbuckets; b++)
            rep->util[p][b] =
                cap > 0 ? rep->util[p][b] / (cap * (double)rep->bucket_s) : 0;
    }
    free(cur);
    free(last);
}

static double mean_util(const struct sim_report *rep, size_t p, uint64_t gpus)
{
    double s = 0;

    if (gpus == 0 || rep->nbuckets == 0)
        return -1;
    for (size_t b = 0; b < rep->nbuckets; b++)
        s += rep->util[p][b];
    /* the last bucket is partly outside the span: weigh by the span */
    return s * (double)rep->bucket_s / (double)(rep->t_last - rep->t_first + 1);
}

/* Sort (recorded, simulated) pairs by recorded time, then simulated. */
static int by_rec(const void *x, const void *y)
{
    const time_t *a = x, *b = y;

    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Pairs in the other order: merge sort counting inversions of the
 * simulated times of pairs sorted by recorded time (ties of either are
 * no inversion). */
static size_t inversions(time_t *v, time_t *tmp, size_t n)
{
    size_t m = n / 2, inv, i, j, k;

    if (n < 2)
        return 0;
    inv = inversions(v, tmp, m) + inversions(v + m, tmp, n - m);
    for (i = 0, j = m, k = 0; i < m || j < n;) {
        if (j == n || (i < m && v[i] <= v[j])) {
            tmp[k++] = v[i++];
        } else {
            inv += m - i;
            tmp[k++] = v[j++];
        }
    }
    memcpy(v, tmp, n * sizeof(*v));
    return inv;
}

static void fidelity(const struct sim_result *r, struct sim_fidelity *f)
{
    time_t *pairs = xcalloc(2 * (r->njobs ? r->njobs : 1), sizeof(*pairs));
    double *d = xcalloc(r->njobs ? r->njobs : 1, sizeof(*d));
    time_t *sims, *tmp;
    size_t n = 0;

    for (size_t i = 0; i < r->njobs; i++) {
        const struct sim_job_out *j = &r->jobs[i];
        time_t diff;
        if (!j->in->has_rec || j->runs == 0)
            continue;
        diff = j->first_start - j->in->rec_start;
        diff = diff < 0 ? -diff : diff;
        f->same += diff == 0;
        f->within1 += diff <= 1;
        d[n] = (double)diff;
        pairs[2 * n] = j->in->rec_start;
        pairs[2 * n + 1] = j->first_start;
        n++;
    }
    f->jobs = n;
    f->abs_s = sim_summarise(d, n);
    qsort(pairs, n, 2 * sizeof(*pairs), by_rec);
    sims = xcalloc(n ? n : 1, sizeof(*sims));
    tmp = xcalloc(n ? n : 1, sizeof(*tmp));
    for (size_t i = 0; i < n; i++)
        sims[i] = pairs[2 * i + 1];
    f->order_diff = inversions(sims, tmp, n);
    free(sims);
    free(tmp);
    free(pairs);
    free(d);
}

void sim_report_build(const struct sim_result *r, const char *trace,
                      const char *config, struct sim_report *out)
{
    struct acc all = {0}, *pa = NULL, *qa = NULL, *ua = NULL;

    memset(out, 0, sizeof(*out));
    out->trace = xstrdup(trace);
    out->config = xstrdup(config);
    out->t_first = r->t_first;
    out->t_last = r->t_last > r->t_first ? r->t_last : r->t_first;
    out->passes = r->passes;
    out->all.name = xstrdup("all");
    for (size_t p = 0; p < r->nparts; p++)
        group_of(&out->parts, &pa, &out->nparts, r->part_names[p]);
    for (size_t i = 0; i < r->njobs; i++) {
        const struct sim_job_out *j = &r->jobs[i];
        size_t g;
        job_into(&out->all, &all, j);
        job_into(&out->parts[j->part], &pa[j->part], j);
        g = group_of(&out->qos, &qa, &out->nqos, j->qos ? j->qos : "(none)");
        job_into(&out->qos[g], &qa[g], j);
        g = group_of(&out->users, &ua, &out->nusers, j->in->user);
        job_into(&out->users[g], &ua[g], j);
        if (j->end == SIM_END_NEVER || j->end == SIM_END_REJECTED)
            never_add(out, j, r->part_names[j->part]);
    }
    group_done(&out->all, &all);
    for (size_t i = 0; i < out->nparts; i++)
        group_done(&out->parts[i], &pa[i]);
    for (size_t i = 0; i < out->nqos; i++)
        group_done(&out->qos[i], &qa[i]);
    for (size_t i = 0; i < out->nusers; i++)
        group_done(&out->users[i], &ua[i]);
    free(pa);
    free(qa);
    free(ua);
    qsort(out->qos, out->nqos, sizeof(*out->qos), by_name);
    qsort(out->users, out->nusers, sizeof(*out->users), by_name);
    fidelity(r, &out->fid);
    util_series(r, out);
    for (size_t p = 0; p < out->nparts; p++)
        out->parts[p].util = mean_util(out, p, r->part_gpus[p]);
    out->all.util = mean_util(out, r->nparts, r->cluster_gpus);
    out->ndays = (size_t)((out->t_last - out->t_first) / 86400 + 1);
    out->pre_day = xcalloc(out->ndays, sizeof(*out->pre_day));
    out->lost_day = xcalloc(out->ndays, sizeof(*out->lost_day));
    for (size_t i = 0; i < r->npre; i++) {
        size_t d = (size_t)((r->pre[i].t - out->t_first) / 86400);
        if (d < out->ndays) {
            out->pre_day[d]++;
            out->lost_day[d] += (double)r->pre[i].lost_gpu_s / 3600;
        }
    }
}

static void group_free(struct sim_group *g)
{
    free(g->name);
    free(g->waits);
}

void sim_report_free(struct sim_report *rep)
{
    group_free(&rep->all);
    for (size_t i = 0; i < rep->nparts; i++)
        group_free(&rep->parts[i]);
    for (size_t i = 0; i < rep->nqos; i++)
        group_free(&rep->qos[i]);
    for (size_t i = 0; i < rep->nusers; i++)
        group_free(&rep->users[i]);
    for (size_t i = 0; i < rep->nnever; i++) {
        free(rep->never[i].reason);
        free(rep->never[i].part);
    }
    for (size_t p = 0; rep->util != NULL && p <= rep->nparts; p++)
        free(rep->util[p]);
    free(rep->util);
    free(rep->parts);
    free(rep->qos);
    free(rep->users);
    free(rep->never);
    free(rep->pre_day);
    free(rep->lost_day);
    free(rep->trace);
    free(rep->config);
    memset(rep, 0, sizeof(*rep));
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *summary_json(const struct sim_summary *s)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)s->n,
                     "median", s->median, "p95", s->p95, "max", s->max, "mean",
                     s->mean);
}

static json_t *group_json(const struct sim_group *g)
{
    json_t *o = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:f, s:f, s:f}",
        "name", g->name, "jobs", (json_int_t)g->jobs, "started",
        (json_int_t)g->started, "never_started", (json_int_t)g->never,
        "rejected", (json_int_t)g->rejected, "timeouts",
        (json_int_t)g->timeouts, "preemptions", (json_int_t)g->preemptions,
        "preempted_jobs", (json_int_t)g->preempted_jobs, "wait_s",
        summary_json(&g->wait_s), "slowdown", summary_json(&g->slowdown),
        "gpu_hours", g->gpu_hours, "gpu_hours_lost", g->gpu_hours_lost,
        "cpu_hours_lost", g->cpu_hours_lost);

    json_object_set_new(o, "gpu_utilisation",
                        g->util >= 0 ? json_real(g->util) : json_null());
    return o;
}

static json_t *groups_json(const struct sim_group *g, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, group_json(&g[i]));
    return a;
}

json_t *sim_report_json(const struct sim_report *rep)
{
    json_t *never = json_array(), *util = json_object(), *days = json_array();

    for (size_t i = 0; i < rep->nnever; i++)
        json_array_append_new(
            never,
            json_pack("{s:s, s:s, s:I, s:I}", "reason", rep->never[i].reason,
                      "partition", rep->never[i].part, "jobs",
                      (json_int_t)rep->never[i].n, "example_job",
                      (json_int_t)rep->never[i].example));
    for (size_t p = 0; p <= rep->nparts; p++) {
        json_t *a = json_array();
        for (size_t b = 0; b < rep->nbuckets; b++)
            json_array_append_new(a, json_real(rep->util[p][b]));
        json_object_set_new(util, p < rep->nparts ? rep->parts[p].name : "all",
                            a);
    }
    for (size_t d = 0; d < rep->ndays; d++)
        json_array_append_new(
            days, json_pack("{s:I, s:I, s:f}", "day", (json_int_t)d,
                            "preemptions", (json_int_t)rep->pre_day[d],
                            "gpu_hours_lost", rep->lost_day[d]));
    json_t *o = json_pack(
        "{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, "
        "s:{s:I, s:I, s:o}, s:o}",
        "trace", rep->trace, "config", rep->config, "start",
        (json_int_t)rep->t_first, "end", (json_int_t)rep->t_last, "passes",
        (json_int_t)rep->passes, "all", group_json(&rep->all), "partitions",
        groups_json(rep->parts, rep->nparts), "qos",
        groups_json(rep->qos, rep->nqos), "users",
        groups_json(rep->users, rep->nusers), "never_started", never,
        "gpu_utilisation", "start", (json_int_t)rep->t_first, "bucket_s",
        (json_int_t)rep->bucket_s, "partitions", util, "preemptions_per_day",
        days);

    if (rep->fid.jobs > 0)
        json_object_set_new(
            o, "fidelity",
            json_pack("{s:I, s:I, s:I, s:o, s:I}", "jobs",
                      (json_int_t)rep->fid.jobs, "same_start",
                      (json_int_t)rep->fid.same, "within_1s",
                      (json_int_t)rep->fid.within1, "abs_diff_s",
                      summary_json(&rep->fid.abs_s), "order_inversions",
                      (json_int_t)rep->fid.order_diff));
    return o;
}

/* ---- text ------------------------------------------------------------------------- */

static void header_row(FILE *fp, const char *what)
{
    fprintf(fp, "%-14s %7s %7s %6s %7s %10s %10s %11s %8s %7s %10s %8s\n", what,
            "JOBS", "STARTED", "NEVER", "REFUSED", "WAIT-MED", "WAIT-P95",
            "WAIT-MAX", "SLOWDOWN", "PREEMPT", "GPU-H-LOST", "GPU-UTIL");
}

static void row(FILE *fp, const struct sim_group *g)
{
    char a[32], b[32], c[32], u[16] = "-";

    if (g->util >= 0)
        snprintf(u, sizeof(u), "%.1f%%", 100 * g->util);
    fprintf(fp,
            "%-14.14s %7zu %7zu %6zu %7zu %10s %10s %11s %8.2f %7zu %10.1f "
            "%8s\n",
            g->name, g->jobs, g->started, g->never, g->rejected,
            sim_fmt_dur(g->wait_s.median, a, sizeof(a)),
            sim_fmt_dur(g->wait_s.p95, b, sizeof(b)),
            sim_fmt_dur(g->wait_s.max, c, sizeof(c)), g->slowdown.median,
            g->preemptions, g->gpu_hours_lost, u);
}

static int by_jobs(const void *x, const void *y)
{
    const struct sim_group *a = *(const struct sim_group *const *)x;
    const struct sim_group *b = *(const struct sim_group *const *)y;

    if (a->jobs != b->jobs)
        return a->jobs > b->jobs ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* A Unix time as a UTC date; a trace's own small times (from 0) as
 * seconds. */
static void fmt_time(time_t t, char *buf, size_t len)
{
    struct tm tm;

    if (t < 10 * 365 * 86400) {
        snprintf(buf, len, "t=%llds", (long long)t);
        return;
    }
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sim_report_print(FILE *fp, const struct sim_report *rep)
{
    const struct sim_group **top;
    size_t nu = rep->nusers < REPORT_USERS_MAX ? rep->nusers : REPORT_USERS_MAX;
    char t0[32], t1[32], span[32];

    fmt_time(rep->t_first, t0, sizeof(t0));
    fmt_time(rep->t_last, t1, sizeof(t1));
    fprintf(
        fp, "%s on %s: %zu jobs, %s to %s (%s simulated, %zu passes)\n",
        rep->trace, rep->config, rep->all.jobs, t0, t1,
        sim_fmt_dur((double)(rep->t_last - rep->t_first), span, sizeof(span)),
        rep->passes);
    fprintf(fp,
            "started %zu, never started %zu, refused at submit %zu, "
            "timed out %zu; %zu preemptions, %.1f GPU-hours lost\n\n",
            rep->all.started, rep->all.never, rep->all.rejected,
            rep->all.timeouts, rep->all.preemptions, rep->all.gpu_hours_lost);
    if (rep->fid.jobs > 0)
        fprintf(fp,
                "against the starts the trace recorded: %zu jobs, %zu at the "
                "same second, %zu within 1 s, median |difference| %s, max "
                "%s, %zu pairs in the other order\n\n",
                rep->fid.jobs, rep->fid.same, rep->fid.within1,
                sim_fmt_dur(rep->fid.abs_s.median, span, sizeof(span)),
                sim_fmt_dur(rep->fid.abs_s.max, t0, sizeof(t0)),
                rep->fid.order_diff);
    header_row(fp, "PARTITION");
    for (size_t i = 0; i < rep->nparts; i++)
        row(fp, &rep->parts[i]);
    fprintf(fp, "\n");
    header_row(fp, "QOS");
    for (size_t i = 0; i < rep->nqos; i++)
        row(fp, &rep->qos[i]);
    fprintf(fp, "\n");
    header_row(fp, "USER");
    top = xcalloc(rep->nusers ? rep->nusers : 1, sizeof(*top));
    for (size_t i = 0; i < rep->nusers; i++)
        top[i] = &rep->users[i];
    qsort(top, rep->nusers, sizeof(*top), by_jobs);
    for (size_t i = 0; i < nu; i++)
        row(fp, top[i]);
    if (nu < rep->nusers)
        fprintf(fp, "(%zu more users: --json has them all)\n",
                rep->nusers - nu);
    free(top);
    fprintf(fp, "\n");
    header_row(fp, "");
    row(fp, &rep->all);
    if (rep->nnever == 0)
        return;
    fprintf(fp, "\nJobs that never started, and why:\n");
    for (size_t i = 0; i < rep->nnever; i++)
        fprintf(fp, "  %6zu  %-14s %s (e.g. job %llu)\n", rep->never[i].n,
                rep->never[i].part, rep->never[i].reason,
                (unsigned long long)rep->never[i].example);
}

/* ---- side by side ---------------------------------------------------------------- */

static const struct sim_group *find(const struct sim_group *g, size_t n,
                                    const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    return NULL;
}

static void cmp_line(FILE *fp, const char *what, double a, double b, bool dur,
                     int prec)
{
    char x[32], y[32], z[32], d[40];

    if (dur) {
        sim_fmt_dur(a, x, sizeof(x));
        sim_fmt_dur(b, y, sizeof(y));
        snprintf(d, sizeof(d), "%s%s", b < a ? "-" : "+",
                 sim_fmt_dur(fabs(b - a), z, sizeof(z)));
    } else {
        snprintf(x, sizeof(x), "%.*f", prec, a);
        snprintf(y, sizeof(y), "%.*f", prec, b);
        snprintf(d, sizeof(d), "%+.*f", prec, b - a);
    }
    fprintf(fp, "  %-18s %16s %16s %14s\n", what, x, y, d);
}

static void cmp_group(FILE *fp, const char *title, const struct sim_group *a,
                      const struct sim_group *b)
{
    static const struct sim_group none = {.util = -1};

    a = a ? a : &none;
    b = b ? b : &none;
    fprintf(fp, "%s\n", title);
    cmp_line(fp, "jobs started", (double)a->started, (double)b->started, false,
             0);
    cmp_line(fp, "never started", (double)(a->never + a->rejected),
             (double)(b->never + b->rejected), false, 0);
    cmp_line(fp, "wait median", a->wait_s.median, b->wait_s.median, true, 0);
    cmp_line(fp, "wait p95", a->wait_s.p95, b->wait_s.p95, true, 0);
    cmp_line(fp, "wait max", a->wait_s.max, b->wait_s.max, true, 0);
    cmp_line(fp, "slowdown median", a->slowdown.median, b->slowdown.median,
             false, 2);
    cmp_line(fp, "preemptions", (double)a->preemptions, (double)b->preemptions,
             false, 0);
    cmp_line(fp, "GPU-hours lost", a->gpu_hours_lost, b->gpu_hours_lost, false,
             1);
    if (a->util >= 0 || b->util >= 0)
        cmp_line(fp, "GPU utilisation %", a->util >= 0 ? 100 * a->util : 0,
                 b->util >= 0 ? 100 * b->util : 0, false, 1);
}

void sim_report_compare(FILE *fp, const struct sim_report *a,
                        const struct sim_report *b)
{
    char title[160];

    fprintf(fp, "%s: %zu jobs replayed on two configurations\n", a->trace,
            a->all.jobs);
    fprintf(fp, "  %-18s %16.16s %16.16s %14s\n", "", a->config, b->config,
            "difference");
    for (size_t i = 0; i < a->nparts; i++) {
        snprintf(title, sizeof(title), "PARTITION %s", a->parts[i].name);
        cmp_group(fp, title, &a->parts[i],
                  find(b->parts, b->nparts, a->parts[i].name));
    }
    for (size_t i = 0; i < b->nparts; i++)
        if (find(a->parts, a->nparts, b->parts[i].name) == NULL) {
            snprintf(title, sizeof(title), "PARTITION %s", b->parts[i].name);
            cmp_group(fp, title, NULL, &b->parts[i]);
        }
    for (size_t i = 0; i < a->nqos; i++) {
        snprintf(title, sizeof(title), "QOS %s", a->qos[i].name);
        cmp_group(fp, title, &a->qos[i], find(b->qos, b->nqos, a->qos[i].name));
    }
    cmp_group(fp, "ALL", &a->all, &b->all);
}
