#!/bin/bash
#SBATCH --job-name=resume-train
#SBATCH --output=train.log
#SBATCH --open-mode=append
#SBATCH --time=06:00:00
#SBATCH --gres=gpu:1
# corpus-setup: echo "PREVIOUS-RUN epoch 1-10" > train.log
# corpus-file: train.log
# corpus-expect: ^PREVIOUS-RUN epoch 1-10$
# corpus-expect: ^CORPUS-OK append resumed=yes$

# Resume from the last checkpoint, appending to the same log.
if grep -q PREVIOUS-RUN train.log; then resumed=yes; else resumed=no; fi
echo "CORPUS-OK append resumed=$resumed"
