#!/bin/bash
#SBATCH --job-name=clean-env
#SBATCH --export=NONE
#SBATCH --time=5
# corpus-expect: ^CORPUS-OK export_none submit_env=missing job_id=@JOB@$

# Nothing of the submitting shell leaks in; Slurm's own variables do.
echo "CORPUS-OK export_none submit_env=${CORPUS_SUBMIT_ENV:-missing} job_id=$SLURM_JOB_ID"
