#!/bin/bash
#SBATCH --job-name=bench-exclusive
#SBATCH --nodes=1
#SBATCH --exclusive
#SBATCH --time=00:20:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK exclusive cpus_on_node=16 job_cpus=16$

# Timing benchmark: nobody else on the node.
echo "CORPUS-OK exclusive cpus_on_node=$SLURM_CPUS_ON_NODE job_cpus=$SLURM_JOB_CPUS_PER_NODE"
