#!/bin/bash
#SBATCH --job-name=torchrun-multinode
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=8
#SBATCH --time=08:00:00
#SBATCH --output=%x_%j.log
# corpus-file: torchrun-multinode_@JOB@.log
# corpus-lines: 2
# corpus-expect: ^CORPUS-OK torchrun node_rank=0 nnodes=2 nproc_per_node=4 master=node0[1-4]:29500$
# corpus-expect: ^CORPUS-OK torchrun node_rank=1 nnodes=2 nproc_per_node=4 master=node0[1-4]:29500$

# The usual multi-node torchrun launcher: one srun task per node, each
# running torchrun with the first node as the rendezvous host.
nodes=( $(scontrol show hostnames "$SLURM_JOB_NODELIST") )
head_node=${nodes[0]}
export MASTER_ADDR=$head_node
export MASTER_PORT=29500
export NCCL_DEBUG=INFO
echo "Head node: $head_node, nodes: ${nodes[*]}"

# srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 4 \
#     --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py
srun bash -c 'echo "CORPUS-OK torchrun node_rank=$SLURM_NODEID nnodes=$SLURM_NNODES nproc_per_node=$SLURM_GPUS_ON_NODE master=$MASTER_ADDR:$MASTER_PORT"'
