#!/bin/bash
#SBATCH --job-name=allreduce-bench
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --switches=1@00:10:00
#SBATCH --time=00:15:00
#SBATCH -p cpu
# corpus-expect: ^CORPUS-OK switches nodes=2$

# All nodes under one leaf switch if one frees up within 10 minutes.
echo "CORPUS-OK switches nodes=$SLURM_JOB_NUM_NODES"
