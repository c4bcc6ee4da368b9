#!/bin/bash
#SBATCH --ntasks=16
#SBATCH --mem-per-cpu=2G
#SBATCH --time=0:30:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK mpi16 tasks=16 mem_per_cpu=2048$

srun hostname > hosts.$SLURM_JOB_ID
n=$(wc -l < hosts.$SLURM_JOB_ID)
echo "CORPUS-OK mpi16 tasks=$n mem_per_cpu=$SLURM_MEM_PER_CPU"
