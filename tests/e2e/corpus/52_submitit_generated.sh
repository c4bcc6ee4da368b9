#!/bin/bash

# Parameters
#SBATCH --cpus-per-task=4
#SBATCH --error=@JOBDIR@/logs/%j_0_log.err
#SBATCH --gpus-per-node=1
#SBATCH --job-name=submitit
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --open-mode=append
#SBATCH --output=@JOBDIR@/logs/%j_0_log.out
#SBATCH --partition=gpu
#SBATCH --signal=USR2@90
#SBATCH --time=2
#SBATCH --wckey=submitit

# command
export SUBMITIT_EXECUTOR=slurm
srun --unbuffered --output @JOBDIR@/logs/%j_%t_log.out --error @JOBDIR@/logs/%j_%t_log.err bash @JOBDIR@/submitit_submit.sh @JOBDIR@/logs
# --- t98_corpus.sh: the header as submitit writes it (sorted, absolute
# paths: t98 puts the job's directory for @JOBDIR@); the python part
# (python -u -m submitit.core._submit FOLDER) is helpers/submitit_submit.sh.
# corpus-setup: mkdir -p logs && cp "$CORPUS/helpers/submitit_submit.sh" .
# corpus-file: logs/@JOB@_0_log.out
# corpus-file: logs/@JOB@_0_log.err
# corpus-expect: ^submitit INFO: Job has timed out\. Requeuing$
# corpus-expect: ^CORPUS-OK submitit restarts=1 result=@JOB@_0_result\.pkl$
# corpus-cmd: scontrol show job @JOB@ ~ Restarts=1
# corpus-cmd: sacct -X -n -P -j @JOB@ -o WCKey ~ ^submitit$
