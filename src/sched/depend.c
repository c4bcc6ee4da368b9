/*
 * Dependency expressions: parsing ("afterok:12:13_4?singleton"), their
 * canonical text, and their meaning given facts about the jobs named.
 */
#include "sched/depend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define DEP_MAX_CLAUSES 1024

static const char *const type_names[] = {
    [DEP_AFTER] = "after",         [DEP_AFTERANY] = "afterany",
    [DEP_AFTEROK] = "afterok",     [DEP_AFTERNOTOK] = "afternotok",
    [DEP_AFTERCORR] = "aftercorr", [DEP_SINGLETON] = "singleton",
};

const char *depend_type_name(enum dep_type t)
{
    return (unsigned)t <= DEP_SINGLETON ? type_names[t] : "unknown";
}

static int bad(struct err *e, const char *s, const char *what, const char *at,
               size_t len)
{
    errno = EINVAL;
    return err_set(e,
                   "Job dependency problem: invalid --dependency \"%.80s\": "
                   "%s \"%.*s\"",
                   s, what, (int)(len > 40 ? 40 : len), at);
}

static void push(struct depend *d, const struct dep_clause *c)
{
    d->v = xreallocarray(d->v, d->n + 1, sizeof(*d->v));
    d->v[d->n++] = *c;
}

/* A number of len characters at p. */
static bool num(const char *p, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (len == 0 || len > 19)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return v <= max;
}

/* One job of a clause: ID, ID_TASK, ID+MIN (after only). */
static int job_ref(const char *s, enum dep_type t, const char *p, size_t len,
                   struct dep_clause *c, struct err *e)
{
    const char *us = memchr(p, '_', len), *plus = memchr(p, '+', len);
    size_t idlen = us ? (size_t)(us - p) : plus ? (size_t)(plus - p) : len;
    uint64_t v;

    *c = (struct dep_clause){.type = t, .task = DEP_ALL_TASKS};
    if (!num(p, idlen, UINT32_MAX, &c->job_id) || c->job_id == 0)
        return bad(e, s, "expected a job id at", p, len);
    if (us != NULL) {
        const char *te = plus ? plus : p + len;
        if (plus != NULL && plus < us)
            return bad(e, s, "bad job id", p, len);
        if (!num(us + 1, (size_t)(te - us - 1), UINT32_MAX, &v))
            return bad(e, s, "expected an array task id in", p, len);
        c->task = (int64_t)v;
    }
    if (plus != NULL) {
        if (t != DEP_AFTER)
            return bad(e, s, "+minutes is only for after:, in", p, len);
        if (!num(plus + 1, (size_t)(p + len - plus - 1), 525600, &v))
            return bad(e, s, "expected minutes after '+' in", p, len);
        c->minutes = (uint32_t)v;
    }
    return 0;
}

/* "type:id:id" or "singleton" (len characters at p) added to d. */
static int clause(const char *s, const char *p, size_t len, struct depend *d,
                  struct err *e)
{
    const char *colon = memchr(p, ':', len);
    size_t tlen = colon ? (size_t)(colon - p) : len;
    int t = -1;

    for (int i = 0; i <= DEP_SINGLETON; i++)
        if (strlen(type_names[i]) == tlen &&
            memcmp(type_names[i], p, tlen) == 0)
            t = i;
    if (t < 0)
        return bad(e, s, "unknown dependency type", p, tlen);
    if (t == DEP_SINGLETON) {
        if (colon != NULL)
            return bad(e, s, "singleton takes no job ids:", p, len);
        push(d, &(struct dep_clause){.type = DEP_SINGLETON,
                                     .task = DEP_ALL_TASKS});
        return 0;
    }
    if (colon == NULL || colon + 1 == p + len)
        return bad(e, s, "no job id in", p, len);
    for (const char *q = colon + 1; q < p + len;) {
        const char *end = memchr(q, ':', (size_t)(p + len - q));
        struct dep_clause c;
        if (end == NULL)
            end = p + len;
        if (job_ref(s, (enum dep_type)t, q, (size_t)(end - q), &c, e) < 0)
            return -1;
        if (d->n >= DEP_MAX_CLAUSES)
            return bad(e, s, "more than 1024 jobs at", q, (size_t)(end - q));
        push(d, &c);
        q = end + 1;
    }
    return 0;
}

int depend_parse(const char *s, struct depend *out, struct err *e)
{
    struct depend d = {0};
    const char *p = s;
    bool comma = strchr(s, ',') != NULL, quest = strchr(s, '?') != NULL;

    if (*s == '\0')
        return bad(e, s, "empty", s, 0);
    if (comma && quest)
        return bad(e, s, "',' (all) and '?' (any) cannot be mixed:", s,
                   strlen(s));
    d.any = quest;
    while (*p != '\0') {
        size_t len = strcspn(p, ",?");
        if (len == 0 || clause(s, p, len, &d, e) < 0) {
            if (len == 0)
                bad(e, s, "empty part at", p, strlen(p));
            depend_clear(&d);
            return -1;
        }
        p += len;
        if (*p != '\0' && *++p == '\0') {
            bad(e, s, "nothing after the last separator", s, strlen(s));
            depend_clear(&d);
            return -1;
        }
    }
    *out = d;
    return 0;
}

void depend_clear(struct depend *d)
{
    if (d == NULL)
        return;
    free(d->v);
    d->v = NULL;
    d->n = 0;
}

char *depend_format(const struct depend *d)
{
    size_t cap = 64 + d->n * 48, len = 0;
    char *out = xcalloc(cap, 1);

    for (size_t i = 0; i < d->n; i++) {
        const struct dep_clause *c = &d->v[i];
        /* "afterok:1:2" means both, so only ',' lists may be merged */
        bool same = i > 0 && !d->any && d->v[i - 1].type == c->type &&
                    c->type != DEP_SINGLETON;
        if (same)
            len += (size_t)snprintf(out + len, cap - len, ":");
        else
            len += (size_t)snprintf(out + len, cap - len, "%s%s",
                                    i ? (d->any ? "?" : ",") : "",
                                    type_names[c->type]);
        if (c->type == DEP_SINGLETON)
            continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", same ? "" : ":",
                                (unsigned long long)c->job_id);
        if (c->task != DEP_ALL_TASKS)
            len += (size_t)snprintf(out + len, cap - len, "_%lld",
                                    (long long)c->task);
        if (c->minutes > 0)
            len += (size_t)snprintf(out + len, cap - len, "+%u", c->minutes);
    }
    return out;
}

bool depend_has(const struct depend *d, enum dep_type type)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].type == type)
            return true;
    return false;
}

enum dep_result depend_clause_eval(const struct dep_clause *c,
                                   const struct dep_facts *f, time_t now,
                                   time_t *recheck)
{
    time_t at;

    if (c->type == DEP_SINGLETON || !f->known)
        return DEP_MET;
    switch (c->type) {
    case DEP_AFTER:
        if (f->begun < f->total)
            return DEP_WAIT;
        at = f->last_begin + (time_t)c->minutes * 60;
        if (at <= now)
            return DEP_MET;
        if (recheck != NULL && (*recheck == 0 || at < *recheck))
            *recheck = at;
        return DEP_WAIT;
    case DEP_AFTERANY:
        return f->ended == f->total ? DEP_MET : DEP_WAIT;
    case DEP_AFTERNOTOK:
        if (f->ended < f->total)
            return DEP_WAIT;
        return f->ok < f->total ? DEP_MET : DEP_NEVER;
    default: /* afterok, aftercorr (on the corresponding task) */
        if (f->ok < f->ended)
            return DEP_NEVER;
        return f->ended == f->total ? DEP_MET : DEP_WAIT;
    }
}

enum dep_result depend_combine(const struct depend *d,
                               const enum dep_result *each)
{
    size_t met = 0, never = 0;

    for (size_t i = 0; i < d->n; i++) {
        met += each[i] == DEP_MET;
        never += each[i] == DEP_NEVER;
    }
    if (d->any) {
        if (met > 0 || d->n == 0)
            return DEP_MET;
        return never == d->n ? DEP_NEVER : DEP_WAIT;
    }
    if (never > 0)
        return DEP_NEVER;
    return met == d->n ? DEP_MET : DEP_WAIT;
}
