/*
 * What a batch job sees: its environment (the submitted one plus the
 * SLURM_* variables and their SLUICE_* twins) and its output file names
 * (--output/--error patterns with Slurm's %-letters).  Pure functions.
 */
#ifndef SLUICE_NODED_JOBENV_H
#define SLUICE_NODED_JOBENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "noded/launch.h"

/* How the job's GPUs are named to it. */
struct jobenv_gpus {
    /* the device number of each of the launch's GPUs (l->gpus order):
     * the N of its /dev/nvidiaN, else its index */
    const int *ordinals;
    /* devices are fenced (ConstrainDevices): CUDA_VISIBLE_DEVICES counts
     * the job's GPUs from 0, as Slurm does */
    bool renumber;
};

/*
 * jobenv_build: a NULL-terminated "KEY=VALUE" array: the submitted
 * environment (l->env, in order, later duplicates win), then SLURM_JOB_ID,
 * SLURM_JOBID, SLURM_JOB_NAME, SLURM_JOB_PARTITION, SLURM_JOB_NODELIST,
 * SLURM_NODELIST, SLURM_JOB_NUM_NODES, SLURM_NNODES, SLURM_SUBMIT_DIR,
 * SLURM_CPUS_ON_NODE, SLURM_JOB_CPUS_PER_NODE, SLURM_JOB_USER,
 * SLURM_JOB_UID, SLURM_JOB_GID, SLURM_NODEID (0), SLURMD_NODENAME,
 * SLURM_MEM_PER_NODE (when mem_mib > 0), SLURM_RESTART_COUNT (when > 0),
 * SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID (array jobs), the job's
 * tasks (SLURM_NTASKS and SLURM_NPROCS, SLURM_NTASKS_PER_NODE,
 * SLURM_CPUS_PER_TASK when the LAUNCH has them; SLURM_TASKS_PER_NODE from
 * "tasks_per_node", else "1(xN)"; "num_nodes" for SLURM_JOB_NUM_NODES and
 * SLURM_NNODES, else the count of node_list), and for a job
 * with GPUs SLURM_JOB_GPUS (the device numbers), SLURM_GPUS_ON_NODE (their
 * count), CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL (the device numbers,
 * or 0..N-1 with g->renumber; Slurm sets both alike), each SLURM_* also
 * as SLUICE_* (SLURMD_NODENAME as SLUICED_NODENAME).  These replace
 * submitted variables of the same name; a job without GPUs gets no GPU
 * variable (its submitted environment passes as it is, as in Slurm).  g
 * NULL: the GPUs are named by their indices, not renumbered.  user is the
 * job's user name; node this NodeName.  Caller frees with jobenv_free.
 */
char **jobenv_build(const struct launch *l, const struct jobenv_gpus *g,
                    const char *user, const char *node);
void jobenv_free(char **env);
/* jobenv_set: env (from jobenv_build) with KEY=value set (replacing an
 * earlier KEY); env is taken over, the result is freed with jobenv_free. */
/* The file in the job's spool directory that marks a preemption. */
#define JOBENV_PREEMPT_FILE "preempted"
char **jobenv_set(char **env, const char *key, const char *value);
/* jobenv_set_slurm: the same for a SLURM_X (or SLURMD_X) key and its
 * SLUICE_X (SLUICED_X) twin. */
char **jobenv_set_slurm(char **env, const char *key, const char *value);

/* jobenv_get: the value of key in env, or NULL. */
const char *jobenv_get(char *const *env, const char *key);

/* jobenv_umask: the umask the job's files are created with: SLURM_UMASK
 * of the submitted environment (octal, up to 0777; sbatch sets it to the
 * submitter's umask, as Slurm does), else 0022. */
mode_t jobenv_umask(const struct launch *l);
/* jobenv_umask_env: the same from n "KEY=VALUE" strings (a step's). */
mode_t jobenv_umask_env(char *const *env, size_t n);

/*
 * jobenv_expand: the launch's pattern expanded by stdpath_expand
 * (common/stdpath.h: %j, %x, %u, %N, %A, %a, ...), with user and node
 * (the NodeName) for %u and %N.  New string, caller frees.
 */
char *jobenv_expand(const char *pattern, const struct launch *l,
                    const char *user, const char *node);

/*
 * jobenv_output_path: where stdout (err 0) or stderr (err 1) goes: the
 * expanded --output (default "slurm-%j.out") or --error (default: the
 * same as stdout), relative to work_dir unless absolute.  New string,
 * caller frees.
 */
char *jobenv_output_path(const struct launch *l, int err, const char *user,
                         const char *node, const char *work_dir);

/* The file in the job's spool directory that records why and when it was
 * killed ("timeout 1764700000"), written by sluiced before the SIGTERM. */
#define JOBENV_KILL_REASON_FILE "kill_reason"

/*
 * jobenv_cancel_line: the line a killed batch job's stderr gets, as
 * Slurm's slurmstepd writes it: "slurmstepd: error: *** JOB 12 ON node01
 * CANCELLED AT 2026-12-02T11:00:00 DUE TO TIME LIMIT ***" (reason
 * "timeout"; "preempted": DUE TO PREEMPTION; "node_down": DUE TO NODE
 * FAILURE; "requeued": DUE TO JOB REQUEUE; "cancelled": nothing after the
 * time), t in local time, with its newline.  0 (and buf "") for a reason
 * that gets no line; else the length.
 */
size_t jobenv_cancel_line(uint32_t job_id, const char *node, const char *reason,
                          int64_t t, char *buf, size_t len);

/* One resource limit to set in the job (--propagate). */
struct jobenv_rlimit {
    int resource;  /* RLIMIT_* */
    uint64_t soft; /* RLIM_INFINITY for "unlimited" */
};

/*
 * jobenv_rlimits: the limits --propagate asks for (l->propagate: "ALL",
 * "NONE", or a list of AS, CORE, CPU, DATA, FSIZE, MEMLOCK, NOFILE,
 * NPROC, RSS, STACK), each with the soft value the submit side sent as
 * SLURM_RLIMIT_<NAME> in the job's environment (a number, or
 * "unlimited"); those without one are skipped.  At most out_len into
 * out; the count.  Pure.
 */
size_t jobenv_rlimits(const struct launch *l, struct jobenv_rlimit *out,
                      size_t out_len);

/* jobenv_append: whether the job's output is opened for appending (its
 * --open-mode=append, or a requeued job, as Slurm does) rather than
 * truncated. */
bool jobenv_append(const struct launch *l);

#endif
