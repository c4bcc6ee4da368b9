#!/bin/bash
#SBATCH --job-name=ds-zero3
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:2
#SBATCH --cpus-per-task=4
#SBATCH --time=24:00:00
# corpus-expect: ^CORPUS-OK hostfile hosts=2 slots=4$

# DeepSpeed wants a hostfile with the GPUs of each node as slots.
hostfile=hostfile.$SLURM_JOB_ID
for h in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
    echo "$h slots=$SLURM_GPUS_ON_NODE"
done > "$hostfile"
cat "$hostfile"
# deepspeed --hostfile $hostfile train.py --deepspeed ds_config.json
hosts=$(wc -l < "$hostfile")
slots=$(awk -F'slots=' '{ s += $2 } END { print s }' "$hostfile")
echo "CORPUS-OK hostfile hosts=$hosts slots=$slots"
