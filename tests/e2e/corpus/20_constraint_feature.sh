#!/bin/bash
#SBATCH --job-name=v100-only
#SBATCH --constraint=v100
#SBATCH --gres=gpu:1
#SBATCH --time=02:00:00
# corpus-expect: ^CORPUS-OK constraint_v100 node=node0[34]$

echo "CORPUS-OK constraint_v100 node=$SLURMD_NODENAME"
