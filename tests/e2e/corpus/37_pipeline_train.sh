#!/bin/bash
#SBATCH --job-name=train-after-prepare
#SBATCH --gres=gpu:1
#SBATCH --time=01:00:00
#SBATCH --output=train-%j.out
# corpus-dir: pipeline
# corpus-after: 36_pipeline_prepare
# corpus-expect: ^CORPUS-OK train_after rows=1000 sum=1001000$

# Step 2 of 2, submitted with --dependency=afterok:<prepare's id>
# (jid=$(sbatch --parsable 36_pipeline_prepare.sh);
#  sbatch --dependency=afterok:$jid 37_pipeline_train.sh).
sum=$(awk -F, '{ s += $2 } END { print s }' features.csv)
echo "CORPUS-OK train_after rows=$(wc -l < features.csv) sum=$sum"
