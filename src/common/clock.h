/*
 * The monotonic clock (CLOCK_MONOTONIC), for durations and deadlines:
 * unaffected by changes to the wall clock.  One clock for every process
 * on a host, so stamps taken in different daemons compare.
 */
#ifndef SLUICE_CLOCK_H
#define SLUICE_CLOCK_H

#include <stdint.h>

/* clock_mono_ms, clock_mono_us: the monotonic clock in milliseconds and
 * in microseconds. */
int64_t clock_mono_ms(void);
int64_t clock_mono_us(void);
/* The CPU time the calling thread has used, in microseconds. */
int64_t clock_thread_cpu_us(void);

#endif
