/*
 * The Standard Workload Format (Parallel Workloads Archive, v2.2): one
 * job per line, 18 whitespace-separated numbers, -1 for unknown; ';'
 * lines are comments, some of them header fields (MaxNodes, MaxProcs,
 * UnixStartTime).  sim_swf_parse reads a file's text; sim_swf_jobs maps
 * its records onto a configuration as docs/simulate.md describes
 * (partition numbers, users, sizes, GPUs).
 */
#ifndef SLUICE_SIM_SWF_H
#define SLUICE_SIM_SWF_H

#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "sim/map.h"
#include "sim/trace.h"

#define SIM_SWF_FIELDS 18

/* The fields by number, 0-based (field 1 of the format is [0]). */
enum sim_swf_field {
    SWF_JOB,
    SWF_SUBMIT,
    SWF_WAIT,
    SWF_RUN,
    SWF_PROCS_ALLOC,
    SWF_CPU_AVG,
    SWF_MEM_USED,
    SWF_PROCS_REQ,
    SWF_TIME_REQ,
    SWF_MEM_REQ,
    SWF_STATUS,
    SWF_USER,
    SWF_GROUP,
    SWF_EXEC,
    SWF_QUEUE,
    SWF_PARTITION,
    SWF_PRECEDING,
    SWF_THINK,
};

struct sim_swf_rec {
    int64_t f[SIM_SWF_FIELDS]; /* fractions are cut to integers */
    uint32_t line;
};

struct sim_swf {
    struct sim_swf_rec *recs;
    size_t n, cap;
    int64_t max_nodes, max_procs; /* the header's; -1 when absent */
    int64_t unix_start;           /* UnixStartTime; -1 when absent */
};

/*
 * sim_swf_parse: the SWF text buf (len bytes) of the file name into out
 * (initialised here; free with sim_swf_free, also after an error).
 * Returns 0; -1 with EINVAL and e "name:LINE: expected 18 fields, found
 * 7" or "name:LINE: field 4 (run time): \"x\" is not a number" at the
 * first bad line.
 */
int sim_swf_parse(const char *buf, size_t len, const char *name,
                  struct sim_swf *out, struct err *e);
void sim_swf_free(struct sim_swf *s);

/* sim_swf_field_name: "run time" for SWF_RUN ... */
const char *sim_swf_field_name(enum sim_swf_field f);

/*
 * sim_swf_jobs: the records of s as jobs of out, on conf with map
 * (--map; may be empty): a record's partition number goes to the
 * partition map names for it (else "*"), else to the configuration's
 * partition of that index, else to the default partition; its processors
 * become nodes and CPUs of that partition's nodes in the proportion of
 * the source machine's nodes (MaxProcs / MaxNodes, else the target's),
 * and GPUs where the map entry says ":gpu" (the same proportion of the
 * node's GPUs, at least 1) or ":gpu=N".  A record without a run time is
 * skipped (counted in out->skipped); one without a requested time gets
 * its run time times a factor drawn from U(1, 5) (seed), one without a
 * user a user u0..u15 drawn the same way.  Submit times are Unix times
 * when the header has UnixStartTime.  Returns 0; -1 with e when the map
 * names a partition conf lacks.
 */
int sim_swf_jobs(const struct sim_swf *s, const struct conf *conf,
                 const struct sim_map *map, uint64_t seed,
                 struct sim_trace *out, struct err *e);

#endif
