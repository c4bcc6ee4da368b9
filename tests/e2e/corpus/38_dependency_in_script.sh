#!/bin/bash
#SBATCH --job-name=nightly-report
#SBATCH --dependency=singleton
#SBATCH --time=00:10:00
# corpus-expect: ^CORPUS-OK singleton$

# Only one nightly-report of this user at a time.
echo "CORPUS-OK singleton"
