#!/bin/bash
#SBATCH --job-name=numa-bound
#SBATCH --gres=gpu:2
#SBATCH --gres-flags=enforce-binding
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
# corpus-expect: ^CORPUS-OK gres_flags gpus=2$

echo "CORPUS-OK gres_flags gpus=$SLURM_GPUS_ON_NODE"
