#!/bin/bash
#SBATCH -N 1
#SBATCH --exclusive
#SBATCH --mem=0
#SBATCH -t 1:00:00
#SBATCH -J bigmem
# corpus-expect: ^CORPUS-OK mem0 mem=64000 cpus=16$

# --mem=0: all the memory of the node.
echo "CORPUS-OK mem0 mem=$SLURM_MEM_PER_NODE cpus=$SLURM_CPUS_ON_NODE"
