#!/usr/bin/env bash
#SBATCH -J bert-finetune
#SBATCH -G 1
#SBATCH -c 4
#SBATCH --mem-per-gpu=16G
#SBATCH -t 0-02:00
# corpus-expect: ^CORPUS-OK gpus_flag gpus=1 cuda=[0-9]+ on_node=1$

set -euo pipefail
echo "Starting fine-tuning on $SLURMD_NODENAME"
# python run_glue.py --model bert-base-uncased --task mrpc --fp16
for step in 100 200 300; do
    echo "step $step"
done
echo "CORPUS-OK gpus_flag gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | wc -l) cuda=$CUDA_VISIBLE_DEVICES on_node=$SLURM_GPUS_ON_NODE"
