#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --partition=cpu
#SBATCH --job-name=hybrid
# corpus-lines: 4
# corpus-expect: ^CORPUS-OK hybrid rank=3 omp=4 ntasks=4 cpus=4$

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
export OMP_PLACES=cores
export OMP_PROC_BIND=spread
srun --mpi=pmi2 bash -c 'echo "CORPUS-OK hybrid rank=$SLURM_PROCID omp=$OMP_NUM_THREADS ntasks=$SLURM_NTASKS cpus=$SLURM_CPUS_PER_TASK"'
