#!/bin/bash
# A stand-in for `python -m distributed.cli.dask_worker SCHEDULER ...` (run
# by 53_dask_jobqueue_worker.sh): logs as a worker does, on stderr, and
# prints what it was given and what Slurm gave the job.
sched=$1
shift
nthreads= name=
while [ $# -gt 0 ]; do
    case $1 in
    --nthreads) nthreads=$2; shift ;;
    --name) name=$2; shift ;;
    esac
    shift
done
echo "distributed.nanny - INFO - Start Nanny at: 'tcp://127.0.0.1:0'" >&2
echo "distributed.worker - INFO - Waiting to connect to: $sched" >&2
echo "distributed.nanny - INFO - Start Nanny at: 'tcp://127.0.0.1:0'"
echo "CORPUS-OK dask nthreads=$nthreads cpus=$SLURM_CPUS_PER_TASK mem=$SLURM_MEM_PER_NODE name=$name"
