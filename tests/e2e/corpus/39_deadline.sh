#!/bin/bash
#SBATCH --job-name=before-open
#SBATCH --deadline=now+2hours
#SBATCH --time=00:30:00
#SBATCH --time-min=00:05:00
# corpus-expect: ^CORPUS-OK deadline$
# corpus-cmd: scontrol show job @JOB@ ~ Deadline=20[0-9][0-9]-

# Worthless after the market opens: Slurm cancels it if it cannot end by then.
echo "CORPUS-OK deadline"
