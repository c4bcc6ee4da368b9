#!/usr/bin/env bash
# Preemption latency on a local cluster (not part of `make check`):
#
#   bench/preempt_bench.sh [-r ROUNDS] [-n PENDING]
#
# 1. preempt: ROUNDS times (default 50), a dev job holding node01's 4 GPUs
#    (a victim that exits on SIGTERM; GraceTime=0, PreemptMode=CANCEL,
#    no exempt time) is preempted by a prod job needing 4 GPUs.  Measured
#    from the sbatch of the prod job (client clock, just before it runs)
#    to the controller's log line of the prod job going RUNNING, broken
#    into: submit (sbatch started -> the controller records the job),
#    decision (-> victims chosen), signal (-> the
#    node logs the kill), exit (-> the controller records the victim's
#    end), start (-> prod RUNNING).  Daemon logs have millisecond stamps.
# 2. idle: with PENDING (default 10000) backtest jobs waiting behind a
#    job that holds the whole backtest node, ROUNDS prod jobs on the idle
#    prod node: sbatch -> prod RUNNING.  -n 0 skips this part.
#
# Prints every round and the median and p99 of each figure.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/${SLUICE_BUILD:-build}/bin
SB=$ROOT/${SLUICE_BUILD:-build}/bench/submit_bench
ROUNDS=50
PENDING=10000
while getopts r:n: o; do
    case $o in
    r) ROUNDS=$OPTARG ;;
    n) PENDING=$OPTARG ;;
    *) exit 2 ;;
    esac
done
PATH=$BIN:$PATH
DIR=
cleanup() {
    [ -n "$DIR" ] || return 0
    cd /
    sluice down --cancel --dir "$DIR/c" >/dev/null 2>&1
    rm -rf "$DIR"
}
trap cleanup EXIT

DIR=$(mktemp -d /tmp/sluice-pbench.XXXXXX)
cat >"$DIR/bench.conf" <<'EOF'
ClusterName=preempt-bench
SlurmctldHost=master
AuthType=auth/key
StateSaveLocation=/var/spool/sluice/ctld
SlurmdSpoolDir=/var/spool/sluice/d
KillWait=2
MaxJobCount=200000
GresTypes=gpu
NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:4 State=UNKNOWN
PartitionName=prod Nodes=node01 MaxTime=INFINITE State=UP Priority=100
PartitionName=dev Nodes=node01 MaxTime=INFINITE State=UP Priority=10 GraceTime=0
PartitionName=backtest Nodes=node02 Default=YES MaxTime=INFINITE State=UP Priority=50
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
EOF
out=$(sluice up -f "$DIR/bench.conf" --dir "$DIR/c" 2>"$DIR/up.err") ||
    { cat "$DIR/up.err" >&2; exit 1; }
eval "$out"
export SLUICE_CONF
mkdir -p "$DIR/w" && cd "$DIR/w" || exit 1
CLOG=$DIR/c/log/sluicectld.log
NLOG=$DIR/c/log/node01.log
cat >victim.sh <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
while :; do sleep 1; done
EOF
chmod +x victim.sh

now_ms() { date +%s%3N; }
# stamp LOG PATTERN: the ms epoch of the first log line matching PATTERN
# (log stamps are local time with milliseconds)
stamp() {
    local t
    t=$(grep -m1 -F -- "$2" "$1" | cut -d' ' -f1)
    [ -n "$t" ] && date -d "$t" +%s%3N || echo -1
}
wait_line() {
    local i=0
    while ! grep -qF -- "$2" "$1"; do
        i=$((i + 1))
        [ $i -gt 300 ] && return 1
        sleep 0.02
    done
}

echo "# $(date -u '+%F %T UTC'); $(nproc) CPUs; $(uname -srm); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# preempt: round total_ms submit_ms decision_ms signal_ms exit_ms start_ms"
: >"$DIR/preempt.txt"
for r in $(seq 1 "$ROUNDS"); do
    v=$(sbatch --parsable -p dev -J victim --gpus-per-node=4 -o /dev/null victim.sh)
    wait_line "$NLOG" "job=$v state=running" || { echo "victim $v did not start"; exit 1; }
    sleep 0.05
    t0=$(now_ms)
    p=$(sbatch --parsable -p prod -J prod --gpus-per-node=4 -o /dev/null --wrap true)
    wait_line "$CLOG" "job=$p state=RUNNING" || { echo "prod $p did not start"; exit 1; }
    wait_line "$CLOG" "job=$p state=COMPLETED" || true
    sub=$(stamp "$CLOG" "job=$p state=PENDING")
    dec=$(stamp "$CLOG" "job=$p preempts")
    sig=$(stamp "$NLOG" "job=$v kill reason=\"preempted\"")
    ext=$(stamp "$CLOG" "job=$v state=PREEMPTED")
    run=$(stamp "$CLOG" "job=$p state=RUNNING")
    echo "$r $((run - t0)) $((sub - t0)) $((dec - sub)) $((sig - dec))" \
        "$((ext - sig)) $((run - ext))" |
        tee -a "$DIR/preempt.txt"
done

summary() {
    python3 - "$1" "$2" <<'EOF'
import sys
rows = [list(map(int, l.split()[1:])) for l in open(sys.argv[1]) if l.strip()]
names = sys.argv[2].split()
for i, n in enumerate(names):
    v = sorted(r[i] for r in rows)
    p99 = v[min(len(v) - 1, int(round(0.99 * (len(v) - 1))))]
    print("%-10s median %6.1f ms   p99 %6d ms   (n=%d)" % (n, v[len(v) // 2] if len(v) % 2 else (v[len(v)//2-1] + v[len(v)//2]) / 2, p99, len(v)))
EOF
}
echo "# preempt summary"
summary "$DIR/preempt.txt" "total submit decision signal exit start"
[ "$PENDING" -gt 0 ] || exit 0

# --- idle prod node, PENDING backtest jobs waiting ------------------------
blk=$(sbatch --parsable -p backtest -c 16 -o /dev/null --wrap 'sleep 3600')
wait_line "$CLOG" "job=$blk state=RUNNING"
"$SB" -c 1 -n "$PENDING" -p backtest >"$DIR/submit.txt" 2>&1 ||
    { cat "$DIR/submit.txt"; exit 1; }
echo "# idle: $(squeue -h -t PD | wc -l) jobs pending; round total_ms"
: >"$DIR/idle.txt"
for r in $(seq 1 "$ROUNDS"); do
    t0=$(now_ms)
    p=$(sbatch --parsable -p prod -J prod -o /dev/null --wrap true)
    wait_line "$CLOG" "job=$p state=RUNNING" || { echo "prod $p did not start"; exit 1; }
    run=$(stamp "$CLOG" "job=$p state=RUNNING")
    sub=$(stamp "$CLOG" "job=$p state=PENDING")
    echo "$r $((run - t0)) $((run - sub))" | tee -a "$DIR/idle.txt"
    wait_line "$CLOG" "job=$p state=COMPLETED" || true
done
echo "# idle summary"
summary "$DIR/idle.txt" "total in_ctld"
