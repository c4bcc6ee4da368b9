/*
 * Slurm hostlist expressions: "node[01-04]", "node[1,3-5,9]",
 * "gpu-a[01-02],gpu-b7", "r[1-2]n[01-02]".  Expansion keeps zero padding
 * and is bounded, so that "n[0-99999999]" is an error rather than an OOM.
 */
#ifndef SLUICE_HOSTLIST_H
#define SLUICE_HOSTLIST_H

#include <stddef.h>

#include "common/err.h"

/* The most names one expression (or one list) may expand to. */
#define HOSTLIST_MAX_HOSTS 65536
/* The longest single host name. */
#define HOSTLIST_MAX_NAME 256

struct hostlist;

/* An empty list; free with hostlist_destroy (accepts NULL, keeps errno). */
struct hostlist *hostlist_create(void);
void hostlist_destroy(struct hostlist *hl);

/*
 * hostlist_expand: parse expr into a new list in written order (duplicates
 * kept).  NULL with errno EINVAL (syntax: unterminated bracket, descending
 * range, empty name, bad character) or E2BIG (over HOSTLIST_MAX_HOSTS or a
 * name over HOSTLIST_MAX_NAME), and a message in e naming the problem and
 * the offending part of expr.  Caller destroys the result.
 */
struct hostlist *hostlist_expand(const char *expr, struct err *e);

/* hostlist_push: expand expr and append its names; 0, or -1 as above with
 * hl unchanged. */
int hostlist_push(struct hostlist *hl, const char *expr, struct err *e);
/* hostlist_push_host: append one literal name (copied). */
void hostlist_push_host(struct hostlist *hl, const char *name);

size_t hostlist_count(const struct hostlist *hl);
/* hostlist_nth: the i-th name, owned by the list; NULL past the end. */
const char *hostlist_nth(const struct hostlist *hl, size_t i);
/* hostlist_find: index of name, or -1. */
long hostlist_find(const struct hostlist *hl, const char *name);

/* hostlist_sort_uniq: sort (prefix, then numeric suffix) and drop
 * duplicates, as Slurm does before printing. */
void hostlist_sort_uniq(struct hostlist *hl);

/*
 * hostlist_compress: the shortest bracket form of the list in its current
 * order: node01,node02,node03,gpu-b7 -> "node[01-03],gpu-b7".  Names whose
 * digits differ in width are not merged (node1 and node01 stay apart).
 * hostlist_expand(hostlist_compress(l)) yields l again when l is sorted and
 * unique.  Returns a new string the caller frees; "" for an empty list.
 */
char *hostlist_compress(const struct hostlist *hl);

/* hostlist_join: "a,b,c" with sep between names; caller frees. */
char *hostlist_join(const struct hostlist *hl, const char *sep);

#endif
