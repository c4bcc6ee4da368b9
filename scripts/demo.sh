#!/usr/bin/env bash
# make demo: the seed's four-node quant cluster on this machine, driven
# with Slurm's own commands.  Starts it with `sluice up`, submits jobs to
# each partition, shows the queue and the nodes, waits for the jobs, shows
# their output and history, and takes the cluster down again (also when
# anything fails).  DEMO_DIR chooses the directory (default ~/.sluice-demo:
# private to the user, not a predictable name in /tmp; docs/security.md);
# DEMO_KEEP=1 leaves the cluster running at the end, for the dashboard.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/${SLUICE_BUILD:-build}/bin
DIR=${DEMO_DIR:-${HOME:?set HOME or DEMO_DIR}/.sluice-demo}
PATH=$BIN:$PATH
export PATH

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# run CMD...: show the command (quoting words that need it), then run it.
run() {
    local a line='$'
    for a in "$@"; do
        case $a in
        *[!A-Za-z0-9_./:=,%-]*) line="$line '$a'" ;;
        *) line="$line $a" ;;
        esac
    done
    printf '%s\n' "$line"
    "$@"
}

cleanup() {
    rc=$?
    if [ -d "$DIR/pids" ]; then
        [ "$rc" -ne 0 ] && echo "demo: failed (status $rc); logs in $DIR/log"
        sluice down --cancel --dir "$DIR" 2>/dev/null || true
    fi
}
trap cleanup EXIT

for b in sluice sluicectld sluiced; do
    [ -x "$BIN/$b" ] || { echo "demo: $BIN/$b is not built (run make)"; exit 1; }
done
if [ -e "$DIR" ] && [ ! -e "$DIR/sluice.conf" ] && [ -n "$(ls -A "$DIR")" ]; then
    echo "demo: $DIR exists and is not a sluice directory; set DEMO_DIR"
    exit 1
fi
if [ -e "$DIR/sluice.conf" ]; then
    sluice down --cancel --dir "$DIR" >/dev/null 2>&1 || true
    rm -rf "$DIR"
fi

say "The seed's cluster: 4 GPU nodes, partitions prod / backtest / dev"
grep -E '^(NodeName|PartitionName)=' etc/quant-cluster.conf
say "sluice up: a controller and four node daemons on this machine"
printf '$ eval "$(sluice up -f etc/quant-cluster.conf --dir %s)"\n' "$DIR"
eval "$(sluice up -f etc/quant-cluster.conf --dir "$DIR")"
export SLUICE_CONF
echo "SLUICE_CONF=$SLUICE_CONF"
run sinfo

say "The seed's QOS and user, made with sacctmgr as the seed writes them"
run sacctmgr -i add qos prod_qos Priority=1000
run sacctmgr -i add qos backtest_qos Priority=500
run sacctmgr -i add qos dev_qos Priority=100
run sacctmgr -i add user zhangsan qos=prod_qos,backtest_qos,dev_qos
run sacctmgr show qos format=Name,Priority

mkdir -p "$DIR/work"
cd "$DIR/work"
cat >backtest.sh <<'EOF'
#!/bin/bash
#SBATCH --job-name=backtest
#SBATCH --time=30
#SBATCH --cpus-per-task=4
#SBATCH --output=backtest-%j.out
echo "backtest of $1 on $SLURM_JOB_NODELIST (job $SLURM_JOB_ID, partition $SLURM_JOB_PARTITION)"
sleep 3
echo "$1: sharpe 1.$((SLURM_JOB_ID % 10))"
EOF

cat >train.sh <<'EOF'
#!/bin/bash
#SBATCH --job-name=train
#SBATCH --nodes=2 --ntasks-per-node=2 --gpus-per-node=2
#SBATCH --time=10
#SBATCH --output=train-%j.out
master=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
echo "training on $SLURM_JOB_NODELIST ($SLURM_NTASKS tasks), MASTER_ADDR=$master"
srun -l bash -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME (local $SLURM_LOCALID), GPUs $CUDA_VISIBLE_DEVICES"'
EOF

say "Submit: live trading to prod, backtests (script with #SBATCH lines), dev work"
run sbatch -p prod -J signal --wrap 'echo "trading signal from $(hostname) at $(date +%T)"; sleep 2'
run sbatch -p prod -J hedge --wrap 'echo hedging; sleep 1'
for year in 2021 2022 2023; do run sbatch backtest.sh "$year"; done
train=$(sbatch --parsable train.sh)
echo "\$ sbatch train.sh   -> $train (2 nodes, srun -l inside)"
run sbatch -p dev -J notebook --wrap 'echo "training..."; sleep 2; echo "loss diverged" >&2; exit 1'
held=$(sbatch --parsable -H -p dev -J later --wrap 'echo "released and run"')
echo "\$ sbatch --parsable -H -p dev -J later --wrap ...   -> $held (held)"

say "What the seed's users get wrong is refused with a reason"
run sbatch -p dev -t 48:00:00 --wrap true || true
run sbatch -p research --wrap true || true
run sbatch -t 90:99 --wrap true || true

say "The queue and the nodes while the jobs run"
sleep 0.5
run squeue
run sinfo
run sinfo -N -l
run scontrol release "$held"

say "Waiting for the jobs to finish"
for _ in $(seq 1 300); do
    [ -z "$(squeue -h -o %i)" ] && break
    sleep 0.1
done
run squeue -t all

say "Their output files"
for f in *.out; do
    printf -- '--- %s\n' "$f"
    cat "$f"
done

say "The training job's steps: the batch script and its srun on both nodes"
run sacct -j "$train" -o JobID,JobName,NodeList,NTasks,State,ExitCode

say "A failed job, as scontrol shows it"
failed=$(squeue -h -t F -o %i | head -1)
run scontrol show job "$failed"

say "sluice down"
cd "$ROOT"
run sluice down --dir "$DIR"
rm -rf "$DIR"

# ---- the seed's preemption story ------------------------------------------
say "Preemption: prod takes GPUs from dev (PreemptType=preempt/partition_prio, PreemptMode=REQUEUE)"
echo "For the demo the configuration is copied with two changes so that it"
echo "fits in a minute: dev also runs on node01 (prod's node: partition_prio"
echo "preempts only where partitions share nodes), and PreemptExemptTime is"
echo "00:00:05 instead of the seed's 00:05:00."
mkdir -p "$DIR"
sed -e 's/^\(PartitionName=dev Nodes=\)node04/\1node01,node04/' \
    -e 's/^PreemptExemptTime=.*/PreemptExemptTime=00:00:05/' \
    etc/quant-cluster.conf >"$DIR.preempt.conf"
grep -E '^(PartitionName=(prod|dev)|Preempt)' "$DIR.preempt.conf"
eval "$(sluice up -f "$DIR.preempt.conf" --dir "$DIR")"
rm -f "$DIR.preempt.conf"
export SLUICE_CONF
mkdir -p "$DIR/work"
cd "$DIR/work"
printf '%s\n' '#!/bin/bash' \
    '#SBATCH --partition=dev --gpus-per-node=1 --output=dev-%j.out' \
    'trap '"'"'echo "job $SLURM_JOB_ID: SIGTERM ($([ -e "$SLUICE_PREEMPT_FILE" ] && echo preempted || echo cancelled)): checkpoint saved" >>victims.log; exit 0'"'"' TERM' \
    'echo "job $SLURM_JOB_ID run $((${SLURM_RESTART_COUNT:-0} + 1)) on $SLURM_JOB_NODELIST GPU $CUDA_VISIBLE_DEVICES"' \
    'sleep 14 & wait' \
    'echo "job $SLURM_JOB_ID finished"' >dev.sh
printf '%s\n' '#!/bin/bash' \
    '#SBATCH --partition=backtest --gpus-per-node=2 --output=bt-%j.out' \
    'sleep 8' >bt.sh

say "Backtests fill node02 and node03; dev jobs fill node01 and node04"
for _ in 1 2 3 4; do sbatch -Q bt.sh; done
for _ in $(seq 1 8); do sbatch -Q dev.sh; done
sleep 1
run squeue -o '%.4i %.9P %.8j %.2t %.6M %R %b'
echo "(waiting 6 s: the dev jobs pass their 5 s exempt time)"
sleep 6

say "A live-trading job arrives: 2 GPUs in prod (node01, all taken)"
t0=$(date +%s%3N)
prod=$(sbatch --parsable -p prod -J live --gpus-per-node=2 \
    --wrap 'echo "trading on GPUs $CUDA_VISIBLE_DEVICES"; sleep 3')
for _ in $(seq 1 500); do
    [ "$(squeue -h -j "$prod" -o %t)" = R ] && break
    sleep 0.01
done
t1=$(date +%s%3N)
echo "\$ sbatch -p prod -J live --gpus-per-node=2 ...  -> job $prod RUNNING" \
    "$((t1 - t0)) ms after sbatch started (sbatch and squeue included)"
grep -E "job=[0-9]+ (preempted|state=PENDING requeued)|job=$prod (preempts|state=RUNNING)" \
    "$DIR/log/sluicectld.log" | cut -d' ' -f1,4-
run squeue -o '%.4i %.9P %.8j %.2t %.6M %R %b'

say "The victims were requeued (same ids, submit time kept) and finish later"
for _ in $(seq 1 600); do
    [ -z "$(squeue -h -o %i)" ] && break
    sleep 0.1
done
run sacct -X -o JobID,JobName,Partition,State,Restarts,Elapsed
run cat victims.log

say "What it cost: sluice report preemptions"
run sluice report preemptions

say "The REST API, /metrics and the dashboard, served by sluicectld itself"
ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
echo "\$ eval \"\$(scontrol token lifespan=600)\"   # SLURM_JWT=<HS256 token>"
eval "$(scontrol token lifespan=600)"
echo "\$ curl -H \"X-SLURM-USER-TOKEN: \$SLURM_JWT\" http://$ADDR/slurm/v0.0.38/jobs?state=all"
curl -s -H "X-SLURM-USER-TOKEN: $SLURM_JWT" "http://$ADDR/slurm/v0.0.38/jobs?state=all" |
    /usr/bin/python3 -c 'import json, sys
for j in json.load(sys.stdin)["jobs"][:8]:
    print("  job %-3s %-10s %-9s %s" % (j["job_id"], j["name"], j["partition"], j["job_state"]))'
echo "\$ curl http://$ADDR/metrics | grep sluice_partition_gpus"
curl -s "http://$ADDR/metrics" | grep -E '^sluice_partition_gpus(_allocated)?\{' || true
echo "The dashboard (GPU map, queue with reasons, preemptions): open"
echo "  http://$ADDR/#token=$SLURM_JWT"
echo "while the cluster runs (docs/dashboard.md; DEMO_KEEP=1 make demo keeps it)."

if [ "${DEMO_KEEP:-0}" = 1 ]; then
    trap - EXIT
    say "The cluster keeps running (DEMO_KEEP=1)"
    echo "export SLUICE_CONF=$SLUICE_CONF   # to use it"
    echo "sluice down --cancel --dir $DIR   # to stop it"
    exit 0
fi

say "sluice down"
cd "$ROOT"
run sluice down --dir "$DIR"
rm -rf "$DIR"
echo
echo "demo: done"
