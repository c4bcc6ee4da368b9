#!/usr/bin/env bash
# Sluice benchmarks (not part of `make check`): each starts a fresh local
# cluster from bench/cluster.conf with `sluice up` in a temporary directory
# (four nodes, durable state: SQLite WAL, synchronous=FULL, group commit),
# runs RUNS times, prints every run with its exact command and the median.
#
#   bench/run.sh [-r RUNS] [submit|cli|jobs|memory|latency]...
#                                          (default: all five)
#
#   submit  persistent connections: 1, 8, 32 clients, unix socket and TCP
#           with auth/key (build/bench/submit_bench, held jobs)
#   cli     one sbatch process per submission, 1 and 8 at a time (held)
#   jobs    1,000 trivial jobs (true): first submission to last completion,
#           submitted by one sbatch each, then on one persistent connection
#   memory  sluicectld's VmRSS idle, with 10,000 and 100,000 pending jobs
#   latency submit -> the job's first instruction on an idle cluster, one
#           job at a time, LATENCY_JOBS (200) jobs (build/bench/start_latency)
#
# Environment: SLUICE_BUILD (default build), SUBMIT_JOBS (jobs per submit
# measurement, default 20000), CLI_JOBS (default 1000), BENCH_JOBS (1000),
# CLI_BIN (the sbatch measured by cli and jobs; default BUILD/bin/sbatch).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
BIN=$ROOT/$BUILD/bin
SB=$ROOT/$BUILD/bench/submit_bench
RUNS=3
SUBMIT_JOBS=${SUBMIT_JOBS:-20000}
CLI_JOBS=${CLI_JOBS:-1000}
BENCH_JOBS=${BENCH_JOBS:-1000}
LATENCY_JOBS=${LATENCY_JOBS:-200}
CLI_BIN=${CLI_BIN:-$BIN/sbatch}
BENCH_NAME=bench
BENCH_TMP=bench
. "$ROOT/bench/lib.sh"

ctld_pid() {
    cat "$DIR/pids/sluicectld.pid"
}

# ctld_cpu_ms: CPU time (user and system) the controller has used.
ctld_cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' \
        "/proc/$(ctld_pid)/stat"
}

# summary LABEL LINES: medians of the submit_bench lines of the runs.
summary() {
    printf 'median %-20s jobs_per_s=%s p50_ms=%s p99_ms=%s client_cpu_ms=%s ctld_cpu_ms=%s\n' \
        "$1" "$(field jobs_per_s "$2" | median)" "$(field p50_ms "$2" | median)" \
        "$(field p99_ms "$2" | median)" \
        "$(field client_cpu_ms_per_job "$2" | median)" \
        "$(field ctld_cpu_ms_per_job "$2" | median)"
}

# measure LABEL ARGS...: RUNS runs of submit_bench ARGS, each on a fresh
# cluster.
measure() {
    local label=$1 lines="" line c0 c1
    shift
    for r in $(seq "$RUNS"); do
        cluster_up
        echo "+ SLUICE_CONF=\$DIR/sluice.conf build/bench/submit_bench $*"
        c0=$(ctld_cpu_ms)
        line=$("$SB" "$@") || die "submit_bench $* failed"
        c1=$(ctld_cpu_ms)
        line="$line ctld_cpu_ms_per_job=$(awk -v a="$c0" -v b="$c1" \
            -v n="$(field jobs "$line")" 'BEGIN { printf "%.3f", (b - a) / n }')"
        echo "  run $r: $line load=$(load | cut -d" " -f1)"
        lines="$lines$line"$'\n'
        cluster_down
    done
    summary "$label" "$lines"
}

bench_submit() {
    echo "== (a) submissions on persistent connections (held jobs); load $(load)"
    for t in unix tcp; do
        for c in 1 8 32; do
            local args=(-c "$c" -n $((SUBMIT_JOBS / c)) --hold)
            [ "$t" = tcp ] && args+=(--tcp)
            measure "$t clients=$c" "${args[@]}"
        done
    done
}

bench_cli() {
    echo "== (a) one sbatch process per submission (held jobs); load $(load)"
    for c in 1 8; do
        measure "sbatch clients=$c" -c "$c" -n $((CLI_JOBS / c)) --hold \
            --cli "$CLI_BIN"
    done
    # The floor: the same harness running /bin/true (which ignores the
    # arguments) shows what starting any process costs on this machine.
    for c in 1 8; do
        measure "/bin/true clients=$c" -c "$c" -n $((CLI_JOBS / c)) --hold \
            --cli /bin/true
    done
}

# All BENCH_JOBS finished?  (squeue lists none pending, running or
# completing.)
all_done() {
    [ -z "$("$BIN/squeue" -h -t PD,R,CG -o %i 2>/dev/null | head -1)" ]
}

# submit_jobs HOW: BENCH_JOBS jobs running true, by one sbatch process
# each (HOW=sbatch, from one shell) or on one persistent connection.
submit_jobs() {
    if [ "$1" = sbatch ]; then
        for _ in $(seq "$BENCH_JOBS"); do
            "$CLI_BIN" --wrap true >/dev/null || die "sbatch failed"
        done
    else
        "$SB" -c 1 -n "$BENCH_JOBS" >/dev/null || die "submit_bench failed"
    fi
}

bench_jobs() {
    local secs t0 t1 s how
    for how in sbatch persistent; do
        secs=""
        echo "== (b) $BENCH_JOBS trivial jobs (true), submitted by $how; load $(load)"
        for r in $(seq "$RUNS"); do
            cluster_up
            if [ "$how" = sbatch ]; then
                echo "+ for i in 1..$BENCH_JOBS: sbatch --wrap true; then poll squeue -t PD,R,CG every 0.1 s until empty"
            else
                echo "+ build/bench/submit_bench -c 1 -n $BENCH_JOBS; then poll squeue -t PD,R,CG every 0.1 s until empty"
            fi
            t0=$(now_s)
            submit_jobs "$how"
            t1=$(now_s)
            s=$(echo "$t1 - $t0" | bc)
            until all_done; do sleep 0.1; done
            t1=$(now_s)
            secs="$secs$(echo "$t1 - $t0" | bc)"$'\n'
            echo "  run $r: submitted in ${s}s, all ended after $(echo "$t1 - $t0" | bc)s;" \
                "states: $("$BIN/squeue" -h -t all -o %T | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
                "nodes: $("$BIN/squeue" -h -t all -o %N | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
            cluster_down
        done
        echo "median $BENCH_JOBS jobs by $how: first submission to last completion $(printf '%s' "$secs" | median) s"
    done
}

rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$(ctld_pid)/status"
}

bench_memory() {
    local idle k10 k100 lines="" i0 a b
    echo "== (c) sluicectld resident memory (VmRSS) with pending (held) jobs; load $(load)"
    for r in $(seq "$RUNS"); do
        cluster_up
        sleep 1
        i0=$(rss_kib)
        echo "+ build/bench/submit_bench -c 8 -n 1250 --hold   (10,000 jobs)"
        "$SB" -c 8 -n 1250 --hold >/dev/null || die "submit_bench failed"
        sleep 1
        k10=$(rss_kib)
        echo "+ build/bench/submit_bench -c 8 -n 11250 --hold  (90,000 more)"
        "$SB" -c 8 -n 11250 --hold >/dev/null || die "submit_bench failed"
        sleep 1
        k100=$(rss_kib)
        a=$(((k100 - i0) * 1024 / 100000))
        b=$(((k100 - k10) * 1024 / 90000))
        echo "  run $r: idle=${i0}KiB 10k=${k10}KiB 100k=${k100}KiB" \
            "per_job=${a}B (100k vs idle) marginal=${b}B (100k vs 10k)" \
            "pending=$("$BIN/squeue" -h -t PD -o %i | wc -l)"
        lines="${lines}idle=$i0 k10=$k10 k100=$k100 per_job=$a marginal=$b"$'\n'
        cluster_down
    done
    printf 'median idle_kib=%s k10_kib=%s k100_kib=%s per_job_bytes=%s marginal_bytes=%s\n' \
        "$(field idle "$lines" | median)" "$(field k10 "$lines" | median)" \
        "$(field k100 "$lines" | median)" "$(field per_job "$lines" | median)" \
        "$(field marginal "$lines" | median)"
}

bench_latency() {
    local lines="" line
    echo "== (d) start latency: submit to the job's first instruction, one job at a time; load $(load)"
    for r in $(seq "$RUNS"); do
        cluster_up
        echo "+ SLUICE_CONF=\$DIR/sluice.conf build/bench/start_latency -n $LATENCY_JOBS"
        line=$("$ROOT/$BUILD/bench/start_latency" -n "$LATENCY_JOBS") ||
            die "start_latency failed"
        echo "  run $r: $line load=$(load | cut -d" " -f1)"
        lines="$lines$line"$'\n'
        cluster_down
    done
    printf 'median start_p50_ms=%s start_p99_ms=%s submit_reply_p50_ms=%s fork_exec_p50_ms=%s\n' \
        "$(field start_p50_ms "$lines" | median)" \
        "$(field start_p99_ms "$lines" | median)" \
        "$(field submit_reply_p50_ms "$lines" | median)" \
        "$(field fork_exec_p50_ms "$lines" | median)"
}

while getopts r: opt; do
    case $opt in
    r) RUNS=$OPTARG ;;
    *) die "usage: bench/run.sh [-r RUNS] [submit|cli|jobs|memory|latency]..." ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- submit cli jobs memory latency
for b in sluice sluicectld sluiced sbatch squeue; do
    [ -x "$BIN/$b" ] || die "$BIN/$b is not built (make)"
done
[ -x "$SB" ] || die "$SB is not built (make)"
command -v bc >/dev/null || die "bc is needed"
echo "# $(date); $(nproc) CPUs; load: $(load)"
for b in "$@"; do
    case $b in
    submit | cli | jobs | memory | latency) "bench_$b" ;;
    *) die "unknown benchmark $b" ;;
    esac
done
echo "# done $(date); load: $(load)"
