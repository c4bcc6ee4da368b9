/*
 * A node's GPUs as the controller schedules them: the inventory the node
 * registered (index, type, NVLink peers), kept within what its Gres=
 * configures, or the configured GPUs while it has not registered; the
 * check that turns a short or mistyped inventory into the node's INVALID
 * reason; and the GPUs allocated on it, by registered index.
 */
#ifndef SLUICE_CTLD_NODEGPU_H
#define SLUICE_CTLD_NODEGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "common/gres.h"
#include "sched/sched.h"

/* One GPU as the node registered it. */
struct nodegpu {
    uint32_t index;           /* what JOB_LAUNCH's "gpus" names */
    char type[GRES_NAME_MAX]; /* "h200" or "" */
    uint32_t *links;          /* indices of its NVLink peers (owned) */
    size_t n_links;
};

/* A list of GPUs plus its scheduler model (positions = list order). */
struct nodegpu_inv {
    struct nodegpu *v;
    size_t n;
    struct sched_gpu *model; /* n entries, pointing into v and link_words */
    uint64_t *link_words;    /* n * SCHED_GPU_WORDS(n), or NULL: no links */
};

/*
 * nodegpu_parse: NODE_REGISTER's "gpus" ([{"index": 0, "type": "h200",
 * "file": .., "links": [-1, 2, 0, 0]}]) into out.  "links" is gres.conf's
 * Links= (one number per GPU of the list, its NVLinks to that one, -1 for
 * itself; also as a string "-1,2,0,0"); what cannot be read of it is
 * ignored.  Absent or null gpus with a gres string ("gpu:4") give
 * count-only GPUs 0..N-1 of its types.
 * -1 with EINVAL and e on a bad entry (an index repeated or over
 * SCHED_GPU_MAX, a type that is no GRES word).  Free with nodegpu_fini.
 */
int nodegpu_parse(json_t *gpus, const char *gres, struct nodegpu_inv *out,
                  struct err *e);

/* nodegpu_from_conf: the GPUs a node's Gres= configures, 0..N-1. */
void nodegpu_from_conf(const struct gres_list *cfg, struct nodegpu_inv *out);

/*
 * nodegpu_fit: the GPUs of rep that the configuration cfg accounts for
 * (per configured type, the first ones of that type; untyped: any), into
 * out; GPUs beyond are not scheduled.  Returns how many were left out.
 */
size_t nodegpu_fit(const struct gres_list *cfg, const struct nodegpu_inv *rep,
                   struct nodegpu_inv *out);

/*
 * nodegpu_check: does rep satisfy cfg?  0 when it does; else -1 and why:
 * "gres/gpu count reported 0 < configured 4 (NOTE)" or "gres/gpu:a100
 * count reported 0 < configured 4 (the node reports gpu:h100:4)".  note
 * (may be NULL) is the node's own explanation (gres_note).
 */
int nodegpu_check(const struct gres_list *cfg, const struct nodegpu_inv *rep,
                  const char *note, char *why, size_t len);

void nodegpu_fini(struct nodegpu_inv *inv);

/* nodegpu_find: the position of index in inv, or -1. */
long nodegpu_find(const struct nodegpu_inv *inv, uint32_t index);

/* nodegpu_summary: "gpu:h200:2,gpu:2" of inv into buf ("" when empty). */
char *nodegpu_summary(const struct nodegpu_inv *inv, char *buf, size_t len);

/* nodegpu_to_json: [{"index", "type", "links"}] (new reference). */
json_t *nodegpu_to_json(const struct nodegpu_inv *inv);

/*
 * nodegpu_idx_list: "0-1,3" for n indices (any order) into buf, as in
 * Slurm's "gpu:3(IDX:0-1,3)".  Returns buf.
 */
char *nodegpu_idx_list(const uint32_t *idx, size_t n, char *buf, size_t len);

#endif
