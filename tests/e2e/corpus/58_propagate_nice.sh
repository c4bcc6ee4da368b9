#!/bin/bash
#SBATCH --job-name=low-prio
#SBATCH --nice=100
#SBATCH --propagate=STACK,CORE
#SBATCH --time=00:10:00
#SBATCH --quiet
# corpus-quiet: low-prio
# corpus-expect: ^CORPUS-OK nice$

echo "CORPUS-OK nice"
