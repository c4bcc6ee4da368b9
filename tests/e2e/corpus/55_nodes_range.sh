#!/bin/bash
#SBATCH --job-name=elastic
#SBATCH --nodes=1-2
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:30:00
#SBATCH -p cpu
# corpus-expect: ^CORPUS-OK nodes_range nodes=[12]$

# Elastic training: whatever of 1 to 2 nodes is free soonest.
echo "CORPUS-OK nodes_range nodes=$SLURM_JOB_NUM_NODES"
