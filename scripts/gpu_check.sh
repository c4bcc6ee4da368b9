#!/usr/bin/env bash
# The real-GPU check, for a machine with NVIDIA GPUs and its driver (run as
# root, after `make`): what `sluiced -C` finds through NVML, then a
# one-node local cluster with those GPUs by device file and
# ConstrainDevices=yes, and a one-GPU job that prints its GPU variables
# and `nvidia-smi -L` (which should list only its own GPU).  Prints what it
# ran and saw; the cluster is taken down again whatever happens.
#   scripts/gpu_check.sh [BUILD_DIR]
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/${1:-build}/bin
export PATH=$BIN:$PATH
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    echo "gpu_check: no /dev/nvidiaN on this machine: nothing to check"
    exit 0
fi
DIR=$(mktemp -d /tmp/sluice-gpucheck.XXXXXX)
trap 'sluice down --cancel --dir "$DIR" >/dev/null 2>&1; rm -rf "$DIR"' EXIT
chmod 755 "$DIR"

echo "== sluiced -C"
sluiced -C -N gpunode
n=$(ls /dev/nvidia[0-9]* | wc -l)

cat >"$DIR/src.conf" <<EOF
ClusterName=gpucheck
SlurmctldHost=localhost
GresTypes=gpu
NodeName=gpunode CPUs=$(nproc) RealMemory=1000 Gres=gpu:$n
PartitionName=gpu Nodes=gpunode Default=YES MaxTime=INFINITE State=UP
EOF
printf 'ConstrainDevices=yes\n' >"$DIR/cgroup.conf"
echo "== sluice up (gres.conf and cgroup.conf in $DIR)"
eval "$(sluice up -f "$DIR/src.conf" --dir "$DIR")" || exit 1
export SLUICE_CONF
cat "$DIR/gres.conf"
grep -h "cgroup=\|gres=" "$DIR"/log/gpunode.log

mkdir -p "$DIR/work" && chmod 755 "$DIR/work" && cd "$DIR/work" || exit 1
cat >job.sh <<'EOS'
#!/bin/sh
echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES SLURM_JOB_GPUS=$SLURM_JOB_GPUS SLURM_GPUS_ON_NODE=$SLURM_GPUS_ON_NODE"
nvidia-smi -L
EOS
for gpus in 1 2; do
    [ "$gpus" -le "$n" ] || break
    echo "== sbatch --gres=gpu:$gpus job.sh"
    id=$(sbatch --parsable --gres=gpu:$gpus job.sh) || exit 1
    for _ in $(seq 300); do
        case $(squeue -h -t all -j "$id" -o %T) in
        COMPLETED | FAILED | CANCELLED | OUT_OF_MEMORY | NODE_FAIL) break ;;
        esac
        sleep 0.1
    done
    squeue -h -t all -j "$id" -o "%i %T"
    cat "slurm-$id.out"
done
echo "== nvidia-smi -L outside any job"
nvidia-smi -L
