#!/bin/sh
#SBATCH -J short -N1 -n2 -c2
#SBATCH -t 10 -p cpu
#SBATCH --mem-per-cpu=500M
# corpus-expect: ^CORPUS-OK short nodes=1 ntasks=2 cpt=2 partition=cpu$

# Several options on one #SBATCH line, a POSIX sh script.
echo "CORPUS-OK short nodes=$SLURM_JOB_NUM_NODES ntasks=$SLURM_NTASKS cpt=$SLURM_CPUS_PER_TASK partition=$SLURM_JOB_PARTITION"
