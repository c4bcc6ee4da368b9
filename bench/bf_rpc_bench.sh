#!/usr/bin/env bash
# Do RPCs stay answered while backfill works through a long queue?  On a
# fresh local cluster (bench/cluster.conf: four 16-CPU 4-GPU nodes), four
# jobs take every CPU and GPU for two hours, QUEUE (default 50,000) jobs of
# varied shapes and time limits queue behind them (submit_bench --vary),
# and then PROBE (1,000) more are submitted one at a time on one
# connection: their SUBMIT reply latency (p50, p99) is what a user feels
# while the scheduler runs.  Each submission is an event, so each starts a
# pass.  Measured with SchedulerType=sched/builtin (no backfill), with
# sched/backfill (an event restarts the cycle) and with
# sched/backfill + bf_continue (the cycle resumes); sdiag's figures follow
# each run.  Not part of `make check`.
#
#   bench/bf_rpc_bench.sh            (QUEUE=50000 PROBE=1000 by default)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
BIN=$ROOT/$BUILD/bin
SB=$ROOT/$BUILD/bench/submit_bench
QUEUE=${QUEUE:-50000}
PROBE=${PROBE:-1000}
BENCH_NAME=bf_rpc_bench
BENCH_TMP=bfbench
. "$ROOT/bench/lib.sh"

# block: four jobs that hold every CPU and GPU for two hours.
block() {
    local i n
    for i in 1 2 3 4; do
        "$BIN/sbatch" --parsable -c 16 --gres=gpu:4 -t 120 \
            --wrap 'sleep 7200' >/dev/null || die "sbatch (blocker) failed"
    done
    for i in $(seq 1 100); do
        n=$("$BIN/squeue" -h -t R -o %i | wc -l)
        [ "$n" -ge 4 ] && return 0
        sleep 0.2
    done
    die "the blockers did not start"
}

# one LABEL LINES...: one measurement on a fresh cluster.
one() {
    local label=$1 fill probe
    shift
    cluster_up "$@"
    block
    fill=$("$SB" -c 4 -n $((QUEUE / 4)) --vary) || die "fill failed"
    sleep 2
    probe=$("$SB" -c 1 -n "$PROBE" --vary) || die "probe failed"
    echo "$label: queue=$QUEUE fill: $fill"
    echo "$label: probe: $probe"
    "$BIN/sluice" diag --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("scheduler", d)
m, b = s.get("main", {}), s.get("backfill", {})
print("  sdiag: passes=%s mean_pass_us=%.0f max_pass_us=%s bf_cycles=%s "
      "bf_slices=%s max_cycle_us=%s last_depth=%s" % (m.get("passes"),
      m.get("mean_us", 0), m.get("max_us"), b.get("cycles"),
      b.get("slices"), b.get("max_cycle_us"), b.get("last_depth")))' ||
        echo "  sdiag: (unreadable)"
    cluster_down
}

[ -x "$SB" ] || die "$SB missing: make first"
echo "# $(date -u) $(uname -n) nproc=$(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg)"
one builtin "SchedulerType=sched/builtin"
one backfill "SchedulerType=sched/backfill"
one backfill+bf_continue "SchedulerType=sched/backfill" \
    "SchedulerParameters=bf_continue"
