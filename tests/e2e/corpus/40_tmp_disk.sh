#!/bin/bash
#SBATCH --job-name=scratch-heavy
#SBATCH --tmp=150G
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
# corpus-expect: ^CORPUS-OK tmp node=node0[12]$
# corpus-cmd: scontrol show job @JOB@ ~ MinTmpDiskNode=150G

# Only node01 and node02 have 200 GB of local disk (TmpDisk).
scratch=${TMPDIR:-/tmp}/$USER.$SLURM_JOB_ID
mkdir -p "$scratch" && rm -rf "$scratch"
echo "CORPUS-OK tmp node=$SLURMD_NODENAME"
