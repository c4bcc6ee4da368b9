/*
 * The Alibaba GPU cluster trace (cluster-trace-gpu-v2023, Weng et al.,
 * ATC'23): a pod list (name, cpu_milli, memory_mib, num_gpu, gpu_milli,
 * gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time;
 * times in seconds from the trace's start) and a node list (sn,
 * cpu_milli, memory_mib, gpu, model).  Columns are found by the header's
 * names.  sim_alibaba_jobs maps pods onto a configuration, and
 * sim_alibaba_conf makes one from the node list (docs/simulate.md).
 */
#ifndef SLUICE_SIM_ALIBABA_H
#define SLUICE_SIM_ALIBABA_H

#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "sim/map.h"
#include "sim/trace.h"

struct sim_pod {
    uint32_t line;
    int64_t cpu_milli, mem_mib, num_gpu, gpu_milli;
    char gpu_spec[64]; /* "V100M16|V100M32", or "" */
    char qos[32];      /* LS, BE, Burstable, Guaranteed */
    char phase[32];    /* Running, Succeeded, Failed, Pending */
    int64_t created, deleted, scheduled; /* -1 when empty */
};

struct sim_alibaba {
    struct sim_pod *pods;
    size_t n, cap;
};

/*
 * sim_alibaba_parse: the pod list text buf (len bytes) of the file name
 * into out (free with sim_alibaba_free, also after an error).  Returns
 * 0; -1 with EINVAL and e "name:1: no column deletion_time" or
 * "name:LINE: num_gpu: \"x\" is not a number".
 */
int sim_alibaba_parse(const char *buf, size_t len, const char *name,
                      struct sim_alibaba *out, struct err *e);
void sim_alibaba_free(struct sim_alibaba *a);

/*
 * sim_alibaba_jobs: the pods as jobs of out on conf: one node each,
 * ceil(cpu_milli / 1000) CPUs, memory_mib, num_gpu GPUs (a GPU shared by
 * gpu_milli < 1000 counts whole), the first type of gpu_spec when conf
 * has typed GPUs; partition and QOS from map by the pod's qos (else the
 * default partition), user "alibaba"; submitted at creation_time,
 * running as long as it ran from scheduled_time to deletion_time.  A pod
 * the trace never scheduled (or never deleted) is skipped: it never ran.
 * -1 with e when the map names a partition conf lacks.
 */
int sim_alibaba_jobs(const struct sim_alibaba *a, const struct conf *conf,
                     const struct sim_map *map, struct sim_trace *out,
                     struct err *e);

/*
 * sim_alibaba_conf: a configuration (slurm.conf text, new string) for
 * the node list buf of the file name: each node with its CPUs, memory and
 * typed GPUs (the model, in lower case), one partition "all" of every
 * node, backfill and multifactor priority.  NULL with EINVAL and e at the
 * first bad line.
 */
char *sim_alibaba_conf(const char *buf, size_t len, const char *name,
                       struct err *e);

#endif
