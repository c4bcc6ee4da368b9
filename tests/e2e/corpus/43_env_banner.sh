#!/bin/bash
#SBATCH --job-name=env-banner
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:05:00
#SBATCH --partition=cpu
# corpus-expect: ^CORPUS-OK banner cluster=e2e-corpus partition=cpu nodes=2 ntasks=4 tpn=2\(x2\) ntpn=2 cpn=2\(x2\) submit_host=set$

# The banner many sites put at the top of every job's log.
echo "=========================================="
echo "SLURM_JOB_ID        = $SLURM_JOB_ID"
echo "SLURM_JOB_NAME      = $SLURM_JOB_NAME"
echo "SLURM_JOB_NODELIST  = $SLURM_JOB_NODELIST"
echo "SLURM_CLUSTER_NAME  = $SLURM_CLUSTER_NAME"
echo "SLURM_JOB_ACCOUNT   = $SLURM_JOB_ACCOUNT"
echo "SLURM_JOB_QOS       = $SLURM_JOB_QOS"
echo "SLURM_SUBMIT_HOST   = $SLURM_SUBMIT_HOST"
echo "SLURM_SUBMIT_DIR    = $SLURM_SUBMIT_DIR"
echo "=========================================="
echo "CORPUS-OK banner cluster=$SLURM_CLUSTER_NAME partition=$SLURM_JOB_PARTITION nodes=$SLURM_JOB_NUM_NODES ntasks=$SLURM_NTASKS tpn=$SLURM_TASKS_PER_NODE ntpn=$SLURM_NTASKS_PER_NODE cpn=$SLURM_JOB_CPUS_PER_NODE submit_host=${SLURM_SUBMIT_HOST:+set}"
