#!/bin/bash
#SBATCH -J params
#SBATCH -a 1-4
#SBATCH -c 1
#SBATCH -t 10
#SBATCH -o logs/params-%A_%a.out
# corpus-setup: mkdir -p logs && printf '%s\n' 'alpha 1' 'beta 2' 'gamma 3' 'delta 4' > params.txt
# corpus-tasks: 4
# corpus-lines: 4
# corpus-expect: ^CORPUS-OK params line=1 name=alpha seed=1$
# corpus-expect: ^CORPUS-OK params line=4 name=delta seed=4$

# One line of params.txt per task.
read -r name seed < <(sed -n "${SLURM_ARRAY_TASK_ID}p" params.txt)
echo "CORPUS-OK params line=$SLURM_ARRAY_TASK_ID name=$name seed=$seed"
