#!/bin/bash
#SBATCH --job-name=same-gpu-model
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --constraint="[a100|v100]"
#SBATCH --time=01:00:00
# corpus-expect: ^CORPUS-OK constraint_brackets nodes=(node01,node02|node03,node04)$

# Both nodes must have the same GPU model.
nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | paste -sd, -)
echo "CORPUS-OK constraint_brackets nodes=$nodes"
