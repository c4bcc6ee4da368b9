#!/bin/bash
#SBATCH --job-name=in-rundir
#SBATCH --chdir=rundir
#SBATCH --time=5
# corpus-setup: mkdir -p rundir
# corpus-file: rundir/slurm-@JOB@.out
# corpus-expect: ^CORPUS-OK chdir dir=rundir submit_dir=33_chdir$

# SLURM_SUBMIT_DIR stays where sbatch ran; the script runs in rundir.
echo "CORPUS-OK chdir dir=$(basename "$PWD") submit_dir=$(basename "$SLURM_SUBMIT_DIR")"
