#!/bin/bash
#SBATCH --job-name=ci-smoke
#SBATCH --time=00:05:00
#SBATCH --cpus-per-task=1
# corpus-args: --wait
# corpus-expect: ^CORPUS-OK wait$

# Run from CI as `sbatch --wait 54_ci_wait.sh`: sbatch blocks until the job
# ends and exits with its exit code.
sleep 2
echo "CORPUS-OK wait"
