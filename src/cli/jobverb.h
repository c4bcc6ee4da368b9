/*
 * Per-job verbs (hold, release, suspend, resume): a request with
 * "job_ids" and a reply with one result per job (docs/protocol.md).
 */
#ifndef SLUICE_CLI_JOBVERB_H
#define SLUICE_CLI_JOBVERB_H

#include <stdint.h>

struct jobverb {
    uint16_t type;    /* the PROTO_MSG_JOB_* request */
    const char *verb; /* "hold": usage lines */
    const char *noun; /* "Hold": error lines ("Hold of job 5 failed") */
};

/* jobverb_run: argv = job ids (lists, arrays, A_[1-3]); the exit code. */
int jobverb_run(const struct jobverb *v, int argc, char **argv);
/* jobverb_cmd: the sluice verb itself (argv[0] is the verb; -h). */
int jobverb_cmd(const struct jobverb *v, int argc, char **argv);

#endif
