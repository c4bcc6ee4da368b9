/*
 * What the two halves of sluice doctor's judgement share (doctor.c: the
 * nodes and the controller's peers; doctor_policy.c: the state directory,
 * preemption, priority, time limits): typed reads of the facts, text
 * built piece by piece.
 */
#ifndef SLUICE_DOCTOR_INT_H
#define SLUICE_DOCTOR_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/conf.h"

/* The string member k of o, or def when it is not a string. */
const char *doctor_jstr(json_t *o, const char *k, const char *def);
/* The integer member k of o into *v; false when it is not an integer. */
bool doctor_jint(json_t *o, const char *k, long long *v);
/* The configuration key k (CONFIG_QUERY), or NULL when not reported. */
const char *doctor_conf(json_t *facts, const char *k);
/* The configuration key k as an integer into *v; false when absent or
 * not a number. */
bool doctor_conf_int(json_t *facts, const char *k, long long *v);
/* s (may be NULL, freed) with fmt appended: a new string. */
char *doctor_cat(char *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "12, 15, 17 and 3 more": at most max of the integers of ids. */
char *doctor_ids(json_t *ids, size_t max);
/* "12 MiB", "3 GiB": b rounded down. */
const char *doctor_size(long long b, char *buf, size_t len);

/* The checks of doctor_policy.c. */
void doctor_state_dir(json_t *facts, struct conf_diag *d);
void doctor_preempt_reach(json_t *facts, struct conf_diag *d);
void doctor_prio_weights(json_t *facts, struct conf_diag *d);
void doctor_time_limit(json_t *facts, struct conf_diag *d);
void doctor_preempted_users(json_t *facts, struct conf_diag *d);

#endif
