/*
 * Node features and the job constraints against them (Slurm's -C and
 * Features=): a small parser and matcher, pure.
 *
 *   a            every node has a          a&b   both      a|b  either
 *   (a|b)&c      grouping                  a*2&b  two nodes with a, all b
 *   [a|b]        every node has the same one of a, b (a*2 inside too)
 *
 * Counts (*N) and brackets stand only at the top level, joined by &: the
 * rest of the expression is judged node by node.
 */
#ifndef SLUICE_SCHED_FEATURES_H
#define SLUICE_SCHED_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define FEATURES_MAX_LEN 1024 /* an expression's bytes */
#define FEATURES_MAX_TERMS 64 /* names in one expression */

struct features_req;

/*
 * features_parse: the expression s into a request (caller frees with
 * features_free).  NULL with EINVAL and e ("Invalid feature
 * specification: ...", naming the place) when s is not one.
 */
struct features_req *features_parse(const char *s, struct err *e);
void features_free(struct features_req *r);

/* features_has: the comma list feats ("a100,ib", NULL or "": none) holds
 * name exactly. */
bool features_has(const char *feats, const char *name);

/* features_node_ok: a node with feats could be one of r's nodes (the
 * per-node part holds, and it has one of the bracket's choices). */
bool features_node_ok(const struct features_req *r, const char *feats);

/* features_for_set: r has counts or a [..] group, which only a set of
 * nodes can satisfy (the rest is judged node by node). */
bool features_for_set(const struct features_req *r);

/* features_min_nodes: the nodes r's counts need at least (0: none). */
uint32_t features_min_nodes(const struct features_req *r);

/*
 * features_pick: choose want of the n candidates (feats[i] is candidate
 * i's list, in order of preference) that together satisfy r, into out
 * (candidate numbers, want of them).  false when no such choice exists.
 * A NULL r takes the first want candidates.
 */
bool features_pick(const struct features_req *r, const char *const *feats,
                   size_t n, uint32_t want, size_t *out);

#endif
