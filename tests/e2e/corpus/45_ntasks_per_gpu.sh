#!/bin/bash
#SBATCH --job-name=mps-style
#SBATCH --gpus=2
#SBATCH --ntasks-per-gpu=2
#SBATCH --time=00:10:00
# corpus-expect: ^CORPUS-OK ntasks_per_gpu ntasks=4$

echo "CORPUS-OK ntasks_per_gpu ntasks=$SLURM_NTASKS"
