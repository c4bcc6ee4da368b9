#!/usr/bin/env bash
# Job steps: how fast srun starts a step, and how much output it carries.
# On a fresh local cluster (bench/cluster.conf: four 16-CPU 4-GPU nodes),
# one job holds all four nodes; then
#   launch:  ROUNDS (default 50) times `srun -N 4 -n 64 true`, timed from
#            srun's start to its exit (every task started and exited):
#            median and p99;
#   output:  `srun -n 4` of tasks writing MIB (default 1024) MiB in all
#            to stdout, redirected to a file: MB/s; and the same bytes
#            through a plain pipe into a file (the ceiling on this machine).
# Not part of `make check`.
#
#   bench/step_bench.sh                (ROUNDS=50 MIB=1024 by default)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
BIN=$ROOT/$BUILD/bin
ROUNDS=${ROUNDS:-50}
MIB=${MIB:-1024}
BENCH_NAME=step_bench
BENCH_TMP=stepbench
. "$ROOT/bench/lib.sh"

cluster_up
PATH=$BIN:$PATH

job=$(sbatch --parsable -N 4 --ntasks-per-node=16 -o /dev/null --wrap 'sleep 3600') ||
    die "sbatch failed"
for _ in $(seq 1 200); do
    [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break
    sleep 0.1
done
[ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || die "job $job is not running"
export SLURM_JOB_ID=$job

# stats FILE: median and p99 of the numbers in FILE (one a line).
stats() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        p = v[int(NR * 0.99 + 0.999)]
        printf "median %.1f ms  p99 %.1f ms  (n=%d, min %.1f, max %.1f)\n", m, p, NR, v[1], v[NR]
    }'
}

echo "== step launch: srun -N 4 -n 64 true, $ROUNDS rounds"
: >launch.ms
for _ in $(seq 1 "$ROUNDS"); do
    t0=$(date +%s%N)
    srun -N 4 -n 64 true || die "srun -N 4 -n 64 true failed"
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 ))" | awk '{ printf "%.3f\n", $1 / 1000 }' >>launch.ms
done
echo "launch: $(stats launch.ms)"

echo "== output: $MIB MiB from 4 tasks through srun into a file"
per=$((MIB / 4))
t0=$(date +%s%N)
line=$(printf '%063d' 0)
srun -n 4 -N 1 --overlap bash -c "yes $line | head -c ${per}M" \
    >out.srun || die "srun of the output test failed"
t1=$(date +%s%N)
bytes=$(stat -c %s out.srun)
srun_mbs=$(awk -v b="$bytes" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", b / (ns / 1e9) / 1e6 }')
rm -f out.srun
t0=$(date +%s%N)
for _ in 1 2 3 4; do
    yes "$line" | head -c "${per}M" &
done >out.pipe
wait
t1=$(date +%s%N)
pbytes=$(stat -c %s out.pipe)
pipe_mbs=$(awk -v b="$pbytes" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", b / (ns / 1e9) / 1e6 }')
rm -f out.pipe
echo "output: srun $srun_mbs MB/s ($bytes bytes)  plain pipe $pipe_mbs MB/s ($pbytes bytes)"
echo "command: ROUNDS=$ROUNDS MIB=$MIB bench/step_bench.sh"
