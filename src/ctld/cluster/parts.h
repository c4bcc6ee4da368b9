/*
 * Partitions as they are at run time: the configuration's values, changed
 * by `scontrol update PartitionName=...` (PART_UPDATE).  The changes are
 * persisted (the partitions table) and applied again over the
 * configuration when the controller starts, so a restart keeps them; a key
 * never changed at run time follows the configuration file.
 */
#ifndef SLUICE_CTLD_PARTS_H
#define SLUICE_CTLD_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"

struct loop;
struct parts;
struct persist;

/* One partition's effective settings; cf is the configuration's entry
 * (name, Default, access lists, ...), for what cannot change here. */
struct part {
    const struct conf_part *cf;
    enum conf_part_state state;
    int64_t max_time_s;     /* TIMEFMT_INFINITE when unlimited */
    int64_t default_time_s; /* max_time_s when not given */
    uint32_t max_nodes;     /* CONF_UNLIMITED when unlimited */
    uint32_t min_nodes;
    uint32_t priority_tier;
    size_t *node_idx; /* ascending, unique; owned */
    size_t n_nodes;
    json_t *changed; /* the keys set at run time (owned) */
};

/*
 * parts_create: every configured partition with the changes saved in the
 * database applied.  A saved change that no longer fits the configuration
 * (a node gone) is logged and dropped.  NULL with e on a database error.
 * conf, persist (the saved changes) and loop (a change's transaction) are
 * borrowed and must outlive the partitions.  parts_destroy accepts NULL.
 */
struct parts *parts_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, struct err *e);
void parts_destroy(struct parts *ps);

/* parts_get: partition idx (an index into conf->parts). */
const struct part *parts_get(const struct parts *ps, size_t idx);
int64_t parts_max_time(const struct parts *ps, size_t idx);
/* parts_has_node: whether node idx is in partition part. */
bool parts_has_node(const struct parts *ps, size_t part, size_t node);

/*
 * parts_update: apply set ({"state": "UP|DOWN|DRAIN|INACTIVE",
 * "max_time_s", "default_time_s" (seconds, -1 or "INFINITE"), "max_nodes"
 * (-1 or "UNLIMITED"), "min_nodes", "priority_tier", "nodes" (a hostlist
 * or "ALL")}) to partition idx, all or nothing, and save it in the
 * iteration's transaction.  -1 with EINVAL and e naming the key.
 */
int parts_update(struct parts *ps, size_t idx, json_t *set, struct err *e);

/* parts_to_json: the PART object of docs/protocol.md (new reference). */
json_t *parts_to_json(const struct parts *ps, size_t idx);

#endif
