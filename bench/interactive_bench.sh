#!/usr/bin/env bash
# Interactive turnaround on an idle cluster: how long a user waits for a
# one-command allocation, from the command's start to its exit.
# On a fresh local cluster (bench/cluster.conf: four 16-CPU 4-GPU nodes,
# plus a dev partition over them), ROUNDS (default 50) times each of
#   srun:    `srun -p dev true`   (no job: allocate, launch step 0, exit,
#            release; the job ends with its step)
#   salloc:  `salloc -p dev true` (allocate, run `true` locally, relinquish)
# median and p99 in ms.  The issue's aim: median under 50 ms (Slurm 22.05
# takes about 0.6 s just to start a batch job on this kind of machine).
# Not part of `make check`.
#
#   bench/interactive_bench.sh         (ROUNDS=50 by default)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
BIN=$ROOT/$BUILD/bin
ROUNDS=${ROUNDS:-50}
BENCH_NAME=interactive_bench
BENCH_TMP=interbench
. "$ROOT/bench/lib.sh"

cluster_up 'PartitionName=dev Nodes=node[01-04] MaxTime=04:00:00 State=UP'
PATH=$BIN:$PATH
unset SLURM_JOB_ID SLURM_JOBID SLUICE_JOB_ID

# stats FILE: median and p99 of the numbers in FILE (one a line).
stats() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        p = v[int(NR * 0.99 + 0.999)]
        printf "median %.1f ms  p99 %.1f ms  (n=%d, min %.1f, max %.1f)\n", m, p, NR, v[1], v[NR]
    }'
}

# timed NAME CMD...: run CMD ROUNDS times (stdin from /dev/null, output
# dropped), each timed from its start to its exit, into NAME.ms.
timed() {
    local name=$1 t0 t1
    shift
    : >"$name.ms"
    for _ in $(seq 1 "$ROUNDS"); do
        t0=$(date +%s%N)
        "$@" </dev/null >/dev/null 2>"$name.err" || {
            cat "$name.err" >&2
            die "$* failed"
        }
        t1=$(date +%s%N)
        echo "$(((t1 - t0) / 1000))" | awk '{ printf "%.3f\n", $1 / 1000 }' >>"$name.ms"
    done
}

# one warm-up of each, so that the first round does not pay for page-ins
srun -p dev true </dev/null >/dev/null 2>&1 || die "srun -p dev true failed"
salloc -p dev true </dev/null >/dev/null 2>&1 || die "salloc -p dev true failed"

echo "== srun -p dev true (no job: allocate, launch, exit, release), $ROUNDS rounds"
timed srun srun -p dev true
echo "srun: $(stats srun.ms)"
echo "== salloc -p dev true (allocate, run, relinquish), $ROUNDS rounds"
timed salloc salloc -p dev true
echo "salloc: $(stats salloc.ms)"
# every allocation ended, none left behind
left=$(squeue -h | wc -l)
[ "$left" -eq 0 ] || echo "warning: $left jobs still in the queue" >&2
echo "states: $(sacct -n -X -P -o State | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
echo "command: ROUNDS=$ROUNDS bench/interactive_bench.sh"
