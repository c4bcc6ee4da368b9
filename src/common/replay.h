/*
 * A bounded set of recently seen credential nonces, for replay protection.
 * Each nonce is kept until its credential expires.  When the set is full the
 * oldest entry is evicted and a floor rises to its expiry: from then on a
 * credential expiring at or before the floor is refused.  The cache can
 * therefore refuse a fresh credential under overload, but never admits a
 * replay.
 */
#ifndef SLUICE_REPLAY_H
#define SLUICE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_NONCE_LEN 16

struct replay;

/* replay_create: a cache holding at most max_entries nonces (>= 1); memory
 * grows with use up to 32 bytes per entry.  Free with
 * replay_destroy. */
struct replay *replay_create(size_t max_entries);
/* replay_destroy: accepts NULL, keeps errno. */
void replay_destroy(struct replay *r);

/*
 * replay_add: record a nonce whose credential is valid until `expires`
 * (inclusive), at time `now`; entries with expires < now are dropped first.
 * Returns 0 if the nonce is new (now recorded); -1 with errno EEXIST if it
 * was seen, or ESTALE if it expires at or before the eviction floor.
 */
int replay_add(struct replay *r, const uint8_t nonce[REPLAY_NONCE_LEN],
               int64_t expires, int64_t now);

/* replay_count: entries held now (expired ones are dropped lazily). */
size_t replay_count(const struct replay *r);

#endif
