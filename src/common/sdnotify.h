/*
 * systemd's readiness protocol (sd_notify(3)) without libsystemd: one
 * datagram of "KEY=value" lines to the unix socket that $NOTIFY_SOCKET
 * names.  A daemon started by systemd with Type=notify says READY=1 once
 * it serves and STOPPING=1 when it begins to stop; anywhere else the
 * variable is absent and nothing is sent.
 */
#ifndef SLUICE_COMMON_SDNOTIFY_H
#define SLUICE_COMMON_SDNOTIFY_H

#include <stdbool.h>

#include "common/err.h"

/*
 * sdnotify_init: take the address from $NOTIFY_SOCKET ("/path", or
 * "@name" for the abstract namespace) and remove the variable from the
 * environment, so that nothing the daemon starts (job supervisors,
 * MailProg) inherits it.  0 also when it is not set; -1 with e when it
 * names no usable address (then nothing is ever sent).  Call once, before
 * any fork.
 */
int sdnotify_init(struct err *e);

/* sdnotify_enabled: whether sdnotify_init found an address. */
bool sdnotify_enabled(void);

/*
 * sdnotify_send: state, one or more "KEY=value" lines ("READY=1",
 * "STATUS=serving 4 nodes"), as one datagram.  0 when sent or when there
 * is no address; -1 with errno when it could not be sent.
 */
int sdnotify_send(const char *state);

#endif
