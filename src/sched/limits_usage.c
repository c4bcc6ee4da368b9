/*
 * What jobs hold, by name, for the limit engine: one hash table of usage
 * entries (a QOS, a user or an account in a QOS, an association), and the
 * charges that tie a job to the entries it counts in, so that every job
 * transition costs O(levels) and no scan of the jobs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/limits_int.h"

struct limits_usage {
    struct lim_entry **slots; /* open addressing, linear probing */
    size_t cap;               /* a power of two */
    size_t n;
    uint64_t pass_gen; /* the last pass's number */
};

static const char type_letter[] = {[ENT_QOS] = 'Q',
                                   [ENT_QOS_USER] = 'U',
                                   [ENT_QOS_ACCT] = 'A',
                                   [ENT_ASSOC] = 'S'};

static uint64_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The key of an entry into buf, or a heap copy when it is longer (the
 * caller frees the result when it is not buf). */
static char *key_make(char *buf, size_t len, enum lim_ent_type t, const char *a,
                      const char *b)
{
    int n = snprintf(buf, len, "%c\x1f%s\x1f%s", type_letter[t], a,
                     b != NULL ? b : "");
    if (n >= 0 && (size_t)n < len)
        return buf;
    return xasprintf("%c\x1f%s\x1f%s", type_letter[t], a, b != NULL ? b : "");
}

static size_t probe(const struct limits_usage *u, const char *key)
{
    size_t i = hash(key) & (u->cap - 1);
    while (u->slots[i] != NULL && strcmp(u->slots[i]->key, key) != 0)
        i = (i + 1) & (u->cap - 1);
    return i;
}

static void grow(struct limits_usage *u)
{
    struct lim_entry **old = u->slots;
    size_t oldcap = u->cap;

    u->cap *= 2;
    u->slots = xcalloc(u->cap, sizeof(*u->slots));
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] != NULL)
            u->slots[probe(u, old[i]->key)] = old[i];
    free(old);
}

struct lim_entry *lim_find(const struct limits_usage *u, enum lim_ent_type t,
                           const char *a, const char *b)
{
    char buf[256];
    char *key = key_make(buf, sizeof(buf), t, a, b);
    struct lim_entry *e = u->slots[probe(u, key)];

    if (key != buf)
        free(key);
    return e;
}

/* The entry for (t, a, b), made when missing.  Entries live as long as u:
 * there is one per name in use, and charges point at them. */
struct lim_entry *lim_get(struct limits_usage *u, enum lim_ent_type t,
                          const char *a, const char *b)
{
    char buf[256];
    char *key = key_make(buf, sizeof(buf), t, a, b);
    size_t i = probe(u, key);
    struct lim_entry *e = u->slots[i];

    if (e == NULL) {
        e = xcalloc(1, sizeof(*e));
        e->key = key != buf ? key : xstrdup(key);
        key = NULL;
        u->slots[i] = e;
        if (++u->n * 4 > u->cap * 3)
            grow(u);
    }
    if (key != NULL && key != buf)
        free(key);
    return e;
}

uint64_t lim_next_pass(struct limits_usage *u)
{
    return ++u->pass_gen;
}

struct limits_usage *limits_usage_create(void)
{
    struct limits_usage *u = xcalloc(1, sizeof(*u));

    u->cap = 64;
    u->slots = xcalloc(u->cap, sizeof(*u->slots));
    return u;
}

void limits_usage_destroy(struct limits_usage *u)
{
    int saved = errno;

    if (u == NULL)
        return;
    for (size_t i = 0; i < u->cap; i++) {
        if (u->slots[i] != NULL) {
            free(u->slots[i]->key);
            free(u->slots[i]);
        }
    }
    free(u->slots);
    free(u);
    errno = saved;
}

/* Apply f to every distinct entry of c (a QOS named twice counts once). */
static void
each_entry(struct limits_charge *c,
           void (*f)(struct lim_entry *, struct limits_charge *, int), int sign)
{
    for (size_t i = 0; i < c->nlevels; i++) {
        const struct lim_level_ents *l = &c->lv[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = l->qos != NULL && c->lv[k].qos == l->qos;
        if (seen)
            continue;
        struct lim_entry *es[] = {l->qos, l->user, l->acct, l->assoc};
        for (size_t k = 0; k < 4; k++)
            if (es[k] != NULL)
                f(es[k], c, sign);
    }
}

static void count_submit(struct lim_entry *e, struct limits_charge *c, int sign)
{
    (void)c;
    e->submitted += (uint64_t)(int64_t)sign;
}

static void count_run(struct lim_entry *e, struct limits_charge *c, int sign)
{
    e->running += (uint64_t)(int64_t)sign;
    for (int t = 0; t < LIMITS_TRES_COUNT; t++)
        e->tres[t] += sign > 0 ? c->tres[t] : -c->tres[t];
}

struct limits_charge *limits_charge_create(struct limits_usage *u,
                                           const struct limits_job *j)
{
    struct limits_charge *c;

    if (j->nlevels > LIMITS_LEVEL_MAX) {
        errno = EINVAL;
        return NULL;
    }
    c = xcalloc(1, sizeof(*c));
    c->u = u;
    c->nlevels = j->nlevels;
    memcpy(c->tres, j->tres, sizeof(c->tres));
    for (size_t i = 0; i < j->nlevels; i++) {
        const struct limits_level *l = &j->levels[i];
        struct lim_level_ents *le = &c->lv[i];
        if (l->kind == LIMITS_QOS) {
            le->qos = lim_get(u, ENT_QOS, l->name, NULL);
            le->user = lim_get(u, ENT_QOS_USER, l->name, j->user);
            le->acct = lim_get(u, ENT_QOS_ACCT, l->name, j->account);
        } else {
            le->assoc = lim_get(u, ENT_ASSOC, lim_assoc_key(l), NULL);
        }
    }
    each_entry(c, count_submit, 1);
    return c;
}

void limits_charge_start(struct limits_charge *c)
{
    if (c->running)
        return;
    c->running = true;
    each_entry(c, count_run, 1);
}

void limits_charge_stop(struct limits_charge *c)
{
    if (!c->running)
        return;
    c->running = false;
    each_entry(c, count_run, -1);
}

void limits_charge_destroy(struct limits_charge *c)
{
    int saved = errno;

    if (c == NULL)
        return;
    limits_charge_stop(c);
    each_entry(c, count_submit, -1);
    free(c);
    errno = saved;
}

bool limits_charge_running(const struct limits_charge *c)
{
    return c->running;
}

void limits_usage_get(const struct limits_usage *u, enum limits_kind who,
                      const char *name, const char *user, const char *account,
                      struct limits_count *out)
{
    const struct lim_entry *e;

    if (who == LIMITS_ASSOC)
        e = lim_find(u, ENT_ASSOC, name, NULL);
    else if (user != NULL)
        e = lim_find(u, ENT_QOS_USER, name, user);
    else if (account != NULL)
        e = lim_find(u, ENT_QOS_ACCT, name, account);
    else
        e = lim_find(u, ENT_QOS, name, NULL);
    memset(out, 0, sizeof(*out));
    if (e == NULL)
        return;
    out->submitted = e->submitted;
    out->running = e->running;
    memcpy(out->tres, e->tres, sizeof(out->tres));
}
