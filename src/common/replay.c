/*
 * Replay cache: a ring of nonces in arrival order (for expiry and eviction)
 * indexed by an open-addressing hash table (linear probing, backward-shift
 * deletion).  Both grow by doubling up to the configured maximum.
 */
#include "common/replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/xalloc.h"

#define REPLAY_MIN_RING 1024

struct replay_ent {
    uint8_t nonce[REPLAY_NONCE_LEN];
    int64_t expires;
};

struct replay {
    struct replay_ent *ring; /* ring_cap entries, count used from head */
    size_t ring_cap;
    size_t head;
    size_t count;
    uint32_t *slots; /* ring index + 1; 0 = empty; mask + 1 slots */
    size_t mask;
    size_t max;
    int64_t floor; /* highest expiry evicted before its time */
    uint64_t seed;
};

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static size_t replay_hash(const struct replay *r, const uint8_t *nonce)
{
    uint64_t x = load64(nonce) ^ load64(nonce + 8) ^ r->seed;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (size_t)x & r->mask;
}

static size_t slots_for(size_t ring_cap)
{
    size_t n = 1;

    while (n < 2 * ring_cap)
        n <<= 1;
    return n;
}

struct replay *replay_create(size_t max_entries)
{
    struct replay *r = xcalloc(1, sizeof(*r));

    if (max_entries == 0)
        max_entries = 1;
    if (max_entries > UINT32_MAX / 4)
        max_entries = UINT32_MAX / 4;
    r->max = max_entries;
    r->ring_cap = max_entries < REPLAY_MIN_RING ? max_entries : REPLAY_MIN_RING;
    r->ring = xcalloc(r->ring_cap, sizeof(*r->ring));
    r->mask = slots_for(r->ring_cap) - 1;
    r->slots = xcalloc(r->mask + 1, sizeof(*r->slots));
    r->floor = INT64_MIN;
    if (getrandom(&r->seed, sizeof(r->seed), 0) != sizeof(r->seed))
        r->seed = (uint64_t)(uintptr_t)r ^ 0x9e3779b97f4a7c15ULL;
    return r;
}

void replay_destroy(struct replay *r)
{
    int saved = errno;

    if (r != NULL) {
        free(r->ring);
        free(r->slots);
        free(r);
    }
    errno = saved;
}

size_t replay_count(const struct replay *r)
{
    return r->count;
}

static void slot_insert(struct replay *r, size_t ring_idx)
{
    size_t i = replay_hash(r, r->ring[ring_idx].nonce);

    while (r->slots[i] != 0)
        i = (i + 1) & r->mask;
    r->slots[i] = (uint32_t)(ring_idx + 1);
}

static long slot_find(const struct replay *r, const uint8_t *nonce)
{
    size_t i = replay_hash(r, nonce);

    while (r->slots[i] != 0) {
        if (memcmp(r->ring[r->slots[i] - 1].nonce, nonce, REPLAY_NONCE_LEN) ==
            0)
            return (long)i;
        i = (i + 1) & r->mask;
    }
    return -1;
}

/* Backward-shift deletion keeps every probe chain unbroken. */
static void slot_delete(struct replay *r, size_t i)
{
    size_t j = i;

    for (;;) {
        j = (j + 1) & r->mask;
        if (r->slots[j] == 0)
            break;
        size_t k = replay_hash(r, r->ring[r->slots[j] - 1].nonce);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        r->slots[i] = r->slots[j];
        i = j;
    }
    r->slots[i] = 0;
}

static void drop_head(struct replay *r)
{
    long i = slot_find(r, r->ring[r->head].nonce);

    if (i >= 0)
        slot_delete(r, (size_t)i);
    r->head = (r->head + 1) % r->ring_cap;
    r->count--;
}

static void grow(struct replay *r)
{
    size_t cap = r->ring_cap * 2 > r->max ? r->max : r->ring_cap * 2;
    struct replay_ent *ring = xcalloc(cap, sizeof(*ring));

    for (size_t n = 0; n < r->count; n++)
        ring[n] = r->ring[(r->head + n) % r->ring_cap];
    free(r->ring);
    free(r->slots);
    r->ring = ring;
    r->ring_cap = cap;
    r->head = 0;
    r->mask = slots_for(cap) - 1;
    r->slots = xcalloc(r->mask + 1, sizeof(*r->slots));
    for (size_t n = 0; n < r->count; n++)
        slot_insert(r, n);
}

int replay_add(struct replay *r, const uint8_t nonce[REPLAY_NONCE_LEN],
               int64_t expires, int64_t now)
{
    /* Arrival order is close to expiry order; an entry that expires late
     * only delays the sweep of those behind it, bounded by max. */
    while (r->count > 0 && r->ring[r->head].expires < now)
        drop_head(r);
    if (expires <= r->floor) {
        errno = ESTALE;
        return -1;
    }
    if (slot_find(r, nonce) >= 0) {
        errno = EEXIST;
        return -1;
    }
    if (r->count == r->ring_cap) {
        if (r->ring_cap < r->max) {
            grow(r);
        } else {
            if (r->ring[r->head].expires > r->floor)
                r->floor = r->ring[r->head].expires;
            drop_head(r);
        }
    }
    size_t idx = (r->head + r->count) % r->ring_cap;
    memcpy(r->ring[idx].nonce, nonce, REPLAY_NONCE_LEN);
    r->ring[idx].expires = expires;
    r->count++;
    slot_insert(r, idx);
    return 0;
}
