/*
 * gres.conf: the generic resources of a node as sluiced declares them:
 * "Name=gpu Count=4" (count-only, for machines without GPUs), "Name=gpu
 * Type=h200 File=/dev/nvidia[0-7] Cores=0-15", "AutoDetect=nvml", each line
 * optionally scoped with NodeName=node[01-02].
 */
#ifndef SLUICE_GRESCONF_H
#define SLUICE_GRESCONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/gres.h"

/* The most device files one line may expand to. */
#define GRESCONF_MAX_FILES 1024

struct conf_strs;

enum gresconf_autodetect {
    GRESCONF_AUTODETECT_OFF,
    GRESCONF_AUTODETECT_NVML,
};

/* One Name= line that applies to the node. */
struct gresconf_rec {
    char name[GRES_NAME_MAX]; /* "gpu" */
    char type[GRES_NAME_MAX]; /* "h200" or "" */
    uint64_t count;           /* Count, or the number of files */
    char **files;             /* "/dev/nvidia0", ... (n_files of them) */
    size_t n_files;
    char *cores; /* "0-15" or "" */
    char *links; /* "-1,0,0,0" or "" */
    struct conf_loc loc;
};

struct gresconf {
    char *node; /* the node it was loaded for, or "" for every line */
    enum gresconf_autodetect autodetect;
    struct gresconf_rec *recs;
    size_t n;
    struct conf_strs *names;  /* file names that locs point to */
    bool autodetect_for_node; /* AutoDetect came from a NodeName line */
};

/*
 * gresconf_load: the lines of the gres.conf at path that apply to node (a
 * NodeName= line applies when node is in its hostlist; a line without one
 * applies to every node; node NULL takes every line).  Warnings and errors
 * go into diag (may be NULL); NULL with errno and the first error in e on
 * failure.  The caller frees the result with gresconf_destroy.
 */
struct gresconf *gresconf_load(const char *path, const char *node,
                               struct conf_diag *diag, struct err *e);
struct gresconf *gresconf_parse_string(const char *text, const char *name,
                                       const char *node, struct conf_diag *diag,
                                       struct err *e);
/* gresconf_destroy: accepts NULL, keeps errno. */
void gresconf_destroy(struct gresconf *g);

/* gresconf_count: the total count of name (any type when type is NULL). */
uint64_t gresconf_count(const struct gresconf *g, const char *name,
                        const char *type);

/* gresconf_print: canonical lines for g's node, each after prefix
 * ("NodeName=node01 Name=gpu Count=4"). */
void gresconf_print(const struct gresconf *g, FILE *fp, const char *prefix);
/* gresconf_to_json: a new array of records; caller json_decref()s. */
json_t *gresconf_to_json(const struct gresconf *g);

#endif
