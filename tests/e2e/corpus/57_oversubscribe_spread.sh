#!/bin/bash
#SBATCH --job-name=spread
#SBATCH --ntasks=4
#SBATCH --spread-job
#SBATCH --oversubscribe
#SBATCH --time=00:10:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK spread ntasks=4 nodes=[1-4]$

echo "CORPUS-OK spread ntasks=$SLURM_NTASKS nodes=$SLURM_JOB_NUM_NODES"
