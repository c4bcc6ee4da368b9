#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=2
#SBATCH --time=01:00:00
#SBATCH --job-name=ddp-1node
# corpus-lines: 4
# corpus-expect: ^CORPUS-OK ddp1 rank=0 local=0 world=4 gpus_visible=4$
# corpus-expect: ^CORPUS-OK ddp1 rank=3 local=3 world=4 gpus_visible=4$

# One node, four processes, one per GPU (PyTorch DDP through srun).
export MASTER_ADDR=$(hostname)
export MASTER_PORT=12355
srun bash -c 'echo "CORPUS-OK ddp1 rank=$SLURM_PROCID local=$SLURM_LOCALID world=$SLURM_NTASKS gpus_visible=$(echo $CUDA_VISIBLE_DEVICES | tr , "\n" | wc -l)"'
