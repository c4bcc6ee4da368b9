/*
 * Summary statistics of the simulator's results: median, 95th percentile,
 * maximum and mean of a set of values (wait times, slowdowns).  Pure.
 *
 * The median is the middle value, or the mean of the two middle values
 * of an even count; the p95 is the nearest rank: the smallest value with
 * at least 95% of the values at or below it (the ceil(0.95 n)-th).
 */
#ifndef SLUICE_SIM_STATS_H
#define SLUICE_SIM_STATS_H

#include <stddef.h>

struct sim_summary {
    size_t n;
    double median, p95, max, mean; /* 0 when n is 0 */
};

/* sim_sort: v ascending (in place). */
void sim_sort(double *v, size_t n);

/* sim_median, sim_rank: of v sorted ascending (n > 0; 0 when n is 0);
 * sim_rank(v, n, q) the nearest-rank q-quantile, 0 < q <= 1. */
double sim_median(const double *v, size_t n);
double sim_rank(const double *v, size_t n, double q);

/* sim_summarise: the summary of v (sorted in place). */
struct sim_summary sim_summarise(double *v, size_t n);

#endif
