/*
 * Prometheus's text exposition format, version 0.0.4, as GET /metrics
 * answers it (docs/metrics.md): a family's HELP and TYPE lines, samples
 * with their label values escaped, and histograms as cumulative buckets
 * with _sum and _count.  Writes onto an evbuffer the caller owns.
 */
#ifndef SLUICE_COMMON_PROM_H
#define SLUICE_COMMON_PROM_H

#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>

/* The Content-Type of a page in this format. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum prom_type {
    PROM_COUNTER,
    PROM_GAUGE,
    PROM_HISTOGRAM,
};

/*
 * prom_head: "# HELP name help" and "# TYPE name type".  name is a
 * metric name ([a-zA-Z_:][a-zA-Z0-9_:]*, not checked); help is escaped
 * (backslash, newline).
 */
void prom_head(struct evbuffer *out, const char *name, enum prom_type type,
               const char *help);

/*
 * prom_sample: one line "name{k1="v1",k2="v2"} value".  The variadic
 * arguments are label names and values (const char *) in pairs, ended by
 * NULL; no pair gives "name value".  A NULL value is written as "".
 * Values are escaped (backslash, double quote, newline) and bytes that
 * are not UTF-8 become '?'.  The value is written as an integer when it
 * is one (below 2^53), "NaN", "+Inf", "-Inf", else in the shortest form
 * that reads back exactly.
 */
void prom_sample(struct evbuffer *out, const char *name, double v, ...)
    __attribute__((sentinel));

/*
 * One histogram: n buckets with upper bounds le[0..n-1] (ascending) and
 * bucket[i] observations in bucket i alone (le[i-1] < x <= le[i]: not
 * cumulative); count: all observations (the +Inf bucket, at least the
 * sum of bucket[]); sum: their sum.
 */
struct prom_hist {
    size_t n;
    const double *le;
    const uint64_t *bucket;
    uint64_t count;
    double sum;
};

/*
 * prom_hist: name_bucket{labels,le="B"} with cumulative counts for each
 * bound and "+Inf", then name_sum{labels} and name_count{labels}; labels
 * as for prom_sample.
 */
void prom_hist(struct evbuffer *out, const char *name,
               const struct prom_hist *h, ...) __attribute__((sentinel));

/* prom_number: v as prom_sample writes it, into buf (len >= 32). */
char *prom_number(double v, char *buf, size_t len);

#endif
