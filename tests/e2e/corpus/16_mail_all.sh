#!/bin/bash
#SBATCH -J mail-all
#SBATCH --mail-type=ALL
#SBATCH --mail-user=bob@example.com
#SBATCH -t 15
# corpus-expect: ^CORPUS-OK mail_all$
# corpus-mail: Job_id=@JOB@ .*Began
# corpus-mail: Job_id=@JOB@ .*Ended

echo "CORPUS-OK mail_all"
