/*
 * Values of the options that sbatch and srun both take (--time, -N,
 * --nodelist/--exclude, --gpus-per-*), read by one parser each so that
 * both verbs accept and refuse the same text with the same words.
 */
#ifndef SLUICE_CLI_OPTVAL_H
#define SLUICE_CLI_OPTVAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define OPTVAL_MAX_NODES 65536u /* nodes one job or step may ask for */

/* optval_time_limit: --time in Slurm's forms into *secs; -1 when it asks
 * for no limit (INFINITE or, as in Slurm, 0).  -1 with e. */
int optval_time_limit(const char *arg, int64_t *secs, struct err *e);

/* optval_nodes: -N MIN[-MAX], each in [1, OPTVAL_MAX_NODES] and MAX not
 * below MIN; *max = *min without a MAX.  -1 with e. */
int optval_nodes(const char *arg, uint32_t *min, uint32_t *max, struct err *e);

/* optval_hosts: a node list (--nodelist, --exclude) expanded, sorted,
 * made unique and compressed again: a fresh string the caller frees, or
 * NULL with e (also for a list that names no node). */
char *optval_hosts(const char *arg, struct err *e);

/* optval_gpus: [gpu:][TYPE:]N (--gpus, --gpus-per-node, --gpus-per-task)
 * into the type ("" when none; type_len bytes at most) and the count.
 * -1 with e. */
int optval_gpus(const char *arg, char *type, size_t type_len, uint64_t *count,
                struct err *e);

#endif
