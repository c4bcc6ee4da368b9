#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=4
#SBATCH --gres=gpu:4
#SBATCH -c 2
#SBATCH -t 2:00:00
#SBATCH -J ddp-2node
# corpus-lines: 8
# corpus-expect: ^CORPUS-OK ddp2 rank=7 world=8 node=1 local=3 master=node0[1-4]$

# srun starts one process per GPU; each computes its rank from Slurm's
# variables as Lightning's SLURMEnvironment does.
export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)
export MASTER_PORT=$(( 10000 + SLURM_JOB_ID % 50000 ))
export WORLD_SIZE=$SLURM_NTASKS
srun bash -c 'echo "CORPUS-OK ddp2 rank=$SLURM_PROCID world=$WORLD_SIZE node=$SLURM_NODEID local=$SLURM_LOCALID master=$MASTER_ADDR"'
