/*
 * sacctmgr's pieces shared by its files: the entities, and the printing of
 * ACCT_LIST replies in Slurm's columns (acctmgr_show.c).
 */
#ifndef SLUICE_CLI_ACCTMGR_H
#define SLUICE_CLI_ACCTMGR_H

#include <stdbool.h>

#include <jansson.h>

#include "common/err.h"

struct acctmgr_out {
    bool parsable;  /* -p: '|' after every field */
    bool parsable2; /* -P: '|' between fields */
    bool noheader;  /* -n */
    bool withassoc; /* -s / withassoc: user and account rows per association */
    bool tree;      /* "tree": associations depth-first, Account indented */
};

/* acctmgr_entity: "qos", "account", ... for a word ("Users", "assoc",
 * "tres", "events"); NULL when it names none. */
const char *acctmgr_entity(const char *word);

/* acctmgr_flag_word: whether word is one of sacctmgr's list flags
 * (withassoc, tree, withcoord, withdeleted, ...), and set it in out. */
bool acctmgr_flag_word(const char *word, struct acctmgr_out *out);

/*
 * acctmgr_with_assoc: the rows of "list user|account withassoc": one
 * object per association of each user (account) in items, the
 * association's fields with the user's (account's) own; new array.
 * where's Account, Partition and Cluster conditions select associations.
 */
json_t *acctmgr_with_assoc(const char *entity, json_t *items, json_t *assocs,
                           json_t *where);

/* acctmgr_tree: the associations depth-first from root, each with its
 * "account" indented one blank per level below root, as "sacctmgr show
 * assoc tree" and sshare print them; new array of new objects. */
json_t *acctmgr_tree(json_t *assocs);

/* acctmgr_dump: "sacctmgr dump [CLUSTER] [file=F]": the accounts, users
 * and associations as Slurm's flat file, to file (NULL: stdout).
 * acctmgr_load: "sacctmgr load file=F": adds what the file has and the
 * cluster lacks.  -1 with e. */
int acctmgr_dump(const char *cluster, const char *file, struct err *e);
int acctmgr_load(const char *file, struct err *e);

/* acctmgr_print_tres: "sacctmgr show tres" (Type, Name, ID). */
int acctmgr_print_tres(const char *format, const struct acctmgr_out *out,
                       struct err *e);

/*
 * acctmgr_print: the objects of reply (ACCT_LIST) for entity in the
 * columns of format ("Name,Priority%20"; NULL: the entity's defaults).
 * -1 with e naming an unknown column; nothing is printed then.
 */
int acctmgr_print(const char *entity, json_t *reply, const char *format,
                  const struct acctmgr_out *out, struct err *e);

#endif
