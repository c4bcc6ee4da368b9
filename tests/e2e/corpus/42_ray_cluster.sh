#!/bin/bash
#SBATCH --job-name=ray
#SBATCH --nodes=2
#SBATCH --tasks-per-node=1
#SBATCH --cpus-per-task=4
#SBATCH --gpus-per-task=1
#SBATCH --time=00:30:00
# corpus-expect: ^CORPUS-OK ray head=(node0[1-4]) workers=1 head_ran_on=\1$

# Ray on Slurm: the head on the first node, workers on the rest.
nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")
nodes_array=($nodes)
head_node=${nodes_array[0]}
head_ran_on=$(srun --nodes=1 --ntasks=1 -w "$head_node" printenv SLURMD_NODENAME)
worker_num=$((SLURM_JOB_NUM_NODES - 1))
for ((i = 1; i <= worker_num; i++)); do
    node_i=${nodes_array[$i]}
    echo "starting worker $i at $node_i"
    # srun --nodes=1 --ntasks=1 -w "$node_i" ray start --address "$head_node:6379" --block &
done
echo "CORPUS-OK ray head=$head_node workers=$worker_num head_ran_on=$head_ran_on"
