/*
 * Job mail in the controller (ctld_mail.c): the job table's subscriber
 * and the one-second tick's share.
 */
#ifndef SLUICE_CTLD_CTLD_MAIL_H
#define SLUICE_CTLD_CTLD_MAIL_H

#include <time.h>

#include "ctld/ctld.h"

struct jobs_events;

/* Subscribe with the struct ctld as arg. */
extern const struct jobs_events ctld_mail_events;

/* TIME_LIMIT_50/80/90 and INVALID_DEPEND mails due at now. */
void ctld_mail_tick(struct ctld *c, time_t now);

#endif
