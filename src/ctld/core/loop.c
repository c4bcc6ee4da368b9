/*
 * Group commit (loop.h): the flush event, its arming, the age of the open
 * transaction, and the admission of new work by the state directory's
 * verdict.  What a flush does belongs to the root.
 */
#include "ctld/core/loop.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/persist.h"
#include "ctld/core/statedir.h"

struct loop {
    struct persist *persist; /* borrowed */
    struct statedir *sd;     /* borrowed, or NULL */
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
                         struct statedir *sd, loop_flush_fn flush, void *arg)
{
    struct loop *l = xcalloc(1, sizeof(*l));

    l->persist = persist;
    l->sd = sd;
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

/* Look at the state directory again; a return to writable asks for a
 * pass, for the work that waited. */
static bool refresh(struct loop *l)
{
    bool was = statedir_writable(l->sd);

    if (!statedir_check(l->sd))
        return false;
    if (!was)
        loop_want_pass(l);
    return true;
}

static int begin(struct loop *l, struct err *e)
{
    if (persist_begin(l->persist, e) < 0)
        return -1;
    l->txn_start_ms = clock_mono_ms();
    loop_kick(l);
    return 0;
}

int loop_write(struct loop *l, struct err *e)
{
    if (persist_in_txn(l->persist))
        return 0;
    /* what is under way writes all the same, but the verdict is the one
     * the transaction opened under for whatever joins it */
    if (l->sd != NULL)
        refresh(l);
    return begin(l, e);
}

bool loop_writable(struct loop *l)
{
    if (l->sd == NULL)
        return true;
    if (persist_in_txn(l->persist))
        return statedir_writable(l->sd);
    return refresh(l);
}

int loop_admit(struct loop *l, struct err *e)
{
    if (l->sd == NULL)
        return loop_write(l, e);
    if (persist_in_txn(l->persist))
        return statedir_writable(l->sd) ? 0 : statedir_refuse(l->sd, e);
    if (!refresh(l))
        return statedir_refuse(l->sd, e);
    return begin(l, e);
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
