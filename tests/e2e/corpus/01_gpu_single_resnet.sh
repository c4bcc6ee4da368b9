#!/bin/bash
#SBATCH --job-name=resnet50
#SBATCH --partition=gpu
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=32G
#SBATCH --time=04:00:00
#SBATCH --output=%x-%j.out
# --- t98_corpus.sh reads these lines
# corpus-file: resnet50-@JOB@.out
# corpus-expect: ^CORPUS-OK gpu_single gpus=1 cpus=8 mem=32768 workers=8$
# corpus-expect: ^epoch 3 loss

# Single-GPU ImageNet-style training; the python part is a stand-in.
echo "Job $SLURM_JOB_ID on $(hostname) at $(date)"
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi on this node"

export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
num_workers=$SLURM_CPUS_PER_TASK

# python train.py --arch resnet50 --epochs 3 --workers $num_workers
awk -v e=3 'BEGIN { loss = 2.3; for (i = 1; i <= e; i++) { loss *= 0.7; printf "epoch %d loss %.3f\n", i, loss } }'

ngpu=$(echo "$CUDA_VISIBLE_DEVICES" | awk -F, '{ print NF }')
echo "CORPUS-OK gpu_single gpus=$ngpu cpus=$SLURM_CPUS_PER_TASK mem=$SLURM_MEM_PER_NODE workers=$num_workers"
