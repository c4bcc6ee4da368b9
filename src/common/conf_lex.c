/*
 * The slurm.conf lexer: splits a file into logical lines of Key=Value
 * pairs, handling '#' comments, double quotes, '\' continuations and
 * Include (relative to the including file, depth-limited, cycles named).
 * It guards against binary data and overlong lines so that any input
 * yields diagnostics, never a crash.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/utf8.h"
#include "common/xalloc.h"

/* Files larger than this are refused before reading. */
#define LEX_MAX_FILE (64u << 20)

static void lex_file_at(struct conf_lex *lx, const char *path,
                        const struct conf_loc *from);

char *conf_lex_dirname_join(const char *file, const char *path)
{
    const char *slash = strrchr(file, '/');

    if (path[0] == '/' || slash == NULL)
        return xstrdup(path);
    return xasprintf("%.*s/%s", (int)(slash - file), file, path);
}

static int lex_read(const char *path, char **out, size_t *out_len)
{
    struct stat st;
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (fp == NULL)
        return -1;
    if (fstat(fileno(fp), &st) < 0)
        goto error;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto error;
    }
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 8192;
            if (cap > LEX_MAX_FILE + 1)
                cap = LEX_MAX_FILE + 1;
            buf = xrealloc(buf, cap);
        }
        n = fread(buf + len, 1, cap - len, fp);
        len += n;
        if (len > LEX_MAX_FILE) {
            errno = EFBIG;
            goto error;
        }
    } while (n > 0);
    if (ferror(fp)) {
        errno = EIO;
        goto error;
    }
    fclose(fp);
    *out = buf;
    *out_len = len;
    return 0;
error : {
    int saved = errno;
    fclose(fp);
    free(buf);
    errno = saved;
    return -1;
}
}

/* The 1-based column of the first byte that is no text, or 0. */
static size_t lex_binary(const char *line, size_t n)
{
    const unsigned char *s = (const unsigned char *)line;
    size_t i = 0, k;

    while (i < n) {
        if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return i + 1;
        k = utf8_seq(line + i, n - i, NULL);
        if (k == 0)
            return i + 1;
        i += k;
    }
    return 0;
}

/* Drop a comment (outside quotes), trailing blanks and a trailing '\',
 * which continues the line. */
static size_t lex_strip(const char *s, size_t n, bool *cont)
{
    bool quoted = false;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == '#' && !quoted) {
            n = i;
            break;
        }
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *cont = n > 0 && s[n - 1] == '\\';
    if (*cont)
        n--;
    return n;
}

static void lex_push(struct conf_line *ln, const char *key, size_t klen,
                     const char *val, size_t vlen, int line, int col)
{
    struct conf_pair *p;

    if (ln->n == ln->cap) {
        ln->cap = ln->cap ? 2 * ln->cap : 8;
        ln->pairs = xreallocarray(ln->pairs, ln->cap, sizeof(*ln->pairs));
    }
    p = &ln->pairs[ln->n++];
    p->key = xstrndup(key, klen);
    p->value = xstrndup(val, vlen);
    p->line = line;
    p->col = col;
}

static void lex_line_clear(struct conf_line *ln)
{
    for (size_t i = 0; i < ln->n; i++) {
        free(ln->pairs[i].key);
        free(ln->pairs[i].value);
    }
    ln->n = 0;
}

#define LEX_BLANK(c) ((c) == ' ' || (c) == '\t')

/* lex_value: the value starting at s[*i]; -1 with the problem in e. */
static int lex_value(const char *s, size_t n, size_t *i, size_t *v0,
                     size_t *vlen, struct err *e)
{
    const char *q;

    if (s[*i] != '"') {
        *v0 = *i;
        while (*i < n && !LEX_BLANK(s[*i]))
            if (s[(*i)++] == '"')
                return err_set(e, "stray quote inside a value (quote the "
                                  "whole value: Key=\"...\")");
        *vlen = *i - *v0;
        return 0;
    }
    q = memchr(s + *i + 1, '"', n - *i - 1);
    if (q == NULL)
        return err_set(e, "unterminated quote");
    *v0 = *i + 1;
    *vlen = (size_t)(q - s) - *v0;
    *i = (size_t)(q - s) + 1;
    if (*i < n && !LEX_BLANK(s[*i]))
        return err_set(e, "text right after a closing quote");
    return 0;
}

/* lex_pair: one Key=Value (or "Include FILE") from s[*i]. */
static int lex_pair(struct conf_line *ln, const char *s, size_t n, size_t *i,
                    int lineno, struct err *e)
{
    size_t k0 = *i, klen, v0 = 0, vlen = 0;

    while (*i < n && !LEX_BLANK(s[*i]) && s[*i] != '=' && s[*i] != '"')
        (*i)++;
    klen = *i - k0;
    if (klen == 7 && strncasecmp(s + k0, "Include", 7) == 0 && *i < n &&
        LEX_BLANK(s[*i])) {
        while (*i < n && LEX_BLANK(s[*i]))
            (*i)++;
        if (*i == n)
            return err_set(e, "Include needs a file name");
    } else if (*i == n || s[*i] != '=') {
        while (*i < n && !LEX_BLANK(s[*i]))
            (*i)++;
        return err_set(e, "'%.*s' is not Key=Value",
                       (int)(*i - k0 > 40 ? 40 : *i - k0), s + k0);
    } else if (klen == 0) {
        size_t v = *i + 1, vend = v;
        while (vend < n && !LEX_BLANK(s[vend]) && vend - v < 40)
            vend++;
        return err_set(e, "value without a key ('=%.*s')", (int)(vend - v),
                       s + v);
    } else {
        (*i)++;
        if (*i == n || LEX_BLANK(s[*i]))
            return err_set(e, "%.*s= has no value",
                           (int)(klen > 40 ? 40 : klen), s + k0);
    }
    if (lex_value(s, n, i, &v0, &vlen, e) < 0)
        return -1;
    lex_push(ln, s + k0, klen, s + v0, vlen, lineno, (int)k0 + 1);
    return 0;
}

/* lex_tokens: the pairs of one physical line, appended to ln. */
static int lex_tokens(struct conf_lex *lx, struct conf_line *ln, const char *s,
                      size_t n, int lineno, bool *cont)
{
    struct err e;
    size_t i = 0, start;

    n = lex_strip(s, n, cont);
    for (;;) {
        while (i < n && LEX_BLANK(s[i]))
            i++;
        if (i == n)
            return 0;
        start = i;
        if (lex_pair(ln, s, n, &i, lineno, &e) < 0) {
            conf_diag_add(lx->diag, CONF_ERROR, ln->file, lineno,
                          (int)start + 1, "%s", e.text);
            return -1;
        }
    }
}

static void lex_include(struct conf_lex *lx, const struct conf_line *ln)
{
    const struct conf_pair *p = &ln->pairs[0];
    struct conf_loc from = {ln->file, p->line, p->col};
    char *path, *real = NULL, chain[1024];
    size_t used = 0;

    if (ln->n != 1) {
        conf_diag_add(lx->diag, CONF_ERROR, ln->file, ln->pairs[1].line,
                      ln->pairs[1].col, "Include takes one file name");
        return;
    }
    path = conf_lex_dirname_join(ln->file, p->value);
    if (lx->depth >= CONF_MAX_INCLUDE_DEPTH) {
        conf_diag_add(lx->diag, CONF_ERROR, from.file, from.line, from.col,
                      "Include %s: includes nested deeper than %d files", path,
                      CONF_MAX_INCLUDE_DEPTH);
        goto out;
    }
    real = realpath(path, NULL);
    for (int d = 0; real != NULL && d <= lx->depth; d++) {
        if (lx->stack_real[d] == NULL || strcmp(lx->stack_real[d], real))
            continue;
        chain[0] = '\0';
        for (int k = d; k <= lx->depth && used < sizeof(chain); k++)
            used += (size_t)snprintf(chain + used, sizeof(chain) - used,
                                     "%s -> ", lx->stack_name[k]);
        conf_diag_add(lx->diag, CONF_ERROR, from.file, from.line, from.col,
                      "include cycle: %s%s", chain, path);
        goto out;
    }
    lx->depth++;
    lx->stack_name[lx->depth] = conf_strs_add(lx->names, path);
    lx->stack_real[lx->depth] = real;
    lex_file_at(lx, lx->stack_name[lx->depth], &from);
    lx->depth--;
out:
    free(real);
    free(path);
}

static void lex_dispatch(struct conf_lex *lx, const struct conf_line *ln)
{
    if (strcasecmp(ln->pairs[0].key, "Include") == 0)
        lex_include(lx, ln);
    else
        lx->fn(lx->arg, ln);
}

static void lex_buf(struct conf_lex *lx, const char *buf, size_t len,
                    const char *file)
{
    struct conf_line ln = {.file = file};
    size_t pos = 0, logical = 0, n, col;
    int lineno = 0;
    bool cont = false, bad = false;

    while (pos < len) {
        const char *s = buf + pos;
        const char *nl = memchr(s, '\n', len - pos);
        n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        lineno++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        logical += n;
        if (logical > CONF_MAX_LINE) {
            if (!bad)
                conf_diag_add(lx->diag, CONF_ERROR, file, lineno, 0,
                              "line is longer than %d bytes", CONF_MAX_LINE);
            bad = true;
            lex_strip(s, n, &cont);
        } else if ((col = lex_binary(s, n)) != 0) {
            conf_diag_add(lx->diag, CONF_ERROR, file, lineno, (int)col,
                          "binary data (byte 0x%02x); is this a text file?",
                          (unsigned char)s[col - 1]);
            break;
        } else if (lex_tokens(lx, &ln, s, n, lineno, &cont) < 0) {
            bad = true;
        }
        if (cont && pos < len)
            continue;
        if (!bad && ln.n > 0)
            lex_dispatch(lx, &ln);
        lex_line_clear(&ln);
        bad = false;
        logical = 0;
    }
    lex_line_clear(&ln);
    free(ln.pairs);
}

static void lex_file_at(struct conf_lex *lx, const char *path,
                        const struct conf_loc *from)
{
    char *buf;
    size_t len;

    if (lex_read(path, &buf, &len) < 0) {
        if (from != NULL)
            conf_diag_add(lx->diag, CONF_ERROR, from->file, from->line,
                          from->col, "cannot read include file %s: %s", path,
                          strerror(errno));
        return;
    }
    lex_buf(lx, buf, len, path);
    free(buf);
}

int conf_lex_file(struct conf_lex *lx, const char *path,
                  const struct conf_loc *from)
{
    char *buf;
    size_t len;
    const char *name = conf_strs_add(lx->names, path);

    if (lex_read(path, &buf, &len) < 0) {
        int saved = errno;
        if (from != NULL)
            conf_diag_add(lx->diag, CONF_ERROR, from->file, from->line,
                          from->col, "cannot read %s: %s", path,
                          strerror(errno));
        else
            conf_diag_add(lx->diag, CONF_ERROR, name, 0, 0, "cannot read: %s",
                          strerror(errno));
        errno = saved;
        return -1;
    }
    lx->depth = 0;
    lx->stack_name[0] = name;
    lx->stack_real[0] = realpath(path, NULL);
    lex_buf(lx, buf, len, name);
    free(lx->stack_real[0]);
    lx->stack_real[0] = NULL;
    free(buf);
    return 0;
}

void conf_lex_text(struct conf_lex *lx, const char *text, size_t len,
                   const char *name)
{
    const char *file = conf_strs_add(lx->names, name);

    lx->depth = 0;
    lx->stack_name[0] = file;
    lx->stack_real[0] = NULL;
    lex_buf(lx, text, len, file);
}
