/*
 * Group commit (loop.h): the flush event, its arming, and the age of the
 * open transaction.  What a flush does belongs to the root.
 */
#include "ctld/core/loop.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/persist.h"

struct loop {
    struct persist *persist; /* borrowed */
    struct event *flush_ev;
    loop_flush_fn flush;
    void *arg;
    bool flush_armed;
    bool pass_wanted;
    int64_t flush_armed_ms;
    int64_t txn_start_ms;
};

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    loop_flush(arg);
}

struct loop *loop_create(struct event_base *base, struct persist *persist,
                         loop_flush_fn flush, void *arg)
{
    struct loop *l = xcalloc(1, sizeof(*l));

    l->persist = persist;
    l->flush = flush;
    l->arg = arg;
    l->flush_ev = event_new(base, -1, 0, flush_cb, l);
    ASSERT(l->flush_ev != NULL);
    event_priority_set(l->flush_ev, LOOP_PRIO_FLUSH);
    return l;
}

void loop_destroy(struct loop *l)
{
    if (l == NULL)
        return;
    event_free(l->flush_ev);
    free(l);
}

void loop_kick(struct loop *l)
{
    if (l->flush_armed)
        return;
    l->flush_armed = true;
    l->flush_armed_ms = clock_mono_ms();
    event_active(l->flush_ev, 0, 0);
}

void loop_want_pass(struct loop *l)
{
    l->pass_wanted = true;
    loop_kick(l);
}

int loop_write(struct loop *l, struct err *e)
{
    if (persist_in_txn(l->persist))
        return 0;
    if (persist_begin(l->persist, e) < 0)
        return -1;
    l->txn_start_ms = clock_mono_ms();
    loop_kick(l);
    return 0;
}

bool loop_holding(const struct loop *l)
{
    return persist_in_txn(l->persist);
}

bool loop_txn_old(const struct loop *l)
{
    int64_t now = clock_mono_ms();

    return (persist_in_txn(l->persist) &&
            now - l->txn_start_ms >= LOOP_TXN_MAX_MS) ||
           (l->flush_armed && now - l->flush_armed_ms >= LOOP_TXN_MAX_MS);
}

void loop_flush(struct loop *l)
{
    bool pass = l->pass_wanted;

    l->flush_armed = false;
    l->pass_wanted = false;
    l->flush(l->arg, pass);
}
