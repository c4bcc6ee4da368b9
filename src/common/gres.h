/*
 * Generic resources as written in Gres= and --gres: "gpu:4", "gpu:h200:8",
 * "gpu:4(S:0-1)", "gpu:a100:2,gpu:h100:2".
 */
#ifndef SLUICE_GRES_H
#define SLUICE_GRES_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define GRES_NAME_MAX 32
#define GRES_MAX_ITEMS 16

struct gres_item {
    char name[GRES_NAME_MAX]; /* "gpu" */
    char type[GRES_NAME_MAX]; /* "h200", or "" when untyped */
    uint64_t count;           /* 1 when no count is written */
    char sockets[64];         /* "0-1" from "(S:0-1)", or "" */
};

struct gres_list {
    size_t n;
    struct gres_item items[GRES_MAX_ITEMS];
};

/*
 * gres_parse: parse a comma-separated GRES string into *out (cleared
 * first).  "" and "(null)" give an empty list.  -1 with EINVAL and a
 * message naming the bad item and what was expected.
 */
int gres_parse(const char *s, struct gres_list *out, struct err *e);

/* gres_format: canonical "gpu:h200:8(S:0-1),gpu:2" into buf; returns buf. */
char *gres_format(const struct gres_list *l, char *buf, size_t len);

/* gres_count: total count of items named name (any type when type is NULL
 * or ""). */
uint64_t gres_count(const struct gres_list *l, const char *name,
                    const char *type);

#endif
