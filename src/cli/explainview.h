/*
 * The text of `sluice explain`: an EXPLAIN object (docs/protocol.md) as a
 * few lines a person reads in ten seconds — the principal reason, each
 * node's obstacle, the queue ahead, the estimated start and what would
 * let the job start sooner.
 */
#ifndef SLUICE_CLI_EXPLAINVIEW_H
#define SLUICE_CLI_EXPLAINVIEW_H

#include <stdio.h>
#include <time.h>

#include <jansson.h>

/* explainview_print: o (borrowed) as text to fp; relative times ("in
 * 1:00:00") are counted from now. */
void explainview_print(FILE *fp, json_t *o, time_t now);

#endif
