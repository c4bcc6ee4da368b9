#!/bin/bash
#SBATCH --job-name=preprocess
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=00:30:00
# corpus-setup: mkdir -p logs
# corpus-file: logs/preprocess-@JOB@.out
# corpus-file: logs/preprocess-@JOB@.err
# corpus-expect: ^CORPUS-OK logs name=preprocess$
# corpus-expect: ^warning: 3 rows dropped$

echo "warning: 3 rows dropped" >&2
echo "CORPUS-OK logs name=$SLURM_JOB_NAME"
