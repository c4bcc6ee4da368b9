/*
 * The limit chain of a job from the accounting model (jchain.h): a cache
 * of the model's QOS and user associations, each association with its
 * account levels up to root already walked, rebuilt when the model's
 * generation moves.  A scheduling pass asks once per pending job.
 */
#include "ctld/policy/jchain.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"

/* The most association levels a chain may have: two are left for QOS. */
#define JC_ASSOC_MAX (LIMITS_LEVEL_MAX - 2)
#define JC_ID_LEN 12 /* a uint32_t id as text */

struct jc_qos {
    const struct acct_qos *q;
    struct limits_level lv;
};

/* A user association: its level, then its accounts' up to root. */
struct jc_assoc {
    size_t n;
    bool too_deep; /* the account tree is deeper than JC_ASSOC_MAX */
    struct limits_level lv[JC_ASSOC_MAX];
    char id[JC_ASSOC_MAX][JC_ID_LEN]; /* the levels' usage keys */
};

/* String keys (owned) to indices: open addressing, linear probing. */
struct jc_map {
    char **keys;
    size_t *vals;
    size_t cap; /* a power of two, at least twice the entries */
};

struct jchain {
    const struct acct *a;
    const struct conf *conf;
    uint64_t gen; /* the model's generation the cache is of; 0: none */
    struct jc_qos *qos;
    size_t nqos;
    struct jc_map qos_by_name;
    size_t *part_qos; /* per partition: index into qos; SIZE_MAX: none */
    struct jc_assoc *assoc;
    size_t nassoc;
    struct jc_map assoc_by_key; /* "user\x1f" "account\x1f" "partition" */
};

/* ---- the map ---------------------------------------------------------- */

static uint64_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void map_init(struct jc_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n)
        m->cap *= 2;
    m->keys = xcalloc(m->cap, sizeof(*m->keys));
    m->vals = xcalloc(m->cap, sizeof(*m->vals));
}

static void map_free(struct jc_map *m)
{
    for (size_t i = 0; m->keys != NULL && i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

static size_t map_slot(const struct jc_map *m, const char *key)
{
    size_t i = hash(key) & (m->cap - 1);

    while (m->keys[i] != NULL && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* map_put: key (taken) to val; the first of equal keys stays. */
static void map_put(struct jc_map *m, char *key, size_t val)
{
    size_t i = map_slot(m, key);

    if (m->keys[i] != NULL) {
        free(key);
        return;
    }
    m->keys[i] = key;
    m->vals[i] = val;
}

static size_t map_get(const struct jc_map *m, const char *key)
{
    size_t i;

    if (m->keys == NULL)
        return SIZE_MAX;
    i = map_slot(m, key);
    return m->keys[i] != NULL ? m->vals[i] : SIZE_MAX;
}

static char *assoc_key(const char *user, const char *account,
                       const char *partition)
{
    return xasprintf("%s\x1f%s\x1f%s", user, account,
                     partition != NULL ? partition : "");
}

/* ---- the cache -------------------------------------------------------- */

static void cache_clear(struct jchain *jc)
{
    map_free(&jc->qos_by_name);
    map_free(&jc->assoc_by_key);
    free(jc->qos);
    free(jc->part_qos);
    free(jc->assoc);
    jc->qos = NULL;
    jc->part_qos = NULL;
    jc->assoc = NULL;
    jc->nqos = jc->nassoc = 0;
    jc->gen = 0;
}

static void cache_qos(struct jchain *jc)
{
    const struct acct_qos *q;
    size_t n = 0;

    while (acct_qos_at(jc->a, n) != NULL)
        n++;
    jc->qos = xcalloc(n ? n : 1, sizeof(*jc->qos));
    map_init(&jc->qos_by_name, n);
    for (size_t i = 0; (q = acct_qos_at(jc->a, i)) != NULL; i++) {
        jc->qos[i] =
            (struct jc_qos){q, {LIMITS_QOS, q->name, NULL, &q->limits}};
        map_put(&jc->qos_by_name, xstrdup(q->name), i);
    }
    jc->nqos = n;
    jc->part_qos = xcalloc(jc->conf->n_parts ? jc->conf->n_parts : 1,
                           sizeof(*jc->part_qos));
    for (size_t p = 0; p < jc->conf->n_parts; p++) {
        const char *name = jc->conf->parts[p].qos;
        jc->part_qos[p] = SIZE_MAX;
        if (name == NULL || name[0] == '\0')
            continue;
        jc->part_qos[p] = map_get(&jc->qos_by_name, name);
        if (jc->part_qos[p] == SIZE_MAX)
            log_warnx("partition=%s qos=%s: no such QOS, the partition QOS "
                      "is ignored until it is added",
                      jc->conf->parts[p].name, name);
    }
}

static bool user_assoc(const struct jchain *jc, const struct acct_assoc *as)
{
    return as->user != NULL &&
           strcmp(as->cluster, acct_cluster_name(jc->a)) == 0;
}

/* The levels of user association as: it, then ->parent up to root. */
static void assoc_fill(struct jc_assoc *out, const struct acct_assoc *as)
{
    out->n = 0;
    for (const struct acct_assoc *p = as; p != NULL; p = p->parent) {
        if (out->n == JC_ASSOC_MAX) {
            out->too_deep = true;
            return;
        }
        snprintf(out->id[out->n], JC_ID_LEN, "%" PRIu32, p->id);
        out->lv[out->n] = (struct limits_level){LIMITS_ASSOC, p->account,
                                                out->id[out->n], &p->limits};
        out->n++;
    }
}

static void cache_assoc(struct jchain *jc)
{
    const struct acct_assoc *as;
    size_t n = 0, k = 0;

    for (size_t i = 0; (as = acct_assoc_at(jc->a, i)) != NULL; i++)
        n += user_assoc(jc, as);
    jc->assoc = xcalloc(n ? n : 1, sizeof(*jc->assoc));
    map_init(&jc->assoc_by_key, n);
    for (size_t i = 0; (as = acct_assoc_at(jc->a, i)) != NULL; i++) {
        if (!user_assoc(jc, as))
            continue;
        assoc_fill(&jc->assoc[k], as);
        map_put(&jc->assoc_by_key,
                assoc_key(as->user, as->account, as->partition), k);
        k++;
    }
    jc->nassoc = n;
}

static void cache_build(struct jchain *jc)
{
    cache_clear(jc);
    cache_qos(jc);
    cache_assoc(jc);
    jc->gen = acct_generation(jc->a);
    log_debug("limits chain gen=%" PRIu64 " qos=%zu user_assocs=%zu", jc->gen,
              jc->nqos, jc->nassoc);
}

struct jchain *jchain_create(const struct acct *a, const struct conf *conf)
{
    struct jchain *jc = xcalloc(1, sizeof(*jc));

    jc->a = a;
    jc->conf = conf;
    return jc;
}

void jchain_destroy(struct jchain *jc)
{
    int saved = errno;

    if (jc == NULL)
        return;
    cache_clear(jc);
    free(jc);
    errno = saved;
}

/* ---- the chain -------------------------------------------------------- */

/* The association with exactly these names, without a malloc when the
 * key fits on the stack (the usual case: a pass asks once per job). */
static size_t assoc_lookup(const struct jchain *jc, const char *user,
                           const char *account, const char *partition)
{
    char buf[512], *key = buf;
    int len = snprintf(buf, sizeof(buf), "%s\x1f%s\x1f%s", user, account,
                       partition != NULL ? partition : "");
    size_t k;

    if (len < 0 || (size_t)len >= sizeof(buf))
        key = assoc_key(user, account, partition);
    k = map_get(&jc->assoc_by_key, key);
    if (key != buf)
        free(key);
    return k;
}

/* j's association as acct_assoc_find would find it: the one for its
 * partition, else the one without a partition. */
static const struct jc_assoc *find_assoc(const struct jchain *jc,
                                         const struct job *j)
{
    size_t k;

    if (j->user_name == NULL || j->account == NULL)
        return NULL;
    k = assoc_lookup(jc, j->user_name, j->account,
                     jc->conf->parts[j->part].name);
    if (k == SIZE_MAX)
        k = assoc_lookup(jc, j->user_name, j->account, NULL);
    return k != SIZE_MAX ? &jc->assoc[k] : NULL;
}

int jchain_levels(void *arg, const struct job *j, struct limits_level *lv,
                  bool *deny, struct err *e)
{
    struct jchain *jc = arg;
    const struct jc_qos *jq = NULL, *pq = NULL;
    const struct jc_assoc *as;
    size_t k;
    int n;

    if (jc->gen != acct_generation(jc->a))
        cache_build(jc);
    *deny = false;
    if (j->qos != NULL) {
        if ((k = map_get(&jc->qos_by_name, j->qos)) == SIZE_MAX) {
            errno = EINVAL;
            return err_set(e, "job %" PRIu64 ": its QOS %s no longer exists",
                           j->id, j->qos);
        }
        jq = &jc->qos[k];
    }
    if (j->part < jc->conf->n_parts && jc->part_qos[j->part] != SIZE_MAX)
        pq = &jc->qos[jc->part_qos[j->part]];
    as = find_assoc(jc, j);
    if (as != NULL && as->too_deep) {
        errno = EINVAL;
        return err_set(e,
                       "job %" PRIu64 ": account %s is more than %d "
                       "levels below root",
                       j->id, j->account, JC_ASSOC_MAX);
    }
    n = limits_chain(lv, pq ? &pq->lv : NULL, jq ? &jq->lv : NULL,
                     jq != NULL && (jq->q->flags & ACCT_QOS_OVER_PART_QOS),
                     as ? as->lv : NULL, as ? as->n : 0);
    if (n < 0)
        return err_set(e, "job %" PRIu64 ": limit chain too long", j->id);
    *deny = (jq != NULL && (jq->q->flags & ACCT_QOS_DENY_ON_LIMIT)) ||
            (pq != NULL && (pq->q->flags & ACCT_QOS_DENY_ON_LIMIT));
    return n;
}
