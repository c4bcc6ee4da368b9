/*
 * Inside sluice import-slurm (conf_import.c): what becomes of each Slurm
 * key (conf_import_rules.c).  Not for other modules.
 */
#ifndef SLUICE_COMMON_CONF_IMPORT_INT_H
#define SLUICE_COMMON_CONF_IMPORT_INT_H

#include <stdbool.h>

/* Where a key stands: a line of slurm.conf (cluster, node, partition),
 * or a line of gres.conf or cgroup.conf. */
enum import_scope {
    IMPORT_SCOPE_CLUSTER = 1,
    IMPORT_SCOPE_NODE = 2,
    IMPORT_SCOPE_PART = 4,
    IMPORT_SCOPE_GRES = 8,
    IMPORT_SCOPE_CGROUP = 16,
};

enum import_act {
    IMPORT_ACT_DEFAULT, /* left out: Sluice's default (arg) applies */
    IMPORT_ACT_SET,     /* written with the value arg */
    IMPORT_ACT_IGNORE,  /* left out: nothing to carry */
    IMPORT_ACT_UNMAP,   /* left out: Sluice has no equivalent */
    IMPORT_ACT_NONE_OK, /* value arg (none, off): ignored; else unmapped */
};

struct import_rule {
    unsigned scopes; /* enum import_scope bits */
    const char *key;
    enum import_act act;
    const char *arg;
    const char *why; /* a sentence for the report */
};

/* import_rule_find: the rule for key (case-insensitive) in scope, or
 * NULL when the key has none. */
const struct import_rule *import_rule_find(unsigned scope, const char *key);

/* import_key_known: whether Sluice reads key in scope (then, without a
 * rule, it is written as it was). */
bool import_key_known(unsigned scope, const char *key);

/* The sentences for keys without a rule that Sluice does not read. */
const char *import_unknown_why(unsigned scope);

#endif
