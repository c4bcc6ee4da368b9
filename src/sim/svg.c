/*
 * Hand-written SVG charts (svg.h).
 */
#include "sim/svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ML 80 /* margins: left, right (the legend), top, bottom */
#define MR 170
#define MT 40
#define MB 56
#define PW (SIM_SVG_WIDTH - ML - MR)
#define PH (SIM_SVG_HEIGHT - MT - MB)

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f"};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

void sim_svg_text(FILE *fp, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            fputs("&amp;", fp);
        else if (c == '<')
            fputs("&lt;", fp);
        else if (c == '>')
            fputs("&gt;", fp);
        else if (c == '"')
            fputs("&quot;", fp);
        else if (c == '\'')
            fputs("&apos;", fp);
        else if (c < 0x20)
            fputc(' ', fp); /* XML 1.0 admits no other controls */
        else
            fputc(c, fp);
    }
}

static void head(FILE *fp, const char *title)
{
    fprintf(fp,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<title>",
            SIM_SVG_WIDTH, SIM_SVG_HEIGHT, SIM_SVG_WIDTH, SIM_SVG_HEIGHT);
    sim_svg_text(fp, title);
    fprintf(fp,
            "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
            "fill=\"white\"/>\n<text x=\"%d\" y=\"24\" font-size=\"15\" "
            "font-weight=\"bold\">",
            SIM_SVG_WIDTH, SIM_SVG_HEIGHT, ML);
    sim_svg_text(fp, title);
    fprintf(fp,
            "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            "fill=\"none\" stroke=\"#444\"/>\n",
            ML, MT, PW, PH);
}

static int tail(FILE *fp)
{
    fprintf(fp, "</svg>\n");
    return ferror(fp) ? -1 : 0;
}

/* A value's place on an axis, in [0, 1]. */
static double frac(const struct sim_svg_axis *a, double v)
{
    double lo = a->min, hi = a->max, f;

    if (a->kind == SIM_SVG_DUR) {
        lo = log10(lo);
        hi = log10(hi);
        v = log10(v < a->min ? a->min : v);
    }
    f = hi > lo ? (v - lo) / (hi - lo) : 0;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static double px(const struct sim_svg_axis *a, double v)
{
    return ML + frac(a, v) * PW;
}

static double py(const struct sim_svg_axis *a, double v)
{
    return MT + PH - frac(a, v) * PH;
}

/* A "nice" step for about n ticks over span. */
static double nice_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void tick_label(const struct sim_svg_axis *a, double v, char *buf,
                       size_t len)
{
    switch (a->kind) {
    case SIM_SVG_PERCENT:
        snprintf(buf, len, "%.0f%%", 100 * v);
        break;
    case SIM_SVG_ELAPSED:
        if (a->max - a->min >= 2 * 86400)
            snprintf(buf, len, "%gd", v / 86400);
        else
            snprintf(buf, len, "%gh", v / 3600);
        break;
    case SIM_SVG_DUR:
        snprintf(buf, len, "%s",
                 v >= 86400  ? "1d"
                 : v >= 3600 ? "1h"
                 : v >= 60   ? "1m"
                             : "1s");
        break;
    case SIM_SVG_PLAIN:
        snprintf(buf, len, "%g", v);
        break;
    }
}

/* The ticks of a: their values into t (at most max); how many. */
static size_t ticks(const struct sim_svg_axis *a, double *t, size_t max)
{
    static const double durs[] = {1, 60, 3600, 86400};
    double step, v;
    size_t n = 0;

    if (a->kind == SIM_SVG_DUR) {
        for (size_t i = 0; i < 4 && n < max; i++)
            if (durs[i] >= a->min && durs[i] <= a->max)
                t[n++] = durs[i];
        return n;
    }
    if (!(a->max > a->min))
        return 0;
    step = nice_step(a->max - a->min, 6);
    if (a->kind == SIM_SVG_ELAPSED)
        step = a->max - a->min >= 2 * 86400
                   ? 86400 * ceil(nice_step((a->max - a->min) / 86400, 6))
                   : 3600 * ceil(nice_step((a->max - a->min) / 3600, 6));
    for (v = ceil(a->min / step) * step; v <= a->max + 1e-9 && n < max;
         v += step)
        t[n++] = v;
    return n;
}

static void axes(FILE *fp, const struct sim_svg_axis *x,
                 const struct sim_svg_axis *y)
{
    double t[32];
    char buf[32];
    size_t n;

    n = ticks(x, t, 32);
    for (size_t i = 0; i < n; i++) {
        double p = px(x, t[i]);
        tick_label(x, t[i], buf, sizeof(buf));
        fprintf(fp,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>\n",
                p, MT, p, MT + PH, p, MT + PH + 16, buf);
    }
    n = ticks(y, t, 32);
    for (size_t i = 0; i < n; i++) {
        double p = py(y, t[i]);
        tick_label(y, t[i], buf, sizeof(buf));
        fprintf(fp,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
                "text-anchor=\"end\">%s</text>\n",
                ML, p, ML + PW, p, ML - 6, p + 4, buf);
    }
    fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", ML + PW / 2,
            SIM_SVG_HEIGHT - 12);
    sim_svg_text(fp, x->label);
    fprintf(fp,
            "</text>\n<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 16 %d)\">",
            MT + PH / 2, MT + PH / 2);
    sim_svg_text(fp, y->label);
    fprintf(fp, "</text>\n");
}

static void legend(FILE *fp, size_t i, const char *name)
{
    int y = MT + 10 + (int)i * 18;

    fprintf(fp,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\">",
            ML + PW + 12, y - 4, colours[i % NCOLOURS], ML + PW + 32, y + 1);
    sim_svg_text(fp, name);
    fprintf(fp, "</text>\n");
}

int sim_svg_lines(FILE *fp, const char *title, const struct sim_svg_axis *x,
                  const struct sim_svg_axis *y, const struct sim_svg_series *s,
                  size_t n)
{
    head(fp, title);
    axes(fp, x, y);
    for (size_t i = 0; i < n; i++) {
        fprintf(fp,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                "points=\"",
                colours[i % NCOLOURS]);
        for (size_t k = 0; k < s[i].n; k++) {
            if (s[i].step && k > 0)
                fprintf(fp, "%.1f,%.1f ", px(x, s[i].x[k]),
                        py(y, s[i].y[k - 1]));
            fprintf(fp, "%.1f,%.1f ", px(x, s[i].x[k]), py(y, s[i].y[k]));
        }
        if (s[i].n == 0)
            fprintf(fp, "%d,%d", ML, MT + PH);
        fprintf(fp, "\"/>\n");
        legend(fp, i, s[i].name);
    }
    return tail(fp);
}

int sim_svg_bars(FILE *fp, const char *title, const char *xlabel,
                 const char *ylabel, const double *v, size_t n)
{
    struct sim_svg_axis x = {xlabel, SIM_SVG_PLAIN, 0, (double)(n ? n : 1)};
    struct sim_svg_axis y = {ylabel, SIM_SVG_PLAIN, 0, 1};
    double w = (double)PW / (double)(n ? n : 1);

    for (size_t i = 0; i < n; i++)
        if (v[i] > y.max)
            y.max = v[i];
    head(fp, title);
    axes(fp, &x, &y);
    for (size_t i = 0; i < n; i++) {
        double h = frac(&y, v[i]) * PH;
        fprintf(fp,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"%s\"/>\n",
                ML + w * (double)i + w * 0.1, MT + PH - h, w * 0.8, h,
                colours[1]);
    }
    return tail(fp);
}
