/*
 * Inside sluice explain (explain.c, explain_node.c): the state they
 * share.  Nobody else includes this.
 */
#ifndef SLUICE_CTLD_EXPLAIN_INT_H
#define SLUICE_CTLD_EXPLAIN_INT_H

#include "ctld/sched/explain.h"

struct explain {
    struct explain_src src; /* borrowed contexts */
};

#endif
