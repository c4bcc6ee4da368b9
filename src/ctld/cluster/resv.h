/*
 * Advance reservations (scontrol create/update/delete reservation): named
 * sets of nodes held for some users or accounts from a start time to an
 * end time.  The table checks and keeps them (persisted, so a restart
 * keeps them; removed at their end, or moved on by a day or a week when
 * DAILY or WEEKLY), and answers the scheduler's one question: which nodes
 * may a job use now, given its reservation (or none) and its time limit
 * (resvs_job_mask).  What runs on the nodes is not known here: the caller
 * says which nodes are busy at a time (struct resv_busy).
 */
#ifndef SLUICE_CTLD_RESV_H
#define SLUICE_CTLD_RESV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"

struct loop;
struct persist;
struct resvs;

/* Flags=, by Slurm's names (resv_flags_name). */
enum resv_flag {
    RESV_MAINT = 1u << 0,       /* maintenance: nodes show "maint" */
    RESV_IGNORE_JOBS = 1u << 1, /* created even where jobs still run */
    RESV_OVERLAP = 1u << 2,     /* may share nodes with other reservations */
    RESV_DAILY = 1u << 3,       /* repeats every day */
    RESV_WEEKLY = 1u << 4,      /* repeats every week */
    RESV_SPEC_NODES = 1u << 5,  /* set: the nodes were named (Nodes=) */
};

struct resv {
    char *name;
    time_t start, end;
    size_t *node_idx; /* conf node indices, ascending (owned) */
    size_t n_nodes;
    char *partition; /* or NULL */
    char *users;     /* "alice,bob" or "-carol" (all but), or NULL */
    char *accounts;  /* the same for accounts, or NULL */
    unsigned flags;  /* enum resv_flag */
    bool was_active; /* at the last resvs_tick (a pass at each change) */
};

/* Which nodes run jobs that will still run at a time: the caller's
 * (rpc/) view of the job table.  busy(arg, node, at, resv): a job not in
 * reservation resv (may be NULL) holds node at time at. */
struct resv_busy {
    bool (*busy)(void *arg, size_t node, time_t at, const char *resv);
    void *arg;
};

/*
 * resvs_create: the table with the reservations saved in the database; a
 * saved one that no longer fits the configuration is logged and dropped.
 * conf, persist and loop are borrowed and must outlive the table.  NULL
 * with e on a database error.  resvs_destroy accepts NULL.
 */
struct resvs *resvs_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, struct err *e);
void resvs_destroy(struct resvs *rs);

size_t resvs_count(const struct resvs *rs);
const struct resv *resvs_get(const struct resvs *rs, size_t i);
/* resvs_find: by name (case-sensitive, as Slurm), or NULL. */
const struct resv *resvs_find(const struct resvs *rs, const char *name);

/*
 * resvs_add: a new reservation from spec (docs/reservations.md: "name",
 * "start_time", "end_time" or "duration_s", "nodes" (a host list or
 * "ALL") or "node_count", "partition", "users", "accounts", "flags"),
 * checked against the others (Slurm's "Requested reservation overlaps
 * with another reservation" unless OVERLAP) and, without IGNORE_JOBS,
 * against jobs still running at its start ("Requested nodes are busy").
 * A name not given is USER_N (or ACCOUNT_N).  Saved in the iteration's
 * transaction.  *name (may be NULL) gets the name (borrowed from the
 * table).  -1 with errno (EINVAL, EEXIST, EBUSY) and e.
 */
int resvs_add(struct resvs *rs, json_t *spec, const struct resv_busy *busy,
              time_t now, const char **name, struct err *e);
/* resvs_update: the keys of spec (those of resvs_add but name and
 * node_count) applied to reservation name, all or nothing, with the same
 * checks.  -1 with errno (ENOENT: "Invalid reservation name") and e. */
int resvs_update(struct resvs *rs, const char *name, json_t *spec,
                 const struct resv_busy *busy, time_t now, struct err *e);
/* resvs_delete: -1 with ENOENT when there is no such reservation. */
int resvs_delete(struct resvs *rs, const char *name, struct err *e);

/* resvs_tick: every second: reservations past their end are removed (or,
 * DAILY/WEEKLY, moved on); a pass is asked for when one begins or ends. */
void resvs_tick(struct resvs *rs, time_t now);

/* resv_active: r has begun and not ended at now. */
bool resv_active(const struct resv *r, time_t now);
/* resv_has_node: node (conf index) is one of r's. */
bool resv_has_node(const struct resv *r, size_t node);
/* resvs_maint_node: the name of a MAINT reservation active on node at
 * now, or NULL; resvs_node_resv: any reservation active on it. */
const char *resvs_maint_node(const struct resvs *rs, size_t node, time_t now);
const char *resvs_node_resv(const struct resvs *rs, size_t node, time_t now);

/* resvs_node_json: the node's "reservation" (the active one's name, or
 * null) and "maint" (a MAINT one is active) into o, a NODE object. */
void resvs_node_json(const struct resvs *rs, size_t node, time_t now,
                     json_t *o);

/*
 * resvs_job_access: may a job of user (uid's name) and account use
 * reservation name?  0; -1 with EINVAL "Requested reservation is
 * invalid" when there is none, EPERM "Access denied to requested
 * reservation" when its Users/Accounts leave the job out (both given:
 * both must admit it, as in Slurm).
 */
int resvs_job_access(const struct resvs *rs, const char *name, const char *user,
                     const char *account, struct err *e);

/* What resvs_job_mask found. */
enum resv_verdict {
    RESV_FREE,    /* no reservation is in the way: mask untouched */
    RESV_MASKED,  /* mask lists the nodes it may use */
    RESV_WAIT,    /* its reservation has not begun */
    RESV_DELETED, /* its reservation is gone */
};

/*
 * resvs_job_mask: the scheduler's rule, pure.  A job in reservation resv
 * (NULL: none) with time limit limit_s (<= 0: none) at now may use only
 * that reservation's nodes, once it has begun; a job in none may use no
 * node of a reservation that is active, or that begins before the job's
 * time limit would end.  mask has n_nodes entries (conf node order);
 * RESV_MASKED sets every entry (true: may use).  *maint (may be NULL) is
 * set when a MAINT reservation took a node away.
 */
enum resv_verdict resvs_job_mask(const struct resvs *rs, const char *resv,
                                 int64_t limit_s, time_t now, bool *mask,
                                 size_t n_nodes, bool *maint);

/* resvs_blocker: the reservation that keeps node from the job of
 * resvs_job_mask (its own, when the node is not in it), or NULL. */
const char *resvs_blocker(const struct resvs *rs, const char *resv,
                          int64_t limit_s, time_t now, size_t node);

/* resv_flags_name: "MAINT,IGNORE_JOBS" into buf ("" for none). */
const char *resv_flags_name(unsigned flags, char *buf, size_t len);
/* resv_flags_parse: "maint,ignore_jobs" (case-insensitive); -1 EINVAL. */
int resv_flags_parse(const char *s, unsigned *out, struct err *e);

/* resvs_to_json: the RESV object of docs/protocol.md at now (new ref). */
json_t *resvs_to_json(const struct resvs *rs, const struct resv *r, time_t now);

#endif
