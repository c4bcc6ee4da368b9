/*
 * sprio's choices: Slurm 22.05's default columns (JOBID PARTITION
 * PRIORITY, -l USER ACCOUNT too, then only the factors whose weight is
 * non-zero: AGE FAIRSHARE JOBSIZE PARTITION QOS, -l NICE, and TRES when
 * PriorityWeightTRES is set) and the jobs it lists (not held ones).
 */
#ifndef SLUICE_CLI_PRIOVIEW_H
#define SLUICE_CLI_PRIOVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* prioview_default_format: the format letters of the default columns
 * for the weights object w of PRIO_REPLY (-l: lng, -n: norm). */
void prioview_default_format(bool lng, bool norm, json_t *w, char *buf,
                             size_t len);

/* prioview_listed: the jobs of reply that sprio lists: not held (priority
 * 0 unless fixed), in the comma list parts (NULL: any); new array. */
json_t *prioview_listed(const char *parts, json_t *reply);

#endif
