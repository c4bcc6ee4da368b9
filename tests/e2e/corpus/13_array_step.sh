#!/bin/bash
#SBATCH --array=0-20:5
#SBATCH --ntasks=1
#SBATCH --time=5
#SBATCH --job-name=chunks
# corpus-tasks: 5
# corpus-lines: 5
# corpus-expect: ^CORPUS-OK chunks start=0 end=4 step=5$
# corpus-expect: ^CORPUS-OK chunks start=20 end=24 step=5$

# Each task processes the chunk [i, i+step).
start=$SLURM_ARRAY_TASK_ID
end=$(( start + SLURM_ARRAY_TASK_STEP - 1 ))
echo "CORPUS-OK chunks start=$start end=$end step=$SLURM_ARRAY_TASK_STEP"
