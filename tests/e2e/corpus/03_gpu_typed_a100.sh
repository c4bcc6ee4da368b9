#!/bin/bash
#SBATCH --job-name=llm-lora
#SBATCH --gres=gpu:a100:2
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=16
#SBATCH --time=12:00:00
# corpus-expect: ^CORPUS-OK gpu_a100 node=node0[12] gpus=2 cpus=16$

module purge 2>/dev/null || true
# conda activate lora
echo "GPUs: $CUDA_VISIBLE_DEVICES"
echo "CORPUS-OK gpu_a100 node=$SLURMD_NODENAME gpus=$(awk -F, '{print NF}' <<<"$CUDA_VISIBLE_DEVICES") cpus=$SLURM_CPUS_PER_TASK"
