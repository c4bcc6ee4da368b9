/*
 * The simulated clock (clock.h): a binary heap of events by time, then
 * by the order they were scheduled.
 */
#include "sim/clock.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void sim_clock_init(struct sim_clock *c, time_t now)
{
    memset(c, 0, sizeof(*c));
    c->now = now;
}

void sim_clock_free(struct sim_clock *c)
{
    free(c->heap);
    memset(c, 0, sizeof(*c));
}

static int before(const struct sim_event *a, const struct sim_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sim_clock_at(struct sim_clock *c, time_t t, int kind, size_t job,
                  uint32_t gen)
{
    size_t i;

    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->heap = xreallocarray(c->heap, c->cap, sizeof(*c->heap));
    }
    i = c->n++;
    c->heap[i] = (struct sim_event){.t = t < c->now ? c->now : t,
                                    .seq = c->seq++,
                                    .kind = kind,
                                    .job = job,
                                    .gen = gen};
    while (i > 0 && before(&c->heap[i], &c->heap[(i - 1) / 2])) {
        struct sim_event tmp = c->heap[i];
        c->heap[i] = c->heap[(i - 1) / 2];
        c->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
}

time_t sim_clock_next_time(const struct sim_clock *c)
{
    return c->n > 0 ? c->heap[0].t : (time_t)-1;
}

int sim_clock_pop(struct sim_clock *c, struct sim_event *ev)
{
    size_t i = 0;

    if (c->n == 0)
        return -1;
    *ev = c->heap[0];
    c->heap[0] = c->heap[--c->n];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->n && before(&c->heap[l], &c->heap[m]))
            m = l;
        if (r < c->n && before(&c->heap[r], &c->heap[m]))
            m = r;
        if (m == i)
            break;
        struct sim_event tmp = c->heap[i];
        c->heap[i] = c->heap[m];
        c->heap[m] = tmp;
        i = m;
    }
    if (ev->t > c->now)
        c->now = ev->t;
    return 0;
}
