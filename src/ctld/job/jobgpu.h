/*
 * A job's GPUs: the requests of a JOBSPEC (gres, gpus, gpus_per_node,
 * gpus_per_task, cpus_per_gpu, mem_per_gpu_mib) normalised, as Slurm
 * does, into GPUs on each node (of one type or any) plus the CPUs and
 * memory they imply; and their JSON (tres_per_node, TRES strings, the
 * indices allocated on each node) both ways.  Rules in docs/cli.md.
 */
#ifndef SLUICE_CTLD_JOBGPU_H
#define SLUICE_CTLD_JOBGPU_H

#include <stdbool.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"
#include "ctld/job/job.h"

/*
 * jobgpu_parse: read spec's GPU fields into j and normalise them.  j's
 * gres and gpus strings (checked), ntasks, nodes, cpus_per_node, mem_mib
 * and mem_per_cpu_mib are already set; cpus_per_node grows to
 * cpus_per_gpu times the GPUs of a node.  -1 with EINVAL and e naming the
 * field ("job gpus_per_task \"x\": expected N or TYPE:N", "job asks for
 * GPUs in more than one way (gres and gpus_per_node): give one").
 */
int jobgpu_parse(json_t *spec, struct job *j, struct err *e);

/* jobgpu_node_gpus: the GPUs of j's type (any when untyped) that node n
 * is configured with (for jobs_check_fit). */
uint64_t jobgpu_node_gpus(const struct job *j, const struct conf_node *n);

/*
 * jobgpu_fit_error: e for a job whose GPUs no node of partition p holds
 * (largest is the most any has): "requested 5 GPUs per node but the
 * largest node in partition dev has 4".  Returns -1 with EINVAL.
 */
int jobgpu_fit_error(const struct job *j, const struct conf_part *p,
                     uint64_t largest, struct err *e);

/* jobgpu_to_json: add j's GPU fields, TRES strings and allocation to o. */
void jobgpu_to_json(json_t *o, const struct job *j, const struct conf *conf);

/*
 * jobgpu_from_json: restore j's GPU fields from its record o; j->alloc is
 * already restored (batch host first).  A running job whose indices are
 * missing is logged and keeps none.
 */
void jobgpu_from_json(struct job *j, json_t *o, const struct conf *conf);

#endif
