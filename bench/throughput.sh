#!/usr/bin/env bash
# Throughput of trivial jobs against the machine's floor (issue 19; not
# part of `make check`).  Each measurement starts a fresh local cluster
# from bench/cluster_tput.conf (two 16-CPU nodes, durable state) with
# `sluice up`, runs RUNS times, prints every run with its exact command,
# the medians and the load average.
#
#   bench/throughput.sh [-r RUNS] [--big] [floor|array|single|cli|drain|stages|offcpu|queue]...
#                                          (default: the first four)
#
#   floor   1,000 sequential posix_spawns of a "#!/bin/sh" script from one
#           C process, each waited for (build/bench/spawn_floor); also run
#           inside array and single, so that each ratio has its own floor
#   array   sbatch --array=0-999 --wrap=true: submission to the last task
#           ended (squeue polled every 0.1 s), tasks/s, ratio to the floor;
#           --big also 10,000 tasks
#   single  1,000 single jobs (true) from one persistent-connection
#           submitter (build/bench/submit_bench -c 1) to all ended, jobs/s
#   cli     one process per call in a shell loop, CLI_CALLS (500) calls:
#           sbatch -H --wrap true, /bin/true and a static "hello" with the
#           same arguments; ms per call, sbatch's ratio to each and the
#           controller's CPU per submission; CLI_HELD (0) held jobs are
#           queued first (a user's loop over a long queue)
#   drain   (not in the default set) a 10,000-task array draining in
#           partition all while, on the same nodes, DRAIN_PROD (100) jobs
#           of a higher-tier partition prod start one at a time
#           (build/bench/start_latency -p prod: submit to the job's first
#           instruction), then DRAIN_CALLS (100) each of squeue and
#           sbatch -H timed one by one, then the same two requests on one
#           open connection (submit_bench --squeue, --hold: the
#           controller's answer without a client process's start), then
#           /bin/true timed as the commands were (what starting any
#           process costs on the machine the array keeps busy); checks
#           that the array was still draining when the last was timed
#   stages  (not in the default set) where a task's launch goes: the
#           1,000-task array (--big: also 10,000) on node daemons at
#           SlurmdDebug=debug, then p50/p90/p99 (ms) of each stage of
#           every launch_us line of the node logs (docs/noded.md: spool
#           written and supervisor forked, supervisor running, pid file,
#           cgroup, the job's exec, the report read; total); the debug
#           lines cost a little, so its secs are not the array's.  With
#           DRAIN_STAGES=1, drain prints the prod jobs' stages the same way
#   offcpu  (not in the default set; needs perf, as root) where a task's
#           launch waits: the 1,000-task array under perf record -e
#           sched:sched_switch -a, then bench/offcpu.py: the seconds the
#           node daemons and their supervisors (and jobs before exec)
#           spent off the CPU, by the kernel function they waited in
#   queue   (not in the default set) squeue over a long queue: QUEUE_HELD
#           (5,000) held jobs (submit_bench --hold), then QUEUE_CALLS (5)
#           squeue calls, each timed with the controller's CPU for it,
#           and squeue's own CPU
#
# Environment: SLUICE_BUILD (default build; an absolute path too, to
# measure a baseline's binaries; drain's and queue's submit_bench is
# always this checkout's build/bench/submit_bench, a client), CLI_CALLS
# (500), CLI_HELD (0), DRAIN_PROD (100), DRAIN_CALLS (100), QUEUE_HELD
# (5000), QUEUE_CALLS (5), DRAIN_STAGES (0), BENCH_TMPDIR (default /tmp: where each
# cluster's directory is made, its state, spools and the jobs' output; to
# measure another file system, e.g. a journalled ext4 or a tmpfs).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
case $BUILD in
/*) BDIR=$BUILD ;;
*) BDIR=$ROOT/$BUILD ;;
esac
BIN=$BDIR/bin
BB=$BDIR/bench
PROBE=$ROOT/build/bench/submit_bench
RUNS=3
BIG=0
CLI_CALLS=${CLI_CALLS:-500}
CLI_HELD=${CLI_HELD:-0}
DRAIN_PROD=${DRAIN_PROD:-100}
DRAIN_CALLS=${DRAIN_CALLS:-100}
QUEUE_HELD=${QUEUE_HELD:-5000}
QUEUE_CALLS=${QUEUE_CALLS:-5}
BENCH_NAME=throughput
BENCH_TMP=tput
BENCH_CONF=$ROOT/bench/cluster_tput.conf
. "$ROOT/bench/lib.sh"

# calc EXPR: bc with 3 decimals.
calc() {
    echo "scale=3; $1" | bc
}

# cpu_ms PIDFILE: CPU time (user and system) the daemon has used, with
# that of its waited-for children: a node's supervisors (which waited for
# their jobs) are sluiced's.
cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15 + $16 + $17) * 1000 / hz }' \
        "/proc/$(cat "$1")/stat"
}

# floor_s N: the floor's seconds for N spawns (the line printed too);
# FLOOR_CPU: its CPU ms per spawn.
floor_s() {
    local line
    echo "+ build/bench/spawn_floor -n $1" >&2
    line=$("$BB/spawn_floor" -n "$1" -d "${DIR:-/tmp}") || die "spawn_floor failed"
    echo "  floor: $line" >&2
    FLOOR_CPU=$(field cpu_ms_per_spawn "$line")
    field secs "$line"
}

all_done() {
    [ -z "$("$BIN/squeue" -h -t PD,R,CG -o %i 2>/dev/null | head -1)" ]
}

# daemons_cpu: "ctld_ms node01_ms node02_ms".
daemons_cpu() {
    echo "$(cpu_ms "$DIR/pids/sluicectld.pid") $(cpu_ms "$DIR/pids/node01.pid")" \
        "$(cpu_ms "$DIR/pids/node02.pid")"
}

# run_jobs N HOW: one run; RESULT="secs=S floor=F ratio=R per_s=P ...".
# (Not in a command substitution: the EXIT trap must see DIR.)
run_jobs() {
    local n=$1 how=$2 t0 t1 secs fl c0 c1 states
    cluster_up
    floor_s "$n" >"$DIR/floor"
    fl=$(cat "$DIR/floor")
    c0=$(daemons_cpu)
    if [ "$how" = array ]; then
        echo "+ sbatch --array=0-$((n - 1)) --wrap=true; poll squeue -t PD,R,CG every 0.1 s until empty" >&2
        t0=$(now_s)
        "$BIN/sbatch" --array=0-$((n - 1)) --wrap=true >/dev/null || die "sbatch failed"
    else
        echo "+ build/bench/submit_bench -c 1 -n $n; poll squeue -t PD,R,CG every 0.1 s until empty" >&2
        t0=$(now_s)
        "$BB/submit_bench" -c 1 -n "$n" >/dev/null || die "submit_bench failed"
    fi
    until all_done; do sleep 0.1; done
    t1=$(now_s)
    c1=$(daemons_cpu)
    secs=$(calc "$t1 - $t0")
    states=$("$BIN/sacct" -X -n -P -o State 2>/dev/null | sort | uniq -c |
        awk '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1 }')
    RESULT="secs=$secs floor=$fl ratio=$(calc "$secs / $fl")"
    RESULT="$RESULT per_s=$(calc "$n / $secs") floor_rate=$(calc "$n / $fl")"
    RESULT="$RESULT cpu_ms_per_job=$(echo "$c0 $c1" | awk -v n="$n" '{
            printf "ctld:%.2f,node01:%.2f,node02:%.2f", ($4 - $1) / n, ($5 - $2) / n, ($6 - $3) / n }')"
    # all the cluster's CPU per task (the daemons, supervisors and jobs)
    # against the floor's per spawn: less sensitive to other work
    RESULT="$RESULT cpu_ratio=$(echo "$c0 $c1" | awk -v n="$n" -v f="$FLOOR_CPU" '{
            printf "%.2f", ($4 + $5 + $6 - $1 - $2 - $3) / n / f }')"
    RESULT="$RESULT states=$states"
    cluster_down
}

# bench_jobs N HOW LABEL
bench_jobs() {
    local lines="" line r
    echo "== $3; load $(load)"
    for r in $(seq "$RUNS"); do
        run_jobs "$1" "$2"
        line=$RESULT
        echo "  run $r: $line load=$(load | cut -d' ' -f1)"
        lines="$lines$line"$'\n'
    done
    echo "median $3: $(medians "$lines" secs floor ratio per_s cpu_ratio)"
}

bench_floor() {
    local lines="" r
    echo "== floor: 1,000 sequential posix_spawns of a #!/bin/sh script; load $(load)"
    for r in $(seq "$RUNS"); do
        lines="$lines$(floor_s 1000 2>&1 >/dev/null | tail -1)"$'\n'
    done
    printf '%s' "$lines"
    echo "median floor: secs=$(field secs "$lines" | median)"
}

bench_array() {
    bench_jobs 1000 array "array of 1,000 tasks (sbatch --array=0-999 --wrap=true)"
    [ "$BIG" = 1 ] &&
        bench_jobs 10000 array "array of 10,000 tasks (sbatch --array=0-9999 --wrap=true)"
    return 0
}

bench_single() {
    bench_jobs 1000 single "1,000 single jobs, one persistent connection"
}

# loop_ms CMD...: ms per call of CMD -H --wrap true in a shell loop.
loop_ms() {
    local t0 t1 i
    t0=$(now_s)
    for ((i = 0; i < CLI_CALLS; i++)); do
        "$@" -H --wrap true >/dev/null || die "$1 failed"
    done
    t1=$(now_s)
    calc "($t1 - $t0) * 1000 / $CLI_CALLS"
}

# ctld_cpu_ns: the controller's CPU time so far, in ns (schedstat: finer
# than the clock ticks of /proc/PID/stat).
ctld_cpu_ns() {
    cut -d' ' -f1 "/proc/$(cat "$DIR/pids/sluicectld.pid")/schedstat"
}

bench_cli() {
    local lines="" r s t h c0 c1 c line
    echo "== one process per call in a shell loop, $CLI_CALLS calls each, $CLI_HELD held jobs queued first; load $(load)"
    for r in $(seq "$RUNS"); do
        cluster_up
        if [ "$CLI_HELD" -gt 0 ]; then
            echo "+ for i in 1..$CLI_HELD: sbatch -H --wrap true >/dev/null  (queued, not timed)"
            for ((i = 0; i < CLI_HELD; i++)); do
                "$BIN/sbatch" -H --wrap true >/dev/null || die "sbatch failed"
            done
        fi
        echo "+ for i in 1..$CLI_CALLS: X -H --wrap true >/dev/null  (X = sbatch, /bin/true, build/bench/hello_static)"
        c0=$(ctld_cpu_ns)
        s=$(loop_ms "$BIN/sbatch")
        c1=$(ctld_cpu_ns)
        c=$(calc "($c1 - $c0) / 1000000 / $CLI_CALLS")
        t=$(loop_ms /bin/true)
        h=$(loop_ms "$BB/hello_static")
        line="sbatch_ms=$s true_ms=$t hello_ms=$h vs_true=$(calc "$s / $t") vs_hello=$(calc "$s / $h") ctld_cpu_ms=$c"
        echo "  run $r: $line load=$(load | cut -d' ' -f1)"
        lines="$lines$line"$'\n'
        cluster_down
    done
    echo "median per call: $(medians "$lines" sbatch_ms true_ms hello_ms vs_true vs_hello ctld_cpu_ms)"
}

# pct P: the P-th percentile (nearest rank) of the numbers on stdin.
pct() {
    sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] }'
}

# time_calls N CMD...: the ms of each of N calls of CMD, one a line.
time_calls() {
    local n=$1 i t0 t1
    shift
    for ((i = 0; i < n; i++)); do
        t0=$(date +%s%N)
        "$@" >/dev/null || die "$1 failed"
        t1=$(date +%s%N)
        echo "$(((t1 - t0) / 1000)) 1000" | awk '{ printf "%.3f\n", $1 / $2 }'
    done
}

# STAGES: the launch_us fields, in the order sluiced logs them.
STAGES="total spool_fork to_supervisor pid_file cgroup job_exec report"

# stage_line [IDS]: "STAGE_p50_ms=.. STAGE_p90_ms=.. STAGE_p99_ms=.. ..."
# over the launch_us lines of DIR's node logs (those of the job ids in the
# file IDS only, one a line), and launches=N.
stage_line() {
    local lines name v out
    lines=$(grep -h ' launch_us ' "$DIR"/log/node*.log)
    if [ $# -gt 0 ]; then
        lines=$(printf '%s\n' "$lines" | awk 'NR == FNR { want["job=" $1] = 1; next }
            { for (i = 1; i <= NF; i++) if ($i in want) { print; break } }' "$1" -)
    fi
    out="launches=$(printf '%s\n' "$lines" | grep -c launch_us)"
    for name in $STAGES; do
        v=$(field "$name" "$lines" | awk '{ printf "%.2f\n", $1 / 1000 }')
        out="$out ${name}_p50_ms=$(printf '%s\n' "$v" | pct 50)"
        out="$out ${name}_p90_ms=$(printf '%s\n' "$v" | pct 90)"
        out="$out ${name}_p99_ms=$(printf '%s\n' "$v" | pct 99)"
    done
    echo "$out"
}

# stage_medians LINES: the medians of every stage percentile.
stage_medians() {
    local names="" name
    for name in $STAGES; do
        names="$names ${name}_p50_ms ${name}_p90_ms ${name}_p99_ms"
    done
    # shellcheck disable=SC2086
    medians "$1" launches $names
}

bench_stages() {
    local n lines line r t0 t1
    for n in 1000 $([ "$BIG" = 1 ] && echo 10000); do
        lines=""
        echo "== a $n-task array's launches, stage by stage (SlurmdDebug=debug); load $(load)"
        for r in $(seq "$RUNS"); do
            cluster_up "SlurmdDebug=debug"
            echo "+ sbatch --array=0-$((n - 1)) --wrap=true; poll squeue until empty; the node logs' launch_us lines" >&2
            t0=$(now_s)
            "$BIN/sbatch" --array=0-$((n - 1)) --wrap=true >/dev/null || die "sbatch failed"
            until all_done; do sleep 0.1; done
            t1=$(now_s)
            line="secs=$(calc "$t1 - $t0") $(stage_line)"
            echo "  run $r: $line load=$(load | cut -d' ' -f1)"
            lines="$lines$line"$'\n'
            cluster_down
        done
        echo "median: $(medians "$lines" secs) $(stage_medians "$lines")"
    done
}

bench_offcpu() {
    local r n=1000 perf_pid secs t0
    command -v perf >/dev/null || die "offcpu needs perf (apt-get install linux-perf)"
    echo "== a $n-task array's off-CPU time, by wait; load $(load)"
    for r in $(seq "$RUNS"); do
        cluster_up
        echo "+ perf record -e sched:sched_switch -g -a -o DIR/offcpu.data &; sbatch --array=0-$((n - 1)) --wrap=true; poll squeue until empty; kill -INT perf" >&2
        perf record -q -e sched:sched_switch -g -a -o "$DIR/offcpu.data" \
            >/dev/null 2>&1 &
        perf_pid=$!
        sleep 1
        t0=$(now_s)
        "$BIN/sbatch" --array=0-$((n - 1)) --wrap=true >/dev/null || die "sbatch failed"
        until all_done; do sleep 0.1; done
        secs=$(calc "$(now_s) - $t0")
        kill -INT "$perf_pid"
        wait "$perf_pid"
        echo "  run $r: secs=$secs load=$(load | cut -d' ' -f1)"
        echo "+ perf script -F comm,pid,tid,time,event,trace,ip,sym | bench/offcpu.py --tasks $n --daemon NODE01 --daemon NODE02" >&2
        perf script -i "$DIR/offcpu.data" -F comm,pid,tid,time,event,trace,ip,sym 2>/dev/null |
            /usr/bin/python3 "$ROOT/bench/offcpu.py" --tasks "$n" \
                --daemon "$(cat "$DIR/pids/node01.pid")" \
                --daemon "$(cat "$DIR/pids/node02.pid")"
        cluster_down
    done
}

bench_drain() {
    local lines="" line r left q s cq cs t aid
    echo "== a 10,000-task array draining: prod starts, squeue and sbatch answers; load $(load)"
    for r in $(seq "$RUNS"); do
        if [ "${DRAIN_STAGES:-0}" = 1 ]; then
            cluster_up "PartitionName=prod Nodes=node[01-02] PriorityTier=10 MaxTime=INFINITE State=UP" \
                "SlurmdDebug=debug"
        else
            cluster_up "PartitionName=prod Nodes=node[01-02] PriorityTier=10 MaxTime=INFINITE State=UP"
        fi
        echo "+ sbatch -p all --array=0-9999 --wrap=true; sleep 1" >&2
        aid=$("$BIN/sbatch" --parsable -p all --array=0-9999 --wrap=true) || die "sbatch failed"
        sleep 1
        echo "+ build/bench/start_latency -n $DRAIN_PROD -p prod" >&2
        line=$("$BB/start_latency" -n "$DRAIN_PROD" -p prod) || die "start_latency failed"
        # held submissions last: squeue would list them
        echo "+ $PROBE -c 1 -n $DRAIN_CALLS --squeue; $DRAIN_CALLS x /bin/true, timed" >&2
        cq=$("$PROBE" -c 1 -n "$DRAIN_CALLS" --squeue) || die "submit_bench --squeue failed"
        t=$(time_calls "$DRAIN_CALLS" /bin/true)
        echo "+ $DRAIN_CALLS x squeue, $DRAIN_CALLS x sbatch -H -p all --wrap true, each timed" >&2
        q=$(time_calls "$DRAIN_CALLS" "$BIN/squeue")
        s=$(time_calls "$DRAIN_CALLS" "$BIN/sbatch" -H -p all --wrap true)
        echo "+ $PROBE -c 1 -n $DRAIN_CALLS --hold -p all" >&2
        cs=$("$PROBE" -c 1 -n "$DRAIN_CALLS" --hold -p all) || die "submit_bench failed"
        left=$("$BIN/squeue" -h -r -t PD -j "$aid" -o %i 2>/dev/null | wc -l)
        [ "$left" -gt 0 ] ||
            echo "  (the array had drained before the last call)"
        line="prod_start_p50_ms=$(field start_p50_ms "$line")"\
" prod_start_p99_ms=$(field start_p99_ms "$line")"\
" prod_start_max_ms=$(field start_max_ms "$line")"
        line="$line squeue_p50_ms=$(printf '%s\n' "$q" | pct 50)"
        line="$line squeue_p99_ms=$(printf '%s\n' "$q" | pct 99)"
        line="$line sbatch_p50_ms=$(printf '%s\n' "$s" | pct 50)"
        line="$line sbatch_p99_ms=$(printf '%s\n' "$s" | pct 99)"
        line="$line conn_squeue_p50_ms=$(field p50_ms "$cq") conn_squeue_p99_ms=$(field p99_ms "$cq")"
        line="$line conn_submit_p50_ms=$(field p50_ms "$cs") conn_submit_p99_ms=$(field p99_ms "$cs")"
        line="$line true_p50_ms=$(printf '%s\n' "$t" | pct 50) true_p99_ms=$(printf '%s\n' "$t" | pct 99)"
        line="$line array_pending_after=$left"
        if [ "${DRAIN_STAGES:-0}" = 1 ]; then
            "$BIN/sacct" -X -n -P -r prod -o JobID >"$DIR/prod.ids"
            line="$line $(stage_line "$DIR/prod.ids")"
        fi
        echo "  run $r: $line load=$(load | cut -d' ' -f1)"
        lines="$lines$line"$'\n'
        cluster_down
    done
    echo "median: $(medians "$lines" prod_start_p50_ms prod_start_p99_ms squeue_p50_ms squeue_p99_ms sbatch_p50_ms sbatch_p99_ms conn_squeue_p50_ms conn_squeue_p99_ms conn_submit_p50_ms conn_submit_p99_ms true_p50_ms true_p99_ms)"
    [ "${DRAIN_STAGES:-0}" != 1 ] ||
        echo "median prod stages: $(stage_medians "$lines")"
}

bench_queue() {
    local lines="" line r i c0 c1 t0 t1 w c u
    echo "== squeue over $QUEUE_HELD held jobs, $QUEUE_CALLS calls a run; load $(load)"
    for r in $(seq "$RUNS"); do
        cluster_up
        echo "+ $PROBE -c 1 -n $QUEUE_HELD --hold  (queued, not timed)" >&2
        "$PROBE" -c 1 -n "$QUEUE_HELD" --hold >/dev/null || die "submit_bench failed"
        echo "+ $QUEUE_CALLS x squeue >/dev/null, each timed" >&2
        w="" c=""
        for ((i = 0; i < QUEUE_CALLS; i++)); do
            c0=$(ctld_cpu_ns)
            t0=$(date +%s%N)
            "$BIN/squeue" >/dev/null || die "squeue failed"
            t1=$(date +%s%N)
            c1=$(ctld_cpu_ns)
            w="$w$(calc "($t1 - $t0) / 1000000")"$'\n'
            c="$c$(calc "($c1 - $c0) / 1000000")"$'\n'
        done
        u=$(TIMEFORMAT='%U+%S'; { time "$BIN/squeue" >/dev/null; } 2>&1) ||
            die "squeue failed"
        line="squeue_ms=$(printf '%s' "$w" | median) ctld_cpu_ms=$(printf '%s' "$c" | median)"
        line="$line squeue_cpu_ms=$(calc "($u) * 1000")"
        echo "  run $r: $line load=$(load | cut -d' ' -f1)"
        lines="$lines$line"$'\n'
        cluster_down
    done
    echo "median: $(medians "$lines" squeue_ms ctld_cpu_ms squeue_cpu_ms)"
}

args=()
while [ $# -gt 0 ]; do
    case $1 in
    -r) RUNS=$2; shift 2 ;;
    --big) BIG=1; shift ;;
    -*) die "usage: bench/throughput.sh [-r RUNS] [--big] [floor|array|single|cli|drain|stages|offcpu|queue]..." ;;
    *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -gt 0 ] || args=(floor array single cli)
for b in sluice sluicectld sluiced sbatch squeue sacct; do
    [ -x "$BIN/$b" ] || die "$BIN/$b is not built (make)"
done
for b in spawn_floor submit_bench hello_static start_latency; do
    [ -x "$BB/$b" ] || die "$BB/$b is not built (make)"
done
[ -x "$PROBE" ] || die "$PROBE is not built (make)"
command -v bc >/dev/null || die "bc is needed"
echo "# $(date); $(nproc) CPUs; $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); load: $(load)"
for b in "${args[@]}"; do
    case $b in
    floor | array | single | cli | drain | stages | offcpu | queue) "bench_$b" ;;
    *) die "unknown benchmark $b" ;;
    esac
done
echo "# done $(date); load: $(load)"
