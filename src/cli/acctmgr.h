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
};

/* acctmgr_entity: "qos", "account", ... for a word ("Users", "assoc");
 * NULL when it names none. */
const char *acctmgr_entity(const char *word);

/*
 * acctmgr_print: the objects of reply (ACCT_LIST) for entity in the
 * columns of format ("Name,Priority%20"; NULL: the entity's defaults).
 * -1 with e naming an unknown column; nothing is printed then.
 */
int acctmgr_print(const char *entity, json_t *reply, const char *format,
                  const struct acctmgr_out *out, struct err *e);

#endif
