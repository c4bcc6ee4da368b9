#!/usr/bin/env bash
# The chaos run's invariant checker (bench/chaos_check.py) against the
# truth: on a quiet cluster it finds nothing, and with the planted fault
# SLUICE_TEST_DOUBLE_START (one job launched on a second node as well) it
# finds exactly that job run twice, and says where.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
CHECK=$E2E_ROOT/bench/chaos_check.py
[ -x "$PY" ] || skip_all "no /usr/bin/python3"

# collect OUT: what chaos.sh leaves for the checker, from this cluster.
collect() {
    local out=$1 pid
    mkdir -p "$out/nodes"
    # the footprint check compares a controller after faults with a quiet
    # one holding the same jobs; here nothing was faulted, so both figures
    # are this controller's once its jobs have ended (bench/chaos.sh
    # restarts the controller for the quiet one).
    pid=$(cat "$DIR/pids/sluicectld.pid")
    fp="$(awk '/VmRSS/ {print $2}' "/proc/$pid/status") $(ls "/proc/$pid/fd" | wc -l)"
    printf '%s\n%s\n' "$fp" "$fp" >"$out/ctld"
    sacct -a -S @0 -X -P -n -o JobIDRaw,JobID,State,Restarts >"$out/sacct.txt"
    sacct -a -S @0 --json=sluice >"$out/acct.json"
    cp "$DIR"/log/node*.log "$out/nodes/"
    touch "$out/faults"
}

# run OUT: jobs on GPUs, an array; all of them ended; then collect.
run() {
    local out=$1 pid ids
    mkdir -p "$out"
    for i in 1 2 3; do
        sbatch --parsable -o /dev/null --gres=gpu:2 --wrap 'sleep 1'
    done >"$out/accepted"
    echo "$(sbatch --parsable -o /dev/null --array=0-3 --wrap true) 4" >>"$out/accepted"
    ids=$(cut -d' ' -f1 "$out/accepted" | tr '\n' ' ')
    wait_for 30 eval '[ -z "$(squeue -h -o %i)" ]'
    is "$(squeue -h -o %i)" "" "the jobs $ids ended"
    collect "$out"
}

export SLUICE_TEST_DOUBLE_START=2
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
unset SLUICE_TEST_DOUBLE_START
run "$WORK/planted"
out=$($PY "$CHECK" "$WORK/planted" 2>&1)
rc=$?
is "$rc" 1 "with job 2 launched twice (SLUICE_TEST_DOUBLE_START), the checker fails"
like "$out" "^VIOLATION: job 2 ran twice at once: on node0[1-4] from [0-9.]+ and on node0[1-4]" \
    "... naming job 2 and its two nodes"
n=$(printf '%s\n' "$out" | grep -c '^VIOLATION')
is "$n" 1 "... and nothing else"
[ "$n" = 1 ] || printf '%s\n' "$out" | sed 's/^/# /'
like "$out" "check 1: 4 accepted submissions, 7 jobs and tasks expected, 7 with one final record" \
    "every job and array task has one final record"
cluster_gone
cluster_stop

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
run "$WORK/quiet"
out=$($PY "$CHECK" "$WORK/quiet" 2>&1)
rc=$?
is "$rc" 0 "on a quiet cluster the checker finds nothing"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
like "$out" "violations: 0" "... violations: 0"
like "$out" "check 3: [1-9][0-9]* GPU runs, 0 pairs sharing a GPU at once" \
    "... GPU runs read from the nodes' launch lines"
# a record made to disagree with its events is caught too
$PY - "$WORK/quiet/acct.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["jobs"][0]["restarts"] = 3
json.dump(d, open(sys.argv[1], "w"))
PY
like "$($PY "$CHECK" "$WORK/quiet" 2>&1)" "VIOLATION: job [0-9]+: Restarts=3 but 0 requeue events" \
    "a Restarts count unlike the job's events is caught"
# and a controller that kept what the faults cost it
read -r rss fds <"$WORK/quiet/ctld"
printf '%s %s\n%s %s\n' "$rss" "$fds" $((rss * 2)) $((fds + 40)) >"$WORK/quiet/ctld"
out=$($PY "$CHECK" "$WORK/quiet" 2>&1)
like "$out" "VIOLATION: controller RSS $((rss * 2)) kB at the end, $rss kB quiet" \
    "a controller grown by half of its RSS is caught"
like "$out" "VIOLATION: controller descriptors $((fds + 40)) at the end, $fds quiet" \
    "... and one holding 40 more descriptors"
cluster_gone
finish
