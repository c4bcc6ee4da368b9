/*
 * The controller's group commit on its libevent loop.  A handler that
 * changes state calls loop_write() first, which opens the iteration's
 * SQLite transaction.  Output produced while it is open is held (the
 * transport asks loop_holding).  A lowest-priority flush event runs after
 * the iteration's I/O callbacks and calls the flush function the root
 * installed: run a scheduling pass if one was asked for (loop_want_pass),
 * commit, release the held output.
 *
 * New work that changes state (a request, the tick's duties, a pass) is
 * admitted first (loop_admit, loop_writable): while StateSaveLocation
 * cannot take writes (core/statedir.h) it is refused or put off before
 * it changes anything in memory.  What is already under way (an admitted
 * request's changes, a node's reply to a launch sent before) writes with
 * plain loop_write, into the room SluiceStateMinFree keeps.
 */
#ifndef SLUICE_CTLD_LOOP_H
#define SLUICE_CTLD_LOOP_H

#include <stdbool.h>

#include <event2/event.h>

#include "common/err.h"

/* Event priorities: I/O and timers first, the commit-and-flush last.  The
 * base must have been given LOOP_NPRIO priorities. */
#define LOOP_PRIO_IO 0
#define LOOP_PRIO_DEFAULT 1
#define LOOP_PRIO_FLUSH 2
#define LOOP_NPRIO 3

/* An open transaction older than this is committed from the I/O path, so
 * that a constant stream of requests cannot starve the flush event. */
#define LOOP_TXN_MAX_MS 50

struct loop;
struct persist;
struct statedir;

/*
 * What the flush does, installed by the root: pass is true when a
 * scheduling pass was asked for since the last flush.  It must commit the
 * open transaction, if any, before it releases held output.
 */
typedef void (*loop_flush_fn)(void *arg, bool pass);

/* loop_create: the flush event on base, for transactions of persist and
 * admissions judged by sd (both borrowed; sd NULL: always writable).
 * loop_destroy frees it (accepts NULL); it commits nothing. */
struct loop *loop_create(struct event_base *base, struct persist *persist,
                         struct statedir *sd, loop_flush_fn flush, void *arg);
void loop_destroy(struct loop *l);

/* loop_write: open the iteration's transaction (unless one is open) and
 * arm the flush.  -1 with e when it cannot begin.  Never refused for the
 * state directory: what is under way must be written (or the commit
 * fails and the controller stops, ctld.c); new work calls loop_admit. */
int loop_write(struct loop *l, struct err *e);
/*
 * loop_writable: whether new work may change state now: the state
 * directory looked at again (statedir_check), unless this iteration's
 * transaction is open (the verdict it was opened under, or the tick's
 * since, holds).  A return to writable asks for a pass, for what waited.
 */
bool loop_writable(struct loop *l);
/* loop_admit: loop_write for new work: -1 with errno ENOSPC or EROFS and
 * e the reason, opening nothing, while loop_writable is false. */
int loop_admit(struct loop *l, struct err *e);
/* loop_kick: arm the flush event (idempotent). */
void loop_kick(struct loop *l);
/* loop_want_pass: ask for a scheduling pass in this iteration's flush. */
void loop_want_pass(struct loop *l);
/* loop_holding: whether output must be held now (a transaction is open). */
bool loop_holding(const struct loop *l);
/* loop_txn_old: whether the open transaction, or the armed flush, is
 * older than LOOP_TXN_MAX_MS (then the I/O path flushes itself). */
bool loop_txn_old(const struct loop *l);
/* loop_flush: what the flush event does, now: disarm, and call the
 * installed flush function. */
void loop_flush(struct loop *l);

#endif
