/*
 * The job options kept as given (struct job_opts, job.h) in the JOB
 * object and its record: the JOBSPEC keys of the same names, absent when
 * not given (docs/protocol.md, "Job options").
 */
#ifndef SLUICE_CTLD_JOBOPTS_H
#define SLUICE_CTLD_JOBOPTS_H

#include <jansson.h>

#include "ctld/job/job.h"

/* jobopts_excl_name: "node", "user", "mcs", or NULL for none;
 * jobopts_excl_parse: the reverse, -1 with EINVAL for another word. */
const char *jobopts_excl_name(enum job_excl x);
int jobopts_excl_parse(const char *s, enum job_excl *out);

/* jobopts_to_json: add the given options of o to the JOB object o. */
void jobopts_to_json(json_t *o, const struct job_opts *opt);
/* jobopts_from_json: read them back from a record (missing: not given). */
void jobopts_from_json(struct job_opts *opt, json_t *o);
/*
 * jobopts_node_ok: node n of the configuration meets opt's per-node needs
 * (TmpDisk for tmp_mib, CPUs for mincpus, the shape for sockets, cores
 * and threads, the per-node part of the constraint).  The first unmet
 * one is named into why (may be NULL) when it returns false.
 */
bool jobopts_node_ok(const struct job_opts *opt, const struct conf_node *n,
                     char *why, size_t len);
/*
 * jobopts_resolve: parse the constraint (opt->feat) and work out which
 * of conf's nodes meet the per-node needs (opt->node_ok, NULL when all
 * do).  -1 with EINVAL and e ("Invalid feature specification") when the
 * constraint does not parse.
 */
int jobopts_resolve(struct job_opts *opt, const struct conf *conf,
                    struct err *e);

/*
 * jobopts_take_whole: a job with --exclusive starting on nodes (conf
 * indices) takes the whole of each: its CPUs and memory per node become
 * those of the smallest of them (the others are its too: nothing else
 * starts on a node it holds).  Nothing for other jobs.
 */
void jobopts_take_whole(struct job *j, const struct conf *conf,
                        const size_t *nodes, size_t nnodes);

/* jobopts_clear: free what opt owns (opt itself is the caller's). */
void jobopts_clear(struct job_opts *opt);

#endif
