/*
 * --array specifications and task id sets (arrayspec.h): a bitmap over
 * 0..MaxArraySize-1, so that a 10,000-task array costs 1.25 KiB however
 * it was written.
 */
#include "common/arrayspec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define WORDS(n) (((size_t)(n) + 63) / 64)

void arrayset_init(struct arrayset *s, uint32_t nbits)
{
    s->words = xcalloc(WORDS(nbits) ? WORDS(nbits) : 1, sizeof(*s->words));
    s->nbits = nbits;
    s->count = 0;
}

void arrayset_clear(struct arrayset *s)
{
    if (s == NULL)
        return;
    free(s->words);
    memset(s, 0, sizeof(*s));
}

void arrayset_copy(struct arrayset *dst, const struct arrayset *src)
{
    arrayset_init(dst, src->nbits);
    memcpy(dst->words, src->words, WORDS(src->nbits) * sizeof(*src->words));
    dst->count = src->count;
}

bool arrayset_has(const struct arrayset *s, uint32_t id)
{
    return id < s->nbits && (s->words[id / 64] >> (id % 64) & 1);
}

void arrayset_add(struct arrayset *s, uint32_t id)
{
    if (id >= s->nbits || arrayset_has(s, id))
        return;
    s->words[id / 64] |= UINT64_C(1) << (id % 64);
    s->count++;
}

void arrayset_del(struct arrayset *s, uint32_t id)
{
    if (!arrayset_has(s, id))
        return;
    s->words[id / 64] &= ~(UINT64_C(1) << (id % 64));
    s->count--;
}

int64_t arrayset_next(const struct arrayset *s, uint32_t from)
{
    for (size_t w = from / 64; w < WORDS(s->nbits); w++) {
        uint64_t bits = s->words[w];
        if (w == from / 64)
            bits &= ~UINT64_C(0) << (from % 64);
        if (bits != 0)
            return (int64_t)(w * 64 + (size_t)__builtin_ctzll(bits));
    }
    return -1;
}

char *arrayset_format(const struct arrayset *s)
{
    size_t cap = 64, len = 0;
    char *out = xcalloc(cap, 1);
    int64_t id = arrayset_next(s, 0);

    while (id >= 0) {
        int64_t end = id;
        while (end + 1 < s->nbits && arrayset_has(s, (uint32_t)end + 1))
            end++;
        if (cap - len < 32)
            out = xrealloc(out, cap *= 2);
        if (end == id)
            len += (size_t)snprintf(out + len, cap - len, "%s%lld",
                                    len ? "," : "", (long long)id);
        else
            len +=
                (size_t)snprintf(out + len, cap - len, "%s%lld-%lld",
                                 len ? "," : "", (long long)id, (long long)end);
        id = end + 1 < s->nbits ? arrayset_next(s, (uint32_t)end + 1) : -1;
    }
    return out;
}

static int bad(struct err *e, const char *spec, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct err *e, const char *spec, const char *fmt, ...)
{
    char what[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return err_set(e, "invalid --array \"%.64s\": %s", spec, what);
}

/* A decimal number at *p (advanced past it). */
static int number(const char **p, const char *spec, uint64_t *out,
                  struct err *e)
{
    char *end;

    if (**p < '0' || **p > '9')
        return bad(e, spec, "expected a number at \"%.20s\"", *p);
    errno = 0;
    *out = strtoull(*p, &end, 10);
    if (errno != 0 || *out > UINT32_MAX)
        return bad(e, spec, "number too large at \"%.20s\"", *p);
    *p = end;
    return 0;
}

/* One element: N, N-M or N-M:S, added to s.  *left is how many more ids
 * the elements may name in all (MaxArraySize): ranges may overlap, but not
 * so often that parsing costs more than the ids it can yield. */
static int element(const char **p, const char *spec, uint32_t max_size,
                   uint64_t *left, struct arrayset *s, struct err *e)
{
    uint64_t lo, hi, step = 1;

    if (number(p, spec, &lo, e) < 0)
        return -1;
    hi = lo;
    if (**p == '-') {
        (*p)++;
        if (number(p, spec, &hi, e) < 0)
            return -1;
        if (**p == ':') {
            (*p)++;
            if (number(p, spec, &step, e) < 0)
                return -1;
            if (step == 0)
                return bad(e, spec, "a step of 0");
        }
    }
    if (hi < lo)
        return bad(e, spec, "a range that runs backwards");
    if (hi >= max_size) {
        return bad(e, spec, "task id %llu is above MaxArraySize-1 (%u)",
                   (unsigned long long)hi, max_size - 1);
    }
    if ((hi - lo) / step + 1 > *left)
        return bad(e, spec,
                   "the ranges name more than MaxArraySize (%u) task ids in "
                   "all (do they repeat?)",
                   max_size);
    *left -= (hi - lo) / step + 1;
    for (uint64_t id = lo; id <= hi; id += step)
        arrayset_add(s, (uint32_t)id);
    return 0;
}

/* Elements up to the end or a '%'; *p is left there. */
static int elements(const char **p, const char *spec, uint32_t max_size,
                    struct arrayset *s, struct err *e)
{
    uint64_t left = max_size;

    for (;;) {
        if (element(p, spec, max_size, &left, s, e) < 0)
            return -1;
        if (**p != ',')
            break;
        (*p)++;
    }
    if (**p != '\0' && **p != '%')
        return bad(e, spec, "unexpected \"%.20s\"", *p);
    return 0;
}

int arrayset_parse(const char *s, uint32_t max_size, struct arrayset *out,
                   struct err *e)
{
    const char *p = s;
    struct arrayset set;

    arrayset_init(&set, max_size);
    if (elements(&p, s, max_size, &set, e) < 0)
        goto error;
    if (*p != '\0') {
        bad(e, s, "unexpected \"%.20s\"", p);
        goto error;
    }
    *out = set;
    return 0;
error:
    arrayset_clear(&set);
    return -1;
}

/* The common spacing of the ids of s, or 1 when they are unevenly spaced. */
static uint32_t spacing(const struct arrayset *s, uint32_t min)
{
    int64_t prev = min, id;
    uint32_t step = 0;

    for (id = arrayset_next(s, min + 1); id >= 0;
         id = arrayset_next(s, (uint32_t)id + 1)) {
        uint32_t d = (uint32_t)(id - prev);
        if (step != 0 && d != step)
            return 1;
        step = d;
        prev = id;
    }
    return step ? step : 1;
}

/* Keep only the words that ids below nbits need. */
static void shrink(struct arrayset *s, uint32_t nbits)
{
    if (WORDS(nbits) < WORDS(s->nbits))
        s->words = xreallocarray(s->words, WORDS(nbits) ? WORDS(nbits) : 1,
                                 sizeof(*s->words));
    s->nbits = nbits;
}

int arrayspec_parse(const char *s, uint32_t max_size, struct arrayspec *out,
                    struct err *e)
{
    const char *p = s;
    struct arrayspec a = {0};
    uint64_t throttle = 0;

    if (max_size == 0 || max_size > ARRAYSPEC_MAX_SIZE)
        max_size = ARRAYSPEC_MAX_SIZE;
    arrayset_init(&a.set, max_size);
    if (s == NULL || *s == '\0') {
        bad(e, "", "empty");
        goto error;
    }
    /* only here: a stored set (arrayset_parse) may print longer */
    if (strlen(s) > ARRAYSPEC_MAX_LEN) {
        bad(e, s, "longer than %d characters", ARRAYSPEC_MAX_LEN);
        goto error;
    }
    if (elements(&p, s, max_size, &a.set, e) < 0)
        goto error;
    if (*p == '%') {
        p++;
        if (number(&p, s, &throttle, e) < 0)
            goto error;
        if (*p != '\0') {
            bad(e, s, "unexpected \"%.20s\" after the %%N limit", p);
            goto error;
        }
        if (throttle == 0) {
            bad(e, s, "a %%0 limit would run no task");
            goto error;
        }
    }
    a.throttle = (uint32_t)throttle;
    a.min = (uint32_t)arrayset_next(&a.set, 0);
    for (int64_t id = a.min; id >= 0;
         id = arrayset_next(&a.set, (uint32_t)id + 1))
        a.max = (uint32_t)id;
    a.step = spacing(&a.set, a.min);
    shrink(&a.set, a.max + 1);
    *out = a;
    return 0;
error:
    arrayset_clear(&a.set);
    return -1;
}

void arrayspec_clear(struct arrayspec *a)
{
    if (a == NULL)
        return;
    arrayset_clear(&a->set);
}
