#!/bin/bash
# A stand-in for `python -u -m submitit.core._submit FOLDER` (not a job
# script: 52_submitit_generated.sh runs it under srun).  Like submitit, it
# handles USR2 (the --signal warning) by requeueing its own job with
# scontrol requeue, and finishes the work on the next run.
folder=$1
task=${SLURM_PROCID:-0}
echo "submitit INFO: Starting with JobEnvironment(job_id=$SLURM_JOB_ID, hostname=$SLURMD_NODENAME, local_rank=$SLURM_LOCALID, node=$SLURM_NODEID, global_rank=$task)"
echo "submitit INFO: Loading pickle: $folder/${SLURM_JOB_ID}_submitted.pkl"
if [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ]; then
    result=${SLURM_JOB_ID}_0_result.pkl
    echo done > "$folder/$result"
    echo "submitit INFO: Job completed successfully"
    echo "CORPUS-OK submitit restarts=$SLURM_RESTART_COUNT result=$result"
    exit 0
fi
requeue() {
    echo "submitit INFO: Job has timed out. Requeuing"
    [ "$task" -eq 0 ] && scontrol requeue "$SLURM_JOB_ID"
    exit 0
}
trap requeue USR2
echo "checkpointable work started" >&2
sleep 300 &
wait $!
