/*
 * The simulated clock: the simulator's time and the events still to come
 * (a job submitted, a run ended, a victim's grace time over, a periodic
 * timer), taken in time order, events of one second in the order they
 * were scheduled.  Time never goes back: an event for the past is due
 * now.  Pure; no clock of the machine is read.
 */
#ifndef SLUICE_SIM_CLOCK_H
#define SLUICE_SIM_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What an event is about (the engine's meaning; the clock only orders). */
struct sim_event {
    time_t t;
    uint64_t seq; /* the order it was scheduled in */
    int kind;
    size_t job;   /* an index of the engine's, or unused */
    uint32_t gen; /* the job's run it is about (a run ended, a kill) */
};

struct sim_clock {
    time_t now;
    struct sim_event *heap; /* a binary min-heap by (t, seq) */
    size_t n, cap;
    uint64_t seq;
};

/* sim_clock_init: empty, at time now.  sim_clock_free: its memory. */
void sim_clock_init(struct sim_clock *c, time_t now);
void sim_clock_free(struct sim_clock *c);

/* sim_clock_at: an event at t (before now: at now). */
void sim_clock_at(struct sim_clock *c, time_t t, int kind, size_t job,
                  uint32_t gen);

/* sim_clock_next_time: when the next event is due; -1 when none is
 * left. */
time_t sim_clock_next_time(const struct sim_clock *c);

/* sim_clock_pop: the next event into *ev, the clock moved to its time;
 * 0, or -1 when none is left. */
int sim_clock_pop(struct sim_clock *c, struct sim_event *ev);

#endif
