#!/bin/bash
#SBATCH --job-name=self-requeue
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=requeue.out
#SBATCH --time=00:30:00
# corpus-file: requeue.out
# corpus-expect: ^first run: checkpoint written, requeueing$
# corpus-expect: ^CORPUS-OK requeue restarts=1 resumed=step-500$
# corpus-cmd: scontrol show job @JOB@ ~ Restarts=1
# corpus-cmd: scontrol show job @JOB@ ~ Requeue=1

# Lightning-style: save a checkpoint and requeue ourselves; the next run
# (SLURM_RESTART_COUNT=1) resumes from it.
if [ "${SLURM_RESTART_COUNT:-0}" -eq 0 ]; then
    echo "step-500" > ckpt
    echo "first run: checkpoint written, requeueing"
    scontrol requeue "$SLURM_JOB_ID"
    sleep 60
    echo "still here after requeue"
    exit 1
fi
echo "CORPUS-OK requeue restarts=$SLURM_RESTART_COUNT resumed=$(cat ckpt)"
