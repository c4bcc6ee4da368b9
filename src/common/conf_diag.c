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
    }
    free(d->items);
    conf_diag_init(d);
    errno = saved;
}

void conf_diag_add(struct conf_diag *d, enum conf_severity sev,
                   const char *file, int line, int col, const char *fmt, ...)
{
    struct conf_diag_item *it;
    va_list ap;
    int saved = errno;

    if (d == NULL)
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->items = xreallocarray(d->items, d->cap, sizeof(*d->items));
    }
    it = &d->items[d->n++];
    it->severity = sev;
    it->file = xstrdup(file ? file : "");
    it->line = line;
    it->col = col;
    va_start(ap, fmt);
    if (vasprintf(&it->text, fmt, ap) < 0)
        it->text = xstrdup("(out of memory formatting a message)");
    va_end(ap);
    if (sev == CONF_ERROR)
        d->n_errors++;
    else
        d->n_warnings++;
    errno = saved;
}

char *conf_diag_format(const struct conf_diag_item *it, char *buf, size_t len)
{
    const char *sev = it->severity == CONF_ERROR ? "error" : "warning";

    if (it->line > 0 && it->col > 0)
        snprintf(buf, len, "%s:%d:%d: %s: %s", it->file, it->line, it->col, sev,
                 it->text);
    else if (it->line > 0)
        snprintf(buf, len, "%s:%d: %s: %s", it->file, it->line, sev, it->text);
    else
        snprintf(buf, len, "%s: %s: %s", it->file, sev, it->text);
    return buf;
}

void conf_diag_print(const struct conf_diag *d, FILE *fp)
{
    char buf[1024];

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
