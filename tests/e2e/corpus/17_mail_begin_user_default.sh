#!/bin/bash
#SBATCH --job-name=mail-begin
#SBATCH --mail-type=BEGIN
#SBATCH --time=10:00
# corpus-expect: ^CORPUS-OK mail_begin$
# corpus-mail: Job_id=@JOB@ .*Began

# No --mail-user: Slurm mails the submitting user.
echo "CORPUS-OK mail_begin"
