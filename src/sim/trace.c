/*
 * The simulator's workload (trace.h): jobs, interned names, ordering,
 * the window and the load scale, reading a file whole, the seeded
 * generator.
 */
#include "sim/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void sim_trace_init(struct sim_trace *t, const char *name)
{
    memset(t, 0, sizeof(*t));
    t->name = xstrdup(name ? name : "");
}

void sim_trace_free(struct sim_trace *t)
{
    for (size_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->slots);
    free(t->jobs);
    free(t->name);
    memset(t, 0, sizeof(*t));
}

static uint64_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void rehash(struct sim_trace *t)
{
    t->capslots = t->capslots ? 2 * t->capslots : 64;
    free(t->slots);
    t->slots = xcalloc(t->capslots, sizeof(*t->slots));
    for (size_t i = 0; i < t->nnames; i++) {
        size_t k = hash(t->names[i]) & (t->capslots - 1);
        while (t->slots[k] != 0)
            k = (k + 1) & (t->capslots - 1);
        t->slots[k] = i + 1;
    }
}

const char *sim_trace_intern(struct sim_trace *t, const char *s)
{
    size_t k;

    if (s == NULL)
        return NULL;
    if (2 * (t->nnames + 1) > t->capslots)
        rehash(t);
    k = hash(s) & (t->capslots - 1);
    for (; t->slots[k] != 0; k = (k + 1) & (t->capslots - 1))
        if (strcmp(t->names[t->slots[k] - 1], s) == 0)
            return t->names[t->slots[k] - 1];
    if (t->nnames == t->capnames) {
        t->capnames = t->capnames ? 2 * t->capnames : 64;
        t->names = xreallocarray(t->names, t->capnames, sizeof(*t->names));
    }
    t->names[t->nnames] = xstrdup(s);
    t->slots[k] = ++t->nnames;
    return t->names[t->nnames - 1];
}

struct sim_job_in *sim_trace_add(struct sim_trace *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->jobs = xreallocarray(t->jobs, t->cap, sizeof(*t->jobs));
    }
    memset(&t->jobs[t->n], 0, sizeof(t->jobs[t->n]));
    t->jobs[t->n].nodes = 1;
    return &t->jobs[t->n++];
}

static int by_submit(const void *a, const void *b)
{
    const struct sim_job_in *x = a, *y = b;

    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    /* stable: the trace's order, kept in line (or id for equal lines) */
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void sim_trace_sort(struct sim_trace *t)
{
    if (t->n > 1)
        qsort(t->jobs, t->n, sizeof(*t->jobs), by_submit);
}

void sim_trace_window(struct sim_trace *t, time_t start, time_t end,
                      size_t *dropped)
{
    size_t k = 0;

    for (size_t i = 0; i < t->n; i++)
        if ((start == 0 || t->jobs[i].submit >= start) &&
            (end == 0 || t->jobs[i].submit < end))
            t->jobs[k++] = t->jobs[i];
    *dropped = t->n - k;
    t->n = k;
}

void sim_trace_scale(struct sim_trace *t, double factor)
{
    time_t first = 0;

    for (size_t i = 0; i < t->n; i++)
        if (i == 0 || t->jobs[i].submit < first)
            first = t->jobs[i].submit;
    for (size_t i = 0; i < t->n; i++)
        t->jobs[i].submit =
            first + (time_t)((double)(t->jobs[i].submit - first) * factor);
}

char *sim_read_file(const char *path, size_t max, size_t *len, struct err *e)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;

    if (fp == NULL) {
        err_set(e, "%s: %s", path, strerror(errno));
        return NULL;
    }
    do {
        if (cap - n < 65536) {
            cap = cap ? 2 * cap : 1 << 20;
            buf = xrealloc(buf, cap + 1);
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
    } while (got > 0 && n <= max);
    if (ferror(fp) || n > max) {
        if (n > max)
            err_set(e, "%s: larger than %zu bytes", path, max);
        else
            err_set(e, "%s: %s", path, strerror(errno));
        fclose(fp);
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

uint64_t sim_rng_next(struct sim_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double sim_rng_uniform(struct sim_rng *r, double lo, double hi)
{
    return lo +
           (hi - lo) * ((double)(sim_rng_next(r) >> 11) / 9007199254740992.0);
}
