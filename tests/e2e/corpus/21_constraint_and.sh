#!/bin/bash
#SBATCH -J nvlink
#SBATCH -C "nvlink&ib"
#SBATCH -G 2
#SBATCH -t 1:00:00
# corpus-expect: ^CORPUS-OK constraint_and node=node0[12]$

echo "CORPUS-OK constraint_and node=$SLURMD_NODENAME"
