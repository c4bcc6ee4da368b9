/*
 * The simulation's plots (plots.h).
 */
#include "sim/plots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"
#include "sim/svg.h"

/* Series drawn at most (partitions beyond it are left out of a plot). */
#define PLOT_SERIES_MAX 8

typedef int (*plot_fn)(FILE *fp, const struct sim_report *rep);

static int util_plot(FILE *fp, const struct sim_report *rep)
{
    struct sim_svg_axis x = {"time since the first submission", SIM_SVG_ELAPSED,
                             0,
                             (double)(rep->nbuckets * (size_t)rep->bucket_s)};
    struct sim_svg_axis y = {"GPUs in use", SIM_SVG_PERCENT, 0, 1};
    struct sim_svg_series s[PLOT_SERIES_MAX + 1];
    size_t n = 0;
    double *xs = xcalloc(rep->nbuckets ? rep->nbuckets : 1, sizeof(*xs));
    char title[256];
    int rc;

    for (size_t b = 0; b < rep->nbuckets; b++)
        xs[b] = ((double)b + 0.5) * (double)rep->bucket_s;
    for (size_t p = 0; p <= rep->nparts && n < PLOT_SERIES_MAX + 1; p++) {
        if (p < rep->nparts && (rep->parts[p].util < 0 || n == PLOT_SERIES_MAX))
            continue;
        s[n++] = (struct sim_svg_series){
            p < rep->nparts ? rep->parts[p].name : "all GPUs", xs, rep->util[p],
            rep->nbuckets, false};
    }
    snprintf(title, sizeof(title), "GPU utilisation per partition (%s)",
             rep->config);
    rc = sim_svg_lines(fp, title, &x, &y, s, n);
    free(xs);
    return rc;
}

static int wait_plot(FILE *fp, const struct sim_report *rep)
{
    struct sim_svg_axis x = {"wait time (logarithmic)", SIM_SVG_DUR, 1, 86400};
    struct sim_svg_axis y = {"started jobs that waited at most so long",
                             SIM_SVG_PERCENT, 0, 1};
    struct sim_svg_series s[PLOT_SERIES_MAX];
    double *ys[PLOT_SERIES_MAX];
    size_t n = 0;
    char title[256];
    int rc;

    if (rep->all.wait_s.max > x.max)
        x.max = rep->all.wait_s.max;
    for (size_t p = 0; p < rep->nparts && n < PLOT_SERIES_MAX; p++) {
        const struct sim_group *g = &rep->parts[p];
        if (g->started == 0)
            continue;
        ys[n] = xcalloc(g->started, sizeof(double));
        for (size_t k = 0; k < g->started; k++)
            ys[n][k] = (double)(k + 1) / (double)g->started;
        s[n] =
            (struct sim_svg_series){g->name, g->waits, ys[n], g->started, true};
        n++;
    }
    snprintf(title, sizeof(title), "Wait times per partition (%s)",
             rep->config);
    rc = sim_svg_lines(fp, title, &x, &y, s, n);
    for (size_t i = 0; i < n; i++)
        free(ys[i]);
    return rc;
}

static int preempt_plot(FILE *fp, const struct sim_report *rep)
{
    double *v = xcalloc(rep->ndays ? rep->ndays : 1, sizeof(*v));
    char title[256];
    int rc;

    for (size_t d = 0; d < rep->ndays; d++)
        v[d] = (double)rep->pre_day[d];
    snprintf(title, sizeof(title),
             "Preemptions per day (%s): %zu, %.1f GPU-hours lost", rep->config,
             rep->all.preemptions, rep->all.gpu_hours_lost);
    rc = sim_svg_bars(fp, title, "day since the first submission",
                      "preemptions", v, rep->ndays);
    free(v);
    return rc;
}

int sim_plots_write(const struct sim_report *rep, const char *dir,
                    const char *prefix, struct err *e)
{
    static const struct {
        const char *name;
        plot_fn fn;
    } plots[] = {
        {"util.svg", util_plot},
        {"wait.svg", wait_plot},
        {"preempt.svg", preempt_plot},
    };

    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return err_set(e, "%s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
        char *path = xasprintf("%s/%s%s", dir, prefix, plots[i].name);
        FILE *fp = fopen(path, "w");
        int rc = fp ? plots[i].fn(fp, rep) : -1;
        if (fp != NULL && fclose(fp) != 0)
            rc = -1;
        if (rc < 0) {
            err_set(e, "%s: %s", path, strerror(errno ? errno : EIO));
            free(path);
            return -1;
        }
        free(path);
    }
    return 0;
}
