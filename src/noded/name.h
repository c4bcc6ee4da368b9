/*
 * Which NodeName this sluiced serves: -N NAME, else the host name.  When
 * neither matches, one line that shows what the configuration defines and
 * the nearest name (the seed's pitfall: NodeName=node[01-04] on hosts
 * called node1, node2, ...).
 */
#ifndef SLUICE_NODED_NAME_H
#define SLUICE_NODED_NAME_H

#include <stddef.h>

#include "common/conf.h"
#include "common/err.h"

/*
 * name_resolve: requested (-N, may be NULL) must be a NodeName.  Without
 * it, hostname, then its part before the first dot, must equal a NodeName
 * or the NodeHostname of exactly one node.  On success *node points into
 * c.  Otherwise -1 with errno ENOENT (or EINVAL when the host name is the
 * NodeHostname of several nodes) and one line in e, such as
 *   hostname "node1" is not a NodeName in /etc/sluice/sluice.conf
 *   (NodeName=node[01-04] is node01,node02,node03,node04); did you mean
 *   "node01"? Rename the host, add NodeHostname=node1, or start with -N
 *   node01
 * conf_path is how the configuration is named in messages.
 */
int name_resolve(const struct conf *c, const char *conf_path,
                 const char *requested, const char *hostname,
                 const struct conf_node **node, struct err *e);

/* name_distance: Levenshtein distance between a and b (bytes). */
size_t name_distance(const char *a, const char *b);

/*
 * name_score: how far host is from name, lower is nearer: twice the edit
 * distance, less one when both carry the same numbers once zero padding
 * is stripped (so node1 is nearer to node01 than to node10).
 */
size_t name_score(const char *host, const char *name);

/* name_nearest: the NodeName of c nearest to host (the first on a tie), or
 * NULL when c defines no nodes.  Owned by c. */
const char *name_nearest(const struct conf *c, const char *host);

/*
 * name_describe: what c's NodeName= lines define, at most max_names
 * names each before ",...": "NodeName=node[01-04] is node01,node02,..."
 * with "; " between lines.  The expression is the line's names
 * compressed.  New string, caller frees.
 */
char *name_describe(const struct conf *c, size_t max_names);

#endif
