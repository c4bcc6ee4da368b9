#!/usr/bin/env bash
# Replay speed of sluice simulate (issue 20): a month of 100,000 jobs on
# 100 GPU nodes, replayed through the scheduler core (backfill,
# multifactor priority with fair-share and QOS, limits, partition_prio
# preemption of dev by prod); simulated jobs per second, median of ROUNDS
# runs.  The workload is a synthetic SWF made here (deterministic: awk
# with a fixed seed), on the seed's node shape (16 CPUs, 64000 MiB,
# 4 GPUs) and partitions (prod, backtest, dev, prod sharing dev's
# nodes).  With the traces beside the repository ($SLUICE_TRACES, by
# default ../shared/traces; read there, never copied), the whole
# DOST-ASTI and Lublin traces are timed too.
#
#   bench/sim_bench.sh     # ROUNDS=3 JOBS=100000 NODES=100 DAYS=30 SCALES="1 0.8"
#   SCALES=0.7 ROUNDS=1 bench/sim_bench.sh    # a month with a backlog
#   KEEP=1 bench/sim_bench.sh   # leaves /tmp/sluice-simbench.*: the SWF,
#                               # bench.conf, qos.txt, the last report
#
# Needs /usr/bin/time (apt-get install time) and /usr/bin/python3.
# Results: bench/RESULTS.md.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/${SLUICE_BUILD:-build}/bin
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-100000}
NODES=${NODES:-100}
DAYS=${DAYS:-30}
# --time-scale factors of the month: 1 as generated, 0.8 a busier one
SCALES=${SCALES:-1 0.8}
TRACES=${SLUICE_TRACES:-$(cd "$ROOT/.." && pwd)/shared/traces}

die() {
    echo "sim_bench: $*" >&2
    exit 1
}

[ -x "$BIN/sluice" ] || die "build first: make"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
[ -x /usr/bin/python3 ] || die "needs /usr/bin/python3"
[ "$NODES" -ge 10 ] && [ "$NODES" -le 999 ] || die "NODES: 10 to 999"
W=$(mktemp -d /tmp/sluice-simbench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

# The cluster: 5% of the nodes prod's own, 60% backtest's, the rest
# dev's, which prod shares (so that prod's bursts preempt dev).
p=$((NODES / 20))
b=$((NODES * 3 / 5))
r() { printf 'node[%03d-%03d]' "$1" "$2"; }
cat >"$W/bench.conf" <<EOF
ClusterName=simbench
SlurmctldHost=master
EnforcePartLimits=ALL
GresTypes=gpu
NodeName=$(r 1 "$NODES") CPUs=16 RealMemory=64000 Gres=gpu:4
PartitionName=prod Nodes=$(r 1 "$p"),$(r $((p + b + 1)) "$NODES") MaxTime=INFINITE State=UP Priority=100
PartitionName=backtest Nodes=$(r $((p + 1)) $((p + b))) Default=YES MaxTime=72:00:00 DefaultTime=24:00:00 State=UP Priority=50
PartitionName=dev Nodes=$(r $((p + b + 1)) "$NODES") MaxTime=24:00:00 DefaultTime=04:00:00 State=UP Priority=10
SchedulerType=sched/backfill
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightPartition=1000
PriorityWeightQOS=2000
PriorityMaxAge=7-0
PriorityDecayHalfLife=7-0
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PreemptExemptTime=00:05:00
AccountingStorageEnforce=associations,limits,qos
EOF
cat >"$W/qos.txt" <<'EOF'
QOS - 'prod_qos':Priority=1000
QOS - 'backtest_qos':Priority=500:MaxJobsPerUser=200
QOS - 'dev_qos':Priority=100:MaxJobsPerUser=20
EOF
MAP=0=prod:gpu:qos=prod_qos,1=backtest:gpu:qos=backtest_qos,2=dev:gpu:qos=dev_qos

# The workload: JOBS jobs over DAYS days, submitted as a Poisson process
# with a daily cycle (twice as many by day as by night); 10% prod, 60%
# backtest, 30% dev; sizes from 1 CPU to 4 nodes (a quarter of a node is
# one GPU), log-uniform run times (prod and dev short, backtests up to
# six hours) and requested times of run time x U(1, 5) plus a minute,
# within the partition's MaxTime; 64 users in 8 groups.  The replay keeps
# about two thirds of the GPUs busy (66%), with queues at the daily
# peaks.
awk -v jobs="$JOBS" -v days="$DAYS" -v nodes="$NODES" 'BEGIN {
    srand(20261206)
    span = days * 86400
    printf "; Version: 2.2\n; Computer: sluice sim_bench (synthetic)\n"
    printf "; UnixStartTime: 1796083200\n; MaxNodes: %d\n; MaxProcs: %d\n", nodes, nodes * 16
    printf "; Partition: 0 prod, 1 backtest, 2 dev\n"
    t = 0
    for (i = 1; i <= jobs; i++) {
        # a daily cycle: the rate by day twice the rate by night
        day = (t % 86400) >= 8 * 3600 && (t % 86400) < 20 * 3600
        rate = jobs / span * (day ? 4.0 / 3 : 2.0 / 3)
        t += -log(1 - rand()) / rate
        r = rand()
        part = r < 0.10 ? 0 : r < 0.70 ? 1 : 2
        s = rand()
        procs = s < 0.40 ? 1 : s < 0.65 ? 4 : s < 0.85 ? 8 : s < 0.95 ? 16 : s < 0.99 ? 32 : 64
        if (part == 0) { lo = 30; hi = 4 * 3600; max = 7 * 86400 }
        else if (part == 1) { lo = 60; hi = 6 * 3600; max = 72 * 3600 }
        else { lo = 10; hi = 8 * 3600; max = 24 * 3600 }
        run = int(exp(log(lo) + rand() * (log(hi) - log(lo))))
        req = int(run * (1 + 4 * rand())) + 60
        if (req > max) req = max
        if (run > req) run = req
        user = int(rand() * 64)
        printf "%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 -1 %d -1 -1\n",
            i, int(t), run, procs, procs, req, user, user % 8, part
    }
}' >"$W/month.swf" || die "awk failed"

# run_once ARGS...: one replay; prints "wall_s cpu_s jobs passes" (wall
# and user+system time from /usr/bin/time) and leaves the report in
# $W/out.json.
run_once() {
    /usr/bin/time -f '%e %U %S' -o "$W/time" \
        "$BIN/sluice" simulate "$@" --json >"$W/out.json" 2>"$W/err" ||
        die "sluice simulate $* failed: $(tail -3 "$W/err")"
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w, u, s = open(sys.argv[2]).read().split()[-3:]
print("%.2f %.2f %d %d" % (float(w), float(u) + float(s), d["all"]["jobs"],
      d["passes"]))' "$W/out.json" "$W/time"
}

# bench NAME ARGS...: ROUNDS replays; the median wall time, simulated
# jobs per second of it, the median CPU time, and what the replay did
# (so that a fast run that did nothing shows).
bench() {
    local name=$1 i line cpu
    shift
    : >"$W/runs"
    for i in $(seq "$ROUNDS"); do
        line=$(run_once "$@")
        echo "$line" >>"$W/runs"
        echo "  run $i: $line (wall_s cpu_s jobs passes)"
    done
    cpu=$(sort -k2 -n "$W/runs" | awk '{c[NR] = $2}
        END {printf "%.2f", (NR % 2) ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2}')
    sort -n "$W/runs" | awk -v name="$name" -v cpu="$cpu" '{w[NR] = $1; j = $3; p = $4}
        END {
            m = (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
            printf "%s: %d jobs, %d passes: median %.2f s wall (min %.2f, max %.2f), %.2f s CPU = %.0f simulated jobs/s\n",
                name, j, p, m, w[1], w[NR], cpu, j / m
        }'
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["all"]
print("  started %d, never %d, refused %d, preemptions %d (%.1f GPU-hours lost), "
      "wait median %.0f s, p95 %.0f s, max %.0f s; GPU utilisation %.1f%%; "
      "%.1f days simulated" % (
      a["started"], a["never_started"], a["rejected"], a["preemptions"], a["gpu_hours_lost"],
      a["wait_s"]["median"], a["wait_s"]["p95"], a["wait_s"]["max"],
      100 * (a["gpu_utilisation"] or 0), (d["end"] - d["start"]) / 86400.0))' \
        "$W/out.json"
}

echo "# $(date -u) $(uname -m) nproc=$(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: ROUNDS=$ROUNDS JOBS=$JOBS NODES=$NODES DAYS=$DAYS SCALES=\"$SCALES\" bench/sim_bench.sh"
echo "# workload: $(grep -vc '^;' "$W/month.swf") jobs over $DAYS days on $NODES nodes" \
    "(16 CPUs, 4 GPUs each); configuration:"
sed 's/^/#   /' "$W/bench.conf"
echo "# qos.txt:"
sed 's/^/#   /' "$W/qos.txt"
for scale in $SCALES; do
    if [ "$scale" = 1 ]; then
        echo "# sluice simulate -w month.swf -c bench.conf --qos qos.txt --map $MAP --json"
        bench "synthetic month" -w "$W/month.swf" -c "$W/bench.conf" \
            --qos "$W/qos.txt" --map "$MAP"
    else
        echo "# sluice simulate -w month.swf -c bench.conf --qos qos.txt --map $MAP --time-scale $scale --json"
        bench "synthetic month, submissions x$(awk -v s="$scale" 'BEGIN {printf "%.2f", 1 / s}') as dense" \
            -w "$W/month.swf" -c "$W/bench.conf" --qos "$W/qos.txt" --map "$MAP" \
            --time-scale "$scale"
    fi
done

DOST=$TRACES/DOST-ASTI_COARE-Saliksik-2020-cln.swf
LUBLIN=$TRACES/lublin_256.swf
if [ -r "$DOST" ]; then
    echo "# sluice simulate -w $DOST -c bench.conf --map 0=prod:gpu,1=backtest,2=dev:gpu,3=backtest --json"
    bench "DOST-ASTI, whole" -w "$DOST" -c "$W/bench.conf" \
        --map 0=prod:gpu,1=backtest,2=dev:gpu,3=backtest
fi
if [ -r "$LUBLIN" ]; then
    echo "# sluice simulate -w $LUBLIN -c bench.conf --map '*=backtest' --json"
    bench "Lublin 256, whole" -w "$LUBLIN" -c "$W/bench.conf" --map '*=backtest'
fi
