/*
 * Slurm's output formats, kept in one place so that every verb prints
 * times, sizes and columns the way squeue, sinfo and scontrol do.
 */
#include "cli/fmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

char *fmt_duration(int64_t secs, const char *inf, char *buf, size_t len)
{
    int64_t d, h, m, s;

    if (secs < 0) {
        snprintf(buf, len, "%s", inf);
        return buf;
    }
    d = secs / 86400;
    h = secs / 3600 % 24;
    m = secs / 60 % 60;
    s = secs % 60;
    if (d > 0)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)d,
                 (long long)h, (long long)m, (long long)s);
    else if (h > 0)
        snprintf(buf, len, "%lld:%02lld:%02lld", (long long)h, (long long)m,
                 (long long)s);
    else
        snprintf(buf, len, "%lld:%02lld", (long long)m, (long long)s);
    return buf;
}

char *fmt_hms(int64_t secs, char *buf, size_t len)
{
    int64_t d, h, m, s;

    if (secs < 0)
        secs = 0;
    d = secs / 86400;
    h = secs / 3600 % 24;
    m = secs / 60 % 60;
    s = secs % 60;
    if (d > 0)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)d,
                 (long long)h, (long long)m, (long long)s);
    else
        snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)h, (long long)m,
                 (long long)s);
    return buf;
}

char *fmt_time(time_t t, const char *none, char *buf, size_t len)
{
    struct tm tm;

    if (t <= 0 || localtime_r(&t, &tm) == NULL ||
        strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf(buf, len, "%s", none);
    return buf;
}

/* --noconvert: sizes stay in MiB ("2048M", never "2G"). */
static bool fmt_noconvert;

void fmt_set_noconvert(bool on)
{
    fmt_noconvert = on;
}

char *fmt_mem(uint64_t mib, char *buf, size_t len)
{
    if (mib == 0)
        snprintf(buf, len, "0");
    else if (fmt_noconvert)
        snprintf(buf, len, "%lluM", (unsigned long long)mib);
    else if (mib % (1024 * 1024) == 0)
        snprintf(buf, len, "%lluT", (unsigned long long)(mib >> 20));
    else if (mib % 1024 == 0)
        snprintf(buf, len, "%lluG", (unsigned long long)(mib >> 10));
    else
        snprintf(buf, len, "%lluM", (unsigned long long)mib);
    return buf;
}

/* Literal text from *pp up to the next field, with "%%" as "%". */
static char *spec_literal(const char **pp)
{
    const char *p = *pp;
    char *out = xmalloc(strlen(p) + 1);
    size_t n = 0;

    while (*p != '\0') {
        if (p[0] == '%' && p[1] == '%') {
            out[n++] = '%';
            p += 2;
        } else if (p[0] == '%') {
            break;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    *pp = p;
    return out;
}

/* One "%[.|-][width]letter" at *pp (which points at '%'). */
static int spec_field(const char **pp, const char *start, const char *valid,
                      struct fmt_field *f, struct err *e)
{
    const char *p = *pp + 1;
    long w = 0;

    memset(f, 0, sizeof(*f));
    if (*p == '.') {
        f->right = true;
        p++;
    } else if (*p == '-') {
        p++;
    }
    if (*p == '#') { /* sinfo's "%#P": as wide as the widest value */
        f->autow = true;
        p++;
    }
    while (*p >= '0' && *p <= '9') {
        w = w * 10 + (*p++ - '0');
        if (w > 1000) {
            errno = EINVAL;
            return err_set(e, "field width over 1000 at column %d",
                           (int)(*pp - start) + 1);
        }
    }
    if (*p == '\0' || strchr(valid, *p) == NULL) {
        errno = EINVAL;
        return err_set(e, "invalid field \"%.*s\" at column %d",
                       (int)(p - *pp) + (*p != '\0'), *pp,
                       (int)(*pp - start) + 1);
    }
    f->letter = *p++;
    f->width = (int)w;
    *pp = p;
    return 0;
}

int fmt_spec_parse(const char *s, const char *valid, struct fmt_spec *out,
                   struct err *e)
{
    const char *p = s;

    memset(out, 0, sizeof(*out));
    out->prefix = spec_literal(&p);
    while (*p != '\0') {
        struct fmt_field f;
        if (spec_field(&p, s, valid, &f, e) < 0) {
            fmt_spec_free(out);
            return -1;
        }
        f.suffix = spec_literal(&p);
        out->fields =
            xreallocarray(out->fields, out->n + 1, sizeof(*out->fields));
        out->fields[out->n++] = f;
    }
    if (out->n == 0) {
        fmt_spec_free(out);
        errno = EINVAL;
        return err_set(e, "no field in format \"%s\"", s);
    }
    return 0;
}

void fmt_spec_free(struct fmt_spec *sp)
{
    for (size_t i = 0; i < sp->n; i++)
        free(sp->fields[i].suffix);
    free(sp->fields);
    free(sp->prefix);
    memset(sp, 0, sizeof(*sp));
}

void fmt_cell(FILE *fp, const char *s, int width, bool right)
{
    int len = (int)strlen(s);

    if (width <= 0) {
        fputs(s, fp);
        return;
    }
    if (len >= width) {
        fwrite(s, 1, (size_t)width, fp);
        return;
    }
    if (right)
        fprintf(fp, "%*s", width, s);
    else
        fprintf(fp, "%-*s", width, s);
}

void fmt_spec_print(FILE *fp, const struct fmt_spec *sp, fmt_value_fn value,
                    const void *ctx)
{
    char buf[1024];

    fputs(sp->prefix, fp);
    for (size_t i = 0; i < sp->n; i++) {
        const struct fmt_field *f = &sp->fields[i];
        fmt_cell(fp, value(f->letter, ctx, buf, sizeof(buf)), f->width,
                 f->right);
        fputs(f->suffix, fp);
    }
    fputc('\n', fp);
}

void fmt_spec_fit(struct fmt_spec *sp, fmt_value_fn value, const void *ctx)
{
    char buf[1024];

    for (size_t i = 0; i < sp->n; i++) {
        struct fmt_field *f = &sp->fields[i];
        int len;
        if (!f->autow)
            continue;
        len = (int)strlen(value(f->letter, ctx, buf, sizeof(buf)));
        if (len > f->width)
            f->width = len;
    }
}

/* One value in its column, without the delimiter. */
static void tab_value(FILE *fp, const char *s, const struct fmt_col *c)
{
    int len = (int)strlen(s);

    if (c->cut == FMT_CUT) {
        fmt_cell(fp, s, c->width, !c->left);
        return;
    }
    if (c->cut == FMT_CUT_PLUS && c->width > 0 && len > c->width)
        fprintf(fp, "%.*s+", c->width - 1, s);
    else if (c->left)
        fprintf(fp, "%-*s", c->width, s);
    else
        fprintf(fp, "%*s", c->width, s);
}

void fmt_tab_cell(const struct fmt_tab *t, size_t i, const char *s)
{
    bool last = i + 1 == t->n;

    if (t->mode == FMT_TAB_COLUMNS) {
        tab_value(t->fp, s, &t->cols[i]);
        if (!last || t->trailing)
            fputc(' ', t->fp);
    } else {
        fputs(s, t->fp);
        if (!last || t->mode == FMT_TAB_PARSABLE)
            fputc('|', t->fp);
    }
    if (last)
        fputc('\n', t->fp);
}

void fmt_tab_rule(const struct fmt_tab *t)
{
    if (t->mode != FMT_TAB_COLUMNS)
        return;
    for (size_t i = 0; i < t->n; i++) {
        for (int k = 0; k < t->cols[i].width; k++)
            fputc('-', t->fp);
        if (i + 1 < t->n || t->trailing)
            fputc(' ', t->fp);
    }
    fputc('\n', t->fp);
}

/* One "name[:[.][size][suffix]]" of -O (len bytes at s) into f. */
static int spec_named(const char *s, size_t len, fmt_name_fn lookup,
                      int dflt_width, struct fmt_field *f, struct err *e)
{
    const char *colon = memchr(s, ':', len);
    size_t nlen = colon ? (size_t)(colon - s) : len;
    const char *p, *end = s + len;
    int code = lookup(s, nlen);
    long w = 0;

    memset(f, 0, sizeof(*f));
    if (code <= 0) {
        errno = EINVAL;
        return err_set(e, "invalid field \"%.*s\"", (int)nlen, s);
    }
    f->letter = (char)code;
    f->width = dflt_width;
    if (colon == NULL) {
        f->suffix = xstrdup("");
        return 0;
    }
    p = colon + 1;
    if (p < end && *p == '.') {
        f->right = true;
        p++;
    }
    while (p < end && *p >= '0' && *p <= '9') {
        w = w * 10 + (*p++ - '0');
        if (w > 1000) {
            errno = EINVAL;
            return err_set(e, "field width over 1000 in \"%.*s\"", (int)len, s);
        }
    }
    f->width = (int)w; /* "name:" alone: the value as wide as it is */
    f->suffix = xstrndup(p, (size_t)(end - p));
    return 0;
}

int fmt_spec_parse_names(const char *s, fmt_name_fn lookup, int dflt_width,
                         struct fmt_spec *out, struct err *e)
{
    const char *p = s;

    memset(out, 0, sizeof(*out));
    out->prefix = xstrdup("");
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            out->fields =
                xreallocarray(out->fields, out->n + 1, sizeof(*out->fields));
            if (spec_named(p, len, lookup, dflt_width, &out->fields[out->n],
                           e) < 0) {
                fmt_spec_free(out);
                return -1;
            }
            out->n++;
        }
        p += len + (p[len] == ',');
    }
    if (out->n == 0) {
        fmt_spec_free(out);
        errno = EINVAL;
        return err_set(e, "no fields in \"%s\"", s);
    }
    return 0;
}
