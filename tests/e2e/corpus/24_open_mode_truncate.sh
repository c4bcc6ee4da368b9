#!/bin/bash
#SBATCH -J fresh-log
#SBATCH -o run.log
#SBATCH --open-mode=truncate
#SBATCH -t 10
# corpus-setup: echo "STALE-OUTPUT from an old run" > run.log
# corpus-file: run.log
# corpus-absent: STALE-OUTPUT
# corpus-expect: ^CORPUS-OK truncate$

echo "CORPUS-OK truncate"
