/* Environments being built: envlist.h. */
#include "common/envlist.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static size_t key_len(const char *kv)
{
    const char *eq = strchr(kv, '=');

    return eq ? (size_t)(eq - kv) : strlen(kv);
}

struct envlist envlist_adopt(char **env)
{
    struct envlist b = {.v = env};

    while (env != NULL && env[b.n] != NULL)
        b.n++;
    b.cap = env != NULL ? b.n + 1 : 0;
    return b;
}

void envlist_put(struct envlist *b, char *kv)
{
    size_t kl = key_len(kv);

    for (size_t i = 0; i < b->n; i++)
        if (key_len(b->v[i]) == kl && strncmp(b->v[i], kv, kl) == 0) {
            free(b->v[i]);
            b->v[i] = kv;
            return;
        }
    if (b->n + 2 > b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
    }
    b->v[b->n++] = kv;
    b->v[b->n] = NULL;
}

void envlist_twin(struct envlist *b, const char *key, const char *value)
{
    bool daemon = strncmp(key, "SLURMD_", 7) == 0;
    const char *rest = daemon ? key + 7 : key + 6;

    envlist_put(b, xasprintf("%s=%s", key, value));
    envlist_put(
        b, xasprintf("%s%s=%s", daemon ? "SLUICED_" : "SLUICE_", rest, value));
}

void envlist_twin_u64(struct envlist *b, const char *key, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    envlist_twin(b, key, buf);
}
