#!/usr/bin/env bash
# GPUs on a local cluster of count-only GPUs (node[01-04], 4 each): 16
# one-GPU jobs at once, each on its own GPU, what they see, the 17th
# waiting; four 4-GPU jobs filling the cluster across a controller crash;
# a 5-GPU job refused with the numbers; typed requests on typed nodes.
. "$(dirname "$0")/lib.sh"

CONFDIR=$(mktemp -d /tmp/sluice-e2e-conf.XXXXXX)
cat >"$CONFDIR/gpu.conf" <<'EOF'
ClusterName=gpus
SlurmctldHost=master
SlurmdTimeout=30
KillWait=2
GresTypes=gpu
NodeName=node[01-04] CPUs=16 RealMemory=64000 Gres=gpu:4
PartitionName=gpu Nodes=node[01-04] Default=YES MaxTime=1:00:00
EOF
cat >"$CONFDIR/typed.conf" <<'EOF'
ClusterName=typed
SlurmctldHost=master
SlurmdTimeout=30
KillWait=2
GresTypes=gpu
NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:a100:4
NodeName=node[03-04] CPUs=16 RealMemory=64000 Gres=gpu:h200:4
PartitionName=all Nodes=node[01-04] Default=YES MaxTime=1:00:00
# strict order for the FIFO check below (backfill would rightly start the
# any-type job on a free a100: it delays no h200 reservation)
SchedulerType=sched/builtin
EOF
cluster_start "$CONFDIR/gpu.conf"
trap 'cluster_stop; rm -rf "$CONFDIR"' EXIT

# gres_pairs: "JOBID NODE:INDEX" of the GPUs in scontrol -o show job's
# records on stdin ("Nodes=node01 GRES=gpu:2(IDX:0-1)"), running jobs only.
gres_pairs() {
    tr ' ' '\n' | awk -F= '
        $1 == "JobId" { running = 0; id = $2 }
        $1 == "JobState" { running = $2 == "RUNNING" }
        $1 == "Nodes" && running { node = $2 }
        $1 == "GRES" && node != "" {
            s = $2; sub(/.*IDX:/, "", s); sub(/\).*/, "", s)
            n = split(s, parts, ",")
            for (i = 1; i <= n; i++) {
                if (split(parts[i], r, "-") == 2)
                    for (k = r[1]; k <= r[2]; k++) print id, node ":" k
                else
                    print id, node ":" parts[i]
            }
            node = ""
        }'
}

# gpu_pairs: "NODE:INDEX" of every running job's GPUs, one a line.
gpu_pairs() {
    scontrol -o show job | gres_pairs | cut -d' ' -f2
}

running() {
    squeue -h -t R -o %i | wc -l
}

# --- 16 one-GPU jobs at once ---------------------------------------------
cat >one.sh <<'EOF'
#!/bin/bash
#SBATCH --gres=gpu:1
#SBATCH -o one-%j.out
echo "$SLURMD_NODENAME $SLURM_JOB_GPUS $CUDA_VISIBLE_DEVICES" \
    "$GPU_DEVICE_ORDINAL $SLURM_GPUS_ON_NODE $SLUICE_JOB_GPUS"
while [ ! -e go1 ]; do sleep 0.05; done
EOF
ids=
for i in $(seq 16); do ids="$ids $(submit one.sh)"; done
wait_for 20 test "$(running)" -eq 16
is "$(running)" 16 "16 one-GPU jobs run at once on 4 nodes of 4 GPUs"
is "$(gpu_pairs | sort -u | wc -l)" 16 "no two jobs share a GPU index on a node"
is "$(gpu_pairs | cut -d: -f2 | sort -u | tr '\n' ' ')" "0 1 2 3 " \
    "every node's indices 0-3 are given out"
last=$(submit one.sh)
wait_for 5 test "$(squeue -h -j "$last" -o %R)" = "(Resources)"
is "$(squeue -h -j "$last" -o '%T %b %R')" "PENDING gres:gpu:1 (Resources)" \
    "the 17th waits for Resources; squeue %b shows its GPUs"

# what each job sees: its own pair, and the allocation the controller holds
for id in $ids; do wait_for 5 test -s "one-$id.out"; done
seen=$(cat one-*.out | sort)
is "$(printf '%s\n' "$seen" | sort -u | wc -l)" 16 \
    "16 different SLURMD_NODENAME/SLURM_JOB_GPUS pairs"
held=$(scontrol -o show job | gres_pairs)
bad=0
for id in $ids; do
    read -r node jobgpus cvd ordinal on_node twin <"one-$id.out"
    alloc=$(printf '%s\n' "$held" | awk -v id="$id" '$1 == id { print $2 }')
    # count-only GPUs have no device files to fence: no renumbering
    if [ "$alloc" != "$node:$jobgpus" ] || [ "$cvd" != "$jobgpus" ] ||
        [ "$ordinal" != "$jobgpus" ] || [ "$on_node" != 1 ] ||
        [ "$twin" != "$jobgpus" ]; then
        bad=$((bad + 1))
        echo "# job $id sees '$node $jobgpus $cvd $ordinal $on_node $twin', holds '$alloc'"
    fi
done
is "$bad" 0 "each job's SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, SLUICE_JOB_GPUS are the index it holds; SLURM_GPUS_ON_NODE=1"
like "$(scontrol show job "$last")" " TRES=cpu=1,node=1,billing=1,gres/gpu=1" \
    "scontrol show job: TRES (requested while pending) with gres/gpu"
first=$(echo $ids | cut -d' ' -f1)
like "$(scontrol show job "$first")" " TRES=cpu=1,node=1,billing=1,gres/gpu=1" \
    "scontrol show job: TRES (allocated) of a running job"
like "$(scontrol show job "$first")" "Nodes=node0[1-4] GRES=gpu:1\(IDX:[0-3]\)" \
    "scontrol show job: the GPU index on its node"
touch go1
wait_for 20 job_ended "$last"
is "$(job_state "$last")" COMPLETED "the 17th runs once GPUs are free"
is "$(squeue -h -t CD -o %i | wc -l)" 17 "all 17 completed"

# --- four 4-GPU jobs fill the cluster; a controller crash changes nothing --
four=
for i in 1 2 3 4; do
    four="$four $(submit --gpus-per-node=4 -o four-%j.out \
        --wrap 'echo $SLURMD_NODENAME $SLURM_JOB_GPUS $SLURM_GPUS_ON_NODE; while [ ! -e go2 ]; do sleep 0.05; done')"
done
wait_for 20 test "$(running)" -eq 4
is "$(squeue -h -t R -o %N | sort | tr '\n' ' ')" "node01 node02 node03 node04 " \
    "four 4-GPU jobs take one node each"
is "$(gpu_pairs | wc -l)" 16 "and all 16 GPUs"
is "$(sinfo -h -N -o '%N %G' | sort | tr '\n' ' ')" \
    "node01 gpu:4 node02 gpu:4 node03 gpu:4 node04 gpu:4 " "sinfo %G shows each node's GPUs"
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-again.err" ||
    sed 's/^/#   /' "$DIR/up-again.err"
is "$(running)" 4 "after a controller crash the four are running still"
is "$(gpu_pairs | sort -u | wc -l)" 16 "and hold their 16 GPUs"
small=$(submit --gpus=1 --wrap true)
wait_for 5 test "$(squeue -h -j "$small" -o %R)" = "(Resources)"
is "$(squeue -h -j "$small" -o '%T %R')" "PENDING (Resources)" \
    "a 1-GPU job waits: no index is given out twice after the restart"
touch go2
wait_for 20 job_ended "$small"
is "$(job_state "$small")" COMPLETED "it runs when the 4-GPU jobs end"
for id in $four; do
    read -r node jobgpus _ <"four-$id.out"
    [ "$jobgpus" = "0,1,2,3" ] || echo "# job $id on $node saw SLURM_JOB_GPUS=$jobgpus"
done
is "$(cat four-*.out | cut -d' ' -f2,3 | sort -u)" "0,1,2,3 4" \
    "a 4-GPU job sees SLURM_JOB_GPUS=0,1,2,3 and SLURM_GPUS_ON_NODE=4"

# --- more GPUs than any node has ----------------------------------------
for opt in --gres=gpu:5 --gpus-per-node=5 --gpus=5; do
    msg=$(sbatch "$opt" --wrap true 2>&1) && not_ok "$opt accepted" ||
        like "$msg" "^sbatch: error: Batch job submission failed: requested 5 GPUs per node but the largest node in partition gpu has 4" \
            "sbatch $opt is refused with the numbers"
done
msg=$(sbatch --gres=gpu:h200:1 --wrap true 2>&1) && not_ok "a missing type accepted" ||
    like "$msg" "requested 1 GPUs of type h200 per node but no node in partition gpu has GPUs of that type" \
        "a type no node has is refused"
msg=$(sbatch --gres=gpu:1 --gpus=1 --wrap true 2>&1) && not_ok "two GPU requests accepted" ||
    like "$msg" "asks for GPUs in more than one way \(gres and gpus\)" \
        "GPUs asked for in two ways are refused"

# --- typed GPUs ----------------------------------------------------------
cluster_stop
cluster_start "$CONFDIR/typed.conf"
trap 'cluster_stop; rm -rf "$CONFDIR"' EXIT
like "$(grep -c 'Type=h200 Count=4' "$DIR/gres.conf")" "^2$" \
    "sluice up writes typed count-only gres.conf lines"
typed=
for i in 1 2 3 4; do
    typed="$typed $(submit --gres=gpu:h200:2 --wrap 'while [ ! -e go3 ]; do sleep 0.05; done')"
done
for i in 1 2; do
    typed="$typed $(submit --gpus=a100:3 --wrap 'while [ ! -e go3 ]; do sleep 0.05; done')"
done
wait_for 20 test "$(running)" -eq 6
is "$(squeue -h -t R -o '%b %N' | sort | uniq -c | awk '{print $1, $2, $3}' | tr '\n' ' ')" \
    "1 gres:gpu:a100:3 node01 1 gres:gpu:a100:3 node02 2 gres:gpu:h200:2 node03 2 gres:gpu:h200:2 node04 " \
    "typed requests land only on nodes of their type"
wait_h200=$(submit --gres=gpu:h200:1 --wrap true)
any=$(submit --gres=gpu:1 --wrap true)
wait_for 5 test "$(squeue -h -j "$wait_h200" -o %R)" = "(Resources)"
is "$(squeue -h -j "$wait_h200" -o %T)" PENDING "an h200 job waits though a100s are free"
is "$(squeue -h -j "$any" -o '%T %R')" "PENDING (Priority)" \
    "FIFO: a job behind it waits its turn"
touch go3
wait_for 20 job_ended "$wait_h200"
like "$(squeue -h -t all -j "$wait_h200" -o '%T %N')" "^COMPLETED node0[34]$" \
    "the h200 job runs on an h200 node"
finish
