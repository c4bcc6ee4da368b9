#!/bin/bash
#SBATCH --job-name=lr-sweep
#SBATCH --array=0-9%2
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=00:30:00
#SBATCH --output=sweep_%A_%a.out
# corpus-tasks: 10
# corpus-lines: 10
# corpus-file: sweep_@JOB@_0.out
# corpus-file: sweep_@JOB@_9.out
# corpus-expect: ^CORPUS-OK sweep task=0 lr=0.1 of=10$
# corpus-expect: ^CORPUS-OK sweep task=9 lr=0.00005 of=10$

# Learning-rate sweep: one array task per value, two at a time.
lrs=(0.1 0.05 0.01 0.005 0.001 0.0005 0.0001 0.00005 0.00001 0.00005)
lr=${lrs[$SLURM_ARRAY_TASK_ID]}
echo "array job $SLURM_ARRAY_JOB_ID task $SLURM_ARRAY_TASK_ID: lr=$lr"
# python train.py --lr $lr --run-name sweep-$SLURM_ARRAY_TASK_ID
echo "CORPUS-OK sweep task=$SLURM_ARRAY_TASK_ID lr=$lr of=$SLURM_ARRAY_TASK_COUNT"
