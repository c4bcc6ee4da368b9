/*
 * The tail of a job's output file, read by the controller for the
 * dashboard (GET /sluice/v1/jobs/{id}/output, docs/rest-sluice.md).  The
 * controller may run as root and the path is the user's choice (-o), so
 * the file is opened without following a final symbolic link and without
 * blocking (a FIFO would stall the loop), and refused unless it is a
 * regular file owned by the job's user; at most a capped number of bytes
 * is read, from the end.
 */
#ifndef SLUICE_CTLD_JOBOUT_H
#define SLUICE_CTLD_JOBOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/* What a request gets without ?bytes=, and the most it may ask for. */
#define JOBOUT_DEFAULT_BYTES (16u << 10)
#define JOBOUT_MAX_BYTES (256u << 10)

struct jobout_tail {
    char *text;      /* the bytes read, as valid UTF-8 text (NUL-ended) */
    size_t len;      /* strlen(text) */
    uint64_t size;   /* the file's size */
    uint64_t offset; /* where the bytes read began */
};

/*
 * jobout_read: the last max_bytes (at most JOBOUT_MAX_BYTES) of the file
 * at path, which must be a regular file owned by uid.  Bytes that are not
 * UTF-8 (a NUL, a character cut by the start of the window) come back as
 * '?'; a character cut at the start is dropped.  0 with *t filled
 * (jobout_clear frees it), or -1 with errno and e saying why, for a
 * person: "no such file on the controller's host ...", "... is a
 * symbolic link (not followed)", "... is not a regular file", "...
 * belongs to uid 1001, not to the job's user (uid 1000)".
 */
int jobout_read(const char *path, uid_t uid, size_t max_bytes,
                struct jobout_tail *t, struct err *e);
void jobout_clear(struct jobout_tail *t);

#endif
