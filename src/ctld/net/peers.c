/*
 * Connection limits: their SchedulerParameters keys, and connection counts
 * per peer key in a chained hash table, so that accepting the ten
 * thousandth connection costs what the first one did.
 */
#include "ctld/net/peers.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

#define PEERS_BUCKETS 4096

struct peer {
    char *key;
    uint32_t n;
    struct peer *next;
};

struct peers {
    struct peer *b[PEERS_BUCKETS];
    size_t total;
};

static const struct {
    const char *key;
    size_t off;
    uint32_t min, max;
} limit_keys[] = {
    {"max_connections", offsetof(struct peers_limits, max_conns), 16, 1048576},
    {"max_connections_per_user", offsetof(struct peers_limits, max_per_peer), 1,
     1048576},
    {"conn_idle_timeout", offsetof(struct peers_limits, idle_s), 5, 86400},
    {"conn_read_timeout", offsetof(struct peers_limits, frame_s), 1, 3600},
};

/* key=value at p (len bytes) if key is ours: 1 set, 0 not ours, -1 bad. */
static int parse_one(const char *p, size_t len, struct peers_limits *t,
                     struct err *e)
{
    size_t klen = strcspn(p, "=,");

    for (size_t k = 0; k < sizeof(limit_keys) / sizeof(limit_keys[0]); k++) {
        const char *name = limit_keys[k].key;
        char num[24], *end;
        unsigned long long v;

        if (klen >= len || strlen(name) != klen ||
            strncasecmp(p, name, klen) != 0)
            continue;
        snprintf(num, sizeof(num), "%.*s", (int)(len - klen - 1), p + klen + 1);
        errno = 0;
        v = strtoull(num, &end, 10);
        if (errno != 0 || end == num || *end != '\0' || v < limit_keys[k].min ||
            v > limit_keys[k].max) {
            errno = EINVAL;
            return err_set(e, "SchedulerParameters: %s=%s is not in %u..%u",
                           name, num, limit_keys[k].min, limit_keys[k].max);
        }
        *(uint32_t *)((char *)t + limit_keys[k].off) = (uint32_t)v;
        return 1;
    }
    return 0;
}

int peers_limits_parse(const char *params, struct peers_limits *out,
                       struct err *e)
{
    struct peers_limits t = {PEERS_MAX_CONNS, PEERS_MAX_PER_PEER, PEERS_IDLE_S,
                             PEERS_FRAME_S};
    const char *p = params;

    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ",");
        if (parse_one(p, len, &t, e) < 0)
            return -1;
        p += len;
        if (*p == ',')
            p++;
    }
    *out = t;
    return 0;
}

static size_t hash(const char *s)
{
    size_t h = 5381;

    while (*s != '\0')
        h = h * 33 + (unsigned char)*s++;
    return h % PEERS_BUCKETS;
}

struct peers *peers_create(void)
{
    return xcalloc(1, sizeof(struct peers));
}

void peers_destroy(struct peers *p)
{
    int saved = errno;

    if (p == NULL)
        return;
    for (size_t i = 0; i < PEERS_BUCKETS; i++) {
        while (p->b[i] != NULL) {
            struct peer *x = p->b[i];
            p->b[i] = x->next;
            free(x->key);
            free(x);
        }
    }
    free(p);
    errno = saved;
}

static struct peer **find(struct peers *p, const char *key)
{
    struct peer **pp = &p->b[hash(key)];

    while (*pp != NULL && strcmp((*pp)->key, key) != 0)
        pp = &(*pp)->next;
    return pp;
}

uint32_t peers_add(struct peers *p, const char *key)
{
    struct peer **pp = find(p, key);

    if (*pp == NULL) {
        *pp = xcalloc(1, sizeof(**pp));
        (*pp)->key = xstrdup(key);
    }
    p->total++;
    return ++(*pp)->n;
}

void peers_del(struct peers *p, const char *key)
{
    struct peer **pp = find(p, key), *x = *pp;

    if (x == NULL)
        return;
    p->total--;
    if (--x->n > 0)
        return;
    *pp = x->next;
    free(x->key);
    free(x);
}

uint32_t peers_count(const struct peers *p, const char *key)
{
    struct peer **pp = find((struct peers *)p, key);

    return *pp != NULL ? (*pp)->n : 0;
}

size_t peers_total(const struct peers *p)
{
    return p->total;
}
