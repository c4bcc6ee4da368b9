#!/bin/bash
#SBATCH --job-name=prepare-data
#SBATCH --cpus-per-task=2
#SBATCH --time=00:20:00
#SBATCH --output=prepare-%j.out
# corpus-dir: pipeline
# corpus-expect: ^CORPUS-OK prepare rows=1000$

# Step 1 of 2: the features the training step reads.
seq 1 1000 | awk '{ print $1 "," $1 * 2 }' > features.csv
sleep 1
echo "CORPUS-OK prepare rows=$(wc -l < features.csv)"
