/*
 * The node table: one entry per NodeName of the configuration, with what
 * its daemon reported, what is allocated on it, its connection, and its
 * state by Slurm's names.  A node is UNKNOWN until it registers, DOWN
 * ("Not responding") after SlurmdTimeout of silence, INVALID when it has
 * less than configured, and DRAIN/DOWN when an admin says so.
 */
#ifndef SLUICE_CTLD_NODES_H
#define SLUICE_CTLD_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"
#include "ctld/cluster/nodegpu.h"

struct conn;
struct loop;
struct nodes;
struct parts;
struct persist;

enum node_admin {
    NODE_ADMIN_NONE,
    NODE_ADMIN_DRAIN,
    NODE_ADMIN_DOWN,
};

/* A user's running jobs on one node: all of them, and those started in a
 * partition with ExclusiveUser=YES. */
struct node_user {
    uint32_t uid;
    uint32_t jobs;
    uint32_t exclusive;
    uint32_t whole; /* jobs with the whole node (--exclusive) */
};

/* How a job holds its nodes, for nodes_user_add/remove (flags). */
#define NODES_EXCL_USER 0x1u  /* ExclusiveUser=YES, --exclusive=user */
#define NODES_EXCL_WHOLE 0x2u /* --exclusive: the whole node */

struct node {
    const struct conf_node *cf;
    size_t idx;
    bool registered;     /* registered since the controller started */
    bool not_responding; /* DOWN: silent for SlurmdTimeout */
    bool invalid;        /* reported less than configured */
    char *auto_reason;   /* why invalid or not responding (owned) */
    time_t auto_reason_time;
    enum node_admin admin;
    char *admin_reason; /* owned */
    time_t admin_reason_time;
    int64_t admin_reason_uid; /* who set it (scontrol update); -1: unknown */
    uint32_t cpus_reported;
    uint64_t mem_reported_mib;
    char *gres_reported; /* owned, or NULL */
    char *gres_note;     /* the node's word on its GPUs (owned), or NULL */
    /* GPUs scheduled: as registered (within Gres=), else as configured */
    struct nodegpu_inv gpus;
    uint64_t *gpu_used; /* by registered index, SCHED_GPU_WORDS(max) words */
    uint32_t cpus_alloc;
    uint64_t mem_alloc_mib;
    uint32_t njobs;
    /* the users whose jobs run here, for ExclusiveUser (a few per node) */
    struct node_user *users;
    size_t n_users;
    struct conn *conn; /* the node daemon's open connection, or NULL */
    time_t last_seen;
    time_t boot_time;
    /* what the daemon says of itself, for sluice doctor (owned, or NULL
     * when a daemon of an older sluice left it out) */
    char *host_reported;    /* its host name */
    char *cgroup;           /* "v2", "v1", "none" */
    char *fence;            /* GPU device fence: "on", "off", "none" */
    char *fence_why;        /* why it is off ("" otherwise) */
    bool clock_known;       /* clock_offset_s was measured */
    int64_t clock_offset_s; /* the node's clock less ours, last heard */
};

/* Why a node went down (nodes_events.node_down). */
enum node_down {
    NODE_DOWN_ADMIN,  /* set DOWN by an admin: its daemon may still run
                         its jobs, which must be killed there */
    NODE_DOWN_SILENT, /* silent for SlurmdTimeout ("Not responding") */
};

/*
 * What the node table reports to the root, which installs it (the table
 * knows nothing of jobs).  node_down: node idx went DOWN at now; the
 * jobs running there end NODE_FAIL (reason "NodeDown"), as the root
 * sees to.  Called after the node's state changed.
 */
struct nodes_events {
    void (*node_down)(void *arg, size_t idx, enum node_down why, time_t now);
};

/* nodes_create: one node per conf node; admin states loaded from the
 * database; ev (copied) and arg receive its reports.  conf, persist (the
 * admin states), loop (a change's transaction, the pass it asks for) and
 * parts (which partitions hold a node) are borrowed and must outlive the
 * table.  nodes_destroy accepts NULL. */
struct nodes *nodes_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, const struct parts *parts,
                           const struct nodes_events *ev, void *arg,
                           struct err *e);
void nodes_destroy(struct nodes *ns);

size_t nodes_count(const struct nodes *ns);
struct node *nodes_get(struct nodes *ns, size_t idx);
/* nodes_auth_tag: the receiver tag of frames to a connection bound to node
 * idx ("sluiced:NAME"), or to any other ("client"); auth.h. */
void nodes_auth_tag(struct nodes *ns, long idx, char *out, size_t len);
/* nodes_find: by NodeName, or NULL. */
struct node *nodes_find(struct nodes *ns, const char *name);

/* Resources a job takes and gives back on one node. */
void nodes_alloc(struct nodes *ns, size_t idx, uint32_t cpus, uint64_t mem);
void nodes_release(struct nodes *ns, size_t idx, uint32_t cpus, uint64_t mem);
/* A job of uid starts or stops running on node idx; excl: NODES_EXCL_*
 * (0: it shares the node as any job does). */
void nodes_user_add(struct nodes *ns, size_t idx, uint32_t uid, unsigned excl);
void nodes_user_remove(struct nodes *ns, size_t idx, uint32_t uid,
                       unsigned excl);
/* GPUs (registered indices) a job takes and gives back on one node.
 * nodes_gpus_take returns how many of them were taken already (logged: a
 * double allocation never passes silently). */
size_t nodes_gpus_take(struct nodes *ns, size_t idx, const uint32_t *gpus,
                       size_t n);
void nodes_gpus_give(struct nodes *ns, size_t idx, const uint32_t *gpus,
                     size_t n);
/* nodes_gpu_used: is GPU index of the node allocated? */
bool nodes_gpu_used(const struct node *n, uint32_t index);
/* nodes_gpus_alloc: how many of the node's GPUs are allocated. */
size_t nodes_gpus_alloc(const struct node *n);

/* node_usable: may the scheduler start jobs there (drain aside)? */
bool node_usable(const struct node *n);
/* node_state_name: "IDLE", "MIXED", "ALLOCATED", "DOWN", "DRAIN",
 * "DRAINING", "INVALID", "UNKNOWN". */
const char *node_state_name(const struct node *n);
const char *node_reason(const struct node *n);

/* node_to_json: the NODE object of docs/protocol.md (new reference);
 * jobs (stolen) is its "jobs": the ids of the jobs running there, which
 * the node table does not know. */
json_t *node_to_json(struct nodes *ns, const struct node *n, json_t *jobs);

/* What a registering node says it has. */
struct nodes_report {
    uint32_t cpus;
    uint64_t mem_mib;
    const char *gres;         /* "gpu:4", or NULL */
    const char *gres_note;    /* why it has fewer GPUs, or NULL */
    struct nodegpu_inv *gpus; /* taken over (left empty) */
    time_t boot_time;
    const char *hostname;  /* the daemon's host name, or NULL */
    const char *cgroup;    /* "v2", "v1", "none", or NULL */
    const char *fence;     /* "on", "off", "none", or NULL */
    const char *fence_why; /* or NULL */
    bool has_time;
    int64_t time; /* the node's clock when it sent the registration */
};

/*
 * nodes_register: a node daemon on conn says what it has.  Marks it
 * INVALID (with Slurm's "Low CPUs (2 < 16)", or "gres/gpu count reported
 * 0 < configured 4 (NOTE)") or returns it to service, and makes conn its
 * connection.
 */
void nodes_register(struct nodes *ns, struct node *n, struct conn *conn,
                    struct nodes_report *rep, time_t now);
/* nodes_seen: a frame from the node on its connection: it is alive.
 * Returns true when this brings it back from DOWN "Not responding". */
bool nodes_seen(struct nodes *ns, struct node *n, time_t now);
/* nodes_clock: the node's clock said node_time when we read its frame at
 * now (registration, heartbeat): its offset from ours. */
void nodes_clock(struct nodes *ns, struct node *n, int64_t node_time,
                 time_t now);
/* nodes_conn_closed: conn (the node's) went away; the node keeps its state
 * until SlurmdTimeout passes. */
void nodes_conn_closed(struct nodes *ns, size_t idx, struct conn *conn);

/*
 * nodes_set_admin: DRAIN, DOWN or NONE (RESUME) with a reason, persisted.
 * DOWN is reported (node_down, NODE_DOWN_ADMIN).  -1 with e on a
 * database error.
 */
int nodes_set_admin(struct nodes *ns, struct node *n, enum node_admin admin,
                    const char *reason, time_t now, struct err *e);
/* nodes_set_admin_by: the same, recording uid as who set the reason
 * (the node object's reason_user; -1: unknown). */
int nodes_set_admin_by(struct nodes *ns, struct node *n, enum node_admin admin,
                       const char *reason, int64_t uid, time_t now,
                       struct err *e);

/* nodes_tick: every second: nodes silent for SlurmdTimeout go DOWN,
 * each reported (node_down, NODE_DOWN_SILENT). */
void nodes_tick(struct nodes *ns, time_t now);
/* nodes_silence_reset: the silence of every node not yet marked DOWN
 * for it counts from now: the controller refused registrations while its
 * state directory took no writes (core/statedir.h), so a node could not
 * make itself heard. */
void nodes_silence_reset(struct nodes *ns, time_t now);

/* nodes_heartbeat_s: what registering nodes are told (SlurmdTimeout/3). */
uint32_t nodes_heartbeat_s(const struct nodes *ns);

#endif
