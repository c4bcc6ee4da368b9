/*
 * The Prometheus text format writer (prom.h): escaping, numbers, label
 * sets and cumulative histogram buckets.
 */
#include "common/prom.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* Integers print exactly as doubles up to 2^53. */
#define PROM_EXACT_MAX 9007199254740992.0

char *prom_number(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "NaN");
    else if (isinf(v))
        snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < PROM_EXACT_MAX)
        snprintf(buf, len, "%.0f", v);
    else {
        snprintf(buf, len, "%.15g", v);
        if (strtod(buf, NULL) != v)
            snprintf(buf, len, "%.17g", v);
    }
    return buf;
}

/* s with the characters of quote escaped (label values: backslash,
 * double quote, newline; HELP: backslash, newline); bytes that are not
 * UTF-8 as '?'. */
static void escaped(struct evbuffer *out, const char *s, bool quote)
{
    size_t len = strlen(s), i = 0, run = 0;

    while (i < len) {
        const char *esc = NULL;
        size_t n = utf8_seq(s + i, len - i, NULL);
        if (s[i] == '\\')
            esc = "\\\\";
        else if (s[i] == '\n')
            esc = "\\n";
        else if (s[i] == '"' && quote)
            esc = "\\\"";
        else if (n == 0)
            esc = "?";
        if (esc == NULL) {
            i += n;
            continue;
        }
        evbuffer_add(out, s + run, i - run);
        evbuffer_add(out, esc, strlen(esc));
        i += n ? n : 1;
        run = i;
    }
    evbuffer_add(out, s + run, len - run);
}

void prom_head(struct evbuffer *out, const char *name, enum prom_type type,
               const char *help)
{
    static const char *const types[] = {
        [PROM_COUNTER] = "counter",
        [PROM_GAUGE] = "gauge",
        [PROM_HISTOGRAM] = "histogram",
    };

    evbuffer_add_printf(out, "# HELP %s ", name);
    escaped(out, help, false);
    evbuffer_add_printf(out, "\n# TYPE %s %s\n", name, types[type]);
}

/* name{labels[,le="le"]} value: the labels from ap (pairs ended by NULL),
 * le after them unless NULL. */
static void line(struct evbuffer *out, const char *name, const char *suffix,
                 va_list ap, const char *le, double v)
{
    const char *key;
    char num[32];
    bool any = false;

    evbuffer_add_printf(out, "%s%s", name, suffix);
    while ((key = va_arg(ap, const char *)) != NULL) {
        const char *val = va_arg(ap, const char *);
        evbuffer_add_printf(out, "%s%s=\"", any ? "," : "{", key);
        escaped(out, val != NULL ? val : "", true);
        evbuffer_add(out, "\"", 1);
        any = true;
    }
    if (le != NULL) {
        evbuffer_add_printf(out, "%sle=\"%s\"", any ? "," : "{", le);
        any = true;
    }
    evbuffer_add_printf(out, "%s %s\n", any ? "}" : "",
                        prom_number(v, num, sizeof(num)));
}

void prom_sample(struct evbuffer *out, const char *name, double v, ...)
{
    va_list ap;

    va_start(ap, v);
    line(out, name, "", ap, NULL, v);
    va_end(ap);
}

void prom_hist(struct evbuffer *out, const char *name,
               const struct prom_hist *h, ...)
{
    va_list ap, cp;
    uint64_t cum = 0;
    char le[32];

    va_start(ap, h);
    for (size_t i = 0; i < h->n; i++) {
        cum += h->bucket[i];
        va_copy(cp, ap);
        line(out, name, "_bucket", cp, prom_number(h->le[i], le, sizeof(le)),
             (double)cum);
        va_end(cp);
    }
    va_copy(cp, ap);
    line(out, name, "_bucket", cp, "+Inf", (double)h->count);
    va_end(cp);
    va_copy(cp, ap);
    line(out, name, "_sum", cp, NULL, h->sum);
    va_end(cp);
    line(out, name, "_count", ap, NULL, (double)h->count);
    va_end(ap);
}
