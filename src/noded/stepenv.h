/*
 * What a step's task sees: srun's environment, the job's variables (as
 * jobenv.c builds them for a batch job) and the step's and the task's own
 * (SLURM_STEP_ID, SLURM_PROCID, SLURM_LOCALID, ..., the task's GPUs), each
 * SLURM_* with its SLUICE_* twin.  A pure function.
 */
#ifndef SLUICE_NODED_STEPENV_H
#define SLUICE_NODED_STEPENV_H

#include <stdbool.h>
#include <stddef.h>

#include "noded/steplaunch.h"

/* How GPUs are named to the tasks. */
struct stepenv_gpus {
    const int *ordinals; /* device number of the node's GPU i (N of
                          * /dev/nvidiaN); NULL: the index */
    size_t n_ordinals;
    bool renumber; /* the job's GPUs are fenced: they count from 0 in the
                    * order of job_gpus, as for the batch job */
};

/*
 * stepenv_build: the NULL-terminated "KEY=VALUE" environment of the
 * node's local task `local` (an index into s->tasks): s->env in order
 * (later duplicates win), then jobenv_build's job variables (the job's
 * nodes, CPUs here, GPUs, array ids, submit directory), then SLURM_STEP_ID,
 * SLURM_STEPID, SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS,
 * SLURM_NPROCS, SLURM_NNODES, SLURM_NODELIST, SLURM_STEP_NODELIST,
 * SLURM_STEP_NUM_NODES, SLURM_STEP_NUM_TASKS, SLURM_STEP_TASKS_PER_NODE,
 * SLURM_TASKS_PER_NODE, SLURM_CPUS_PER_TASK, SLURM_CPUS_ON_NODE,
 * SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST, SLURM_SRUN_COMM_PORT,
 * SLURM_DISTRIBUTION, and when the job or the step has GPUs
 * SLURM_STEP_GPUS, SLURM_GPUS_ON_NODE, CUDA_VISIBLE_DEVICES and
 * GPU_DEVICE_ORDINAL: the task's GPUs (with gpus_per_task G, local task
 * L sees gpus[L*G .. L*G+G), else all of gpus).  With s->preserve_env
 * (srun -E) SLURM_NTASKS, SLURM_NPROCS and SLURM_NNODES are srun's own
 * (not set when srun had none).  user: the user name;
 * node: this NodeName.  Free with jobenv_free.
 */
char **stepenv_build(const struct step_launch *s, size_t local,
                     const struct stepenv_gpus *g, const char *user,
                     const char *node);

#endif
