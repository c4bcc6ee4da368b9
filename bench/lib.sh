# Shared by the bench scripts that start a fresh local cluster (run.sh,
# bf_rpc_bench.sh, step_bench.sh, throughput.sh): load, median, field,
# now_s, die, and a cluster brought up from
# bench/cluster.conf and taken down on exit.  The script sets ROOT, BIN
# (the built binaries), BENCH_NAME (die's prefix) and BENCH_TMP (in the
# temporary directory's name) before sourcing it.
DIR=

# load: the 1, 5 and 15 minute load averages (other work on the machine).
load() {
    cut -d' ' -f1-3 /proc/loadavg
}

# median: of the numbers on stdin.
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# field NAME LINES: the values of NAME=VALUE in the lines (NAME whole:
# field ratio leaves cpu_ratio= alone).
field() {
    printf '%s\n' "$2" | grep -oE "(^| )$1=[^ ]*" | cut -d= -f2
}

# medians LINES NAME...: "NAME=MEDIAN ..." of each NAME in the lines.
medians() {
    local lines=$1 name out=""
    shift
    for name in "$@"; do
        out="$out $name=$(field "$name" "$lines" | median)"
    done
    echo "${out# }"
}

# now_s: wall-clock seconds with milliseconds.
now_s() {
    date +%s.%N | cut -c1-14
}

die() {
    echo "$BENCH_NAME: $*" >&2
    exit 1
}

cluster_down() {
    [ -n "$DIR" ] || return 0
    cd /
    "$BIN/sluice" down --cancel --dir "$DIR" >/dev/null 2>&1
    rm -rf "$DIR"
    DIR=
}
trap cluster_down EXIT
trap 'exit 130' INT TERM

# cluster_up [LINES...]: bench/cluster.conf (or BENCH_CONF) plus LINES,
# started fresh in a new DIR under BENCH_TMPDIR (default /tmp: state,
# spools and the jobs' output on that file system); SLUICE_CONF exported;
# cd into DIR/work.
cluster_up() {
    local conf=${BENCH_CONF:-$ROOT/bench/cluster.conf} out
    DIR=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/sluice-$BENCH_TMP.XXXXXX")
    if [ $# -gt 0 ]; then
        cp "$conf" "$DIR/in.conf"
        printf '%s\n' "$@" >>"$DIR/in.conf"
        conf=$DIR/in.conf
    fi
    out=$("$BIN/sluice" up -f "$conf" --dir "$DIR" 2>"$DIR/up.err") ||
        { cat "$DIR/up.err" >&2; die "sluice up failed"; }
    eval "$out"
    export SLUICE_CONF
    mkdir -p "$DIR/work"
    cd "$DIR/work" || die "cd $DIR/work"
}
