#!/bin/bash
#SBATCH --job-name=jupyter
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=4
#SBATCH --mem=16G
#SBATCH --time=08:00:00
#SBATCH --output=jupyter-%j.log
# corpus-file: jupyter-@JOB@.log
# corpus-expect: ^ssh -N -L [0-9]+:node0[1-4]:[0-9]+ 
# corpus-expect: ^CORPUS-OK jupyter port=[0-9]+$

# Print the tunnel command, then start the notebook server.
port=$(( 8000 + SLURM_JOB_ID % 1000 ))
node=$SLURMD_NODENAME
echo "Run on your laptop:"
echo "ssh -N -L ${port}:${node}:${port} ${USER}@login.cluster.example"
# jupyter lab --no-browser --port=${port} --ip=${node}
echo "CORPUS-OK jupyter port=$port"
