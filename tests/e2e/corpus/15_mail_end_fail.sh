#!/bin/bash
#SBATCH --job-name=nightly-backtest
#SBATCH --mail-type=END,FAIL
#SBATCH --mail-user=alice@example.com
#SBATCH --time=01:00:00
#SBATCH --mem=8G
# corpus-expect: ^CORPUS-OK mail_end$
# corpus-mail: alice@example\.com
# corpus-mail: Job_id=@JOB@ .*Ended

echo "backtest started $(date +%F)"
echo "CORPUS-OK mail_end"
