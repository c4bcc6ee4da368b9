/*
 * Diagnostics of a configuration parse (every warning and error with its
 * file, line and column), and the pool of file names they refer to.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/xalloc.h"

void conf_diag_init(struct conf_diag *d)
{
    memset(d, 0, sizeof(*d));
}

void conf_diag_free(struct conf_diag *d)
{
    int saved = errno;

    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->items[i].file);
        free(d->items[i].text);
        free(d->items[i].check);
        free(d->items[i].fix);
    }
    free(d->items);
    conf_diag_init(d);
    errno = saved;
}

/* A new item at the end of d, counted, its text from fmt. */
static struct conf_diag_item *add(struct conf_diag *d, enum conf_severity sev,
                                  const char *file, const char *fmt, va_list ap)
{
    struct conf_diag_item *it;

    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->items = xreallocarray(d->items, d->cap, sizeof(*d->items));
    }
    it = &d->items[d->n++];
    memset(it, 0, sizeof(*it));
    it->severity = sev;
    it->file = xstrdup(file ? file : "");
    if (vasprintf(&it->text, fmt, ap) < 0)
        it->text = xstrdup("(out of memory formatting a message)");
    if (sev == CONF_ERROR)
        d->n_errors++;
    else
        d->n_warnings++;
    return it;
}

void conf_diag_add(struct conf_diag *d, enum conf_severity sev,
                   const char *file, int line, int col, const char *fmt, ...)
{
    struct conf_diag_item *it;
    va_list ap;
    int saved = errno;

    if (d == NULL)
        return;
    va_start(ap, fmt);
    it = add(d, sev, file, fmt, ap);
    va_end(ap);
    it->line = line;
    it->col = col;
    errno = saved;
}

void conf_diag_add_fix(struct conf_diag *d, enum conf_severity sev,
                       const char *where, const char *check, const char *fix,
                       const char *fmt, ...)
{
    struct conf_diag_item *it;
    va_list ap;
    int saved = errno;

    if (d == NULL)
        return;
    va_start(ap, fmt);
    it = add(d, sev, where, fmt, ap);
    va_end(ap);
    it->check = check ? xstrdup(check) : NULL;
    it->fix = fix ? xstrdup(fix) : NULL;
    errno = saved;
}

char *conf_diag_format(const struct conf_diag_item *it, char *buf, size_t len)
{
    const char *sev = it->severity == CONF_ERROR ? "error" : "warning";
    int n;

    if (it->line > 0 && it->col > 0)
        n = snprintf(buf, len, "%s:%d:%d: %s: %s", it->file, it->line, it->col,
                     sev, it->text);
    else if (it->line > 0)
        n = snprintf(buf, len, "%s:%d: %s: %s", it->file, it->line, sev,
                     it->text);
    else
        n = snprintf(buf, len, "%s: %s: %s", it->file, sev, it->text);
    if (n < 0 || (size_t)n >= len)
        return buf;
    if (it->fix != NULL)
        n += snprintf(buf + n, len - (size_t)n, "; fix: %s", it->fix);
    if (it->check != NULL && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " [%s]", it->check);
    return buf;
}

void conf_diag_print(const struct conf_diag *d, FILE *fp)
{
    char buf[4096];

    for (size_t i = 0; i < d->n; i++)
        fprintf(fp, "%s\n", conf_diag_format(&d->items[i], buf, sizeof(buf)));
}

const char *conf_strs_add(struct conf_strs *p, const char *s)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i], s) == 0)
            return p->v[i];
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->v = xreallocarray(p->v, p->cap, sizeof(*p->v));
    }
    p->v[p->n] = xstrdup(s);
    return p->v[p->n++];
}

void conf_strs_free(struct conf_strs *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    memset(p, 0, sizeof(*p));
}
