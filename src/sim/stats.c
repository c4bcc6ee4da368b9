/*
 * Median, nearest-rank quantiles, maximum and mean (stats.h).
 */
#include "sim/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

void sim_sort(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_double);
}

double sim_median(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    if (n % 2 == 1)
        return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2;
}

double sim_rank(const double *v, size_t n, double q)
{
    double r;
    size_t k;

    if (n == 0)
        return 0;
    r = ceil(q * (double)n - 1e-9);
    k = r < 1 ? 1 : (size_t)r;
    return v[(k > n ? n : k) - 1];
}

struct sim_summary sim_summarise(double *v, size_t n)
{
    struct sim_summary s = {.n = n};
    double sum = 0;

    if (n == 0)
        return s;
    sim_sort(v, n);
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s.median = sim_median(v, n);
    s.p95 = sim_rank(v, n, 0.95);
    s.max = v[n - 1];
    s.mean = sum / (double)n;
    return s;
}
