/*
 * The CLI's one parser of points in time (sbatch --begin, sacct -S/-E,
 * sluice report -S/-E), in the forms Slurm's commands document, read in
 * local time against a clock that the caller passes in:
 *
 *   now, now+N[UNIT], now-N[UNIT]  UNIT: seconds (the default), minutes,
 *                                  hours, days, weeks, singular or short
 *                                  (s, sec, secs, m, min, mins, h, d, w)
 *   today, tomorrow                00:00 of that day
 *   midnight, noon, elevenses (11:00), fika (15:00), teatime (16:00)
 *   HH:MM[:SS][AM|PM]              H may be one digit
 *   YYYY-MM-DD[THH:MM[:SS]]
 *   MM/DD[/YY][-HH:MM[:SS]], MM.DD[.YY][-HH:MM[:SS]],
 *   MMDD[YY][-HH:MM[:SS]]          a date without a time is its 00:00
 *   @SECONDS                       Unix time (ours, for scripts)
 *
 * Words are case-insensitive.  Which day a time of day (HH:MM, noon, ...)
 * and a date without a year fall on depends on what the time is for.
 */
#ifndef SLUICE_CLI_WHEN_H
#define SLUICE_CLI_WHEN_H

#include <time.h>

#include "common/err.h"

enum when_day {
    /* A time to wait for (--begin): a time of day that has passed means
     * tomorrow's, "midnight" the coming one, a date without a year that
     * has passed next year's. */
    WHEN_NEXT,
    /* A bound of a period looked back on (sacct -S/-E): a time of day
     * and "midnight" are today's, a date without a year this year's. */
    WHEN_TODAY,
};

/* The forms, for usage texts and error messages. */
#define WHEN_FORMS                                                             \
    "now[{+|-}N[seconds|minutes|hours|days|weeks]], today, tomorrow, "         \
    "midnight, noon, elevenses, fika, teatime, HH:MM[:SS][AM|PM], "            \
    "YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]], MMDD[YY] or @SECONDS"

/*
 * when_parse: s as a point in time seen at now.  -1 with errno EINVAL and
 * e naming the text: "invalid time \"25:00\": hour must be 0-23", or
 * "invalid time \"soon\" (expected " WHEN_FORMS ")".
 */
int when_parse(const char *s, time_t now, enum when_day day, time_t *out,
               struct err *e);

/* when_midnight: 00:00 local time, days after now's day (may be < 0). */
time_t when_midnight(time_t now, int days);

#endif
