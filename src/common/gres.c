/*
 * Generic resources as written in Gres= and --gres: a comma-separated list
 * of NAME[:TYPE][:COUNT][(S:SOCKETS)], parsed strictly and printed back in
 * one canonical form.
 */
#include "common/gres.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/value.h"

#define GRES_EXPECTED "expected NAME[:TYPE][:COUNT]"
/* The longest single item we look at; real ones are far shorter. */
#define GRES_ITEM_MAX 256

static int gres_error(const char *item, const char *why, struct err *e)
{
    char q[VALUE_QUOTE_MAX];

    errno = EINVAL;
    return err_set(e, "bad GRES \"%s\": %s", value_quote(item, q, sizeof(q)),
                   why);
}

/* is_count: digits with at most one k, m or g after them ("4", "1k"). */
static bool is_count(const char *t)
{
    size_t n = strspn(t, "0123456789");

    if (n == 0)
        return false;
    return t[n] == '\0' || (strchr("kKmMgG", t[n]) != NULL && t[n + 1] == 0);
}

static int parse_count(const char *t, uint64_t *out)
{
    size_t n = strspn(t, "0123456789");
    unsigned shift = 0;
    uint64_t v;

    if (value_digits_u64(t, n, &v) < 0)
        return -1;
    if (t[n] != '\0')
        shift = t[n] == 'k' || t[n] == 'K'   ? 10
                : t[n] == 'm' || t[n] == 'M' ? 20
                                             : 30;
    if (v > (UINT64_MAX >> shift))
        return -1;
    *out = v << shift;
    return 0;
}

/* copy_word: a name or type into dst; letters, digits, '_', '-', '.'. */
static int copy_word(const char *t, char *dst, const char **why)
{
    size_t n = strlen(t);

    if (n == 0) {
        *why = "empty name, type or count (" GRES_EXPECTED ")";
        return -1;
    }
    if (n >= GRES_NAME_MAX) {
        *why = "name or type too long (at most 31 characters)";
        return -1;
    }
    if (!isalnum((unsigned char)t[0]) ||
        strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789_-.") != n) {
        *why = t[0] == '-' || t[0] == '+'
                   ? "count must be a non-negative integer"
                   : "bad character in name or type (" GRES_EXPECTED ")";
        return -1;
    }
    memcpy(dst, t, n + 1);
    return 0;
}

/* cut_sockets: strip "(S:SPEC)" off the end of t into it->sockets. */
static int cut_sockets(char *t, struct gres_item *it, const char **why)
{
    char *open = strchr(t, '(');
    size_t n;

    if (open == NULL)
        return 0;
    n = strlen(open);
    if (strncmp(open, "(S:", 3) != 0 || open[n - 1] != ')' || n < 5) {
        *why = "expected (S:SOCKETS) after the count";
        return -1;
    }
    open[n - 1] = '\0';
    if (strspn(open + 3, "0123456789-,") != n - 4 ||
        n - 4 >= sizeof(it->sockets)) {
        *why = "bad socket list in (S:...)";
        return -1;
    }
    memcpy(it->sockets, open + 3, n - 3);
    *open = '\0';
    return 0;
}

/* parse_item: one item t (modified in place) into it. */
static int parse_item(char *t, struct gres_item *it, const char **why)
{
    char *tok[3];
    int n = 0;

    if (cut_sockets(t, it, why) < 0)
        return -1;
    for (char *p = t;; p++) {
        if (n == 3) {
            *why = GRES_EXPECTED;
            return -1;
        }
        tok[n++] = p;
        p = strchr(p, ':');
        if (p == NULL)
            break;
        *p = '\0';
    }
    if (copy_word(tok[0], it->name, why) < 0)
        return -1;
    if (!isalpha((unsigned char)it->name[0])) {
        *why = "name must start with a letter (" GRES_EXPECTED ")";
        return -1;
    }
    it->count = 1;
    if (n == 3 || (n == 2 && !is_count(tok[1]))) {
        if (copy_word(tok[1], it->type, why) < 0)
            return -1;
    }
    if (n == 1 || (n == 2 && !is_count(tok[1])))
        return 0;
    const char *c = tok[n - 1];
    if (!is_count(c)) {
        *why = *c == '\0' || *c == '-' || *c == '+'
                   ? "count must be a non-negative integer"
                   : GRES_EXPECTED;
        return -1;
    }
    if (parse_count(c, &it->count) < 0) {
        *why = "count too large";
        return -1;
    }
    return 0;
}

/* item_end: the ',' ending the item at s, or its NUL; skips "(...)". */
static const char *item_end(const char *s)
{
    int depth = 0;

    for (; *s != '\0'; s++) {
        if (*s == '(')
            depth++;
        else if (*s == ')' && depth > 0)
            depth--;
        else if (*s == ',' && depth == 0)
            break;
    }
    return s;
}

static int parse_one(const char *s, size_t len, struct gres_list *l,
                     struct err *e)
{
    char t[GRES_ITEM_MAX];
    const char *why = NULL;

    if (len == 0)
        return gres_error(s, "empty item (" GRES_EXPECTED ")", e);
    if (len >= sizeof(t)) {
        memcpy(t, s, sizeof(t) - 1);
        t[sizeof(t) - 1] = '\0';
        return gres_error(t, "item too long", e);
    }
    memcpy(t, s, len);
    t[len] = '\0';
    if (l->n == GRES_MAX_ITEMS)
        return gres_error(t, "too many items (at most 16)", e);
    if (parse_item(t, &l->items[l->n], &why) < 0) {
        memcpy(t, s, len); /* parse_item cut t into pieces */
        return gres_error(t, why, e);
    }
    l->n++;
    return 0;
}

int gres_parse(const char *s, struct gres_list *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    if (*s == '\0' || strcmp(s, "(null)") == 0)
        return 0;
    for (;;) {
        const char *end = item_end(s);
        if (parse_one(s, (size_t)(end - s), out, e) < 0)
            goto error;
        if (*end == '\0')
            return 0;
        s = end + 1;
    }
error:
    memset(out, 0, sizeof(*out));
    return -1;
}

char *gres_format(const struct gres_list *l, char *buf, size_t len)
{
    size_t off = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < l->n && off < len; i++) {
        const struct gres_item *it = &l->items[i];
        int k = snprintf(buf + off, len - off, "%s%s%s%s:%" PRIu64 "%s%s%s",
                         i > 0 ? "," : "", it->name, it->type[0] ? ":" : "",
                         it->type, it->count, it->sockets[0] ? "(S:" : "",
                         it->sockets, it->sockets[0] ? ")" : "");
        if (k < 0)
            break;
        off += (size_t)k;
    }
    return buf;
}

uint64_t gres_count(const struct gres_list *l, const char *name,
                    const char *type)
{
    uint64_t total = 0;

    for (size_t i = 0; i < l->n; i++) {
        const struct gres_item *it = &l->items[i];
        if (strcmp(it->name, name) != 0)
            continue;
        if (type != NULL && type[0] != '\0' && strcmp(it->type, type) != 0)
            continue;
        total = it->count > UINT64_MAX - total ? UINT64_MAX : total + it->count;
    }
    return total;
}
