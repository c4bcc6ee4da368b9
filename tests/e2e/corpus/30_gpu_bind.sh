#!/bin/bash
#SBATCH --job-name=gpu-bind
#SBATCH --ntasks=2
#SBATCH --gpus-per-task=1
#SBATCH --gpu-bind=single:1
#SBATCH --cpus-per-task=2
#SBATCH --time=00:15:00
# corpus-lines: 2
# corpus-expect: ^CORPUS-OK gpubind rank=0 ngpu=1$
# corpus-expect: ^CORPUS-OK gpubind rank=1 ngpu=1$

srun bash -c 'echo "CORPUS-OK gpubind rank=$SLURM_PROCID ngpu=$(echo $CUDA_VISIBLE_DEVICES | tr , "\n" | wc -l)"'
