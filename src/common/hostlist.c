/*
 * Slurm hostlist expressions: bounded expansion of "node[01-04],gpu-b7" into
 * names, and the reverse, compressing sorted names back into brackets.
 */
#include "common/hostlist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/value.h"
#include "common/xalloc.h"

/* Bracket numbers are at most this many digits, so values fit in u64. */
#define HL_MAX_DIGITS 18

struct hostlist {
    char **names;
    size_t n, cap;
};

/* One "lo-hi" inside brackets; width is the length of lo as written. */
struct hl_range {
    uint64_t lo, hi;
    int width;
};

/* Literal text followed by an optional bracket group (nranges 0: none). */
struct hl_part {
    const char *lit;
    size_t litlen;
    struct hl_range *ranges;
    size_t nranges;
};

/* One top-level element of an expression, parsed but not yet expanded. */
struct hl_elem {
    const char *text;
    size_t len;
    struct hl_part *parts;
    size_t nparts;
    uint64_t count;  /* names it expands to (capped above the maximum) */
    size_t name_max; /* length of its longest name */
};

struct hostlist *hostlist_create(void)
{
    return xcalloc(1, sizeof(struct hostlist));
}

void hostlist_destroy(struct hostlist *hl)
{
    int saved = errno;

    if (hl == NULL)
        return;
    for (size_t i = 0; i < hl->n; i++)
        free(hl->names[i]);
    free(hl->names);
    free(hl);
    errno = saved;
}

/* push_owned: append name, taking ownership. */
static void push_owned(struct hostlist *hl, char *name)
{
    if (hl->n == hl->cap) {
        hl->cap = hl->cap ? hl->cap * 2 : 16;
        hl->names = xreallocarray(hl->names, hl->cap, sizeof(char *));
    }
    hl->names[hl->n++] = name;
}

void hostlist_push_host(struct hostlist *hl, const char *name)
{
    push_owned(hl, xstrdup(name));
}

size_t hostlist_count(const struct hostlist *hl)
{
    return hl->n;
}

const char *hostlist_nth(const struct hostlist *hl, size_t i)
{
    return i < hl->n ? hl->names[i] : NULL;
}

long hostlist_find(const struct hostlist *hl, const char *name)
{
    for (size_t i = 0; i < hl->n; i++)
        if (strcmp(hl->names[i], name) == 0)
            return (long)i;
    return -1;
}

/* ---- Parsing ---------------------------------------------------------- */

static int elem_error(const struct hl_elem *el, int errnum, const char *why,
                      struct err *e)
{
    char text[VALUE_QUOTE_MAX];
    char q[VALUE_QUOTE_MAX];
    size_t n = el->len < sizeof(text) - 1 ? el->len : sizeof(text) - 1;

    memcpy(text, el->text, n);
    text[n] = '\0';
    errno = errnum;
    return err_set(e, "bad hostlist \"%s\": %s",
                   value_quote(text, q, sizeof(q)), why);
}

static size_t count_char(const char *s, size_t len, char c)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += s[i] == c;
    return n;
}

/* elem_end: the end of the element at s: a ',' outside brackets or NUL. */
static const char *elem_end(const char *s)
{
    bool in = false;

    for (; *s != '\0'; s++) {
        if (*s == '[')
            in = true;
        else if (*s == ']')
            in = false;
        else if (*s == ',' && !in)
            break;
    }
    return s;
}

/* name_char: printable, not blank, not one of the expression's own marks. */
static bool name_char(char c)
{
    return c > ' ' && c < 0x7f && c != '[' && c != ']' && c != ',';
}

static int digits_len(uint64_t v)
{
    int n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* parse_number: a run of digits at *p, advancing *p. */
static int parse_number(const char **p, const char *end, uint64_t *v,
                        int *width, const char **why)
{
    size_t n = 0;

    if (*p == end) {
        *why = "unterminated '['";
        return -1;
    }
    while (*p + n < end && (*p)[n] >= '0' && (*p)[n] <= '9')
        n++;
    if (n == 0) {
        *why = **p == ',' || **p == ']' ? "empty range in brackets"
                                        : "expected digits in brackets";
        return -1;
    }
    if (n > HL_MAX_DIGITS || value_digits_u64(*p, n, v) < 0) {
        *why = "number in brackets too long";
        return -1;
    }
    *width = (int)n;
    *p += n;
    return 0;
}

/* parse_range: "lo" or "lo-hi" at *p into r. */
static int parse_range(const char **p, const char *end, struct hl_range *r,
                       const char **why)
{
    int w;

    if (parse_number(p, end, &r->lo, &r->width, why) < 0)
        return -1;
    r->hi = r->lo;
    if (*p < end && **p == '-') {
        (*p)++;
        if (parse_number(p, end, &r->hi, &w, why) < 0)
            return -1;
        if (r->hi < r->lo) {
            *why = "descending range";
            return -1;
        }
    }
    return 0;
}

/* parse_group: "[...]" at *p (just after the '['), into part. */
static int parse_group(const char **p, const char *end, struct hl_part *part,
                       const char **why)
{
    size_t cap = 0;

    for (;;) {
        if (part->nranges == cap) {
            cap = cap ? cap * 2 : 4;
            part->ranges =
                xreallocarray(part->ranges, cap, sizeof(struct hl_range));
        }
        if (parse_range(p, end, &part->ranges[part->nranges++], why) < 0)
            return -1;
        if (*p == end) {
            *why = "unterminated '['";
            return -1;
        }
        char c = *(*p)++;
        if (c == ']')
            return 0;
        if (c != ',') {
            *why = c == '[' ? "nested '['" : "expected ',' or ']' in brackets";
            return -1;
        }
    }
}

/* group_size: the names a group yields, saturating above the maximum. */
static uint64_t group_size(const struct hl_part *part)
{
    uint64_t n = 0;

    for (size_t i = 0; i < part->nranges; i++) {
        n += part->ranges[i].hi - part->ranges[i].lo + 1;
        if (n > HOSTLIST_MAX_HOSTS)
            return HOSTLIST_MAX_HOSTS + 1;
    }
    return n;
}

/* group_width: the longest number a group prints. */
static size_t group_width(const struct hl_part *part)
{
    size_t w = 0;

    for (size_t i = 0; i < part->nranges; i++) {
        const struct hl_range *r = &part->ranges[i];
        int d = digits_len(r->hi);
        size_t k = (size_t)(d > r->width ? d : r->width);
        if (k > w)
            w = k;
    }
    return w;
}

/* add_part: account for a finished part in el's count and length. */
static void add_part(struct hl_elem *el, const struct hl_part *part)
{
    el->name_max += part->litlen;
    if (part->nranges == 0)
        return;
    el->name_max += group_width(part);
    el->count *= group_size(part);
    if (el->count > HOSTLIST_MAX_HOSTS)
        el->count = HOSTLIST_MAX_HOSTS + 1;
}

/* parse_parts: split el->text into literal + bracket parts. */
static int parse_parts(struct hl_elem *el, const char **why)
{
    const char *p = el->text, *end = el->text + el->len;

    /* Each part but the last ends at a '[', so this many is enough. */
    el->parts =
        xcalloc(count_char(el->text, el->len, '[') + 1, sizeof(*el->parts));
    while (p < end) {
        struct hl_part *part = &el->parts[el->nparts++];
        part->lit = p;
        while (p < end && name_char(*p))
            p++;
        part->litlen = (size_t)(p - part->lit);
        if (p < end && *p != '[') {
            *why = *p == ']' ? "stray ']'" : "bad character in name";
            return -1;
        }
        if (p < end) {
            p++;
            if (parse_group(&p, end, part, why) < 0)
                return -1;
        }
        add_part(el, part);
    }
    return 0;
}

static void elem_clear(struct hl_elem *el)
{
    for (size_t i = 0; i < el->nparts; i++)
        free(el->parts[i].ranges);
    free(el->parts);
    el->parts = NULL;
    el->nparts = 0;
}

/* parse_elem: parse the len bytes at s; counts and checks, no names yet. */
static int parse_elem(const char *s, size_t len, struct hl_elem *el,
                      struct err *e)
{
    const char *why = NULL;

    memset(el, 0, sizeof(*el));
    el->text = s;
    el->len = len;
    el->count = 1;
    if (len == 0)
        return elem_error(el, EINVAL, "empty name", e);
    if (parse_parts(el, &why) < 0)
        return elem_error(el, EINVAL, why, e);
    if (el->name_max > HOSTLIST_MAX_NAME)
        return elem_error(el, E2BIG, "name too long", e);
    return 0;
}

/* ---- Expansion -------------------------------------------------------- */

/* The position of an expansion in one group: which range, which value. */
struct hl_pos {
    size_t range;
    uint64_t value;
};

static void build_name(const struct hl_elem *el, const struct hl_pos *pos,
                       char *buf)
{
    size_t off = 0;

    for (size_t i = 0; i < el->nparts; i++) {
        const struct hl_part *part = &el->parts[i];
        memcpy(buf + off, part->lit, part->litlen);
        off += part->litlen;
        if (part->nranges > 0)
            off +=
                (size_t)sprintf(buf + off, "%0*" PRIu64,
                                part->ranges[pos[i].range].width, pos[i].value);
    }
    buf[off] = '\0';
}

/* advance: step pos like an odometer, rightmost group fastest; false when
 * every combination has been produced. */
static bool advance(const struct hl_elem *el, struct hl_pos *pos)
{
    for (size_t i = el->nparts; i-- > 0;) {
        const struct hl_part *part = &el->parts[i];
        if (part->nranges == 0)
            continue;
        if (pos[i].value < part->ranges[pos[i].range].hi) {
            pos[i].value++;
            return true;
        }
        if (pos[i].range + 1 < part->nranges) {
            pos[i].range++;
            pos[i].value = part->ranges[pos[i].range].lo;
            return true;
        }
        pos[i].range = 0;
        pos[i].value = part->ranges[0].lo;
    }
    return false;
}

static void expand_elem(const struct hl_elem *el, struct hostlist *hl)
{
    struct hl_pos *pos = xcalloc(el->nparts, sizeof(*pos));
    char buf[HOSTLIST_MAX_NAME + 1];

    for (size_t i = 0; i < el->nparts; i++)
        if (el->parts[i].nranges > 0)
            pos[i].value = el->parts[i].ranges[0].lo;
    do {
        build_name(el, pos, buf);
        hostlist_push_host(hl, buf);
    } while (advance(el, pos));
    free(pos);
}

/* parse_all: every element of expr into *elems; counts checked. */
static int parse_all(const char *expr, size_t have, struct hl_elem **elems,
                     size_t *nelems, struct err *e)
{
    uint64_t total = have;

    *elems = NULL;
    *nelems = 0;
    if (*expr == '\0')
        return 0;
    *elems = xcalloc(count_char(expr, strlen(expr), ',') + 1, sizeof(**elems));
    for (const char *s = expr;; s++) {
        const char *end = elem_end(s);
        struct hl_elem *el = &(*elems)[(*nelems)++];
        if (parse_elem(s, (size_t)(end - s), el, e) < 0)
            return -1;
        total += el->count;
        if (total > HOSTLIST_MAX_HOSTS) {
            struct hl_elem whole = {.text = expr, .len = strlen(expr)};
            return elem_error(&whole, E2BIG, "more than 65536 names", e);
        }
        if (*end == '\0')
            return 0;
        s = end;
    }
}

int hostlist_push(struct hostlist *hl, const char *expr, struct err *e)
{
    struct hl_elem *elems;
    size_t nelems;
    int rc = -1;

    if (parse_all(expr, hl->n, &elems, &nelems, e) < 0)
        goto out;
    for (size_t i = 0; i < nelems; i++)
        expand_elem(&elems[i], hl);
    rc = 0;
out:
    for (size_t i = 0; i < nelems; i++)
        elem_clear(&elems[i]);
    free(elems);
    return rc;
}

struct hostlist *hostlist_expand(const char *expr, struct err *e)
{
    struct hostlist *hl = hostlist_create();

    if (hostlist_push(hl, expr, e) < 0) {
        hostlist_destroy(hl);
        return NULL;
    }
    return hl;
}

/* ---- Sorting and compression ------------------------------------------ */

/* A name cut around its last run of digits: prefix, number, suffix. */
struct hl_key {
    const char *name;
    size_t prelen;  /* the whole name when it has no usable number */
    size_t numlen;  /* 0: no number */
    uint64_t value; /* the number's value */
};

static void key_of(const char *name, struct hl_key *k)
{
    size_t len = strlen(name), end = len, start;

    while (end > 0 && (name[end - 1] < '0' || name[end - 1] > '9'))
        end--;
    start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    k->name = name;
    k->prelen = len;
    k->numlen = 0;
    k->value = 0;
    if (end == 0 || end - start > HL_MAX_DIGITS)
        return;
    k->prelen = start;
    k->numlen = end - start;
    value_digits_u64(name + start, k->numlen, &k->value);
}

static const char *key_suffix(const struct hl_key *k)
{
    return k->name + k->prelen + k->numlen;
}

static int cmp_prefix(const struct hl_key *a, const struct hl_key *b)
{
    size_t n = a->prelen < b->prelen ? a->prelen : b->prelen;
    int c = memcmp(a->name, b->name, n);

    if (c != 0)
        return c;
    return (a->prelen > b->prelen) - (a->prelen < b->prelen);
}

/* Prefix, then suffix, then number, then digit width: names that can share
 * brackets end up next to each other. */
static int cmp_names(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    struct hl_key ka, kb;
    int c;

    key_of(a, &ka);
    key_of(b, &kb);
    if ((c = cmp_prefix(&ka, &kb)) != 0)
        return c;
    if ((ka.numlen > 0) != (kb.numlen > 0))
        return ka.numlen > 0 ? 1 : -1;
    if ((c = strcmp(key_suffix(&ka), key_suffix(&kb))) != 0)
        return c;
    if (ka.value != kb.value)
        return ka.value < kb.value ? -1 : 1;
    if (ka.numlen != kb.numlen)
        return ka.numlen < kb.numlen ? -1 : 1;
    return strcmp(a, b);
}

void hostlist_sort_uniq(struct hostlist *hl)
{
    size_t out = 0;

    if (hl->n == 0)
        return;
    qsort(hl->names, hl->n, sizeof(char *), cmp_names);
    for (size_t i = 1; i < hl->n; i++) {
        if (strcmp(hl->names[i], hl->names[out]) == 0)
            free(hl->names[i]);
        else
            hl->names[++out] = hl->names[i];
    }
    hl->n = out + 1;
}

/* A growing string. */
struct hl_buf {
    char *s;
    size_t len, cap;
};

static void buf_add(struct hl_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        while (b->len + n + 1 > b->cap)
            b->cap = b->cap ? b->cap * 2 : 64;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_num(struct hl_buf *b, uint64_t v, int width)
{
    char tmp[48];
    int n = snprintf(tmp, sizeof(tmp), "%0*" PRIu64, width, v);

    buf_add(b, tmp, (size_t)n);
}

/* fits: whether name k prints as its number at group width w, so that
 * expanding "[...]" with that width gives k's digits back. */
static bool fits(const struct hl_key *k, int width)
{
    int d = digits_len(k->value);

    return (int)k->numlen == (d > width ? d : width);
}

/* same_group: whether k can join the bracket group started by first. */
static bool same_group(const struct hl_key *first, const struct hl_key *k)
{
    return k->numlen > 0 && first->numlen > 0 && cmp_prefix(first, k) == 0 &&
           strcmp(key_suffix(first), key_suffix(k)) == 0 &&
           fits(k, (int)first->numlen);
}

/* emit_group: names[i..j) share prefix, suffix and width. */
static void emit_group(struct hl_buf *b, char *const *names, size_t i, size_t j)
{
    struct hl_key k, next;
    int width;

    key_of(names[i], &k);
    if (j - i == 1) {
        buf_add(b, names[i], strlen(names[i]));
        return;
    }
    width = (int)k.numlen;
    buf_add(b, k.name, k.prelen);
    buf_add(b, "[", 1);
    while (i < j) {
        uint64_t lo = k.value, hi = k.value;
        for (i++; i < j; i++) {
            key_of(names[i], &next);
            if (next.value != hi + 1)
                break;
            hi = next.value;
        }
        buf_num(b, lo, width);
        if (hi != lo) {
            buf_add(b, "-", 1);
            buf_num(b, hi, width);
        }
        if (i < j) {
            buf_add(b, ",", 1);
            k = next;
        }
    }
    buf_add(b, "]", 1);
    buf_add(b, key_suffix(&k), strlen(key_suffix(&k)));
}

char *hostlist_compress(const struct hostlist *hl)
{
    struct hl_buf b = {0};

    buf_add(&b, "", 0);
    for (size_t i = 0; i < hl->n;) {
        struct hl_key first, k;
        size_t j = i + 1;
        key_of(hl->names[i], &first);
        while (j < hl->n) {
            key_of(hl->names[j], &k);
            if (!same_group(&first, &k))
                break;
            j++;
        }
        if (i > 0)
            buf_add(&b, ",", 1);
        emit_group(&b, hl->names, i, j);
        i = j;
    }
    return b.s;
}

char *hostlist_join(const struct hostlist *hl, const char *sep)
{
    struct hl_buf b = {0};

    buf_add(&b, "", 0);
    for (size_t i = 0; i < hl->n; i++) {
        if (i > 0)
            buf_add(&b, sep, strlen(sep));
        buf_add(&b, hl->names[i], strlen(hl->names[i]));
    }
    return b.s;
}
