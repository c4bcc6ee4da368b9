#!/bin/bash
#SBATCH --job-name=shape
#SBATCH -B 1:2:1
#SBATCH --ntasks=2
#SBATCH --time=00:10:00
#SBATCH -p cpu
# corpus-expect: ^CORPUS-OK shape ntasks=2$

echo "CORPUS-OK shape ntasks=$SLURM_NTASKS"
