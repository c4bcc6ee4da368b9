#!/bin/bash
#SBATCH --job-name=v100-pair
#SBATCH --nodes=1
#SBATCH --gpus-per-node=v100:2
#SBATCH --cpus-per-gpu=4
#SBATCH --mem-per-gpu=8G
#SBATCH --time=00:20:00
# corpus-expect: ^CORPUS-OK typed_per_node node=node0[34] gpus=2 cpus=8$

echo "CORPUS-OK typed_per_node node=$SLURMD_NODENAME gpus=$SLURM_GPUS_ON_NODE cpus=$SLURM_CPUS_ON_NODE"
