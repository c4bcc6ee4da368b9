/*
 * An environment being built: a NULL-terminated "KEY=VALUE" array where
 * setting a KEY again replaces it, and Slurm's variables set together
 * with their Sluice twins (SLURM_X and SLUICE_X, SLURMD_X and SLUICED_X).
 * The batch job's and the steps' environments (noded/jobenv.c) and
 * salloc's (cli/salloc_env.c) are built with it.
 */
#ifndef SLUICE_COMMON_ENVLIST_H
#define SLUICE_COMMON_ENVLIST_H

#include <stddef.h>
#include <stdint.h>

struct envlist {
    char **v; /* NULL-terminated once anything is in it; owned */
    size_t n, cap;
};

/* envlist_adopt: an envlist over env (NULL-terminated, malloc'd, taken
 * over; NULL: empty). */
struct envlist envlist_adopt(char **env);
/* envlist_put: set kv ("KEY=VALUE", taken over), replacing an earlier
 * KEY in its place. */
void envlist_put(struct envlist *b, char *kv);
/* envlist_twin: key=value and its twin: SLURM_X -> SLUICE_X, SLURMD_X ->
 * SLUICED_X (key starts with "SLURM"). */
void envlist_twin(struct envlist *b, const char *key, const char *value);
void envlist_twin_u64(struct envlist *b, const char *key, uint64_t v);

#endif
