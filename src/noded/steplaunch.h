/*
 * A STEP_LAUNCH on the node: the "step" object of docs/protocol.md read
 * into a struct and checked, the step's spool directory written and its
 * supervisor (stepd.c, the analogue of slurmstepd) forked in a session of
 * its own; like a job's, the supervisor reports on a pipe once the step's
 * tasks run or why they do not.
 */
#ifndef SLUICE_NODED_STEPLAUNCH_H
#define SLUICE_NODED_STEPLAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/auth.h"
#include "common/err.h"
#include "common/stepio.h"

struct cgroup;
struct ucache_user;

/* The step object; every string is owned and never NULL. */
struct step_launch {
    uint32_t job_id, step_id;
    char *name;
    uid_t uid;
    gid_t gid;
    char *user_name, *partition, *account;
    char **argv; /* at least one; NULL-terminated */
    size_t argc;
    char **env; /* "KEY=VALUE" (srun's environment); NULL-terminated */
    size_t n_env;
    char *cwd;
    uint32_t node_id; /* this node's index among the step's nodes */
    char *node_list;  /* the step's nodes, compressed */
    uint32_t num_nodes;
    uint32_t ntasks; /* of the whole step */
    uint32_t *tasks; /* global ids of this node's tasks */
    size_t n_tasks;  /* at least one */
    char *tasks_per_node;
    uint32_t cpus_per_task, cpus;
    uint32_t *gpus; /* indices the step's tasks see here, sorted */
    size_t n_gpus;
    bool gpus_given; /* "gpus" was in the object (else: the job's) */
    uint32_t gpus_per_task;
    uint32_t *job_gpus;
    size_t n_job_gpus;
    uint32_t job_cpus;
    uint64_t mem_mib, job_mem_mib;
    int64_t time_limit_s; /* -1: none */
    uint32_t kill_wait_s;
    char *srun_host;
    uint16_t srun_port;
    uint8_t key[STEPIO_KEY_LEN];
    int64_t input_task; /* -1: all, -2: none */
    bool kill_on_bad_exit;
    bool pty; /* task 0 runs on a pseudo-terminal (srun --pty) */
    /* srun -E/--preserve-env: SLURM_NNODES and SLURM_NTASKS (and
     * SLURM_NPROCS) keep the values srun had, not the step's */
    bool preserve_env;
    char *distribution;
    char *job_node_list;
    uint32_t job_num_nodes;
    char *submit_dir, *job_name;
    bool is_array;
    uint32_t array_job_id, array_task_id;
    json_t *json; /* the object as received (a reference) */
};

/*
 * step_launch_parse: read step (the "step" object of STEP_LAUNCH) into s
 * (cleared first).  -1 with EINVAL and e naming the member ("STEP_LAUNCH:
 * srun_port: expected an integer 1..65535", "STEP_LAUNCH: argv: expected
 * at least one string") when one is missing, of the wrong type or out of
 * range.  Free with step_launch_clear.
 */
int step_launch_parse(json_t *step, struct step_launch *s, struct err *e);
void step_launch_clear(struct step_launch *s);

/* What step_launch_start needs besides the step. */
struct step_launch_ctx {
    const char *spool;   /* absolute spool directory */
    const char *node;    /* NodeName */
    const char *notify;  /* sluiced's unix socket */
    const int *ordinals; /* device number of each of the node's GPUs, by
                          * index; NULL: the index */
    size_t n_ordinals;
    bool renumber;                  /* job's GPUs fenced: count from 0 */
    const struct cgroup *cg;        /* NULL or version NONE: no cgroup */
    const struct ucache_user *user; /* the step's user, groups resolved */
    const char *boot_id;
    uint32_t usage_period_s; /* JobAcctGatherFrequency */
    struct auth *auth;       /* destroyed in the supervisor after fork */
};

/*
 * step_launch_start: create the step's spool directory (it must not
 * exist: EEXIST), write launch.json, fork the supervisor in a session of
 * its own (*sup_pid, for the caller to reap).  Returns the read end of
 * the supervisor's report pipe: "ok PID PGID START_TIME" once every task
 * of the node runs, "error ERRNO TEXT" when the step did not start (the
 * directory is then removed), EOF without a line when it died.  -1 with
 * e, nothing left behind.
 */
int step_launch_start(const struct step_launch_ctx *ctx,
                      const struct step_launch *s, pid_t *sup_pid,
                      struct err *e);

#endif
