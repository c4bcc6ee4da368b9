#!/bin/bash
#SBATCH --job-name=delayed
#SBATCH --begin=now+5
#SBATCH --time=00:05:00
# corpus-expect: ^CORPUS-OK begin waited=yes$

# Started at least 5 s after submission (CORPUS_SUBMIT_EPOCH: when sbatch ran).
waited=no
[ $(( $(date +%s) - ${CORPUS_SUBMIT_EPOCH:-0} )) -ge 4 ] && waited=yes
echo "CORPUS-OK begin waited=$waited"
