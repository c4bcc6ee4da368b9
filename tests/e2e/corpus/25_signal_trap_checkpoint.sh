#!/bin/bash
#SBATCH --job-name=ckpt-on-signal
#SBATCH --time=00:01:00
#SBATCH --signal=B:USR1@50
#SBATCH --output=ckpt-%j.out
# corpus-file: ckpt-@JOB@.out
# corpus-expect: ^caught SIGUSR1, saving checkpoint$
# corpus-expect: ^CORPUS-OK signal caught=USR1 early=yes$

# Checkpoint when Slurm warns that the time limit is near.
start=$SECONDS
save_and_exit() {
    echo "caught SIGUSR1, saving checkpoint"
    echo "step=42" > checkpoint.txt
    early=no
    [ $(( SECONDS - start )) -lt 45 ] && early=yes
    echo "CORPUS-OK signal caught=USR1 early=$early"
    exit 0
}
trap save_and_exit USR1

# python train.py &  (in the background, so that bash runs the trap at once)
sleep 120 &
wait $!
echo "the time limit came without a signal"
