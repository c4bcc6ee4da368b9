#!/bin/bash
#SBATCH --job-name=mincpus
#SBATCH --ntasks=1
#SBATCH --mincpus=8
#SBATCH --time=5
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK mincpus cpus_on_node=([89]|1[0-6])$

echo "CORPUS-OK mincpus cpus_on_node=$SLURM_CPUS_ON_NODE"
