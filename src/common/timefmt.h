/*
 * Slurm's time-limit formats, in seconds: "INFINITE"/"UNLIMITED", "M",
 * "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S".
 */
#ifndef SLUICE_TIMEFMT_H
#define SLUICE_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define TIMEFMT_INFINITE INT64_MAX

/*
 * timefmt_parse: parse s into *secs (TIMEFMT_INFINITE for INFINITE or
 * UNLIMITED, case-insensitive).  Minutes and seconds after a colon must be
 * below 60, hours after "D-" below 24; leading minutes (M, M:S) and hours
 * (H:M:S) are unbounded, so "72:00:00" is three days.  -1 with errno EINVAL
 * and e saying what was expected: "bad time \"59:60\": seconds must be
 * 0-59 (expected M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or INFINITE)".
 */
int timefmt_parse(const char *s, int64_t *secs, struct err *e);

/*
 * timefmt_format: Slurm's canonical print: "INFINITE", "D-HH:MM:SS" when
 * there are whole days, else "HH:MM:SS" ("3-00:00:00", "00:05:00").
 * Writes at most len bytes including the NUL; returns buf.
 */
char *timefmt_format(int64_t secs, char *buf, size_t len);

#define TIMEFMT_BUFLEN 32

#endif
