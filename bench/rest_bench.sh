#!/usr/bin/env bash
# The controller's HTTP server under load (issue 17): requests/s of
# GET /slurm/v0.0.38/ping from 8 keep-alive clients (wrk), then, with
# 10,000 jobs in the queue, the latency of GET /slurm/v0.0.38/jobs and of
# a /metrics scrape (wall time seen by curl, and the controller's own CPU
# time per request from /proc), how long a ping waits while such answers
# are being made (they are made a page per turn of the loop), and ping
# again.  Medians of ROUNDS.
#
#   bench/rest_bench.sh            # ROUNDS=20 JOBS=10000 SECONDS_=10
#
# Needs wrk (apt-get install wrk) and curl.  Results: bench/RESULTS.md.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bin
BENCH_NAME=rest_bench
BENCH_TMP=rest
ROUNDS=${ROUNDS:-20}
JOBS=${JOBS:-10000}
SECS=${SECONDS_:-10}
. "$ROOT/bench/lib.sh"

command -v wrk >/dev/null || die "needs wrk (apt-get install wrk)"
command -v curl >/dev/null || die "needs curl"
[ -x "$ROOT/build/bench/submit_bench" ] || die "build first: make"
export PATH=$BIN:$PATH

cluster_up
ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
[ -n "$ADDR" ] || die "no SluiceRestAddr in $SLUICE_CONF"
TOK=$(scontrol token lifespan=7200 | cut -d= -f2)
CTLD=$(cat "$DIR/pids/sluicectld.pid")
HZ=$(getconf CLK_TCK)

# cpu_ticks: the controller's user+system time so far, in clock ticks.
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$CTLD/stat"
}

# ping_rate: requests/s of one wrk run of SECS seconds, 8 connections.
ping_rate() {
    wrk -t2 -c8 -d"${SECS}s" -H "Authorization: Bearer $TOK" \
        "http://$ADDR/slurm/v0.0.38/ping" |
        awk '/^Requests\/sec:/ {printf "%.0f", $2}'
}

# stats: "median X p99 Y" of the numbers on stdin (one a line).
stats() {
    sort -n | awk '{v[NR] = $1} END {
        if (NR == 0) { print "no samples"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        p = v[int(NR * 0.99 + 0.999)]
        printf "median %.2f  p99 %.2f  (n=%d, min %.2f, max %.2f)", m, p, NR, v[1], v[NR]
    }'
}

# timed PATH: ROUNDS GETs of PATH; the wall ms of each, then the
# controller's CPU ms per request and the reply's size.
timed() {
    local path=$1 t0 t1 i
    t0=$(cpu_ticks)
    for i in $(seq "$ROUNDS"); do
        curl -s -o "$DIR/reply" -w '%{time_total}\n' \
            -H "Authorization: Bearer $TOK" "http://$ADDR$path" |
            awk '{printf "%.2f\n", $1 * 1000}'
    done >"$DIR/times"
    t1=$(cpu_ticks)
    echo "GET $path  wall ms: $(stats <"$DIR/times")"
    echo "    controller CPU per request: $(awk -v d=$((t1 - t0)) -v hz="$HZ" \
        -v n="$ROUNDS" 'BEGIN {printf "%.2f ms", d * 1000 / hz / n}')" \
        " reply $(wc -c <"$DIR/reply") bytes, status $(curl -s -o /dev/null \
            -w '%{http_code}' -H "Authorization: Bearer $TOK" "http://$ADDR$path")"
}

echo "# $(date -u) $(uname -m) nproc=$(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: ROUNDS=$ROUNDS JOBS=$JOBS SECONDS_=$SECS bench/rest_bench.sh"
echo "ping, 8 clients (wrk -t2 -c8 -d${SECS}s), idle cluster:"
r=""
for i in 1 2 3; do r="$r$(ping_rate)\n"; done
echo "  requests/s: $(printf "$r" | stats)"

"$ROOT/build/bench/submit_bench" -c 2 -n $((JOBS / 2)) --hold >"$DIR/submit.out" 2>&1 ||
    die "submit_bench failed: $(tail -3 "$DIR/submit.out")"
echo "with $(squeue -h | wc -l) jobs in the queue (held):"
timed /slurm/v0.0.38/jobs
timed /metrics
timed /slurm/v0.0.38/ping
timed /sluice/v1/cluster
timed /sluice/v1/queue
for p in /slurm/v0.0.38/jobs /slurmdb/v0.0.38/jobs; do
    (for i in 1 2 3; do
        curl -s -o /dev/null -H "Authorization: Bearer $TOK" "http://$ADDR$p"
    done) &
    bg=$!
    for i in $(seq 60); do
        curl -s -o /dev/null -w '%{time_total}\n' \
            -H "Authorization: Bearer $TOK" "http://$ADDR/slurm/v0.0.38/ping" |
            awk '{printf "%.2f\n", $1 * 1000}'
        sleep 0.02
    done >"$DIR/times"
    wait "$bg"
    echo "ping while GET $p streams: wall ms $(stats <"$DIR/times")"
done
r=""
for i in 1 2 3; do r="$r$(ping_rate)\n"; done
echo "ping, 8 clients: requests/s: $(printf "$r" | stats)"
