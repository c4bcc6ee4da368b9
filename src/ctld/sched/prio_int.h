/*
 * Inside the controller's priority module (prio_drv.c, prio_usage.c,
 * prio_json.c): the state they share.  Nobody else includes this.
 */
#ifndef SLUICE_CTLD_PRIO_INT_H
#define SLUICE_CTLD_PRIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>

#include "common/err.h"
#include "ctld/sched/prio_drv.h"
#include "sched/fairshare.h"
#include "sched/limits.h"
#include "sched/prio.h"
#include "sched/prio_setup.h"

struct job;
struct sqlite3_stmt;

/* Decayed usage of one user association, by key "account/user". */
struct prio_usage {
    char *key;
    double usage;
};

struct prio_drv {
    struct prio_drv_src src; /* borrowed contexts */
    struct prio_setup ps;    /* the configuration's priority settings */

    uint64_t gen;      /* moves whenever every pending job needs a new
                          priority */
    uint64_t acct_gen; /* acct_generation the tree was built at */

    /* usage, sorted by key */
    struct prio_usage *usage;
    size_t nusage, capusage;
    time_t last_calc;  /* running jobs are charged up to here */
    time_t next_reset; /* 0: none */

    /* the association tree (fs_compute), rebuilt with acct_gen */
    struct fs_assoc *fs;
    char **fs_key;  /* per entry: "account" or "account/user" (owned) */
    size_t *byname; /* fs indices sorted by fs_key */
    size_t nfs;

    struct sqlite3_stmt *put, *load;
    struct event *timer;
};

/* prio_usage.c */
int prio_usage_open(struct prio_drv *p, struct err *e);
void prio_usage_close(struct prio_drv *p);
/* prio_usage_add: usage[key] += amount (inserted when absent). */
void prio_usage_add(struct prio_drv *p, const char *key, double amount);
double prio_usage_get(const struct prio_drv *p, const char *key);
/* prio_usage_save: write every entry and the clock into the open
 * transaction; -1 with e. */
int prio_usage_save(struct prio_drv *p, struct err *e);
/* prio_usage_save_one: write one entry and the clock. */
int prio_usage_save_one(struct prio_drv *p, const char *key, struct err *e);
/* prio_usage_rate (prio_drv.c): the usage j's allocation is billed from
 * `from` to `to` with the QOS's UsageFactor factor (prio_setup_charge). */
double prio_usage_rate(const struct prio_drv *p, const struct job *j,
                       double factor, time_t from, time_t to);
/* prio_usage_charge: usage of j from..to onto its association. */
void prio_usage_charge(struct prio_drv *p, const struct job *j, time_t from,
                       time_t to);
/* prio_tree_build: the association tree from the accounting model with
 * the usage; fs_compute'd. */
/* The usage key of a QOS ("qos:NAME") into buf. */
#define PRIO_QOS_KEY "qos:"
void prio_usage_qos_key(const char *qos, char *buf, size_t len);
/* prio_usage_no_decay: key is a QOS with Flags=NoDecay, whose usage is
 * neither decayed nor reset (Slurm: its UsageRaw is kept). */
bool prio_usage_no_decay(const struct prio_drv *p, const char *key);
void prio_tree_build(struct prio_drv *p);
void prio_tree_free(struct prio_drv *p);
/* prio_tree_find: the index of key in the tree, or SIZE_MAX. */
size_t prio_tree_find(const struct prio_drv *p, const char *key);
/* prio_job_key: "account/user" of j into buf (its account, else the
 * user's default account, else "" and false). */
bool prio_job_key(const struct prio_drv *p, const struct job *j, char *buf,
                  size_t len);

#endif
