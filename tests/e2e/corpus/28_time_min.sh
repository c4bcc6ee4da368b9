#!/bin/bash
#SBATCH -J backfill-friendly
#SBATCH --time=02:00:00
#SBATCH --time-min=00:30:00
#SBATCH -c 2
# corpus-expect: ^CORPUS-OK time_min$
# corpus-cmd: scontrol show job @JOB@ ~ TimeMin=00:30:00

echo "CORPUS-OK time_min"
