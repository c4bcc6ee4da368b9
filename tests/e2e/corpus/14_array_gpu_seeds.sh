#!/bin/bash
#SBATCH --job-name=seeds
#SBATCH --array=1-4
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=4
#SBATCH --time=03:00:00
#SBATCH --output=seed-%a.log
# corpus-tasks: 4
# corpus-lines: 4
# corpus-file: seed-1.log
# corpus-file: seed-4.log
# corpus-expect: ^CORPUS-OK seeds seed=1 gpus=1 array=[0-9]+$
# corpus-expect: ^CORPUS-OK seeds seed=4 gpus=1 array=[0-9]+$

seed=$SLURM_ARRAY_TASK_ID
echo "CORPUS-OK seeds seed=$seed gpus=$(echo "$CUDA_VISIBLE_DEVICES" | awk -F, '{print NF}') array=$SLURM_ARRAY_JOB_ID"
