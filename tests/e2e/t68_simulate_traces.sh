#!/usr/bin/env bash
# sluice simulate on workload traces, no daemons: the seed's cluster
# (etc/quant-cluster.conf: prod node01, backtest node02-03, dev node04,
# partition_prio preemption) against an "overlap" variant where prod
# shares dev's node.  Only the overlap variant preempts, and says what it
# cost; the plots are images a browser shows.  A tiny SWF written for
# this test always runs (the parser, the mapping, --compare, --json,
# --plots, bad input); a 2-day slice of the DOST-ASTI SWF trace and of
# the Alibaba GPU trace run when the traces are there ($SLUICE_TRACES,
# by default ../shared/traces beside the repository).
. "$(dirname "$0")/lib.sh"

[ -x "$E2E_BIN/sluice" ] || skip_all "$E2E_BIN/sluice is not built"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "$PY is needed to read the JSON"
TRACES=${SLUICE_TRACES:-$E2E_ROOT/../shared/traces}
SEED=$E2E_ROOT/etc/quant-cluster.conf
W=$(mktemp -d /tmp/sluice-sim.XXXXXX)
trap 'rm -rf "$W"' EXIT
sed 's/^PartitionName=prod Nodes=node01 /PartitionName=prod Nodes=node01,node04 /' \
    "$SEED" >"$W/overlap.conf"
like "$(grep '^PartitionName=prod' "$W/overlap.conf")" 'Nodes=node01,node04 ' \
    "the overlap variant: prod on node01 and dev's node04"

# jq-free: python prints "a.preemptions b.preemptions b.lost ..." from
# the --compare JSON.
summary() {
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["a"], d["b"]
print(a["all"]["jobs"], a["all"]["preemptions"], b["all"]["preemptions"],
      "%.2f" % a["all"]["gpu_hours_lost"], "%.2f" % b["all"]["gpu_hours_lost"],
      a["all"]["started"] > 0 and b["all"]["started"] > 0)' "$1"
}

# check_plots DIR PREFIX...: the three plots of each prefix are valid SVG
# (and, with a headless chromium, render to a non-blank image).
check_plots() {
    local dir=$1 p files=() out
    shift
    for p in "$@"; do
        files+=("$dir/${p}util.svg" "$dir/${p}wait.svg" "$dir/${p}preempt.svg")
    done
    if out=$("$PY" "$E2E_ROOT/tests/e2e/svgcheck.py" "${files[@]}"); then
        ok "plots ${files[*]##*/}: valid SVG, sized, drawing"
    else
        not_ok "plots are valid SVG"
        printf '%s\n' "$out" | sed 's/^/#   /'
    fi
}

# --- the tiny SWF ------------------------------------------------------------
TINY=$E2E_ROOT/tests/e2e/sim/tiny.swf
MAP=0=prod:gpu,1=backtest,2=dev:gpu
sluice simulate -w "$TINY" --map "$MAP" --compare "$SEED" "$W/overlap.conf" \
    --json >"$W/tiny.json" 2>"$W/err"
is "$?" 0 "the tiny SWF replays on both configurations"
# 12 jobs, one without a run time: 11; preemptions only in the overlap
# variant (prod takes dev's node), with the GPU-hours the victim lost
is "$(summary "$W/tiny.json")" "11 0 1 0.00 0.68 True" \
    "tiny: 11 jobs, preemptions 0 vs 1, GPU-hours lost 0 vs 0.68 (4 GPUs x 610 s)"
never=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))["a"]
print(";".join(sorted("%s %s %d" % (n["partition"], n["reason"], n["jobs"])
                      for n in d["never_started"])))' "$W/tiny.json")
is "$never" "backtest PartitionNodeLimit 1;dev refused at submit: PartitionTimeLimit 1" \
    "tiny: the jobs that never start, and why"
out=$(sluice simulate -w "$TINY" --map "$MAP" --compare "$SEED" "$W/overlap.conf" \
    --plots "$W/tiny")
like "$out" 'preemptions +0 +1 +\+1' "the text comparison shows the preemption side by side"
check_plots "$W/tiny" quant-cluster- overlap-
out=$(sluice simulate -w "$TINY" --map "$MAP" -c "$W/overlap.conf" --plots "$W/one")
like "$out" 'against the starts the trace recorded' \
    "one configuration: the report, with the trace's recorded starts compared"
check_plots "$W/one" ""
if command -v chromium >/dev/null 2>&1; then
    timeout 60 chromium --headless --no-sandbox --disable-gpu \
        --screenshot="$W/util.png" --window-size=900,420 \
        "file://$W/one/util.svg" >/dev/null 2>&1
    if out=$("$PY" "$E2E_ROOT/tests/e2e/svgcheck.py" --png 900x420 "$W/util.png"); then
        ok "headless chromium renders util.svg (900x420, not blank)"
    else
        not_ok "headless chromium renders util.svg"
        echo "#   $out"
    fi
else
    ok "headless chromium renders util.svg # SKIP no chromium"
fi

# bad input names the file and line
printf '1 0 0 10 4\n' >"$W/bad.swf"
out=$(sluice simulate -w "$W/bad.swf" -c "$SEED" 2>&1)
rc=$?
like "$rc $out" '^[12] .*bad.swf:1: expected 18 fields, found 5' \
    "a short SWF line is refused with file:line"
out=$(sluice simulate -w "$TINY" --map 0=gpu -c "$SEED" 2>&1)
like "$out" 'no partition gpu' "a map naming no partition of the configuration is refused"

# --- the traces ------------------------------------------------------------------
DOST=$TRACES/DOST-ASTI_COARE-Saliksik-2020-cln.swf
PODS=$TRACES/alibaba_openb_pod_list_default.csv

# two_days NAME WHAT OUT ARGS...: a 2-day slice (ARGS: the workload, map
# and window) replayed on the seed's cluster and on the overlap variant:
# hundreds of jobs started on both, preemptions and GPU-hours lost only
# in the overlap variant, the plots valid.
two_days() {
    local name=$1 what=$2 out=$3 n pa pb la lb started
    shift 3
    sluice simulate "$@" --compare "$SEED" "$W/overlap.conf" --json \
        --plots "$W/$out" >"$W/$out.json" 2>"$W/err"
    is "$?" 0 "a 2-day slice of $name replays on both configurations"
    read -r n pa pb la lb started <<<"$(summary "$W/$out.json")"
    like "$n $started" '^[0-9]{3,} True$' "$name: hundreds of $what ($n), started on both"
    is "$pa" 0 "$name: no preemption on the seed's cluster"
    like "$pb $lb" '^[1-9][0-9]* [0-9]*\.[0-9]*[1-9]' \
        "$name: the overlap variant preempts ($pb times, $lb GPU-hours lost)"
    check_plots "$W/$out" quant-cluster- overlap-
}

if [ -r "$DOST" ]; then
    # days 2-3 of the trace (its busiest): partition 0 (gpu) to prod, 2
    # (debug) to dev, with GPUs; serial and batch to backtest
    two_days DOST-ASTI jobs dost -w "$DOST" \
        --map 0=prod:gpu,1=backtest,2=dev:gpu,3=backtest -S +2d -E +4d
else
    ok "DOST-ASTI slice # SKIP no $DOST"
fi
if [ -r "$PODS" ]; then
    # two busy days near the end: LS and Guaranteed pods to prod, BE to
    # dev, Burstable to backtest; the node list is not used with -c
    two_days Alibaba pods ali -w "$PODS" \
        --map LS=prod,Guaranteed=prod,BE=dev,Burstable=backtest -S +146d -E +148d
    # the node list beside the pods makes a configuration of its own
    out=$(sluice simulate -w "$PODS" -S +146d -E +148d 2>&1)
    like "$out" 'on alibaba-nodes: [0-9]+ jobs' \
        "without -c, the trace's node list is the configuration"
else
    ok "Alibaba slice # SKIP no $PODS"
fi

finish
