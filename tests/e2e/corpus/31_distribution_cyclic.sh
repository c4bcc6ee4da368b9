#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks=4
#SBATCH --distribution=cyclic
#SBATCH --time=00:10:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK cyclic tasks=4 nodes=2 alternating=yes$

# Ranks round-robin over the nodes: 0 and 1 on different nodes, 0 and 2
# on the same one.
srun bash -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' | sort -n > placement.$SLURM_JOB_ID
cat placement.$SLURM_JOB_ID
alt=$(awk '{ n[$1] = $2 } END { print (n[0] != n[1] && n[0] == n[2] && n[1] == n[3]) ? "yes" : "no" }' placement.$SLURM_JOB_ID)
echo "CORPUS-OK cyclic tasks=$(wc -l < placement.$SLURM_JOB_ID) nodes=$SLURM_JOB_NUM_NODES alternating=$alt"
