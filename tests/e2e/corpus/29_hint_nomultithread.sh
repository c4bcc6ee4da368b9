#!/bin/bash
#SBATCH --job-name=cfd
#SBATCH --ntasks=4
#SBATCH --cpus-per-task=2
#SBATCH --hint=nomultithread
#SBATCH --time=01:00:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK hint tasks=4 cpus_per_task=2$

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
n=$(srun hostname | wc -l)
echo "CORPUS-OK hint tasks=$n cpus_per_task=$SLURM_CPUS_PER_TASK"
