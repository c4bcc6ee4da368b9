/*
 * Moving from Slurm (sluice import-slurm): slurm.conf, gres.conf and
 * cgroup.conf turned into the files Sluice reads, with a report of every
 * key that was changed, left out, or could not be carried, each with the
 * file and line it came from.  Keys Sluice reads with Slurm's meaning are
 * written as they were; whatever Sluice's own parser refuses in the result
 * is left out and reported, so that the files written always parse.
 */
#ifndef SLUICE_COMMON_CONF_IMPORT_H
#define SLUICE_COMMON_CONF_IMPORT_H

#include <stddef.h>

#include "common/err.h"

enum import_what {
    IMPORT_CHANGED,  /* written with another key or value, or added */
    IMPORT_IGNORED,  /* left out: Slurm's plumbing, nothing to carry */
    IMPORT_UNMAPPED, /* left out: Sluice has no equivalent; check it */
    IMPORT_WARNING,  /* written; sluice check-config warns about it */
    IMPORT_ERROR,    /* the result cannot be used as it is */
};

struct import_item {
    enum import_what what;
    char *file; /* the source as named (or the output's name) */
    int line;   /* 0: about the whole file */
    int col;
    char *text; /* "SlurmctldPort=6817: ..." */
};

struct import_report {
    struct import_item *items;
    size_t n, cap;
    size_t kept; /* keys written as they were */
};

/* import_report_init / import_report_free: an empty report; free leaves
 * an empty one (accepts NULL). */
void import_report_init(struct import_report *r);
void import_report_free(struct import_report *r);
void import_report_add(struct import_report *r, enum import_what what,
                       const char *file, int line, int col, const char *fmt,
                       ...) __attribute__((format(printf, 6, 7)));
/* import_what_name: "changed", "ignored", "not mapped", "warning",
 * "error". */
const char *import_what_name(enum import_what what);
/* import_report_count: how many items of that kind. */
size_t import_report_count(const struct import_report *r,
                           enum import_what what);

struct import_opts {
    /* SlurmUser to write: the user sluicectld will run as ("sluice" for
     * the Debian package); "" writes none */
    const char *slurm_user;
    /* the name of the file written, for messages about what is in it
     * but came from no line ("out/sluice.conf") */
    const char *out_name;
};

/*
 * import_slurm_conf: slurm.conf at path (Include files followed, their
 * lines written in place) as the text of a sluice.conf, into *out (the
 * caller frees it).  -1 with e only when path cannot be read; everything
 * else is in r, IMPORT_ERROR when the result still does not parse.
 */
int import_slurm_conf(const char *path, const struct import_opts *o,
                      struct import_report *r, char **out, struct err *e);

/* import_gres_conf: the same for gres.conf (Sluice's keys kept, Slurm's
 * others left out). */
int import_gres_conf(const char *path, const struct import_opts *o,
                     struct import_report *r, char **out, struct err *e);

/*
 * import_cgroup_conf: the same for cgroup.conf, path NULL when Slurm has
 * none.  Where Slurm's default differs from Sluice's (ConstrainCores,
 * ConstrainRAMSpace and ConstrainSwapSpace are off in Slurm, on in
 * Sluice), a key left unset is written with Slurm's value, so that jobs
 * are fenced as they were; each is reported.
 */
int import_cgroup_conf(const char *path, const struct import_opts *o,
                       struct import_report *r, char **out, struct err *e);

#endif
