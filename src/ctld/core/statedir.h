/*
 * Whether the controller's StateSaveLocation can take writes: its free
 * space (statvfs) against SluiceStateMinFree, a read-only file system,
 * and a one-byte probe write that fails (a file system the kernel turned
 * read-only after an error, or shut down, which statvfs does not always
 * show).  The verdict is a pure function of those figures
 * (statedir_judge); statedir_check looks again (a few microseconds) and
 * logs one line when the verdict changes.  core/loop.c asks before new
 * work opens a transaction (loop_admit, loop_writable); docs/operations.md
 * says what an operator sees.
 */
#ifndef SLUICE_CTLD_STATEDIR_H
#define SLUICE_CTLD_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "common/err.h"

/* The probe's file in StateSaveLocation (0600, one byte). */
#define STATEDIR_PROBE_NAME "sluicectld.probe"

/* What one look at the directory found. */
struct statedir_figures {
    int stat_errno;      /* statvfs's failure, 0 when it answered */
    uint64_t free_bytes; /* f_bavail * f_frsize: what an unprivileged
                            writer may still use */
    bool rdonly;         /* ST_RDONLY */
    int write_errno;     /* the probe write's failure, 0 when it took */
};

/*
 * statedir_judge: 0 when dir can take writes and keeps min_free_bytes
 * free (0: space is not checked); else the errno a change is refused
 * with, ENOSPC (full, over quota) or EROFS (read-only, cannot be
 * examined or written), and the sentence for people in why ("" when 0):
 * "StateSaveLocation /var/spool/sluice/ctld is full (12 MiB free, 64 MiB
 * needed): submissions and other changes are refused until space is
 * freed".  Pure.
 */
int statedir_judge(const char *dir, const struct statedir_figures *f,
                   uint64_t min_free_bytes, char *why, size_t len);

struct statedir;

/* statedir_create: for dir (copied), looked at once.  Never fails: a
 * probe that cannot be made is a figure.  statedir_destroy accepts NULL
 * and keeps errno. */
struct statedir *statedir_create(const char *dir, uint64_t min_free_bytes);
void statedir_destroy(struct statedir *sd);

/* statedir_check: look again and judge; true when changes may go on.  A
 * change of verdict is logged, once (state_writable=0 ... / =1 ...). */
bool statedir_check(struct statedir *sd);
/* statedir_writable: the last verdict, without looking again. */
bool statedir_writable(const struct statedir *sd);
/* statedir_refuse: -1 with errno ENOSPC or EROFS and e the last
 * verdict's sentence; counts the refusal (and logs nothing). */
int statedir_refuse(struct statedir *sd, struct err *e);

/* What the last look found, for scontrol ping, sdiag and /metrics;
 * strings borrowed from sd. */
struct statedir_status {
    const char *dir;
    bool writable;
    bool free_known;     /* statvfs answered */
    uint64_t free_bytes; /* 0 when not known */
    uint64_t min_free_bytes;
    uint64_t refused; /* changes refused since the controller started */
    time_t since;     /* when the verdict became what it is */
    const char *why;  /* "" while writable */
};
void statedir_status(const struct statedir *sd, struct statedir_status *st);
/* statedir_json: the status as the PING and SCHED_DIAG replies carry it
 * ({"dir", "writable", "free_bytes", "min_free_bytes", "refused",
 * "since", "reason", "controller_uid", "mode", "owner_uid", "db_mode",
 * "db_owner_uid"}; free_bytes null when unknown; modes "0711" and owners
 * of the directory and sluice.db, looked at now, null when they cannot
 * be), a new object. */
json_t *statedir_json(const struct statedir *sd);

#endif
