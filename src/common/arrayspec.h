/*
 * Job array task sets: sbatch's --array ("0-99%10", "0-15:4", "1,3,5-7")
 * parsed into a bitmap of task ids, and printed back compactly ("5-99",
 * "1,3,5-7") as squeue and the job records show them.  Shared by the CLI
 * (to check an option before sending it) and the controller.
 */
#ifndef SLUICE_ARRAYSPEC_H
#define SLUICE_ARRAYSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Slurm's default MaxArraySize: task ids 0..1000. */
#define ARRAYSPEC_DEFAULT_MAX 1001
/* The largest MaxArraySize accepted (Slurm's limit). */
#define ARRAYSPEC_MAX_SIZE 4000001
/* The longest --array spec read, in characters.  In any spec or set the
 * ids the elements name, counted with repeats, may not exceed MaxArraySize
 * either, so parsing costs at most the length plus MaxArraySize steps. */
#define ARRAYSPEC_MAX_LEN 65536

/* A set of task ids below nbits; words owned by the set. */
struct arrayset {
    uint64_t *words;
    uint32_t nbits; /* one more than the largest id it can hold */
    uint32_t count; /* ids set */
};

/* What --array asked for. */
struct arrayspec {
    struct arrayset set;
    uint32_t throttle; /* %N; 0: none */
    uint32_t min, max; /* of the ids as submitted */
    uint32_t step;     /* their common spacing (1 when uneven) */
};

/*
 * arrayspec_parse: s ("0-99%10") into out for ids below max_size
 * (MaxArraySize).  -1 with EINVAL and e naming what is wrong ("invalid
 * --array \"0-x\": expected a number at \"x\"", "task id 1200 is above
 * MaxArraySize-1 (1000)"); out is then untouched.  Free with
 * arrayspec_clear.
 */
int arrayspec_parse(const char *s, uint32_t max_size, struct arrayspec *out,
                    struct err *e);
void arrayspec_clear(struct arrayspec *a);

/* arrayset_parse: a bare set ("1,3,5-7", "0-15:4"), ids below max_size;
 * -1 EINVAL with e. */
int arrayset_parse(const char *s, uint32_t max_size, struct arrayset *out,
                   struct err *e);
/* arrayset_init: an empty set for ids below nbits. */
void arrayset_init(struct arrayset *s, uint32_t nbits);
void arrayset_clear(struct arrayset *s);
/* arrayset_copy: dst (uninitialised) becomes a copy of src. */
void arrayset_copy(struct arrayset *dst, const struct arrayset *src);
bool arrayset_has(const struct arrayset *s, uint32_t id);
void arrayset_add(struct arrayset *s, uint32_t id);
void arrayset_del(struct arrayset *s, uint32_t id);
/* arrayset_next: the first id >= from in s, or -1. */
int64_t arrayset_next(const struct arrayset *s, uint32_t from);
/* arrayset_format: "1,3,5-7" (caller frees; "" when empty). */
char *arrayset_format(const struct arrayset *s);

#endif
