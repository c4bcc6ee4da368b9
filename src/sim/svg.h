/*
 * Small SVG charts, written by hand (no library): line charts with
 * linear, logarithmic, time and duration axes, and bar charts; a legend,
 * ticks, and text escaped for XML.  Each chart is one standalone SVG 1.1
 * document of SIM_SVG_WIDTH x SIM_SVG_HEIGHT pixels.
 */
#ifndef SLUICE_SIM_SVG_H
#define SLUICE_SIM_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define SIM_SVG_WIDTH 900
#define SIM_SVG_HEIGHT 420

enum sim_svg_kind {
    SIM_SVG_PLAIN,   /* numbers */
    SIM_SVG_PERCENT, /* a fraction shown as 0-100% */
    SIM_SVG_ELAPSED, /* seconds since the axis' t0, as hours or days */
    SIM_SVG_DUR,     /* seconds, on a logarithmic axis: 1s, 1m, 1h, 1d */
};

struct sim_svg_axis {
    const char *label;
    enum sim_svg_kind kind;
    double min, max; /* SIM_SVG_DUR: > 0 */
};

struct sim_svg_series {
    const char *name;
    const double *x, *y;
    size_t n;
    bool step; /* a step function (a CDF), else straight lines */
};

/* sim_svg_lines: a line chart of s (n series) on axes x and y to fp;
 * 0, or -1 with errno when writing failed. */
int sim_svg_lines(FILE *fp, const char *title, const struct sim_svg_axis *x,
                  const struct sim_svg_axis *y, const struct sim_svg_series *s,
                  size_t n);

/* sim_svg_bars: a bar chart of v (n bars, bar i over [i, i + 1) of the
 * x axis) to fp; 0, or -1 with errno. */
int sim_svg_bars(FILE *fp, const char *title, const char *xlabel,
                 const char *ylabel, const double *v, size_t n);

/* sim_svg_text: s escaped for XML text and attributes to fp. */
void sim_svg_text(FILE *fp, const char *s);

#endif
