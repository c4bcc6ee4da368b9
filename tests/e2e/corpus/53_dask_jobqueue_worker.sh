#!/usr/bin/env bash

#SBATCH -J dask-worker
#SBATCH -e @JOBDIR@/dask-worker-%J.err
#SBATCH -o @JOBDIR@/dask-worker-%J.out
#SBATCH -p cpu
#SBATCH -n 1
#SBATCH --cpus-per-task=4
#SBATCH --mem=15G
#SBATCH -t 00:30:00

bash @JOBDIR@/dask_worker.sh tcp://127.0.0.1:8786 --nthreads 4 --memory-limit 14.90GiB --name SLURMCluster-0 --nanny --death-timeout 60
# --- t98_corpus.sh: the job script dask-jobqueue's SLURMCluster writes
# (t98 puts the job's directory for @JOBDIR@); helpers/dask_worker.sh
# stands in for python -m distributed.cli.dask_worker.
# corpus-setup: cp "$CORPUS/helpers/dask_worker.sh" .
# corpus-file: dask-worker-@JOB@.out
# corpus-file: dask-worker-@JOB@.err
# corpus-expect: ^distributed\.nanny - INFO - Start Nanny
# corpus-expect: ^CORPUS-OK dask nthreads=4 cpus=4 mem=15360 name=SLURMCluster-0$
